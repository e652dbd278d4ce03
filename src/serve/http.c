/* SPDX-License-Identifier: MIT */
/*
 * http.c - the exporter's HTTP side on libmicrohttpd: routes (/, /metrics,
 * /health, /api/v1/snapshot), content negotiation, basic auth, TLS, and the
 * limits that keep slow or idle clients from starving Prometheus (connection
 * limit, idle timeout, small per-connection memory). A /metrics response is
 * the latest generation's rendering (made by the first request after a tick)
 * sent from an iovec that holds a reference to it, plus a small per-scrape age
 * line: no copy, no wait on the sampler.
 */
#include "serve/serve.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/prom.h"
#include "serve/webcfg.h"

struct gs_http {
    struct MHD_Daemon *d;
    struct gs_exporter *ex;
    struct gs_webcfg *wc;
};

/* What a /metrics response holds until libmicrohttpd is done sending it. */
struct http_scrape {
    struct gs_gen *gen;
    char age[320];
};

static const char http_landing[] =
    "<!DOCTYPE html>\n<html><head><title>gpuscope exporter</title></head><body>\n"
    "<h1>gpuscope exporter</h1>\n<ul>\n"
    "<li><a href=\"metrics\">/metrics</a> Prometheus metrics (dcgm-exporter compatible)</li>\n"
    "<li><a href=\"health\">/health</a> health check</li>\n"
    "<li><a href=\"api/v1/snapshot\">/api/v1/snapshot</a> the latest snapshot as JSON "
    "(<code>gpuscope query --format json</code>)</li>\n"
    "</ul>\n</body></html>\n";

static double http_unix_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static enum MHD_Result http_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                                  const char *ctype)
{
    if (!r)
        return MHD_NO;
    if (ctype)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result http_static(struct MHD_Connection *c, unsigned status, const char *body,
                                   const char *ctype)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    return http_queue(c, status, r, ctype);
}

static void http_scrape_free(void *cls)
{
    struct http_scrape *s = cls;
    gs_gen_release(s->gen);
    free(s);
}

static enum MHD_Result http_metrics(struct gs_http *h, struct MHD_Connection *c)
{
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    enum gs_prom_format fmt = gs_exporter_openmetrics(h->ex) && gs_prom_wants_openmetrics(accept)
                                  ? GS_PROM_OPENMETRICS
                                  : GS_PROM_TEXT;
    struct http_scrape *s = malloc(sizeof(*s));
    if (!s)
        return MHD_NO;
    s->gen = gs_exporter_acquire(h->ex);
    size_t blen = 0;
    const char *body = gs_gen_metrics(h->ex, s->gen, fmt, &blen);
    if (!body) {
        http_scrape_free(s);
        return http_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory rendering metrics\n",
                           "text/plain; charset=utf-8");
    }
    double since = s->gen->good_unix_s > 0 ? s->gen->good_unix_s : gs_exporter_start_unix(h->ex);
    double age = http_unix_s() - since;
    int alen = gs_prom_format_age(s->age, sizeof(s->age), age < 0 ? 0 : age, fmt);
    struct MHD_IoVec iov[3] = {
        { body, blen },
        { s->age, (size_t)alen },
        { GS_PROM_EOF, strlen(GS_PROM_EOF) },
    };
    struct MHD_Response *r =
        MHD_create_response_from_iovec(iov, fmt == GS_PROM_TEXT ? 2 : 3, http_scrape_free, s);
    if (!r) {
        http_scrape_free(s);
        return MHD_NO;
    }
    return http_queue(c, MHD_HTTP_OK, r, fmt == GS_PROM_TEXT ? GS_PROM_CT_TEXT : GS_PROM_CT_OPENMETRICS);
}

static enum MHD_Result http_health(struct gs_http *h, struct MHD_Connection *c)
{
    double age = gs_exporter_tick_age(h->ex);
    if (age <= gs_exporter_stale_after(h->ex))
        return http_static(c, MHD_HTTP_OK, "OK\n", "text/plain; charset=utf-8");
    char msg[128];
    snprintf(msg, sizeof(msg), "stale: no sample completed for %.0f s\n", age);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(msg), msg, MHD_RESPMEM_MUST_COPY);
    return http_queue(c, MHD_HTTP_SERVICE_UNAVAILABLE, r, "text/plain; charset=utf-8");
}

static void http_json_free(void *cls)
{
    gs_gen_release(cls);
}

static enum MHD_Result http_snapshot(struct gs_http *h, struct MHD_Connection *c)
{
    struct gs_gen *g = gs_exporter_acquire(h->ex);
    size_t len = 0;
    const char *json = gs_gen_json(g, &len);
    if (!json) {
        gs_gen_release(g);
        return http_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", "text/plain");
    }
    struct MHD_IoVec iov[2] = { { json, len }, { "\n", 1 } };
    struct MHD_Response *r = MHD_create_response_from_iovec(iov, 2, http_json_free, g);
    if (!r) {
        gs_gen_release(g);
        return MHD_NO;
    }
    return http_queue(c, MHD_HTTP_OK, r, "application/json");
}

/* 401 unless the request carries a configured user's password. */
static bool http_authorized(struct gs_http *h, struct MHD_Connection *c)
{
    char *pass = NULL;
    char *user = MHD_basic_auth_get_username_password(c, &pass);
    bool ok = user && pass && gs_webcfg_check_user(h->wc, user, pass);
    if (pass) {
        explicit_bzero(pass, strlen(pass));
        MHD_free(pass);
    }
    MHD_free(user);
    return ok;
}

static enum MHD_Result http_handler(void *cls, struct MHD_Connection *c, const char *url,
                                    const char *method, const char *version, const char *upload,
                                    size_t *upload_size, void **con_cls)
{
    struct gs_http *h = cls;
    (void)version;
    (void)upload;
    if (*upload_size)
        return MHD_NO; /* no route takes a body: drop the connection */
    if (!*con_cls) {   /* headers are complete on the first call for bodiless requests */
        *con_cls = h;
    }
    if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
        return http_static(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n", "text/plain");
    if (gs_webcfg_has_auth(h->wc) && !http_authorized(h, c)) {
        struct MHD_Response *r = MHD_create_response_from_buffer(
            strlen("Unauthorized\n"), (void *)(uintptr_t) "Unauthorized\n", MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
        enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "gpuscope", r);
        MHD_destroy_response(r);
        return ret;
    }
    if (!strcmp(url, "/metrics"))
        return http_metrics(h, c);
    if (!strcmp(url, "/health"))
        return http_health(h, c);
    if (!strcmp(url, "/api/v1/snapshot"))
        return http_snapshot(h, c);
    if (!strcmp(url, "/"))
        return http_static(c, MHD_HTTP_OK, http_landing, "text/html; charset=utf-8");
    return http_static(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n", "text/plain; charset=utf-8");
}

static void http_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    fprintf(stderr, "gpuscope serve: http: %s\n", msg);
}

int gs_http_parse_listen(const char *listen, char *host, unsigned hostlen, unsigned *port,
                         struct gs_err *err)
{
    const char *colon, *h = listen;
    size_t hl;
    if (listen[0] == '[') {
        const char *close = strchr(listen, ']');
        if (!close || close[1] != ':')
            goto bad;
        h = listen + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(listen, ':');
        if (!colon || memchr(listen, ':', (size_t)(colon - listen)))
            goto bad;
        hl = (size_t)(colon - listen);
    }
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || p < 0 || p > 65535 || hl >= hostlen)
        goto bad;
    memcpy(host, h, hl);
    host[hl] = '\0';
    *port = (unsigned)p;
    return 0;
bad:
    gs_err_set(err, GS_E_USAGE, "--listen '%s': expected [HOST]:PORT, e.g. :9400, 127.0.0.1:9400 or [::1]:9400",
               listen);
    return -GS_E_USAGE;
}

/* Resolve host into ss (numeric or by name). */
static int http_resolve(const char *host, unsigned port, struct sockaddr_storage *ss, struct gs_err *err)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
    struct addrinfo *res = NULL;
    char ports[8];
    snprintf(ports, sizeof(ports), "%u", port);
    int rc = getaddrinfo(host, ports, &hints, &res);
    if (rc != 0 || !res)
        return gs_err_set(err, GS_E_USAGE, "--listen: cannot resolve '%s': %s", host, gai_strerror(rc));
    memset(ss, 0, sizeof(*ss));
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

static struct MHD_Daemon *http_daemon(struct gs_http *h, const struct gs_serve_opts *o, unsigned flags,
                                      unsigned port, const struct sockaddr *sa)
{
    struct MHD_OptionItem opts[12];
    int n = 0;
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, o->max_connections, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, 16 * 1024, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_BACKLOG_SIZE, 256, NULL };
    if (o->threads > 1)
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, o->threads, NULL };
    if (sa)
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)(uintptr_t)sa };
    if (gs_webcfg_has_tls(h->wc)) {
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
                                             (void *)(uintptr_t)gs_webcfg_key_pem(h->wc) };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
                                             (void *)(uintptr_t)gs_webcfg_cert_pem(h->wc) };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
                                             (void *)(uintptr_t)gs_webcfg_tls_priorities(h->wc) };
    }
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    /* the logger must come first, or MHD logs the options' errors its own way */
    return MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, http_handler, h, MHD_OPTION_EXTERNAL_LOGGER,
                            http_log, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

int gs_http_start(struct gs_http **out, struct gs_exporter *ex, const struct gs_serve_opts *o,
                  struct gs_webcfg *wc, unsigned *port, struct gs_err *err)
{
    char host[256];
    struct sockaddr_storage ss;
    unsigned p;
    int rc = gs_http_parse_listen(o->listen, host, sizeof(host), &p, err);
    if (rc < 0)
        return rc;
    if (host[0] && (rc = http_resolve(host, p, &ss, err)) < 0)
        return rc;
    if (gs_webcfg_has_tls(wc) && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
        return gs_err_set(err, GS_E_USAGE, "this libmicrohttpd was built without TLS support");
    struct gs_http *h = calloc(1, sizeof(*h));
    if (!h)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    h->ex = ex;
    h->wc = wc;
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (gs_webcfg_has_tls(wc))
        flags |= MHD_USE_TLS;
    if (host[0]) {
        h->d = http_daemon(h, o, flags | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), p,
                           (const struct sockaddr *)&ss);
    } else {
        h->d = http_daemon(h, o, flags | MHD_USE_DUAL_STACK, p, NULL);
        if (!h->d) /* no IPv6 on this host: every IPv4 address */
            h->d = http_daemon(h, o, flags, p, NULL);
    }
    if (!h->d) {
        free(h);
        rc = gs_err_set(err, GS_E_IO, "cannot listen on %s (address in use, not local, or no permission)",
                        o->listen);
        if (gs_webcfg_has_tls(wc))
            gs_err_hint(err, "or the TLS certificate/key (%s, %s) were rejected", gs_webcfg_cert_file(wc),
                        gs_webcfg_key_file(wc));
        return rc;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    *port = di ? di->port : p;
    *out = h;
    return 0;
}

void gs_http_stop(struct gs_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    free(h);
}
