/* SPDX-License-Identifier: MIT */
/*
 * jobmap.h - the HPC job mapping directory of dcgm-exporter's
 * --hpc-job-mapping-dir (its internal/pkg/transformation/hpc.go): one file
 * per GPU, named by the GPU's index ("0") or, for a MIG GPU instance,
 * "<gpu>.<gpu instance id>" ("3.0"), holding the IDs of the jobs on it, one
 * per line. A Slurm prolog writes them (gpuscope slurm prolog, core/slurmjob.h),
 * the exporter labels each GPU's DCGM series with hpc_job, one series per job.
 *
 * Bounded where dcgm-exporter is not: a job ID is at most GS_JOBMAP_ID_MAX
 * printable ASCII bytes (Slurm's are a 32-bit number, "_task" for arrays,
 * "+component" for heterogeneous jobs), a file holds at most GS_JOBMAP_JOBS_MAX
 * distinct jobs and GS_JOBMAP_FILE_MAX bytes; a line outside that is left out
 * and reported, never turned into a label. Empty lines and duplicates are
 * skipped (dcgm-exporter would give a series with hpc_job="" or the same
 * series twice).
 */
#ifndef GS_CORE_JOBMAP_H
#define GS_CORE_JOBMAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define GS_JOBMAP_ID_MAX 64
#define GS_JOBMAP_JOBS_MAX 64
#define GS_JOBMAP_FILE_MAX 65536
#define GS_JOBMAP_DEFAULT_DIR "/var/run/nvidia/slurm" /* dcgm-exporter's tests and docs */

/* The jobs of one mapping file, as parsed. */
struct gs_jobmap_ids {
    unsigned n;                                /* jobs in id[] */
    unsigned rejected;                         /* lines left out (too long, bad bytes, too many) */
    unsigned bad_line;                         /* the first rejected line (1-based), 0: none */
    const char *bad_why;                       /* why it was left out (static text), or NULL */
    char id[GS_JOBMAP_JOBS_MAX][GS_JOBMAP_ID_MAX + 1];
};

/* Parse a mapping file's bytes (not NUL-terminated): lines split at '\n', a
 * trailing '\r' dropped (as Go's bufio.ScanLines), spaces and tabs around an
 * ID trimmed. Never fails; what it left out is counted in out. */
void gs_jobmap_parse(const char *buf, size_t len, struct gs_jobmap_ids *out);

/* Is name a mapping file's name (dcgm-exporter's ^\d+(\.\d+)?$, each number at
 * most 9 digits)? *gpu and *gi (UINT32_MAX without ".N") get its numbers. */
bool gs_jobmap_name(const char *name, uint32_t *gpu, uint32_t *gi);

/* Is id a job ID the mapping files may hold (1..GS_JOBMAP_ID_MAX printable
 * ASCII bytes, no space)? */
bool gs_jobmap_valid_id(const char *id);

/* One GPU's (or GPU instance's) jobs in a published map. */
struct gs_jobmap_gpu {
    uint32_t gpu, gi;       /* gi UINT32_MAX: the whole GPU */
    unsigned njobs;
    char **jobs;            /* sorted as the file lists them */
};

/* An immutable, reference-counted map of the directory at one moment. */
struct gs_jobmap {
    atomic_uint refs;
    unsigned n;             /* entries, sorted by (gpu, gi) */
    struct gs_jobmap_gpu *e;
};

struct gs_jobmap *gs_jobmap_ref(struct gs_jobmap *m);
void gs_jobmap_unref(struct gs_jobmap *m);
/* The jobs on GPU index gpu (gi UINT32_MAX) or on its instance gi; NULL: none. */
const struct gs_jobmap_gpu *gs_jobmap_find(const struct gs_jobmap *m, uint32_t gpu, uint32_t gi);

/* The directory watched by one thread (the exporter's sampler). */
struct gs_jobmap_dir;
/* path is copied; log_prefix ("gpuscope serve") is borrowed. NULL on OOM. */
struct gs_jobmap_dir *gs_jobmap_dir_new(const char *path, const char *log_prefix);
void gs_jobmap_dir_free(struct gs_jobmap_dir *d);
/* Look at the directory (a stat of it and of each mapping file) and re-read the
 * files when any changed (name, inode, size, modification or change time).
 * Problems go to stderr once per change: the directory missing or unreadable
 * (then no job is known), a file unreadable, too large or with lines left out.
 * Returns the current map (borrowed until the next call; take a reference to
 * keep it), NULL while the directory is missing or holds no job. */
struct gs_jobmap *gs_jobmap_dir_tick(struct gs_jobmap_dir *d);
/* Re-reads done so far (for tests and the benchmark). */
uint64_t gs_jobmap_dir_reads(const struct gs_jobmap_dir *d);

/* The writer side (Slurm prolog/epilog): add job to, or remove it from, the
 * file of GPU gpu in dir, atomically (a temporary file renamed over it, under
 * an flock on dir/.gpuscope.lock so two prologs do not lose each other's
 * lines). Adding a job already listed and removing one not listed change
 * nothing; a file left without jobs is removed. 0 or a negative gs_errc. */
int gs_jobmap_add(const char *dir, uint32_t gpu, const char *job, struct gs_err *err);
int gs_jobmap_remove(const char *dir, uint32_t gpu, const char *job, struct gs_err *err);

#endif /* GS_CORE_JOBMAP_H */
