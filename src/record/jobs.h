/* SPDX-License-Identifier: MIT */
/*
 * jobs.h - HPC jobs in the history database (docs/SLURM.md): the Slurm prolog
 * and epilog (`gpuscope slurm prolog|epilog`, slurmjob.c) and the per-job and
 * per-user accounting read back by `gpuscope report --job / --user`
 * (jobsum.c). The job table is schema 5 (store.c); the samples are what
 * `gpuscope record` writes, with each process's Slurm job from its cgroup.
 */
#ifndef GS_RECORD_JOBS_H
#define GS_RECORD_JOBS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"
#include "record/store.h"

#define GS_JOB_MAX_GPUS 64

struct gs_slurm_opts {
    const char *job;          /* job ID; NULL: $SLURM_JOB_ID */
    const char *user;         /* NULL: $SLURM_JOB_USER */
    const char *gpus;         /* "0,1"; NULL: $SLURM_JOB_GPUS, $CUDA_VISIBLE_DEVICES, the job's cgroup devices */
    const char *mapping_dir;  /* NULL: GS_JOBMAP_DEFAULT_DIR; "none": no mapping files */
    const char *db;           /* NULL: the default history database; "none": no database */
    const char *cgroup_root;  /* NULL: /sys/fs/cgroup (cgroup v1 devices controller) */
    bool to_job_output;       /* epilog: append the summary to the job's output file */
    const char *job_output;   /* that file; NULL: $SLURM_JOB_STDOUT, else scontrol's StdOut */
    int64_t now_ms;           /* 0: the clock */
};

int gs_slurm_prolog(const struct gs_slurm_opts *o, struct gs_err *err);
/* The summary block goes to out too (the epilog's log), and with to_job_output
 * to the job's output file the first time the job ends. */
int gs_slurm_epilog(const struct gs_slurm_opts *o, FILE *out, struct gs_err *err);

/* GPU indexes from "0,1,3" (also "0-3" ranges); -1 on anything else, why filled. */
int gs_job_parse_gpus(const char *s, unsigned *idx, unsigned cap, char *why, size_t whylen);
/* GPU indexes a cgroup v1 devices.list allows (NVIDIA's character devices 195:N, N < 255). */
unsigned gs_job_parse_devices(const char *buf, size_t len, unsigned *idx, unsigned cap);

/* ---- accounting (jobsum.c) ---- */
/* The job's summary as a JSON text (malloc'd) over [start, end or now_ms). */
char *gs_job_summary_json(struct gs_store *st, const char *job, int64_t now_ms, struct gs_err *err);
/* The short text block of a summary JSON (what the epilog appends to the job's output). */
void gs_job_summary_text(const char *json, FILE *out);
/* `report --job J`: the stored summary (or, while it runs, one made now); json: as JSON. */
int gs_report_job(const char *db, const char *job, bool json, FILE *out, struct gs_err *err);
/* `report --user U` (NULL: every user) over [from, to): GPU-hours, idle GPU-hours and energy per job and in all. */
int gs_report_user(const char *db, const char *user, int64_t from_ms, int64_t to_ms, bool json, FILE *out,
                   struct gs_err *err);

#endif /* GS_RECORD_JOBS_H */
