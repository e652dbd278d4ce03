/* SPDX-License-Identifier: MIT */
/*
 * report.h - inside `gpuscope report`: chart data bucketed over the time range,
 * shared by the HTML (report_html.c) and terminal (report_term.c) renderers.
 */
#ifndef GS_RECORD_REPORT_H
#define GS_RECORD_REPORT_H

#include "record/record.h"

enum gs_metric { GS_M_UTIL, GS_M_MEM, GS_M_TEMP, GS_M_POWER, GS_M_SM, GS_M_MEMCLK, GS_M_TX, GS_M_RX,
                 GS_M_LIMIT, GS_M_COUNT };
#define GS_CHART_MAX_PROCS 8

struct gs_chart {
    unsigned w;                       /* buckets across the time range */
    int64_t from_ms, to_ms;
    struct gs_summary sum;            /* GPUs (order, names, limits) and their summaries */
    float *v[GS_M_COUNT];             /* [gpu * w + bucket], NaN = no data */
    uint8_t *serious;                 /* [bucket]: a thermal/HW slowdown on some GPU */
    unsigned nprocs;                  /* per-process GPU memory lines */
    int64_t proc_split;               /* process data: rollups before, samples from here */
    char proc_label[GS_CHART_MAX_PROCS][96];
    float *pmem;                      /* [proc * w + bucket] MiB */
    struct gs_mark { int64_t t; int gpu; char kind[16]; int64_t code; char text[120]; } *marks;
    unsigned nmarks;
};

int gs_chart_load(struct gs_store *st, const struct gs_report_opts *o, unsigned w, struct gs_chart *c,
                  struct gs_err *err);
void gs_chart_free(struct gs_chart *c);
/* The per-process source (t, proc, gpu, mem) for the chart's range, as a subquery
 * with parameters ?1 from, ?2 to, ?3 split (bound by gs_chart_bind_src). */
const char *gs_chart_proc_src(void);
void gs_chart_bind_src(sqlite3_stmt *q, const struct gs_chart *c);

void gs_report_html(FILE *out, struct gs_store *st, const struct gs_chart *c);
void gs_report_term(FILE *out, const struct gs_chart *c, bool utf8);
/* "1 h 20 min", "35 s" */
const char *gs_fmt_secs(double s, char *buf, size_t len);

#endif /* GS_RECORD_REPORT_H */
