/* SPDX-License-Identifier: MIT */
/*
 * abi.h - the stamp that ties a module to the binary it was built with.
 *
 * A module (module.h) runs inside the binary and shares its structures: a
 * gs_snapshot filled by the core is read field by field by top.so, serve.so
 * reads gs_sample arrays, record.so fills the gs_history that doctor walks. A
 * module built from other headers would read those structures at the wrong
 * offsets, so every module carries this stamp (src/core/module_stamp.c is linked
 * into each one, never into the binary) and gs_module_symbol() refuses a module
 * whose stamp differs from the binary's in any field:
 *   version  GS_VERSION of the build;
 *   headers  a hash of the text of every header under src/ (the Makefile writes it
 *            into $(GEN)/abi_hash.h): any change to a declaration, an enum value or
 *            a struct member changes it;
 *   layout   the sizes, alignments and some offsets of the structures that cross the
 *            boundary, as this compiler laid them out (flags such as -m32 or a
 *            packing pragma that leave the text alone change this).
 * The struct's first two members never change, so a binary can read any
 * module's stamp far enough to say what it is.
 */
#ifndef GS_ABI_H
#define GS_ABI_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#include "abi_hash.h" /* generated: GS_ABI_HEADERS */
#include "cmd/cmd.h"
#include "core/err.h"
#include "core/model.h"
#include "core/sampler.h"
#include "health/health.h"
#include "version.h"

#define GS_ABI_MAGIC UINT32_C(0x62617367) /* "gsab" in memory order */
#define GS_ABI_SYMBOL "gs_module_abi"

struct gs_abi_stamp {
    uint32_t magic;       /* GS_ABI_MAGIC: this is a gpuscope stamp */
    uint32_t size;        /* sizeof(struct gs_abi_stamp) when it was built */
    char version[24];     /* GS_VERSION */
    char headers[24];     /* GS_ABI_HEADERS: 16 hex digits */
    uint64_t layout;      /* GS_ABI_LAYOUT */
};

/* One term of the layout checksum: item i's value times an odd constant of its own. */
#define GS_ABI_TERM(i, v) ((uint64_t)(v) * (UINT64_C(0x9e3779b97f4a7c15) + 2 * (uint64_t)(i)))
#define GS_ABI_TYPE(i, T) (GS_ABI_TERM(2 * (i), sizeof(T)) + GS_ABI_TERM(2 * (i) + 1, alignof(T)))

/* A constant expression, so that a module's stamp is plain read-only data. */
#define GS_ABI_LAYOUT                                                                             \
    (GS_ABI_TYPE(1, struct gs_cmd_ctx) + GS_ABI_TYPE(2, struct gs_err) +                          \
     GS_ABI_TYPE(3, struct gs_fmask) + GS_ABI_TYPE(4, struct gs_sample) +                         \
     GS_ABI_TYPE(5, struct gs_static) + GS_ABI_TYPE(6, struct gs_proc) +                          \
     GS_ABI_TYPE(7, struct gs_gpu) + GS_ABI_TYPE(8, struct gs_event) +                            \
     GS_ABI_TYPE(9, struct gs_sysinfo) + GS_ABI_TYPE(10, struct gs_snapshot) +                    \
     GS_ABI_TYPE(11, struct gs_sampler_opts) + GS_ABI_TYPE(12, struct gs_finding) +               \
     GS_ABI_TYPE(13, struct gs_findings) + GS_ABI_TYPE(14, struct gs_health_cfg) +                \
     GS_ABI_TYPE(15, struct gs_history) + GS_ABI_TYPE(16, struct gs_trend) +                      \
     GS_ABI_TERM(40, GS_F_COUNT) + GS_ABI_TERM(41, GS_S_COUNT) + GS_ABI_TERM(42, GS_P_COUNT) +    \
     GS_ABI_TERM(43, offsetof(struct gs_sample, status)) +                                        \
     GS_ABI_TERM(44, offsetof(struct gs_sample, age_ms)) +                                        \
     GS_ABI_TERM(45, offsetof(struct gs_gpu, s)) + GS_ABI_TERM(46, offsetof(struct gs_gpu, procs)) + \
     GS_ABI_TERM(47, offsetof(struct gs_snapshot, gpus)) +                                        \
     GS_ABI_TERM(48, offsetof(struct gs_snapshot, events)) +                                      \
     GS_ABI_TERM(49, offsetof(struct gs_err, hint)))

#define GS_ABI_STAMP_INIT                                                                         \
    {                                                                                             \
        .magic = GS_ABI_MAGIC, .size = sizeof(struct gs_abi_stamp), .version = GS_VERSION,        \
        .headers = GS_ABI_HEADERS, .layout = GS_ABI_LAYOUT                                        \
    }

/* Defined by src/core/module_stamp.c in every module. */
extern const struct gs_abi_stamp gs_module_abi;

#endif /* GS_ABI_H */
