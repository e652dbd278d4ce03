/* SPDX-License-Identifier: MIT */
/*
 * store.h - gpuscope's history: an embedded SQLite database (WAL mode) that
 * `gpuscope record` writes and `report`, `run`, `mark` and `baseline` read.
 *
 * Layout (docs/RECORD.md has the full schema):
 *   gpu          static facts, one row per GPU (keyed by UUID, small integer id)
 *   sample       one row per GPU per tick, integer columns, NULL = no value
 *                (column `bad` says which NULLs were errors, not "not supported");
 *                a view of sample_data (the readings of every tick) and
 *                sample_state (power limit, memory clock, P-state, bad: a
 *                row per GPU only when one of them changes)
 *   rollup       one row per GPU per minute (min/avg/max), written as each minute
 *                completes, kept after the samples age out
 *   proc         process lifetimes; proc_sample: per-process readings;
 *                proc_rollup: their one-minute min/avg/max
 *   prof_sample  profiling metrics (NVML GPM) per GPU and per MIG GPU instance
 *   event        Xid, throttle on/off, GPU lost/back, ECC/remap changes, marks
 *   baseline     saved per-GPU distributions (`gpuscope baseline save`)
 *   job          HPC jobs announced by the Slurm prolog, their span and summary
 * Times are integers: milliseconds since the Unix epoch (UTC). The samples'
 * key k = (t - base) * 64 + gpu (base: meta 'sample_base_ms'), t and gpu being
 * virtual columns computed from it: readers select t and gpu, and give time
 * ranges to the key with GS_SAMPLE_K so that they are rowid range searches.
 * Writes of one tick are one transaction, so a crash loses at most that tick.
 */
#ifndef GS_RECORD_STORE_H
#define GS_RECORD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "core/err.h"
#include "core/model.h"

#define GS_STORE_SCHEMA_VERSION 8

/* Bits of sample.bad: that column's NULL is an error (or the GPU is lost). */
enum gs_col {
    GS_COL_UTIL, GS_COL_MEM_UTIL, GS_COL_MEM_USED, GS_COL_TEMP, GS_COL_MEM_TEMP,
    GS_COL_POWER, GS_COL_POWER_LIMIT, GS_COL_ENERGY, GS_COL_SM_MHZ, GS_COL_MEM_MHZ,
    GS_COL_THROTTLE, GS_COL_PSTATE, GS_COL_PCIE_TX, GS_COL_PCIE_RX, GS_COL_FAN,
    GS_COL_COUNT
};
#define GS_BAD_LOST (1u << 15)

/* SQL: the sample key's origin, and the key of time T (an SQL expression, ms) at GPU 0,
 * so that `t >= A AND t < B` is `k >= K(A) AND k < K(B)` (a rowid range) and
 * `(t, gpu) > (T, G)` is `k > K(T) + G`. First and last sample times, from the key. */
#define GS_SAMPLE_BASE "(SELECT value FROM meta WHERE key = 'sample_base_ms')"
#define GS_SAMPLE_K(T) "(((" T ") - " GS_SAMPLE_BASE ") * 64)"
#define GS_SAMPLE_FIRST_T "(SELECT t FROM sample ORDER BY k LIMIT 1)"
#define GS_SAMPLE_LAST_T "(SELECT t FROM sample ORDER BY k DESC LIMIT 1)"
/* sample_data keeps the energy delta as its difference from power_dw x 1 s (dW x 1 s = 100 mJ;
 * the delta itself where power_dw is NULL): 2 bytes instead of 3 for most 1 s samples. */
#define GS_SAMPLE_ENERGY "(CASE WHEN d.power_dw IS NULL THEN d.energy_dev_mj ELSE d.energy_dev_mj + d.power_dw * 100 END)"
/* For readers of every column of many samples: the sample view's two tables joined with one
 * state lookup per row (the view makes one per slow column). Columns as in the view, but
 * d.t, d.gpu (s has a t and a gpu too) and GS_SAMPLE_ENERGY for energy_mj. */
#define GS_SAMPLE_WIDE "sample_data d LEFT JOIN sample_state s ON s.gpu = d.gpu AND s.t =" \
    " (SELECT max(x.t) FROM sample_state x WHERE x.gpu = d.gpu AND x.t <= d.t)"
/* Every sample column in the view's order, selected FROM GS_SAMPLE_WIDE. */
#define GS_SAMPLE_WIDE_COLS "d.t, d.gpu, util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw," \
    " power_limit_w, " GS_SAMPLE_ENERGY ", sm_mhz, mem_mhz, throttle, pstate, pcie_tx_mbs, pcie_rx_mbs, fan_pct"

struct gs_store_opts {
    const char *path;           /* database file (":memory:" for a private one) */
    bool writer;                /* take the recorder lock (one writer per file) */
    bool readonly;              /* open for reading only (report, baseline diff) */
    int64_t keep_full_ms;       /* full-resolution retention (default 48 h) */
    int64_t keep_rollup_ms;     /* one-minute rollups retention (default 90 days) */
    uint64_t max_size_bytes;    /* 0: no cap */
    uint32_t interval_ms;       /* recording interval, stored in meta */
    bool virtual_time;          /* test clock: stamp events with the tick's time, not when received */
    int64_t first_t_ms;         /* the first sample's time to come (0: now): origin of a new sample key */
};
#define GS_STORE_KEEP_FULL_MS (48LL * 3600 * 1000)
#define GS_STORE_KEEP_ROLLUP_MS (90LL * 86400 * 1000)

struct gs_store;

/* Default database path: gs_path_history_db() (core/paths.h), the one decision
 * that doctor shares. */
int gs_store_default_path(char *buf, size_t len);

/* Open (creating the directory, file and schema as needed, migrating an older
 * schema). A writer also takes the lock: a second writer gets an error naming
 * the first one's PID. Errors name the file and say what to do. */
int gs_store_open(struct gs_store **out, const struct gs_store_opts *o, struct gs_err *err);
void gs_store_close(struct gs_store *st);
sqlite3 *gs_store_db(struct gs_store *st);
const char *gs_store_path(const struct gs_store *st);

/* Write one snapshot at wall time t_ms, in one transaction (samples, events,
 * process lifetimes; process samples when with_procs). On failure nothing of
 * the tick is stored and err says why; the next call may succeed. */
int gs_store_write_tick(struct gs_store *st, int64_t t_ms, const struct gs_snapshot *snap,
                        bool with_procs, struct gs_err *err);
/* Record that ticks_lost ticks could not be written (shown in reports). */
int gs_store_note_gap(struct gs_store *st, int64_t t_ms, uint64_t ticks_lost, const char *why,
                      struct gs_err *err);
/* Roll up samples older than keep_full into minutes, delete what is older than
 * keep_rollup, enforce the size cap. Cheap when there is nothing to do. */
int gs_store_maintain(struct gs_store *st, int64_t now_ms, struct gs_err *err);
/* An event row: kind "mark" with text for annotations. gpu < 0: whole machine. */
int gs_store_event(struct gs_store *st, int64_t t_ms, int gpu, const char *kind, int64_t code,
                   int64_t value, const char *text, struct gs_err *err);
/* Close the lifetimes of processes still open, write a "recorder_stop" event. */
int gs_store_finish(struct gs_store *st, int64_t t_ms, struct gs_err *err);

/* Bytes used by the database (pages in use x page size). */
uint64_t gs_store_bytes_used(struct gs_store *st);
#ifdef GS_TESTING
/* Test hook, in test builds only: cap the file at its current size (SQLITE_FULL on the next growth). */
void gs_store_debug_full(struct gs_store *st, bool on);
#endif

/* Map an SQLite failure to err: what happened to `path` and what to do. */
int gs_store_sqlerr(struct gs_err *err, int rc, const char *path, const char *doing);
/* The integer a one-value query answers, or `none` (no row, NULL, not an integer, an error). */
int64_t gs_store_scalar(sqlite3 *db, const char *sql, int64_t none);

/* Time helpers. */
int64_t gs_now_ms(void);
/* "2024-05-01T03:00:00.000+02:00" in local time (TZ), buf >= 40 bytes. */
const char *gs_rfc3339(int64_t t_ms, char *buf, size_t len);
/* Parse "90s", "15m", "2h", "3d", "1w" (or plain seconds) into ms. */
int gs_parse_duration_ms(const char *s, int64_t *ms);
/* Parse an RFC 3339 / "YYYY-MM-DD[ HH:MM[:SS]]" local time, "now", "-2h" or "@EPOCH".
 * Out-of-range fields (month 13, February 30, offset +25:00), trailing junk and a local
 * time inside a daylight-saving gap are refused; why (may be NULL) then says what and why. */
int gs_parse_time_why(const char *s, int64_t now_ms, int64_t *ms, char *why, size_t whylen);
int gs_parse_time_ms(const char *s, int64_t now_ms, int64_t *ms);
/* Parse "10G", "500MiB", "1T" into bytes. */
int gs_parse_size(const char *s, uint64_t *bytes);

#endif /* GS_RECORD_STORE_H */
