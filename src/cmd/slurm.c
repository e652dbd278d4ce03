/* SPDX-License-Identifier: MIT */
/*
 * slurm.c - `gpuscope slurm prolog|epilog`: option parsing, then
 * src/record/slurmjob.c. Called from slurm.conf's Prolog= and Epilog=
 * (docs/SLURM.md). A failed epilog drains the node in Slurm, so problems
 * that only cost the summary are printed and the epilog's exit status stays
 * 0; --strict makes them fatal (for tests and for operators who prefer it).
 * A prolog with bad input (no job ID, GPUs that are not indexes) fails.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "core/jobmap.h"
#include "record/jobs.h"

struct sargs {
    struct gs_slurm_opts o;
    bool strict;
    const char *what;
};

static int o_at(void *ctx, const char *const *v, struct gs_err *err)
{
    char why[256];
    if (gs_parse_time_why(v[0], gs_now_ms(), &((struct sargs *)ctx)->o.now_ms, why, sizeof(why)) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --at '%s': %s", v[0], why);
    return 0;
}

#define S(m) GS_OPT_STORE_STR(struct sargs, m)
#define T(m) GS_OPT_STORE_TRUE(struct sargs, m)
static const struct gs_opt slurm_opts[] = {
    { NULL, 0, "prolog|epilog", NULL, "which of the two Slurm runs", .comp = GS_COMP_CHOICES, S(what) },
    { "--job", 0, "ID", NULL, "the job (default $SLURM_JOB_ID)", S(o.job),
      .man = "The job (default\n"
        ".Ev SLURM_JOB_ID ) ." },
    { "--user", 0, "NAME", NULL, "its user (default $SLURM_JOB_USER)", S(o.user),
      .man = "Its user (default\n"
        ".Ev SLURM_JOB_USER ) ." },
    { "--gpus", 0, "LIST", NULL, "its GPU indexes, 0,1 or 0-3 (default $SLURM_JOB_GPUS, else\n"
      "$CUDA_VISIBLE_DEVICES, else the job's cgroup v1 devices)", S(o.gpus),
      .man = "Its GPU indexes,\n"
        ".Ql 0,1\n"
        "or\n"
        ".Ql 0-3\n"
        "(default\n"
        ".Ev SLURM_JOB_GPUS ,\n"
        "else\n"
        ".Ev CUDA_VISIBLE_DEVICES ,\n"
        "else the devices the job's cgroup v1 allows)." },
    { "--mapping-dir", 0, "DIR", NULL, "the mapping files' directory (default " GS_JOBMAP_DEFAULT_DIR
      "; none: no files)", .comp = GS_COMP_DIR, S(o.mapping_dir),
      .man = "The mapping files' directory (default\n"
        ".Pa /var/run/nvidia/slurm ;\n"
        ".Cm none :\n"
        "no files)." },
    { "--db", 0, "FILE", NULL, "the history database `gpuscope record` writes (default its default; none:\n"
      "no database, mapping files only)", .comp = GS_COMP_FILE, S(o.db),
      .man = "The history database (default: where\n"
        ".Xr gpuscope-record 1\n"
        "writes;\n"
        ".Cm none :\n"
        "mapping files only)." },
    { "--to-job-output", 0, NULL, NULL, "epilog: append the summary to the job's output (--job-output FILE,\n"
      "else $SLURM_JOB_STDOUT, else scontrol's StdOut)", T(o.to_job_output),
      .man = "Epilog: append the summary to the job's output file, once." },
    { "--job-output", 0, "FILE", NULL, "that file", .comp = GS_COMP_FILE, S(o.job_output),
      .man = "That file (default\n"
        ".Ev SLURM_JOB_STDOUT\n"
        "with its\n"
        ".Ql %j\n"
        "patterns expanded, else what scontrol says)." },
    { "--strict", 0, NULL, NULL, "exit non-zero when the summary cannot be made (default: a warning, exit 0)",
      T(strict),
      .man = "Exit non-zero when the summary cannot be made." },
    { "--at", 0, "TIME", o_at, "the job's start (prolog) or end (epilog) instead of now (as mark --at)",
      .man = "The job's start (prolog) or end (epilog) instead of now." },
    { "--cgroup-root", 0, "DIR", NULL, "where the cgroup v1 hierarchies are mounted (default /sys/fs/cgroup)",
      .comp = GS_COMP_DIR, S(o.cgroup_root),
      .man = "Where the cgroup v1 hierarchies are mounted (default\n"
        ".Pa /sys/fs/cgroup ) ." },
};
#undef S
#undef T

const struct gs_cli slurm_cli = {
    .name = "slurm",
    .usage = "gpuscope slurm prolog|epilog [options]",
    .about = "For slurm.conf's Prolog= and Epilog= (run by slurmd as root, with SLURM_JOB_ID and the job's GPUs\n"
             "in the environment). The prolog lists the job in the HPC job mapping files of its GPUs (what\n"
             "`gpuscope serve --hpc-job-mapping-dir` and dcgm-exporter read) and marks its start in the history\n"
             "database; the epilog removes it from the files and writes its GPU summary (see `report --job`).",
    .opts = slurm_opts,
    .nopts = GS_NOPTS(slurm_opts),
};

int cmd_slurm(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct sargs a = { 0 };
    struct gs_err err = { 0 };
    (void)ctx;
    int prc = gs_cli_parse(&slurm_cli, argc, argv, &a, &err);
    if (prc)
        return prc > 0 ? GS_EXIT_OK : gs_cli_fail(&slurm_cli, &err);
    struct gs_slurm_opts o = a.o;
    bool strict = a.strict;
    const char *what = a.what ? a.what : "";
    bool prolog = !strcmp(what, "prolog");
    if (!prolog && strcmp(what, "epilog")) {
        fprintf(stderr, "gpuscope slurm: say prolog or epilog; see 'gpuscope slurm --help'\n");
        return GS_EXIT_USAGE;
    }
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
