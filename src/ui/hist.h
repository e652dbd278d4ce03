/* SPDX-License-Identifier: MIT */
/*
 * hist.h - bounded history for `gpuscope top`: per GPU a ring of recent
 * readings of each chart metric (utilization, memory, temperature, power:
 * the table gs_chart_metrics[]), as percent of their scale, so one chart
 * draws any of them, as long as the terminal is wide;
 * per process a coarse ring of GPU memory for the detail view's growth line.
 */
#ifndef GS_UI_HIST_H
#define GS_UI_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* ---- chart metrics: one entry of gs_chart_metrics[] (hist.c) each ------------------- */

/* How a chart's title prints its value now and the scale the chart spans. */
enum gs_chart_unit {
    GS_CU_PCT,     /* "95%" (the scale is 100 %) */
    GS_CU_BYTES,   /* "57.4GiB of 79.6GiB" */
    GS_CU_CELSIUS, /* "69C of 87C slowdown" */
    GS_CU_WATTS,   /* "639W of 700W limit" */
};

struct gs_chart_metric {
    const char *name;       /* settings file and inline label: "util" */
    const char *title;      /* chart title: "utilization" */
    enum gs_chart_unit unit;
    const char *scale_name; /* after a named scale in the title ("limit"), or NULL */
    /* The reading now and the full scale of the chart (both in the unit);
     * false when the GPU has no value. *named: the scale is the one
     * scale_name names (else a fallback, e.g. 100 C without a slowdown). */
    bool (*read)(const struct gs_static *st, const struct gs_sample *s, double *value, double *scale,
                 bool *named);
};

#define GS_CHART_METRICS_MAX 16
extern const struct gs_chart_metric gs_chart_metrics[];
extern const unsigned gs_chart_nmetrics;
/* Index of the metric with this name, or -1. */
int gs_chart_metric_index(const char *name);
/* The title's value text of metric m for a GPU ("639W of 700W limit"; "N/A"). */
void gs_chart_metric_text(unsigned m, const struct gs_static *st, const struct gs_sample *s, char *buf,
                          size_t len);
/* The metric after m that some GPU of snap gives a value for (m itself if none). */
unsigned gs_chart_metric_next(unsigned m, const struct gs_snapshot *snap);

#define GS_HIST_NONE 255 /* no reading at that tick */

struct gs_hist {
    uint32_t ngpus;
    uint32_t cap;     /* samples kept per GPU and metric */
    uint32_t len;     /* samples present (<= cap) */
    uint32_t head;    /* slot the next sample goes to */
    uint8_t *v;       /* [gpu][metric][cap], percent 0..100 or GS_HIST_NONE */
};

void gs_hist_release(struct gs_hist *h);
/* (Re)shape for ngpus and cap samples, keeping the newest samples. 0 or -GS_E_NOMEM. */
int gs_hist_resize(struct gs_hist *h, uint32_t ngpus, uint32_t cap);
/* Percent of scale of one metric for a GPU sample (GS_HIST_NONE if unknown). */
uint8_t gs_hist_value(const struct gs_static *st, const struct gs_sample *s, unsigned m);
/* Append one tick: a value per GPU and metric (lost GPUs get GS_HIST_NONE). */
void gs_hist_push(struct gs_hist *h, const struct gs_snapshot *snap);
/* Copy the newest n (<= len) values of one series, oldest first, into out. Returns n copied. */
uint32_t gs_hist_series(const struct gs_hist *h, uint32_t gpu, unsigned m, uint8_t *out,
                        uint32_t n);

/* ---- per-process GPU memory, sampled every GS_PMEM_STEP_S -------------------------- */
#define GS_PMEM_SLOTS 40
#define GS_PMEM_STEP_S 5

struct gs_pmem_entry {
    uint32_t pid, gpu;
    uint32_t n, head;               /* ring of mib[] */
    uint32_t mib[GS_PMEM_SLOTS];    /* GPU memory in MiB, one per step */
    int64_t last_s;                 /* wall time of the newest slot */
    uint32_t seen;                  /* generation last seen */
};

struct gs_pmem {
    struct gs_pmem_entry *v;
    size_t n, cap;
    uint32_t gen;
    int64_t last_s;                 /* when the last step was recorded */
};

void gs_pmem_release(struct gs_pmem *pm);
/* Record a step if GS_PMEM_STEP_S passed since the last one (now_s: wall seconds);
 * forget processes gone from the snapshot. */
void gs_pmem_update(struct gs_pmem *pm, const struct gs_snapshot *snap, int64_t now_s);
/* The ring of (pid, gpu) oldest first into out (GS_PMEM_SLOTS); returns count (0 if unknown). */
uint32_t gs_pmem_series(const struct gs_pmem *pm, uint32_t pid, uint32_t gpu, uint32_t *out);

#endif /* GS_UI_HIST_H */
