/* SPDX-License-Identifier: MIT */
/*
 * smi_argv.h - nvidia-smi's spellings of options that the option table's
 * parser (cmd/opts.h) reads otherwise, rewritten before it runs; for
 * `gpuscope query` and `gpuscope smi`, whose command lines are nvidia-smi's.
 */
#ifndef GS_CMD_SMI_ARGV_H
#define GS_CMD_SMI_ARGV_H

#include "cmd/opts.h"

/* A copy of argv (*out, free() it) where "-lms" (nvidia-smi's one
 * multi-letter short option) is "--loop-ms" and "-i=0" (a short option with
 * "=value") is "--id" "0", for the options of cli's table. The values of
 * options, and everything after "--", stay as they are. Returns the new argc,
 * or -1 when out of memory. */
int gs_smi_argv(const struct gs_cli *cli, int argc, char **argv, char ***out);

#endif /* GS_CMD_SMI_ARGV_H */
