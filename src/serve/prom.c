/* SPDX-License-Identifier: MIT */
/*
 * prom.c - the exposition-format primitives: label and HELP escaping (with
 * UTF-8 repair), number formatting, Accept-header negotiation and the
 * per-scrape age family. The families themselves are in prom_fams.c and
 * prom_procs.c (prom_render.c calls them).
 */
#include "serve/prom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/utf8.h"

void gs_prom_escape_label(struct gs_pbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        /* copy the longest run that needs no change in one go */
        const unsigned char *run = p;
        unsigned n;
        while (*p && *p != '\\' && *p != '"' && *p != '\n' && (n = gs_utf8_seq_len(p)) > 0)
            p += n;
        if (p > run)
            gs_pbuf_add(b, (const char *)run, (size_t)(p - run));
        if (!*p)
            break;
        if (*p == '\\')
            gs_pbuf_add(b, "\\\\", 2);
        else if (*p == '"')
            gs_pbuf_add(b, "\\\"", 2);
        else if (*p == '\n')
            gs_pbuf_add(b, "\\n", 2);
        else
            gs_pbuf_add(b, "\xEF\xBF\xBD", 3); /* U+FFFD for one invalid byte */
        p++;
    }
}

void gs_prom_escape_help(struct gs_pbuf *b, const char *s, enum gs_prom_format fmt)
{
    for (; *s; s++) {
        if (*s == '\\')
            gs_pbuf_add(b, "\\\\", 2);
        else if (*s == '\n')
            gs_pbuf_add(b, "\\n", 2);
        else if (*s == '"' && fmt == GS_PROM_OPENMETRICS)
            gs_pbuf_add(b, "\\\"", 2);
        else
            gs_pbuf_addc(b, *s);
    }
}

void gs_prom_add_double(struct gs_pbuf *b, double v)
{
    if (isnan(v)) {
        gs_pbuf_adds(b, "NaN");
        return;
    }
    if (isinf(v)) {
        gs_pbuf_adds(b, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (v == (double)(int64_t)v && v > -1e15 && v < 1e15) { /* integral: exact, no printf */
        if (v < 0)
            gs_pbuf_addc(b, '-');
        gs_pbuf_addu(b, (uint64_t)(v < 0 ? -v : v));
        return;
    }
    char tmp[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
        if (prec == 17 || strtod(tmp, NULL) == v)
            break;
    }
    gs_pbuf_adds(b, tmp);
}

/* q value of one media range's parameters ("; q=0.5; version=..."), 1 if absent. */
static double prom_accept_q(const char *params, size_t len)
{
    const char *p = params, *end = params + len;
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
            p++;
        if (end - p > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            char num[16];
            size_t n = 0;
            for (p += 2; p < end && n < sizeof(num) - 1 && *p != ';'; p++)
                num[n++] = *p;
            num[n] = '\0';
            return strtod(num, NULL);
        }
        while (p < end && *p != ';')
            p++;
    }
    return 1.0;
}

/* Trimmed media type [s, s+len) equals t (case-insensitive)? */
static bool prom_type_is(const char *s, size_t len, const char *t)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return len == strlen(t) && !strncasecmp(s, t, len);
}

bool gs_prom_wants_openmetrics(const char *accept)
{
    double q_om = 0, q_text = 0;
    if (!accept)
        return false;
    for (const char *p = accept; *p;) {
        size_t len = strcspn(p, ",");
        size_t tlen = strcspn(p, ";,");
        double q = prom_accept_q(p + tlen, len - tlen);
        if (prom_type_is(p, tlen, "application/openmetrics-text"))
            q_om = q > q_om ? q : q_om;
        else if (prom_type_is(p, tlen, "text/plain") || prom_type_is(p, tlen, "text/*") ||
                 prom_type_is(p, tlen, "*/*"))
            q_text = q > q_text ? q : q_text;
        p += len;
        if (*p == ',')
            p++;
    }
    return q_om > 0 && q_om > q_text;
}

int gs_prom_format_age(char *dst, unsigned cap, double age_s, enum gs_prom_format fmt)
{
    const char *name = "gpuscope_exporter_last_sample_age_seconds";
    const char *help = "Seconds since the latest sample that read a GPU, at scrape time.";
    int n;
    if (fmt == GS_PROM_OPENMETRICS)
        n = snprintf(dst, cap, "# TYPE %s gauge\n# UNIT %s seconds\n# HELP %s %s\n%s %.3f\n", name,
                     name, name, help, name, age_s);
    else
        n = snprintf(dst, cap, "# HELP %s %s\n# TYPE %s gauge\n%s %.3f\n", name, help, name, name,
                     age_s);
    if (n < 0 || (unsigned)n >= cap) {
        if (cap)
            dst[0] = '\0';
        return 0;
    }
    return n;
}

/* One family of the per-scrape block: header, then its samples ("name{l} v\n" lines). */
static int prom_fmt_family(char *dst, size_t cap, const char *fam, const char *type, const char *help,
                           const char *samples, enum gs_prom_format fmt)
{
    size_t n = strlen(fam);
    if (fmt == GS_PROM_OPENMETRICS && !strcmp(type, "counter"))
        n -= strlen("_total");
    if (fmt == GS_PROM_OPENMETRICS)
        return snprintf(dst, cap, "# TYPE %.*s %s\n# HELP %.*s %s\n%s", (int)n, fam, type, (int)n, fam, help,
                        samples);
    return snprintf(dst, cap, "# HELP %s %s\n# TYPE %s %s\n%s", fam, help, fam, type, samples);
}

int gs_prom_format_http(char *dst, unsigned cap, const struct gs_prom_http *h, enum gs_prom_format fmt)
{
    char s[5][192];
    const char *conn = "gpuscope_exporter_http_connections";
    const char *closed = "gpuscope_exporter_http_connections_closed_total";
    const char *fail = "gpuscope_exporter_http_auth_failures_total";
    const char *thr = "gpuscope_exporter_http_auth_throttled_total";
    const char *chk = "gpuscope_exporter_http_auth_checks_total";
    size_t len = 0;
    int n;

    snprintf(s[0], sizeof(s[0]), "%s %u\n", conn, h->open);
    snprintf(s[1], sizeof(s[1]), "%s{reason=\"request_deadline\"} %llu\n%s{reason=\"connection_limit\"} %llu\n",
             closed, (unsigned long long)h->deadline_closed, closed, (unsigned long long)h->evicted);
    snprintf(s[2], sizeof(s[2]), "%s %llu\n", fail, (unsigned long long)h->auth_failed);
    snprintf(s[3], sizeof(s[3]), "%s %llu\n", thr, (unsigned long long)h->auth_throttled);
    snprintf(s[4], sizeof(s[4]), "%s %llu\n", chk, (unsigned long long)h->auth_checks);
    const char *fams[5][3] = {
        { conn, "gauge", "HTTP connections open at scrape time." },
        { closed, "counter", "HTTP connections the exporter closed to protect itself, by reason." },
        { fail, "counter", "Requests answered 401 (missing or wrong credentials)." },
        { thr, "counter", "Requests answered 429 because password checks were over their budget." },
        { chk, "counter", "Passwords checked with bcrypt (the others were answered from memory)." },
    };
    for (int i = 0; i < 5; i++) {
        n = prom_fmt_family(dst + len, cap - len, fams[i][0], fams[i][1], fams[i][2], s[i], fmt);
        if (n < 0 || (size_t)n >= cap - len) {
            if (cap)
                dst[0] = '\0';
            return 0;
        }
        len += (size_t)n;
    }
    return (int)len;
}
