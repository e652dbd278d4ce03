/* SPDX-License-Identifier: MIT */
/*
 * run.c - `gpuscope run [options] -- COMMAND ...`: option parsing, then
 * src/record/runjob.c. Exits with the command's status.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/pyhook.h"
#include "record/record.h"

static void run_usage(FILE *out)
{
    fprintf(out,
        "usage: gpuscope run [options] -- COMMAND [ARGS...]\n\n"
        "Run COMMAND, record the GPUs for exactly its lifetime, then print (on stderr, like time)\n"
        "wall time, the GPUs its process tree used, utilization, peak GPU memory per process,\n"
        "energy, throttling, and warnings (input-pipeline stalls, memory climbs).\n\n"
        "  -d, --interval SECONDS  sampling interval (default 1)\n"
        "  --db FILE               also keep the samples in this history database\n"
        "  --json                  the summary as JSON\n"
        "  -o, --output FILE       the summary into FILE instead of stderr\n"
        "  --python                load gpuscope's Python hook into Python processes of the job:\n"
        "                          PyTorch's allocator figures per process (docs/PYHOOK.md)\n"
        "test options: --step DURATION --clock-file PATH (virtual time, docs/RECORD.md)\n");
}

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
    enum { O_DB = 256, O_JSON, O_STEP, O_CLOCK, O_PYTHON };
    static const struct option lo[] = {
        { "interval", 1, NULL, 'd' }, { "db", 1, NULL, O_DB }, { "json", 0, NULL, O_JSON },
        { "output", 1, NULL, 'o' }, { "step", 1, NULL, O_STEP }, { "clock-file", 1, NULL, O_CLOCK },
        { "python", 0, NULL, O_PYTHON },
        { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    struct gs_run_opts o = { .interval_ms = 1000 };
    int64_t ms;
    int c;
    bool python = false;
    (void)ctx;
    while ((c = getopt_long(argc, argv, "+d:o:h", lo, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (gs_parse_duration_ms(optarg, &ms) < 0 || ms <= 0) {
                fprintf(stderr, "gpuscope run: bad --interval '%s'\n", optarg);
                return GS_EXIT_USAGE;
            }
            o.interval_ms = (uint32_t)ms;
            break;
        case O_DB: o.db = optarg; break;
        case O_JSON: o.json = true; break;
        case 'o': o.output = optarg; break;
        case O_STEP:
            if (gs_parse_duration_ms(optarg, &o.step_ms) < 0) {
                fprintf(stderr, "gpuscope run: bad --step '%s'\n", optarg);
                return GS_EXIT_USAGE;
            }
            break;
        case O_CLOCK: o.clock_file = optarg; break;
        case O_PYTHON: python = true; break;
        case 'h': run_usage(stdout); return GS_EXIT_OK;
        default: run_usage(stderr); return GS_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gpuscope run: which command? usage: gpuscope run -- COMMAND [ARGS...]\n");
        return GS_EXIT_USAGE;
    }
    o.argv = argv + optind;
    if (o.output && check_output(o.output) < 0)
        return GS_EXIT_USAGE;
    if (python && run_python_env() < 0)
        return GS_EXIT_FAILURE;
    struct gs_err err = { 0 };
    int status = 0;
    if (gs_run_job(&o, &status, &err) < 0) {
        gs_err_print(&err);
        return err.code == GS_E_USAGE ? 127 : gs_exit_from_errc(err.code);
    }
    return status;
}
