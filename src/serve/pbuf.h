/* SPDX-License-Identifier: MIT */
/*
 * pbuf.h - a growable byte buffer for the exporter's renderings (Prometheus
 * text, OpenMetrics, small HTTP bodies). Appends never fail silently: on out
 * of memory the buffer is marked failed and later appends are no-ops, so a
 * renderer checks once at the end (gs_pbuf_ok) instead of after every line.
 */
#ifndef GS_SERVE_PBUF_H
#define GS_SERVE_PBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gs_pbuf {
    char *data;   /* NUL-terminated while !failed; owned */
    size_t len;   /* bytes in use, excluding the NUL */
    size_t cap;   /* bytes allocated */
    bool failed;  /* an allocation failed; contents are truncated */
};

void gs_pbuf_init(struct gs_pbuf *b);
void gs_pbuf_release(struct gs_pbuf *b);
/* Empty the buffer, keeping its memory (renderings reuse it tick after tick). */
void gs_pbuf_reset(struct gs_pbuf *b);
bool gs_pbuf_ok(const struct gs_pbuf *b);
void gs_pbuf_add(struct gs_pbuf *b, const char *s, size_t n);
void gs_pbuf_adds(struct gs_pbuf *b, const char *s);
void gs_pbuf_addc(struct gs_pbuf *b, char c);
/* Append v in decimal (no printf: the hot path of a rendering). */
void gs_pbuf_addu(struct gs_pbuf *b, uint64_t v);
void gs_pbuf_addf(struct gs_pbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Make room for n more bytes; false on out of memory. */
bool gs_pbuf_grow(struct gs_pbuf *b, size_t n);

#endif /* GS_SERVE_PBUF_H */
