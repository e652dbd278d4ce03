/* SPDX-License-Identifier: MIT */
/*
 * pbuf.c - the exporter's growable buffer (see pbuf.h). It grows by the one
 * growth policy (lib/vec.h, gs_vec_grow: doubling), so a rendering that is
 * about the same size every tick stops allocating after the first one.
 *
 * Why a byte buffer of its own rather than a gs_vec of bytes: it is a string
 * builder (always NUL-terminated, printf-style appends) whose failure is
 * sticky, so the 100-odd appends of one rendering need no checks and the
 * renderer asks gs_pbuf_ok() once. A gs_vec reports each failed push.
 */
#include "serve/pbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

void gs_pbuf_init(struct gs_pbuf *b)
{
    memset(b, 0, sizeof(*b));
}

void gs_pbuf_release(struct gs_pbuf *b)
{
    free(b->data);
    gs_pbuf_init(b);
}

void gs_pbuf_reset(struct gs_pbuf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->data)
        b->data[0] = '\0';
}

bool gs_pbuf_ok(const struct gs_pbuf *b)
{
    return !b->failed;
}

bool gs_pbuf_grow(struct gs_pbuf *b, size_t n)
{
    if (b->failed)
        return false;
    if (n >= SIZE_MAX / 2 - b->len) {
        b->failed = true;
        return false;
    }
    size_t want = b->len + n + 1;
    if (want <= b->cap)
        return true;
    char *p = gs_vec_grow(b->data, &b->cap, want, 1);
    if (!p) {
        b->failed = true; /* sticky: the renderer checks once, at the end */
        return false;
    }
    b->data = p;
    return true;
}

void gs_pbuf_add(struct gs_pbuf *b, const char *s, size_t n)
{
    if (b->len + n >= b->cap && !gs_pbuf_grow(b, n)) /* cap > len + n: room for the NUL */
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void gs_pbuf_adds(struct gs_pbuf *b, const char *s)
{
    gs_pbuf_add(b, s, strlen(s));
}

void gs_pbuf_addc(struct gs_pbuf *b, char c)
{
    if (b->len + 1 >= b->cap && !gs_pbuf_grow(b, 1))
        return;
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void gs_pbuf_addu(struct gs_pbuf *b, uint64_t v)
{
    char tmp[24], *p = tmp + sizeof(tmp);
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    gs_pbuf_add(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void gs_pbuf_addf(struct gs_pbuf *b, const char *fmt, ...)
{
    va_list ap;
    char small[128];

    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        gs_pbuf_add(b, small, (size_t)n);
        return;
    }
    if (!gs_pbuf_grow(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}
