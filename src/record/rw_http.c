/* SPDX-License-Identifier: MIT */
/*
 * rw_http.c - one remote-write POST with libcurl: the protocol's headers, the
 * client settings of the config (auth, TLS, extra headers), and the answer
 * sorted as Prometheus sorts it: 2xx sent; 5xx, 429 and network errors
 * retried (Retry-After read); any other answer drops the batch.
 */
#include "record/rw.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "version.h"

struct gs_rw_http {
    CURL *c;
    struct curl_slist *hdr;
    const struct gs_rw_cfg *cfg;
    char errbuf[CURL_ERROR_SIZE];
    char body[512];              /* the start of the answer's body (the receiver's reason) */
    size_t body_len;
    int64_t retry_after_ms;
    volatile int *abort_flag;
};

static size_t rw_on_body(char *p, size_t sz, size_t n, void *ud)
{
    struct gs_rw_http *h = ud;
    size_t len = sz * n, room = sizeof(h->body) - 1 - h->body_len;
    size_t take = len < room ? len : room;
    memcpy(h->body + h->body_len, p, take);
    h->body_len += take;
    h->body[h->body_len] = '\0';
    return len;
}

/* Retry-After: delay-seconds or an HTTP date (RFC 9110 10.2.3). */
static int64_t rw_retry_after(const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    if (isdigit((unsigned char)*v)) {
        long long s = strtoll(v, NULL, 10);
        return s < 0 ? -1 : (s > 3600 ? 3600 : s) * 1000;
    }
    time_t when = curl_getdate(v, NULL);
    if (when < 0)
        return -1;
    int64_t d = ((int64_t)when - (int64_t)time(NULL)) * 1000;
    return d < 0 ? 0 : d > 3600000 ? 3600000 : d;
}

static size_t rw_on_header(char *p, size_t sz, size_t n, void *ud)
{
    struct gs_rw_http *h = ud;
    size_t len = sz * n;
    static const char name[] = "retry-after:";
    if (len > sizeof(name) - 1 && len < 256 && !strncasecmp(p, name, sizeof(name) - 1)) {
        char v[256];
        memcpy(v, p + sizeof(name) - 1, len - (sizeof(name) - 1));
        v[len - (sizeof(name) - 1)] = '\0';
        v[strcspn(v, "\r\n")] = '\0';
        h->retry_after_ms = rw_retry_after(v);
    }
    return len;
}

static int rw_on_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    struct gs_rw_http *h = ud;
    return h->abort_flag && *h->abort_flag;
}

int gs_rw_http_new(struct gs_rw_http **out, const struct gs_rw_cfg *cfg, struct gs_err *err)
{
    struct gs_rw_http *h = calloc(1, sizeof(*h));
    if (!h || !(h->c = curl_easy_init())) {
        free(h);
        return gs_err_set(err, GS_E_NOMEM, "remote write: cannot start libcurl");
    }
    h->cfg = cfg;
    h->hdr = curl_slist_append(h->hdr, "Content-Encoding: snappy");
    h->hdr = curl_slist_append(h->hdr, "Content-Type: application/x-protobuf");
    h->hdr = curl_slist_append(h->hdr, "X-Prometheus-Remote-Write-Version: 0.1.0");
    h->hdr = curl_slist_append(h->hdr, "Expect:"); /* no 100-continue round trip */
    for (size_t i = 0; i < cfg->nheaders; i++)
        h->hdr = curl_slist_append(h->hdr, cfg->headers[i]);
    CURL *c = h->c;
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpuscope/" GS_VERSION);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)cfg->timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(cfg->timeout_ms < 10000 ? cfg->timeout_ms : 10000));
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->errbuf);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, rw_on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, h);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, rw_on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, h);
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, rw_on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, h);
    *out = h;
    return 0;
}

void gs_rw_http_free(struct gs_rw_http *h)
{
    if (!h)
        return;
    curl_slist_free_all(h->hdr);
    curl_easy_cleanup(h->c);
    free(h);
}

/* What to do about a failure libcurl reports: the hint names the config key to check. */
static const char *rw_hint(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST: return " (check the URL's host name and DNS)";
    case CURLE_COULDNT_CONNECT: return " (is the receiver running and listening there?)";
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
        return " (the receiver's certificate is not signed by the CA you trust: check tls_config ca_file, "
               "server_name)";
    case CURLE_SSL_CERTPROBLEM: return " (check tls_config cert_file and key_file)";
    case CURLE_OPERATION_TIMEDOUT: return " (the receiver is slow or unreachable; remote_timeout)";
    default: return "";
    }
}

enum gs_rw_verdict gs_rw_http_post(struct gs_rw_http *h, const void *body, size_t len, int64_t *retry_after_ms,
                                   char *why, size_t whylen, volatile int *abort_flag)
{
    h->body_len = 0;
    h->body[0] = '\0';
    h->errbuf[0] = '\0';
    h->retry_after_ms = -1;
    h->abort_flag = abort_flag;
    /* URL, credentials and TLS (http_config), per request: a rotated secret file is read again */
    struct gs_http_req rq = { 0 };
    struct gs_err err = { 0 };
    if (gs_http_config_apply(h->cfg->http, h->c, h->cfg->url, &rq, &err) < 0) {
        gs_http_req_free(&rq);
        snprintf(why, whylen, "%s", err.msg);
        *retry_after_ms = -1;
        return GS_RW_RETRY;
    }
    struct curl_slist *all = NULL; /* ours, then the client's Authorization */
    for (struct curl_slist *l = h->hdr; l; l = l->next)
        all = curl_slist_append(all, l->data);
    for (struct curl_slist *l = rq.headers; l; l = l->next)
        all = curl_slist_append(all, l->data);
    curl_easy_setopt(h->c, CURLOPT_HTTPHEADER, all);
    curl_easy_setopt(h->c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h->c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    CURLcode rc = curl_easy_perform(h->c);
    curl_easy_setopt(h->c, CURLOPT_HTTPHEADER, NULL); /* what it points at is freed now */
    curl_easy_setopt(h->c, CURLOPT_CONNECT_TO, NULL);
    curl_slist_free_all(all);
    gs_http_req_free(&rq);
    *retry_after_ms = -1;
    if (rc != CURLE_OK) {
        snprintf(why, whylen, "%s%s", h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc), rw_hint(rc));
        return GS_RW_RETRY;
    }
    long code = 0;
    curl_easy_getinfo(h->c, CURLINFO_RESPONSE_CODE, &code);
    if (code / 100 == 2)
        return GS_RW_OK;
    for (size_t i = 0; i < h->body_len; i++) /* one printable line */
        if ((unsigned char)h->body[i] < ' ' || h->body[i] == 0x7f)
            h->body[i] = ' ';
    while (h->body_len && h->body[h->body_len - 1] == ' ')
        h->body[--h->body_len] = '\0';
    snprintf(why, whylen, "HTTP %ld%s%s", code, h->body_len ? ": " : "", h->body);
    if (code / 100 == 5 || code == 429) {
        *retry_after_ms = h->retry_after_ms;
        return GS_RW_RETRY;
    }
    return GS_RW_DROP;
}
