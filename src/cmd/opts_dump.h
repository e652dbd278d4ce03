/* SPDX-License-Identifier: MIT */
/*
 * opts_dump.h - every command's option table as JSON (`gpuscope --dump-options`),
 * the input of scripts/gen-cli.
 */
#ifndef GS_CMD_OPTS_DUMP_H
#define GS_CMD_OPTS_DUMP_H

#include <stdio.h>

#include "cmd/opts.h"

struct gs_cli_entry {
    const char *name;
    const char *summary;
    const struct gs_cli *cli; /* NULL: the command is not on an option table (yet) */
};

/* Writes {"global": ..., "commands": [{name, summary, cli}, ...]}; 0 or -1. */
int gs_cli_dump(FILE *out, const struct gs_cli *global, const struct gs_cli_entry *e, size_t n);

#endif /* GS_CMD_OPTS_DUMP_H */
