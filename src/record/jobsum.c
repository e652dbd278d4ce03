/* SPDX-License-Identifier: MIT */
/*
 * jobsum.c - what an HPC job cost (jobs.h): per GPU of the job its energy,
 * mean and p95 utilization, peak memory, throttled seconds, Xids and the
 * job's processes on it, over the job's span from the history database; the
 * GPU-hours and the idle ones; the health events (Xid, double-bit ECC,
 * uncorrectable row remaps, a GPU lost) in that span. As JSON (stored with
 * the job by the epilog) and as the short text block of the job's output;
 * `report --job` and `report --user`.
 */
#include "record/jobs.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"

struct job_row {
    char id[72], user[64], gpus[512];
    int64_t uid, start, end;
    bool has_uid, has_end;
};

static void col_text(sqlite3_stmt *q, int c, char *dst, size_t cap)
{
    const unsigned char *s = sqlite3_column_text(q, c);
    snprintf(dst, cap, "%s", s ? (const char *)s : "");
}

/* 1 found, 0 not, <0 an SQLite error. */
static int job_load(sqlite3 *db, const char *job, struct job_row *r)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "SELECT id, user, uid, gpus, start_t, end_t FROM job WHERE id = ?1", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return -rc;
    sqlite3_bind_text(q, 1, job, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
        col_text(q, 0, r->id, sizeof(r->id));
        col_text(q, 1, r->user, sizeof(r->user));
        r->has_uid = sqlite3_column_type(q, 2) == SQLITE_INTEGER;
        r->uid = sqlite3_column_int64(q, 2);
        col_text(q, 3, r->gpus, sizeof(r->gpus));
        r->start = sqlite3_column_int64(q, 4);
        r->has_end = sqlite3_column_type(q, 5) == SQLITE_INTEGER;
        r->end = sqlite3_column_int64(q, 5);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -rc;
}

static int64_t q_int(sqlite3 *db, const char *sql, const char *job, int64_t a, int64_t b, int64_t c)
{
    sqlite3_stmt *q;
    int64_t v = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(q, 1, job, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, a);
    sqlite3_bind_int64(q, 3, b);
    sqlite3_bind_int64(q, 4, c);
    if (sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

static json_t *jnum(double x, int dec)
{
    double m = pow(10, dec);
    return isnan(x) ? json_null() : json_real(round(x * m) / m);
}

/* One GPU's part: its summary, the job's processes on it, idle or not. */
static json_t *job_gpu(sqlite3 *db, const struct job_row *r, const struct gs_gpu_summary *g, int64_t end,
                       double *energy, bool *idle)
{
    double thr = 0;
    for (int b = 0; b < 16; b++)
        thr += g->throttled_s[b];
    int64_t procs = q_int(db, "SELECT count(*) FROM proc WHERE slurm_job = CAST(?1 AS INTEGER) AND gpus & (1 << ?2)"
                          " AND first_t < ?4 AND coalesce(end_t, last_t) >= ?3", r->id, g->id, r->start, end);
    /* used: a process of the job was seen on it, or (processes not attributable: Slurm
     * without cgroups) it was busy during the job, whose GPUs Slurm gives exclusively */
    *idle = g->nsamples > 0 && procs == 0 && !(g->util_p95 > 0) && !(g->util_mean > 0);
    if (!isnan(g->energy_j))
        *energy = isnan(*energy) ? g->energy_j : *energy + g->energy_j;
    return json_pack("{s:i, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b, s:o, s:i, s:I, s:b}", "index", g->idx,
                     "uuid", g->uuid, "name", g->name, "samples", (json_int_t)g->nsamples, "util_mean_pct",
                     jnum(g->util_mean, 1), "util_p95_pct", jnum(g->util_p95, 1), "mem_peak_mib",
                     jnum(g->mem_peak_mib, 0), "energy_j", jnum(g->energy_j, 1), "energy_estimated",
                     g->energy_estimated, "throttled_s", jnum(thr, 1), "xids", (int)g->xids, "processes",
                     (json_int_t)procs, "idle", *idle);
}

/* The health events of the job's GPUs (or of the machine) in its span, by kind. */
static json_t *job_findings(sqlite3 *db, uint64_t mask, int64_t from, int64_t to)
{
    json_t *o = json_object();
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(db, "SELECT kind, count(*) FROM event WHERE t >= ?1 AND t < ?2 AND kind IN"
                           " ('xid', 'ecc_dbe', 'ecc_dbe_event', 'remap_unc', 'gpu_lost', 'gpu_error')"
                           " AND (gpu IS NULL OR gpu < 0 OR (?3 >> gpu) & 1) GROUP BY kind ORDER BY kind",
                           -1, &q, NULL) != SQLITE_OK)
        return o;
    sqlite3_bind_int64(q, 1, from);
    sqlite3_bind_int64(q, 2, to);
    sqlite3_bind_int64(q, 3, (int64_t)mask);
    while (sqlite3_step(q) == SQLITE_ROW)
        json_object_set_new(o, (const char *)sqlite3_column_text(q, 0), json_integer(sqlite3_column_int64(q, 1)));
    sqlite3_finalize(q);
    return o;
}

/* The gpu.id bits of the job's GPU indexes. */
static uint64_t job_mask(sqlite3 *db, const struct job_row *r, unsigned *nidx)
{
    unsigned idx[GS_JOB_MAX_GPUS];
    char why[128];
    uint64_t mask = 0;
    int n = gs_job_parse_gpus(r->gpus, idx, GS_JOB_MAX_GPUS, why, sizeof(why));
    *nidx = n > 0 ? (unsigned)n : 0;
    for (int i = 0; i < n; i++) {
        char sql[96];
        snprintf(sql, sizeof(sql), "SELECT id FROM gpu WHERE idx = %u ORDER BY last_t DESC LIMIT 1", idx[i]);
        int64_t id = gs_store_scalar(db, sql, -1);
        if (id >= 0 && id < 64)
            mask |= 1ull << id;
    }
    return mask;
}

static json_t *job_build(sqlite3 *db, struct gs_store *st, const struct job_row *r, int64_t now_ms,
                         struct gs_err *err)
{
    static struct gs_summary sum; /* 64 GPUs: too large for the stack; one caller at a time */
    unsigned nidx;
    int64_t end = r->has_end ? r->end : now_ms;
    uint64_t mask = job_mask(db, r, &nidx);
    if (mask && gs_summarize(st, r->start, end, mask, -1, &sum, err) < 0)
        return NULL;
    unsigned ngpus = mask ? sum.ngpus : 0;
    double span_s = (double)(end - r->start) / 1000.0, energy = NAN, idle_n = 0;
    json_t *gpus = json_array();
    bool any_samples = false;
    for (unsigned i = 0; i < ngpus; i++) {
        bool idle;
        json_array_append_new(gpus, job_gpu(db, r, &sum.g[i], end, &energy, &idle));
        idle_n += idle;
        any_samples |= sum.g[i].nsamples > 0;
    }
    int64_t procs = q_int(db, "SELECT count(*) FROM proc WHERE slurm_job = CAST(?1 AS INTEGER)", r->id, 0, 0, 0);
    double gpu_h = span_s * (nidx ? nidx : ngpus) / 3600.0;
    char t0[40], t1[40];
    return json_pack("{s:s, s:s, s:o, s:s, s:o, s:b, s:o, s:s, s:o, s:o, s:o, s:o, s:I, s:b, s:b, s:o, s:o}",
                     "job", r->id, "user", r->user, "uid", r->has_uid ? json_integer(r->uid) : json_null(),
                     "start", gs_rfc3339(r->start, t0, sizeof(t0)), "end",
                     r->has_end ? json_string(gs_rfc3339(r->end, t1, sizeof(t1))) : json_null(), "running",
                     !r->has_end, "span_s", jnum(span_s, 1), "gpu_list", r->gpus, "gpu_hours", jnum(gpu_h, 4),
                     "idle_gpu_hours", jnum(span_s * idle_n / 3600.0, 4), "energy_j", jnum(energy, 1),
                     "idle", json_boolean(any_samples && ngpus && idle_n == ngpus), "processes", (json_int_t)procs,
                     "has_samples", any_samples, "gpus_known", ngpus > 0, "findings",
                     job_findings(db, mask, r->start, end), "gpus", gpus);
}

char *gs_job_summary_json(struct gs_store *st, const char *job, int64_t now_ms, struct gs_err *err)
{
    sqlite3 *db = gs_store_db(st);
    struct job_row r;
    int rc = job_load(db, job, &r);
    if (rc < 0) {
        gs_store_sqlerr(err, -rc, gs_store_path(st), "reading the job table");
        return NULL;
    }
    if (rc == 0) {
        gs_err_set(err, GS_E_USAGE, "history database %s has no job %s", gs_store_path(st), job);
        gs_err_hint(err, "Jobs are added by `gpuscope slurm prolog` (slurm.conf Prolog=, docs/SLURM.md) "
                         "with the same --db.");
        return NULL;
    }
    json_t *o = job_build(db, st, &r, now_ms, err);
    if (!o)
        return NULL;
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        gs_err_set(err, GS_E_NOMEM, "out of memory");
    return s;
}

static double jd(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *js(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static const char *fnum(double x, int dec, char *buf, size_t len)
{
    if (isnan(x))
        return "-";
    snprintf(buf, len, "%.*f", dec, x);
    return buf;
}

static void text_gpu(json_t *g, FILE *out)
{
    char e[24], u[16], p[16], m[24];
    fprintf(out, "  GPU %-2.0f util %5s %% mean %5s %% p95 | peak memory %7s MiB | %9s | throttled %.0f s |"
            " Xids %.0f | processes %.0f%s\n", jd(g, "index"), fnum(jd(g, "util_mean_pct"), 1, u, sizeof(u)),
            fnum(jd(g, "util_p95_pct"), 0, p, sizeof(p)), fnum(jd(g, "mem_peak_mib"), 0, m, sizeof(m)),
            gs_fmt_energy(jd(g, "energy_j"), e, sizeof(e)), jd(g, "throttled_s"), jd(g, "xids"),
            jd(g, "processes"), json_is_true(json_object_get(g, "idle")) ? "  IDLE: the job never used it" : "");
}

void gs_job_summary_text(const char *json, FILE *out)
{
    json_t *o = json_loads(json, 0, NULL), *g;
    size_t i;
    char e[24];
    if (!o) {
        fprintf(out, "gpuscope: job summary unreadable\n");
        return;
    }
    fprintf(out, "---- gpuscope: GPU summary of job %s (%s), %s to %s ----\n", js(o, "job"), js(o, "user"),
            js(o, "start"), json_is_string(json_object_get(o, "end")) ? js(o, "end") : "now (running)");
    fprintf(out, "  %.3f GPU-hours on GPUs %s, %.3f of them idle; energy %s\n", jd(o, "gpu_hours"),
            js(o, "gpu_list")[0] ? js(o, "gpu_list") : "(unknown)", jd(o, "idle_gpu_hours"),
            gs_fmt_energy(jd(o, "energy_j"), e, sizeof(e)));
    if (!json_is_true(json_object_get(o, "has_samples")))
        fprintf(out, "  no samples of these GPUs in the history: is `gpuscope record` running on this node?\n");
    json_array_foreach(json_object_get(o, "gpus"), i, g) text_gpu(g, out);
    if (json_is_true(json_object_get(o, "idle")))
        fprintf(out, "  IDLE JOB: no GPU of the job was used (no process, no utilization)\n");
    json_t *f = json_object_get(o, "findings"), *v;
    const char *k;
    json_object_foreach(f, k, v) fprintf(out, "  health: %lld %s event%s\n", (long long)json_integer_value(v), k,
                                         json_integer_value(v) == 1 ? "" : "s");
    fprintf(out, "----\n");
    json_decref(o);
}

/* ---- report --job / --user ------------------------------------------------------------ */

static int open_ro(const char *db, struct gs_store **st, struct gs_err *err)
{
    char path[1024];
    if (!db) {
        if (gs_store_default_path(path, sizeof(path)) < 0)
            return gs_err_set(err, GS_E_USAGE, "no default history database location: pass --db FILE");
        db = path;
    }
    struct gs_store_opts so = { .path = db, .readonly = true };
    return gs_store_open(st, &so, err);
}

/* The job's stored summary (its epilog's), else one made now (a running job). */
static char *job_json(struct gs_store *st, const char *job, struct gs_err *err)
{
    sqlite3_stmt *q;
    char *s = NULL;
    if (sqlite3_prepare_v2(gs_store_db(st), "SELECT summary FROM job WHERE id = ?1 AND summary IS NOT NULL", -1, &q,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, job, -1, SQLITE_STATIC);
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
            s = strdup((const char *)sqlite3_column_text(q, 0));
        sqlite3_finalize(q);
    }
    return s ? s : gs_job_summary_json(st, job, gs_now_ms(), err);
}

int gs_report_job(const char *db, const char *job, bool json, FILE *out, struct gs_err *err)
{
    struct gs_store *st;
    int rc = open_ro(db, &st, err);
    if (rc < 0)
        return rc;
    char *s = job_json(st, job, err);
    gs_store_close(st);
    if (!s)
        return -err->code;
    if (json)
        fprintf(out, "%s\n", s);
    else
        gs_job_summary_text(s, out);
    free(s);
    return 0;
}

struct user_tot {
    char user[64];
    unsigned jobs;
    double gpu_h, idle_h, energy_j;
};

static void user_add(struct user_tot *t, unsigned *n, unsigned cap, json_t *o)
{
    unsigned i = 0;
    while (i < *n && strcmp(t[i].user, js(o, "user")))
        i++;
    if (i == *n) {
        if (*n == cap)
            return;
        memset(&t[i], 0, sizeof(t[i]));
        snprintf(t[i].user, sizeof(t[i].user), "%s", js(o, "user"));
        (*n)++;
    }
    t[i].jobs++;
    t[i].gpu_h += isnan(jd(o, "gpu_hours")) ? 0 : jd(o, "gpu_hours");
    t[i].idle_h += isnan(jd(o, "idle_gpu_hours")) ? 0 : jd(o, "idle_gpu_hours");
    t[i].energy_j += isnan(jd(o, "energy_j")) ? 0 : jd(o, "energy_j");
}

static void user_print(const struct user_tot *t, unsigned n, bool json, FILE *out)
{
    char e[24];
    for (unsigned i = 0; i < n; i++) {
        if (json)
            fprintf(out, "{\"user\":\"%s\",\"jobs\":%u,\"gpu_hours\":%.4f,\"idle_gpu_hours\":%.4f,\"energy_j\":%.1f}\n",
                    t[i].user, t[i].jobs, t[i].gpu_h, t[i].idle_h, t[i].energy_j);
        else
            fprintf(out, "user %-16s %4u jobs  %9.3f GPU-hours  %9.3f idle  %s\n", t[i].user, t[i].jobs, t[i].gpu_h,
                    t[i].idle_h, gs_fmt_energy(t[i].energy_j, e, sizeof(e)));
    }
}

/* One job's line (text) or object (NDJSON). */
static void job_line(json_t *o, const char *s, bool json, FILE *out)
{
    char e[24];
    if (json) {
        fprintf(out, "%s\n", s);
        return;
    }
    fprintf(out, "job %-12s %-16s %-25s %9.3f GPU-hours  %9.3f idle  %9s%s\n", js(o, "job"), js(o, "user"),
            js(o, "start"), jd(o, "gpu_hours"), jd(o, "idle_gpu_hours"), gs_fmt_energy(jd(o, "energy_j"), e, sizeof(e)),
            json_is_true(json_object_get(o, "running")) ? "  running" : json_is_true(json_object_get(o, "idle"))
                                                                          ? "  IDLE" : "");
}

int gs_report_user(const char *db, const char *user, int64_t from_ms, int64_t to_ms, bool json, FILE *out,
                   struct gs_err *err)
{
    struct gs_store *st;
    sqlite3_stmt *q;
    struct user_tot tot[256];
    unsigned ntot = 0;
    int rc = open_ro(db, &st, err);
    if (rc < 0)
        return rc;
    rc = sqlite3_prepare_v2(gs_store_db(st), "SELECT id FROM job WHERE start_t < ?2 AND coalesce(end_t, ?2) >= ?1"
                            " AND (?3 IS NULL OR user = ?3) ORDER BY start_t, id", -1, &q, NULL);
    if (rc != SQLITE_OK) {
        rc = gs_store_sqlerr(err, rc, gs_store_path(st), "reading the job table");
        goto out;
    }
    sqlite3_bind_int64(q, 1, from_ms);
    sqlite3_bind_int64(q, 2, to_ms);
    if (user)
        sqlite3_bind_text(q, 3, user, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        char id[72], *s;
        col_text(q, 0, id, sizeof(id));
        if (!(s = job_json(st, id, err)))
            continue;
        json_t *o = json_loads(s, 0, NULL);
        if (o) {
            job_line(o, s, json, out);
            user_add(tot, &ntot, sizeof(tot) / sizeof(tot[0]), o);
            json_decref(o);
        }
        free(s);
    }
    sqlite3_finalize(q);
    rc = rc == SQLITE_DONE ? 0 : gs_store_sqlerr(err, rc, gs_store_path(st), "reading the job table");
    if (rc == 0 && !ntot && !json)
        fprintf(out, "no jobs%s%s in that time\n", user ? " of user " : "", user ? user : "");
    if (rc == 0)
        user_print(tot, ntot, json, out);
out:
    gs_store_close(st);
    return rc;
}
