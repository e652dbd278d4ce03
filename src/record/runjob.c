/* SPDX-License-Identifier: MIT */
/*
 * runjob.c - `gpuscope run -- COMMAND`: take a first sample, start the command
 * (held at a pipe until then, so no GPU activity is missed), record into a
 * store for its lifetime, sample once more when it exits, and hand what it
 * used to the summary (runsum.c), like time(1).
 *
 * Signals. The command stays in gpuscope's process group (as with time(1), so
 * the terminal's Ctrl-C reaches it). SIGTERM, SIGHUP, SIGINT and SIGQUIT never
 * stop gpuscope run: it waits for the command and still writes the summary
 * with the command's status. Whether to pass such a signal on depends on who
 * else got it: `timeout` signals the whole process group, systemd and Slurm
 * every process of the unit or job, and then the command has it already (a
 * second SIGTERM can cut a graceful shutdown short); `kill PID` reaches
 * gpuscope alone, and then it is forwarded. A sentinel, a tiny child of
 * gpuscope in the same group and cgroup that only reports the signals it
 * receives, tells the two apart: if the sentinel got it too, so did the command.
 */
#include "record/runjob.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/pyhook.h"
#include "core/sampler.h"
#include "lib/clock.h"
#include "lib/file.h"
#include "lib/procstat.h"
#include "lib/roots.h"

/* ---- the job's process tree ---------------------------------------------------------- */
/* Is pid the child or one of its descendants? Walks /proc/PID/stat parents (the
 * real /proc: the job is a real process); each GPU process is judged once (a
 * process cannot join or leave the tree while it lives). */
static bool walk_tree(pid_t root, uint32_t pid)
{
    char path[64], buf[1024];
    struct gs_proc_stat st;
    for (int depth = 0; depth < 64 && pid > 1; depth++) {
        if ((pid_t)pid == root)
            return true;
        if (gs_path(path, sizeof(path), "%s/%u/stat", gs_proc_root(NULL), pid) < 0)
            return false;
        ssize_t n = gs_file_read_small(path, buf, sizeof(buf));
        if (n <= 0 || gs_proc_stat_parse(buf, (size_t)n, &st) < 0)
            return false;
        pid = st.ppid;
    }
    return false;
}

#define RUN_VERDICTS 512
struct run_tree {
    pid_t root;
    uint32_t pid[RUN_VERDICTS];
    int64_t start[RUN_VERDICTS];
    bool in[RUN_VERDICTS];
    unsigned n;
};

static bool in_tree(struct run_tree *t, const struct gs_proc *p)
{
    int64_t start = gs_proc_has(p, GS_P_START) ? p->start_time : 0;
    for (unsigned i = 0; i < t->n; i++)
        if (t->pid[i] == p->pid && t->start[i] == start)
            return t->in[i];
    bool in = walk_tree(t->root, p->pid);
    if (t->n < RUN_VERDICTS) {
        t->pid[t->n] = p->pid;
        t->start[t->n] = start;
        t->in[t->n++] = in;
    }
    return in;
}

static struct run_proc *proc_of(struct run_result *r, const struct gs_proc *p)
{
    for (unsigned j = 0; j < r->nprocs; j++)
        if (r->procs[j].pid == p->pid)
            return &r->procs[j];
    if (r->nprocs >= RUN_MAX_PROCS)
        return NULL;
    struct run_proc *rp = &r->procs[r->nprocs++];
    memset(rp, 0, sizeof(*rp));
    rp->pid = p->pid;
    rp->peak_mib = NAN;
    snprintf(rp->name, sizeof(rp->name), "%s", p->name[0] ? p->name : p->comm);
    return rp;
}

/* Every tick: which GPUs the tree uses, each process's GPU memory (summed over its
 * GPUs, so the peak is that of the process), energy counters and power. */
static void track(struct run_result *r, struct run_tree *tree, const struct gs_snapshot *snap, int64_t t)
{
    double mib[RUN_MAX_PROCS];
    bool has[RUN_MAX_PROCS] = { false };
    uint64_t tmax[RUN_MAX_PROCS][4];
    bool thas[RUN_MAX_PROCS] = { false };
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        unsigned idx = g->st.index;
        struct run_energy *e = idx < RUN_MAX_GPUS ? &r->energy[idx] : NULL;
        if (e && gs_sample_has(&g->s, GS_F_ENERGY)) {
            if (!e->have_start) {
                e->start_mj = g->s.energy_mj;
                e->have_start = true;
            }
            e->end_mj = g->s.energy_mj;
            e->have_end = true;
        }
        for (int v = 0; e && v < GS_VIOL_COUNT; v++) {
            if (!gs_sample_has(&g->s, (enum gs_field)(GS_F_VIOL_POWER + v)))
                continue;
            if (!(e->viol_start & (1u << v))) {
                e->viol_start_ns[v] = g->s.violation_ns[v];
                e->viol_start |= 1u << v;
            }
            e->viol_end_ns[v] = g->s.violation_ns[v];
            e->viol_end |= 1u << v;
        }
        if (e && gs_sample_has(&g->s, GS_F_POWER)) {
            double w = g->s.power_mw / 1000.0;
            if (e->have_last && t > e->last_t)
                e->power_j += (w + e->last_w) / 2 * (double)(t - e->last_t) / 1000.0;
            e->last_w = w;
            e->last_t = t;
            e->have_last = true;
        }
        for (uint32_t k = 0; k < g->nprocs; k++) {
            const struct gs_proc *p = &g->procs[k];
            if (!in_tree(tree, p))
                continue;
            struct run_proc *rp = proc_of(r, p);
            if (!rp)
                continue;
            rp->gpus |= 1ull << (idx & 63);
            r->gpus |= 1ull << (idx & 63);
            if (e)
                e->seen = true;
            unsigned jt = (unsigned)(rp - r->procs);
            if (gs_proc_has(p, GS_P_TORCH)) {
                uint64_t v[4] = { p->torch_max_allocated_bytes, p->torch_max_reserved_bytes, p->torch_alloc_retries,
                                  p->torch_ooms };
                for (int q = 0; q < 4; q++)
                    tmax[jt][q] = (thas[jt] ? tmax[jt][q] : 0) + v[q];
                thas[jt] = true;
                snprintf(rp->alloc_conf, sizeof(rp->alloc_conf), "%s", p->torch_alloc_conf);
            }
            if (gs_proc_has(p, GS_P_GPU_MEM)) {
                unsigned j = (unsigned)(rp - r->procs);
                mib[j] = (has[j] ? mib[j] : 0) + (double)p->gpu_mem_bytes / 1048576.0;
                has[j] = true;
            }
        }
    }
    for (unsigned j = 0; j < r->nprocs; j++) {
        struct run_proc *rp = &r->procs[j];
        if (thas[j]) { /* peaks and counters only grow (unless the job resets them): keep the largest */
            rp->torch = true;
            uint64_t *dst[4] = { &rp->torch_max_allocated, &rp->torch_max_reserved, &rp->torch_retries, &rp->torch_ooms };
            for (int q = 0; q < 4; q++)
                if (tmax[j][q] > *dst[q])
                    *dst[q] = tmax[j][q];
        }
        if (!has[j])
            continue;
        if (rp->nsamples == 0)
            rp->first_mib = mib[j];
        else if (mib[j] > rp->last_mib + 0.5)
            rp->rises++;
        else if (mib[j] < rp->last_mib - 0.5)
            rp->falls++;
        rp->last_mib = mib[j];
        rp->nsamples++;
        if (isnan(rp->peak_mib) || mib[j] > rp->peak_mib)
            rp->peak_mib = mib[j];
    }
}

/* ---- the command and the sentinel -------------------------------------------------------- */
static const int run_sigs[] = { SIGTERM, SIGHUP, SIGINT, SIGQUIT };

static void stdio_to_null(void)
{
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0)
        return;
    for (int i = 0; i < 3; i++)
        dup2(fd, i);
    if (fd > 2)
        close(fd);
}

/* The sentinel reports each signal of run_sigs it receives as one byte on a pipe,
 * and dies with gpuscope (PR_SET_PDEATHSIG). It inherits the blocked mask. */
static pid_t sentinel_start(int *report_fd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        prctl(PR_SET_NAME, "gpuscope-sentry");
        close(p[0]);
        stdio_to_null();
        sigset_t set;
        sigemptyset(&set);
        for (size_t i = 0; i < sizeof(run_sigs) / sizeof(run_sigs[0]); i++)
            sigaddset(&set, run_sigs[i]);
        for (;;) {
            int sig = sigwaitinfo(&set, NULL);
            unsigned char c = (unsigned char)sig;
            if (sig > 0 && write(p[1], &c, 1) < 0)
                _exit(0);
        }
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    *report_fd = p[0];
    return pid;
}

static pid_t spawn_held(char **argv, int *release_fd, int *exec_err_fd)
{
    int go[2], ee[2];
    if (pipe(go) < 0)
        return -1;
    if (pipe2(ee, O_CLOEXEC) < 0) {
        close(go[0]);
        close(go[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        close(ee[0]);
        sigset_t none;
        sigemptyset(&none);
        signal(SIGPIPE, SIG_DFL); /* ignored dispositions survive exec; blocked masks too */
        sigprocmask(SIG_SETMASK, &none, NULL);
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
    if (pid < 0) {
        close(go[1]);
        close(ee[0]);
        return -1;
    }
    *release_fd = go[1];
    *exec_err_fd = ee[0];
    return pid;
}

/* ---- the loop ---------------------------------------------------------------------------- */
struct run_loop {
    const struct gs_run_opts *o;
    struct run_result *r;
    int sentinel_fd;                 /* -1 without a sentinel */
    double quiet_until[32];          /* copies of one stop signal arriving until then are the same event */
};

/* A stopping signal reached gpuscope run: did the command get it as well? The
 * sentinel answers within milliseconds when the group (or the cgroup) was signalled.
 * One event may reach gpuscope twice (timeout signals its child, then the group):
 * copies within half a second are the same event. */
static void on_stop_signal(struct run_loop *l, int sig, bool child_gone)
{
    struct run_result *r = l->r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    if (now < l->quiet_until[sig & 31])
        return;
    bool everyone = false;
    for (int waited = 0; l->sentinel_fd >= 0 && waited < 250 && !everyone;) {
        struct pollfd pf = { .fd = l->sentinel_fd, .events = POLLIN };
        int n = poll(&pf, 1, 25);
        unsigned char c;
        if (n > 0 && read(l->sentinel_fd, &c, 1) == 1)
            everyone = c == sig;
        else if (n > 0) /* the sentinel is gone: no way to know, assume we were alone */
            break;
        else
            waited += 25;
    }
    if (!everyone && !child_gone)
        kill(r->child, sig);
    l->quiet_until[sig & 31] = now + 0.5;
    if (r->nsignals < RUN_MAX_SIGNALS)
        r->signals[r->nsignals++] = (struct run_signal){ sig, !everyone && !child_gone, child_gone && !everyone };
}

/* Wait up to timeout_ms for the command to end; true when it has (status in r). */
static bool wait_child(struct run_loop *l, uint32_t timeout_ms)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof(run_sigs) / sizeof(run_sigs[0]); i++)
        sigaddset(&set, run_sigs[i]);
    struct timespec now, end;
    clock_gettime(CLOCK_MONOTONIC, &now);
    end = now;
    end.tv_sec += timeout_ms / 1000;
    end.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    for (;;) {
        int status;
        pid_t w = wait4(l->r->child, &status, WNOHANG, &l->r->ru);
        if (w == l->r->child) {
            l->r->have_ru = true;
            l->r->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
            l->r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            /* a signal that came with the end (timeout's SIGTERM that ended the command) */
            struct timespec zero = { 0, 0 };
            for (int sig; (sig = sigtimedwait(&set, NULL, &zero)) > 0;)
                if (sig != SIGCHLD)
                    on_stop_signal(l, sig, true);
            return true;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t left_ns = (int64_t)(end.tv_sec - now.tv_sec) * 1000000000LL + (end.tv_nsec - now.tv_nsec);
        if (left_ns <= 0)
            return false;
        struct timespec ts = { (time_t)(left_ns / 1000000000LL), (long)(left_ns % 1000000000LL) };
        int sig = sigtimedwait(&set, NULL, &ts);
        if (sig > 0 && sig != SIGCHLD)
            on_stop_signal(l, sig, false);
    }
}

/* One sample at virtual offset v_ms (test clock) or now, stored and tracked. */
static int64_t sample(struct gs_sampler *s, struct gs_store *st, struct run_result *r, struct run_tree *tree,
                      struct gs_snapshot *snap, const struct gs_run_opts *o, int64_t t0, int64_t v_ms)
{
    struct gs_err serr = { 0 };
    if (o->step_ms && r->t1 && t0 + v_ms <= r->t1)
        v_ms = r->t1 - t0 + 1; /* the test clock moves on by at least 1 ms per sample */
    if (o->clock_file)
        gs_clock_file_write(o->clock_file, (double)v_ms / 1000.0);
    gs_sampler_snapshot(s, snap, &serr);
    int64_t t = o->step_ms ? t0 + v_ms
                           : (int64_t)snap->wall.tv_sec * 1000 + snap->wall.tv_nsec / 1000000;
    if (r->t1 && t <= r->t1)
        t = r->t1 + 1; /* stored times stay distinct (a stepped wall clock, two fast samples) */
    track(r, tree, snap, t);
    if (gs_store_write_tick(st, t, snap, true, &serr) < 0)
        gs_err_print(&serr);
    r->t1 = t;
    return t;
}

static void block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    for (size_t i = 0; i < sizeof(run_sigs) / sizeof(run_sigs[0]); i++)
        sigaddset(&set, run_sigs[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
}

static int run_loop(struct run_loop *l, struct gs_sampler *s, struct gs_store *st, int release, int exec_err,
                    struct gs_err *err)
{
    const struct gs_run_opts *o = l->o;
    struct run_result *r = l->r;
    struct run_tree tree = { .root = r->child };
    struct gs_snapshot snap;
    int rc = 0;
    gs_snapshot_init(&snap);
    int64_t t0 = gs_now_ms(), v = 0;
    r->t1 = 0;
    r->t0 = sample(s, st, r, &tree, &snap, o, t0, 0); /* the counters before the command runs */
    if (!o->step_ms)
        t0 = r->t0;
    double w0 = gs_clock_mono_s(), last = w0;
    if (write(release, "g", 1) != 1)
        rc = gs_err_set(err, GS_E_IO, "cannot start %s", o->argv[0]);
    close(release);
    int e = 0;
    if (read(exec_err, &e, sizeof(e)) == sizeof(e))
        rc = gs_err_set(err, GS_E_USAGE, "cannot run %s: %s", o->argv[0], strerror(e));
    close(exec_err);
    while (!wait_child(l, o->interval_ms)) {
        v += o->step_ms;
        sample(s, st, r, &tree, &snap, o, t0, v);
        last = gs_clock_mono_s();
    }
    double w1 = gs_clock_mono_s();
    if (o->step_ms) {
        /* on the test clock time flows at step per interval between ticks */
        double frac = (w1 - last) * 1000.0 / o->interval_ms;
        v += (int64_t)llround(fmin(frac, 1.0) * (double)o->step_ms);
    }
    sample(s, st, r, &tree, &snap, o, t0, v); /* once more: the job's last moments */
    r->real_s = w1 - w0;
    r->wall_s = o->step_ms ? (double)(r->t1 - r->t0) / 1000.0 : r->real_s;
    gs_snapshot_release(&snap);
    return rc;
}

int gs_run_job(const struct gs_run_opts *o, int *exit_status, struct gs_err *err)
{
    struct run_result *r = calloc(1, sizeof(*r));
    struct run_loop l = { .o = o, .r = r, .sentinel_fd = -1 };
    struct gs_store *st = NULL;
    struct gs_sampler *s = NULL;
    int release = -1, exec_err = -1, rc = 0;
    if (!r)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    block_signals();
    signal(SIGPIPE, SIG_IGN); /* a closed terminal must not stop the summary to -o FILE */
    pid_t sentinel = -1;
    r->child = spawn_held(o->argv, &release, &exec_err);
    if (r->child < 0) {
        rc = gs_err_set(err, GS_E_IO, "cannot start %s: %s", o->argv[0], strerror(errno));
        goto out;
    }
    sentinel = sentinel_start(&l.sentinel_fd);
    struct gs_store_opts so = { .path = o->db ? o->db : ":memory:", .writer = true, .interval_ms = o->interval_ms,
                                .virtual_time = o->step_ms > 0 };
    struct gs_sampler_opts sopt = GS_SAMPLER_OPTS_INIT;
    sopt.slow = GS_SLOW_SKIP; /* no worker thread: PCIe rates are not part of a job summary */
    sopt.pyhook = GS_PYHOOK_ASYNC; /* PyTorch's figures where the job's processes have the hook */
    if (gs_store_open(&st, &so, err) < 0 || gs_sampler_open(&s, &sopt, err) < 0) {
        close(release); /* the child exits without running the command */
        close(exec_err);
        waitpid(r->child, NULL, 0);
        rc = -err->code;
        goto out;
    }
    rc = run_loop(&l, s, st, release, exec_err, err);
    *exit_status = r->exit_status;
    if (rc == 0)
        gs_run_summary(st, o, r);
    gs_store_finish(st, r->t1, err);
out:
    gs_sampler_close(s);
    gs_store_close(st);
    if (sentinel > 0) {
        kill(sentinel, SIGKILL);
        waitpid(sentinel, NULL, 0);
    }
    if (l.sentinel_fd >= 0)
        close(l.sentinel_fd);
    /* the mask stays: a late SIGTERM must not kill gpuscope before it exits with the status */
    free(r);
    return rc;
}
