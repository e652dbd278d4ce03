/* SPDX-License-Identifier: MIT */
/*
 * http_guard.c - request deadlines, eviction at the connection limit and
 * rate-limited logging for the exporter's HTTP side (see http_guard.h).
 *   1. the table of connections (insert, remove, evict)
 *   2. the reaper thread (sleeps while there is nothing to watch)
 *   3. the log limiter
 */
#include "serve/http_guard.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/clock.h"

#define GUARD_LOG_BURST 10          /* lines per window */
/* libmicrohttpd's own limit is above --max-connections, so that the guard sees the
 * connection that goes over and can evict an idle one for it, or mark it for a 503 */
#define GUARD_HARD_EXTRA 16
#define GUARD_BURST_EXTRA 1024      /* connections libmicrohttpd holds beyond --max-connections (a burst waits there) */
#define GUARD_FD_RESERVE 128        /* descriptors kept for NVML, /proc, the database, logs */
#define GUARD_LOG_WINDOW_MS 60000

struct gs_http_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;            /* CLOCK_MONOTONIC */
    pthread_t thread;
    bool stop;
    uint32_t deadline_ms, soft_limit, per_ip;
    uint32_t grace_ms;              /* a connection without a whole request is evictable after this */
    uint32_t high_water;            /* beyond this many, the reaper closes them after grace_ms */
    struct gs_http_conn *head, *tail; /* oldest first (by since_ms: moved to the tail when idle again) */
    uint32_t n;
    uint32_t nclosing;              /* of which shut down by the guard, on their way out */
    uint32_t nover;                 /* of which marked over (not closing) */
    struct gs_http_guard_stats st;
    /* the log limiter */
    pthread_mutex_t log_lock;
    uint64_t log_window_ms;
    unsigned log_lines;
    unsigned long log_dropped;
};

/* ---- 1. the table ----------------------------------------------------------------------- */

static void guard_unlink(struct gs_http_guard *g, struct gs_http_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        g->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        g->tail = c->prev;
    c->prev = c->next = NULL;
    g->n--;
}

static void guard_append(struct gs_http_guard *g, struct gs_http_conn *c)
{
    c->prev = g->tail;
    c->next = NULL;
    if (g->tail)
        g->tail->next = c;
    else
        g->head = c;
    g->tail = c;
    g->n++;
}

/* Whom the guard may close to make room: idle connections whose last answer was an
 * error (401, 429, 400...), those that have not sent a whole request for the grace
 * period (slow, or still in their handshake), idle keep-alive ones. */
enum guard_pass { GUARD_FAILED, GUARD_UNSENT, GUARD_KEPT };

/* Connections that count toward the limits: neither closing nor over. */
static uint32_t guard_live(const struct gs_http_guard *g)
{
    return g->n - g->nclosing - g->nover;
}

/* Shut c down (once); the caller holds the lock, so c's descriptor is still open. */
static void guard_shut(struct gs_http_guard *g, struct gs_http_conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    g->nclosing++;
    g->nover -= c->over;
    shutdown(c->fd, SHUT_RDWR);
}

/* Which connections may be closed to make room, oldest first (enum guard_pass). */
static bool guard_evictable(const struct gs_http_guard *g, const struct gs_http_conn *o, int pass,
                            uint64_t now)
{
    if (o->busy || o->closing || o->over)
        return false;
    if (pass == GUARD_FAILED)
        return o->served && o->failed;
    if (pass == GUARD_UNSENT) /* younger: perhaps a burst's request not read yet, unless near the hard limit */
        return !o->served && now - o->since_ms >= g->grace_ms;
    return o->served && !o->ending;
}

/* Close one connection, trying the passes in passes[0..npass), to make room for c; false when none may be closed. */
static bool guard_evict(struct gs_http_guard *g, const struct gs_http_conn *c, const int *passes, int npass)
{
    uint64_t now = (uint64_t)gs_clock_mono_ms();
    for (int i = 0; i < npass; i++)
        for (struct gs_http_conn *o = g->head; o; o = o->next)
            if (o != c && guard_evictable(g, o, passes[i], now)) {
                guard_shut(g, o);
                g->st.evicted++;
                return true;
            }
    return false;
}

/* The same client address (not port). */
static bool guard_same_addr(const struct gs_http_conn *a, const struct gs_http_conn *b)
{
    if (!a->addrlen || a->addrlen != b->addrlen || a->addr.ss_family != b->addr.ss_family)
        return false;
    if (a->addr.ss_family == AF_INET)
        return ((const struct sockaddr_in *)&a->addr)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)&b->addr)->sin_addr.s_addr;
    if (a->addr.ss_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)&a->addr)->sin6_addr,
                       &((const struct sockaddr_in6 *)&b->addr)->sin6_addr, sizeof(struct in6_addr));
    return false;
}

/* Connections from c's address that are neither closing nor over. */
static uint32_t guard_from_addr(const struct gs_http_guard *g, const struct gs_http_conn *c)
{
    uint32_t n = 0;
    for (const struct gs_http_conn *o = g->head; o; o = o->next)
        n += o != c && !o->closing && !o->over && guard_same_addr(o, c);
    return n;
}

static void guard_mark_over(struct gs_http_guard *g, struct gs_http_conn *c)
{
    c->over = true;
    g->nover++;
    g->st.over++;
}

/* Connections that count and are admitted (answered, or kept alive after an answer). */
static uint32_t guard_admitted(const struct gs_http_guard *g, const struct gs_http_conn *c)
{
    uint32_t n = 0;
    for (const struct gs_http_conn *o = g->head; o; o = o->next)
        n += o != c && !o->closing && !o->over && (o->busy || (o->served && !o->ending));
    return n;
}

/* A new connection is admitted to send its request: a slot is made for it when one
 * may be, otherwise it waits (held by libmicrohttpd, bounded by its hard limit). */
void gs_http_guard_started(struct gs_http_guard *g, struct gs_http_conn *c)
{
    static const int passes[] = { GUARD_FAILED, GUARD_UNSENT };
    c->since_ms = (uint64_t)gs_clock_mono_ms();
    c->busy = c->closing = c->served = c->failed = c->over = c->ending = false;
    pthread_mutex_lock(&g->lock);
    guard_append(g, c);
    if (g->per_ip && guard_from_addr(g, c) >= g->per_ip)
        guard_mark_over(g, c);
    else if (guard_live(g) > g->soft_limit)
        guard_evict(g, c, passes, 2);
    if (g->n == 1 || guard_live(g) == g->high_water + 1) /* the first, or now crowded: reap sooner */
        pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
}

void gs_http_guard_closed(struct gs_http_guard *g, struct gs_http_conn *c)
{
    pthread_mutex_lock(&g->lock);
    if (c->closing)
        g->nclosing--;
    else
        g->nover -= c->over;
    guard_unlink(g, c);
    pthread_mutex_unlock(&g->lock);
}

/* A whole request: answered when fewer than soft_limit others are (or kept alive),
 * or when an idle one can be closed for it; otherwise marked over (503). */
void gs_http_guard_busy(struct gs_http_guard *g, struct gs_http_conn *c)
{
    static const int passes[] = { GUARD_FAILED, GUARD_KEPT };
    pthread_mutex_lock(&g->lock);
    if (!c->served && !c->over && !c->closing && guard_admitted(g, c) >= g->soft_limit &&
        !guard_evict(g, c, passes, 2))
        guard_mark_over(g, c);
    c->busy = true;
    pthread_mutex_unlock(&g->lock);
}

void gs_http_guard_idle(struct gs_http_guard *g, struct gs_http_conn *c)
{
    pthread_mutex_lock(&g->lock);
    c->busy = false;
    c->served = true;
    c->since_ms = (uint64_t)gs_clock_mono_ms();
    guard_unlink(g, c); /* keep the table ordered by since_ms: the reaper stops at the first young one */
    guard_append(g, c);
    pthread_mutex_unlock(&g->lock);
}

void gs_http_guard_stats(struct gs_http_guard *g, struct gs_http_guard_stats *out)
{
    pthread_mutex_lock(&g->lock);
    *out = g->st;
    out->open = g->n;
    pthread_mutex_unlock(&g->lock);
}

/* How many connections libmicrohttpd holds: --max-connections, and room for a
 * burst to be answered 503 (GUARD_BURST_EXTRA), within the descriptors this
 * process may open (its soft limit raised to the hard one, as Go does); what
 * comes beyond waits in the listen backlog. */
unsigned gs_http_guard_hard_limit(uint32_t max_connections)
{
    struct rlimit rl;
    unsigned want = max_connections + GUARD_BURST_EXTRA;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return max_connections + GUARD_HARD_EXTRA;
    if (rl.rlim_cur < rl.rlim_max) {
        rlim_t cur = rl.rlim_cur;
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            rl.rlim_cur = cur;
    }
    rlim_t room = rl.rlim_cur > GUARD_FD_RESERVE ? rl.rlim_cur - GUARD_FD_RESERVE : 0;
    if (room < want)
        want = room > max_connections + GUARD_HARD_EXTRA ? (unsigned)room : max_connections + GUARD_HARD_EXTRA;
    return want;
}

/* ---- 2. the reaper ------------------------------------------------------------------------ */

/* Shut down every connection past its deadline, and, while more than high_water
 * are open, every one that has not sent a whole request within the grace period;
 * returns when the next one is due (0: none). */
static uint64_t guard_reap(struct gs_http_guard *g, uint64_t now)
{
    bool crowded = guard_live(g) > g->high_water;
    uint64_t next = 0;
    for (struct gs_http_conn *c = g->head; c; c = c->next) {
        if (c->busy || c->closing)
            continue;
        bool early = crowded && !c->served;
        uint64_t due = c->since_ms + (early ? g->grace_ms : g->deadline_ms);
        if (due <= now) {
            guard_shut(g, c);
            if (early)
                g->st.evicted++;
            else
                g->st.deadline_closed++;
        } else if (!next || due < next) {
            next = due;
            if (!crowded)
                break; /* ordered by since_ms: the rest are younger */
        }
    }
    /* busy or closing connections alone: look again after a deadline */
    if (!next && g->n)
        next = now + g->deadline_ms;
    return next;
}

static void *guard_thread(void *arg)
{
    struct gs_http_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stop) {
        uint64_t next = guard_reap(g, (uint64_t)gs_clock_mono_ms());
        if (!next) {
            pthread_cond_wait(&g->wake, &g->lock); /* nothing to watch: sleep until a connection */
            continue;
        }
        struct timespec ts = { (time_t)(next / 1000u), (long)(next % 1000u) * 1000000L };
        pthread_cond_timedwait(&g->wake, &g->lock, &ts);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

struct gs_http_guard *gs_http_guard_new(uint32_t deadline_ms, uint32_t soft_limit, uint32_t per_ip)
{
    struct gs_http_guard *g = calloc(1, sizeof(*g));
    pthread_condattr_t ca;

    if (!g)
        return NULL;
    g->deadline_ms = deadline_ms ? deadline_ms : 1;
    g->soft_limit = soft_limit ? soft_limit : 1;
    g->per_ip = per_ip;
    g->grace_ms = g->deadline_ms / 2;
    /* half of the extra room libmicrohttpd holds */
    g->high_water = g->soft_limit + (gs_http_guard_hard_limit(g->soft_limit) - g->soft_limit) / 2;
    pthread_mutex_init(&g->lock, NULL);
    pthread_mutex_init(&g->log_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&g->thread, NULL, guard_thread, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        pthread_mutex_destroy(&g->log_lock);
        free(g);
        return NULL;
    }
    return g;
}

/* After libmicrohttpd stopped (every connection closed, the table empty). */
void gs_http_guard_free(struct gs_http_guard *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->lock);
    g->stop = true;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->thread, NULL);
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    pthread_mutex_destroy(&g->log_lock);
    free(g);
}

/* ---- 3. logging ------------------------------------------------------------------------------ */

void gs_http_guard_log(struct gs_http_guard *g, const char *msg)
{
    uint64_t now = (uint64_t)gs_clock_mono_ms();
    unsigned long dropped = 0;
    bool print;

    pthread_mutex_lock(&g->log_lock);
    if (now - g->log_window_ms >= GUARD_LOG_WINDOW_MS || !g->log_window_ms) {
        dropped = g->log_dropped;
        g->log_dropped = 0;
        g->log_lines = 0;
        g->log_window_ms = now;
    }
    print = g->log_lines < GUARD_LOG_BURST;
    if (print)
        g->log_lines++;
    else
        g->log_dropped++;
    pthread_mutex_unlock(&g->log_lock);
    if (dropped)
        fprintf(stderr, "gpuscope serve: http: %lu more messages in the last minute not shown\n", dropped);
    if (print)
        fprintf(stderr, "gpuscope serve: http: %s\n", msg);
}
