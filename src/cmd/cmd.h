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

/* What main() has worked out before calling a subcommand. */
struct gs_cmd_ctx {
    bool demo;               /* --demo: running on the bundled simulator */
    const char *nvml_lib;    /* library to load (NULL: default search) */
};

enum cmd_flags {
    CMD_LONG_RUNNING = 1 << 0, /* installs its own signal handling */
};

/* Exit codes shared by all subcommands (documented in README.md). */
enum gs_exit {
    GS_EXIT_OK = 0,
    GS_EXIT_FAILURE = 1,     /* runtime failure not covered below */
    GS_EXIT_USAGE = 2,       /* bad flag, field or argument */
    GS_EXIT_NO_NVML = 3,     /* NVML library or driver unusable */
    GS_EXIT_NO_GPU = 4,      /* no GPU found, or none matched -i */
    GS_EXIT_PARTIAL = 5,     /* output produced, but some GPU or field failed (e.g. GPU lost) */
};
/* Map an error class (enum gs_errc) to the exit code above. */
int gs_exit_from_errc(int errc);

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
