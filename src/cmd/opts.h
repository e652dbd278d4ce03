/* SPDX-License-Identifier: MIT */
/*
 * opts.h - command-line options from one table per command, so parsing,
 * --help (and, later, completions and man pages) cannot drift apart. Used by
 * doctor and watch. A row: long name, optional one-letter alias, the
 * metavariable (NULL: a flag; "A B": two values), the setter and the help line.
 * "--name=value" and "--name value" both work; values are checked by setters.
 */
#ifndef GS_CMD_OPTS_H
#define GS_CMD_OPTS_H

#include <stdio.h>

#include "core/err.h"

struct gs_opt {
    const char *lng;    /* "--window" */
    char shrt;          /* 'i' for -i, or 0 */
    const char *arg;    /* "DUR", "xid N" (two words: two values), or NULL for a flag */
    /* v[0] (and v[1]) are the values (NULL for a flag). Returns 0 to go on,
     * GS_OPT_DONE to stop with exit 0 (--help, --explain), or a negative errc. */
    int (*set)(void *ctx, const char *const *v, struct gs_err *err);
    const char *help;
};
#define GS_OPT_DONE 1

/* Parse argv[1..] against the table; ctx goes to every setter. Returns 0, GS_OPT_DONE or a negative errc. */
int gs_opts_parse(const struct gs_opt *t, size_t n, int argc, char **argv, void *ctx, const char *cmd,
                  struct gs_err *err);
/* The options block of --help, from the table. */
void gs_opts_help(FILE *out, const struct gs_opt *t, size_t n);

#endif /* GS_CMD_OPTS_H */
