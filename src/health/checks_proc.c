/* SPDX-License-Identifier: MIT */
/*
 * checks_proc.c - process and workload checks: memory held while the GPU
 * idles, a busy GPU with no process, per-process memory leaks (regression),
 * input-pipeline stalls (utilization sawtooth), one GPU of a multi-GPU job
 * lagging its peers, and a process on a GPU outside its CUDA_VISIBLE_DEVICES.
 */
#include "health/health_priv.h"
#include "lib/roots.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* Seconds of the trailing run of samples for which pred holds. */
static double trailing_s(const struct gs_health *h, const struct hgpu *g,
                         bool (*pred)(const struct gs_health *, const struct hsample *))
{
    int64_t start = INT64_MIN;
    for (uint32_t i = g->count; i-- > 0;) {
        const struct hsample *x = hg_at(h, g, i);
        if (x->state != GS_GPU_OK || !pred(h, x))
            break;
        start = x->t_ms;
    }
    return start == INT64_MIN ? -1 : (double)(h->now_ms - start) / 1000.0;
}

static uint32_t held_mib(const struct hsample *x)
{
    return x->nprocs ? x->proc_mem_mib : x->mem_used_mib;
}

static bool is_idle_holding(const struct gs_health *h, const struct hsample *x)
{
    return gs_fmask_has(x->valid, GS_F_GPU_UTIL) && x->util_pct <= h->cfg.idle_util_pct &&
           held_mib(x) >= h->cfg.idle_min_mib;
}

static bool is_busy_alone(const struct gs_health *h, const struct hsample *x)
{
    return gs_fmask_has(x->valid, GS_F_GPU_UTIL) && x->util_pct >= h->cfg.busy_util_pct && x->procs_ok &&
           x->nprocs == 0;
}

static void check_idle_busy(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    const struct hsample *l = hg_at(h, g, g->count - 1);
    double s = trailing_s(h, g, is_idle_holding);
    struct gs_finding *f;
    if (s >= h->cfg.idle_min_s) {
        f = hf_new(out, GS_SEV_WARNING, idx, l->nprocs ? g->job_pid : 0, "proc.idle_memory",
                   "GPU %d: %u MiB held while idle for %.0f s", idx, held_mib(l), s);
        f->value = s;
        hf_set(f->evidence, sizeof(f->evidence), "utilization <= %u%% for %.0f s while %u process%s hold %u MiB%s%s",
               h->cfg.idle_util_pct, s, l->nprocs, l->nprocs == 1 ? "" : "es", held_mib(l),
               g->job[0] ? "; largest: " : "", g->job);
        hf_set(f->cause, sizeof(f->cause), "a residual or zombie process (finished job, idle notebook, process "
               "stuck in D state), or memory held with no visible process");
        hf_set(f->action, sizeof(f->action), "find the holders of /dev/nvidia* (fuser -v /dev/nvidia*) and stop them; "
               "if memory stays held with no holder, reset the GPU or reboot");
    }
    s = trailing_s(h, g, is_busy_alone);
    if (s >= h->cfg.busy_min_s) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "gpu.busy_no_process", "GPU %d: %u%% busy with no process for %.0f s",
                   idx, l->util_pct, s);
        f->value = s;
        hf_set(f->evidence, sizeof(f->evidence), "utilization >= %u%% for %.0f s, process list empty",
               h->cfg.busy_util_pct, s);
        hf_set(f->cause, sizeof(f->cause), "persistence mode off (ECC scrubbing on each init), processes in another "
               "container or PID namespace, or a context wedged after a crash");
        hf_set(f->action, sizeof(f->action), "enable nvidia-persistenced; look for GPU users in other containers; if "
               "utilization stays pinned with memory ~0 and idle power, reset the GPU");
    }
}

/* The samples check_sawtooth judges on g: its last PROC_RING * 2 readings of utilization. */
static uint32_t saw_from(const struct hgpu *g)
{
    return g->count > PROC_RING * 2 ? g->count - PROC_RING * 2 : 0;
}

double hp_saw_span(const struct gs_health *h, size_t *nout)
{
    double best = 0;
    *nout = 0;
    for (uint32_t k = 0; k < h->ngpus && k < HGPU_MAX; k++) {
        const struct hgpu *g = &h->gpus[k];
        double first = 0, last = 0;
        size_t n = 0;
        for (uint32_t i = g->seen ? saw_from(g) : g->count; i < g->count; i++) {
            const struct hsample *x = hg_at(h, g, i);
            if (x->state != GS_GPU_OK || !gs_fmask_has(x->valid, GS_F_GPU_UTIL))
                continue;
            first = n ? first : (double)x->t_ms / 1000.0;
            last = (double)x->t_ms / 1000.0;
            n++;
        }
        if (n > *nout || (n == *nout && last - first > best)) {
            *nout = n;
            best = n ? last - first : 0;
        }
    }
    return best;
}

static void check_sawtooth(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    double t[PROC_RING * 2], u[PROC_RING * 2];
    size_t n = 0, with_proc = 0;
    for (uint32_t i = saw_from(g); i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (x->state != GS_GPU_OK || !gs_fmask_has(x->valid, GS_F_GPU_UTIL))
            continue;
        t[n] = (double)x->t_ms / 1000.0;
        u[n] = x->util_pct;
        with_proc += x->nprocs > 0;
        n++;
    }
    struct gs_saw saw;
    if (n < 8 || with_proc < n * 9 / 10 || !gs_sawtooth(t, u, n, &h->cfg, &saw))
        return;
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, g->job_pid, "proc.input_stall",
                                  "GPU %d: utilization saws between idle and busy every %.0f s", idx, saw.period_s);
    f->value = saw.period_s;
    if (saw.short_window) /* what a short window allowed: say so */
        hf_set(f->evidence, sizeof(f->evidence), "%u level changes (a cycle and a half; the window was too short "
               "for %u cycles), period about %.1f s, idle (<= %u%%) %.0f%% of the time, mean utilization %.0f%%; "
               "process %u (%s)", saw.edges, h->cfg.saw_min_cycles, saw.period_s, h->cfg.saw_low_pct,
               saw.idle_share * 100, saw.mean_pct, g->job_pid, g->job);
    else
        hf_set(f->evidence, sizeof(f->evidence), "%u cycles, period %.1f s, idle (<= %u%%) %.0f%% of the time, mean "
               "utilization %.0f%%; process %u (%s)", saw.cycles, saw.period_s, h->cfg.saw_low_pct,
               saw.idle_share * 100, saw.mean_pct, g->job_pid, g->job);
    hf_set(f->cause, sizeof(f->cause), "the GPU waits for data every step: an input-pipeline (data loader) "
           "bottleneck");
    hf_set(f->action, sizeof(f->action), "more data-loader workers, pinned memory, prefetching, faster storage; "
           "confirm with a profiler");
}

/* ---- leaks ------------------------------------------------------------------------- */

/* The cheap early outs first, from the first and last readings only (no copy): this
 * runs for every process on every evaluation (top and serve evaluate each tick). */
static bool leak_possible(const struct gs_health *h, const struct hproc *p)
{
    const struct ppoint *first = NULL, *last = NULL;
    for (uint32_t i = 0; i < p->count && !first; i++)
        if (hp_at(p, i)->mem_mib != UINT32_MAX)
            first = hp_at(p, i);
    for (uint32_t i = p->count; i-- > 0 && !last;)
        if (hp_at(p, i)->mem_mib != UINT32_MAX)
            last = hp_at(p, i);
    if (!first || first == last)
        return false;
    double span_s = (double)(last->t_ms - first->t_ms) / 1000.0;
    if (span_s < h->cfg.leak_min_s)
        return false;
    return ((double)last->mem_mib - (double)first->mem_mib) / span_s >= h->cfg.leak_mib_per_s * 0.5;
}

static void check_leak(struct gs_health *h, const struct hproc *p, struct gs_findings *out)
{
    double t[PROC_RING], m[PROC_RING];
    size_t n = 0;
    if (!leak_possible(h, p))
        return;
    double max_drop = 0, lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < p->count; i++) {
        const struct ppoint *pt = hp_at(p, i);
        if (pt->mem_mib == UINT32_MAX)
            continue;
        t[n] = (double)(pt->t_ms - h->first_ms) / 1000.0;
        m[n] = pt->mem_mib;
        if (n && m[n - 1] - m[n] > max_drop)
            max_drop = m[n - 1] - m[n];
        lo = fmin(lo, m[n]);
        hi = fmax(hi, m[n]);
        n++;
    }
    if (n < 8 || t[n - 1] - t[0] < h->cfg.leak_min_s)
        return;
    double thr = h->cfg.leak_mib_per_s;
    if ((m[n - 1] - m[0]) / (t[n - 1] - t[0]) < thr * 0.5) /* cheap early out */
        return;
    if (max_drop > fmax(64.0, 0.05 * (hi - lo))) /* sawing allocator, not a leak */
        return;
    struct gs_linreg all, a, b;
    if (!gs_linreg(t, m, n, &all) || all.slope < thr || all.r2 < h->cfg.leak_min_r2)
        return;
    /* growth in both halves: no plateau (caching allocators grow, then stop) */
    if (!gs_linreg(t, m, n / 2, &a) || !gs_linreg(t + n / 2, m + n / 2, n - n / 2, &b) || a.slope < thr / 2 ||
        b.slope < thr / 2)
        return;
    const struct hgpu *g = &h->gpus[p->gpu]; /* p->gpu is the snapshot slot; findings carry the index */
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, p->pid, "proc.memory_leak",
                                  "GPU %d: process %u (%s) grows %.1f MiB/s", idx, p->pid, p->name, all.slope);
    f->value = all.slope;
    char oom[64] = "";
    if (gs_sample_has(&g->last, GS_F_MEM_TOTAL) && gs_sample_has(&g->last, GS_F_MEM_USED)) {
        double free_mib = (double)(g->last.mem_total_bytes - g->last.mem_used_bytes) / 1048576.0;
        snprintf(oom, sizeof(oom), "; GPU memory full in ~%.0f min at this rate", free_mib / all.slope / 60);
    }
    hf_set(f->evidence, sizeof(f->evidence), "%.0f -> %.0f MiB over %.0f s, slope %.1f MiB/s (R^2 %.2f, threshold "
           "%.0f MiB/s over >= %u s)%s", m[0], m[n - 1], all.span, all.slope, all.r2, thr, h->cfg.leak_min_s, oom);
    hf_set(f->cause, sizeof(f->cause), "steady growth without a plateau: the application keeps allocating GPU "
           "memory (a leak, or an unbounded cache)");
    hf_set(f->action, sizeof(f->action), "check the application (tensors kept alive, growing caches); restart it "
           "before it runs out of memory; nothing to do on the GPU");
}

/* ---- CUDA_VISIBLE_DEVICES ------------------------------------------------------------ */

static void env_get(const char *env, size_t len, const char *key, char *dst, size_t cap, bool *found)
{
    size_t kl = strlen(key);
    *found = false;
    for (const char *p = env; p < env + len; p += strlen(p) + 1) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            snprintf(dst, cap, "%s", p + kl + 1);
            *found = true;
            return;
        }
    }
}

/* 1: fine or cannot tell; 2: the GPU is not among the process's visible devices. */
static int cvd_verdict(const char *val, bool pci_order, bool in_container, const struct gs_static *st)
{
    char buf[64];
    char *save = NULL;
    bool all_judged = true;
    snprintf(buf, sizeof(buf), "%s", val);
    for (char *e = strtok_r(buf, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
        while (*e == ' ')
            e++;
        if (!strncmp(e, "GPU-", 4)) {
            if (!strncmp(st->uuid, e, strlen(e)))
                return 1;
        } else if (*e >= '0' && *e <= '9' && pci_order && !in_container) {
            char *end;
            long v = strtol(e, &end, 10);
            if (*end == '\0' && v == (long)st->index)
                return 1;
        } else {
            all_judged = false; /* MIG-..., FASTEST_FIRST indexes, container-relative indexes */
        }
    }
    return all_judged ? 2 : 1;
}

/* The job a process belongs to, from the variables launchers set: torchrun
 * (TORCHELASTIC_RUN_ID), Slurm (SLURM_JOB_ID + step), torch.distributed's
 * rendezvous (MASTER_ADDR:MASTER_PORT), Open MPI's job id. */
static void job_from_env(const char *env, size_t n, char *out, size_t cap)
{
    char a[64], b[64];
    bool fa, fb;
    out[0] = '\0';
    env_get(env, n, "TORCHELASTIC_RUN_ID", a, sizeof(a), &fa);
    if (fa && a[0]) {
        snprintf(out, cap, "torchrun run %.60s", a);
        return;
    }
    env_get(env, n, "SLURM_JOB_ID", a, sizeof(a), &fa);
    env_get(env, n, "SLURM_STEP_ID", b, sizeof(b), &fb);
    if (fa && a[0]) {
        snprintf(out, cap, "Slurm job %.30s%s%.20s", a, fb ? "." : "", fb ? b : "");
        return;
    }
    env_get(env, n, "MASTER_ADDR", a, sizeof(a), &fa);
    env_get(env, n, "MASTER_PORT", b, sizeof(b), &fb);
    if (fa && fb && a[0] && b[0]) {
        snprintf(out, cap, "torch.distributed rendezvous %.32s:%.8s", a, b);
        return;
    }
    env_get(env, n, "OMPI_MCA_ess_base_jobid", a, sizeof(a), &fa);
    if (fa && a[0])
        snprintf(out, cap, "Open MPI job %.60s", a);
}

/* Read /proc/PID/environ once: CUDA_VISIBLE_DEVICES and the job identity. */
void hp_env(struct gs_health *h, struct hproc *p)
{
    if (p->env_read || p->host_vis != GS_HOST_VISIBLE)
        return;
    p->env_read = true;
    p->cvd = 1;
    char path[256], env[16384];
    if (gs_path(path, sizeof(path), "%s/%u/environ", gs_proc_root(h->cfg.proc_root), p->pid) < 0)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, env, sizeof(env) - 1);
    close(fd);
    if (n <= 0)
        return;
    env[n] = '\0';
    char order[32] = "";
    bool found, has_order;
    env_get(env, (size_t)n, "CUDA_DEVICE_ORDER", order, sizeof(order), &has_order);
    env_get(env, (size_t)n, "CUDA_VISIBLE_DEVICES", p->cvd_value, sizeof(p->cvd_value), &found);
    if (found)
        p->cvd = (int8_t)cvd_verdict(p->cvd_value, has_order && !strcmp(order, "PCI_BUS_ID"),
                                     p->container[0] != '\0', &h->gpus[p->gpu].st);
    job_from_env(env, (size_t)n, p->jobenv, sizeof(p->jobenv));
}

static void check_cvd(struct gs_health *h, struct hproc *p, struct gs_findings *out)
{
    hp_env(h, p);
    if (p->cvd != 2)
        return;
    int32_t idx = (int32_t)h->gpus[p->gpu].st.index; /* the GPU's index, not its snapshot slot */
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, p->pid, "proc.outside_visible_devices",
                                  "GPU %d: process %u (%s) is outside its CUDA_VISIBLE_DEVICES", idx, p->pid,
                                  p->name);
    hf_set(f->evidence, sizeof(f->evidence), "CUDA_VISIBLE_DEVICES=%s, but the process uses GPU %d (%s)",
           p->cvd_value, idx, h->gpus[p->gpu].st.uuid);
    hf_set(f->cause, sizeof(f->cause), "the program or a library ignores the variable (NVML/driver API by index), or "
           "a scheduler assigned GPUs inconsistently");
    hf_set(f->action, sizeof(f->action), "check how the job selects devices; it may be disturbing another job on "
           "this GPU");
}

void hc_procs(struct gs_health *h, struct gs_findings *out)
{
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct hgpu *g = &h->gpus[i];
        if (!g->seen || g->state != GS_GPU_OK || !g->count)
            continue;
        check_idle_busy(h, g, out);
        check_sawtooth(h, g, out);
    }
    for (uint32_t i = 0; i < h->proc_slots; i++) {
        struct hproc *p = h->procs[i];
        if (!p || !p->used || p->last_ms != h->now_ms || h->gpus[p->gpu].state != GS_GPU_OK)
            continue;
        check_leak(h, p, out);
        if (p->torch && p->torch->count)
            hc_torch(h, p, out);
        if (h->cfg.check_visible_devices && p->host_vis == GS_HOST_VISIBLE)
            check_cvd(h, p, out);
    }
}

/* ---- multi-GPU jobs ---------------------------------------------------------------------- */

struct gmean {
    double util, clock;
    bool ok;
};

static struct gmean gpu_means(const struct gs_health *h, const struct hgpu *g)
{
    struct gmean r = { 0, 0, false };
    double su = 0, sc = 0;
    uint32_t nu = 0, nc = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (x->state != GS_GPU_OK || (h->cfg.recent_s && h->now_ms - x->t_ms > (int64_t)h->cfg.recent_s * 1000))
            continue;
        if (gs_fmask_has(x->valid, GS_F_GPU_UTIL)) {
            su += x->util_pct;
            nu++;
        }
        if (gs_fmask_has(x->valid, GS_F_CLOCK_SM)) {
            sc += x->sm_mhz;
            nc++;
        }
        t0 = x->t_ms < t0 ? x->t_ms : t0;
        t1 = x->t_ms;
    }
    if (nu && t1 - t0 >= (int64_t)h->cfg.lag_min_s * 1000) {
        r.util = su / nu;
        r.clock = nc ? sc / nc : 0;
        r.ok = true;
    }
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_except(const struct gmean *m, const uint32_t *members, uint32_t n, uint32_t skip, bool clock)
{
    double v[HGPU_MAX];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (members[i] != skip)
            v[k++] = clock ? m[members[i]].clock : m[members[i]].util;
    assert(k > 0 && k <= HGPU_MAX); /* a job's group has two GPUs or more: one is left besides skip */
    qsort(v, k, sizeof(double), cmp_double);
    return k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
}

/* A GPU's rank: its largest process, and the job identity it carries. */
struct rank {
    char key[96];               /* "" when the process carries no identity we trust */
    uint32_t pid;
};

static struct hproc *find_proc(struct gs_health *h, int32_t slot, uint32_t pid)
{
    for (uint32_t i = 0; i < h->proc_slots; i++)
        if (h->procs[i] && h->procs[i]->used && h->procs[i]->gpu == slot && h->procs[i]->pid == pid)
            return h->procs[i];
    return NULL;
}

/* Real job identity, never the process name (two unrelated `python3` jobs are
 * two jobs): the launcher's environment, else the process group (torchrun,
 * mpirun and shells put a job's ranks in one group), else nothing. */
static void rank_of(struct gs_health *h, uint32_t slot, struct rank *r)
{
    const struct hgpu *g = &h->gpus[slot];
    r->key[0] = '\0';
    r->pid = g->job_pid;
    if (!g->job[0])
        return;
    struct hproc *p = find_proc(h, (int32_t)slot, g->job_pid);
    if (p)
        hp_env(h, p);
    if (p && p->jobenv[0])
        snprintf(r->key, sizeof(r->key), "%s", p->jobenv);
    else if (g->job_pgid > 1)
        snprintf(r->key, sizeof(r->key), "process group %u", g->job_pgid);
}

static void lag_group(struct gs_health *h, const struct gmean *m, const uint32_t *mem, uint32_t n,
                      const char *key, struct gs_findings *out)
{
    char ranks[240] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < n && used + 40 < sizeof(ranks); i++)
        used += (size_t)snprintf(ranks + used, sizeof(ranks) - used, "%s%u on GPU %u", i ? ", " : "",
                                 h->gpus[mem[i]].job_pid, h->gpus[mem[i]].st.index);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t gi = mem[i];
        double mu = median_except(m, mem, n, gi, false), mc = median_except(m, mem, n, gi, true);
        bool slow_util = mu >= h->cfg.load_util_pct && m[gi].util < mu - h->cfg.lag_util_pts;
        bool slow_clock = mc > 0 && m[gi].clock > 0 && m[gi].clock < h->cfg.lag_clock_ratio * mc;
        if (!slow_util && !slow_clock)
            continue;
        const struct hgpu *g = &h->gpus[gi];
        int32_t idx = (int32_t)g->st.index; /* findings carry the GPU's index, not its slot */
        /* a GPU already explained by throttling is not reported twice */
        if (hf_has(out, idx, "thermal.") || hf_has(out, idx, "power."))
            continue;
        struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, g->job_pid, "job.gpu_lagging",
                                      "GPU %d lags the other %u GPUs of its job (%s)", idx, n - 1, key);
        f->value = slow_util ? m[gi].util : m[gi].clock;
        hf_set(f->evidence, sizeof(f->evidence), "mean utilization %.0f%% vs peers' median %.0f%%; mean SM clock "
               "%.0f MHz vs %.0f MHz; the job (%s): processes %s", m[gi].util, mu, m[gi].clock, mc, key, ranks);
        hf_set(f->cause, sizeof(f->cause), "one rank is slower (throttling, a degraded link, a noisy neighbour or "
               "uneven data), so the whole job waits for it at every synchronisation");
        hf_set(f->action, sizeof(f->action), "compare this GPU's clocks, throttle reasons, PCIe link and neighbours "
               "with its peers; move the rank to another GPU to see if the slowness follows it");
    }
}

void hc_jobs(struct gs_health *h, struct gs_findings *out)
{
    struct gmean m[HGPU_MAX];
    struct rank r[HGPU_MAX];
    bool done[HGPU_MAX] = { false };
    uint32_t n = h->ngpus < HGPU_MAX ? h->ngpus : HGPU_MAX;
    for (uint32_t i = 0; i < n; i++) {
        const struct hgpu *g = &h->gpus[i];
        m[i] = g->seen && g->state == GS_GPU_OK && g->job[0] ? gpu_means(h, g) : (struct gmean){ 0, 0, false };
        r[i].key[0] = '\0';
        if (m[i].ok)
            rank_of(h, i, &r[i]);
        if (!r[i].key[0] || !m[i].ok)
            m[i].ok = false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (done[i] || !m[i].ok)
            continue;
        uint32_t mem[HGPU_MAX], k = 0;
        for (uint32_t j = i; j < n; j++)
            if (!done[j] && m[j].ok && !strcmp(r[j].key, r[i].key)) {
                mem[k++] = j;
                done[j] = true;
            }
        if (k >= 3) /* the lagging GPU and at least two peers */
            lag_group(h, m, mem, k, r[i].key, out);
    }
}
