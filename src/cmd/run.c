/* SPDX-License-Identifier: MIT */
/*
 * run.c - `gpuscope run [options] -- COMMAND ...`: option parsing, then
 * src/record/runjob.c. Exits with the command's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "core/pyhook.h"
#include "record/record.h"

struct rargs {
    struct gs_run_opts o;
    bool python;
};

#define R ((struct rargs *)ctx)
static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
{
    int64_t ms;
    if (gs_parse_duration_ms(v[0], &ms) < 0 || ms <= 0)
        return gs_err_set(err, GS_E_USAGE, "bad --interval '%s'", v[0]);
    R->o.interval_ms = (uint32_t)ms;
    return 0;
}
static int o_step(void *ctx, const char *const *v, struct gs_err *err)
{
    if (gs_parse_duration_ms(v[0], &R->o.step_ms) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --step '%s'", v[0]);
    return 0;
}
/* COMMAND and its arguments: the rest of the line, options of its own included. */
static int o_command(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    R->o.argv = (char **)v;
    return 0;
}
#undef R

#define S(m) GS_OPT_STORE_STR(struct rargs, m)
static const struct gs_opt run_opts[] = {
    { NULL, 0, "COMMAND [ARGS...]", o_command, "the command to run, with its arguments", .comp = GS_COMP_COMMAND,
      .flags = GS_OPT_REST },
    { "--interval", 'd', "SECONDS", o_interval, "sampling interval (default 1)",
      .man = "The sampling interval (default 1)." },
    { "--db", 0, "FILE", NULL, "also keep the samples in this history database", .comp = GS_COMP_FILE, S(o.db),
      .man = "Also keep the samples in this history database." },
    { "--json", 0, NULL, NULL, "the summary as JSON", GS_OPT_STORE_TRUE(struct rargs, o.json),
      .man = "The summary as JSON." },
    { "--output", 'o', "FILE", NULL, "the summary into FILE instead of stderr", .comp = GS_COMP_FILE, S(o.output),
      .man = "The summary into\n"
        ".Ar FILE\n"
        "instead of standard error; a file that cannot be written is refused before\n"
        ".Ar command\n"
        "starts." },
    { "--python", 0, NULL, NULL, "load gpuscope's Python hook into Python processes of the job:\n"
      "PyTorch's allocator figures per process (docs/PYHOOK.md)", GS_OPT_STORE_TRUE(struct rargs, python),
      .man = "Load gpuscope's Python hook into the job's Python processes: PyTorch's\n"
        "allocator figures per process;\n"
        ".Xr gpuscope-pyhook 1 ." },
    { "--step", 0, "DURATION", o_step, "each tick advances time by DURATION without sleeping",
      .section = "test options (virtual time, docs/RECORD.md):",
      .man = "Virtual time for tests, as in\n"
        ".Xr gpuscope-record 1 ." },
    { "--clock-file", 0, "PATH", NULL, "write the scenario time there (GPUSCOPE_SIM_CLOCK=file:PATH)",
      .comp = GS_COMP_FILE, S(o.clock_file) },
};
#undef S

const struct gs_cli run_cli = {
    .name = "run",
    .usage = "gpuscope run [options] -- COMMAND [ARGS...]",
    .about = "Run COMMAND, record the GPUs for exactly its lifetime, then print (on stderr, like time)\n"
             "wall time, the GPUs its process tree used, utilization, peak GPU memory per process,\n"
             "energy, throttling, and warnings (input-pipeline stalls, memory climbs).",
    .opts = run_opts,
    .nopts = GS_NOPTS(run_opts),
};

/* The job's Python processes load the hook: its directory first on PYTHONPATH. */
static int run_python_env(void)
{
    char dir[4096], *val;
    const char *old = getenv("PYTHONPATH");
    if (gs_pyhook_python_dir(dir, sizeof(dir)) < 0) {
        fprintf(stderr, "gpuscope run: --python: the hook's Python files are not installed (python/hook in the "
                        "source tree, share/gpuscope/python-hook when installed)\n");
        return -1;
    }
    if (asprintf(&val, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "") < 0)
        return -1;
    setenv("PYTHONPATH", val, 1);
    setenv("GPUSCOPE_PYHOOK", "1", 1);
    free(val);
    return 0;
}

/* --output must be writable before the command starts: a summary that cannot
 * be written is found out now, not after a job of hours. */
static int check_output(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "gpuscope run: cannot write the summary to %s: %s; nothing was run\n", path,
                strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

int cmd_run(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct rargs a = { .o = { .interval_ms = 1000 } };
    struct gs_err err = { 0 };
    (void)ctx;
    int rc = gs_cli_parse(&run_cli, argc, argv, &a, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : gs_cli_fail(&run_cli, &err);
    if (!a.o.argv) {
        fprintf(stderr, "gpuscope run: which command? usage: gpuscope run -- COMMAND [ARGS...]\n");
        return GS_EXIT_USAGE;
    }
    struct gs_run_opts o = a.o;
    bool python = a.python;
    if (o.output && check_output(o.output) < 0)
        return GS_EXIT_USAGE;
    if (python && run_python_env() < 0)
        return GS_EXIT_FAILURE;
    int status = 0;
    if (gs_run_job(&o, &status, &err) < 0) {
        gs_err_print(&err);
        return err.code == GS_E_USAGE ? 127 : gs_exit_from_errc(err.code);
    }
    return status;
}
