/* SPDX-License-Identifier: MIT */
/*
 * summary.c - what a stretch of history adds up to, per GPU: mean and p95
 * utilization, peaks, energy (from the energy counter deltas), idle hours,
 * time throttled per reason (the violation counters where recorded, else the
 * throttle on/off events), Xids. Shared by
 * report and run: whole minutes from the one-minute rollups, the rest and
 * utilization from the samples (load_aggregates says which figure from where).
 */
#include "record/record.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Where the violation counters were recorded ("throttle_ns" events), the time
 * per reason is theirs: exact, short slowdowns included, instead of the sampled
 * on/off transitions. Counter -> reason bit: power -> SW power cap, thermal ->
 * SW thermal, sync boost, HW thermal, HW power brake. */
static void throttle_time_exact(sqlite3 *db, int gpu, int64_t from_ms, int64_t to_ms, double out_s[16])
{
    static const int bit_of[GS_VIOL_COUNT] = { 2, 5, 4, -1, -1, -1, 6, 7 };
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT code, sum(value) FROM event WHERE gpu = ?1 AND t >= ?2 AND t < ?3 AND"
                           " kind = 'throttle_ns' GROUP BY code", -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, from_ms);
    sqlite3_bind_int64(q, 3, to_ms);
    while (sqlite3_step(q) == SQLITE_ROW) {
        int v = sqlite3_column_int(q, 0);
        if (v >= 0 && v < GS_VIOL_COUNT && bit_of[v] >= 0)
            out_s[bit_of[v]] = sqlite3_column_double(q, 1) / 1e9;
    }
    sqlite3_finalize(q);
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
    throttle_time_exact(db, gpu, from_ms, to_ms, out_s);
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

/* Running totals of one GPU over the range (samples count 1, rollups n). */
struct acc {
    double n, util_n, util_sum, idle_n, power_n, power_sum_dw, energy_mj, mem_max, temp_max, limit_max;
    bool energy_any, util_from_rollups;
    int64_t t_min, t_max;
    double hist[102];                 /* utilization histogram: exact p95 */
};

static void acc_max(double *m, sqlite3_stmt *q, int col)
{
    if (sqlite3_column_type(q, col) != SQLITE_NULL && (isnan(*m) || sqlite3_column_double(q, col) > *m))
        *m = sqlite3_column_double(q, col);
}

static void acc_util(struct acc *a, double u, double n)
{
    a->util_n += n;
    a->util_sum += u * n;
    a->hist[u < 0 ? 0 : u > 100 ? 101 : (int)lround(u)] += n;
}

/* Columns 2.. of a sample or rollup row: n, mem max, temp max, power avg (dW), limit, energy. */
static void acc_row(struct acc *a, int64_t t, sqlite3_stmt *q, int c)
{
    double n = sqlite3_column_double(q, c);
    a->n += n;
    acc_max(&a->mem_max, q, c + 1);
    acc_max(&a->temp_max, q, c + 2);
    if (sqlite3_column_type(q, c + 3) != SQLITE_NULL) {
        a->power_n += n;
        a->power_sum_dw += sqlite3_column_double(q, c + 3) * n;
    }
    acc_max(&a->limit_max, q, c + 4);
    if (sqlite3_column_type(q, c + 5) != SQLITE_NULL) {
        a->energy_mj += sqlite3_column_double(q, c + 5);
        a->energy_any = true;
    }
    if (t < a->t_min)
        a->t_min = t;
    if (t > a->t_max)
        a->t_max = t;
}

/*
 * Where the figures come from, so that a 24-hour report reads ~11,520 rollup
 * rows instead of 691,200 samples for 8 GPUs, and every figure stays exact:
 *   whole minutes [a, b) that have rollups: peaks (max of max), energy (sum),
 *     power mean (per-minute means in 0.1 W, weighted by n: within 0.05 W);
 *   the partial minutes at the edges, and what is not rolled up yet: samples;
 *   utilization (mean, p95, idle): one ordered scan of (t, gpu, util_pct) over
 *     the samples of the whole range (the leading columns of the primary key
 *     row: ~0.2 s for 691,200 rows), so mean and p95 are exact; where only
 *     rollups remain (older than the first sample) from per-minute means, which
 *     the summary says (util_from_rollups).
 */
static void load_aggregates(sqlite3 *db, int64_t from, int64_t to, struct gs_summary *out, struct acc *acc)
{
    int64_t rolled = gs_store_scalar(db, "SELECT max(t) + 60000 FROM rollup", INT64_MIN);
    int64_t first = gs_store_scalar(db, "SELECT " GS_SAMPLE_FIRST_T, INT64_MAX);
    int64_t a = from % 60000 ? from - ((from % 60000) + 60000) % 60000 + 60000 : from;
    int64_t b = to - ((to % 60000) + 60000) % 60000;
    if (rolled < b)
        b = rolled;
    if (b <= a) /* no whole rolled-up minute: samples, and rollups older than them */
        a = b = to;
    sqlite3_stmt *q;
    /* rollups: [a, b) for everything but utilization, and for it too where older than every
     * sample; with no whole minutes, only those older than every sample */
    if (sqlite3_prepare_v2(db, "SELECT t, gpu, n, mem_used_max_mib, temp_max_c, power_avg_dw, power_limit_w, energy_mj,"
                           " util_avg, util_max FROM rollup WHERE t >= ?1 AND t < ?2 AND t <= ?3", -1, &q, NULL)
        == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, a < b ? a : from);
        sqlite3_bind_int64(q, 2, a < b ? b : to);
        sqlite3_bind_int64(q, 3, a < b || first == INT64_MAX ? INT64_MAX : first - 60000);
        while (sqlite3_step(q) == SQLITE_ROW) {
            struct gs_gpu_summary *g = by_id(out, sqlite3_column_int(q, 1));
            if (!g)
                continue;
            struct acc *ac = &acc[g - out->g];
            int64_t t = sqlite3_column_int64(q, 0);
            acc_row(ac, t, q, 2);
            if (t <= first - 60000 && sqlite3_column_type(q, 8) != SQLITE_NULL) {
                acc_util(ac, sqlite3_column_double(q, 8), sqlite3_column_double(q, 2));
                if (sqlite3_column_type(q, 9) != SQLITE_NULL && sqlite3_column_int(q, 9) == 0)
                    ac->idle_n += sqlite3_column_double(q, 2); /* max 0: every sample was idle */
                ac->util_from_rollups = true;
            }
        }
        sqlite3_finalize(q);
    }
    /* samples: utilization over the whole range, the rest outside [a, b) (the power limit is
     * looked up in sample_state only there: CASE evaluates the view's lookup only when taken) */
    if (sqlite3_prepare_v2(db, "SELECT t, gpu, util_pct, 1, mem_used_mib, temp_c, power_dw, CASE WHEN t < ?3 OR t >= ?4"
                           " THEN power_limit_w END, energy_mj FROM sample WHERE k >= " GS_SAMPLE_K("?1") " AND k < "
                           GS_SAMPLE_K("?2") " ORDER BY k", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(q, 1, from);
        sqlite3_bind_int64(q, 2, to);
        sqlite3_bind_int64(q, 3, a);
        sqlite3_bind_int64(q, 4, b);
        int last_id = -1;
        struct acc *ac = NULL;
        while (sqlite3_step(q) == SQLITE_ROW) {
            int id = sqlite3_column_int(q, 1);
            if (id != last_id || !ac) {
                struct gs_gpu_summary *g = by_id(out, id);
                ac = g ? &acc[g - out->g] : NULL;
                last_id = id;
            }
            if (!ac)
                continue;
            int64_t t = sqlite3_column_int64(q, 0);
            if (sqlite3_column_type(q, 2) != SQLITE_NULL) {
                int u = sqlite3_column_int(q, 2);
                acc_util(ac, u, 1);
                ac->idle_n += u == 0;
            }
            if (t < a || t >= b)
                acc_row(ac, t, q, 3);
        }
        sqlite3_finalize(q);
    }
}

static void finish(struct gs_gpu_summary *g, const struct acc *a, double iv_s)
{
    g->nsamples = (uint64_t)a->n;
    g->util_mean = a->util_n > 0 ? a->util_sum / a->util_n : NAN;
    g->util_p95_from_rollups = a->util_from_rollups;
    double acc = 0;
    for (int u = 0; u < 102 && a->util_n > 0; u++) {
        acc += a->hist[u];
        if (acc >= 0.95 * a->util_n) {
            g->util_p95 = u;
            break;
        }
    }
    g->mem_peak_mib = a->mem_max;
    g->temp_peak_c = a->temp_max;
    g->power_mean_w = a->power_n > 0 ? a->power_sum_dw / a->power_n / 10.0 : NAN;
    g->power_limit_w = a->limit_max;
    if (a->energy_any) {
        g->energy_j = a->energy_mj / 1000.0;
    } else if (a->power_n > 0) {
        g->energy_j = a->power_sum_dw / 10.0 * iv_s; /* deciwatts x seconds */
        g->energy_estimated = true;
    } else {
        g->energy_j = NAN;
    }
    g->idle_h = a->idle_n * iv_s / 3600.0;
    g->span_s = a->n > 0 ? (double)(a->t_max - a->t_min) / 1000.0 + iv_s : 0;
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
    struct acc *acc = calloc(out->ngpus ? out->ngpus : 1, sizeof(*acc));
    if (!acc)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    for (unsigned i = 0; i < out->ngpus; i++) {
        acc[i].mem_max = acc[i].temp_max = acc[i].limit_max = NAN;
        acc[i].t_min = INT64_MAX;
        acc[i].t_max = INT64_MIN;
    }
    load_aggregates(db, from_ms, to_ms, out, acc);
    for (unsigned i = 0; i < out->ngpus; i++)
        finish(&out->g[i], &acc[i], iv_s);
    free(acc);
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

const char *gs_fmt_energy(double j, char *buf, size_t len)
{
    const char *unit = "J";
    double v = j;
    if (isnan(j)) {
        snprintf(buf, len, "-");
        return buf;
    }
    if (fabs(j) >= 1e6) {
        v = j / 3.6e6;
        unit = "kWh";
    } else if (fabs(j) >= 999.5) {
        v = j / 1e3;
        unit = "kJ";
    }
    if (v == 0) {
        snprintf(buf, len, "0 %s", unit);
        return buf;
    }
    /* three significant digits: round there, then print the decimals that are left */
    int mag = (int)floor(log10(fabs(v)));
    double scale = pow(10, 2 - mag);
    v = round(v * scale) / scale;
    mag = (int)floor(log10(fabs(v))); /* 999.7 rounds to 1000 */
    int dec = mag >= 2 ? 0 : 2 - mag;
    snprintf(buf, len, "%.*f %s", dec, v, unit);
    return buf;
}
