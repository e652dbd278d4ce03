/* SPDX-License-Identifier: MIT */
/*
 * report.c - `gpuscope report`: open the history read-only, then CSV, NDJSON
 * (one value per row, null for no value), or chart data bucketed over the
 * range for the HTML and terminal renderers.
 */
#include "record/report.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const csv_cols[] = { "util_pct", "mem_util_pct", "mem_used_mib", "temp_c", "mem_temp_c",
                                        "power_w", "power_limit_w", "energy_j", "sm_mhz", "mem_mhz", "throttle",
                                        "pstate", "pcie_tx_mbs", "pcie_rx_mbs", "fan_pct", "samples" };
#define NCSV (int)(sizeof(csv_cols) / sizeof(csv_cols[0]))

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- export: rows streamed in stored order ------------------------------------------ */

/* Local time without a localtime_r() per row: the zone offset is looked up once per
 * 15-minute block of UTC (every zone's transitions fall on such a boundary), the date
 * comes from days-since-epoch arithmetic (the proleptic Gregorian calendar). */
struct tzcache { int64_t block; long off_s; };

static char *put_digits(char *p, long v, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        p[i] = (char)('0' + v % 10);
        v /= 10;
    }
    return p + width;
}

static char *put_time(char *p, int64_t t_ms, struct tzcache *tz)
{
    int64_t block = t_ms >= 0 ? t_ms / 900000 : (t_ms - 899999) / 900000;
    if (block != tz->block) {
        time_t s = (time_t)(block * 900);
        struct tm tm;
        localtime_r(&s, &tm);
        tz->off_s = tm.tm_gmtoff;
        tz->block = block;
    }
    int64_t local = t_ms + (int64_t)tz->off_s * 1000;
    int64_t days = local >= 0 ? local / 86400000 : (local - 86399999) / 86400000;
    int64_t in_day = local - days * 86400000;
    /* civil_from_days (H. Hinnant's algorithm) */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    long d = (long)(doy - (153 * mp + 2) / 5 + 1), m = (long)(mp < 10 ? mp + 3 : mp - 9);
    long y = (long)(yoe + era * 400 + (m <= 2));
    long off = tz->off_s < 0 ? -tz->off_s : tz->off_s;
    p = put_digits(p, y, 4);
    *p++ = '-';
    p = put_digits(p, m, 2);
    *p++ = '-';
    p = put_digits(p, d, 2);
    *p++ = 'T';
    p = put_digits(p, (long)(in_day / 3600000), 2);
    *p++ = ':';
    p = put_digits(p, (long)(in_day / 60000 % 60), 2);
    *p++ = ':';
    p = put_digits(p, (long)(in_day / 1000 % 60), 2);
    *p++ = '.';
    p = put_digits(p, (long)(in_day % 1000), 3);
    *p++ = tz->off_s < 0 ? '-' : '+';
    p = put_digits(p, off / 3600, 2);
    *p++ = ':';
    p = put_digits(p, off / 60 % 60, 2);
    *p = '\0';
    return p;
}

static char *put_int(char *p, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (v < 0)
        *p++ = '-';
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* A stored integer scaled by 1/10^dec ("6593" dW -> "659.3"), as %.{dec}f would print it. */
static char *put_scaled(char *p, sqlite3_stmt *q, int col, int dec)
{
    if (sqlite3_column_type(q, col) != SQLITE_INTEGER)
        return p + snprintf(p, 40, "%.*f", dec, sqlite3_column_double(q, col) / (dec == 1 ? 10.0 : 1000.0));
    int64_t v = sqlite3_column_int64(q, col), div = dec == 1 ? 10 : 1000;
    if (v < 0) {
        *p++ = '-';
        v = -v;
    }
    p = put_int(p, v / div);
    *p++ = '.';
    return put_digits(p, (long)(v % div), dec);
}

/* Columns 2.. of an export row, in csv_cols order. */
static void csv_row(FILE *out, sqlite3_stmt *q, const char *ts, int idx, const char *uuid)
{
    char line[512], *p = line;
    p += snprintf(p, 160, "%s,%d,%s", ts, idx, uuid);
    for (int i = 0; i < NCSV; i++) {
        *p++ = ',';
        if (sqlite3_column_type(q, 2 + i) == SQLITE_NULL)
            continue;
        p = i == 5 ? put_scaled(p, q, 2 + i, 1) : i == 7 ? put_scaled(p, q, 2 + i, 3) : put_int(p, sqlite3_column_int64(q, 2 + i));
    }
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), out);
}

static void json_row(FILE *out, sqlite3_stmt *q, const char *ts, int idx, const char *uuid)
{
    json_t *row = json_object();
    json_object_set_new(row, "time", json_string(ts));
    json_object_set_new(row, "gpu", json_integer(idx));
    json_object_set_new(row, "uuid", json_string(uuid));
    for (int i = 0; i < NCSV; i++) {
        int col = 2 + i;
        if (sqlite3_column_type(q, col) == SQLITE_NULL)
            json_object_set_new(row, csv_cols[i], json_null());
        else if (i == 5 || i == 7)
            json_object_set_new(row, csv_cols[i], json_real(sqlite3_column_double(q, col) * (i == 5 ? 0.1 : 0.001)));
        else
            json_object_set_new(row, csv_cols[i], json_integer(sqlite3_column_int64(q, col)));
    }
    char *s = json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    if (s)
        fprintf(out, "%s\n", s);
    free(s);
    json_decref(row);
}

struct gpu_names { int idx[GS_SUM_MAX_GPUS]; char uuid[GS_SUM_MAX_GPUS][96]; bool want[GS_SUM_MAX_GPUS]; };

static int export_part(FILE *out, sqlite3 *db, const char *sql, const struct gs_report_opts *o,
                       const struct gpu_names *gn, int64_t cap, struct tzcache *tz)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int64(q, 1, o->from_ms);
    sqlite3_bind_int64(q, 2, o->to_ms);
    sqlite3_bind_int64(q, 3, cap);
    char ts[48];
    int64_t last_t = INT64_MIN;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int id = sqlite3_column_int(q, 1);
        if (id < 0 || id >= GS_SUM_MAX_GPUS || !gn->want[id])
            continue;
        int64_t t = sqlite3_column_int64(q, 0);
        if (t != last_t) {
            put_time(ts, t, tz);
            last_t = t;
        }
        if (o->format == GS_REPORT_JSON)
            json_row(out, q, ts, gn->idx[id], gn->uuid[id]);
        else
            csv_row(out, q, ts, gn->idx[id], gn->uuid[id]);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Rollups older than every sample, then the samples: each in primary-key order
 * (t, gpu), so nothing is sorted; GPU names come from a table read once. */
static int export_rows(FILE *out, struct gs_store *st, const struct gs_report_opts *o, struct gs_err *err)
{
    sqlite3 *db = gs_store_db(st);
    struct gpu_names gn;
    struct tzcache tz = { INT64_MIN, 0 };
    sqlite3_stmt *q;
    memset(&gn, 0, sizeof(gn));
    int rc = sqlite3_prepare_v2(db, "SELECT id, idx, uuid FROM gpu", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return gs_store_sqlerr(err, rc, gs_store_path(st), "reading");
    while (sqlite3_step(q) == SQLITE_ROW) {
        int id = sqlite3_column_int(q, 0);
        if (id < 0 || id >= GS_SUM_MAX_GPUS)
            continue;
        gn.idx[id] = sqlite3_column_int(q, 1);
        snprintf(gn.uuid[id], sizeof(gn.uuid[id]), "%s", (const char *)sqlite3_column_text(q, 2));
        gn.want[id] = o->gpu_index < 0 || gn.idx[id] == o->gpu_index;
    }
    sqlite3_finalize(q);
    if (o->format != GS_REPORT_JSON) {
        fputs("time,gpu,uuid", out);
        for (int i = 0; i < NCSV; i++)
            fprintf(out, ",%s", csv_cols[i]);
        fputc('\n', out);
    }
    int64_t first = gs_store_scalar(db, "SELECT " GS_SAMPLE_FIRST_T, INT64_MAX);
    rc = export_part(out, db, "SELECT t, gpu, util_avg, mem_util_avg, mem_used_avg_mib, temp_avg_c, mem_temp_max_c,"
                     " power_avg_dw, power_limit_w, energy_mj, sm_avg_mhz, mem_avg_mhz, throttle_or, NULL,"
                     " pcie_tx_avg_mbs, pcie_rx_avg_mbs, fan_avg_pct, n FROM rollup WHERE t >= ?1 AND t < ?2 AND t <= ?3",
                     o, &gn, first == INT64_MAX ? INT64_MAX : first - 60000, &tz);
    if (rc == SQLITE_OK)
        rc = export_part(out, db, "SELECT " GS_SAMPLE_WIDE_COLS ", 1 FROM " GS_SAMPLE_WIDE " WHERE k >= " GS_SAMPLE_K("?1") " AND k < " GS_SAMPLE_K("?2")
                         " AND ?3 IS NOT NULL ORDER BY k", o, &gn, 0, &tz);
    if (rc != SQLITE_OK)
        return gs_store_sqlerr(err, rc, gs_store_path(st), "reading");
    return 0;
}

/* ---- chart data -------------------------------------------------------------------- */
static int gpu_slot(const struct gs_chart *c, int id)
{
    for (unsigned i = 0; i < c->sum.ngpus; i++)
        if (c->sum.g[i].id == id)
            return (int)i;
    return -1;
}

/* Per-bucket sums, weighted by the samples a row stands for (n). */
struct buckets { double *sum, *w; };

bool gs_chart_span(const struct gs_chart *c, int64_t t, double n, int64_t *b0, int64_t *b1)
{
    int64_t span = c->to_ms - c->from_ms, end = n > 1 ? t + 59999 : t;
    if (end < c->from_ms || t >= c->to_ms)
        return false;
    *b0 = t <= c->from_ms ? 0 : (t - c->from_ms) * (int64_t)c->w / span;
    *b1 = end >= c->to_ms ? (int64_t)c->w - 1 : (end - c->from_ms) * (int64_t)c->w / span;
    return *b0 <= *b1;
}

/* One row: t, gpu, n, util, mem, temp, power (dW), sm, memclk, tx, rx, limit, throttle.
 * A rollup row (n > 1) is spread over the buckets of its minute, weighted by the overlap,
 * so that a short range over rolled-up history draws steps, not one point a minute. */
static void bucket_row(struct gs_chart *c, struct buckets *bk, sqlite3_stmt *q, int *last_id, int *slot)
{
    int id = sqlite3_column_int(q, 1);
    if (id != *last_id) {
        *slot = gpu_slot(c, id);
        *last_id = id;
    }
    int64_t t = sqlite3_column_int64(q, 0), b0, b1;
    double wt = sqlite3_column_double(q, 2);
    if (*slot < 0 || !gs_chart_span(c, t, wt, &b0, &b1))
        return;
    size_t n = (size_t)c->sum.ngpus * c->w;
    for (int64_t b = b0; b <= b1; b++) {
        size_t cell = (size_t)*slot * c->w + (size_t)b;
        double part = wt;
        if (wt > 1) { /* the share of the minute inside this bucket */
            double lo = fmax((double)t, c->from_ms + b * c->bucket_ms), hi = fmin(t + 60000.0, c->from_ms + (b + 1) * c->bucket_ms);
            part = wt * fmax(hi - lo, 0) / 60000.0;
            if (part <= 0)
                continue;
        }
        for (int m = 0; m < GS_M_LIMIT; m++) {
            if (sqlite3_column_type(q, 3 + m) == SQLITE_NULL)
                continue;
            bk->sum[m * n + cell] += sqlite3_column_double(q, 3 + m) * part * (m == GS_M_POWER ? 0.1 : 1);
            bk->w[m * n + cell] += part;
        }
        if (sqlite3_column_type(q, 3 + GS_M_LIMIT) != SQLITE_NULL) {
            float lim = (float)sqlite3_column_double(q, 3 + GS_M_LIMIT), *v = &c->v[GS_M_LIMIT][cell];
            if (isnan(*v) || lim > *v)
                *v = lim;
        }
        if (sqlite3_column_int64(q, 3 + GS_M_COUNT) & 232)
            c->serious[cell] = 1;
    }
}

static void bucket_scan(sqlite3 *db, struct gs_chart *c, struct buckets *bk, const char *sql, int64_t from, int64_t to)
{
    sqlite3_stmt *q;
    int last_id = -1, slot = -1;
    if (from >= to || sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    while (sqlite3_step(q) == SQLITE_ROW)
        bucket_row(c, bk, q, &last_id, &slot);
    sqlite3_finalize(q);
}

/* Chart buckets. When a bucket spans a minute or more (a range of 10 hours or more at
 * 600 buckets), the one-minute rollups are read (11,520 rows for 24 h of 8 GPUs, not
 * 691,200 samples): a chart cannot show more points than it has buckets. What is not
 * rolled up yet (the current minute) and shorter ranges come from the samples. Rows are
 * summed in C in the order they are stored: no GROUP BY, no temporary b-tree. */
static void load_buckets(sqlite3 *db, struct gs_chart *c)
{
    size_t n = (size_t)c->sum.ngpus * c->w;
    struct buckets bk = { calloc(GS_M_LIMIT * n + 1, sizeof(double)), calloc(GS_M_LIMIT * n + 1, sizeof(double)) };
    int64_t split = c->from_ms;
    if (bk.sum && bk.w && (c->to_ms - c->from_ms) / c->w >= 60000) {
        split = clamp(gs_store_scalar(db, "SELECT max(t) + 60000 FROM rollup", c->from_ms), c->from_ms, c->to_ms);
        bucket_scan(db, c, &bk, "SELECT t, gpu, n, util_avg, mem_used_avg_mib, temp_avg_c, power_avg_dw, sm_avg_mhz,"
                    " mem_avg_mhz, pcie_tx_avg_mbs, pcie_rx_avg_mbs, power_limit_w, throttle_or FROM rollup"
                    " WHERE t >= ?1 AND t < ?2", c->from_ms, split);
    }
    if (bk.sum && bk.w)
        bucket_scan(db, c, &bk, "SELECT t, gpu, n, util_pct, mem_used_mib, temp_c, power_dw, sm_mhz, mem_mhz,"
                    " pcie_tx_mbs, pcie_rx_mbs, power_limit_w, throttle FROM series WHERE t >= ?1 AND t < ?2",
                    split, c->to_ms);
    for (int m = 0; bk.sum && bk.w && m < GS_M_LIMIT; m++)
        for (size_t i = 0; i < n; i++)
            c->v[m][i] = bk.w[m * n + i] > 0 ? (float)(bk.sum[m * n + i] / bk.w[m * n + i]) : NAN;
    free(bk.sum);
    free(bk.w);
}

/* Per-process GPU memory, from the one-minute process rollups (peak of the minute)
 * before c->proc_split and from process samples after it: ?1 from, ?2 to, ?3 split. */
#define PROC_SRC "(SELECT t, proc, gpu, gpu_mem_max_mib AS mem, n FROM proc_rollup WHERE t >= ?1 AND t < ?3" \
                 " UNION ALL SELECT t, proc, gpu, gpu_mem_max_mib, n FROM proc_series WHERE t >= ?3 AND t < ?2)"

const char *gs_chart_proc_src(void) { return PROC_SRC; }

void gs_chart_bind_src(sqlite3_stmt *q, const struct gs_chart *c)
{
    sqlite3_bind_int64(q, 1, c->from_ms);
    sqlite3_bind_int64(q, 2, c->to_ms);
    sqlite3_bind_int64(q, 3, c->proc_split);
}

static void load_procs(sqlite3 *db, const struct gs_report_opts *o, struct gs_chart *c)
{
    sqlite3_stmt *q;
    int64_t ids[GS_CHART_MAX_PROCS];
    c->proc_split = c->from_ms;
    if ((c->to_ms - c->from_ms) / c->w >= 60000)
        c->proc_split = clamp(gs_store_scalar(db, "SELECT max(t) + 60000 FROM proc_rollup", c->from_ms), c->from_ms, c->to_ms);
    if (sqlite3_prepare_v2(db, "SELECT m.proc, p.pid, coalesce(p.name, '?'), m.peak FROM (SELECT proc, max(mem) AS peak"
                           " FROM " PROC_SRC " GROUP BY proc) m JOIN proc p ON p.id = m.proc WHERE ?4 = 0 OR p.pid = ?4"
                           " ORDER BY m.peak DESC LIMIT ?5", -1, &q, NULL) != SQLITE_OK)
        return;
    gs_chart_bind_src(q, c);
    sqlite3_bind_int64(q, 4, o->pid);
    sqlite3_bind_int(q, 5, GS_CHART_MAX_PROCS);
    while (sqlite3_step(q) == SQLITE_ROW && c->nprocs < GS_CHART_MAX_PROCS) {
        ids[c->nprocs] = sqlite3_column_int64(q, 0);
        snprintf(c->proc_label[c->nprocs], sizeof(c->proc_label[0]), "%s (%d)", sqlite3_column_text(q, 2),
                 sqlite3_column_int(q, 1));
        c->nprocs++;
    }
    sqlite3_finalize(q);
    if (!c->nprocs || sqlite3_prepare_v2(db, "SELECT t, proc, mem, n FROM " PROC_SRC, -1, &q, NULL) != SQLITE_OK)
        return;
    gs_chart_bind_src(q, c);
    /* rows of one (t, proc) are adjacent (primary key order): sum them over GPUs, then
     * keep each bucket's peak */
    int64_t cur_t = INT64_MIN, cur_p = -1, spacing = INT64_MAX, prev_t[GS_CHART_MAX_PROCS];
    double cur_sum = NAN, cur_n = 1;
    for (unsigned k = 0; k < c->nprocs; k++)
        prev_t[k] = INT64_MIN;
    for (int rc = sqlite3_step(q);; rc = sqlite3_step(q)) {
        bool row = rc == SQLITE_ROW;
        int64_t t = row ? sqlite3_column_int64(q, 0) : INT64_MAX, p = row ? sqlite3_column_int64(q, 1) : -2;
        int64_t b0, b1;
        if ((t != cur_t || p != cur_p) && cur_p >= 0 && !isnan(cur_sum) && gs_chart_span(c, cur_t, cur_n, &b0, &b1)) {
            for (unsigned k = 0; k < c->nprocs; k++) {
                if (ids[k] != cur_p)
                    continue;
                if (cur_n <= 1 && prev_t[k] != INT64_MIN && cur_t - prev_t[k] < spacing)
                    spacing = cur_t - prev_t[k]; /* the process-sample interval, as stored */
                prev_t[k] = cur_t;
                for (int64_t b = b0; b <= b1; b++) {
                    float *slot = &c->pmem[k * c->w + (unsigned)b];
                    if (isnan(*slot) || cur_sum > *slot)
                        *slot = (float)cur_sum;
                }
            }
        }
        if (!row)
            break;
        if (t != cur_t || p != cur_p) {
            cur_t = t;
            cur_p = p;
            cur_sum = NAN;
            cur_n = sqlite3_column_double(q, 3);
        }
        if (sqlite3_column_type(q, 2) != SQLITE_NULL)
            cur_sum = (isnan(cur_sum) ? 0 : cur_sum) + sqlite3_column_double(q, 2);
    }
    sqlite3_finalize(q);
    c->proc_maxgap = spacing == INT64_MAX ? c->maxgap : (unsigned)ceil(2.5 * (double)spacing / c->bucket_ms);
    if (c->proc_maxgap < c->maxgap)
        c->proc_maxgap = c->maxgap;
}

static void load_marks(sqlite3 *db, struct gs_chart *c)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT t, coalesce(gpu, -1), kind, code, coalesce(text, '') FROM event WHERE t >= ?1"
                           " AND t < ?2 AND kind IN ('xid', 'mark', 'gpu_lost', 'gpu_back', 'gap', 'ecc_dbe',"
                           " 'remap_unc') ORDER BY t LIMIT 500", -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, c->from_ms);
    sqlite3_bind_int64(q, 2, c->to_ms);
    c->marks = calloc(500, sizeof(*c->marks));
    while (c->marks && sqlite3_step(q) == SQLITE_ROW) {
        struct gs_mark *m = &c->marks[c->nmarks++];
        m->t = sqlite3_column_int64(q, 0);
        m->gpu = sqlite3_column_int(q, 1);
        snprintf(m->kind, sizeof(m->kind), "%s", sqlite3_column_text(q, 2));
        m->code = sqlite3_column_int64(q, 3);
        snprintf(m->text, sizeof(m->text), "%s", sqlite3_column_text(q, 4));
    }
    sqlite3_finalize(q);
}

int gs_chart_load(struct gs_store *st, const struct gs_report_opts *o, unsigned max_w, struct gs_chart *c,
                  struct gs_err *err)
{
    memset(c, 0, sizeof(*c));
    c->from_ms = o->from_ms;
    c->to_ms = o->to_ms;
    if (gs_summarize(st, o->from_ms, o->to_ms, 0, o->gpu_index, &c->sum, err) < 0)
        return -err->code;
    int64_t span = c->to_ms - c->from_ms, iv = c->sum.interval_ms ? c->sum.interval_ms : 1000;
    int64_t fit = span / iv; /* sampling intervals in the range: more buckets would be empty */
    c->w = fit < 2 ? 2 : fit < (int64_t)max_w ? (unsigned)fit : max_w;
    c->bucket_ms = (double)span / c->w;
    c->maxgap = (unsigned)ceil(2.5 * (double)iv / c->bucket_ms);
    size_t n = (size_t)(c->sum.ngpus ? c->sum.ngpus : 1) * c->w;
    for (int m = 0; m < GS_M_COUNT; m++) {
        c->v[m] = malloc(n * sizeof(float));
        if (!c->v[m])
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        for (size_t i = 0; i < n; i++)
            c->v[m][i] = NAN;
    }
    c->serious = calloc(n, 1);
    c->pmem = malloc(GS_CHART_MAX_PROCS * c->w * sizeof(float));
    if (!c->serious || !c->pmem)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    for (size_t i = 0; i < GS_CHART_MAX_PROCS * c->w; i++)
        c->pmem[i] = NAN;
    sqlite3 *db = gs_store_db(st);
    load_buckets(db, c);
    load_procs(db, o, c);
    load_marks(db, c);
    return 0;
}

void gs_chart_free(struct gs_chart *c)
{
    for (int m = 0; m < GS_M_COUNT; m++)
        free(c->v[m]);
    free(c->serious);
    free(c->pmem);
    free(c->marks);
}

const char *gs_fmt_secs(double s, char *buf, size_t len)
{
    if (s < 90)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 5400)
        snprintf(buf, len, "%.0f min", s / 60);
    else
        snprintf(buf, len, "%.1f h", s / 3600);
    return buf;
}

int gs_report_run(const struct gs_report_opts *o, struct gs_err *err)
{
    char path[1024];
    if (o->db)
        snprintf(path, sizeof(path), "%s", o->db);
    else if (gs_store_default_path(path, sizeof(path)) < 0)
        return gs_err_set(err, GS_E_USAGE, "no default database location: pass --db FILE");
    struct gs_store_opts so = { .path = path, .readonly = true };
    struct gs_store *st;
    if (gs_store_open(&st, &so, err) < 0)
        return -err->code;
    FILE *out = stdout;
    if (o->output && strcmp(o->output, "-") && !(out = fopen(o->output, "w"))) {
        gs_err_set(err, GS_E_IO, "cannot write %s", o->output);
        gs_store_close(st);
        return -err->code;
    }
    int rc = 0;
    if (o->format == GS_REPORT_CSV || o->format == GS_REPORT_JSON) {
        rc = export_rows(out, st, o, err);
    } else {
        struct gs_chart c;
        unsigned w = o->format == GS_REPORT_TERM ? (o->width > 40 ? o->width - 22 : 60) : 600;
        /* (fewer when the range holds fewer sampling intervals: gs_chart_load) */
        rc = gs_chart_load(st, o, w, &c, err);
        if (rc == 0 && o->format == GS_REPORT_HTML)
            gs_report_html(out, st, &c);
        else if (rc == 0)
            gs_report_term(out, &c, true);
        gs_chart_free(&c);
    }
    if (out != stdout && fclose(out) != 0 && rc == 0)
        rc = gs_err_set(err, GS_E_IO, "cannot write %s", o->output);
    gs_store_close(st);
    return rc;
}
