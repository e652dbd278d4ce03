/* SPDX-License-Identifier: MIT */
/*
 * scenario_read.h - the line reader both simulators' scenario files use (the
 * NVML simulator's sim/scenario.c and the DRM simulator's sim/drm/drmsim_scn.c):
 * reading a file, joining '\'-continued lines, splitting a line into words
 * ("quoted" values, parentheses, '#' comments) and "<file>:<line>: " messages.
 * What the words mean is each simulator's own business.
 */
#ifndef GS_SIM_SCENARIO_READ_H
#define GS_SIM_SCENARIO_READ_H

#include <stdarg.h>
#include <stddef.h>

#define GS_SCN_MAX_WORDS 96 /* words on one logical line */

/* Where a reader is: every message starts "<fname>:<line>: ". */
struct gs_scn_where {
    const char *fname;
    int line;     /* first physical line of the logical line being read */
    char *err;    /* the caller's message buffer */
    size_t errlen;
};

/* Record "<fname>:<line>: <message>" in at->err; always returns -1. */
int gs_scn_where_err(struct gs_scn_where *at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gs_scn_where_verr(struct gs_scn_where *at, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Split a logical line in place into at most GS_SCN_MAX_WORDS words. A word ends
 * at blank space outside quotes and parentheses; quotes are removed ("a b" -> a b,
 * \" and \\ escape inside them); '#' outside quotes ends the line.
 * Returns the word count, or -1 with the message in at->err. */
int gs_scn_split(struct gs_scn_where *at, char *line, char **words);

/* Call line(arg, text) for each logical line of text (len bytes, need not be
 * NUL-terminated; a NUL byte reads as a blank): physical lines whose last
 * non-blank character is '\' are joined. at->line is set before each call.
 * Stops at the first non-zero return and returns it; 0 at the end; -1 with
 * "<fname>:0: out of memory" in at->err. */
int gs_scn_each_line(struct gs_scn_where *at, const char *text, size_t len,
                     int (*line)(void *arg, char *text), void *arg);

/* Read a whole scenario file (at most 16 MiB). Returns a malloc'ed buffer the
 * caller frees (never NULL on success, even for an empty file) and its length
 * in *len; NULL with "<path>: <why>" in err. */
char *gs_scn_read_file(const char *path, size_t *len, char *err, size_t errlen);

/* The scenario's default name: path's base name up to its first '.' (at most 63 chars). */
void gs_scn_default_name(const char *path, char *name, size_t len);

#endif /* GS_SIM_SCENARIO_READ_H */
