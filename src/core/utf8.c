/* SPDX-License-Identifier: MIT */
/*
 * utf8.c - UTF-8 validation and repair (see utf8.h).
 */
#include "core/utf8.h"

#include <string.h>

unsigned gs_utf8_seq_len(const unsigned char *s)
{
    unsigned char c = s[0];
    unsigned n;
    unsigned char lo = 0x80, hi = 0xBF;

    if (c < 0x80)
        return 1;
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

bool gs_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned n;

    while (*p) {
        if ((n = gs_utf8_seq_len(p)) == 0)
            return false;
        p += n;
    }
    return true;
}

size_t gs_utf8_repair(char *dst, size_t cap, const char *src)
{
    static const char fffd[] = "\xEF\xBF\xBD";
    const unsigned char *p = (const unsigned char *)src;
    size_t len = 0;

    if (!cap)
        return 0;
    while (*p) {
        unsigned n = gs_utf8_seq_len(p);
        const char *piece = n ? (const char *)p : fffd;
        size_t plen = n ? n : 3;
        if (len + plen >= cap)
            break;
        memcpy(dst + len, piece, plen);
        len += plen;
        p += n ? n : 1;
    }
    dst[len] = '\0';
    return len;
}
