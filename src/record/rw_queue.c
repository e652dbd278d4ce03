/* SPDX-License-Identifier: MIT */
/*
 * rw_queue.c - the remote-write sender thread: the history database is the
 * queue. It reads the sample rows after the URL's watermark (in key order,
 * at most max_samples samples a request), sends them, and moves the
 * watermark (table remote_write) once the receiver acknowledged them, or
 * refused them for good (4xx but 429: dropped, said why). 5xx, 429 and
 * network errors retry the same batch with exponential backoff and jitter,
 * Retry-After honoured. Sampling never waits for it: it has its own SQLite
 * connection and only ever takes the write lock for one short UPDATE.
 */
#include "record/rw.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"

struct gs_rw {
    const struct gs_rw_cfg *cfg;
    char db_path[1024], url[1024];
    int64_t start_ms;
    bool quiet;
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool notified, stop;
    uint64_t drain_until_ns;
    uint64_t next_try_ns;        /* a failed batch is tried again from then */
    bool lost_checked;           /* rw_check_lost() looked after lost_wm already */
    int64_t lost_wm;
    volatile int abort_now;
    sqlite3 *db;
    sqlite3_stmt *q_rows, *q_ok, *q_err;
    struct gs_rw_enc *enc;
    struct gs_rw_http *http;
    struct gs_rw_row *rows;
    size_t rows_cap;
    int64_t wm_t, wm_gpu;        /* the watermark: last row sent (or dropped) */
    bool wm_dirty;               /* moved but not yet stored (the UPDATE was busy) */
    int64_t backoff_ms;
    uint64_t pending_ok;         /* samples sent since the watermark was last stored */
    char last_msg[512];
};

#define RW_LOG(rw, ...)                                                                                     \
    do {                                                                                                    \
        fprintf(stderr, "gpuscope record: remote write to %s: ", (rw)->url);                                \
        fprintf(stderr, __VA_ARGS__);                                                                       \
        fputc('\n', stderr);                                                                                \
    } while (0)

#define RW_MAX_ROWS 20000

static const char rw_sql_rows[] =
    "SELECT " GS_SAMPLE_WIDE_COLS " FROM " GS_SAMPLE_WIDE
    " WHERE k > " GS_SAMPLE_K("?1") " + min(?2, 63) ORDER BY k LIMIT ?3"; /* sent_gpu past the last GPU: 63 */

static void rw_close_db(struct gs_rw *rw)
{
    sqlite3_finalize(rw->q_rows);
    sqlite3_finalize(rw->q_ok);
    sqlite3_finalize(rw->q_err);
    sqlite3_close(rw->db);
    rw->q_rows = rw->q_ok = rw->q_err = NULL;
    rw->db = NULL;
}

static int rw_load_gpus(struct gs_rw *rw)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(rw->db, "SELECT id, idx, uuid, name, pci_bus_id FROM gpu", -1, &q, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(q) == SQLITE_ROW) {
        struct gs_rw_gpu g = { .id = sqlite3_column_int(q, 0), .idx = sqlite3_column_int(q, 1) };
        const char *u = (const char *)sqlite3_column_text(q, 2), *n = (const char *)sqlite3_column_text(q, 3);
        const char *p = (const char *)sqlite3_column_text(q, 4);
        snprintf(g.uuid, sizeof(g.uuid), "%s", u ? u : "");
        snprintf(g.name, sizeof(g.name), "%s", n ? n : "");
        snprintf(g.pci, sizeof(g.pci), "%s", p ? p : "");
        if (sqlite3_column_type(q, 1) == SQLITE_NULL)
            g.idx = g.id;
        gs_rw_enc_gpu(rw->enc, &g);
    }
    sqlite3_finalize(q);
    return 0;
}

/* Our own connection, and the URL's watermark (created at the recorder's start time). */
static int rw_open_db(struct gs_rw *rw, char *why, size_t len)
{
    int rc = sqlite3_open_v2(rw->db_path, &rw->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    sqlite3_stmt *q = NULL;
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(rw->db, 1000);
        rc = sqlite3_prepare_v2(rw->db, "INSERT OR IGNORE INTO remote_write(url, sent_t, sent_gpu) VALUES(?1, ?2,"
                                " 2147483647)", -1, &q, NULL);
    }
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(q, 1, rw->url, -1, SQLITE_STATIC);
        sqlite3_bind_int64(q, 2, rw->start_ms - 1);
        rc = sqlite3_step(q) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(rw->db);
        sqlite3_finalize(q);
        q = NULL;
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(rw->db, "SELECT sent_t, sent_gpu FROM remote_write WHERE url = ?1", -1, &q, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(q, 1, rw->url, -1, SQLITE_STATIC);
        rc = sqlite3_step(q) == SQLITE_ROW ? SQLITE_OK : SQLITE_ERROR;
        rw->wm_t = sqlite3_column_int64(q, 0);
        rw->wm_gpu = sqlite3_column_int64(q, 1);
        sqlite3_finalize(q);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(rw->db, rw_sql_rows, -1, &rw->q_rows, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(rw->db, "UPDATE remote_write SET sent_t = ?1, sent_gpu = ?2, ok_t = ?3,"
                                " sent_n = sent_n + ?4 WHERE url = ?5", -1, &rw->q_ok, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(rw->db, "UPDATE remote_write SET sent_t = ?1, sent_gpu = ?2, err_t = ?3,"
                                " err = ?4, dropped_n = dropped_n + ?5 WHERE url = ?6", -1, &rw->q_err, NULL);
    if (rc == SQLITE_OK && rw_load_gpus(rw) == 0)
        return 0;
    snprintf(why, len, "cannot read the queue in %s: %s", rw->db_path, rw->db ? sqlite3_errmsg(rw->db) : "no memory");
    rw_close_db(rw);
    return -1;
}

/* Up to max_samples samples after the watermark; *n rows. -1 on an SQLite error. */
static int rw_read(struct gs_rw *rw, size_t *n, size_t *nsamples)
{
    uint32_t max = rw->cfg->max_samples;
    /* rows read at most: a row has one sample or more; a row's memory (~140 B) stays bounded */
    uint32_t max_rows = max < RW_MAX_ROWS ? max : RW_MAX_ROWS;
    if (rw->rows_cap < max_rows) {
        struct gs_rw_row *r = realloc(rw->rows, max_rows * sizeof(*r));
        if (!r)
            return -1;
        rw->rows = r;
        rw->rows_cap = max_rows;
    }
    sqlite3_stmt *q = rw->q_rows;
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, rw->wm_t);
    sqlite3_bind_int64(q, 2, rw->wm_gpu);
    sqlite3_bind_int64(q, 3, max_rows);
    size_t k = 0, total = 0;
    bool reloaded = false;
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        struct gs_rw_row *r = &rw->rows[k];
        r->t = sqlite3_column_int64(q, 0);
        r->gpu = sqlite3_column_int(q, 1);
        r->have = 0;
        for (int c = 0; c < GS_COL_COUNT; c++) {
            bool has = sqlite3_column_type(q, 2 + c) != SQLITE_NULL;
            r->v[c] = has ? sqlite3_column_int64(q, 2 + c) : 0;
            r->have |= (uint16_t)(has << c);
        }
        if (!gs_rw_enc_knows(rw->enc, r->gpu) && !reloaded) {
            rw_load_gpus(rw); /* a GPU the recorder met after we started */
            reloaded = true;
        }
        size_t c = gs_rw_enc_count(rw->enc, r);
        if (k && total + c > max)
            break;
        total += c;
        k++;
    }
    sqlite3_reset(q);
    *n = k;
    *nsamples = total;
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static void rw_store_ok(struct gs_rw *rw, uint64_t nsamples)
{
    sqlite3_stmt *q = rw->q_ok;
    rw->pending_ok += nsamples;
    sqlite3_bind_int64(q, 1, rw->wm_t);
    sqlite3_bind_int64(q, 2, rw->wm_gpu);
    sqlite3_bind_int64(q, 3, gs_now_ms());
    sqlite3_bind_int64(q, 4, (int64_t)rw->pending_ok);
    sqlite3_bind_text(q, 5, rw->url, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    rw->wm_dirty = rc != SQLITE_DONE; /* busy or full: stored with the next batch */
    if (!rw->wm_dirty)
        rw->pending_ok = 0;
}

static void rw_store_err(struct gs_rw *rw, const char *why, uint64_t dropped)
{
    sqlite3_stmt *q = rw->q_err;
    sqlite3_bind_int64(q, 1, rw->wm_t);
    sqlite3_bind_int64(q, 2, rw->wm_gpu);
    sqlite3_bind_int64(q, 3, gs_now_ms());
    sqlite3_bind_text(q, 4, why, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 5, (int64_t)dropped);
    sqlite3_bind_text(q, 6, rw->url, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    if (rc != SQLITE_DONE && dropped)
        rw->wm_dirty = true;
}

/* Wait up to ms for a notification or a stop; false when stopping. */
static bool rw_wait(struct gs_rw *rw, int64_t ms, bool wake_on_notify)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ns = ts.tv_nsec + (ms % 1000) * 1000000;
    ts.tv_sec += (time_t)(ms / 1000 + ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    pthread_mutex_lock(&rw->mu);
    while (!rw->stop && !(wake_on_notify && rw->notified))
        if (pthread_cond_timedwait(&rw->cv, &rw->mu, &ts) == ETIMEDOUT)
            break;
    rw->notified = false;
    bool go = !rw->stop;
    pthread_mutex_unlock(&rw->mu);
    return go;
}

static bool rw_stopping(struct gs_rw *rw, bool *past_drain)
{
    pthread_mutex_lock(&rw->mu);
    bool s = rw->stop;
    pthread_mutex_unlock(&rw->mu);
    *past_drain = s && gs_clock_mono_ns() >= rw->drain_until_ns;
    return s;
}

/* A failure to retry: say so once per distinct reason, then back off (Retry-After when longer). */
static int64_t rw_backoff(struct gs_rw *rw, const char *why, int64_t retry_after_ms)
{
    const struct gs_rw_cfg *c = rw->cfg;
    rw->backoff_ms = rw->backoff_ms ? rw->backoff_ms * 2 : c->min_backoff_ms;
    if (rw->backoff_ms > c->max_backoff_ms)
        rw->backoff_ms = c->max_backoff_ms;
    int64_t wait = rw->backoff_ms / 2 + (int64_t)((double)rand() / RAND_MAX * (double)(rw->backoff_ms / 2));
    if (retry_after_ms > wait)
        wait = retry_after_ms;
    if (strcmp(rw->last_msg, why)) {
        snprintf(rw->last_msg, sizeof(rw->last_msg), "%s", why);
        RW_LOG(rw, "%s; samples stay queued in %s, retrying (next in %.1f s%s)", why, rw->db_path, wait / 1000.0,
               retry_after_ms >= 0 ? ", as Retry-After asks" : "");
        rw_store_err(rw, why, 0);
    }
    return wait;
}

/* Samples after the watermark that retention (or --max-size) deleted before they were sent:
 * their minutes still have rollups. Said, never skipped in silence. */
static void rw_check_lost(struct gs_rw *rw, int64_t first_t)
{
    if (first_t - rw->wm_t <= 60000 || rw->wm_t < 0 || (rw->lost_checked && rw->lost_wm == rw->wm_t))
        return; /* once per watermark: a retried batch is not a second loss */
    rw->lost_checked = true;
    rw->lost_wm = rw->wm_t;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(rw->db, "SELECT min(t), max(t) FROM rollup WHERE t > ?1 AND t + 60000 <= ?2", -1, &q,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(q, 1, rw->wm_t);
    sqlite3_bind_int64(q, 2, first_t);
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL) {
        char a[48], b[48], msg[300];
        gs_rfc3339(sqlite3_column_int64(q, 0), a, sizeof(a));
        gs_rfc3339(sqlite3_column_int64(q, 1) + 60000, b, sizeof(b));
        snprintf(msg, sizeof(msg), "the samples from %s to %s were deleted (--retention, --max-size) before they "
                 "could be sent; only their one-minute rollups remain, in the database", a, b);
        RW_LOG(rw, "%s", msg);
        rw_store_err(rw, msg, 0);
    }
    sqlite3_finalize(q);
}

/* One batch: read, encode, post, and what the answer means for the watermark.
 * 1: sent (or nothing to send), 0: queue empty, -1: retry after *wait_ms. */
static int rw_batch(struct gs_rw *rw, int64_t *wait_ms)
{
    size_t n, nsamples, len;
    const void *body;
    char why[1400];
    struct gs_err err = { 0 };
    if (rw_read(rw, &n, &nsamples) < 0) {
        snprintf(why, sizeof(why), "cannot read the queue in %s: %s", rw->db_path, sqlite3_errmsg(rw->db));
        *wait_ms = rw_backoff(rw, why, 1000);
        return -1;
    }
    if (!n)
        return 0;
    rw_check_lost(rw, rw->rows[0].t);
    int64_t last_t = rw->rows[n - 1].t, last_gpu = rw->rows[n - 1].gpu;
    if (!nsamples) { /* only NULLs or relabelled away: nothing to post */
        rw->wm_t = last_t;
        rw->wm_gpu = last_gpu;
        rw_store_ok(rw, 0);
        return 1;
    }
    if (gs_rw_encode(rw->enc, rw->rows, n, &body, &len, &nsamples, &err) < 0) {
        *wait_ms = rw_backoff(rw, err.msg, 1000);
        return -1;
    }
    int64_t retry_after;
    enum gs_rw_verdict v = gs_rw_http_post(rw->http, body, len, &retry_after, why, sizeof(why), &rw->abort_now);
    if (v == GS_RW_RETRY) {
        *wait_ms = rw_backoff(rw, why, retry_after);
        return -1;
    }
    int64_t first_t = rw->rows[0].t;
    rw->wm_t = last_t;
    rw->wm_gpu = last_gpu;
    rw->backoff_ms = 0;
    if (v == GS_RW_DROP) {
        char msg[1600];
        snprintf(msg, sizeof(msg), "the receiver refused %zu samples (%lld..%lld ms): %s", nsamples,
                 (long long)first_t, (long long)last_t, why);
        RW_LOG(rw, "%s; dropped, as Prometheus does for a 4xx answer other than 429", msg);
        rw_store_err(rw, msg, nsamples);
        rw->last_msg[0] = '\0';
        return 1;
    }
    if (rw->last_msg[0]) {
        RW_LOG(rw, "sending again");
        rw->last_msg[0] = '\0';
    }
    rw_store_ok(rw, nsamples);
    return 1;
}

static void *rw_main(void *arg)
{
    struct gs_rw *rw = arg;
    char why[1200];
    for (;;) {
        bool past;
        bool stopping = rw_stopping(rw, &past);
        if (past)
            break;
        if (!rw->db && rw_open_db(rw, why, sizeof(why)) < 0) {
            if (stopping)
                break;
            rw_backoff(rw, why, 2000);
            rw_wait(rw, 2000, false);
            continue;
        }
        uint64_t now = gs_clock_mono_ns();
        if (stopping && now < rw->next_try_ns) { /* a backoff the stop cut short: its rest, within the drain */
            uint64_t until = rw->next_try_ns < rw->drain_until_ns ? rw->next_try_ns : rw->drain_until_ns;
            struct timespec ts = { (time_t)((until - now) / 1000000000u), (long)((until - now) % 1000000000u) };
            nanosleep(&ts, NULL);
            continue;
        }
        int64_t wait = 0;
        int r = rw_batch(rw, &wait);
        if (r > 0)
            continue;
        if (stopping && r == 0)
            break; /* all sent */
        if (r < 0) { /* retry after wait (the rest of it after a stop: above); what is left stays queued */
            rw->next_try_ns = gs_clock_mono_ns() + (uint64_t)wait * 1000000u;
            if (!stopping)
                rw_wait(rw, wait, false);
            continue;
        }
        if (rw->wm_dirty)
            rw_store_ok(rw, 0);
        rw_wait(rw, 1000, true);
    }
    if (rw->db && rw->wm_dirty)
        rw_store_ok(rw, 0);
    return NULL;
}

void gs_rw_url_public(const char *url, char *out, size_t len)
{
    const char *s = strstr(url, "://");
    const char *host = s ? s + 3 : url;
    const char *at = strchr(host, '@'), *slash = strchr(host, '/');
    if (at && (!slash || at < slash))
        snprintf(out, len, "%.*s%s", (int)(host - url), url, at + 1);
    else
        snprintf(out, len, "%s", url);
}

int gs_rw_start(struct gs_rw **out, const struct gs_rw_cfg *cfg, const char *db_path, int64_t start_ms,
                bool quiet, struct gs_err *err)
{
    struct gs_rw *rw = calloc(1, sizeof(*rw));
    char host[256] = "";
    if (!rw)
        return gs_err_set(err, GS_E_NOMEM, "remote write: out of memory");
    rw->cfg = cfg;
    rw->start_ms = start_ms;
    rw->quiet = quiet;
    snprintf(rw->db_path, sizeof(rw->db_path), "%s", db_path);
    gs_rw_url_public(cfg->url, rw->url, sizeof(rw->url));
    gethostname(host, sizeof(host) - 1);
    pthread_mutex_init(&rw->mu, NULL);
    pthread_cond_init(&rw->cv, NULL);
    if (gs_rw_enc_new(&rw->enc, host, cfg, err) < 0 || gs_rw_http_new(&rw->http, cfg, err) < 0)
        goto fail;
    int rc = pthread_create(&rw->th, NULL, rw_main, rw);
    if (rc) {
        gs_err_set(err, GS_E_INTERNAL, "remote write: cannot start the sender thread: %s (process limits?)",
                   strerror(rc));
        goto fail;
    }
    pthread_setname_np(rw->th, "gs-rw"); /* bench/remote-write.sh measures this thread's CPU */
    if (!quiet)
        fprintf(stderr, "gpuscope record: remote write to %s (queued in %s)\n", rw->url, db_path);
    *out = rw;
    return 0;
fail:
    gs_rw_enc_free(rw->enc);
    gs_rw_http_free(rw->http);
    free(rw);
    return -err->code;
}

void gs_rw_notify(struct gs_rw *rw)
{
    if (!rw)
        return;
    pthread_mutex_lock(&rw->mu);
    rw->notified = true;
    pthread_cond_signal(&rw->cv);
    pthread_mutex_unlock(&rw->mu);
}

void gs_rw_stop(struct gs_rw *rw, int64_t drain_ms)
{
    if (!rw)
        return;
    uint64_t until = gs_clock_mono_ns() + (uint64_t)drain_ms * 1000000u;
    pthread_mutex_lock(&rw->mu);
    rw->stop = true;
    rw->drain_until_ns = until;
    pthread_cond_signal(&rw->cv);
    pthread_mutex_unlock(&rw->mu);
    /* a request still running at the deadline is cut short (its batch stays queued) */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(drain_ms / 1000) + 1;
    if (pthread_timedjoin_np(rw->th, NULL, &ts) != 0) {
        rw->abort_now = 1;
        pthread_join(rw->th, NULL);
    }
    rw_close_db(rw);
    gs_rw_enc_free(rw->enc);
    gs_rw_http_free(rw->http);
    free(rw->rows);
    pthread_mutex_destroy(&rw->mu);
    pthread_cond_destroy(&rw->cv);
    free(rw);
}
