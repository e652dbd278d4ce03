/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the subcommands. Adding one:
 *  1. write int cmd_foo(int argc, char **argv, const struct gs_cmd_ctx *ctx) in src/cmd/foo.c:
 *     option parsing plus one or two calls into modules, nothing more;
 *  2. declare it here;
 *  3. add { "foo", cmd_foo, NULL, flags, "one-line summary", &foo_cli } to commands[] in src/main.c;
 *  4. its options: one table, `const struct gs_cli foo_cli` (src/cmd/opts.h says how), declared
 *     below; then `make gen` writes man/gpuscope-foo.1's OPTIONS and the completions from it;
 *  5. add tests/cli/ cases and a section in README.md.
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

/* Each command's command line (cmd/opts.h), defined beside cmd_<name>: main.c's
 * commands[] points at those linked in, and finds a module's as the symbol. */
struct gs_cli;
extern const struct gs_cli query_cli, gpustat_cli, smi_cli, top_cli, serve_cli, doctor_cli, watch_cli, record_cli,
    report_cli, run_cli, mark_cli, slurm_cli, baseline_cli, pyhook_cli, burn_cli;

#endif /* GS_CMD_H */
