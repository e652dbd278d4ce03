/* SPDX-License-Identifier: MIT */
/*
 * jsonw.c - the streaming JSON writer (see jsonw.h). The layout rules are
 * jansson's (dump.c): after "{" or "[" and between elements a line break and
 * two spaces per depth (JSON_INDENT(2)), nothing in compact mode; ", " never
 * appears (compact: "," and ":"; indented: ",\n..." and ": "); an empty
 * container is "{}" or "[]".
 */
#include "format/jsonw.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

/* To a FILE, text goes out every 16 KiB: a one-shot's whole output need not sit
 * in memory (the 4 KiB over it hold the longest value without a regrowth). */
#define JW_FLUSH_AT 16384u
#define JW_FILE_INITIAL 20480u
#define JW_MEM_INITIAL 81920u
#define JW_REAL_FLAGS (JSON_ENCODE_ANY | JSON_REAL_PRECISION(12))


static int jw_init(struct gs_jw *w, FILE *out, bool compact)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->compact = compact;
    w->cap = out ? JW_FILE_INITIAL : JW_MEM_INITIAL;
    w->buf = malloc(w->cap);
    w->str = json_string("");
    w->real = json_real(0.0);
    if (!w->buf || !w->str || !w->real) {
        w->failed = true;
        return -1;
    }
    return 0;
}

int gs_jw_init_file(struct gs_jw *w, FILE *out, bool compact)
{
    return jw_init(w, out, compact);
}

int gs_jw_init_mem(struct gs_jw *w, bool compact)
{
    return jw_init(w, NULL, compact);
}

static void jw_flush(struct gs_jw *w)
{
    if (w->out && w->len && !w->failed && fwrite(w->buf, 1, w->len, w->out) != w->len)
        w->failed = true;
    if (w->out)
        w->len = 0;
}

/* Room for n more bytes (one NUL beyond them too); false when failed. */
static bool jw_room(struct gs_jw *w, size_t n)
{
    if (w->failed)
        return false;
    if (w->out && w->len + n > JW_FLUSH_AT)
        jw_flush(w);
    if (w->len + n + 1 > w->cap) {
        char *nb = n < SIZE_MAX - w->len - 1 ? gs_vec_grow(w->buf, &w->cap, w->len + n + 1, 1) : NULL;
        if (!nb) {
            w->failed = true;
            return false;
        }
        w->buf = nb;
    }
    return !w->failed;
}

static void jw_put(struct gs_jw *w, const char *text, size_t n)
{
    if (jw_room(w, n)) {
        memcpy(w->buf + w->len, text, n);
        w->len += n;
    }
}

/* Every reservation is JW_SLACK bytes larger than what it writes, so that
 * short runs (indentation, digits) can be copied in whole 16-byte moves. */
#define JW_SLACK 32u

/* Where n more bytes go (room made), or NULL when failed; advance with jw_done. */
static inline char *jw_at(struct gs_jw *w, size_t n)
{
    n += JW_SLACK;
    if (w->failed || (w->len + n + 1 > w->cap || (w->out && w->len + n > JW_FLUSH_AT)))
        if (!jw_room(w, n))
            return NULL;
    return w->buf + w->len;
}

static inline void jw_done(struct gs_jw *w, char *end)
{
    w->len = (size_t)(end - w->buf);
}

/* Copy n bytes (n <= 32) as two 16-byte moves: src has 32 readable bytes. */
static inline void jw_copy32(char *dst, const char *src, size_t n)
{
    memcpy(dst, src, 16);
    if (n > 16)
        memcpy(dst + 16, src + 16, 16);
}

/* Spaces for the deepest indentation plus a 16-byte move's overrun. */
#define JW_SPACES_16 "                "
static const char jw_spaces[2 * GS_JW_MAX_DEPTH + 16 + 1] =
    JW_SPACES_16 JW_SPACES_16 JW_SPACES_16 JW_SPACES_16 JW_SPACES_16;

/* The bytes before an element of the open container (at most 2 + 2 * depth):
 * "," after an earlier element, then jansson's dump_indent(depth): a line
 * break and two spaces per depth, nothing in compact mode. */
static inline size_t jw_sep_len(const struct gs_jw *w)
{
    return w->depth == 0 ? 0 : 2 + (w->compact ? 0 : 2 * (size_t)w->depth);
}

/* A line break and depth's indentation (indented mode); p has JW_SLACK spare. */
static inline char *jw_newline_indent(char *p, int depth)
{
    size_t n = 2 * (size_t)depth;

    *p++ = '\n';
    for (size_t i = 0; i < n; i += 16)
        memcpy(p + i, jw_spaces + i, 16);
    return p + n;
}

static inline char *jw_sep(struct gs_jw *w, char *p)
{
    uint32_t bit = 1u << w->depth;

    if (w->depth == 0)
        return p;
    if (w->nonempty & bit)
        *p++ = ',';
    w->nonempty |= bit;
    return w->compact ? p : jw_newline_indent(p, w->depth);
}

/* Room for a value of at most n bytes and what precedes it: the separator in
 * an array (or at the top), nothing after a key. NULL when failed. */
static inline char *jw_value_at(struct gs_jw *w, size_t n)
{
    char *p = jw_at(w, n + jw_sep_len(w));

    if (!p)
        return NULL;
    if (w->after_key) {
        w->after_key = false;
        return p;
    }
    return jw_sep(w, p);
}

void gs_jw_newline(struct gs_jw *w)
{
    jw_put(w, "\n", 1);
}

void gs_jw_key(struct gs_jw *w, const char *key)
{
    gs_jw_keyn(w, "", 0, key, strlen(key));
}

void gs_jw_key2(struct gs_jw *w, const char *prefix, const char *key)
{
    gs_jw_keyn(w, prefix, strlen(prefix), key, strlen(key));
}

void gs_jw_keyn(struct gs_jw *w, const char *prefix, size_t np, const char *key, size_t nk)
{
    char *p = jw_at(w, jw_sep_len(w) + np + nk + 5);

    if (!p)
        return;
    p = jw_sep(w, p);
    *p++ = '"';
    if (np) {
        memcpy(p, prefix, np);
        p += np;
        *p++ = '.';
    }
    memcpy(p, key, nk);
    p += nk;
    *p++ = '"';
    *p++ = ':';
    if (!w->compact)
        *p++ = ' ';
    jw_done(w, p);
    w->after_key = true;
}

/* A literal token (brackets, null, true, false, digits) as a value. */
static void jw_token(struct gs_jw *w, const char *text, size_t n)
{
    char *p = jw_value_at(w, n);

    if (p) {
        memcpy(p, text, n);
        jw_done(w, p + n);
    }
}

static void jw_open(struct gs_jw *w, char c, bool array)
{
    if (w->depth + 1 >= GS_JW_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    jw_token(w, &c, 1);
    w->depth++;
    w->nonempty &= ~(1u << w->depth);
    if (array)
        w->is_array |= 1u << w->depth;
    else
        w->is_array &= ~(1u << w->depth);
}

void gs_jw_obj(struct gs_jw *w)
{
    jw_open(w, '{', false);
}

void gs_jw_arr(struct gs_jw *w)
{
    jw_open(w, '[', true);
}

void gs_jw_end(struct gs_jw *w)
{
    uint32_t bit = 1u << w->depth;
    char c = w->is_array & bit ? ']' : '}';

    if (w->depth == 0) {
        w->failed = true;
        return;
    }
    w->depth--;
    char *p = jw_at(w, 2 + 2 * (size_t)w->depth);
    if (!p)
        return;
    if ((w->nonempty & bit) && !w->compact) { /* jansson's dump_indent(depth) */
        *p++ = '\n';
        memset(p, ' ', 2 * (size_t)w->depth);
        p += 2 * (size_t)w->depth;
    }
    *p++ = c;
    jw_done(w, p);
}

void gs_jw_null(struct gs_jw *w)
{
    jw_token(w, "null", 4);
}

void gs_jw_bool(struct gs_jw *w, bool v)
{
    if (v)
        jw_token(w, "true", 4);
    else
        jw_token(w, "false", 5);
}

/* Integers as jansson prints them ("%" JSON_INTEGER_FORMAT: plain decimal). */
void gs_jw_int(struct gs_jw *w, int64_t v)
{
    char tmp[48], *end = tmp + 24, *d = end; /* 24 spare bytes after the digits */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char *p = jw_value_at(w, 20);

    do {
        *--d = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--d = '-';
    if (p) {
        jw_copy32(p, d, (size_t)(end - d));
        jw_done(w, p + (end - d));
    }
}

/* jansson's own text of v (a string or real) appended; -1 when it cannot dump it. */
static int jw_dump(struct gs_jw *w, const json_t *v, size_t flags)
{
    for (int tries = 0; tries < 2; tries++) {
        if (!jw_room(w, 0))
            return 0; /* failed already: sticks */
        size_t avail = w->cap - w->len - 1;
        size_t need = json_dumpb(v, w->buf + w->len, avail, flags);
        if (need == 0)
            return -1;
        if (need <= avail) {
            w->len += need;
            return 0;
        }
        if (!jw_room(w, need))
            return 0;
    }
    w->failed = true;
    return 0;
}

/* Would jansson copy s[0..n) between its quotes unchanged? It escapes only
 * '"', '\\' and bytes below 0x20 (JSON_ESCAPE_SLASH and JSON_ENSURE_ASCII
 * are not used) and checks UTF-8, so printable ASCII without those two comes
 * out as it went in. Anything else is encoded by jansson itself; no text is
 * escaped here (tests/unit/test_jsonw.c compares both ways byte by byte). */
static bool jw_verbatim(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\')
            return false;
    }
    return true;
}

int gs_jw_str(struct gs_jw *w, const char *s)
{
    size_t n = strlen(s);

    if (jw_verbatim(s, n)) {
        char *p = jw_value_at(w, n + 2);
        if (p) {
            *p++ = '"';
            memcpy(p, s, n);
            p += n;
            *p++ = '"';
            jw_done(w, p);
        }
        return 0;
    }
    char *p = jw_value_at(w, 0);
    if (!p)
        return 0;
    jw_done(w, p); /* the separator stays; jansson's text follows it */
    if (json_string_setn(w->str, s, n) < 0 || jw_dump(w, w->str, JSON_ENCODE_ANY) < 0) {
        jw_put(w, "null", 4);
        return -1;
    }
    return 0;
}

int gs_jw_str_or_null(struct gs_jw *w, const char *s)
{
    if (!s || !s[0]) {
        gs_jw_null(w);
        return 0;
    }
    return gs_jw_str(w, s);
}

int gs_jw_real(struct gs_jw *w, double v)
{
    char *p = jw_value_at(w, 0);
    if (!p)
        return 0;
    jw_done(w, p);
    if (json_real_set(w->real, v) < 0 || jw_dump(w, w->real, JW_REAL_FLAGS) < 0) {
        jw_put(w, "null", 4);
        return -1;
    }
    return 0;
}

static void jw_release(struct gs_jw *w)
{
    free(w->buf);
    w->buf = NULL;
    json_decref(w->str);
    json_decref(w->real);
    w->str = w->real = NULL;
}

int gs_jw_finish(struct gs_jw *w)
{
    bool ok;

    jw_flush(w);
    ok = !w->failed && w->depth == 0;
    jw_release(w);
    return ok ? 0 : -1;
}

char *gs_jw_take(struct gs_jw *w, size_t *len)
{
    char *text = NULL;

    if (!w->failed && w->depth == 0 && !w->out) {
        w->buf[w->len] = '\0';
        text = w->buf;
        *len = w->len;
        w->buf = NULL;
    }
    jw_release(w);
    return text;
}
