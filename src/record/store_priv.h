/* SPDX-License-Identifier: MIT */
/*
 * store_priv.h - the inside of struct gs_store, shared by store*.c only.
 */
#ifndef GS_RECORD_STORE_PRIV_H
#define GS_RECORD_STORE_PRIV_H

#include "record/store.h"

#define GS_STORE_MAX_GPUS 64

/* What the writer remembers about one GPU between ticks (event diffs, deltas). */
struct gs_store_gpu {
    char uuid[96];
    int id;                 /* gpu.id in the database */
    bool seen;              /* a previous tick was written */
    uint8_t state;          /* enum gs_gpu_state at the previous tick */
    uint64_t throttle;      /* previous throttle mask (when known) */
    bool throttle_known;
    uint64_t energy_mj;     /* previous energy counter */
    bool energy_known;
    uint64_t ecc_sbe, ecc_dbe, remap_corr, remap_unc, retired;
    uint64_t health_known;  /* bit per counter above */
    uint64_t xid_count;
    /* throttle time (violation counters): previous reading, ns not yet written, last write */
    uint64_t viol_prev[GS_VIOL_COUNT], viol_acc[GS_VIOL_COUNT];
    uint32_t viol_known;    /* bit per counter */
    int64_t viol_flush_t;
    /* the slow readings (sample_state) of its last sample, when that sample was the newest row */
    int64_t slow[4];
    uint32_t slow_ok;       /* bit per slow[] that is a value (not NULL) */
    bool slow_known;
};

/* A process seen by the writer: (pid, start time) -> proc.id. */
struct gs_store_proc {
    uint32_t pid;
    int64_t start_s;
    int64_t id;             /* proc.id, 0 = free slot */
    int64_t last_t;         /* last tick it was listed */
    uint32_t gpus;          /* bit per gpu.id it used */
    uint32_t gpus_written;
    bool live;
    uint64_t peak_mib, peak_written; /* GPU memory summed over its GPUs: the largest of every tick */
    uint64_t tick_mib;               /* this tick's sum so far */
};

struct gs_store {
    sqlite3 *db;
    char path[1024];
    struct gs_store_opts o;
    int lock_fd;                       /* flock'ed side file, -1 if none */
    sqlite3_stmt *ins_sample, *ins_psample, *ins_event, *ins_proc, *end_proc, *upd_proc_gpus;
    sqlite3_stmt *ins_torch, *upd_proc_peak;
    sqlite3_stmt *ins_prof;            /* prof_sample (profiling metrics, area 10c) */
    sqlite3_stmt *ins_data;            /* sample_data alone: a new sample whose slow readings did not change */
    int64_t max_t;                     /* the newest sample's time (INT64_MIN: none) */
    struct gs_store_gpu gpus[GS_STORE_MAX_GPUS];
    unsigned ngpus;
    struct gs_store_proc *procs;       /* open-addressing table */
    unsigned procs_cap, procs_used;
    struct gs_store_proc *procs_saved; /* the table as it was before the tick in flight */
    unsigned saved_cap, saved_used;    /* (restored when the tick's transaction rolls back) */
    int64_t last_maint_ms;
    int64_t roll_from;                 /* oldest sample time not rolled up yet (INT64_MAX: none) */
    int64_t last_t;
    bool debug_full;                   /* test hook: every tick needs pages it cannot get (set in
                                        * GS_TESTING builds only; the member is in every build, as a
                                        * struct's layout never depends on GS_TESTING) */
};

/* One-minute rollups: the select lists (the row's minute is t / 60000). The
 * recorder writes them for every complete minute as it goes (so long-range
 * reports read minutes), and again when samples age out (idempotent). */
#define GS_ROLLUP_SELECT \
    "SELECT (t / 60000) * 60000, gpu, count(*), min(util_pct), CAST(round(avg(util_pct)) AS INT), max(util_pct)," \
    " CAST(round(avg(mem_util_pct)) AS INT), min(mem_used_mib), CAST(round(avg(mem_used_mib)) AS INT)," \
    " max(mem_used_mib), min(temp_c), CAST(round(avg(temp_c)) AS INT), max(temp_c), max(mem_temp_c)," \
    " min(power_dw), CAST(round(avg(power_dw)) AS INT), max(power_dw), max(power_limit_w), sum(energy_mj)," \
    " min(sm_mhz), CAST(round(avg(sm_mhz)) AS INT), max(sm_mhz), CAST(round(avg(mem_mhz)) AS INT)," \
    " bit_or(throttle), sum((throttle & ~1) != 0), CAST(round(avg(pcie_tx_mbs)) AS INT)," \
    " CAST(round(avg(pcie_rx_mbs)) AS INT), CAST(round(avg(fan_pct)) AS INT) FROM sample"
#define GS_ROLLUP_GROUP " GROUP BY t / 60000, gpu"
#define GS_PROC_ROLLUP_SELECT \
    "SELECT (t / 60000) * 60000, proc, gpu, count(*), min(gpu_mem_mib), CAST(round(avg(gpu_mem_mib)) AS INT)," \
    " max(gpu_mem_mib), min(sm_pct), CAST(round(avg(sm_pct)) AS INT), max(sm_pct)," \
    " CAST(round(avg(mem_util_pct)) AS INT), min(cpu_dpct), CAST(round(avg(cpu_dpct)) AS INT), max(cpu_dpct)," \
    " min(rss_mib), CAST(round(avg(rss_mib)) AS INT), max(rss_mib) FROM proc_sample"
#define GS_PROC_ROLLUP_GROUP " GROUP BY t / 60000, proc, gpu"

int gs_store_exec(struct gs_store *st, const char *sql, struct gs_err *err);
/* Roll up the minutes in [from, to) (minute boundaries) of samples and process
 * samples, inside the caller's transaction. */
int gs_store_rollup_range(struct gs_store *st, int64_t from_ms, int64_t to_ms, struct gs_err *err);
int gs_store_schema(struct gs_store *st, struct gs_err *err);
/* bit_or(x): the OR of the integers of a group (rollups of throttle masks). */
int gs_store_register_functions(sqlite3 *db);
int gs_store_prepare_writer(struct gs_store *st, struct gs_err *err);

#endif /* GS_RECORD_STORE_PRIV_H */
