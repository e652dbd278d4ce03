/* SPDX-License-Identifier: MIT */
/*
 * http.c - the exporter's HTTP side on libmicrohttpd: routes (/, /metrics,
 * /health, /api/v1/snapshot), content negotiation, basic auth, TLS, and the
 * limits that keep slow or idle clients from starving Prometheus (a deadline
 * for each request and eviction at the connection limit: http_guard.c; the
 * per-address limit, small per-connection memory). A /metrics response is
 * the latest generation's rendering (made by the first request after a tick)
 * sent from an iovec that holds a reference to it, plus a small per-scrape age
 * line: no copy, no wait on the sampler.
 *
 * HTTP/1.1: responses are queued on the access handler's second call (after
 * the request's empty body), which is what lets libmicrohttpd keep the
 * connection alive; a request method with a body is refused on the first.
 *   1. responses   2. routes   3. connection and request callbacks   4. the daemon
 */
#include "serve/serve.h"

#include <arpa/inet.h>
#include <stdatomic.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "serve/http_guard.h"
#include "serve/prom.h"
#include "serve/webauth.h"
#include "serve/webcfg.h"
#include "serve/webtls.h"

/* A request with more query parameters is refused at once (libmicrohttpd
 * 0.9.75 stalls on a request whose parameters overflow its memory pool). */
#define HTTP_MAX_QUERY_ARGS 64
/* A request line and headers larger than this are answered 414 or 431 (nginx's and
 * Apache's 8 KiB lines). libmicrohttpd 0.9.75 closes without a word a request that
 * fills its connection's memory pool but leaves no room for the response's header, so
 * the pool is larger and the limit is ours; what does not fit the pool gets
 * libmicrohttpd's own 414/431. */
#define HTTP_MAX_REQUEST_BYTES (8 * 1024)
#define HTTP_POOL_BYTES (32 * 1024)

/* The server: what stays the same across reloads of the web config. */
struct gs_http {
    struct gs_exporter *ex;
    struct gs_serve_opts o;
    struct gs_http_guard *guard;   /* shared by the daemons, old and new, during a reload */
    struct http_inst *cur;         /* the daemon serving now */
    atomic_ullong auth_failed;     /* 401 answers */
    atomic_ullong auth_throttled;  /* 429 answers */
};

/* One libmicrohttpd daemon with one web config (a reload starts a new one
 * on the same listening socket, then retires the old). */
struct http_inst {
    struct gs_http *srv;
    struct MHD_Daemon *d;
    struct gs_webcfg *wc;          /* owned; NULL without --web.config.file */
    struct gs_webauth *auth;       /* basic auth checks; NULL without users */
};

enum http_auth_state { RQ_AUTH_NONE, RQ_AUTH_WAITING, RQ_AUTH_DONE };

/* One request (libmicrohttpd's con_cls), made by the URI log callback. */
struct http_req {
    struct gs_http_conn *conn; /* its connection (NULL if that could not be tracked) */
    bool started;              /* the handler saw the headers */
    bool bad_query;            /* too many query parameters: refused */
    size_t target_len;         /* the request target as sent (path and query) */
    enum http_auth_state auth;
    struct MHD_Connection *mc; /* to resume it once its password was checked */
    struct gs_auth_job job;    /* the check, while the request is suspended */
};

/* What a /metrics response holds until libmicrohttpd is done sending it. */
struct http_scrape {
    struct gs_gen *gen;
    char age[320];
    char http[1280];
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

/* A kept-alive connection is closed after this many answers: MHD's HTTP
 * threads keep a connection on the thread that accepted it, and one thread
 * often accepts a whole burst of them, leaving the others idle; a client's
 * reconnection goes to whichever thread is free (Prometheus, one scrape every
 * 15 s, reconnects every 25 minutes). */
#define HTTP_KEEPALIVE_MAX 100

/* Remember on the connection whether its latest answer was an error (the
 * guard closes those first when full) and whether it closes after it (then the
 * guard neither counts nor evicts it); true when it should close after it. */
static bool http_mark(struct MHD_Connection *c, unsigned status, bool ending)
{
    const union MHD_ConnectionInfo *sc = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct gs_http_conn *hc = sc ? sc->socket_context : NULL;
    const char *conn = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONNECTION);
    if (!hc)
        return false;
    bool last = ++hc->answered >= HTTP_KEEPALIVE_MAX;
    hc->failed = status >= 400;
    hc->ending = ending || last || (conn && strcasestr(conn, "close"));
    return last;
}

static enum MHD_Result http_queue(struct MHD_Connection *c, unsigned status, struct MHD_Response *r,
                                  const char *ctype)
{
    if (!r)
        return MHD_NO;
    bool close = status == MHD_HTTP_UNAUTHORIZED || status == MHD_HTTP_TOO_MANY_REQUESTS ||
                 status == MHD_HTTP_SERVICE_UNAVAILABLE || status == MHD_HTTP_URI_TOO_LONG ||
                 status == MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE;
    if (http_mark(c, status, close))
        close = true;
    if (ctype)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (close)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close"); /* free the slot at once */
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

static enum MHD_Result http_not_allowed(struct MHD_Connection *c)
{
    static const char body[] = "only GET and HEAD\n";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    if (r)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    return http_queue(c, MHD_HTTP_METHOD_NOT_ALLOWED, r, "text/plain; charset=utf-8");
}

static void http_scrape_free(void *cls)
{
    struct http_scrape *s = cls;
    gs_gen_release(s->gen);
    free(s);
}

static void http_stats(struct http_inst *h, struct gs_prom_http *out)
{
    struct gs_http_guard_stats gs;
    gs_http_guard_stats(h->srv->guard, &gs);
    memset(out, 0, sizeof(*out));
    out->open = gs.open;
    out->deadline_closed = gs.deadline_closed;
    out->evicted = gs.evicted;
    out->auth_failed = atomic_load_explicit(&h->srv->auth_failed, memory_order_relaxed);
    out->auth_throttled = atomic_load_explicit(&h->srv->auth_throttled, memory_order_relaxed);
    if (h->auth) {
        struct gs_webauth_stats as;
        gs_webauth_stats(h->auth, &as);
        out->auth_checks = as.checks;
    }
}

static enum MHD_Result http_metrics(struct http_inst *h, struct MHD_Connection *c)
{
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
    enum gs_prom_format fmt = gs_exporter_openmetrics(h->srv->ex) && gs_prom_wants_openmetrics(accept)
                                  ? GS_PROM_OPENMETRICS
                                  : GS_PROM_TEXT;
    struct http_scrape *s = malloc(sizeof(*s));
    if (!s)
        return MHD_NO;
    s->gen = gs_exporter_acquire(h->srv->ex);
    size_t blen = 0;
    const char *body = gs_gen_metrics(h->srv->ex, &s->gen, fmt, &blen);
    if (!body) {
        http_scrape_free(s);
        return http_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory rendering metrics\n",
                           "text/plain; charset=utf-8");
    }
    double since = s->gen->good_unix_s > 0 ? s->gen->good_unix_s : gs_exporter_start_unix(h->srv->ex);
    double age = http_unix_s() - since;
    int alen = gs_prom_format_age(s->age, sizeof(s->age), age < 0 ? 0 : age, fmt);
    struct gs_prom_http hs;
    http_stats(h, &hs);
    int hlen = gs_prom_format_http(s->http, sizeof(s->http), &hs, fmt);
    struct MHD_IoVec iov[4] = {
        { body, blen },
        { s->age, (size_t)alen },
        { s->http, (size_t)hlen },
        { GS_PROM_EOF, strlen(GS_PROM_EOF) },
    };
    struct MHD_Response *r =
        MHD_create_response_from_iovec(iov, fmt == GS_PROM_TEXT ? 3 : 4, http_scrape_free, s);
    if (!r) {
        http_scrape_free(s);
        return MHD_NO;
    }
    return http_queue(c, MHD_HTTP_OK, r, fmt == GS_PROM_TEXT ? GS_PROM_CT_TEXT : GS_PROM_CT_OPENMETRICS);
}

static enum MHD_Result http_health(struct http_inst *h, struct MHD_Connection *c)
{
    double age = gs_exporter_tick_age(h->srv->ex);
    if (age <= gs_exporter_stale_after(h->srv->ex))
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

static enum MHD_Result http_snapshot(struct http_inst *h, struct MHD_Connection *c)
{
    struct gs_gen *g = gs_exporter_acquire(h->srv->ex);
    size_t len = 0;
    const char *json = gs_gen_json(h->srv->ex, &g, &len);
    if (!json) {
        gs_gen_release(g);
        return http_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n", "text/plain; charset=utf-8");
    }
    struct MHD_IoVec iov[2] = { { json, len }, { "\n", 1 } };
    struct MHD_Response *r = MHD_create_response_from_iovec(iov, 2, http_json_free, g);
    if (!r) {
        gs_gen_release(g);
        return MHD_NO;
    }
    return http_queue(c, MHD_HTTP_OK, r, "application/json");
}

static void http_auth_done(void *arg)
{
    struct http_req *rq = arg;
    MHD_resume_connection(rq->mc);
}

/* Basic auth: OK, FAIL or BUSY from what is remembered, or the request is
 * suspended while the verifier thread checks the password (the handler is
 * called again when it is done, with the result in rq->job). */
static enum gs_auth_result http_check_auth(struct http_inst *h, struct MHD_Connection *c, struct http_req *rq)
{
    if (rq->auth == RQ_AUTH_WAITING) {
        rq->auth = RQ_AUTH_DONE;
        return rq->job.result;
    }
    char *pass = NULL;
    char *user = MHD_basic_auth_get_username_password(c, &pass);
    enum gs_auth_result r = GS_AUTH_FAIL;
    if (user && pass)
        r = gs_webauth_lookup(h->auth, user, pass, rq->conn ? (struct sockaddr *)&rq->conn->addr : NULL, &rq->job);
    if (pass) {
        explicit_bzero(pass, strlen(pass));
        MHD_free(pass);
    }
    MHD_free(user);
    if (r == GS_AUTH_PENDING) {
        rq->auth = RQ_AUTH_WAITING;
        rq->mc = c;
        MHD_suspend_connection(c);
        gs_webauth_enqueue(h->auth, &rq->job, http_auth_done, rq);
    }
    return r;
}

static enum MHD_Result http_throttled(struct http_inst *h, struct MHD_Connection *c)
{
    static const char body[] = "too many password checks waiting: retry\n";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    atomic_fetch_add_explicit(&h->srv->auth_throttled, 1, memory_order_relaxed);
    if (r)
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    return http_queue(c, MHD_HTTP_TOO_MANY_REQUESTS, r, "text/plain; charset=utf-8");
}

static enum MHD_Result http_add_len(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    *(size_t *)cls += strlen(key) + (value ? strlen(value) : 0) + 4; /* ": " and CRLF */
    return MHD_YES;
}

/* 414 or 431 for a request beyond HTTP_MAX_REQUEST_BYTES; MHD_YES/NO as sent, or -1: not too big. */
static int http_too_big(struct MHD_Connection *c, const struct http_req *rq, const char *method)
{
    size_t n = strlen(method) + rq->target_len + 11; /* " ", " HTTP/1.1", CRLF */
    MHD_get_connection_values(c, MHD_HEADER_KIND, http_add_len, &n);
    if (n <= HTTP_MAX_REQUEST_BYTES)
        return -1;
    bool uri = rq->target_len > HTTP_MAX_REQUEST_BYTES / 2;
    return http_static(c, uri ? MHD_HTTP_URI_TOO_LONG : MHD_HTTP_REQUEST_HEADER_FIELDS_TOO_LARGE,
                       uri ? "request target too long\n" : "request headers too large\n", NULL) == MHD_YES;
}

/* A connection beyond --max-connections(-per-ip): told when to come back, then closed. */
static enum MHD_Result http_over_limit(struct MHD_Connection *c)
{
    static const char body[] = "too many connections: retry\n";
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    if (r)
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    return http_queue(c, MHD_HTTP_SERVICE_UNAVAILABLE, r, "text/plain; charset=utf-8");
}

static enum MHD_Result http_unauthorized(struct http_inst *h, struct MHD_Connection *c)
{
    static const char body[] = "Unauthorized\n";
    atomic_fetch_add_explicit(&h->srv->auth_failed, 1, memory_order_relaxed);
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(body), (void *)(uintptr_t)body, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    http_mark(c, MHD_HTTP_UNAUTHORIZED, true);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close"); /* free the slot at once */
    enum MHD_Result ret = MHD_queue_basic_auth_fail_response(c, "gpuscope", r);
    MHD_destroy_response(r);
    return ret;
}

/* The client certificate against client_auth_type, once per connection (the
 * handshake checked it already; this also covers resumed sessions). */
static bool http_client_cert_ok(struct http_inst *h, struct MHD_Connection *c, struct gs_http_conn *hc)
{
    if (!gs_webcfg_has_tls(h->wc) || gs_webcfg_client_auth(h->wc) == GS_WC_NO_CLIENT_CERT)
        return true;
    if (hc && hc->cert_checked)
        return hc->cert_ok;
    const union MHD_ConnectionInfo *ti = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    bool ok = ti && ti->tls_session && gs_webtls_peer_ok(h->wc, ti->tls_session);
    if (hc) {
        hc->cert_checked = true;
        hc->cert_ok = ok;
    }
    return ok;
}

const struct gs_webcfg *gs_webtls_session_cfg(void *session)
{
    struct MHD_Connection *c = gnutls_session_get_ptr(session);
    const union MHD_ConnectionInfo *sc = c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT) : NULL;
    const struct gs_http_conn *hc = sc ? sc->socket_context : NULL;
    const struct http_inst *h = hc ? hc->owner : NULL;
    return h ? h->wc : NULL;
}

static enum MHD_Result http_route(struct http_inst *h, struct MHD_Connection *c, const char *url)
{
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

static enum MHD_Result http_handler(void *cls, struct MHD_Connection *c, const char *url,
                                    const char *method, const char *version, const char *upload,
                                    size_t *upload_size, void **con_cls)
{
    struct http_inst *h = cls;
    struct http_req *rq = *con_cls;
    bool bodyless = !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
    (void)version;
    (void)upload;
    if (!rq) /* the URI log callback ran out of memory */
        return http_static(c, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory\n", "text/plain; charset=utf-8");
    if (!rq->started) {
        /* headers complete: from now on the deadline no longer applies; answer on the
         * next call (after the empty body) so that the connection can stay open */
        rq->started = true;
        if (rq->conn)
            gs_http_guard_busy(h->srv->guard, rq->conn);
        return bodyless ? MHD_YES : http_not_allowed(c);
    }
    if (rq->conn && rq->conn->over)
        return http_over_limit(c);
    int big = http_too_big(c, rq, method);
    if (big >= 0)
        return big ? MHD_YES : MHD_NO;
    if (*upload_size) /* a GET with a body: refuse it (and close) rather than read it */
        return http_static(c, MHD_HTTP_BAD_REQUEST, "request bodies are not accepted\n",
                           "text/plain; charset=utf-8");
    if (rq->bad_query)
        return http_static(c, MHD_HTTP_BAD_REQUEST, "too many query parameters\n", "text/plain; charset=utf-8");
    if (!http_client_cert_ok(h, c, rq->conn))
        return http_static(c, MHD_HTTP_FORBIDDEN, "client certificate refused\n", "text/plain; charset=utf-8");
    if (h->auth) {
        enum gs_auth_result r = http_check_auth(h, c, rq);
        if (r == GS_AUTH_PENDING)
            return MHD_YES; /* suspended: called again with the result */
        if (r == GS_AUTH_BUSY)
            return http_throttled(h, c);
        if (r != GS_AUTH_OK)
            return http_unauthorized(h, c);
    }
    return http_route(h, c, url);
}

/* ---- 3. connection and request callbacks --------------------------------------------------- */

static void http_notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
                             enum MHD_ConnectionNotificationCode toe)
{
    struct http_inst *h = cls;
    struct gs_http_conn *hc = *socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (hc) {
            gs_http_guard_closed(h->srv->guard, hc);
            free(hc);
        }
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ad = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    hc = calloc(1, sizeof(*hc));
    if (!hc || !fd) { /* cannot watch it: do not serve it */
        if (fd)
            shutdown(fd->connect_fd, SHUT_RDWR);
        free(hc);
        *socket_context = NULL;
        return;
    }
    hc->fd = fd->connect_fd;
    hc->owner = h;
    if (ad && ad->client_addr) {
        hc->addrlen = ad->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                              : sizeof(struct sockaddr_in);
        memcpy(&hc->addr, ad->client_addr, hc->addrlen);
    }
    *socket_context = hc;
    if (gs_webcfg_has_tls(h->wc)) {
        const union MHD_ConnectionInfo *ti = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        if (ti && ti->tls_session)
            gs_webtls_session_setup(h->wc, ti->tls_session);
    }
    gs_http_guard_started(h->srv->guard, hc);
}

/* Called once per request, with the raw request target, before libmicrohttpd
 * parses its query. A query with too many parameters is cut off here (the
 * target is a writable copy in the connection's buffer, and libmicrohttpd
 * splits the parameters only after this returns) and refused by the handler. */
static void *http_uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    struct http_req *rq = calloc(1, sizeof(*rq));
    const union MHD_ConnectionInfo *sc = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (!rq)
        return NULL;
    rq->conn = sc ? sc->socket_context : NULL;
    rq->target_len = strlen(uri);
    char *q = strchr(uri, '?');
    if (q) {
        unsigned n = 1;
        for (const char *p = q + 1; *p && n <= HTTP_MAX_QUERY_ARGS; p++)
            n += *p == '&' || *p == ';';
        if (n > HTTP_MAX_QUERY_ARGS) {
            rq->bad_query = true;
            q[1] = '\0';
        }
    }
    return rq;
}

static void http_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                           enum MHD_RequestTerminationCode toe)
{
    struct http_inst *h = cls;
    struct http_req *rq = *con_cls;
    (void)c;
    (void)toe;
    if (!rq)
        return;
    if (rq->conn)
        gs_http_guard_idle(h->srv->guard, rq->conn);
    free(rq);
    *con_cls = NULL;
}

static int http_hex(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* %XX decoding as libmicrohttpd's, except that %00 stays as it is: a NUL in
 * the path would end it early (/metrics%00junk must not be /metrics). */
static size_t http_unescape(void *cls, struct MHD_Connection *c, char *s)
{
    char *w = s;
    (void)cls;
    (void)c;
    for (const char *r = s; *r;) {
        int hi, lo;
        if (r[0] == '%' && (hi = http_hex(r[1])) >= 0 && (lo = http_hex(r[2])) >= 0 && (hi | lo)) {
            *w++ = (char)(hi * 16 + lo);
            r += 3;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return (size_t)(w - s);
}

/* ---- 4. the daemon ------------------------------------------------------------------------ */

static void http_log(void *cls, const char *fmt, va_list ap)
{
    struct http_inst *h = cls;
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    size_t n = strlen(msg);
    while (n && msg[n - 1] == '\n')
        msg[--n] = '\0';
    gs_http_guard_log(h->srv->guard, msg);
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

/* Start inst's daemon: on sa/port (listen_fd < 0), or on the listening socket
 * of the daemon it replaces. */
static struct MHD_Daemon *http_daemon(struct http_inst *h, unsigned flags, unsigned port, const struct sockaddr *sa,
                                      int listen_fd)
{
    const struct gs_serve_opts *o = &h->srv->o;
    struct MHD_OptionItem opts[24];
    int n = 0;
    /* beyond --max-connections (and per address) the guard marks connections for a 503;
     * libmicrohttpd's own limits would close them without a word */
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, gs_http_guard_hard_limit(o->max_connections), NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s, NULL };
    /* each connection's request memory, touched whole (libmicrohttpd clears it): four times
     * HTTP_MAX_REQUEST_BYTES, so that a request well above the limit still leaves room for its 414/431 */
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTP_POOL_BYTES, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_STRICT_FOR_CLIENT, 1, NULL };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)(uintptr_t)http_notify_conn, h };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)(uintptr_t)http_uri_log, h };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)(uintptr_t)http_completed, h };
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)(uintptr_t)http_unescape, h };
    if (o->threads > 1)
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, o->threads, NULL };
    if (listen_fd >= 0)
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_LISTEN_SOCKET, listen_fd, NULL };
    else if (sa)
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, (void *)(uintptr_t)sa };
    if (gs_webcfg_has_tls(h->wc)) {
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
                                             (void *)(uintptr_t)gs_webcfg_key_pem(h->wc) };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
                                             (void *)(uintptr_t)gs_webcfg_cert_pem(h->wc) };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
                                             (void *)(uintptr_t)gs_webcfg_tls_priorities(h->wc) };
        if (gs_webcfg_client_ca_pem(h->wc)) /* verifies client certificates, names the CAs to the client */
            opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
                                                 (void *)(uintptr_t)gs_webcfg_client_ca_pem(h->wc) };
    }
    opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
    /* the logger must come first, or MHD logs the options' errors its own way */
    return MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, http_handler, h, MHD_OPTION_EXTERNAL_LOGGER,
                            http_log, h, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

static unsigned http_flags(const struct http_inst *h)
{
    /* ITC: a reload quiesces the old daemon */
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC;
    if (gs_webcfg_has_tls(h->wc))
        flags |= MHD_USE_TLS;
    if (h->auth)
        flags |= MHD_ALLOW_SUSPEND_RESUME;
    return flags;
}

/* A daemon instance for wc (taken over), its password checks carried over from prev. */
static int http_inst_new(struct http_inst **out, struct gs_http *srv, struct gs_webcfg *wc,
                         const struct http_inst *prev, struct gs_err *err)
{
    struct http_inst *h = calloc(1, sizeof(*h));
    int rc;
    *out = NULL;
    if (!h)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    h->srv = srv;
    h->wc = wc;
    if (gs_webcfg_has_tls(wc) && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        free(h);
        return gs_err_set(err, GS_E_USAGE, "this libmicrohttpd was built without TLS support");
    }
    if (gs_webcfg_has_auth(wc) && (rc = gs_webauth_new(&h->auth, wc, prev ? prev->auth : NULL, err)) < 0) {
        free(h);
        return rc;
    }
    *out = h;
    return 0;
}

/* Stop and free an instance (its web config too). */
static void http_inst_free(struct http_inst *h)
{
    if (!h)
        return;
    gs_webauth_stop(h->auth); /* resumes every suspended request first */
    if (h->d)
        MHD_stop_daemon(h->d);
    gs_webauth_free(h->auth);
    gs_webcfg_free(h->wc);
    free(h);
}

int gs_http_start(struct gs_http **out, struct gs_exporter *ex, const struct gs_serve_opts *o,
                  struct gs_webcfg *wc, unsigned *port, struct gs_err *err)
{
    char host[256];
    struct sockaddr_storage ss;
    unsigned p;
    struct http_inst *h = NULL;
    int rc = gs_http_parse_listen(o->listen, host, sizeof(host), &p, err);
    *out = NULL;
    if (rc == 0 && host[0])
        rc = http_resolve(host, p, &ss, err);
    struct gs_http *srv = rc == 0 ? calloc(1, sizeof(*srv)) : NULL;
    if (rc == 0 && !srv)
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (rc < 0) {
        gs_webcfg_free(wc);
        return rc;
    }
    srv->ex = ex;
    srv->o = *o;
    srv->guard = gs_http_guard_new(o->timeout_s * 1000u, o->max_connections, o->max_connections_per_ip);
    if (!srv->guard)
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory (or no thread) for the connection guard");
    if (rc == 0)
        rc = http_inst_new(&h, srv, wc, NULL, err);
    else
        gs_webcfg_free(wc);
    if (rc == 0 && host[0]) {
        h->d = http_daemon(h, http_flags(h) | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), p,
                           (const struct sockaddr *)&ss, -1);
    } else if (rc == 0) {
        h->d = http_daemon(h, http_flags(h) | MHD_USE_DUAL_STACK, p, NULL, -1);
        if (!h->d) /* no IPv6 on this host: every IPv4 address */
            h->d = http_daemon(h, http_flags(h), p, NULL, -1);
    }
    if (rc == 0 && !h->d) {
        rc = gs_err_set(err, GS_E_IO, "cannot listen on %s (address in use, not local, or no permission)",
                        o->listen);
        if (gs_webcfg_has_tls(wc))
            gs_err_hint(err, "or the TLS certificate/key (%s, %s) were rejected", gs_webcfg_cert_file(wc),
                        gs_webcfg_key_file(wc));
    }
    if (rc < 0) {
        http_inst_free(h);
        gs_http_guard_free(srv->guard);
        free(srv);
        return rc;
    }
    srv->cur = h;
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    *port = di ? di->port : p;
    *out = srv;
    return 0;
}

/* Wait (at most ms) for a retired daemon's connections to finish their requests. */
static void http_drain(struct MHD_Daemon *d, unsigned ms)
{
    for (unsigned waited = 0; waited < ms; waited += 20) {
        const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
        if (!di || di->num_connections == 0)
            return;
        struct timespec ts = { 0, 20 * 1000000L };
        nanosleep(&ts, NULL);
    }
}

int gs_http_reload(struct gs_http *srv, struct gs_webcfg *wc, struct gs_err *err)
{
    struct http_inst *old = srv->cur, *h = NULL;
    const union MHD_DaemonInfo *li = MHD_get_daemon_info(old->d, MHD_DAEMON_INFO_LISTEN_FD);
    int rc = http_inst_new(&h, srv, wc, old, err);
    if (rc < 0) {
        gs_webcfg_free(wc);
        return rc;
    }
    if (!li || li->listen_fd < 0)
        rc = gs_err_set(err, GS_E_INTERNAL, "the listening socket is not known: restart to apply the web config");
    /* the new daemon accepts on the same socket before the old one stops: no
     * connection is refused meanwhile, and if it cannot start the old one goes on */
    if (rc == 0 && !(h->d = http_daemon(h, http_flags(h), 0, NULL, li->listen_fd)))
        rc = gs_err_set(err, GS_E_IO, "cannot start the HTTP server with the new web config (GnuTLS refused "
                                      "the certificate, key or priorities?): keeping the current one");
    if (rc < 0) {
        http_inst_free(h);
        return rc;
    }
    MHD_quiesce_daemon(old->d); /* the socket stays open: the new daemon owns it now */
    srv->cur = h;
    http_drain(old->d, 2000);
    http_inst_free(old);
    return 0;
}

void gs_http_stop(struct gs_http *srv)
{
    if (!srv)
        return;
    http_inst_free(srv->cur);
    gs_http_guard_free(srv->guard);
    free(srv);
}
