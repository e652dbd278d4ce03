/* SPDX-License-Identifier: MIT */
/*
 * layout.h - the value of the ABI stamp (core/abi.h says what the stamp
 * is): the version, the headers' hash, and the layout of every structure that
 * crosses the boundary between the binary and a module. It is a layer of its
 * own above the others (next to main.c), because those structures come from
 * several layers (core, the command context, health's findings and history);
 * core itself only reads stamps. Included by abi/binary_stamp.c and
 * abi/module_stamp.c only.
 */
#ifndef GS_ABI_LAYOUT_H
#define GS_ABI_LAYOUT_H

#include "abi_hash.h" /* generated: GS_ABI_HEADERS */
#include "core/abi.h"
#include "core/err.h"
#include "core/exit.h"
#include "core/model.h"
#include "core/sampler.h"
#include "health/health.h"
#include "version.h"

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

#endif /* GS_ABI_LAYOUT_H */
