/* SPDX-License-Identifier: MIT */
/*
 * jobmap_write.c - the writer side of the HPC job mapping directory
 * (jobmap.h): adding a job to a GPU's file and removing it, for the Slurm
 * prolog and epilog. Each change is a new file renamed over the old one, so
 * a reader (dcgm-exporter, gpuscope serve) sees the old list or the new one,
 * never half a file; an flock on the directory's lock file orders writers.
 */
#include "core/jobmap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define JM_LOCK ".gpuscope.lock" /* not a mapping file's name: readers ignore it */

static int jm_lock(const char *dir, struct gs_err *err)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/%s", dir, JM_LOCK) >= (int)sizeof(path))
        return gs_err_set(err, GS_E_USAGE, "job mapping directory %.200s: path too long", dir);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO,
                          "cannot create job mapping directory %.200s: %s", dir, strerror(errno));
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO, "cannot open %.300s: %s", path,
                          strerror(errno));
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int e = errno;
            close(fd);
            return gs_err_set(err, GS_E_IO, "cannot lock %.300s: %s", path, strerror(e));
        }
    }
    return fd;
}

/* The current jobs of GPU gpu's file (none when it does not exist). */
static int jm_load(const char *path, struct gs_jobmap_ids *ids, struct gs_err *err)
{
    char *buf = malloc(GS_JOBMAP_FILE_MAX + 1);
    int rc = 0;
    ids->n = 0;
    if (!buf)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno != ENOENT)
            rc = gs_err_set(err, GS_E_IO, "cannot read job mapping file %.300s: %s", path, strerror(errno));
        free(buf);
        return rc;
    }
    ssize_t n = read(fd, buf, GS_JOBMAP_FILE_MAX + 1);
    if (n < 0)
        rc = gs_err_set(err, GS_E_IO, "cannot read job mapping file %.300s: %s", path, strerror(errno));
    else if (n > GS_JOBMAP_FILE_MAX)
        rc = gs_err_set(err, GS_E_PARSE, "job mapping file %.300s is larger than 64 KiB: not a mapping file",
                        path);
    else
        gs_jobmap_parse(buf, (size_t)n, ids); /* lines it rejects are dropped: they were never jobs */
    close(fd);
    free(buf);
    return rc;
}

/* Write ids as path (via path.tmp and a rename), or remove path when empty. */
static int jm_store(const char *path, const struct gs_jobmap_ids *ids, struct gs_err *err)
{
    char tmp[4200];
    if (!ids->n) {
        if (unlink(path) != 0 && errno != ENOENT)
            return gs_err_set(err, GS_E_IO, "cannot remove %.300s: %s", path, strerror(errno));
        return 0;
    }
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    if (!f)
        return gs_err_set(err, GS_E_IO, "cannot write %.300s: %s", tmp, strerror(errno));
    for (unsigned k = 0; k < ids->n; k++)
        fprintf(f, "%s\n", ids->id[k]);
    bool bad = fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (bad || chmod(tmp, 0644) != 0 || rename(tmp, path) != 0) {
        if (!bad)
            e = errno;
        unlink(tmp);
        return gs_err_set(err, GS_E_IO, "cannot write job mapping file %.300s: %s", path, strerror(e));
    }
    return 0;
}

static int jm_change(const char *dir, uint32_t gpu, const char *job, bool add, struct gs_err *err)
{
    char path[4096];
    struct gs_jobmap_ids *ids;
    int rc, lock;

    if (!gs_jobmap_valid_id(job))
        return gs_err_set(err, GS_E_USAGE, "job ID '%.80s' cannot go in a job mapping file (1 to 64 printable "
                          "ASCII characters, no space)", job);
    if (snprintf(path, sizeof(path), "%s/%u", dir, gpu) >= (int)sizeof(path))
        return gs_err_set(err, GS_E_USAGE, "job mapping directory %.200s: path too long", dir);
    if ((lock = jm_lock(dir, err)) < 0)
        return lock;
    if (!(ids = malloc(sizeof(*ids)))) {
        close(lock);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    if ((rc = jm_load(path, ids, err)) < 0)
        goto out;
    unsigned k = 0;
    while (k < ids->n && strcmp(ids->id[k], job))
        k++;
    if (add && k == ids->n) {
        if (ids->n == GS_JOBMAP_JOBS_MAX) {
            rc = gs_err_set(err, GS_E_USAGE, "%.300s already lists 64 jobs: not adding %s", path, job);
            goto out;
        }
        snprintf(ids->id[ids->n++], sizeof(ids->id[0]), "%s", job);
    } else if (!add && k < ids->n) {
        memmove(ids->id[k], ids->id[k + 1], (size_t)(ids->n - k - 1) * sizeof(ids->id[0]));
        ids->n--;
    } else {
        goto out; /* already there / not there: nothing to change */
    }
    rc = jm_store(path, ids, err);
out:
    free(ids);
    close(lock);
    return rc;
}

int gs_jobmap_add(const char *dir, uint32_t gpu, const char *job, struct gs_err *err)
{
    return jm_change(dir, gpu, job, true, err);
}

int gs_jobmap_remove(const char *dir, uint32_t gpu, const char *job, struct gs_err *err)
{
    return jm_change(dir, gpu, job, false, err);
}
