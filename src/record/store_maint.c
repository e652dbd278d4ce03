/* SPDX-License-Identifier: MIT */
/*
 * store_maint.c - retention: samples older than keep_full become one-minute
 * rollups (min/avg/max) and are deleted with their process samples; rollups
 * and events older than keep_rollup are deleted; the size cap deletes the
 * oldest data first (rolling samples up before they go). Each step is one
 * transaction, so a crash leaves either the samples or their rollups.
 */
#include "record/store_priv.h"

#include <stdio.h>
#include <string.h>

#define MINUTE_MS 60000LL

/* Roll up and delete full-resolution rows with t < cutoff (cutoff on a minute boundary). */
static int rollup_before(struct gs_store *st, int64_t cutoff, struct gs_err *err)
{
    char sql[2048];
    snprintf(sql, sizeof(sql),
        "BEGIN IMMEDIATE;"
        "INSERT OR REPLACE INTO rollup SELECT (t / %lld) * %lld, gpu, count(*),"
        " min(util_pct), CAST(round(avg(util_pct)) AS INT), max(util_pct), CAST(round(avg(mem_util_pct)) AS INT),"
        " min(mem_used_mib), CAST(round(avg(mem_used_mib)) AS INT), max(mem_used_mib),"
        " min(temp_c), CAST(round(avg(temp_c)) AS INT), max(temp_c), max(mem_temp_c),"
        " min(power_dw), CAST(round(avg(power_dw)) AS INT), max(power_dw), max(power_limit_w), sum(energy_mj),"
        " min(sm_mhz), CAST(round(avg(sm_mhz)) AS INT), max(sm_mhz), CAST(round(avg(mem_mhz)) AS INT),"
        " bit_or(throttle),"
        " sum((throttle & ~1) != 0), CAST(round(avg(pcie_tx_mbs)) AS INT), CAST(round(avg(pcie_rx_mbs)) AS INT),"
        " CAST(round(avg(fan_pct)) AS INT)"
        " FROM sample WHERE t < %lld GROUP BY t / %lld, gpu;"
        "DELETE FROM sample WHERE t < %lld; DELETE FROM proc_sample WHERE t < %lld; COMMIT;",
        MINUTE_MS, MINUTE_MS, (long long)cutoff, MINUTE_MS, (long long)cutoff,
        (long long)cutoff);
    int rc = gs_store_exec(st, sql, err);
    if (rc < 0)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
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
    char sql[256];
    snprintf(sql, sizeof(sql), "BEGIN IMMEDIATE; DELETE FROM rollup WHERE t < %lld; DELETE FROM event WHERE t < %lld;"
             " DELETE FROM proc WHERE coalesce(end_t, last_t) < %lld; COMMIT;",
             (long long)cutoff, (long long)cutoff, (long long)cutoff);
    int rc = gs_store_exec(st, sql, err);
    if (rc < 0)
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* Over the cap: give up the oldest hour of samples, else the oldest day of rollups. */
static int enforce_cap(struct gs_store *st, struct gs_err *err)
{
    for (int round = 0; round < 64 && gs_store_bytes_used(st) > st->o.max_size_bytes; round++) {
        int64_t ts, tr;
        oldest(st, "sample", &ts);
        oldest(st, "rollup", &tr);
        int rc;
        if (ts >= 0 && (tr < 0 || st->last_t - ts > 3600 * 1000LL))
            rc = rollup_before(st, (ts / MINUTE_MS) * MINUTE_MS + 3600 * 1000LL, err);
        else if (tr >= 0)
            rc = expire_rollups(st, tr + 86400 * 1000LL, err);
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
