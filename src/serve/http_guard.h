/* SPDX-License-Identifier: MIT */
/*
 * http_guard.h - what keeps slow and hostile clients from locking Prometheus
 * out (http.c wires it into libmicrohttpd's callbacks):
 *
 *   - a deadline for receiving a whole request: from the moment a connection
 *     is accepted (or its previous response was sent) until its request's
 *     headers are complete, at most --timeout seconds, however slowly the
 *     bytes trickle in (libmicrohttpd's own timeout only counts idle time);
 *   - room is made at --max-connections in two steps. A new connection beyond
 *     it closes the oldest one that is not being answered: first among idle
 *     ones whose last answer was an error, then among those that have not sent
 *     a whole request for half the deadline (slow, or still in their
 *     handshake); a younger one may be a burst's connection whose request is
 *     only waiting to be read, so none is closed then and the new one waits
 *     (libmicrohttpd holds --max-connections + 1024; beyond half of that extra
 *     room the reaper closes those past the half deadline). A whole request
 *     is answered while fewer than --max-connections others are answered or
 *     kept alive, or when an idle one (an error's, then a keep-alive one) can
 *     be closed for it; otherwise it is marked "over". So every connection
 *     that sent a request gets a status, and a flood of slow connections from
 *     many addresses can neither fill every slot nor evict the scraper;
 *   - a connection beyond --max-connections-per-ip from one address is marked
 *     "over" at once. A connection marked over is answered 503 with
 *     Retry-After (http.c) rather than closed silently, and counts toward no
 *     limit of the others;
 *   - rate-limited logging, so a flood cannot fill the journal.
 *
 * A connection is closed from the guard's thread with shutdown(2), never
 * close(2): libmicrohttpd then sees the end of the stream and cleans up in its
 * own thread. An entry leaves the table (under the guard's lock) before
 * libmicrohttpd closes its descriptor, so a descriptor is never shut down
 * after it was reused.
 */
#ifndef GS_SERVE_HTTP_GUARD_H
#define GS_SERVE_HTTP_GUARD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

/* One TCP connection (libmicrohttpd's socket context). */
struct gs_http_conn {
    struct gs_http_conn *prev, *next; /* the guard's table, oldest first */
    int fd;
    uint64_t since_ms;                /* waiting for a request since (monotonic) */
    bool busy;                        /* a request is being answered: not subject to the deadline */
    bool closing;                     /* shut down by the guard */
    bool served;                      /* answered a request already (a keep-alive client) */
    bool failed;                      /* ... and the last answer was an error (set by http.c) */
    bool over;                        /* beyond a connection limit: answered 503 + Retry-After */
    bool ending;                      /* its answer closes it (set by http.c): neither counted nor evicted */
    struct sockaddr_storage addr;     /* the client */
    socklen_t addrlen;
    /* for http.c */
    void *owner;                      /* the struct gs_http serving it */
    bool cert_checked, cert_ok;       /* client certificate checked on the first request */
    uint32_t answered;                /* requests answered on this connection */
};

/* What the guard did, for the exporter's own metrics and the tests. */
struct gs_http_guard_stats {
    uint64_t deadline_closed;  /* requests that did not arrive whole in time */
    uint64_t evicted;          /* connections closed to make room at the limit */
    uint64_t over;             /* connections beyond a limit (answered 503) */
    uint32_t open;             /* connections now */
};

struct gs_http_guard;

/* deadline_ms: a whole request must arrive within it; soft_limit: make room (or
 * mark over) beyond this many connections; per_ip: mark over beyond this many
 * from one address (0: no limit). NULL on out of memory or no thread. */
struct gs_http_guard *gs_http_guard_new(uint32_t deadline_ms, uint32_t soft_limit, uint32_t per_ip);
void gs_http_guard_free(struct gs_http_guard *g);

/* libmicrohttpd's callbacks, forwarded by http.c (any thread). */
void gs_http_guard_started(struct gs_http_guard *g, struct gs_http_conn *c);
void gs_http_guard_closed(struct gs_http_guard *g, struct gs_http_conn *c);
/* Headers complete: the request is answered now (no deadline until done), or
 * marked over when --max-connections others are answered or kept alive. */
void gs_http_guard_busy(struct gs_http_guard *g, struct gs_http_conn *c);
/* Response sent: the deadline for the next request starts now. */
void gs_http_guard_idle(struct gs_http_guard *g, struct gs_http_conn *c);

void gs_http_guard_stats(struct gs_http_guard *g, struct gs_http_guard_stats *out);

/* How many connections libmicrohttpd should hold: max_connections, and room for
 * a burst to be answered 503, within the descriptors this process may open (its
 * soft RLIMIT_NOFILE raised to the hard one first, as Go does). */
unsigned gs_http_guard_hard_limit(uint32_t max_connections);

/* Log one line for the HTTP side: "gpuscope serve: http: <msg>", at most 10
 * lines a minute; the rest are counted and reported as one line when logging
 * resumes. Thread-safe. */
void gs_http_guard_log(struct gs_http_guard *g, const char *msg);

#endif /* GS_SERVE_HTTP_GUARD_H */
