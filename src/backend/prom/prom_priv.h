/* SPDX-License-Identifier: MIT */
/*
 * prom_priv.h - inside the fleet module: the parser of Prometheus' /api/v1
 * answers (prom_parse.c, unit-tested and fuzzed on its own) and the client's
 * handle (prom_client.c), shared with the fleet backend (prom_backend.c).
 */
#ifndef GS_PROM_PRIV_H
#define GS_PROM_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "core/prom_api.h"
#include "core/err.h"

/* Bounds on what a server can make us hold: a label value longer than this is
 * cut (at a character boundary, "..." appended), and a series with more
 * labels keeps the first ones. Huge labels can neither crash nor flood. */
#define GS_PROM_LABEL_MAX 256
#define GS_PROM_MAX_LABELS 64

/* Parse the body of an /api/v1/query or /api/v1/query_range answer (len
 * bytes) that came with HTTP status `http`, into out (zeroed first; free it
 * with gs_prom_result_free). vector, matrix and scalar results are kept (a
 * scalar as one series without labels); "NaN", "+Inf" and "-Inf" values are
 * those doubles (NaN: no reading). Errors: the server's own error text
 * (-GS_E_USAGE for bad_data: a bad query; -GS_E_BACKEND otherwise), or an
 * answer that is not the API's JSON (-GS_E_BACKEND). `what` names the
 * request in messages ("the query ..."). */
int gs_prom_parse(const char *body, size_t len, long http, const char *what, struct gs_prom_result *out,
                  struct gs_err *err);
void gs_prom_result_free(struct gs_prom_result *r);
const char *gs_prom_label(const struct gs_prom_series *s, const char *name);

/* The global scrape_interval, in seconds, in the YAML of
 * /api/v1/status/config (its "data.yaml"), or 0 when absent or unreadable. */
double gs_prom_parse_scrape_interval(const char *body, size_t len);
/* A Prometheus duration ("15s", "1m30s", "500ms") in seconds, or -1. */
double gs_prom_duration_s(const char *s);

/* The client (prom_client.c): the api table's members, callable inside the module. */
int gs_prom_open(struct gs_prom **out, const struct gs_prom_opts *opts, struct gs_err *err);
void gs_prom_close(struct gs_prom *p);
int gs_prom_query(struct gs_prom *p, const char *promql, double at, struct gs_prom_result *out,
                  struct gs_err *err);
int gs_prom_query_range(struct gs_prom *p, const char *promql, double start, double end, double step,
                        struct gs_prom_result *out, struct gs_err *err);
/* The --match matchers without braces ("cluster=\"a\"", or "" when none). */
const char *gs_prom_matchers(const struct gs_prom *p);
/* HTTP requests made so far; the server's scrape interval (api table's). */
uint64_t gs_prom_requests(const struct gs_prom *p);
double gs_prom_scrape_interval_s(struct gs_prom *p);
/* Wall time spent in HTTP requests so far, ms (for --debug and the bench). */
double gs_prom_wait_ms(const struct gs_prom *p);
/* doctor --prometheus (src/fleet/doctor.c), see prom_api.h */
int gs_fleet_doctor(const struct gs_fleet_doctor_opts *o, FILE *out, struct gs_err *err);
/* The base URL, for messages. */
const char *gs_prom_url(const struct gs_prom *p);

#endif /* GS_PROM_PRIV_H */
