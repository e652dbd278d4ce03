/* SPDX-License-Identifier: MIT */
/*
 * slurmjob.c - `gpuscope slurm prolog` and `epilog` (jobs.h, docs/SLURM.md):
 * the job and its GPUs from Slurm's environment, the HPC job mapping files
 * (core/jobmap.h, dcgm-exporter's layout), the job's row in the history
 * database, and at the end its summary (jobsum.c), appended to the job's
 * output when asked. An epilog must not fail for what only costs a report
 * (Slurm drains a node whose epilog fails): those are warnings.
 */
#include "record/jobs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/jobmap.h"
#include "lib/file.h"

extern char **environ;

/* ---- the job's GPUs ---------------------------------------------------------------------- */

int gs_job_parse_gpus(const char *s, unsigned *idx, unsigned cap, char *why, size_t whylen)
{
    unsigned n = 0;
    while (*s) {
        char *e;
        errno = 0;
        unsigned long a = strtoul(s, &e, 10), b = a;
        if (e == s || errno || a > 1023) {
            snprintf(why, whylen, "'%.40s' is not a GPU index%s", s,
                     !strncmp(s, "GPU-", 4) || !strncmp(s, "MIG-", 4) ? " (UUIDs are not taken: give indexes)" : "");
            return -1;
        }
        if (*e == '-') {
            const char *t = e + 1;
            b = strtoul(t, &e, 10);
            if (e == t || b < a || b > 1023) {
                snprintf(why, whylen, "'%.40s' is not a range of GPU indexes", s);
                return -1;
            }
        }
        if (*e && *e != ',') {
            snprintf(why, whylen, "'%.40s' is not a GPU index (UUIDs are not taken: give indexes)", s);
            return -1;
        }
        for (unsigned long i = a; i <= b; i++) {
            if (n == cap) {
                snprintf(why, whylen, "more than %u GPUs", cap);
                return -1;
            }
            idx[n++] = (unsigned)i;
        }
        s = *e ? e + 1 : e;
    }
    return (int)n;
}

unsigned gs_job_parse_devices(const char *buf, size_t len, unsigned *idx, unsigned cap)
{
    const char *end = buf + len;
    unsigned n = 0;
    for (const char *s = buf; s < end && n < cap;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        unsigned minor;
        char line[64];
        size_t l = (size_t)(e - s) < sizeof(line) - 1 ? (size_t)(e - s) : sizeof(line) - 1;
        memcpy(line, s, l);
        line[l] = '\0';
        if (sscanf(line, "c 195:%u", &minor) == 1 && minor < 255)
            idx[n++] = minor;
        s = e + 1;
    }
    return n;
}

/* The job's GPUs into list ("0,1"): --gpus, $SLURM_JOB_GPUS, $CUDA_VISIBLE_DEVICES, the
 * cgroup v1 devices controller of the job. 0, or a negative gs_errc. */
static int job_gpus(const struct gs_slurm_opts *o, const char *job, char *list, size_t cap, struct gs_err *err)
{
    static const char *const envs[] = { "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES" };
    unsigned idx[GS_JOB_MAX_GPUS];
    char why[160], path[1024], buf[8192];
    const char *src = o->gpus ? "--gpus" : NULL, *v = o->gpus;
    int n = 0;
    for (size_t i = 0; !v && i < sizeof(envs) / sizeof(envs[0]); i++)
        if ((v = getenv(envs[i])) && *v)
            src = envs[i];
        else
            v = NULL;
    if (v) {
        if ((n = gs_job_parse_gpus(v, idx, GS_JOB_MAX_GPUS, why, sizeof(why))) < 0)
            return gs_err_set(err, GS_E_USAGE, "job %s: %s=%s: %s", job, src, v, why);
    } else { /* cgroup v1: /slurm/... or, named by node, /slurm_<node>/... */
        const char *uid = getenv("SLURM_JOB_UID");
        char host[256] = "slurm_";
        gethostname(host + 6, sizeof(host) - 7);
        host[sizeof(host) - 1] = '\0';
        host[strcspn(host, ".")] = '\0';
        for (int k = 0; k < 2 && !n; k++) {
            snprintf(path, sizeof(path), "%s/devices/%s/uid_%s/job_%s/devices.list",
                     o->cgroup_root ? o->cgroup_root : "/sys/fs/cgroup", k ? host : "slurm", uid ? uid : "0", job);
            ssize_t len = gs_file_read_small(path, buf, sizeof(buf));
            if (len > 0)
                n = (int)gs_job_parse_devices(buf, (size_t)len, idx, GS_JOB_MAX_GPUS);
        }
    }
    list[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, cap - l, "%s%u", i ? "," : "", idx[i]);
    }
    return 0;
}

/* ---- the job's row ----------------------------------------------------------------------- */

static const char *job_id(const struct gs_slurm_opts *o, struct gs_err *err)
{
    const char *j = o->job ? o->job : getenv("SLURM_JOB_ID");
    if (!j || !*j) {
        gs_err_set(err, GS_E_USAGE, "no job: SLURM_JOB_ID is not set and no --job was given");
        gs_err_hint(err, "Run it as slurm.conf's Prolog/Epilog (slurmd sets SLURM_JOB_ID), or pass --job ID.");
        return NULL;
    }
    if (!gs_jobmap_valid_id(j)) {
        gs_err_set(err, GS_E_USAGE, "job ID '%.80s' is not one (1 to 64 printable characters, no space)", j);
        return NULL;
    }
    return j;
}

static int open_db(const struct gs_slurm_opts *o, struct gs_store **st, struct gs_err *err)
{
    char path[1024];
    const char *db = o->db;
    *st = NULL;
    if (db && !strcmp(db, "none"))
        return 0;
    if (!db) {
        if (gs_store_default_path(path, sizeof(path)) < 0)
            return gs_err_set(err, GS_E_USAGE, "no default history database location: pass --db FILE");
        db = path;
    }
    struct gs_store_opts so = { .path = db };
    return gs_store_open(st, &so, err);
}

static int exec_sql(struct gs_store *st, const char *sql, const char *const *text, int ntext, const int64_t *num,
                    int nnum, struct gs_err *err)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(gs_store_db(st), sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return gs_store_sqlerr(err, rc, gs_store_path(st), "writing the job table");
    for (int i = 0; i < ntext; i++)
        if (text[i])
            sqlite3_bind_text(q, i + 1, text[i], -1, SQLITE_TRANSIENT);
    for (int i = 0; i < nnum; i++)
        if (num[i] != INT64_MIN)
            sqlite3_bind_int64(q, ntext + i + 1, num[i]);
    rc = sqlite3_step(q);
    sqlite3_finalize(q);
    return rc == SQLITE_DONE ? 0 : gs_store_sqlerr(err, rc, gs_store_path(st), "writing the job table");
}

static int64_t now_ms(const struct gs_slurm_opts *o)
{
    return o->now_ms ? o->now_ms : gs_now_ms();
}

int gs_slurm_prolog(const struct gs_slurm_opts *o, struct gs_err *err)
{
    char gpus[512], why[160];
    unsigned idx[GS_JOB_MAX_GPUS];
    const char *job = job_id(o, err), *dir = o->mapping_dir ? o->mapping_dir : GS_JOBMAP_DEFAULT_DIR;
    int rc;
    if (!job)
        return -GS_E_USAGE;
    if ((rc = job_gpus(o, job, gpus, sizeof(gpus), err)) < 0)
        return rc;
    int n = gs_job_parse_gpus(gpus, idx, GS_JOB_MAX_GPUS, why, sizeof(why));
    for (int i = 0; strcmp(dir, "none") && i < n; i++)
        if ((rc = gs_jobmap_add(dir, idx[i], job, err)) < 0)
            return rc;
    struct gs_store *st;
    if ((rc = open_db(o, &st, err)) < 0 || !st)
        return rc;
    const char *uid = getenv("SLURM_JOB_UID"), *user = o->user ? o->user : getenv("SLURM_JOB_USER");
    const char *text[] = { job, user, gpus };
    const int64_t num[] = { uid && *uid ? strtoll(uid, NULL, 10) : INT64_MIN, now_ms(o) };
    /* a prolog run again (requeue) keeps the first start */
    rc = exec_sql(st, "INSERT INTO job(id, scheduler, user, gpus, uid, start_t) VALUES(?1, 'slurm', ?2, ?3, ?4, ?5)"
                      " ON CONFLICT(id) DO UPDATE SET gpus = excluded.gpus, end_t = NULL, summary = NULL",
                  text, 3, num, 2, err);
    if (rc == 0)
        rc = gs_store_event(st, num[1], -1, "job_start", 0, 0, job, err);
    gs_store_close(st);
    return rc;
}

/* ---- the epilog ------------------------------------------------------------------------ */

/* Remove job from every mapping file that lists it (whatever GPUs the environment names now). */
static int unmap_job(const char *dir, const char *job, struct gs_err *err)
{
    DIR *d = opendir(dir);
    int rc = 0;
    if (!d)
        return errno == ENOENT ? 0 : gs_err_set(err, GS_E_IO, "job mapping directory %s: %s", dir, strerror(errno));
    for (struct dirent *de; (de = readdir(d));) {
        uint32_t gpu, gi;
        if (gs_jobmap_name(de->d_name, &gpu, &gi) && gi == UINT32_MAX && rc == 0)
            rc = gs_jobmap_remove(dir, gpu, job, err);
    }
    closedir(d);
    return rc;
}

/* StdOut of `scontrol show job -o J` into path; 0 or -1. */
static int scontrol_stdout(const char *job, char *path, size_t cap)
{
    int fds[2];
    pid_t pid;
    char buf[16384];
    size_t have = 0;
    char a0[] = "scontrol", a1[] = "show", a2[] = "job", a3[] = "-o", a4[80];
    snprintf(a4, sizeof(a4), "%s", job);
    char *argv[] = { a0, a1, a2, a3, a4, NULL };
    posix_spawn_file_actions_t fa;
    if (pipe(fds) != 0)
        return -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    int rc = posix_spawnp(&pid, "scontrol", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    for (ssize_t n; rc == 0 && have < sizeof(buf) - 1 && (n = read(fds[0], buf + have, sizeof(buf) - 1 - have)) > 0;)
        have += (size_t)n;
    close(fds[0]);
    if (rc == 0)
        waitpid(pid, NULL, 0);
    buf[have] = '\0';
    const char *s = strstr(buf, " StdOut=");
    if (rc != 0 || !s)
        return -1;
    s += 8;
    snprintf(path, cap, "%.*s", (int)strcspn(s, " \n"), s);
    return path[0] ? 0 : -1;
}

/* Slurm's filename pattern (sbatch -o job-%j.out; SLURM_JOB_STDOUT holds it unexpanded)
 * into out: %j %J (job), %u (user), %x (job name), %N %n (node), %%. -1: another one
 * (%A, %a, %s, %t...: scontrol knows). */
static int expand_pattern(const char *p, const char *job, char *out, size_t cap)
{
    char host[256] = "";
    size_t n = 0;
    gethostname(host, sizeof(host) - 1);
    host[strcspn(host, ".")] = '\0';
    for (; *p && n + 1 < cap; p++) {
        const char *v = NULL;
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        switch (*++p) {
        case 'j': case 'J': v = job; break;
        case 'u': v = getenv("SLURM_JOB_USER"); break;
        case 'x': v = getenv("SLURM_JOB_NAME"); break;
        case 'N': case 'n': v = host; break;
        case '%': v = "%"; break;
        default: return -1;
        }
        if (!v)
            return -1;
        n += (size_t)snprintf(out + n, cap - n, "%s", v);
    }
    out[n < cap ? n : cap - 1] = '\0';
    return n + 1 < cap ? 0 : -1;
}

/* Append the text block to the job's output: a regular file the job's user owns, never a
 * link (the epilog is root; the user chose the name). 0 or a negative gs_errc. */
static int append_output(const struct gs_slurm_opts *o, const char *job, const char *json, struct gs_err *err)
{
    char path[4096], exp[4096];
    const char *p = o->job_output ? o->job_output : getenv("SLURM_JOB_STDOUT");
    if (p && strchr(p, '%'))
        p = expand_pattern(p, job, exp, sizeof(exp)) == 0 ? exp : NULL;
    if ((!p || !*p) && scontrol_stdout(job, path, sizeof(path)) == 0)
        p = path;
    if (!p || !*p)
        return gs_err_set(err, GS_E_USAGE, "job %s: its output file is unknown (no --job-output, no "
                          "SLURM_JOB_STDOUT, scontrol did not say)", job);
    int fd = open(p, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat sb;
    const char *uid = getenv("SLURM_JOB_UID");
    if (fd < 0)
        return gs_err_set(err, GS_E_IO, "job %s: cannot append to its output %s: %s", job, p, strerror(errno));
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (uid && *uid && sb.st_uid != (uid_t)strtoul(uid, NULL, 10))) {
        close(fd);
        return gs_err_set(err, GS_E_PERMISSION, "job %s: its output %s is not a regular file of the job's user; "
                          "not writing there", job, p);
    }
    FILE *f = fdopen(fd, "a");
    if (!f) {
        close(fd);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    gs_job_summary_text(json, f);
    return fclose(f) == 0 ? 0 : gs_err_set(err, GS_E_IO, "job %s: writing %s: %s", job, p, strerror(errno));
}

int gs_slurm_epilog(const struct gs_slurm_opts *o, FILE *out, struct gs_err *err)
{
    const char *job = job_id(o, err), *dir = o->mapping_dir ? o->mapping_dir : GS_JOBMAP_DEFAULT_DIR;
    struct gs_store *st;
    int rc;
    if (!job)
        return -GS_E_USAGE;
    if (strcmp(dir, "none") && (rc = unmap_job(dir, job, err)) < 0)
        return rc;
    if ((rc = open_db(o, &st, err)) < 0 || !st)
        return rc;
    int64_t t = now_ms(o);
    const char *text[] = { job };
    sqlite3_stmt *q;
    int first = 0;
    if (sqlite3_prepare_v2(gs_store_db(st), "SELECT end_t IS NULL FROM job WHERE id = ?1", -1, &q, NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, job, -1, SQLITE_STATIC);
        first = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    const int64_t num[] = { t };
    if (first && (rc = exec_sql(st, "UPDATE job SET end_t = ?2 WHERE id = ?1", text, 1, num, 1, err)) < 0)
        goto out;
    char *json = gs_job_summary_json(st, job, t, err);
    if (!json) {
        rc = -err->code;
        goto out;
    }
    const char *jt[] = { json, job };
    rc = exec_sql(st, "UPDATE job SET summary = ?1 WHERE id = ?2", jt, 2, NULL, 0, err);
    if (first)
        gs_store_event(st, t, -1, "job_end", 0, 0, job, NULL);
    if (out)
        gs_job_summary_text(json, out);
    if (rc == 0 && first && o->to_job_output)
        rc = append_output(o, job, json, err); /* an epilog run again does not append it twice */
    free(json);
out:
    gs_store_close(st);
    return rc;
}
