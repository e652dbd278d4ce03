/* SPDX-License-Identifier: MIT */
/*
 * slurm.c - `gpuscope slurm prolog|epilog`: option parsing, then
 * src/record/slurmjob.c. Called from slurm.conf's Prolog= and Epilog=
 * (docs/SLURM.md). A failed epilog drains the node in Slurm, so problems
 * that only cost the summary are printed and the epilog's exit status stays
 * 0; --strict makes them fatal (for tests and for operators who prefer it).
 * A prolog with bad input (no job ID, GPUs that are not indexes) fails.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/jobmap.h"
#include "record/jobs.h"

static void slurm_usage(FILE *out)
{
    fprintf(out,
        "usage: gpuscope slurm prolog|epilog [options]\n\n"
        "For slurm.conf's Prolog= and Epilog= (run by slurmd as root, with SLURM_JOB_ID and the job's GPUs\n"
        "in the environment). The prolog lists the job in the HPC job mapping files of its GPUs (what\n"
        "`gpuscope serve --hpc-job-mapping-dir` and dcgm-exporter read) and marks its start in the history\n"
        "database; the epilog removes it from the files and writes its GPU summary (see `report --job`).\n\n"
        "  --job ID             the job (default $SLURM_JOB_ID)\n"
        "  --user NAME          its user (default $SLURM_JOB_USER)\n"
        "  --gpus LIST          its GPU indexes, 0,1 or 0-3 (default $SLURM_JOB_GPUS, else\n"
        "                       $CUDA_VISIBLE_DEVICES, else the job's cgroup v1 devices)\n"
        "  --mapping-dir DIR    the mapping files' directory (default " GS_JOBMAP_DEFAULT_DIR "; none: no files)\n"
        "  --db FILE            the history database `gpuscope record` writes (default its default; none: no\n"
        "                       database, mapping files only)\n"
        "  --to-job-output      epilog: append the summary to the job's output (--job-output FILE, else\n"
        "                       $SLURM_JOB_STDOUT, else scontrol's StdOut)\n"
        "  --job-output FILE    that file\n"
        "  --strict             exit non-zero when the summary cannot be made (default: a warning, exit 0)\n"
        "  --at TIME            the job's start (prolog) or end (epilog) instead of now (as mark --at)\n"
        "  --cgroup-root DIR    where the cgroup v1 hierarchies are mounted (default /sys/fs/cgroup)\n");
}

int cmd_slurm(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    enum { O_JOB = 256, O_USER, O_GPUS, O_DIR, O_DB, O_TOOUT, O_OUT, O_STRICT, O_CG, O_AT };
    static const struct option lo[] = {
        { "job", 1, NULL, O_JOB },         { "user", 1, NULL, O_USER },      { "gpus", 1, NULL, O_GPUS },
        { "mapping-dir", 1, NULL, O_DIR }, { "db", 1, NULL, O_DB },          { "to-job-output", 0, NULL, O_TOOUT },
        { "job-output", 1, NULL, O_OUT },  { "strict", 0, NULL, O_STRICT },  { "cgroup-root", 1, NULL, O_CG },
        { "at", 1, NULL, O_AT },           { "help", 0, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    struct gs_slurm_opts o = { 0 };
    bool strict = false;
    char why[256];
    int c;
    (void)ctx;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_JOB: o.job = optarg; break;
        case O_USER: o.user = optarg; break;
        case O_GPUS: o.gpus = optarg; break;
        case O_DIR: o.mapping_dir = optarg; break;
        case O_DB: o.db = optarg; break;
        case O_TOOUT: o.to_job_output = true; break;
        case O_OUT: o.job_output = optarg; break;
        case O_STRICT: strict = true; break;
        case O_CG: o.cgroup_root = optarg; break;
        case O_AT:
            if (gs_parse_time_why(optarg, gs_now_ms(), &o.now_ms, why, sizeof(why)) < 0) {
                fprintf(stderr, "gpuscope slurm: bad --at '%s': %s\n", optarg, why);
                return GS_EXIT_USAGE;
            }
            break;
        case 'h': slurm_usage(stdout); return GS_EXIT_OK;
        default: slurm_usage(stderr); return GS_EXIT_USAGE;
        }
    }
    const char *what = optind < argc ? argv[optind] : "";
    bool prolog = !strcmp(what, "prolog");
    if ((!prolog && strcmp(what, "epilog")) || optind + 1 != argc) {
        fprintf(stderr, "gpuscope slurm: say prolog or epilog; see 'gpuscope slurm --help'\n");
        return GS_EXIT_USAGE;
    }
    struct gs_err err = { 0 };
    int rc = prolog ? gs_slurm_prolog(&o, &err) : gs_slurm_epilog(&o, stdout, &err);
    if (rc == 0)
        return GS_EXIT_OK;
    gs_err_print(&err);
    if (strict || (prolog && err.code == GS_E_USAGE))
        return gs_exit_from_errc(err.code);
    fprintf(stderr, "gpuscope slurm %s: exit status 0 all the same, so that Slurm does not drain the node "
                    "(--strict to fail)\n", what);
    return GS_EXIT_OK;
}
