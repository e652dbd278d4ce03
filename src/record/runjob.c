/* SPDX-License-Identifier: MIT */
/*
 * runjob.c - `gpuscope run -- COMMAND`: start the command (held at a pipe
 * until sampling is ready, so no GPU activity is missed), record into a store
 * for exactly its lifetime, and print what it used, like time(1): wall time,
 * the GPUs its process tree touched, utilization, peak GPU memory per
 * process, energy from the energy-counter deltas, throttling, and warnings
 * (input-pipeline sawtooth, steady memory climb).
 */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/sampler.h"

#define RUN_MAX_PROCS 256
#define RUN_MAX_SERIES 4096

struct run_proc {
    uint32_t pid;
    char name[96];
    uint64_t gpus;            /* bit per gpu.id */
    double peak_mib, first_mib, last_mib;
    unsigned nsamples, rises, falls;
};

struct run_state {
    pid_t child;
    struct run_proc procs[RUN_MAX_PROCS];
    unsigned nprocs;
    uint64_t gpus;            /* gpu ids the tree used */
};

/* Is pid the child or one of its descendants? Walks /proc/PID/stat parents. */
static bool in_tree(pid_t root, uint32_t pid)
{
    char path[64], buf[512];
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        if ((pid_t)pid == root)
            return true;
        snprintf(path, sizeof(path), "/proc/%u/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return false;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *rp = strrchr(buf, ')');
        unsigned ppid;
        if (!rp || sscanf(rp + 2, "%*c %u", &ppid) != 1)
            return false;
        pid = ppid;
    }
    return false;
}

static int store_gpu_id(const struct gs_gpu *g) { return (int)g->st.index; }

static void track(struct run_state *rs, const struct gs_snapshot *snap)
{
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        for (uint32_t k = 0; k < g->nprocs; k++) {
            const struct gs_proc *p = &g->procs[k];
            if (!in_tree(rs->child, p->pid))
                continue;
            struct run_proc *rp = NULL;
            for (unsigned j = 0; j < rs->nprocs; j++)
                if (rs->procs[j].pid == p->pid)
                    rp = &rs->procs[j];
            if (!rp && rs->nprocs < RUN_MAX_PROCS) {
                rp = &rs->procs[rs->nprocs++];
                memset(rp, 0, sizeof(*rp));
                rp->pid = p->pid;
                rp->peak_mib = NAN;
                snprintf(rp->name, sizeof(rp->name), "%s", p->name[0] ? p->name : p->comm);
            }
            if (!rp)
                continue;
            rp->gpus |= 1ull << (store_gpu_id(g) & 63);
            rs->gpus |= 1ull << (store_gpu_id(g) & 63);
            if (gs_proc_has(p, GS_P_GPU_MEM)) {
                double mib = (double)p->gpu_mem_bytes / 1048576.0;
                if (rp->nsamples == 0)
                    rp->first_mib = mib;
                else if (mib > rp->last_mib + 0.5)
                    rp->rises++;
                else if (mib < rp->last_mib - 0.5)
                    rp->falls++;
                rp->last_mib = mib;
                rp->nsamples++;
                if (isnan(rp->peak_mib) || mib > rp->peak_mib)
                    rp->peak_mib = mib;
            }
        }
    }
}

/* ---- the child ------------------------------------------------------------------------ */
static pid_t spawn_held(char **argv, int *release_fd, int *exec_err_fd)
{
    int go[2], ee[2];
    if (pipe(go) < 0 || pipe2(ee, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        close(ee[0]);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL); /* the parent blocks SIGCHLD for its own wait */
        signal(SIGINT, SIG_DFL);
        signal(SIGQUIT, SIG_DFL);
        if (read(go[0], &c, 1) != 1)
            _exit(126); /* the parent gave up before starting us */
        close(go[0]);
        execvp(argv[0], argv);
        int e = errno;
        if (write(ee[1], &e, sizeof(e)) < 0) {
            /* nothing more to say */
        }
        _exit(127);
    }
    close(go[0]);
    close(ee[1]);
    *release_fd = go[1];
    *exec_err_fd = ee[0];
    return pid;
}

/* ---- warnings -------------------------------------------------------------------------- */
/* A sawtooth: utilization alternating between ~0 % and high, several times. */
static void warn_sawtooth(struct gs_store *st, int gpu, int64_t from, int64_t to, json_t *warnings, FILE *txt)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(gs_store_db(st), "SELECT util_pct FROM sample WHERE gpu = ?1 AND t >= ?2 AND t <= ?3"
                           " AND util_pct IS NOT NULL ORDER BY t", -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, from);
    sqlite3_bind_int64(q, 3, to);
    unsigned n = 0, low = 0, high = 0, cycles = 0;
    int state = 0; /* 1 high, -1 low */
    while (sqlite3_step(q) == SQLITE_ROW) {
        int u = sqlite3_column_int(q, 0);
        n++;
        if (u <= 10) {
            low++;
            state = -1;
        } else if (u >= 60) {
            high++;
            if (state == -1)
                cycles++;
            state = 1;
        }
    }
    sqlite3_finalize(q);
    if (n >= 10 && cycles >= 3 && low * 100 >= n * 15 && high * 100 >= n * 30) {
        char msg[256];
        snprintf(msg, sizeof(msg), "GPU %d: utilization saw-tooths between ~0 %% and high (%u cycles, idle %.0f %% "
                 "of the time): an input-pipeline stall? (data loader workers, prefetching, storage)", gpu, cycles,
                 100.0 * low / n);
        json_array_append_new(warnings, json_string(msg));
        fprintf(txt, "  warning: %s\n", msg);
    }
}

static void warn_climb(const struct run_state *rs, double elapsed_s, json_t *warnings, FILE *txt)
{
    for (unsigned i = 0; i < rs->nprocs; i++) {
        const struct run_proc *p = &rs->procs[i];
        double grew = p->last_mib - p->first_mib;
        if (p->nsamples < 8 || grew < 256 || grew < 0.1 * p->first_mib || p->falls * 10 > p->rises)
            continue;
        char msg[256];
        snprintf(msg, sizeof(msg), "PID %u (%s): GPU memory climbed steadily from %.0f to %.0f MiB (%+.0f MiB/min): "
                 "a leak?", p->pid, p->name, p->first_mib, p->last_mib, grew / (elapsed_s > 0 ? elapsed_s : 1) * 60);
        json_array_append_new(warnings, json_string(msg));
        fprintf(txt, "  warning: %s\n", msg);
    }
}

/* ---- the summary -------------------------------------------------------------------------- */
static uint64_t ids_of_indexes(struct gs_store *st, uint64_t idx_mask)
{
    sqlite3_stmt *q;
    uint64_t ids = 0;
    if (sqlite3_prepare_v2(gs_store_db(st), "SELECT id, idx FROM gpu", -1, &q, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(q) == SQLITE_ROW)
        if (idx_mask & (1ull << (sqlite3_column_int(q, 1) & 63)))
            ids |= 1ull << (sqlite3_column_int(q, 0) & 63);
    sqlite3_finalize(q);
    return ids;
}

static json_t *gpu_json(const struct gs_gpu_summary *g, FILE *txt)
{
    json_t *j = json_object(), *thr = json_object();
    json_object_set_new(j, "index", json_integer(g->idx));
    json_object_set_new(j, "uuid", json_string(g->uuid));
    json_object_set_new(j, "name", json_string(g->name));
    json_object_set_new(j, "util_mean_pct", isnan(g->util_mean) ? json_null() : json_real(round(g->util_mean * 10) / 10));
    json_object_set_new(j, "util_p95_pct", isnan(g->util_p95) ? json_null() : json_real(g->util_p95));
    json_object_set_new(j, "mem_peak_mib", isnan(g->mem_peak_mib) ? json_null() : json_real(g->mem_peak_mib));
    json_object_set_new(j, "energy_j", isnan(g->energy_j) ? json_null() : json_real(round(g->energy_j * 10) / 10));
    json_object_set_new(j, "energy_from_power", json_boolean(g->energy_estimated));
    fprintf(txt, "  GPU %d %s: util mean %.1f %%, p95 %.0f %%, peak memory %.0f MiB, energy %.1f J%s\n", g->idx, g->name,
            g->util_mean, g->util_p95, g->mem_peak_mib, g->energy_j, g->energy_estimated ? " (from power)" : "");
    for (int b = 1; b < 16; b++) {
        if (g->throttled_s[b] <= 0)
            continue;
        char name[64];
        gs_throttle_str(1ull << b, name, sizeof(name));
        json_object_set_new(thr, name, json_real(round(g->throttled_s[b] * 10) / 10));
        fprintf(txt, "    throttled %.1f s: %s\n", g->throttled_s[b], name);
    }
    json_object_set_new(j, "throttled_s", thr);
    return j;
}

static void run_report(struct gs_store *st, const struct gs_run_opts *o, const struct run_state *rs, int64_t t0,
                       int64_t t1, double wall_s, int status)
{
    struct gs_summary sum;
    struct gs_err err = { 0 };
    char *txtbuf = NULL;
    size_t txtlen = 0;
    FILE *txt = open_memstream(&txtbuf, &txtlen);
    json_t *root = json_object(), *gpus = json_array(), *procs = json_array(), *warnings = json_array();
    uint64_t ids = ids_of_indexes(st, rs->gpus);
    double energy = 0;
    fprintf(txt, "gpuscope run: %s exited with status %d after %.2f s (wall)\n", o->argv[0], status, wall_s);
    if (!rs->gpus)
        fprintf(txt, "  no GPU process in its process tree\n");
    else if (gs_summarize(st, t0, t1 + 1, ids, -1, &sum, &err) == 0) {
        for (unsigned i = 0; i < sum.ngpus; i++) {
            json_array_append_new(gpus, gpu_json(&sum.g[i], txt));
            if (!isnan(sum.g[i].energy_j))
                energy += sum.g[i].energy_j;
        }
        fprintf(txt, "  energy: %.1f J = %.6f kWh (whole GPUs, from the energy counters)\n", energy, energy / 3.6e6);
        for (unsigned i = 0; i < sum.ngpus; i++)
            warn_sawtooth(st, sum.g[i].id, t0, t1, warnings, txt);
    }
    for (unsigned i = 0; i < rs->nprocs; i++) {
        const struct run_proc *p = &rs->procs[i];
        json_t *jp = json_object(), *jg = json_array();
        json_object_set_new(jp, "pid", json_integer(p->pid));
        json_object_set_new(jp, "name", json_string(p->name));
        json_object_set_new(jp, "gpu_mem_peak_mib", isnan(p->peak_mib) ? json_null() : json_real(p->peak_mib));
        for (int b = 0; b < 64; b++)
            if (p->gpus & (1ull << b))
                json_array_append_new(jg, json_integer(b));
        json_object_set_new(jp, "gpus", jg);
        json_array_append_new(procs, jp);
        fprintf(txt, "  PID %u %s: peak GPU memory %.0f MiB\n", p->pid, p->name, p->peak_mib);
    }
    warn_climb(rs, (double)(t1 - t0) / 1000.0, warnings, txt);
    fclose(txt);
    json_object_set_new(root, "command", json_string(o->argv[0]));
    json_object_set_new(root, "exit_status", json_integer(status));
    json_object_set_new(root, "wall_s", json_real(round(wall_s * 1000) / 1000));
    json_object_set_new(root, "gpus", gpus);
    json_object_set_new(root, "processes", procs);
    json_object_set_new(root, "energy_j", json_real(round(energy * 10) / 10));
    json_object_set_new(root, "energy_kwh", json_real(energy / 3.6e6));
    json_object_set_new(root, "warnings", warnings);
    FILE *out = o->output ? fopen(o->output, "w") : stderr;
    if (!out)
        out = stderr;
    if (o->json)
        json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12)), fputc('\n', out);
    else
        fputs(txtbuf, out);
    if (out != stderr)
        fclose(out);
    free(txtbuf);
    json_decref(root);
}

/* ---- the loop ------------------------------------------------------------------------------ */
static int wait_child(pid_t child, uint32_t timeout_ms, int *status)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
    if (timeout_ms)
        sigtimedwait(&set, NULL, &ts);
    return waitpid(child, status, WNOHANG) == child;
}

static void clock_write(const char *path, double t_s)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%.3f\n", t_s);
        fclose(f);
    }
}

int gs_run_job(const struct gs_run_opts *o, int *exit_status, struct gs_err *err)
{
    struct run_state rs = { 0 };
    int release, exec_err, status = 0, rc = 0;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    rs.child = spawn_held(o->argv, &release, &exec_err);
    if (rs.child < 0)
        return gs_err_set(err, GS_E_IO, "cannot start %s: %s", o->argv[0], strerror(errno));
    struct gs_store_opts so = { .path = o->db ? o->db : ":memory:", .writer = true, .interval_ms = o->interval_ms,
                              .virtual_time = o->step_ms > 0 };
    struct gs_store *st = NULL;
    struct gs_sampler *s = NULL;
    struct gs_sampler_opts sopt = GS_SAMPLER_OPTS_INIT;
    sopt.slow = GS_SLOW_SKIP; /* no worker thread: PCIe rates are not part of a job summary */
    if (gs_store_open(&st, &so, err) < 0 || gs_sampler_open(&s, &sopt, err) < 0) {
        close(release); /* the child exits without running the command */
        waitpid(rs.child, NULL, 0);
        gs_store_close(st);
        return -err->code;
    }
    signal(SIGINT, SIG_IGN); /* like time(1): Ctrl-C is for the command */
    signal(SIGQUIT, SIG_IGN);
    struct gs_snapshot snap;
    gs_snapshot_init(&snap);
    int64_t t0 = gs_now_ms(), t = t0;
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    if (write(release, "g", 1) != 1)
        rc = gs_err_set(err, GS_E_IO, "cannot start %s", o->argv[0]);
    close(release);
    int e = 0;
    if (read(exec_err, &e, sizeof(e)) == sizeof(e))
        rc = gs_err_set(err, GS_E_USAGE, "cannot run %s: %s", o->argv[0], strerror(e));
    close(exec_err);
    for (uint64_t tick = 0;; tick++) {
        if (o->clock_file)
            clock_write(o->clock_file, (double)tick * (double)o->step_ms / 1000.0);
        struct gs_err serr = { 0 };
        gs_sampler_snapshot(s, &snap, &serr);
        t = o->step_ms ? t0 + (int64_t)tick * o->step_ms : gs_now_ms();
        track(&rs, &snap);
        if (gs_store_write_tick(st, t, &snap, true, &serr) < 0)
            gs_err_print(&serr);
        if (wait_child(rs.child, o->interval_ms, &status))
            break;
    }
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double wall = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;
    *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc == 0)
        run_report(st, o, &rs, t0, t, wall, *exit_status);
    gs_store_finish(st, t, err);
    gs_snapshot_release(&snap);
    gs_sampler_close(s);
    gs_store_close(st);
    return rc;
}
