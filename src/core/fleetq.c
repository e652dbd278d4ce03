/* SPDX-License-Identifier: MIT */
/*
 * fleetq.c - the PromQL of the fleet views: node-named selectors and string
 * literals, built into caller buffers that never overflow (fleetq.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/fleetq.h"
#include "core/module.h"

void gs_pq_init(struct gs_pq *q, char *buf, size_t cap)
{
    q->buf = buf;
    q->cap = cap;
    q->len = 0;
    q->trunc = cap == 0;
    q->named = false;
    q->host = NULL;
    if (cap)
        buf[0] = '\0';
}

void gs_pq_add(struct gs_pq *q, const char *fmt, ...)
{
    va_list ap;
    if (q->trunc)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(q->buf + q->len, q->cap - q->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= q->cap - q->len) {
        q->trunc = true;
        q->buf[q->len] = '\0';
        return;
    }
    q->len += (size_t)n;
}

void gs_pq_str(struct gs_pq *q, const char *s)
{
    gs_pq_add(q, "\"");
    for (; *s && !q->trunc; s++) {
        if (*s == '\\' || *s == '"')
            gs_pq_add(q, "\\%c", *s);
        else if (*s == '\n')
            gs_pq_add(q, "\\n");
        else
            gs_pq_add(q, "%c", *s);
    }
    gs_pq_add(q, "\"");
}

void gs_pq_matcher(struct gs_pq *q, const char *label, const char *value)
{
    gs_pq_add(q, "%s=", label);
    gs_pq_str(q, value);
}

int gs_pq_value_check(const char *what, const char *v, struct gs_err *err)
{
    size_t n = strnlen(v, GS_PQ_VALUE_MAX + 1);
    if (n > GS_PQ_VALUE_MAX)
        return gs_err_set(err, GS_E_USAGE, "%s is over %d bytes: no label value is that long", what,
                          GS_PQ_VALUE_MAX);
    if (memchr(v, '\n', n) || memchr(v, '\r', n))
        return gs_err_set(err, GS_E_USAGE, "%s holds a line break: no label value does", what);
    return 0;
}

/* a comma between matchers: before each but the first */
static void sep(struct gs_pq *q, bool *first)
{
    if (!*first)
        gs_pq_add(q, ",");
    *first = false;
}

/* metric{match,extra,<host matchers>}, each part only when not empty; how
 * names the branch: 0 q->named (Hostname=host when a host is set), 1 the
 * series with a Hostname, 2 those without (named by instance) */
static void sel_one(struct gs_pq *q, const char *match, const char *metric, const char *extra, int how)
{
    bool first = true;
    gs_pq_add(q, "%s{", metric);
    if (match && *match) {
        sep(q, &first);
        gs_pq_add(q, "%s", match);
    }
    if (extra && *extra) {
        sep(q, &first);
        gs_pq_add(q, "%s", extra);
    }
    if (how == 1 || (how == 0 && q->host)) {
        sep(q, &first);
        if (q->host)
            gs_pq_matcher(q, GS_FLEET_HOST_LABEL, q->host);
        else
            gs_pq_add(q, GS_FLEET_HOST_LABEL "!=\"\"");
    } else if (how == 2) {
        sep(q, &first);
        gs_pq_add(q, GS_FLEET_HOST_LABEL "=\"\"");
        if (q->host) {
            gs_pq_add(q, ",");
            gs_pq_matcher(q, "instance", q->host);
        }
    }
    gs_pq_add(q, "}");
}

static void sel_fn(struct gs_pq *q, const char *match, const char *metric, const char *extra,
                   const char *fn, const char *range, int how)
{
    if (fn)
        gs_pq_add(q, "%s(", fn);
    sel_one(q, match, metric, extra, how);
    if (fn)
        gs_pq_add(q, "[%s])", range);
}

void gs_pq_sel(struct gs_pq *q, const char *match, const char *metric, const char *extra,
               const char *fn, const char *range)
{
    if (q->named) {
        sel_fn(q, match, metric, extra, fn, range, 0);
        return;
    }
    gs_pq_add(q, "(");
    sel_fn(q, match, metric, extra, fn, range, 1);
    gs_pq_add(q, " or label_replace(");
    sel_fn(q, match, metric, extra, fn, range, 2);
    gs_pq_add(q, ",\"" GS_FLEET_HOST_LABEL "\",\"$1\",\"instance\",\"(.*)\"))");
}

/* A GPU of every exporter has at least one of these (a GPU off the bus keeps its Xid). */
#define GPU_NAMES "__name__=~\"DCGM_FI_DEV_(FB_USED|GPU_TEMP|XID_ERRORS)\""

void gs_pq_hosts(struct gs_pq *q, const char *match, const char *host)
{
    gs_pq_add(q, "group by (instance, job, " GS_FLEET_HOST_LABEL ") (");
    if (!host) {
        const char *h = q->host;
        q->host = NULL;
        gs_pq_sel(q, match, "", GPU_NAMES, NULL, NULL);
        q->host = h;
    } else {
        gs_pq_add(q, "{" GPU_NAMES "%s%s," GS_FLEET_HOST_LABEL "=", match && *match ? "," : "", match ? match : "");
        gs_pq_str(q, host);
        gs_pq_add(q, "} or label_replace({" GPU_NAMES "%s%s," GS_FLEET_HOST_LABEL "=\"\",instance=",
                  match && *match ? "," : "", match ? match : "");
        gs_pq_str(q, host);
        gs_pq_add(q, "},\"" GS_FLEET_HOST_LABEL "\",\"$1\",\"instance\",\"(.*)\")");
    }
    gs_pq_add(q, ")");
}

void gs_pq_node(struct gs_pq *q, const char *match, const char *names, const char *extra,
                const char *host)
{
    gs_pq_add(q, "({__name__=~");
    gs_pq_str(q, names);
    if (match && *match)
        gs_pq_add(q, ",%s", match);
    if (extra && *extra)
        gs_pq_add(q, ",%s", extra);
    gs_pq_add(q, "} and on (instance, job) ");
    gs_pq_hosts(q, match, host);
    gs_pq_add(q, ")");
}

int gs_pq_match_inner(const char *sel, char *out, size_t len)
{
    size_t n = sel ? strlen(sel) : 0;
    if (len == 0)
        return -1;
    out[0] = '\0';
    if (n == 0)
        return 0;
    if (n < 2 || sel[0] != '{' || sel[n - 1] != '}' || n - 2 >= len)
        return -1;
    memcpy(out, sel + 1, n - 2);
    out[n - 2] = '\0';
    return 0;
}

/* ---- the endpoint ---------------------------------------------------------- */

int gs_fleet_src_open(struct gs_fleet_src *s, const struct gs_prom_opts *po, struct gs_err *err)
{
    char sel[sizeof(s->match) + 2];
    memset(s, 0, sizeof(*s));
    atomic_init(&s->cancel, false);
    s->api = gs_module_symbol("fleet", "gs_prom_api", err);
    if (!s->api)
        return -(err && err->code ? err->code : GS_E_INTERNAL);
    if (s->api->abi < GS_PROM_API_ABI)
        return gs_err_set(err, GS_E_INTERNAL, "the fleet module is older (interface %u) than top (%u)",
                          s->api->abi, GS_PROM_API_ABI);
    int rc = s->api->open(&s->p, po, err);
    if (rc < 0)
        return rc;
    if (s->api->selector(s->p, sel, sizeof(sel)) < 0 || gs_pq_match_inner(sel, s->match, sizeof(s->match)) < 0) {
        gs_fleet_src_close(s);
        return gs_err_set(err, GS_E_USAGE, "--match '%s' is too long or not a {...} selector",
                          po->match ? po->match : "");
    }
    return 0;
}

void gs_fleet_src_close(struct gs_fleet_src *s)
{
    if (s->api && s->p)
        s->api->close(s->p);
    s->p = NULL;
}

int gs_fleet_src_probe(struct gs_fleet_src *s, double *query_ms, struct gs_err *err)
{
    char q[sizeof(s->match) + 128];
    struct gs_prom_result res = { 0 };
    snprintf(q, sizeof(q), "count({%s%s%s," GS_FLEET_HOST_LABEL "=\"\"})", GPU_NAMES, *s->match ? "," : "", s->match);
    int rc = s->api->query(s->p, q, 0, &res, err);
    if (rc < 0)
        return rc;
    s->named = res.n == 0;
    if (query_ms)
        *query_ms += res.query_ms;
    s->api->result_free(&res);
    return 0;
}
