/* SPDX-License-Identifier: MIT */
/*
 * baseline.c - `gpuscope baseline save NAME` stores per-GPU distributions
 * (mean, p5, p50, p95, min, max of utilization, temperature, power, SM clock)
 * over a range; `baseline diff NAME` computes the same for another range and
 * prints what moved (a median or p95 shift beyond a threshold per metric).
 */
#include "record/record.h"
#include "lib/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dist { int gpu; double n, mean, p5, p50, p95, min, max; };

static const struct { const char *name, *col, *unit; double scale, threshold; } metrics[] = {
    { "util", "util_pct", "%", 1, 10 },
    { "temp", "temp_c", "C", 1, 5 },
    { "power", "power_dw", "W", 0.1, 50 },
    { "sm_clock", "sm_mhz", "MHz", 1, 100 },
};
#define NMETRICS (int)(sizeof(metrics) / sizeof(metrics[0]))

/* Weighted percentiles per GPU from a histogram query (values are integers).
 * -1 with err set when the query fails or the rows do not fit in memory: never
 * a distribution of only the rows that fitted. */
struct hrow { int gpu; double val, w; };

static int distributions(sqlite3 *db, int m, int64_t from, int64_t to, struct dist *out, int max, struct gs_err *err)
{
    char sql[256];
    sqlite3_stmt *q;
    snprintf(sql, sizeof(sql), "SELECT gpu, %s, sum(n) FROM series WHERE t >= ?1 AND t < ?2 AND %s IS NOT NULL"
             " GROUP BY gpu, %s ORDER BY gpu, %s", metrics[m].col, metrics[m].col, metrics[m].col, metrics[m].col);
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return gs_err_set(err, GS_E_IO, "reading the %s histogram: %s", metrics[m].name, sqlite3_errmsg(db)), -1;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    struct gs_vec rows;
    gs_vec_init(&rows, sizeof(struct hrow));
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        struct hrow *r = gs_vec_push(&rows);
        if (!r)
            break;
        *r = (struct hrow){ sqlite3_column_int(q, 0), sqlite3_column_double(q, 1) * metrics[m].scale,
                            sqlite3_column_double(q, 2) };
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) {
        gs_vec_free(&rows);
        if (rc == SQLITE_ROW)
            return gs_err_set(err, GS_E_NOMEM, "no memory for the %s histogram", metrics[m].name), -1;
        return gs_err_set(err, GS_E_IO, "reading the %s histogram: %s", metrics[m].name, sqlite3_errstr(rc)), -1;
    }
    const struct hrow *v = rows.data;
    int nd = 0, nv = (int)rows.len;
    for (int i = 0; i < nv && nd < max;) {
        int j = i;
        double total = 0, sum = 0, acc = 0;
        for (; j < nv && v[j].gpu == v[i].gpu; j++) {
            total += v[j].w;
            sum += v[j].w * v[j].val;
        }
        struct dist *d = &out[nd++];
        *d = (struct dist){ .gpu = v[i].gpu, .n = total, .mean = sum / total, .min = v[i].val, .max = v[j - 1].val,
                            .p5 = NAN, .p50 = NAN, .p95 = NAN };
        for (int k = i; k < j; k++) {
            acc += v[k].w;
            if (isnan(d->p5) && acc >= 0.05 * total) d->p5 = v[k].val;
            if (isnan(d->p50) && acc >= 0.50 * total) d->p50 = v[k].val;
            if (isnan(d->p95) && acc >= 0.95 * total) d->p95 = v[k].val;
        }
        i = j;
    }
    gs_vec_free(&rows);
    return nd;
}

static int open_db(const char *db, bool ro, struct gs_store **st, struct gs_err *err)
{
    char path[1024];
    if (db)
        snprintf(path, sizeof(path), "%s", db);
    else if (gs_store_default_path(path, sizeof(path)) < 0)
        return gs_err_set(err, GS_E_USAGE, "no default database location: pass --db FILE");
    struct gs_store_opts so = { .path = path, .readonly = ro };
    return gs_store_open(st, &so, err);
}

int gs_baseline_save(const char *db, const char *name, int64_t from_ms, int64_t to_ms, struct gs_err *err)
{
    struct gs_store *st;
    struct dist d[64];
    sqlite3_stmt *q;
    if (open_db(db, false, &st, err) < 0)
        return -err->code;
    sqlite3 *h = gs_store_db(st);
    sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    sqlite3_prepare_v2(h, "INSERT OR REPLACE INTO baseline VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &q, NULL);
    int saved = 0;
    for (int m = 0; q && m < NMETRICS; m++) {
        int nd = distributions(h, m, from_ms, to_ms, d, 64, err);
        if (nd < 0) { /* nothing half-saved */
            sqlite3_finalize(q);
            sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
            gs_store_close(st);
            return -err->code;
        }
        for (int i = 0; i < nd; i++, saved++) {
            double v[] = { d[i].n, d[i].mean, d[i].p5, d[i].p50, d[i].p95, d[i].min, d[i].max };
            sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
            sqlite3_bind_int(q, 2, d[i].gpu);
            sqlite3_bind_text(q, 3, metrics[m].name, -1, SQLITE_STATIC);
            for (int k = 0; k < 7; k++)
                sqlite3_bind_double(q, 4 + k, v[k]);
            sqlite3_bind_int64(q, 11, gs_now_ms());
            sqlite3_bind_int64(q, 12, from_ms);
            sqlite3_bind_int64(q, 13, to_ms);
            sqlite3_step(q);
            sqlite3_reset(q);
        }
    }
    sqlite3_finalize(q);
    int rc = sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        gs_store_sqlerr(err, rc, gs_store_path(st), "saving the baseline");
    else if (!saved)
        gs_err_set(err, GS_E_USAGE, "no samples between those times: nothing to save");
    gs_store_close(st);
    return err->code ? -err->code : 0;
}

int gs_baseline_diff(const char *db, const char *name, int64_t from_ms, int64_t to_ms, FILE *out, struct gs_err *err)
{
    struct gs_store *st;
    struct dist d[64];
    sqlite3_stmt *q;
    if (open_db(db, true, &st, err) < 0)
        return -err->code;
    sqlite3 *h = gs_store_db(st);
    int rc = sqlite3_prepare_v2(h, "SELECT mean, p50, p95 FROM baseline WHERE name = ?1 AND gpu = ?2 AND metric = ?3",
                                -1, &q, NULL);
    if (rc != SQLITE_OK) {
        gs_store_sqlerr(err, sqlite3_extended_errcode(h), gs_store_path(st), "reading the saved baselines");
        gs_store_close(st);
        return -err->code;
    }
    int found = 0, changed = 0;
    /* where the range has only rollups, its percentiles are those of one-minute means */
    sqlite3_stmt *r;
    bool approx = false;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM rollup WHERE t >= ?1 AND t < ?2 AND t <= coalesce(" GS_SAMPLE_FIRST_T ","
                           " 9223372036854000000) - 60000 LIMIT 1", -1, &r, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(r, 1, from_ms);
        sqlite3_bind_int64(r, 2, to_ms);
        approx = sqlite3_step(r) == SQLITE_ROW;
        sqlite3_finalize(r);
    }
    for (int m = 0; m < NMETRICS; m++) {
        int nd = distributions(h, m, from_ms, to_ms, d, 64, err);
        if (nd < 0) {
            sqlite3_finalize(q);
            gs_store_close(st);
            return -err->code;
        }
        for (int i = 0; i < nd; i++) {
            sqlite3_reset(q);
            sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
            sqlite3_bind_int(q, 2, d[i].gpu);
            sqlite3_bind_text(q, 3, metrics[m].name, -1, SQLITE_STATIC);
            if (sqlite3_step(q) != SQLITE_ROW)
                continue;
            if (!found++)
                fprintf(out, "%-4s %-9s %20s %20s\n", "GPU", "metric", "baseline p50/p95", "now p50/p95");
            double b50 = sqlite3_column_double(q, 1), b95 = sqlite3_column_double(q, 2);
            bool moved = fabs(d[i].p50 - b50) >= metrics[m].threshold || fabs(d[i].p95 - b95) >= metrics[m].threshold;
            changed += moved;
            fprintf(out, "%-4d %-9s %9.0f/%-6.0f%-4s %s%*.0f/%-6.0f%-4s %s\n", d[i].gpu, metrics[m].name, b50, b95,
                    metrics[m].unit, approx ? "\u2248" : "", approx ? 8 : 9, d[i].p50, d[i].p95, metrics[m].unit,
                    moved ? (d[i].p50 > b50 ? "CHANGED (up)" : "CHANGED (down)") : "same");
        }
    }
    sqlite3_finalize(q);
    gs_store_close(st);
    if (!found)
        return gs_err_set(err, GS_E_USAGE, "no baseline '%s' (or no samples in the range to compare)", name);
    fprintf(out, "%d of %d distributions changed\n", changed, found);
    if (approx)
        fprintf(out, "\u2248: part of the range has only one-minute rollups; there the percentiles are those of the "
                "minute means\n");
    return 0;
}
