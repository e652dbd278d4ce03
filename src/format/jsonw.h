/* SPDX-License-Identifier: MIT */
/*
 * jsonw.h - a streaming JSON writer that lays its text out exactly as
 * jansson's json_dump* does with JSON_INDENT(2) or JSON_COMPACT (keys in the
 * order written, JSON_REAL_PRECISION(12) for reals), without building a tree:
 * a snapshot of 8 GPUs x 64 processes is ~20,000 values, and the tree cost
 * ten times the text (issue 11).
 *
 * Strings and reals are encoded by jansson itself (json_dumpb of a string or
 * real value: its escaping, its UTF-8 check, its number format); this file
 * only places brackets, commas, keys and indentation, and formats integers.
 * Keys are the caller's literals: plain ASCII names that need no escaping
 * (checked by tests/unit/test_jsonw.c against jansson's own dump).
 *
 * Output gathers in a buffer: written to a FILE every 16 KiB (gs_jw_init_file)
 * or kept in memory (gs_jw_init_mem, then gs_jw_take). Errors stick: after a
 * failed write or allocation every call is a no-op and gs_jw_finish says so.
 */
#ifndef GS_JSONW_H
#define GS_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GS_JW_MAX_DEPTH 32

struct json_t;

struct gs_jw {
    char *buf;
    size_t len, cap;
    FILE *out;            /* NULL: keep everything in buf */
    bool compact, failed;
    int depth;            /* containers open */
    uint32_t nonempty;    /* bit d: the container at depth d has an element */
    uint32_t is_array;    /* bit d: the container at depth d is an array */
    bool after_key;       /* a key was written; its value comes next */
    struct json_t *str;   /* jansson values reused for encoding */
    struct json_t *real;
};

/* 0, or -1 when out of memory (w is then failed but safe to finish). */
int gs_jw_init_file(struct gs_jw *w, FILE *out, bool compact);
int gs_jw_init_mem(struct gs_jw *w, bool compact);
/* Flush (file mode) and release; 0, or -1 when anything failed. */
int gs_jw_finish(struct gs_jw *w);
/* Memory mode: the text (NUL-terminated, caller frees) and its length; NULL
 * when anything failed. Releases w as gs_jw_finish does. */
char *gs_jw_take(struct gs_jw *w, size_t *len);

/* A line break after the top-level value (one NDJSON line per value). */
void gs_jw_newline(struct gs_jw *w);

/* An object member's key (a literal that needs no escaping); its value follows. */
void gs_jw_key(struct gs_jw *w, const char *key);
/* Key "prefix.key" (or "key" when prefix is empty). */
void gs_jw_key2(struct gs_jw *w, const char *prefix, const char *key);
/* The same with the lengths known (np 0: no prefix). */
void gs_jw_keyn(struct gs_jw *w, const char *prefix, size_t np, const char *key, size_t nk);
/* A literal key: its length is known at compile time. */
#define GS_JW_KEY(w, lit) gs_jw_keyn((w), "", 0, "" lit, sizeof(lit) - 1)

/* Values: as an array element, the object member after gs_jw_key, or the top. */
void gs_jw_obj(struct gs_jw *w); /* { ... gs_jw_end */
void gs_jw_arr(struct gs_jw *w); /* [ ... gs_jw_end */
void gs_jw_end(struct gs_jw *w);
void gs_jw_null(struct gs_jw *w);
void gs_jw_bool(struct gs_jw *w, bool v);
void gs_jw_int(struct gs_jw *w, int64_t v);
/* A string (jansson's encoding): -1 and null written instead when jansson
 * refuses it (not valid UTF-8). */
int gs_jw_str(struct gs_jw *w, const char *s);
/* A string that is null when empty (no reason: "none"); -1 as gs_jw_str. */
int gs_jw_str_or_null(struct gs_jw *w, const char *s);
/* A real (jansson's JSON_REAL_PRECISION(12) form): -1 and null written
 * instead when jansson refuses it (NaN, infinity). */
int gs_jw_real(struct gs_jw *w, double v);

#endif /* GS_JSONW_H */
