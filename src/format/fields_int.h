/* SPDX-License-Identifier: MIT */
/*
 * fields_int.h - the row type of the nvidia-smi field table, shared by the
 * table (fields_table.c) and the code that parses and formats (fields.c).
 * Private to src/format/fields*.c.
 */
#ifndef GS_OUT_FIELDS_INT_H
#define GS_OUT_FIELDS_INT_H

#include "format/fields.h"

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
    FK_KMD,          /* kernel module version (sysinfo) */
    FK_COUNT,        /* GPUs in the snapshot */
    FK_INDEX,        /* gs_static.index */
    FK_PID,          /* process fields */
    FK_PNAME,
    FK_PMEM,
    FK_NS_US,        /* uint64_t nanoseconds -> whole microseconds (throttle time counters) */
    FK_PCT2,         /* uint32_t percent with two decimals: "100.00 %" */
    FK_ECCLOC,       /* ecc_loc entry `arg` (flat index), valid when its ecc_loc_ok bit is set */
    FK_ADDRMODE,     /* None / HMM / ATS */
    FK_RECOVERY,     /* None / Reset / Reboot / Drain P2P / Drain and Reset */
    FK_VALID,        /* valid / invalid (InfoROM checksum) */
    FK_HEX1,         /* 0x3: hex without padding (PCI class codes) */
    FK_FABRIC_STATE, /* Not Started / In Progress / Completed */
    FK_FABRIC_STATUS,/* Success, or the probe's error */
    FK_UUID16,       /* 16 bytes as 8-4-4-4-12 hex */
    FK_FABRIC_HEALTH,/* 2-bit field at shift `arg` of the health mask (arg 99: the summary) */
    FK_PEER_TYPE,    /* Direct Connected / Switch Connected */
    /* -- profiling (GPM) and MIG (area 10c) -- */
    FK_PROF_PCT,     /* double ratio 0..1 -> percent with one decimal */
    FK_PROF_BPS,     /* double bytes/s -> integer */
    FK_PGI,          /* process: MIG GPU instance ID */
    FK_PCI,          /* process: MIG compute instance ID */
    /* -- the fleet -- */
    FK_HOST,         /* the GPU's node (gs_static.host), else this machine's host name */
};

/* Where the value lives. */
enum src { SRC_NONE, SRC_SNAP, SRC_SAMPLE, SRC_STATIC, SRC_PROC };

enum def_flags {
    DEF_EXT = 1 << 0,      /* a gpuscope extension, not an nvidia-smi name */
    DEF_BARE_NA = 1 << 1,  /* nvidia-smi prints N/A without brackets when there is no value */
    DEF_THROTTLE = 1 << 2, /* before R535 the header is the clocks_throttle_reasons.* alias */
    DEF_GONE580 = 1 << 3,  /* R580+ nvidia-smi prints it as deprecated, whatever NVML says */
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
