/* SPDX-License-Identifier: MIT */
/*
 * prom_api.h - the Prometheus HTTP API client that the fleet commands share
 * (query, doctor, top and report with --prometheus; docs/FLEET.md).
 *
 * The client lives in the module fleet.so (libcurl, libyaml: heavy libraries
 * stay out of the core binary, core/module.h). Commands reach it through one
 * table of function pointers that the module exports under the name
 * "gs_prom_api":
 *
 *     struct gs_err err = {0};
 *     const struct gs_prom_api *api = gs_module_symbol("fleet", "gs_prom_api", &err);
 *
 * Prometheus (and VictoriaMetrics, Thanos, Mimir: the same /api/v1 API) is the
 * store and the query engine: every request is an instant or a range query
 * whose PromQL aggregates across nodes (`by (Hostname)`), so the number of
 * requests per refresh does not grow with the fleet.
 *
 * Members are only ever appended (bump GS_PROM_API_ABI when you do).
 */
#ifndef GS_PROM_API_H
#define GS_PROM_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

#define GS_PROM_API_ABI 1

/* Where the fleet is and how to reach it. */
struct gs_prom_opts {
    const char *url;         /* base URL, e.g. http://prom:9090 (required) */
    const char *config_path; /* --prometheus-config FILE (Prometheus http_config YAML) or NULL */
    const char *match;       /* --match '{cluster="a"}': label matchers added to every selector, or NULL */
    long timeout_ms;         /* per request; 0: the default (10 s) */
};

/* One series of a result: its labels and its points (an instant query has
 * one point per series). A NaN value is a real NaN sample (or a stale
 * marker): callers treat it as "no reading", never as 0. */
struct gs_prom_series {
    size_t nlabels;
    char **names;   /* label names (UTF-8, repaired; __name__ included when present) */
    char **values;  /* label values, same order */
    size_t npoints;
    double *t;      /* sample times, Unix seconds */
    double *v;      /* sample values */
};

struct gs_prom_result {
    size_t n;
    struct gs_prom_series *s;
    double query_ms; /* wall time of the HTTP request(s) behind this result */
};

struct gs_prom; /* one endpoint: a libcurl handle kept alive, its config */

struct gs_prom_api {
    unsigned abi; /* GS_PROM_API_ABI */

    /* Check the URL and config (a bad config names the file, line and key),
     * without any request. */
    int (*open)(struct gs_prom **out, const struct gs_prom_opts *opts, struct gs_err *err);
    void (*close)(struct gs_prom *p);

    /* GET /api/v1/query?query=Q&time=at (at <= 0: now). Errors say what
     * failed: unreachable (-GS_E_IO), 401/403 (auth, names the config),
     * 400/422 bad PromQL (Prometheus' own message), timeouts. */
    int (*query)(struct gs_prom *p, const char *promql, double at, struct gs_prom_result *out,
                 struct gs_err *err);

    /* GET /api/v1/query_range?query=Q&start&end&step (seconds). */
    int (*query_range)(struct gs_prom *p, const char *promql, double start, double end,
                       double step, struct gs_prom_result *out, struct gs_err *err);

    void (*result_free)(struct gs_prom_result *r);

    /* The value of label `name` in s, or NULL. */
    const char *(*label)(const struct gs_prom_series *s, const char *name);

    /* The selector suffix for --match merged into `{...}`: writes
     * `{a="b",c="d"}` (or "" when no match) into buf. */
    int (*selector)(const struct gs_prom *p, char *buf, size_t len);

    /* HTTP requests made so far (for make bench: requests per refresh). */
    uint64_t (*requests)(const struct gs_prom *p);

    /* The server's scrape interval in seconds (from /api/v1/status/config,
     * else 15), for the refresh period of top. */
    double (*scrape_interval_s)(struct gs_prom *p);
};

/* `gpuscope doctor --prometheus`: the fleet's health findings printed to out
 * (text, or JSON with json), from a constant number of queries. Exported by
 * fleet.so as "gs_fleet_doctor" (a gs_fleet_doctor_fn). Returns the worst
 * severity found (enum gs_sev: 0 none .. 3 critical), or a negative enum
 * gs_errc with err filled (unreachable, 401, no GPU series, ...). */
struct gs_fleet_doctor_opts {
    struct gs_prom_opts prom;
    double window_s;  /* how long utilization must stay pinned to count; <= 0: 15 minutes */
    bool json;
};
typedef int (*gs_fleet_doctor_fn)(const struct gs_fleet_doctor_opts *o, FILE *out, struct gs_err *err);

#endif /* GS_PROM_API_H */
