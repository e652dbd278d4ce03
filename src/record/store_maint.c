/* SPDX-License-Identifier: MIT */
/*
 * store_maint.c - one-minute rollups (min/avg/max) and retention: the
 * recorder rolls up every minute as it completes; samples older than
 * keep_full are deleted with their process samples (rolled up again first:
 * idempotent); rollups and events older than keep_rollup are deleted; the
 * size cap deletes the oldest data first. Each step is one transaction, so a
 * crash leaves either the samples or their rollups.
 */
#include "record/store_priv.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MINUTE_MS 60000LL

int gs_store_rollup_range(struct gs_store *st, int64_t from_ms, int64_t to_ms, struct gs_err *err)
{
    char sql[2048];
    snprintf(sql, sizeof(sql),
             "INSERT OR REPLACE INTO rollup " GS_ROLLUP_SELECT " WHERE k >= " GS_SAMPLE_K("%lld") " AND k < "
             GS_SAMPLE_K("%lld") GS_ROLLUP_GROUP ";"
             "INSERT OR REPLACE INTO proc_rollup " GS_PROC_ROLLUP_SELECT " WHERE t >= %lld AND t < %lld"
             GS_PROC_ROLLUP_GROUP ";", (long long)from_ms, (long long)to_ms, (long long)from_ms, (long long)to_ms);
    return gs_store_exec(st, sql, err);
}

/* Roll up (again: the recorder rolled complete minutes already) and delete
 * full-resolution rows with t < cutoff (cutoff on a minute boundary). */
static int rollup_before(struct gs_store *st, int64_t cutoff, struct gs_err *err)
{
    char sql[1024];
    int64_t ts = INT64_MAX;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(st->db, "SELECT " GS_SAMPLE_FIRST_T, -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER)
            ts = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    if (gs_store_exec(st, "BEGIN IMMEDIATE", err) < 0)
        return -err->code;
    /* The samples' state rows before the one in effect at the oldest sample left go with them. */
    snprintf(sql, sizeof(sql), "DELETE FROM sample_data WHERE k < " GS_SAMPLE_K("%lld") ";"
             " DELETE FROM sample_state WHERE t < (SELECT max(s.t) FROM sample_state s WHERE s.gpu = sample_state.gpu"
             " AND s.t <= (SELECT t FROM sample_data ORDER BY k LIMIT 1));"
             " DELETE FROM proc_sample WHERE t < %lld; DELETE FROM prof_sample WHERE t < %lld; COMMIT;",
             (long long)cutoff, (long long)cutoff, (long long)cutoff);
    int64_t from = ts == INT64_MAX ? cutoff : (ts / MINUTE_MS) * MINUTE_MS;
    if ((from < cutoff && gs_store_rollup_range(st, from, cutoff, err) < 0) || gs_store_exec(st, sql, err) < 0) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return -err->code;
    }
    return 0;
}

/* SQLite has no bitwise-OR aggregate: register one. */
static void bitor_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    int64_t *acc = sqlite3_aggregate_context(ctx, sizeof(int64_t));
    if (acc && sqlite3_value_type(argv[0]) == SQLITE_INTEGER)
        *acc |= sqlite3_value_int64(argv[0]);
}

static void bitor_final(sqlite3_context *ctx)
{
    int64_t *acc = sqlite3_aggregate_context(ctx, 0);
    sqlite3_result_int64(ctx, acc ? *acc : 0);
}

int gs_store_register_functions(sqlite3 *db)
{
    return sqlite3_create_function(db, "bit_or", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL,
                                   bitor_step, bitor_final);
}

static int oldest(struct gs_store *st, const char *table, int64_t *t)
{
    char sql[96];
    sqlite3_stmt *q;
    if (!strcmp(table, "sample"))
        snprintf(sql, sizeof(sql), "SELECT %s", GS_SAMPLE_FIRST_T);
    else
        snprintf(sql, sizeof(sql), "SELECT min(t) FROM %s", table);
    *t = -1;
    if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER)
        *t = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return 0;
}

static int expire_rollups(struct gs_store *st, int64_t cutoff, struct gs_err *err)
{
    char sql[512];
    snprintf(sql, sizeof(sql), "BEGIN IMMEDIATE; DELETE FROM rollup WHERE t < %lld; DELETE FROM proc_rollup WHERE t < %lld;"
             " DELETE FROM proc_torch WHERE t < %lld;"
             " DELETE FROM event WHERE t < %lld; DELETE FROM proc WHERE coalesce(end_t, last_t) < %lld; COMMIT;",
             (long long)cutoff, (long long)cutoff, (long long)cutoff, (long long)cutoff, (long long)cutoff);
    int rc = gs_store_exec(st, sql, err);
    if (rc < 0)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* Over the cap: give up the oldest hour of samples (keeping at least the last
 * hour), else the oldest day of rollups older than every sample. */
static int enforce_cap(struct gs_store *st, struct gs_err *err)
{
    for (int round = 0; round < 64 && gs_store_bytes_used(st) > st->o.max_size_bytes; round++) {
        int64_t ts, tr;
        oldest(st, "sample", &ts);
        oldest(st, "rollup", &tr);
        int64_t ts_min = ts >= 0 ? (ts / MINUTE_MS) * MINUTE_MS : INT64_MAX;
        bool old_rollups = tr >= 0 && tr < ts_min;
        int rc;
        if (ts >= 0 && (!old_rollups || st->last_t - ts > 3600 * 1000LL))
            rc = rollup_before(st, ts_min + 3600 * 1000LL, err);
        else if (old_rollups)
            rc = expire_rollups(st, tr + 86400 * 1000LL < ts_min ? tr + 86400 * 1000LL : ts_min, err);
        else
            break;
        if (rc < 0)
            return rc;
    }
    sqlite3_exec(st->db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
    return 0;
}

int gs_store_maintain(struct gs_store *st, int64_t now_ms, struct gs_err *err)
{
    int64_t cutoff = ((now_ms - st->o.keep_full_ms) / MINUTE_MS) * MINUTE_MS, ts;
    oldest(st, "sample", &ts);
    if (ts >= 0 && ts < cutoff && rollup_before(st, cutoff, err) < 0)
        return -err->code;
    int64_t tr;
    oldest(st, "rollup", &tr);
    if (tr >= 0 && tr < now_ms - st->o.keep_rollup_ms && expire_rollups(st, now_ms - st->o.keep_rollup_ms, err) < 0)
        return -err->code;
    if (st->o.max_size_bytes && enforce_cap(st, err) < 0)
        return -err->code;
    st->last_maint_ms = now_ms;
    return 0;
}
