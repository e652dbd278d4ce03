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
    double bucket_ms;                 /* (to - from) / w */
    unsigned maxgap;                  /* buckets with no data that a line still bridges (< 2.5 intervals) */
    struct gs_summary sum;            /* GPUs (order, names, limits) and their summaries */
    float *v[GS_M_COUNT];             /* [gpu * w + bucket], NaN = no data */
    uint8_t *serious;                 /* [gpu * w + bucket]: a thermal/HW slowdown or power brake */
    unsigned nprocs;                  /* per-process GPU memory lines */
    unsigned proc_maxgap;             /* maxgap for them (process samples are sparser: 5 s) */
    int64_t proc_split;               /* process data: rollups before, samples from here */
    char proc_label[GS_CHART_MAX_PROCS][96];
    float *pmem;                      /* [proc * w + bucket] MiB */
    struct gs_mark { int64_t t; int gpu; char kind[16]; int64_t code; char text[120]; } *marks;
    unsigned nmarks;
};

/* Chart data over the report's range in at most max_w buckets: fewer when the range
 * holds fewer sampling intervals (a 5-minute range at 1 s: 300), so that every bucket
 * can hold a sample and a range with two samples still draws a line. */
int gs_chart_load(struct gs_store *st, const struct gs_report_opts *o, unsigned max_w, struct gs_chart *c,
                  struct gs_err *err);
/* The buckets [b0, b1] a stored row at t standing for n samples covers (a rollup row
 * covers its whole minute); false when none is inside the range. */
bool gs_chart_span(const struct gs_chart *c, int64_t t, double n, int64_t *b0, int64_t *b1);
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
