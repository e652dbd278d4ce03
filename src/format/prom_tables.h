/* SPDX-License-Identifier: MIT */
/*
 * prom_tables.h - the metric families gpuscope exposes, read straight from
 * gs_sample / gs_static fields: their names (dcgm-exporter's DCGM_FI_* and
 * gpuscope's own), types, units, HELP and scaling. One list for every writer
 * of them: serve's /metrics (src/serve/) and record's remote write
 * (src/record/rw_*.c). Data only (prom_tables.c).
 */
#ifndef GS_FORMAT_PROM_TABLES_H
#define GS_FORMAT_PROM_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

enum prom_type { PT_GAUGE, PT_COUNTER, PT_INFO };
enum prom_num { PN_U32, PN_I32, PN_U64 };
enum prom_fmt {
    PF_INT, /* integer (truncated), as DCGM prints integer fields */
    PF_F6,  /* %f, as dcgm-exporter prints double fields */
    PF_G,   /* shortest exact double */
    PF_PCT, /* an integer percentage written as a 0-1 ratio: 31 -> 0.31 */
};

struct prom_fam {
    const char *name;  /* sample name in text format (gpuscope counters end in _total) */
    const char *help;
    uint8_t type;      /* enum prom_type */
    bool dcgm;         /* DCGM label set; in OpenMetrics a DCGM counter is typed unknown */
    const char *unit;  /* OpenMetrics UNIT (suffix of the family name) or NULL */
};

struct prom_desc {
    struct prom_fam fam;
    uint8_t field;     /* GS_F_x (sample tables) or GS_S_x (static tables) */
    uint16_t off;      /* offset of the raw value in gs_sample / gs_static */
    uint8_t num;       /* enum prom_num: type of the raw value */
    double scale;      /* exported value = raw * scale */
    uint8_t fmt;       /* enum prom_fmt */
};

/* One table of field-driven families. */
struct prom_table {
    const struct prom_desc *v;
    size_t n;
    bool is_static;    /* fields of gs_static rather than gs_sample */
    bool drm_only;     /* AMD and Intel GPUs only: what DCGM names carry for NVIDIA's */
};

/* In rendering order: DCGM sample and static families, then gpuscope_*. */
extern const struct prom_table gs_prom_tables[];
extern const size_t gs_prom_ntables;

/* Clock-event (throttle) bits, named as dcgm-exporter's clock_event label values. */
struct prom_bit_name {
    uint64_t bit;
    const char *name;
};
extern const struct prom_bit_name gs_prom_throttle_names[];
extern const size_t gs_prom_nthrottle_names;

/* Field statuses counted by gpuscope_gpu_unavailable_fields, with their label values. */
struct prom_status_name {
    uint8_t status;
    const char *name;
};
extern const struct prom_status_name gs_prom_status_names[];
extern const size_t gs_prom_nstatus_names;

#endif /* GS_FORMAT_PROM_TABLES_H */
