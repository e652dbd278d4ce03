/* SPDX-License-Identifier: MIT */
/*
 * webauth.h - basic auth that bad passwords cannot use to starve scrapes.
 *
 * A bcrypt check costs tens of milliseconds (cost 10: ~45-70 ms); done on
 * libmicrohttpd's two HTTP threads, 40 clients looping over wrong passwords
 * kept both busy and pushed a legitimate scrape to ~1 s. So:
 *   - a password that verified is remembered (as a keyed SHA-256 of user and
 *     password, never in clear) per user: Prometheus's scrapes cost one
 *     HMAC and a constant-time compare;
 *   - a recent failure is remembered the same way and refused at once;
 *   - everything else is checked on one verifier thread, never on an HTTP
 *     thread (the request is suspended meanwhile): at most one bcrypt at a
 *     time, failures may use at most a quarter of one core (after a failed
 *     check that cost t ms of CPU the next waits 3t), at most 8 checks wait (each
 *     holds a suspended connection), one per client address, and the client
 *     that tried least lately goes first (requests that did not wait for
 *     Retry-After count as tries, failed checks as 8; a full queue drops the
 *     job of the one that tried hardest for it), so a flood cannot delay a
 *     new client's first check by more than a few checks; past that, 429 Too Many
 *     Requests at once, with Connection: close (as for a 401);
 *   - an unknown user is checked against a dummy hash of the configured
 *     users' highest cost, and every failure is answered no sooner than the
 *     time a check at that cost takes, so neither a user's existence nor
 *     their hash's cost shows in the timing.
 */
#ifndef GS_SERVE_WEBAUTH_H
#define GS_SERVE_WEBAUTH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "core/err.h"
#include "serve/webcfg.h"

enum gs_auth_result {
    GS_AUTH_OK = 0,
    GS_AUTH_FAIL,     /* 401 */
    GS_AUTH_BUSY,     /* 429: too many checks waiting (or the server is stopping) */
    GS_AUTH_PENDING,  /* the check runs on the verifier thread; done() will be called */
};

/* One check waiting for the verifier (owned by the caller, e.g. a request). */
struct gs_auth_job {
    struct gs_auth_job *next;
    void (*done)(void *arg);          /* called once from the verifier thread when result is set */
    void *arg;
    enum gs_auth_result result;
    int user;                         /* index in the config, -1: unknown */
    unsigned char digest[32];         /* HMAC of user and password */
    unsigned char addr[16];           /* the client, for turns */
    uint64_t queued_ms, release_ms;
    char password[256];               /* cleared as soon as it is checked */
};

struct gs_webauth;

/* For the users of wc (which must outlive it): makes the dummy hash and
 * starts the verifier thread. prev: the previous instance (a reload), whose
 * remembered passwords carry over for users whose hash did not change; may
 * be NULL. */
int gs_webauth_new(struct gs_webauth **out, const struct gs_webcfg *wc, const struct gs_webauth *prev,
                   struct gs_err *err);
/* Stops the thread: every waiting job is finished (GS_AUTH_BUSY, or FAIL for
 * the ones held for their padding) before it returns; later lookups answer
 * BUSY and enqueue finishes at once. Lookups may still run meanwhile. */
void gs_webauth_stop(struct gs_webauth *a);
/* Stop (if not yet) and free; no lookup may run any more. */
void gs_webauth_free(struct gs_webauth *a);

/* Look user:password from addr up: OK or FAIL when remembered, BUSY when
 * too many checks wait (for this address or in all), else PENDING with job
 * filled in for gs_webauth_enqueue (nothing is queued yet, so the caller can
 * suspend its request first). */
enum gs_auth_result gs_webauth_lookup(struct gs_webauth *a, const char *user, const char *password,
                                      const struct sockaddr *addr, struct gs_auth_job *job);
/* Queue a job lookup answered PENDING: done(arg) is called once, with
 * job->result set, from the verifier thread (or from here with GS_AUTH_BUSY
 * when the verifier is stopping). job must stay valid until then. */
void gs_webauth_enqueue(struct gs_webauth *a, struct gs_auth_job *job, void (*done)(void *), void *arg);

/* Counters for tests and the bench. */
struct gs_webauth_stats {
    uint64_t checks;       /* bcrypt checks done */
    uint64_t failures;     /* of which failed */
    uint64_t refused_busy; /* answered GS_AUTH_BUSY */
    uint64_t cache_hits;   /* answered from the remembered passwords (good or bad) */
    double pad_ms;         /* the time every failure takes at least */
};
void gs_webauth_stats(struct gs_webauth *a, struct gs_webauth_stats *out);

#endif /* GS_SERVE_WEBAUTH_H */
