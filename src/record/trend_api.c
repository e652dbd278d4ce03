/* SPDX-License-Identifier: MIT */
/*
 * trend_api.c - the monthly routine's question to the recorder's database
 * (doctor --monthly, found with gs_module_symbol("record",
 * GS_RECORD_TREND_SYMBOL); read-only like history_api.c): per GPU, the SM
 * clock, power and temperature under load (minutes with utilization >= 80 %)
 * in the week a month ago and in the latest week, from the one-minute
 * rollups (kept far longer than samples). With less history (8 to 35 days)
 * the first and the last third of it.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "health/health.h"

int gs_record_trend(const char *path, struct gs_trend *out, struct gs_err *err);
int gs_record_baseline_trend(const char *path, const char *name, struct gs_trend *out, struct gs_err *err);
int gs_record_open_ro(const char *path, sqlite3 **db); /* history_api.c */

#define DAY_MS 86400000LL

static const char loaded_sql[] =
    "SELECT g.idx, g.uuid, sum(r.n), sum(r.n * r.sm_avg_mhz), sum(r.n * r.power_avg_dw), sum(r.n * r.temp_avg_c),"
    " count(*)"
    " FROM rollup r JOIN gpu g ON g.id = r.gpu"
    " WHERE r.t >= ?1 AND r.t < ?2 AND r.util_avg >= 80 AND r.sm_avg_mhz IS NOT NULL AND r.power_avg_dw IS NOT NULL"
    " AND r.temp_avg_c IS NOT NULL GROUP BY r.gpu ORDER BY g.idx";

static struct gs_trend_gpu *gpu_slot(struct gs_trend *out, const char *uuid, uint32_t idx)
{
    for (uint32_t k = 0; k < out->ngpus; k++)
        if (!strcmp(out->gpus[k].uuid, uuid))
            return &out->gpus[k];
    if (out->ngpus == GS_HISTORY_MAX_GPUS)
        return NULL;
    struct gs_trend_gpu *g = &out->gpus[out->ngpus++];
    memset(g, 0, sizeof(*g));
    snprintf(g->uuid, sizeof(g->uuid), "%s", uuid);
    g->index = idx;
    return g;
}

static int period(sqlite3 *db, int64_t from, int64_t to, bool now, struct gs_trend *out)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, loaded_sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const unsigned char *uuid = sqlite3_column_text(q, 1);
        struct gs_trend_gpu *g = gpu_slot(out, uuid ? (const char *)uuid : "", (uint32_t)sqlite3_column_int(q, 0));
        double n = sqlite3_column_double(q, 2);
        if (!g || n <= 0)
            continue;
        double sm = sqlite3_column_double(q, 3) / n, pw = sqlite3_column_double(q, 4) / n / 10.0,
               tc = sqlite3_column_double(q, 5) / n;
        uint32_t mins = (uint32_t)sqlite3_column_int(q, 6); /* one rollup row per GPU per minute */
        if (now) {
            g->now_min = mins, g->now_sm_mhz = sm, g->now_power_w = pw, g->now_temp_c = tc;
        } else {
            g->then_min = mins, g->then_sm_mhz = sm, g->then_power_w = pw, g->then_temp_c = tc;
        }
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int span(sqlite3 *db, int64_t *first, int64_t *last)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "SELECT min(t), max(t) FROM rollup", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(q);
    *first = sqlite3_column_int64(q, 0);
    *last = sqlite3_column_int64(q, 1);
    bool empty = sqlite3_column_type(q, 1) == SQLITE_NULL;
    sqlite3_finalize(q);
    return rc == SQLITE_ROW && !empty ? SQLITE_OK : SQLITE_EMPTY;
}

int gs_record_trend(const char *path, struct gs_trend *out, struct gs_err *err)
{
    sqlite3 *db = NULL;
    int64_t first = 0, last = 0;

    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    int rc = gs_record_open_ro(path, &db);
    if (rc == SQLITE_OK)
        rc = span(db, &first, &last);
    if (rc == SQLITE_EMPTY || (rc == SQLITE_OK && last - first < 8 * DAY_MS)) {
        sqlite3_close(db);
        return gs_err_set(err, GS_E_IO, "%s: %.1f days of history; the monthly comparison needs 8", path,
                          rc == SQLITE_OK ? (double)(last - first) / DAY_MS : 0.0);
    }
    /* a week now against the week a month before; with less history, the first
     * and the last third of it (at least 8 days: periods of >= 2.6 days, >= 5 days apart) */
    int64_t span = last - first, len = span >= 35 * DAY_MS ? 7 * DAY_MS : span / 3;
    out->now_to_ms = last + 1;
    out->now_from_ms = last + 1 - len;
    out->then_from_ms = span >= 35 * DAY_MS ? last - 35 * DAY_MS : first;
    out->then_to_ms = out->then_from_ms + len;
    if (rc == SQLITE_OK)
        rc = period(db, out->then_from_ms, out->then_to_ms, false, out);
    if (rc == SQLITE_OK)
        rc = period(db, out->now_from_ms, out->now_to_ms, true, out);
    if (rc != SQLITE_OK)
        gs_err_set(err, GS_E_IO, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -GS_E_IO;
}

/* ---- a saved baseline as "then" ---------------------------------------------------------------- */

static int baseline_rows(sqlite3 *db, const char *name, struct gs_trend *out, struct gs_err *err)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "SELECT g.idx, g.uuid, b.metric, b.p50, b.n, b.created_t FROM baseline b"
                                " JOIN gpu g ON g.id = b.gpu WHERE b.name = ?1 ORDER BY g.idx", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    double util[GS_HISTORY_MAX_GPUS] = { 0 };
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        const unsigned char *uuid = sqlite3_column_text(q, 1), *metric = sqlite3_column_text(q, 2);
        struct gs_trend_gpu *g = gpu_slot(out, uuid ? (const char *)uuid : "", (uint32_t)sqlite3_column_int(q, 0));
        if (!g || !metric)
            continue;
        double v = sqlite3_column_double(q, 3);
        out->then_to_ms = sqlite3_column_int64(q, 5);
        if (!strcmp((const char *)metric, "sm_clock"))
            g->then_sm_mhz = v;
        else if (!strcmp((const char *)metric, "power"))
            g->then_power_w = v;
        else if (!strcmp((const char *)metric, "temp"))
            g->then_temp_c = v;
        else if (!strcmp((const char *)metric, "util"))
            util[g - out->gpus] = v;
        g->then_min = (uint32_t)(sqlite3_column_double(q, 4) / 60) + 1; /* samples, about one a second */
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE)
        return rc;
    if (!out->ngpus)
        return gs_err_set(err, GS_E_USAGE, "no baseline '%s' (gpuscope baseline save %s --since ...)", name, name),
               SQLITE_NOTFOUND;
    for (uint32_t k = 0; k < out->ngpus; k++)
        if (util[k] < 80)
            return gs_err_set(err, GS_E_USAGE, "baseline '%s' was not taken under load (GPU %u median utilization "
                              "%.0f %%, needs >= 80 %%): its clocks and power say nothing about load behaviour",
                              name, out->gpus[k].index, util[k]), SQLITE_NOTFOUND;
    return SQLITE_OK;
}

int gs_record_baseline_trend(const char *path, const char *name, struct gs_trend *out, struct gs_err *err)
{
    sqlite3 *db = NULL;
    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    snprintf(out->baseline, sizeof(out->baseline), "%s", name);
    int rc = gs_record_open_ro(path, &db);
    if (rc == SQLITE_OK)
        rc = baseline_rows(db, name, out, err);
    if (rc == SQLITE_NOTFOUND) {
        sqlite3_close(db);
        return -GS_E_USAGE;
    }
    if (rc != SQLITE_OK)
        gs_err_set(err, GS_E_IO, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -GS_E_IO;
}
