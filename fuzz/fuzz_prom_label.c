/* SPDX-License-Identifier: MIT */
/*
 * fuzz_prom_label.c - libFuzzer harness for the exposition escaping
 * (gs_prom_escape_label, gs_prom_escape_help) and the Accept-header parser.
 * Checks, with an independent UTF-8 decoder: the escaped label is valid UTF-8
 * with no raw '"' or newline and only \\, \", \n escapes; unescaping it gives
 * the input back whenever the input was valid UTF-8.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "serve/pbuf.h"
#include "serve/prom.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


/* Valid UTF-8 (RFC 3629) over [s, s+n)? Decodes code points, unlike the code under test. */
static int valid_utf8(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i], len, cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xE0) == 0xC0)
            len = 2, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            len = 3, cp = c & 0x0F;
        else if ((c & 0xF8) == 0xF0)
            len = 4, cp = c & 0x07;
        else
            return 0;
        if (i + len > n)
            return 0;
        for (unsigned k = 1; k < len; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
            cp = (cp << 6) | (s[i + k] & 0x3F);
        }
        static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
        if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += len;
    }
    return 1;
}

/* Undo label escaping into out (>= n bytes); aborts on anything not allowed. */
static size_t unescape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\n')
            abort();
        if (s[i] != '\\') {
            out[o++] = s[i];
            continue;
        }
        if (++i >= n)
            abort();
        if (s[i] == '\\' || s[i] == '"')
            out[o++] = s[i];
        else if (s[i] == 'n')
            out[o++] = '\n';
        else
            abort();
    }
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    struct gs_pbuf b;
    if (!in)
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    size_t len = strlen(in);

    gs_pbuf_init(&b);
    gs_prom_escape_label(&b, in);
    if (!gs_pbuf_ok(&b) || !valid_utf8((const unsigned char *)(b.data ? b.data : ""), b.len))
        abort();
    char *back = malloc(b.len + 1);
    if (back) {
        size_t n = unescape(b.data ? b.data : "", b.len, back);
        if (valid_utf8((const unsigned char *)in, len) && (n != len || memcmp(back, in, len)))
            abort();
        free(back);
    }
    gs_pbuf_reset(&b);
    gs_prom_escape_help(&b, in, GS_PROM_OPENMETRICS);
    if (b.data && memchr(b.data, '\n', b.len))
        abort();
    gs_pbuf_release(&b);
    (void)gs_prom_wants_openmetrics(in);
    free(in);
    return 0;
}
