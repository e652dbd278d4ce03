/* SPDX-License-Identifier: MIT */
/*
 * summary.c - what a stretch of history adds up to, per GPU: mean and p95
 * utilization, peaks, energy (from the energy counter deltas), idle hours,
 * time throttled per reason (from throttle on/off events), Xids. Shared by
 * report, run and baseline; each figure comes from one pass over `series`
 * (full-resolution samples and one-minute rollups alike, weighted by n).
 */
#include "record/record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static uint32_t meta_interval(sqlite3 *db)
{
    sqlite3_stmt *q;
    uint32_t v = 1000;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'interval_ms'", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) > 0)
            v = (uint32_t)sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    return v;
}

void gs_throttle_time(struct gs_store *st, int gpu, int64_t from_ms, int64_t to_ms, double out_s[16])
{
    sqlite3 *db = gs_store_db(st);
    sqlite3_stmt *q;
    int64_t on_since[16];
    for (int b = 0; b < 16; b++) {
        out_s[b] = 0;
        on_since[b] = -1;
    }
    /* State at `from`: the latest transition before it, per reason. */
    if (sqlite3_prepare_v2(db, "SELECT code, kind, max(t) FROM event WHERE gpu = ?1 AND t < ?2 AND kind IN"
                           " ('throttle_on','throttle_off') GROUP BY code", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int(q, 1, gpu);
        sqlite3_bind_int64(q, 2, from_ms);
        while (sqlite3_step(q) == SQLITE_ROW) {
            int b = __builtin_ctzll((unsigned long long)sqlite3_column_int64(q, 0) | (1ull << 63));
            if (b < 16 && !strcmp((const char *)sqlite3_column_text(q, 1), "throttle_on"))
                on_since[b] = from_ms;
        }
        sqlite3_finalize(q);
    }
    if (sqlite3_prepare_v2(db, "SELECT t, code, kind FROM event WHERE gpu = ?1 AND t >= ?2 AND t < ?3 AND kind IN"
                           " ('throttle_on','throttle_off') ORDER BY t", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int(q, 1, gpu);
        sqlite3_bind_int64(q, 2, from_ms);
        sqlite3_bind_int64(q, 3, to_ms);
        while (sqlite3_step(q) == SQLITE_ROW) {
            int64_t t = sqlite3_column_int64(q, 0);
            int b = __builtin_ctzll((unsigned long long)sqlite3_column_int64(q, 1) | (1ull << 63));
            bool on = !strcmp((const char *)sqlite3_column_text(q, 2), "throttle_on");
            if (b >= 16)
                continue;
            if (on && on_since[b] < 0)
                on_since[b] = t;
            else if (!on && on_since[b] >= 0) {
                out_s[b] += (double)(t - on_since[b]) / 1000.0;
                on_since[b] = -1;
            }
        }
        sqlite3_finalize(q);
    }
    for (int b = 0; b < 16; b++)
        if (on_since[b] >= 0)
            out_s[b] += (double)(to_ms - on_since[b]) / 1000.0;
}

static struct gs_gpu_summary *by_id(struct gs_summary *s, int id)
{
    for (unsigned i = 0; i < s->ngpus; i++)
        if (s->g[i].id == id)
            return &s->g[i];
    return NULL;
}

static int load_gpus(sqlite3 *db, uint64_t mask, int gpu_index, struct gs_summary *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT id, idx, name, uuid, mem_total_mib, temp_slowdown_c FROM gpu ORDER BY idx, id",
                           -1, &q, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(q) == SQLITE_ROW && out->ngpus < GS_SUM_MAX_GPUS) {
        int id = sqlite3_column_int(q, 0), idx = sqlite3_column_int(q, 1);
        if ((mask && !(mask & (1ull << (id & 63)))) || (gpu_index >= 0 && idx != gpu_index))
            continue;
        struct gs_gpu_summary *g = &out->g[out->ngpus++];
        memset(g, 0, sizeof(*g));
        g->id = id;
        g->idx = idx;
        snprintf(g->name, sizeof(g->name), "%s", sqlite3_column_text(q, 2) ? (const char *)sqlite3_column_text(q, 2) : "");
        snprintf(g->uuid, sizeof(g->uuid), "%s", (const char *)sqlite3_column_text(q, 3));
        g->mem_total_mib = sqlite3_column_type(q, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 4);
        g->temp_slowdown_c = sqlite3_column_type(q, 5) == SQLITE_NULL ? NAN : sqlite3_column_double(q, 5);
        g->util_mean = g->util_p95 = g->mem_peak_mib = g->temp_peak_c = g->power_mean_w = g->power_limit_w = NAN;
    }
    sqlite3_finalize(q);
    return 0;
}

static double colval(sqlite3_stmt *q, int i)
{
    return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i);
}

static void load_aggregates(sqlite3 *db, int64_t from, int64_t to, double iv_s, struct gs_summary *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT gpu, sum(n), 1.0 * sum(util_pct * n) / sum(CASE WHEN util_pct IS NULL THEN 0 ELSE n END),"
                           " max(mem_used_max_mib), max(temp_max_c), 1.0 * sum(power_dw * n) / sum(CASE WHEN power_dw IS NULL"
                           " THEN 0 ELSE n END) / 10.0, max(power_limit_w), sum(energy_mj), sum(power_dw * n),"
                           " sum(CASE WHEN util_pct = 0 THEN n ELSE 0 END), min(t), max(t)"
                           " FROM series WHERE t >= ?1 AND t < ?2 GROUP BY gpu", -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    while (sqlite3_step(q) == SQLITE_ROW) {
        struct gs_gpu_summary *g = by_id(out, sqlite3_column_int(q, 0));
        if (!g)
            continue;
        g->nsamples = (uint64_t)sqlite3_column_int64(q, 1);
        g->util_mean = colval(q, 2);
        g->mem_peak_mib = colval(q, 3);
        g->temp_peak_c = colval(q, 4);
        g->power_mean_w = colval(q, 5);
        g->power_limit_w = colval(q, 6);
        if (sqlite3_column_type(q, 7) != SQLITE_NULL) {
            g->energy_j = sqlite3_column_double(q, 7) / 1000.0;
        } else if (sqlite3_column_type(q, 8) != SQLITE_NULL) {
            g->energy_j = sqlite3_column_double(q, 8) / 10.0 * iv_s; /* deciwatts x seconds */
            g->energy_estimated = true;
        } else {
            g->energy_j = NAN;
        }
        g->idle_h = sqlite3_column_double(q, 9) * iv_s / 3600.0;
        g->span_s = (double)(sqlite3_column_int64(q, 11) - sqlite3_column_int64(q, 10)) / 1000.0 + iv_s;
    }
    sqlite3_finalize(q);
}

/* p95 from a weighted histogram of integer utilization. */
static void load_p95(sqlite3 *db, int64_t from, int64_t to, struct gs_summary *out)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT gpu, util_pct, sum(n) FROM series WHERE t >= ?1 AND t < ?2 AND util_pct"
                           " IS NOT NULL GROUP BY gpu, util_pct ORDER BY gpu, util_pct", -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    double hist[GS_SUM_MAX_GPUS][102] = { { 0 } };
    while (sqlite3_step(q) == SQLITE_ROW) {
        struct gs_gpu_summary *g = by_id(out, sqlite3_column_int(q, 0));
        int u = sqlite3_column_int(q, 1);
        if (g)
            hist[g - out->g][u < 0 ? 0 : u > 100 ? 101 : u] += sqlite3_column_double(q, 2);
    }
    sqlite3_finalize(q);
    for (unsigned i = 0; i < out->ngpus; i++) {
        double total = 0, acc = 0;
        for (int u = 0; u < 102; u++)
            total += hist[i][u];
        for (int u = 0; u < 102 && total > 0; u++) {
            acc += hist[i][u];
            if (acc >= 0.95 * total) {
                out->g[i].util_p95 = u;
                break;
            }
        }
    }
}

int gs_summarize(struct gs_store *st, int64_t from_ms, int64_t to_ms, uint64_t gpu_mask, int gpu_index,
                 struct gs_summary *out, struct gs_err *err)
{
    sqlite3 *db = gs_store_db(st);
    memset(out, 0, sizeof(*out));
    out->from_ms = from_ms;
    out->to_ms = to_ms;
    out->interval_ms = meta_interval(db);
    if (load_gpus(db, gpu_mask, gpu_index, out) < 0)
        return gs_store_sqlerr(err, sqlite3_errcode(db), gs_store_path(st), "reading");
    double iv_s = out->interval_ms / 1000.0;
    load_aggregates(db, from_ms, to_ms, iv_s, out);
    load_p95(db, from_ms, to_ms, out);
    sqlite3_stmt *q;
    for (unsigned i = 0; i < out->ngpus; i++) {
        struct gs_gpu_summary *g = &out->g[i];
        gs_throttle_time(st, g->id, from_ms, to_ms, g->throttled_s);
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM event WHERE gpu = ?1 AND kind = 'xid' AND t >= ?2 AND t < ?3",
                               -1, &q, NULL) == SQLITE_OK) {
            sqlite3_bind_int(q, 1, g->id);
            sqlite3_bind_int64(q, 2, from_ms);
            sqlite3_bind_int64(q, 3, to_ms);
            if (sqlite3_step(q) == SQLITE_ROW)
                g->xids = (unsigned)sqlite3_column_int(q, 0);
            sqlite3_finalize(q);
        }
    }
    return 0;
}
