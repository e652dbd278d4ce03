/* SPDX-License-Identifier: MIT */
/*
 * fleetq.h - the PromQL that the fleet views (top and report with
 * --prometheus) share: which label names a node, and selectors that give
 * every series a node name whether the exporter set `Hostname` or only
 * Prometheus' `instance` is there (docs/FLEET.md).
 *
 * Nothing here talks HTTP: the strings go to the fleet module's client
 * (core/prom_api.h). Every aggregation is `by (Hostname)`, so the
 * number of requests never depends on the number of nodes.
 */
#ifndef GS_CORE_FLEETQ_H
#define GS_CORE_FLEETQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/prom_api.h"
#include "core/err.h"

/* The label every fleet query groups by. Series that lack it (a dcgm-exporter
 * started without a node name) get `instance` copied into it. */
#define GS_FLEET_HOST_LABEL "Hostname"

/* A PromQL text being built: writes never overflow; `trunc` says a write did
 * not fit (the query is then not sent: the caller reports it). */
struct gs_pq {
    char *buf;
    size_t len, cap;
    bool trunc;
    bool named;    /* every GPU series has a Hostname (gs_fleet_src_probe): plain selectors,
                    * without the label_replace() from instance (which doubles the work) */
    const char *host; /* gs_pq_sel: only this node's series (Hostname, or instance where the
                       * exporter set none); NULL: every node. Escaped when written. */
};

void gs_pq_init(struct gs_pq *q, char *buf, size_t cap);
void gs_pq_add(struct gs_pq *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A PromQL string literal (double quotes, with \\ \" \n escaped) of s. */
void gs_pq_str(struct gs_pq *q, const char *s);

/* The matcher label="value" with value a PromQL string literal (gs_pq_str):
 * a label value from the command line is never pasted into PromQL raw. */
void gs_pq_matcher(struct gs_pq *q, const char *label, const char *value);

/* Whether a label value from the command line (what names --node, --job,
 * --pod) may go into a query: -GS_E_USAGE naming `what` when it holds a
 * newline or is over GS_PQ_VALUE_MAX bytes, else 0. */
#define GS_PQ_VALUE_MAX 1024
int gs_pq_value_check(const char *what, const char *v, struct gs_err *err);

/* The selector of `metric` with the matchers `match` (the inside of the
 * --match braces, "" for none) and `extra` (more matchers, "" for none),
 * wrapped as fn(SEL[range]) when fn is not NULL (range like "1h"), and with
 * the node name in Hostname:
 *   (fn(metric{match,extra,Hostname!=""}[range])
 *    or label_replace(fn(metric{match,extra,Hostname=""}[range]),"Hostname","$1","instance","(.*)"))
 * With q->host set, Hostname="host" in the first and Hostname="",instance="host"
 * in the second (q->named: Hostname="host" alone). */
void gs_pq_sel(struct gs_pq *q, const char *match, const char *metric, const char *extra,
               const char *fn, const char *range);

/* The node of every scrape target: `group by (instance, job, Hostname)`
 * over dcgm-exporter's GPU series (Hostname from instance where missing),
 * only node `host`'s when host is not NULL. gpuscope serve's own families
 * (gpuscope_*) carry no Hostname; joined to this on (instance, job) they get
 * the one of the same exporter:
 *   X * on (instance, job) group_left (Hostname) <hosts> */
void gs_pq_hosts(struct gs_pq *q, const char *match, const char *host);
#define GS_PQ_JOIN " * on (instance, job) group_left (" GS_FLEET_HOST_LABEL ") "

/* The series of node `host` whose names match the regex `names` (and the
 * matchers `extra`), names kept (one node's GPUs):
 *   {__name__=~"names",match,extra} and on (instance, job) <hosts of host> */
void gs_pq_node(struct gs_pq *q, const char *match, const char *names, const char *extra,
                const char *host);

/* The inside of a `{...}` selector printed by the client's selector()
 * (`{a="b"}` -> `a="b"`) into out ("" when sel is ""). -1 when sel is not
 * a `{...}` or does not fit: never a silently dropped --match. */
int gs_pq_match_inner(const char *sel, char *out, size_t len);

/* The client (module fleet.so) and what every query needs from the command line. */
struct gs_fleet_src {
    const struct gs_prom_api *api;
    struct gs_prom *p;
    char match[1024];          /* inside of the --match braces */
    bool named;                /* the last probe found no GPU series without a Hostname */
    atomic_bool cancel;        /* set by another thread: stop between requests (top quitting) */
};

/* Load the fleet module, open the endpoint. 0 or negative gs_errc. */
int gs_fleet_src_open(struct gs_fleet_src *s, const struct gs_prom_opts *po, struct gs_err *err);
void gs_fleet_src_close(struct gs_fleet_src *s);
/* One instant query: are there GPU series without a Hostname (then the
 * queries name those nodes by instance)? Sets s->named. */
int gs_fleet_src_probe(struct gs_fleet_src *s, double *query_ms, struct gs_err *err);

#endif /* GS_CORE_FLEETQ_H */
