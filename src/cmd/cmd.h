/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands. Adding one:
 *  1. write int cmd_foo(int argc, char **argv, const struct gs_cmd_ctx *ctx) in src/cmd/foo.c:
 *     option parsing plus one or two calls into modules, nothing more;
 *  2. declare it here;
 *  3. add { "foo", cmd_foo, flags, "one-line summary" } to commands[] in src/main.c;
 *  4. add tests/cli/ cases and a section in README.md.
 */
#ifndef GS_CMD_H
#define GS_CMD_H

#include <stdbool.h>

#include "core/exit.h" /* struct gs_cmd_ctx, the exit codes */

enum cmd_flags {
    CMD_LONG_RUNNING = 1 << 0, /* installs its own signal handling */
};

int cmd_query(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_gpustat(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_smi(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_top(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_serve(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_doctor(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_watch(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_record(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_report(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_run(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_mark(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_slurm(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_baseline(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_pyhook(int argc, char **argv, const struct gs_cmd_ctx *ctx);
int cmd_burn(int argc, char **argv, const struct gs_cmd_ctx *ctx);

#endif /* GS_CMD_H */
