/* SPDX-License-Identifier: MIT */
/*
 * record.h - the record module's entry points, called by src/cmd/{record,
 * report,run,mark,baseline}.c after option parsing.
 */
#ifndef GS_RECORD_RECORD_H
#define GS_RECORD_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "record/store.h"

struct gs_record_opts {
    const char *db;              /* NULL: gs_store_default_path() */
    uint32_t interval_ms;        /* default 1000 */
    uint32_t proc_interval_ms;   /* per-process samples (default 5000) */
    int64_t keep_full_ms, keep_rollup_ms;
    uint64_t max_size_bytes;
    const char *only_ids;        /* -i */
    bool estimate;               /* print the disk estimate and exit */
    bool quiet;
    /* Test mode: a virtual clock. Each tick advances scenario and stored time by
     * step_ms without sleeping (unless interval was given), writing the scenario
     * time into clock_file (GPUSCOPE_SIM_CLOCK=file:PATH). */
    uint64_t ticks;              /* stop after this many ticks (0: until a signal) */
    const char *clock_file;
    int64_t step_ms;             /* 0: real time */
    int64_t start_ms;            /* virtual start (default: now) */
    bool interval_given;
    const char *annotate_fifo;   /* lines written there become annotations */
    /* remote write (rw.h): also send every sample there; the database is the queue */
    const char *rw_url;          /* --remote-write URL (or the config's url) */
    const char *rw_config;       /* --remote-write-config FILE */
    uint32_t rw_max_batch;       /* samples per request (0: the config's, else 10000) */
    int64_t rw_drain_ms;         /* at a stop, keep sending this long */
    bool status;                 /* --status: print the queue and exit */
};

int gs_record_run(const struct gs_record_opts *o, struct gs_err *err);
/* record --status: the remote-write queue of the database (rw_status.c). */
int gs_record_status(const struct gs_record_opts *o, FILE *out, struct gs_err *err);
/* Test mode: scenario time t_s into the simulator's file clock (GPUSCOPE_SIM_CLOCK=file:PATH),
 * written atomically (a temporary file renamed over it). record and run use it. */
void gs_clock_file_write(const char *path, double t_s);
/* Disk use of one recording configuration, in bytes (for --estimate and docs). */
uint64_t gs_record_estimate_bytes(uint32_t ngpus, uint32_t nprocs, const struct gs_record_opts *o,
                                  uint64_t *full_bytes, uint64_t *rollup_bytes, uint64_t *proc_bytes);

/* ---- annotations from a FIFO (annotate.c) ------------------------------------------------ */
struct gs_annot {
    int fd;
    size_t len;
    char buf[1024];              /* a partial line between reads */
};
int gs_annot_open(struct gs_annot *a, const char *path, struct gs_err *err);
int gs_annot_poll(struct gs_annot *a, int timeout_ms, void (*cb)(void *ctx, const char *line), void *ctx);
void gs_annot_close(struct gs_annot *a);

/* ---- report ------------------------------------------------------------------------ */
enum gs_report_format { GS_REPORT_HTML, GS_REPORT_TERM, GS_REPORT_CSV, GS_REPORT_JSON };

struct gs_report_opts {
    const char *db;
    int64_t from_ms, to_ms;
    int gpu_index;               /* -1: all */
    long pid;                    /* 0: all processes */
    enum gs_report_format format;
    const char *output;          /* NULL: stdout ("-"); HTML default report.html? no: stdout */
    unsigned width;              /* term: columns */
};
int gs_report_run(const struct gs_report_opts *o, struct gs_err *err);

/* ---- summaries shared by report, run and baseline ---------------------------------------- */
#define GS_SUM_MAX_GPUS 64
struct gs_gpu_summary {
    int id, idx;
    char name[96], uuid[96];
    uint64_t nsamples;            /* full-resolution samples (rollups count n each) */
    double util_mean, util_p95;   /* NaN when no value */
    bool util_p95_from_rollups;   /* part of the range has only per-minute means: p95 of those */
    double mem_peak_mib, mem_total_mib, temp_peak_c, temp_slowdown_c, power_mean_w, power_limit_w;
    double energy_j;              /* from the energy counter deltas */
    bool energy_estimated;        /* integrated from power instead */
    double idle_h;                /* hours at 0 % utilization */
    double throttled_s[16];       /* seconds per throttle reason bit */
    double span_s;
    unsigned xids;
};

struct gs_summary {
    int64_t from_ms, to_ms;
    uint32_t interval_ms;
    unsigned ngpus;
    struct gs_gpu_summary g[GS_SUM_MAX_GPUS];
};

/* Summaries for [from, to) over GPUs with gpu.id in mask (0: all). */
int gs_summarize(struct gs_store *st, int64_t from_ms, int64_t to_ms, uint64_t gpu_mask, int gpu_index,
                 struct gs_summary *out, struct gs_err *err);
/* Energy for people: three significant digits in J, kJ or kWh ("512 J", "18.0 kJ",
 * "0.659 kWh", "1230 kWh"); "-" for NaN. buf >= 24 bytes. */
const char *gs_fmt_energy(double joules, char *buf, size_t len);
/* Seconds a throttle reason bit was on in [from, to) for gpu id, from events. */
void gs_throttle_time(struct gs_store *st, int gpu, int64_t from_ms, int64_t to_ms, double out_s[16]);

/* ---- run ------------------------------------------------------------------------------- */
struct gs_run_opts {
    char **argv;                 /* the command */
    const char *db;              /* NULL: a private in-memory database */
    uint32_t interval_ms;
    bool json;
    const char *output;          /* summary there instead of stderr */
    const char *clock_file;      /* test mode as for record */
    int64_t step_ms;
};
int gs_run_job(const struct gs_run_opts *o, int *exit_status, struct gs_err *err);

/* ---- baseline ---------------------------------------------------------------------------- */
int gs_baseline_save(const char *db, const char *name, int64_t from_ms, int64_t to_ms, struct gs_err *err);
int gs_baseline_diff(const char *db, const char *name, int64_t from_ms, int64_t to_ms, FILE *out,
                     struct gs_err *err);

#endif /* GS_RECORD_RECORD_H */
