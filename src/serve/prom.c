/* SPDX-License-Identifier: MIT */
/*
 * prom.c - the exposition-format primitives: label and HELP escaping (with
 * UTF-8 repair), number formatting, Accept-header negotiation and the
 * per-scrape age family. The families themselves are in prom_render.c.
 */
#include "serve/prom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Length of the valid UTF-8 sequence starting at s (1-4), 0 if invalid
 * (truncated, overlong, surrogate, beyond U+10FFFF). s is NUL-terminated. */
static unsigned prom_utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    unsigned n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (unsigned i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

void gs_prom_escape_label(struct gs_pbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        /* copy the longest run that needs no change in one go */
        const unsigned char *run = p;
        unsigned n;
        while (*p && *p != '\\' && *p != '"' && *p != '\n' && (n = prom_utf8_len(p)) > 0)
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
