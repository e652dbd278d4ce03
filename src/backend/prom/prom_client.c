/* SPDX-License-Identifier: MIT */
/*
 * prom_client.c - the Prometheus HTTP API client (prom_api.h): one libcurl
 * handle per endpoint, kept alive across requests (one TCP/TLS connection
 * for a whole `top` session), credentials and TLS from the http_config file,
 * and errors that say what failed: unreachable, refused credentials, a bad
 * query (with Prometheus' own words), an answer that is not the API, a
 * timeout. Exported to commands as `gs_prom_api` (the end of this file).
 */
#include "backend/prom/prom_priv.h"

#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/prom/http_config.h"
#include "version.h"

#define PROM_DEFAULT_TIMEOUT_MS 10000L
#define PROM_MAX_BODY (256u << 20) /* an answer larger than this is refused */
#define PROM_DEFAULT_SCRAPE_S 15.0

struct gs_prom {
    CURL *h;                    /* kept alive: its connection is reused */
    char *base;                 /* the URL without a trailing '/' */
    char *matchers;             /* --match without its braces, "" when none */
    struct gs_http_config *hc;  /* NULL without --prometheus-config */
    long timeout_ms;
    uint64_t nreq;
    double wait_ms;             /* in HTTP requests so far (the server answering, the transfer) */
    double scrape_s;            /* 0 until asked */
    char *body;                 /* the last answer */
    size_t len, cap;
    int too_big;
    char errbuf[CURL_ERROR_SIZE];
};

static double prom_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static size_t prom_write(char *data, size_t size, size_t n, void *arg)
{
    struct gs_prom *p = arg;
    size_t add = size * n;

    if (p->len + add + 1 > PROM_MAX_BODY) {
        p->too_big = 1;
        return 0;
    }
    if (p->len + add + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 64 << 10;
        while (cap < p->len + add + 1)
            cap *= 2;
        char *b = realloc(p->body, cap);
        if (!b)
            return 0;
        p->body = b;
        p->cap = cap;
    }
    memcpy(p->body + p->len, data, add);
    p->len += add;
    p->body[p->len] = '\0';
    return add;
}

/* ---- opening ------------------------------------------------------------------------------ */

static int prom_check_url(const char *url, struct gs_err *err)
{
    CURLU *u = curl_url();
    char *scheme = NULL;
    int bad = !u || curl_url_set(u, CURLUPART_URL, url, 0) || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
              (strcmp(scheme, "http") && strcmp(scheme, "https"));
    curl_free(scheme);
    curl_url_cleanup(u);
    if (!bad)
        return 0;
    gs_err_set(err, GS_E_USAGE, "--prometheus %s: not an http:// or https:// URL", url);
    gs_err_hint(err, "give the server's base URL, such as http://prometheus:9090");
    return -GS_E_USAGE;
}

/* --match '{a="b", c=~"d"}' (or without braces) into the matchers alone. */
static int prom_set_match(struct gs_prom *p, const char *match, struct gs_err *err)
{
    const char *s = match ? match : "";
    size_t n;

    while (*s == ' ')
        s++;
    n = strlen(s);
    while (n && s[n - 1] == ' ')
        n--;
    if (n && s[0] == '{') {
        if (s[n - 1] != '}')
            return gs_err_set(err, GS_E_USAGE, "--match %s: a '{' without its closing '}'", match);
        s++;
        n -= 2;
    }
    if (memchr(s, '{', n) || memchr(s, '}', n))
        return gs_err_set(err, GS_E_USAGE, "--match %s: label matchers only, such as '{cluster=\"a\"}'", match);
    p->matchers = strndup(s, n);
    return p->matchers ? 0 : gs_err_set(err, GS_E_NOMEM, "out of memory");
}

int gs_prom_open(struct gs_prom **out, const struct gs_prom_opts *opts, struct gs_err *err)
{
    struct gs_prom *p = NULL;
    int rc;

    *out = NULL;
    if (!opts || !opts->url || !opts->url[0])
        return gs_err_set(err, GS_E_USAGE, "--prometheus needs a URL, such as http://prometheus:9090");
    if ((rc = prom_check_url(opts->url, err)) < 0)
        return rc;
    if (!(p = calloc(1, sizeof(*p))) || !(p->base = strdup(opts->url))) {
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t n = strlen(p->base); n > 0 && p->base[n - 1] == '/'; n--)
        p->base[n - 1] = '\0';
    p->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : PROM_DEFAULT_TIMEOUT_MS;
    if ((rc = prom_set_match(p, opts->match, err)) < 0)
        goto fail;
    if (opts->config_path && (rc = gs_http_config_load(&p->hc, opts->config_path, err)) < 0)
        goto fail;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    if (!(p->h = curl_easy_init())) {
        rc = gs_err_set(err, GS_E_NOMEM, "cannot start libcurl");
        goto fail;
    }
    *out = p;
    return 0;
fail:
    gs_prom_close(p);
    return rc;
}

void gs_prom_close(struct gs_prom *p)
{
    if (!p)
        return;
    if (p->h)
        curl_easy_cleanup(p->h);
    gs_http_config_free(p->hc);
    free(p->base);
    free(p->matchers);
    free(p->body);
    free(p);
}

/* ---- one request -------------------------------------------------------------------------- */

static void prom_setopts(struct gs_prom *p)
{
    CURL *h = p->h;
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, p->timeout_ms);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, p->timeout_ms < 5000 ? p->timeout_ms : 5000L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, prom_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, p);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, p->errbuf);
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gpuscope/" GS_VERSION);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
}

/* A transfer that did not complete: say why in a person's terms. */
static int prom_curl_error(struct gs_prom *p, CURLcode rc, const char *what, struct gs_err *err)
{
    const char *why = p->errbuf[0] ? p->errbuf : curl_easy_strerror(rc);

    if (p->too_big) {
        gs_err_set(err, GS_E_BACKEND, "the answer to %s from %s is over %u MiB", what, p->base, PROM_MAX_BODY >> 20);
        gs_err_hint(err, "narrow the fleet with --match");
        return -GS_E_BACKEND;
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        gs_err_set(err, GS_E_IO, "Prometheus at %s did not answer %s within %ld ms", p->base, what, p->timeout_ms);
        gs_err_hint(err, "the server is overloaded or the network drops packets; narrow with --match");
        return -GS_E_IO;
    }
    if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CACERT_BADFILE ||
        rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_SSL_ISSUER_ERROR) {
        gs_err_set(err, GS_E_IO, "TLS with %s failed: %s", p->base, why);
        gs_err_hint(err, "set tls_config (ca_file, server_name, cert_file/key_file) in --prometheus-config");
        return -GS_E_IO;
    }
    gs_err_set(err, GS_E_IO, "Prometheus at %s is unreachable: %s", p->base, why);
    gs_err_hint(err, "check the URL and that the server runs (curl %s/-/ready)", p->base);
    return -GS_E_IO;
}

static int prom_http_error(struct gs_prom *p, long code, const char *what, struct gs_err *err)
{
    char who[400];

    if (code == 401 || code == 403) {
        gs_http_config_describe(p->hc, who, sizeof(who));
        (void)what; /* which query does not matter: every one is refused */
        gs_err_set(err, GS_E_PERMISSION, "Prometheus at %s refused the request: HTTP %ld %s (sent %s)", p->base,
                   code, code == 401 ? "Unauthorized" : "Forbidden", who);
        gs_err_hint(err, p->hc ? "check the credentials in %s (basic_auth, authorization; docs/FLEET.md)"
                               : "%sgive credentials with --prometheus-config FILE (Prometheus' http_config "
                                 "YAML: basic_auth, authorization; docs/FLEET.md)",
                    p->hc ? p->hc->path : "");
        return -GS_E_PERMISSION;
    }
    if (code == 404 || code == 405) {
        gs_err_set(err, GS_E_BACKEND, "%s has no Prometheus query API (HTTP %ld)", p->base, code);
        gs_err_hint(err, "give the server's base URL (http://host:9090, without /api/v1 or /graph)");
        return -GS_E_BACKEND;
    }
    return 1; /* let the parser read the server's own error */
}

/* GET base+path?args; the answer's body into p->body. */
static int prom_get(struct gs_prom *p, const char *path, const char *args, const char *what, long *code,
                    double *ms, struct gs_err *err)
{
    struct gs_http_req rq = {0};
    char *url = NULL;
    int rc;

    if (asprintf(&url, "%s%s%s%s", p->base, path, args ? "?" : "", args ? args : "") < 0)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    prom_setopts(p);
    rc = gs_http_config_apply(p->hc, p->h, url, &rq, err);
    free(url);
    if (rc < 0)
        goto out;
    p->len = 0;
    p->too_big = 0;
    p->errbuf[0] = '\0';
    double t0 = prom_now_ms();
    CURLcode cc = curl_easy_perform(p->h);
    *ms = prom_now_ms() - t0;
    p->nreq++;
    p->wait_ms += *ms;
    curl_easy_setopt(p->h, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(p->h, CURLOPT_CONNECT_TO, NULL);
    if (cc != CURLE_OK) {
        rc = prom_curl_error(p, cc, what, err);
        goto out;
    }
    curl_easy_getinfo(p->h, CURLINFO_RESPONSE_CODE, code);
    rc = 0;
out:
    gs_http_req_free(&rq);
    return rc;
}

static int prom_api_call(struct gs_prom *p, const char *path, const char *promql, const char *extra,
                         struct gs_prom_result *out, struct gs_err *err)
{
    char what[160], *args = NULL;
    long code = 0;
    double ms = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    snprintf(what, sizeof(what), "the query %.120s%s", promql, strlen(promql) > 120 ? "..." : "");
    char *q = curl_easy_escape(p->h, promql, 0);
    if (!q || asprintf(&args, "query=%s%s", q, extra) < 0) {
        curl_free(q);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    curl_free(q);
    rc = prom_get(p, path, args, what, &code, &ms, err);
    free(args);
    if (rc < 0)
        return rc;
    if ((rc = prom_http_error(p, code, what, err)) <= 0)
        return rc;
    rc = gs_prom_parse(p->body ? p->body : "", p->len, code, what, out, err);
    out->query_ms = ms;
    return rc;
}

int gs_prom_query(struct gs_prom *p, const char *promql, double at, struct gs_prom_result *out,
                  struct gs_err *err)
{
    char extra[64] = "";
    if (at > 0)
        snprintf(extra, sizeof(extra), "&time=%.3f", at);
    return prom_api_call(p, "/api/v1/query", promql, extra, out, err);
}

int gs_prom_query_range(struct gs_prom *p, const char *promql, double start, double end, double step,
                        struct gs_prom_result *out, struct gs_err *err)
{
    char extra[128];
    if (!(step > 0) || !(end >= start)) {
        memset(out, 0, sizeof(*out));
        return gs_err_set(err, GS_E_USAGE, "a range query needs start <= end and a step > 0");
    }
    snprintf(extra, sizeof(extra), "&start=%.3f&end=%.3f&step=%.3f", start, end, step);
    return prom_api_call(p, "/api/v1/query_range", promql, extra, out, err);
}

/* ---- the rest of the table ---------------------------------------------------------------- */

const char *gs_prom_matchers(const struct gs_prom *p)
{
    return p->matchers;
}

const char *gs_prom_url(const struct gs_prom *p)
{
    return p->base;
}

static int prom_selector(const struct gs_prom *p, char *buf, size_t len)
{
    int n = p->matchers[0] ? snprintf(buf, len, "{%s}", p->matchers) : snprintf(buf, len, "%s", "");
    return n < 0 || (size_t)n >= len ? -GS_E_NOMEM : 0;
}

uint64_t gs_prom_requests(const struct gs_prom *p)
{
    return p->nreq;
}

double gs_prom_wait_ms(const struct gs_prom *p)
{
    return p->wait_ms;
}

/* VictoriaMetrics and some proxies have no /api/v1/status/config: the default then. */
double gs_prom_scrape_interval_s(struct gs_prom *p)
{
    struct gs_err err = {0};
    long code = 0;
    double ms;

    if (p->scrape_s > 0)
        return p->scrape_s;
    p->scrape_s = PROM_DEFAULT_SCRAPE_S;
    if (prom_get(p, "/api/v1/status/config", NULL, "the config request", &code, &ms, &err) == 0 && code == 200) {
        double s = gs_prom_parse_scrape_interval(p->body, p->len);
        if (s > 0)
            p->scrape_s = s;
    }
    return p->scrape_s;
}

const struct gs_prom_api gs_prom_api = {
    .abi = GS_PROM_API_ABI,
    .open = gs_prom_open,
    .close = gs_prom_close,
    .query = gs_prom_query,
    .query_range = gs_prom_query_range,
    .result_free = gs_prom_result_free,
    .label = gs_prom_label,
    .selector = prom_selector,
    .requests = gs_prom_requests,
    .scrape_interval_s = gs_prom_scrape_interval_s,
};
