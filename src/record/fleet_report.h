/* SPDX-License-Identifier: MIT */
/*
 * fleet_report.h - `gpuscope report --prometheus`: the fleet over a time
 * range from range queries (docs/FLEET.md). fleet_report.c reads it
 * (a fixed set of queries: per GPU for utilization and power, summed here
 * by node and by pod namespace / Slurm job), fleet_report_out.c writes HTML
 * or terminal text. With a selection (--node, --job, --pod/--namespace:
 * matchers merged into every selector) the rows are that selection's GPUs
 * (node:GPU) and the heatmaps GPU x time; the queries stay the same four.
 */
#ifndef GS_RECORD_FLEET_REPORT_H
#define GS_RECORD_FLEET_REPORT_H

#include <stdio.h>

#include "core/fleetq.h"
#include "record/record.h"

#define GS_FREP_MAX_BUCKETS 288 /* columns of a heatmap: 5 minutes over a day */

/* One node (or one namespace / job) over the range. Sums are over the
 * buckets that had data; NaN when none did. */
struct gs_frep_row {
    char name[256];
    float *util;              /* [nb] mean utilization % of its GPUs, NaN = no data */
    float *power;             /* [nb] W, summed over its GPUs */
    unsigned short *ngpu;     /* [nb] GPUs with a utilization reading */
    double gpus_max;          /* most GPUs with a utilization reading at once */
    double gpu_h, idle_gpu_h; /* GPU-hours with data; of those at < 1 % utilization */
    double energy_kwh;        /* from the mean power of each bucket */
    double util_mean, util_peak, mem_peak_gib, temp_peak_c, power_mean_w;
};

struct gs_frep {
    double from, to, step;    /* Unix s; the bucket width */
    unsigned nb;
    struct gs_frep_row *nodes, *groups; /* groups: "ns/<namespace>" and "job/<hpc_job>" */
    size_t nnodes, ngroups;
    unsigned requests;
    double query_ms;          /* Prometheus' part (the HTTP requests' wall time) */
    double total_ms;          /* end to end, filled by the caller */
    char url[512], match[256];
    bool per_gpu;             /* a selection: rows (nodes[]) are GPUs, named "node:gpu" */
    char sel[2200];           /* what was selected, e.g. node "a" job "7" (printed; "" for the fleet) */
};

struct gs_frep_opts {
    const char *url, *config, *match;
    /* the selection, each NULL for none: Hostname (or instance), hpc_job, pod, namespace */
    const char *node, *job, *pod, *ns;
};

/* The matchers of the selection's labels other than the node, as PromQL
 * (`hpc_job="7",namespace="a",pod="b"`, values escaped) into q, and its
 * description into desc. Checks each value (gs_pq_value_check). */
int gs_frep_selection(const struct gs_frep_opts *fo, struct gs_pq *q, char *desc, size_t dlen, struct gs_err *err);

int gs_frep_load(const struct gs_frep_opts *fo, double from, double to, struct gs_frep *r, struct gs_err *err);
void gs_frep_free(struct gs_frep *r);
void gs_frep_html(FILE *out, const struct gs_frep *r);
void gs_frep_term(FILE *out, const struct gs_frep *r);

/* The entry point from cmd/report.c. */
int gs_fleet_report_run(const struct gs_report_opts *o, const struct gs_frep_opts *fo, struct gs_err *err);

#endif /* GS_RECORD_FLEET_REPORT_H */
