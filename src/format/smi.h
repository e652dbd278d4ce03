/* SPDX-License-Identifier: MIT */
/*
 * smi.h - nvidia-smi's own outputs, written from a snapshot: the default
 * summary table, -L, -q (text), dmon and pmon. Each follows the spelling of
 * the driver branch the snapshot's NVML reports (docs/SMI.md says which
 * branches were compared with real captures). -q -x is in the smixml module
 * (libxml2). Like every formatter they only read the snapshot.
 */
#ifndef GS_OUT_SMI_H
#define GS_OUT_SMI_H

#include "core/model.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* nvidia-smi lists a GPU's processes by PID: their indexes in that order into
 * idx (room for g->nprocs); returns how many. */
uint32_t gs_smi_procs_by_pid(const struct gs_gpu *g, uint32_t *idx, uint32_t cap);

/* The date line nvidia-smi starts its table and -q with: "Tue Jul 14 08:12:38 2026". */
void gs_smi_date(const struct timespec *ts, char *buf, size_t len);

/* The throttle-time counters of -q's "Clocks Event Reasons Counters" (and -q -x's
 * clocks_event_reasons_counters), in nvidia-smi's order: the key, the XML element
 * and the enum gs_viol entry (stream 12's readings). */
struct gs_smi_viol {
    const char *key, *xml;
    unsigned viol;
};
extern const struct gs_smi_viol gs_smi_viol[5];

/* `nvidia-smi`: the summary table with its processes. */
int gs_smi_table_write(FILE *out, const struct gs_snapshot *snap);
/* `nvidia-smi -L`: "GPU 0: NAME (UUID: GPU-...)". */
int gs_smi_list_write(FILE *out, const struct gs_snapshot *snap);

/* -q sections (-d): bit set of GS_SMI_D_*; 0 = everything. */
enum gs_smi_display {
    GS_SMI_D_MEMORY = 1 << 0,
    GS_SMI_D_UTILIZATION = 1 << 1,
    GS_SMI_D_ECC = 1 << 2,
    GS_SMI_D_TEMPERATURE = 1 << 3,
    GS_SMI_D_POWER = 1 << 4,
    GS_SMI_D_CLOCK = 1 << 5,
    GS_SMI_D_COMPUTE = 1 << 6,
    GS_SMI_D_PIDS = 1 << 7,
    GS_SMI_D_PERFORMANCE = 1 << 8,
    GS_SMI_D_SUPPORTED_CLOCKS = 1 << 9,
    GS_SMI_D_PAGE_RETIREMENT = 1 << 10,
    GS_SMI_D_ACCOUNTING = 1 << 11,
    GS_SMI_D_ENCODER_STATS = 1 << 12,
    GS_SMI_D_SUPPORTED_GPU_TARGET_TEMP = 1 << 13,
    GS_SMI_D_VOLTAGE = 1 << 14,
    GS_SMI_D_FBC_STATS = 1 << 15,
    GS_SMI_D_ROW_REMAPPER = 1 << 16,
    GS_SMI_D_GSP_FIRMWARE_VERSION = 1 << 17,
    GS_SMI_D_POWER_SMOOTHING = 1 << 18,
    GS_SMI_D_POWER_PROFILES = 1 << 19,
};
/* Parse "MEMORY,ECC" into *mask; -1 with the bad word in bad[] on error. */
int gs_smi_display_parse(const char *spec, unsigned *mask, char *bad, size_t badlen);
/* `nvidia-smi -q [-d ...]`. */
int gs_smi_query_write(FILE *out, const struct gs_snapshot *snap, unsigned display);

/* dmon and pmon: the header (two lines) once, then one line per GPU (dmon) or per
 * process (pmon) per snapshot. groups: the -s letters ("puc" by default). */
struct gs_smi_mon {
    const char *groups;  /* dmon: p u c v m e t; pmon: u m */
    bool date, time;     /* -o D / -o T */
    bool pmon;
};
int gs_smi_mon_header(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap);
int gs_smi_mon_write(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap);
/* The per-tick fields those groups print. */
struct gs_fmask gs_smi_mon_want(const struct gs_smi_mon *m);
/* Is every letter of groups a known -s letter? */
bool gs_smi_mon_groups_ok(const struct gs_smi_mon *m, const char *groups);

#endif /* GS_OUT_SMI_H */
