/* SPDX-License-Identifier: MIT */
/*
 * kubelet_call.c - one unary gRPC call, v1.PodResourcesLister/List, on the
 * kubelet's UNIX socket. nghttp2 speaks the HTTP/2 (prior knowledge, no TLS:
 * the socket is local); this file owns the socket, the deadline, and what gRPC
 * puts on top of HTTP/2: a POST of one length-prefixed message with
 * `content-type: application/grpc` and `te: trailers`, and the call's outcome
 * in the grpc-status trailer (or in the headers of a trailers-only answer).
 * The answer's body goes to podres.c.
 *
 * nghttp2 rather than libcurl: libcurl's HTTP/2 works here too, but linking it
 * (with GnuTLS, Kerberos, LDAP, SSH... behind it) added 3.9 MiB of resident
 * memory to every exporter; libnghttp2 is one 190 KiB library.
 */
#include "k8s/kubelet.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "version.h"
#include "lib/clock.h"
#include "lib/vec.h"

#define K8S_PATH "/v1.PodResourcesLister/List"
#define K8S_SLICE_MS 100 /* the longest poll, so that a stop is seen soon */

struct k8s_call {
    int fd;
    int32_t stream;
    bool closed;               /* our stream ended (answer complete, or reset) */
    uint32_t close_code;       /* its HTTP/2 error code, 0: none */
    bool too_big;
    bool no_memory;            /* the body could not grow: the call failed, not the kubelet */
    bool h2_peer;              /* the server sent its HTTP/2 SETTINGS: it speaks HTTP/2 */
    struct gs_vec body;        /* the answer's body (bytes), up to GS_K8S_MAX_ANSWER + 5 */
    int http_status;           /* :status, 0 until it arrives */
    int grpc_status;           /* -1 until a grpc-status header or trailer arrives */
    char grpc_message[160];
    char content_type[64];
    uint8_t req[5];            /* one uncompressed, empty ListPodResourcesRequest */
    size_t req_off;
};

/* ---- nghttp2's callbacks -------------------------------------------------------------- */

static ssize_t k8s_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *arg)
{
    (void)s, (void)flags;
    struct k8s_call *c = arg;
    ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL);
    if (n >= 0)
        return n;
    return errno == EAGAIN || errno == EINTR ? NGHTTP2_ERR_WOULDBLOCK : NGHTTP2_ERR_CALLBACK_FAILURE;
}

static int k8s_data(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data, size_t len, void *arg)
{
    (void)s, (void)flags;
    struct k8s_call *c = arg;
    if (stream != c->stream)
        return 0;
    if (c->body.len + len > GS_K8S_MAX_ANSWER + 5) {
        c->too_big = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE; /* ends the session */
    }
    if (!gs_vec_append(&c->body, data, len)) {
        c->no_memory = true;
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    return 0;
}

/* value (not NUL-terminated) -> dst, printable ASCII only: it goes into logs */
static void k8s_copy(char *dst, size_t cap, const uint8_t *v, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n && w + 1 < cap; i++)
        dst[w++] = (v[i] >= 0x20 && v[i] < 0x7f) ? (char)v[i] : '?';
    dst[w] = '\0';
}

static bool k8s_is(const uint8_t *name, size_t n, const char *want)
{
    return n == strlen(want) && !memcmp(name, want, n); /* HTTP/2 header names are lower case */
}

/* Headers and, after the body, trailers of our stream. */
static int k8s_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
                      const uint8_t *value, size_t vlen, uint8_t flags, void *arg)
{
    (void)s, (void)flags;
    struct k8s_call *c = arg;
    char v[16];
    if (f->hd.type != NGHTTP2_HEADERS || f->hd.stream_id != c->stream)
        return 0;
    if (k8s_is(name, nlen, ":status") || k8s_is(name, nlen, "grpc-status")) {
        k8s_copy(v, sizeof(v), value, vlen);
        char *end;
        long x = strtol(v, &end, 10);
        int st = (*v && !*end && x >= 0 && x < 1000) ? (int)x : 999;
        if (name[0] == ':')
            c->http_status = st;
        else
            c->grpc_status = st;
    } else if (k8s_is(name, nlen, "grpc-message")) {
        k8s_copy(c->grpc_message, sizeof(c->grpc_message), value, vlen);
    } else if (k8s_is(name, nlen, "content-type")) {
        k8s_copy(c->content_type, sizeof(c->content_type), value, vlen);
    }
    return 0;
}

static int k8s_frame(nghttp2_session *s, const nghttp2_frame *f, void *arg)
{
    (void)s;
    struct k8s_call *c = arg;
    if (f->hd.type == NGHTTP2_SETTINGS)
        c->h2_peer = true;
    return 0;
}

static int k8s_close(nghttp2_session *s, int32_t stream, uint32_t code, void *arg)
{
    (void)s;
    struct k8s_call *c = arg;
    if (stream == c->stream) {
        c->closed = true;
        c->close_code = code;
    }
    return 0;
}

/* The request's body: the 5-byte message prefix of an empty message. */
static ssize_t k8s_body(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len, uint32_t *flags,
                        nghttp2_data_source *src, void *arg)
{
    (void)s, (void)stream, (void)src;
    struct k8s_call *c = arg;
    size_t n = sizeof(c->req) - c->req_off;
    if (n > len)
        n = len;
    memcpy(buf, c->req + c->req_off, n);
    c->req_off += n;
    if (c->req_off == sizeof(c->req))
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* ---- the call --------------------------------------------------------------------------- */

#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE }

static int k8s_session(nghttp2_session **out, struct k8s_call *c, uint32_t timeout_ms)
{
    nghttp2_session_callbacks *cb;
    char deadline[24];
    if (nghttp2_session_callbacks_new(&cb) != 0)
        return -1;
    nghttp2_session_callbacks_set_send_callback(cb, k8s_send);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, k8s_data);
    nghttp2_session_callbacks_set_on_header_callback(cb, k8s_header);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, k8s_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, k8s_frame);
    int rv = nghttp2_session_client_new(out, cb, c);
    nghttp2_session_callbacks_del(cb);
    if (rv != 0)
        return -1;
    /* the server may stop working on an answer nobody waits for (gRPC's deadline) */
    snprintf(deadline, sizeof(deadline), "%um", timeout_ms);
    const nghttp2_nv nva[] = {
        NV(":method", "POST"),      NV(":scheme", "http"),
        NV(":authority", "localhost"), NV(":path", K8S_PATH),
        NV("content-type", "application/grpc"), NV("te", "trailers"),
        NV("grpc-timeout", deadline), NV("user-agent", "gpuscope/" GS_VERSION),
    };
    nghttp2_data_provider body = { .read_callback = k8s_body };
    if (nghttp2_submit_settings(*out, NGHTTP2_FLAG_NONE, NULL, 0) != 0 ||
        (c->stream = nghttp2_submit_request(*out, NULL, nva, sizeof(nva) / sizeof(nva[0]), &body, NULL)) < 0)
        return -1;
    return 0;
}

/* A non-blocking connection to the socket at path; -errno on failure. */
static int k8s_connect(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
        int e = errno == EAGAIN ? EAGAIN : errno; /* EAGAIN: the listen backlog is full */
        close(fd);
        return -e;
    }
    return fd;
}

enum k8s_end { K8S_DONE, K8S_TIMEOUT, K8S_STOPPED, K8S_PROTOCOL, K8S_EOF, K8S_IO };

/* Exchange frames until our stream closes, the deadline passes, or stop reads true. */
static enum k8s_end k8s_pump(nghttp2_session *s, struct k8s_call *c, uint64_t deadline_ms, const atomic_bool *stop,
                             int *detail)
{
    uint8_t buf[16384];
    while (!c->closed) {
        if ((*detail = nghttp2_session_send(s)) != 0)
            return c->too_big || c->no_memory ? K8S_DONE : K8S_PROTOCOL;
        if (!nghttp2_session_want_read(s) && !nghttp2_session_want_write(s))
            return K8S_PROTOCOL; /* the session ended (GOAWAY) before our answer did */
        if (stop && atomic_load(stop))
            return K8S_STOPPED;
        uint64_t now = (uint64_t)gs_clock_mono_ms();
        if (now >= deadline_ms)
            return K8S_TIMEOUT;
        uint64_t wait = deadline_ms - now < K8S_SLICE_MS ? deadline_ms - now : K8S_SLICE_MS;
        struct pollfd p = { .fd = c->fd,
                            .events = (short)(POLLIN | (nghttp2_session_want_write(s) ? POLLOUT : 0)) };
        int r = poll(&p, 1, (int)wait);
        if (r < 0 && errno != EINTR)
            return *detail = errno, K8S_IO;
        if (r <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = recv(c->fd, buf, sizeof(buf), 0);
        if (n == 0)
            return K8S_EOF;
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return *detail = errno, K8S_IO;
        if (n > 0 && (*detail = (int)nghttp2_session_mem_recv(s, buf, (size_t)n)) < 0)
            return c->too_big || c->no_memory ? K8S_DONE : K8S_PROTOCOL;
    }
    return K8S_DONE;
}

static int k8s_connect_error(int e, const char *path, struct gs_err *err)
{
    if (e == EACCES) {
        gs_err_set(err, GS_E_PERMISSION, "cannot connect to the kubelet's socket %s: permission denied", path);
        gs_err_hint(err, "the socket is root-only on most nodes: run the exporter as uid 0 (the DaemonSet does)");
        return -GS_E_PERMISSION;
    }
    return gs_err_set(err, GS_E_IO, "cannot connect to the kubelet's socket %s: %s", path, strerror(e));
}

/* Why the exchange ended without an answer. The same failure gives the same
 * message (no timings in it): the refresher logs changes only. */
static int k8s_end_error(enum k8s_end end, int detail, const char *path, uint32_t timeout_ms,
                         const struct k8s_call *c, struct gs_err *err)
{
    if (c->no_memory)
        return gs_err_set(err, GS_E_NOMEM, "out of memory for the kubelet's answer on %s (%zu bytes so far)", path,
                          c->body.len);
    if (c->too_big)
        return gs_err_set(err, GS_E_PARSE, "the kubelet's answer on %s is larger than %u bytes", path,
                          GS_K8S_MAX_ANSWER);
    if (!c->h2_peer && (end == K8S_PROTOCOL || end == K8S_EOF || end == K8S_IO))
        return gs_err_set(err, GS_E_IO, "the server on %s does not answer in HTTP/2: not the kubelet's "
                          "pod-resources API?", path);
    switch (end) {
    case K8S_TIMEOUT:
        return gs_err_set(err, GS_E_IO, "no answer from the kubelet on %s within %u ms", path, timeout_ms);
    case K8S_STOPPED:
        return gs_err_set(err, GS_E_IO, "the call to the kubelet on %s was stopped", path);
    case K8S_PROTOCOL:
        return gs_err_set(err, GS_E_IO, "the answer on %s is not HTTP/2: %s", path,
                          detail < 0 ? nghttp2_strerror(detail) : "the connection ended first");
    case K8S_EOF:
        return gs_err_set(err, GS_E_IO, "the kubelet on %s closed the connection before its answer was complete",
                          path);
    case K8S_IO:
        return gs_err_set(err, GS_E_IO, "reading the kubelet's answer on %s failed: %s", path, strerror(detail));
    case K8S_DONE:
        break;
    }
    return gs_err_set(err, GS_E_IO, "the kubelet on %s reset the call (HTTP/2 error %u)", path, c->close_code);
}

static const char *k8s_grpc_code(int s)
{
    static const char *const names[] = { "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
                                         "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
                                         "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                                         "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                                         "UNAUTHENTICATED" };
    return s >= 0 && s < (int)(sizeof(names) / sizeof(names[0])) ? names[s] : "not a gRPC status";
}

/* The stream ended: was it a successful gRPC answer? */
static int k8s_grpc_outcome(const char *path, uint32_t timeout_ms, const struct k8s_call *c, struct gs_err *err)
{
    if (c->grpc_status == 4) /* the server saw our grpc-timeout pass: the same as our own timeout */
        return gs_err_set(err, GS_E_IO, "no answer from the kubelet on %s within %u ms", path, timeout_ms);
    if (c->grpc_status > 0)
        return gs_err_set(err, GS_E_IO, "the kubelet refused List on %s: gRPC status %d (%s)%s%s", path,
                          c->grpc_status, k8s_grpc_code(c->grpc_status), c->grpc_message[0] ? ": " : "",
                          c->grpc_message);
    if (c->http_status != 200)
        return gs_err_set(err, GS_E_IO, "the kubelet's socket %s answered HTTP %d, not a gRPC answer", path,
                          c->http_status);
    if (c->grpc_status < 0)
        return c->close_code ? gs_err_set(err, GS_E_IO, "the kubelet on %s reset the call (HTTP/2 error %u)", path,
                                          c->close_code)
                             : gs_err_set(err, GS_E_IO, "the answer on %s carries no grpc-status: not a gRPC "
                                                        "server, or cut short",
                                          path);
    if (strncasecmp(c->content_type, "application/grpc", 16) ||
        (c->content_type[16] && c->content_type[16] != '+' && c->content_type[16] != ';'))
        return gs_err_set(err, GS_E_IO, "the answer on %s is '%s', not application/grpc", path,
                          c->content_type[0] ? c->content_type : "(no content type)");
    return 0;
}

int gs_kubelet_list(const char *path, uint32_t timeout_ms, const struct gs_k8s_map_opts *mo,
                    const atomic_bool *stop, struct gs_k8s_map **out, struct gs_err *err)
{
    struct k8s_call c = { .grpc_status = -1, .fd = -1 };
    nghttp2_session *s = NULL;
    uint64_t deadline = (uint64_t)gs_clock_mono_ms() + timeout_ms;
    int rc, detail = 0;

    gs_vec_init(&c.body, 1);
    *out = NULL;
    if ((c.fd = k8s_connect(path)) < 0) {
        rc = k8s_connect_error(-c.fd, path, err);
        goto out;
    }
    if (k8s_session(&s, &c, timeout_ms) < 0) {
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory for a call to the kubelet");
        goto out;
    }
    enum k8s_end end = k8s_pump(s, &c, deadline, stop, &detail);
    if (end != K8S_DONE || c.too_big || c.no_memory)
        rc = k8s_end_error(end, detail, path, timeout_ms, &c, err);
    else if ((rc = k8s_grpc_outcome(path, timeout_ms, &c, err)) == 0)
        rc = gs_k8s_decode(c.body.data, c.body.len, mo, out, err);
    /* a polite end of the connection (best effort: the socket is non-blocking) */
    nghttp2_session_terminate_session(s, NGHTTP2_NO_ERROR);
    nghttp2_session_send(s);
out:
    nghttp2_session_del(s);
    if (c.fd >= 0)
        close(c.fd);
    gs_vec_free(&c.body);
    return rc;
}
