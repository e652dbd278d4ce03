/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - UTF-8 validation and repair for text that comes from outside
 * (process names and command lines, container ids, driver strings): every
 * output that must be valid UTF-8 (Prometheus labels, JSON) repairs it the
 * same way, one U+FFFD per byte that is not part of a valid sequence, so a
 * process cannot blank or break its own entry with a bad byte.
 */
#ifndef GS_UTF8_H
#define GS_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1-4) of the valid UTF-8 sequence starting at s, 0 if s starts an
 * invalid one (truncated, overlong, surrogate, beyond U+10FFFF). s is
 * NUL-terminated; a NUL ends every sequence. */
unsigned gs_utf8_seq_len(const unsigned char *s);

/* Whether the NUL-terminated s is valid UTF-8. */
bool gs_utf8_valid(const char *s);

/* Copy src into dst (cap bytes, NUL-terminated), each invalid byte replaced by
 * U+FFFD; truncated at a character boundary when dst is too small. Returns
 * the length written. cap >= 3 * strlen(src) + 1 always suffices. */
size_t gs_utf8_repair(char *dst, size_t cap, const char *src);

#endif /* GS_UTF8_H */
