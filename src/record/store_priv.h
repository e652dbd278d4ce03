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
};

struct gs_store {
    sqlite3 *db;
    char path[1024];
    struct gs_store_opts o;
    int lock_fd;                       /* flock'ed side file, -1 if none */
    sqlite3_stmt *ins_sample, *ins_psample, *ins_event, *ins_proc, *end_proc, *upd_proc_gpus;
    struct gs_store_gpu gpus[GS_STORE_MAX_GPUS];
    unsigned ngpus;
    struct gs_store_proc *procs;       /* open-addressing table */
    unsigned procs_cap, procs_used;
    struct gs_store_proc *procs_saved; /* the table as it was before the tick in flight */
    unsigned saved_cap, saved_used;    /* (restored when the tick's transaction rolls back) */
    int64_t last_maint_ms;
    int64_t last_t;
    bool debug_full;                   /* test hook: every tick needs pages it cannot get */
};

int gs_store_exec(struct gs_store *st, const char *sql, struct gs_err *err);
int gs_store_schema(struct gs_store *st, struct gs_err *err);
/* bit_or(x): the OR of the integers of a group (rollups of throttle masks). */
int gs_store_register_functions(sqlite3 *db);
int gs_store_prepare_writer(struct gs_store *st, struct gs_err *err);

#endif /* GS_RECORD_STORE_PRIV_H */
