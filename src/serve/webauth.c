/* SPDX-License-Identifier: MIT */
/*
 * webauth.c - basic auth checked off the HTTP threads, with bounded work on
 * failures (see webauth.h):
 *   1. keys and lookups (remembered good and bad passwords, clients' recent attempts)
 *   2. the verifier thread (one bcrypt at a time, failures' duty cycle, padding)
 *   3. life cycle (the dummy hash at the highest cost, reloads, stop)
 */
#include "serve/webauth.h"

#include <crypt.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"

#define AUTH_QUEUE_MAX 8     /* checks waiting, in all (each holds a suspended connection) */
#define AUTH_PER_ADDR 1      /* ... from one client address (an IPv6 /64) */
#define AUTH_BAD_MAX 64      /* recent failures remembered */
#define AUTH_CLIENTS 128     /* addresses remembered, with their recent attempts */
#define AUTH_DECAY_MS 10000  /* a client's attempts count halves every 10 s */
#define AUTH_FAIL_WEIGHT 8   /* a failed check counts as this many attempts */
#define AUTH_FAIL_WAIT 3     /* after a failed check of t, the next waits AUTH_FAIL_WAIT * t */
#define AUTH_RETRY_MS 1000   /* a 429's Retry-After: an attempt sooner than this after the previous one counts */

struct auth_user {
    const char *name, *hash;  /* the config's */
    unsigned char good[32];   /* HMAC of the password that verified */
    bool have_good;
};

/* A client address and how hard it has been trying lately. */
struct auth_client {
    unsigned char addr[16];
    uint64_t seen_ms;         /* its latest attempt; 0: a free entry */
    uint64_t decay_ms;        /* when attempts was last halved */
    uint32_t attempts;        /* attempts that were not a remembered success */
};

struct gs_webauth {
    const struct gs_webcfg *wc;
    unsigned char key[32];    /* HMAC key, random per process */
    char dummy[128];          /* a bcrypt hash at the users' highest cost, of a random password */
    double pad_ms;            /* every failure takes at least this long */
    struct auth_user *users;
    unsigned nusers;
    pthread_mutex_t lock;
    pthread_cond_t wake;      /* CLOCK_MONOTONIC */
    pthread_t thread;
    bool started, stop;
    unsigned char bad[AUTH_BAD_MAX][32];
    unsigned nbad, badpos;
    struct gs_auth_job *queue; /* waiting to be checked, in arrival order */
    unsigned nqueue;
    struct gs_auth_job *held;  /* failed, waiting for their release time */
    struct auth_client clients[AUTH_CLIENTS];
    uint64_t next_check_ms;    /* no check starts before (the failures' budget) */
    struct gs_webauth_stats st;
};

/* CPU time of the calling thread: what a check cost, however loaded the machine. */
static uint64_t auth_cpu_us(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---- 1. keys and lookups ------------------------------------------------------------------ */

static bool auth_equal(const unsigned char *a, const unsigned char *b)
{
    unsigned char d = 0;
    for (int i = 0; i < 32; i++)
        d |= a[i] ^ b[i];
    return d == 0;
}

static int auth_digest(const struct gs_webauth *a, const char *user, const char *password, unsigned char out[32])
{
    size_t ul = strlen(user), pl = strlen(password);
    char buf[768];
    if (ul + pl + 1 > sizeof(buf))
        return -1;
    memcpy(buf, user, ul);
    buf[ul] = '\0';
    memcpy(buf + ul + 1, password, pl);
    int rc = gnutls_hmac_fast(GNUTLS_MAC_SHA256, a->key, sizeof(a->key), buf, ul + 1 + pl, out);
    explicit_bzero(buf, sizeof(buf));
    return rc < 0 ? -1 : 0;
}

/* The key of a client: its IPv4 address (as ::ffff:a.b.c.d), or its IPv6 /64. */
static void auth_addr_key(const struct sockaddr *sa, unsigned char out[16])
{
    memset(out, 0, 16);
    if (sa && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        out[10] = out[11] = 0xff;
        memcpy(out + 12, &in->sin_addr, 4);
    } else if (sa && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
            memcpy(out, &in6->sin6_addr, 16);
        else
            memcpy(out, &in6->sin6_addr, 8);
    }
}

static int auth_find_user(const struct gs_webauth *a, const char *user)
{
    int found = -1;
    for (unsigned i = 0; i < a->nusers; i++) /* no early exit: every name is compared */
        if (!strcmp(a->users[i].name, user))
            found = (int)i;
    return found;
}

static bool auth_is_bad(const struct gs_webauth *a, const unsigned char *d)
{
    bool hit = false;
    for (unsigned i = 0; i < a->nbad; i++)
        hit |= auth_equal(a->bad[i], d);
    return hit;
}

static unsigned auth_pending_from(const struct gs_webauth *a, const unsigned char *addr)
{
    unsigned n = 0;
    for (const struct gs_auth_job *j = a->queue; j; j = j->next)
        n += !memcmp(j->addr, addr, 16);
    return n;
}

/* The attempts of addr lately (0: not remembered), decayed to now. */
static uint32_t auth_attempts(struct gs_webauth *a, const unsigned char *addr, uint64_t now)
{
    for (unsigned i = 0; i < AUTH_CLIENTS; i++) {
        struct auth_client *c = &a->clients[i];
        if (!c->seen_ms || memcmp(c->addr, addr, 16))
            continue;
        for (; now - c->decay_ms >= AUTH_DECAY_MS && c->attempts; c->decay_ms += AUTH_DECAY_MS)
            c->attempts /= 2;
        return c->attempts;
    }
    return 0;
}

/* Was addr's previous attempt less than Retry-After ago? A client that
 * honours Retry-After (Prometheus retries at its next scrape) gathers no
 * attempts by being refused; one that hammers does. */
static bool auth_hasty(const struct gs_webauth *a, const unsigned char *addr, uint64_t now)
{
    for (unsigned i = 0; i < AUTH_CLIENTS; i++)
        if (a->clients[i].seen_ms && !memcmp(a->clients[i].addr, addr, 16))
            return now - a->clients[i].seen_ms < AUTH_RETRY_MS;
    return false;
}

/* Count attempts of addr (in place of the client seen longest ago). */
static void auth_attempt(struct gs_webauth *a, const unsigned char *addr, uint64_t now, uint32_t weight)
{
    struct auth_client *c = &a->clients[0];
    uint32_t n = auth_attempts(a, addr, now);
    for (unsigned i = 0; i < AUTH_CLIENTS; i++) {
        if (a->clients[i].seen_ms && !memcmp(a->clients[i].addr, addr, 16)) {
            c = &a->clients[i];
            break;
        }
        if (a->clients[i].seen_ms < c->seen_ms)
            c = &a->clients[i];
    }
    if (!c->seen_ms || memcmp(c->addr, addr, 16)) {
        memcpy(c->addr, addr, 16);
        c->decay_ms = now;
        n = 0;
    }
    c->attempts = n + weight;
    c->seen_ms = now ? now : 1;
}

/* The queue is full and mine (from an address with none queued) arrives: make
 * room by dropping (BUSY) the job of the address that tried hardest lately,
 * if it tried harder than mine. Returns the job dropped (unlinked, to be
 * finished by the caller) or NULL. */
static struct gs_auth_job *auth_make_room(struct gs_webauth *a, uint32_t mine, uint64_t now)
{
    struct gs_auth_job **victim = NULL;
    uint32_t most = mine;
    for (struct gs_auth_job **p = &a->queue; *p; p = &(*p)->next) {
        uint32_t n = auth_attempts(a, (*p)->addr, now);
        if (n > most) {
            most = n;
            victim = p;
        }
    }
    if (!victim)
        return NULL;
    struct gs_auth_job *j = *victim;
    *victim = j->next;
    j->next = NULL;
    a->nqueue--;
    explicit_bzero(j->password, sizeof(j->password));
    j->result = GS_AUTH_BUSY;
    return j;
}

enum gs_auth_result gs_webauth_lookup(struct gs_webauth *a, const char *user, const char *password,
                                      const struct sockaddr *addr, struct gs_auth_job *job)
{
    enum gs_auth_result r = GS_AUTH_PENDING;
    struct gs_auth_job *dropped = NULL;
    memset(job, 0, sizeof(*job));
    if (strlen(password) >= sizeof(job->password) || auth_digest(a, user, password, job->digest) < 0)
        return GS_AUTH_FAIL; /* longer than any password bcrypt reads */
    job->user = auth_find_user(a, user);
    auth_addr_key(addr, job->addr);
    uint64_t now = (uint64_t)gs_clock_mono_ms();
    pthread_mutex_lock(&a->lock);
    if (job->user >= 0 && a->users[job->user].have_good && auth_equal(a->users[job->user].good, job->digest)) {
        r = GS_AUTH_OK;
    } else {
        auth_attempt(a, job->addr, now, auth_hasty(a, job->addr, now) ? 1 : 0);
        if (auth_is_bad(a, job->digest))
            r = GS_AUTH_FAIL;
        else if (a->stop || auth_pending_from(a, job->addr) >= AUTH_PER_ADDR)
            r = GS_AUTH_BUSY;
        else if (a->nqueue >= AUTH_QUEUE_MAX &&
                 !(dropped = auth_make_room(a, auth_attempts(a, job->addr, now), now)))
            r = GS_AUTH_BUSY;
    }
    if (r == GS_AUTH_OK || r == GS_AUTH_FAIL)
        a->st.cache_hits++;
    else if (r == GS_AUTH_BUSY)
        a->st.refused_busy++;
    if (dropped)
        a->st.refused_busy++;
    pthread_mutex_unlock(&a->lock);
    if (dropped)
        dropped->done(dropped->arg);
    if (r == GS_AUTH_PENDING)
        snprintf(job->password, sizeof(job->password), "%s", password);
    return r;
}

void gs_webauth_enqueue(struct gs_webauth *a, struct gs_auth_job *job, void (*done)(void *), void *arg)
{
    job->done = done;
    job->arg = arg;
    job->queued_ms = (uint64_t)gs_clock_mono_ms();
    job->next = NULL;
    pthread_mutex_lock(&a->lock);
    if (a->stop) {
        pthread_mutex_unlock(&a->lock);
        explicit_bzero(job->password, sizeof(job->password));
        job->result = GS_AUTH_BUSY;
        done(arg);
        return;
    }
    struct gs_auth_job **tail = &a->queue;
    while (*tail)
        tail = &(*tail)->next;
    *tail = job;
    a->nqueue++;
    pthread_cond_signal(&a->wake);
    pthread_mutex_unlock(&a->lock);
}

/* ---- 2. the verifier --------------------------------------------------------------------------- */

/* The next job to check: the one whose address tried least lately (a new
 * client before one that keeps guessing), the oldest among equals. Unlinks it. */
static struct gs_auth_job *auth_take(struct gs_webauth *a)
{
    struct gs_auth_job **best = NULL;
    uint32_t least = UINT32_MAX;
    uint64_t now = (uint64_t)gs_clock_mono_ms();
    for (struct gs_auth_job **p = &a->queue; *p; p = &(*p)->next) {
        uint32_t n = auth_attempts(a, (*p)->addr, now);
        if (n < least) {
            least = n;
            best = p;
        }
    }
    struct gs_auth_job *j = *best;
    *best = j->next;
    j->next = NULL;
    a->nqueue--;
    return j;
}

static void auth_remember_bad(struct gs_webauth *a, const unsigned char *d)
{
    memcpy(a->bad[a->badpos], d, 32);
    a->badpos = (a->badpos + 1) % AUTH_BAD_MAX;
    if (a->nbad < AUTH_BAD_MAX)
        a->nbad++;
}

/* Check one job (the lock is dropped around bcrypt). Returns it when it is
 * to be finished now, NULL when it waits in held for its release time. */
static struct gs_auth_job *auth_check_one(struct gs_webauth *a, struct gs_auth_job *j)
{
    const char *hash = j->user >= 0 ? a->users[j->user].hash : a->dummy;
    pthread_mutex_unlock(&a->lock);
    uint64_t t0 = (uint64_t)gs_clock_mono_ms(), cpu0 = auth_cpu_us();
    /* an unknown user is checked against the dummy: the same work as the costliest user */
    bool ok = gs_bcrypt_verify(j->password, hash) && j->user >= 0;
    explicit_bzero(j->password, sizeof(j->password));
    /* the failures' budget is in CPU time: on a loaded machine the wall time of
     * a check grows, and waiting 3x that would starve good clients for nothing */
    uint64_t now = (uint64_t)gs_clock_mono_ms(), took = (auth_cpu_us() - cpu0 + 999) / 1000;
    pthread_mutex_lock(&a->lock);
    a->st.checks++;
    if (ok) {
        memcpy(a->users[j->user].good, j->digest, 32);
        a->users[j->user].have_good = true;
        j->result = GS_AUTH_OK;
        return j;
    }
    a->st.failures++;
    auth_remember_bad(a, j->digest);
    auth_attempt(a, j->addr, now, AUTH_FAIL_WEIGHT); /* a wrong guess: to the back of the line */
    a->next_check_ms = now + AUTH_FAIL_WAIT * (took ? took : 1);
    j->result = GS_AUTH_FAIL;
    /* whole milliseconds: t0 and the clock compared with it are truncated, so one more
     * keeps every failure at least pad_ms long */
    j->release_ms = t0 + (uint64_t)ceil(a->pad_ms) + 1;
    if (j->release_ms <= now)
        return j;
    j->next = a->held;
    a->held = j;
    return NULL;
}

/* Unlink the held jobs due by now into *out; returns the next release time (0: none). */
static uint64_t auth_due(struct gs_webauth *a, uint64_t now, struct gs_auth_job **out)
{
    uint64_t next = 0;
    for (struct gs_auth_job **p = &a->held; *p;) {
        struct gs_auth_job *j = *p;
        if (j->release_ms <= now || a->stop) {
            *p = j->next;
            j->next = *out;
            *out = j;
        } else {
            next = !next || j->release_ms < next ? j->release_ms : next;
            p = &j->next;
        }
    }
    return next;
}

/* Call done() for a list of finished jobs, without the lock (done resumes an
 * HTTP request, which may call back into lookup). */
static void auth_finish(struct gs_webauth *a, struct gs_auth_job *list)
{
    pthread_mutex_unlock(&a->lock);
    while (list) {
        struct gs_auth_job *j = list;
        list = j->next;
        j->next = NULL;
        j->done(j->arg); /* j may be gone after this */
    }
    pthread_mutex_lock(&a->lock);
}

static void auth_wait_until(struct gs_webauth *a, uint64_t ms)
{
    if (!ms) {
        pthread_cond_wait(&a->wake, &a->lock);
        return;
    }
    struct timespec ts = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };
    pthread_cond_timedwait(&a->wake, &a->lock, &ts);
}

static void *auth_thread(void *arg)
{
    struct gs_webauth *a = arg;
    pthread_mutex_lock(&a->lock);
    for (;;) {
        struct gs_auth_job *done = NULL;
        uint64_t now = (uint64_t)gs_clock_mono_ms();
        uint64_t next = auth_due(a, now, &done);
        if (a->stop) {
            for (struct gs_auth_job *j; (j = a->queue);) {
                a->queue = j->next;
                a->nqueue--;
                explicit_bzero(j->password, sizeof(j->password));
                j->result = GS_AUTH_BUSY;
                j->next = done;
                done = j;
            }
            auth_finish(a, done);
            break;
        }
        if (a->queue && now >= a->next_check_ms) {
            struct gs_auth_job *j = auth_check_one(a, auth_take(a));
            if (j) {
                j->next = done;
                done = j;
            }
            auth_finish(a, done);
            continue;
        }
        if (done) {
            auth_finish(a, done);
            continue;
        }
        if (a->queue && (!next || a->next_check_ms < next))
            next = a->next_check_ms;
        auth_wait_until(a, next);
    }
    pthread_mutex_unlock(&a->lock);
    return NULL;
}

/* ---- 3. life cycle ------------------------------------------------------------------------------ */

/* A bcrypt hash of a random password at cost, and how long checking one took. */
static int auth_make_dummy(struct gs_webauth *a, int cost, struct gs_err *err)
{
    char salt[64], pw[33];
    unsigned char rnd[16];
    struct crypt_data *cd = calloc(1, sizeof(*cd));
    if (!cd)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (gnutls_rnd(GNUTLS_RND_NONCE, rnd, sizeof(rnd)) < 0 ||
        !crypt_gensalt_rn("$2b$", (unsigned long)cost, (const char *)rnd, sizeof(rnd), salt, sizeof(salt))) {
        free(cd);
        return gs_err_set(err, GS_E_INTERNAL, "cannot make a bcrypt salt (libxcrypt): %s", strerror(errno));
    }
    for (int i = 0; i < 32; i++)
        pw[i] = (char)('a' + rnd[i % 16] % 26);
    pw[32] = '\0';
    const char *h = crypt_rn(pw, salt, cd, (int)sizeof(*cd));
    if (h && h[0] == '$')
        snprintf(a->dummy, sizeof(a->dummy), "%s", h);
    explicit_bzero(cd, sizeof(*cd));
    free(cd);
    if (!a->dummy[0])
        return gs_err_set(err, GS_E_INTERNAL, "libxcrypt cannot make bcrypt hashes of cost %d", cost);
    /* the pad: one check at that cost, timed (the hash was just made the same way) */
    uint64_t t0 = (uint64_t)gs_clock_mono_ms();
    (void)gs_bcrypt_verify("not the password", a->dummy);
    uint64_t took = (uint64_t)gs_clock_mono_ms() - t0;
    a->pad_ms = (double)(took ? took : 1) * 1.25;
    return 0;
}

static void auth_carry_over(struct gs_webauth *a, const struct gs_webauth *prev)
{
    memcpy(a->key, prev->key, sizeof(a->key));
    for (unsigned i = 0; i < a->nusers; i++)
        for (unsigned k = 0; k < prev->nusers; k++)
            if (!strcmp(a->users[i].name, prev->users[k].name) && !strcmp(a->users[i].hash, prev->users[k].hash) &&
                prev->users[k].have_good) {
                memcpy(a->users[i].good, prev->users[k].good, 32);
                a->users[i].have_good = true;
            }
}

int gs_webauth_new(struct gs_webauth **out, const struct gs_webcfg *wc, const struct gs_webauth *prev,
                   struct gs_err *err)
{
    struct gs_webauth *a = calloc(1, sizeof(*a));
    pthread_condattr_t ca;
    int maxcost = 4, rc = 0;

    *out = NULL;
    if (!a || !(a->users = calloc(gs_webcfg_nusers(wc) ? gs_webcfg_nusers(wc) : 1, sizeof(*a->users)))) {
        free(a);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    a->wc = wc;
    a->nusers = gs_webcfg_nusers(wc);
    for (unsigned i = 0; i < a->nusers; i++) {
        a->users[i].name = gs_webcfg_user_name(wc, i);
        a->users[i].hash = gs_webcfg_user_hash_at(wc, i);
        int c = gs_bcrypt_cost(a->users[i].hash);
        maxcost = c > maxcost ? c : maxcost;
    }
    pthread_mutex_init(&a->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&a->wake, &ca);
    pthread_condattr_destroy(&ca);
    rc = 0;
    if (prev)
        auth_carry_over(a, prev);
    else if (gnutls_rnd(GNUTLS_RND_KEY, a->key, sizeof(a->key)) < 0)
        rc = gs_err_set(err, GS_E_INTERNAL, "no random numbers for the password cache (GnuTLS)");
    if (rc == 0 && a->nusers)
        rc = auth_make_dummy(a, maxcost, err);
    if (rc == 0 && a->nusers) {
        if ((rc = pthread_create(&a->thread, NULL, auth_thread, a)) != 0)
            rc = gs_err_set(err, GS_E_INTERNAL, "cannot start the password checking thread: %s", strerror(rc));
        else
            a->started = true;
    }
    if (rc < 0) {
        gs_webauth_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void gs_webauth_stop(struct gs_webauth *a)
{
    if (!a)
        return;
    pthread_mutex_lock(&a->lock);
    a->stop = true;
    pthread_cond_signal(&a->wake);
    pthread_mutex_unlock(&a->lock);
    if (a->started)
        pthread_join(a->thread, NULL);
    a->started = false;
}

void gs_webauth_free(struct gs_webauth *a)
{
    if (!a)
        return;
    gs_webauth_stop(a);
    pthread_cond_destroy(&a->wake);
    pthread_mutex_destroy(&a->lock);
    explicit_bzero(a->key, sizeof(a->key));
    free(a->users);
    free(a);
}

void gs_webauth_stats(struct gs_webauth *a, struct gs_webauth_stats *out)
{
    pthread_mutex_lock(&a->lock);
    *out = a->st;
    out->pad_ms = a->pad_ms;
    pthread_mutex_unlock(&a->lock);
}
