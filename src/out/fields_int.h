/* SPDX-License-Identifier: MIT */
/*
 * fields_int.h - the row type of the nvidia-smi field table, shared by the
 * table (fields_table.c) and the code that parses and formats (fields.c).
 * Private to src/out/fields*.c.
 */
#ifndef GS_OUT_FIELDS_INT_H
#define GS_OUT_FIELDS_INT_H

#include "out/fields.h"

#include <stddef.h>
#include <stdint.h>

/* How a value is spelled. */
enum fk {
    FK_NONE,         /* known to nvidia-smi, not read by gpuscope: [N/A] */
    FK_STR,          /* char array */
    FK_U32,          /* uint32_t, unit appended */
    FK_U64,          /* uint64_t */
    FK_I32,          /* int32_t (temperatures: no unit, as nvidia-smi) */
    FK_MIB,          /* uint64_t bytes -> whole MiB */
    FK_WATTS,        /* uint32_t mW -> W with two decimals */
    FK_PSTATE,       /* P0..P15 */
    FK_ENABLED,      /* Enabled / Disabled */
    FK_YESNO,        /* Yes / No */
    FK_EVENT,        /* Active / Not Active: bit `arg` of the clock-event mask */
    FK_HEX64,        /* 0x0000000000000004 */
    FK_HEX8,         /* 0x233010DE */
    FK_HEX4,         /* 0x0000 */
    FK_HEX2,         /* 0x3B */
    FK_CC,           /* compute capability "9.0" */
    FK_COMPUTE_MODE, /* Default, Exclusive_Process, ... */
    FK_FAN,          /* first fan, % */
    FK_TIMESTAMP,    /* snapshot wall clock */
    FK_DRIVER,       /* driver version (sysinfo) */
    FK_COUNT,        /* GPUs in the snapshot */
    FK_INDEX,        /* gs_static.index */
    FK_PID,          /* process fields */
    FK_PNAME,
    FK_PMEM,
};

/* Where the value lives. */
enum src { SRC_NONE, SRC_SNAP, SRC_SAMPLE, SRC_STATIC, SRC_PROC };

enum def_flags {
    DEF_EXT = 1 << 0, /* a gpuscope extension, not an nvidia-smi name */
};

struct gs_field_def {
    const char *name;  /* canonical: printed in the header */
    const char *alias; /* accepted on input, or NULL */
    const char *unit;  /* header tag and value suffix ("MiB"), or NULL */
    uint8_t kind;      /* enum fk */
    uint8_t src;       /* enum src */
    uint8_t idx;       /* enum gs_field (SRC_SAMPLE) or gs_sfield (SRC_STATIC) */
    uint8_t flags;     /* enum def_flags */
    uint16_t off;      /* offset of the member in gs_sample / gs_static */
    uint64_t arg;      /* FK_EVENT: the reason bit */
};

extern const struct gs_field_def gs_gpu_fields[];
extern const size_t gs_gpu_fields_count;
extern const struct gs_field_def gs_app_fields[];
extern const size_t gs_app_fields_count;

#endif /* GS_OUT_FIELDS_INT_H */
