/* SPDX-License-Identifier: MIT */
/*
 * scenario_int.h - helpers shared by the scenario parser's files (scenario.c,
 * scenario_proc.c). Not part of the parser's public API (scenario.h).
 */
#ifndef GS_SIM_SCENARIO_INT_H
#define GS_SIM_SCENARIO_INT_H

#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "scenario_read.h"

/* Where the parser is: every message starts "<fname>:<line>: " (at). */
struct gs_scn_ctx {
    struct gs_scn *s;
    struct gs_scn_where at;
};

struct scn_enum {
    const char *name;
    double value;
};

extern const struct scn_enum gs_scn_throttle_names[]; /* gpu_idle, sw_power_cap, ... */

/* Record "<fname>:<line>: <message>"; always returns -1. */
int gs_scn_err(struct gs_scn_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse a value expression into the arena, errors located at the current line. */
int gs_scn_value_in(struct gs_scn_ctx *c, const char *text, struct gs_scn_expr **out);
/* Parse a constant (a number with an optional unit); key names it in messages. */
int gs_scn_const(struct gs_scn_ctx *c, const char *key, const char *text, double *out);
/* Symbolic value: one name, or names joined by '|' for the throttle table. */
int gs_scn_enum_value(const struct scn_enum *names, const char *text, double *out);
/* GPU selection (all, 3, 0-7, 0,2,5) as a bit mask; create: allow undefined GPUs. */
int gs_scn_selection(struct gs_scn_ctx *c, const char *text, int create, uint64_t *mask);

int gs_scn_line_proc(struct gs_scn_ctx *c, char **w, int n);
/* After the last line: every MPS client has its GPU's MPS server in the compute list. */
int gs_scn_check_mps(struct gs_scn_ctx *c);
int gs_scn_line_at(struct gs_scn_ctx *c, char **w, int n);
int gs_scn_line_fault(struct gs_scn_ctx *c, char **w, int n);
int gs_scn_line_mig(struct gs_scn_ctx *c, char **w, int n);
/* Set one numeric GPU attribute by its key (a gpu line's key=value); 1: no such key. */
int gs_scn_gpu_num_attr(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *k, const char *v);
/* Reset one numeric GPU attribute to its default (NULL for derived ones); 1: no such key. */
int gs_scn_gpu_num_default(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *k);
int gs_scn_line_cuda(struct gs_scn_ctx *c, char **w, int n); /* scenario_cuda.c */

#endif /* GS_SIM_SCENARIO_INT_H */
