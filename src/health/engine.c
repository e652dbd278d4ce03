/* SPDX-License-Identifier: MIT */
/*
 * engine.c - the health engine's window of history (bounded rings per GPU and
 * per process, aggregated Xids) and the evaluation that runs every check over
 * it. The checks themselves live in checks_gpu.c and checks_proc.c.
 */
#include "health/health_priv.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

const char *gs_sev_name(enum gs_sev s)
{
    switch (s) {
    case GS_SEV_INFO:
        return "info";
    case GS_SEV_WARNING:
        return "warning";
    case GS_SEV_CRITICAL:
        return "critical";
    default:
        return "none";
    }
}

int gs_sev_parse(const char *s, enum gs_sev *out)
{
    for (int i = GS_SEV_INFO; i <= GS_SEV_CRITICAL; i++)
        if (!strcmp(s, gs_sev_name((enum gs_sev)i))) {
            *out = (enum gs_sev)i;
            return 0;
        }
    return -1;
}

void gs_health_cfg_default(struct gs_health_cfg *c)
{
    *c = (struct gs_health_cfg){
        .ring_samples = 600, .max_procs = 4096, .proc_ring_samples = PROC_RING, .expect_gpus = 0, .thermal_margin_c = 5,
        .fan_hot_margin_c = 8, .fan_stuck_min_s = 60, .fan_rise_c = 10, .fan_flat_s = 90,
        .hw_throttle_min_ms = 500,
        .sbe_storm_per_min = 60, .sbe_storm_min = 10, .nvlink_crc_per_s = 100, .aer_cor_per_min = 32,
        .throttle_min_share = 0.2, .power_limit_min_ratio = 0.8, .load_util_pct = 50,
        .idle_util_pct = 2, .idle_min_s = 300, .idle_min_mib = 256, .busy_util_pct = 95,
        .busy_min_s = 10, .leak_mib_per_s = 10, .leak_min_s = 60, .leak_min_r2 = 0.9,
        .saw_low_pct = 15, .saw_high_pct = 70, .saw_min_cycles = 2, .saw_max_period_s = 60,
        .lag_util_pts = 25, .lag_clock_ratio = 0.85, .lag_min_s = 10, .xid_hold_s = 300,
        .check_visible_devices = true, .proc_root = NULL,
        .torch_frag_min_mib = 1024, .torch_frag_cache_share = 0.5, .torch_frag_split_share = 0.25,
        .torch_growth_mib_per_s = 5,
    };
}

/* ---- findings ------------------------------------------------------------------- */

struct gs_finding *gs_findings_add(struct gs_findings *f)
{
    struct gs_finding *v = gs_vec_grow(f->v, &f->cap, f->n + 1, sizeof(*v));
    if (!v) {
        f->lost++;
        return NULL;
    }
    f->v = v;
    struct gs_finding *x = &f->v[f->n++];
    memset(x, 0, sizeof(*x));
    return x;
}

void gs_findings_clear(struct gs_findings *f)
{
    f->n = 0;
    f->lost = 0;
}

void gs_findings_free(struct gs_findings *f)
{
    free(f->v);
    memset(f, 0, sizeof(*f));
}

enum gs_sev gs_findings_worst(const struct gs_findings *f)
{
    enum gs_sev w = GS_SEV_NONE;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].severity > w)
            w = (enum gs_sev)f->v[i].severity;
    return w;
}

void hf_set(char *dst, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
}

static struct gs_finding scratch; /* absorbs writes when out of memory */

struct gs_finding *hf_new(struct gs_findings *out, enum gs_sev sev, int32_t gpu, uint32_t pid,
                          const char *code, const char *fmt, ...)
{
    struct gs_finding *f = gs_findings_add(out);
    va_list ap;
    if (!f)
        f = &scratch;
    f->severity = (uint8_t)sev;
    f->gpu = gpu;
    f->pid = pid;
    snprintf(f->code, sizeof(f->code), "%s", code);
    va_start(ap, fmt);
    vsnprintf(f->title, sizeof(f->title), fmt, ap);
    va_end(ap);
    return f;
}

bool hf_has(const struct gs_findings *out, int32_t gpu, const char *prefix)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < out->n; i++)
        if (out->v[i].gpu == gpu && !strncmp(out->v[i].code, prefix, n))
            return true;
    return false;
}

/* ---- the window ------------------------------------------------------------------- */

/* The record of every forgotten process's slot: probe chains go on past it. */
static struct hproc hproc_tomb = {.was_used = true};

struct gs_health *gs_health_new(const struct gs_health_cfg *cfg)
{
    struct gs_health *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->cfg = *cfg;
    h->live_ms = INT64_MIN;
    if (h->cfg.ring_samples < 8)
        h->cfg.ring_samples = 8;
    if (h->cfg.max_procs < 16)
        h->cfg.max_procs = 16;
    if (h->cfg.proc_ring_samples < 8 || h->cfg.proc_ring_samples > PROC_RING)
        h->cfg.proc_ring_samples = h->cfg.proc_ring_samples < 8 ? 8 : PROC_RING;
    h->proc_slots = h->cfg.max_procs * 2;
    h->procs = calloc(h->proc_slots, sizeof(*h->procs));
    if (!h->procs) {
        free(h);
        return NULL;
    }
    return h;
}

void gs_health_free(struct gs_health *h)
{
    if (!h)
        return;
    for (uint32_t i = 0; i < HGPU_MAX; i++)
        free(h->gpus[i].ring);
    for (uint32_t i = 0; i < h->proc_slots; i++) {
        if (!h->procs[i] || h->procs[i] == &hproc_tomb)
            continue;
        free(h->procs[i]->ring);
        free(h->procs[i]->torch);
        free(h->procs[i]);
    }
    free(h->procs);
    free(h->hist);
    free(h->trend);
    free(h);
}

void gs_health_set_history(struct gs_health *h, const struct gs_history *hist)
{
    if (!h->hist && !(h->hist = malloc(sizeof(*h->hist))))
        return;
    *h->hist = *hist;
}

size_t gs_health_mem_bytes(const struct gs_health *h)
{
    size_t b = sizeof(*h) + h->proc_slots * sizeof(*h->procs);
    for (uint32_t i = 0; i < HGPU_MAX; i++)
        if (h->gpus[i].ring)
            b += h->cfg.ring_samples * sizeof(struct hsample);
    for (uint32_t i = 0; i < h->proc_slots; i++) {
        const struct hproc *p = h->procs[i];
        if (!p || p == &hproc_tomb)
            continue;
        b += sizeof(*p);
        if (p->ring)
            b += p->cap * sizeof(struct ppoint) + (p->torch ? sizeof(struct htorch) : 0);
    }
    return b;
}

void gs_health_set_open_error(struct gs_health *h, const struct gs_err *err)
{
    h->open_failed = true;
    h->open_err = *err;
}

static uint32_t mib(uint64_t bytes)
{
    return (uint32_t)(bytes >> 20);
}

static void fill_hsample(struct hsample *x, const struct gs_gpu *g, int64_t t_ms)
{
    const struct gs_sample *s = &g->s;
    memset(x, 0, sizeof(*x));
    x->t_ms = t_ms;
    x->valid = g->state == GS_GPU_OK ? s->valid : GS_FMASK_NONE;
    x->state = g->state;
    x->throttle = s->throttle_reasons;
    x->ecc_vol_uncorr = s->ecc_vol_uncorrected;
    x->power_mw = s->power_mw;
    x->enforced_mw = s->power_enforced_limit_mw;
    x->sm_mhz = s->clock_sm_mhz;
    x->replay = s->pcie_replay_count;
    x->mem_used_mib = mib(s->mem_used_bytes);
    x->mem_total_mib = mib(s->mem_total_bytes);
    x->temp_c = (int16_t)s->temp_gpu_c;
    x->fan_pct = (uint16_t)(s->fan_speed_pct[0] > 65535 ? 65535 : s->fan_speed_pct[0]);
    x->util_pct = (uint8_t)(s->gpu_util_pct > 100 ? 100 : s->gpu_util_pct);
    x->pcie_gen = (uint8_t)s->pcie_gen;
    x->pcie_gen_fresh = gs_sample_age_ms(s, GS_F_PCIE_GEN) == 0;
    x->pcie_width = (uint8_t)s->pcie_width;
    x->nprocs = (uint16_t)(g->nprocs > 65535 ? 65535 : g->nprocs);
    x->procs_ok = g->procs_status == GS_ST_OK;
    memcpy(x->viol_ns, s->violation_ns, sizeof(x->viol_ns));
    x->ecc_vol_corr = s->ecc_vol_corrected;
    x->retired = s->retired_sbe_pages + s->retired_dbe_pages;
    x->remapped = s->remap_corr_rows + s->remap_uncorr_rows;
    x->nvl_crc = s->nvlink_crc_flit + s->nvlink_crc_data;
    x->nvl_replay = s->nvlink_replay;
    x->nvl_recovery = s->nvlink_recovery;
    x->nvl_down = s->nvlink_down_mask;
    x->nvl_count = s->nvlink_count;
    uint64_t pm = 0;
    for (uint32_t i = 0; i < g->nprocs; i++)
        if (gs_proc_has(&g->procs[i], GS_P_GPU_MEM))
            pm += g->procs[i].gpu_mem_bytes;
    x->proc_mem_mib = mib(pm);
}

static uint32_t proc_hash(int32_t gpu, uint32_t pid)
{
    uint64_t k = ((uint64_t)(uint32_t)gpu << 32) | pid;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (uint32_t)k;
}

/* Find or make the slot of (gpu, pid); NULL when the table is full (or out of memory). */
static struct hproc *proc_slot(struct gs_health *h, int32_t gpu, uint32_t pid)
{
    uint32_t i = proc_hash(gpu, pid) % h->proc_slots;
    struct hproc **free_slot = NULL;
    for (uint32_t n = 0; n < h->proc_slots; n++, i = (i + 1) % h->proc_slots) {
        struct hproc *p = h->procs[i];
        if (p && p->used && p->gpu == gpu && p->pid == pid)
            return p;
        if (!p) { /* never used: end of the probe chain */
            if (!free_slot && h->nprocs < h->cfg.max_procs)
                free_slot = &h->procs[i];
            break;
        }
        if (!p->used && !free_slot && h->nprocs < h->cfg.max_procs)
            free_slot = &h->procs[i];
    }
    if (!free_slot)
        return NULL;
    if (!*free_slot || *free_slot == &hproc_tomb) {
        struct hproc *p = calloc(1, sizeof(*p));
        if (!p)
            return NULL;
        *free_slot = p;
    }
    return *free_slot;
}

static void add_proc(struct gs_health *h, int32_t gpu, const struct gs_proc *gp, int64_t t_ms)
{
    struct hproc *p = proc_slot(h, gpu, gp->pid);
    if (!p)
        return;
    if (!p->used) {
        if (!p->ring && !(p->ring = malloc(h->cfg.proc_ring_samples * sizeof(*p->ring))))
            return;
        p->cap = h->cfg.proc_ring_samples;
        p->used = true;
        p->gpu = gpu;
        p->pid = gp->pid;
        p->head = p->count = 0;
        if (p->torch)
            p->torch->head = p->torch->count = 0;
        p->cvd = 0;
        p->env_read = false;
        p->jobenv[0] = '\0';
        h->nprocs++;
    }
    p->last_ms = t_ms;
    p->host_vis = gp->host_vis;
    p->pgid = gs_proc_has(gp, GS_P_PARENT) ? gp->pgid : 0;
    p->ppid = gs_proc_has(gp, GS_P_PARENT) ? gp->ppid : 0;
    /* names rarely change: compare before copying (this runs per process per tick) */
    const char *name = gs_proc_has(gp, GS_P_NAME) ? gp->name : gs_proc_has(gp, GS_P_COMM) ? gp->comm : "";
    if (strncmp(p->name, name, sizeof(p->name) - 1))
        snprintf(p->name, sizeof(p->name), "%.63s", name);
    if (strncmp(p->container, gp->container_id, sizeof(p->container) - 1))
        snprintf(p->container, sizeof(p->container), "%.15s", gp->container_id);
    struct ppoint *pt;
    if (p->count < p->cap) {
        pt = hp_at(p, p->count++);
    } else {
        pt = hp_at(p, 0);
        p->head = (p->head + 1) % p->cap;
    }
    pt->t_ms = t_ms;
    pt->mem_mib = gs_proc_has(gp, GS_P_GPU_MEM) ? mib(gp->gpu_mem_bytes) : UINT32_MAX;
    pt->sm_pct = gs_proc_has(gp, GS_P_SM_UTIL) ? (uint8_t)(gp->sm_util_pct > 100 ? 100 : gp->sm_util_pct)
                                               : 255;
    if (gs_proc_has(gp, GS_P_TORCH))
        ht_add(p, gp, t_ms);
}

/* Forget processes not seen within the window (their slots stay tombstones,
 * their records are freed: under churn, more slots than max_procs would
 * otherwise each keep one).
 * A sweep of the whole table every 10 s is enough: the checks look only at
 * processes in the latest snapshot. */
static void expire_procs(struct gs_health *h, int64_t now_ms)
{
    int64_t horizon = (int64_t)h->cfg.ring_samples * 1000;
    if (now_ms - h->expired_ms < 10000 && now_ms >= h->expired_ms)
        return;
    h->expired_ms = now_ms;
    for (uint32_t i = 0; i < h->proc_slots; i++) {
        struct hproc *p = h->procs[i];
        if (p && p->used && now_ms - p->last_ms > horizon) {
            free(p->ring);
            free(p->torch);
            free(p);
            h->procs[i] = &hproc_tomb;
            h->nprocs--;
        }
    }
}

static struct hxid *xid_slot(struct gs_health *h, uint32_t xid, int32_t gpu, const struct gs_xid *k)
{
    for (uint32_t i = 0; i < h->nxids; i++) {
        struct hxid *x = &h->xids[i];
        if (x->xid != xid)
            continue;
        if (gpu != GS_NO_GPU && x->gpu == gpu)
            return x;
        if (k && k->has_pci && x->has_pci && x->pci_domain == k->pci_domain && x->pci_bus == k->pci_bus &&
            x->pci_device == k->pci_device)
            return x;
    }
    if (h->nxids == HXID_MAX) {
        h->xids_dropped++;
        return NULL;
    }
    struct hxid *x = &h->xids[h->nxids++];
    memset(x, 0, sizeof(*x));
    x->xid = xid;
    x->gpu = gpu;
    x->last_ms = INT64_MIN;
    x->last_boot_s = -1;
    if (k && k->has_pci) {
        x->has_pci = true;
        x->pci_domain = k->pci_domain;
        x->pci_bus = k->pci_bus;
        x->pci_device = k->pci_device;
    }
    return x;
}

/* The GPU (NVML index) at a PCI location, or GS_NO_GPU. */
static int32_t index_by_pci(const struct gs_health *h, const struct gs_xid *k)
{
    for (uint32_t i = 0; k->has_pci && i < h->ngpus && i < HGPU_MAX; i++) {
        const struct gs_static *st = &h->gpus[i].st;
        if (h->gpus[i].seen && gs_static_has(st, GS_S_PCI) && st->pci_domain == k->pci_domain &&
            st->pci_bus == k->pci_bus && st->pci_device == k->pci_device)
            return (int32_t)st->index;
    }
    return GS_NO_GPU;
}

/* An NVML event's key: its GPU and, when known, that GPU's PCI location, so a
 * kernel-log line about the same GPU finds the same entry. */
static void event_key(const struct gs_health *h, uint32_t gpu, struct gs_xid *k)
{
    memset(k, 0, sizeof(*k));
    k->gpu = (int32_t)gpu;
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct gs_static *st = &h->gpus[i].st;
        if (h->gpus[i].seen && st->index == gpu && gs_static_has(st, GS_S_PCI)) {
            k->has_pci = true;
            k->pci_domain = st->pci_domain;
            k->pci_bus = st->pci_bus;
            k->pci_device = st->pci_device;
        }
    }
}

static void add_events(struct gs_health *h, const struct gs_snapshot *snap, int64_t t_ms)
{
    for (uint32_t i = 0; i < snap->nevents && i < GS_MAX_EVENTS; i++) {
        const struct gs_event *e = &snap->events[i];
        struct gs_xid key;
        if (e->kind != GS_EV_XID)
            continue;
        event_key(h, e->gpu, &key);
        struct hxid *x = xid_slot(h, (uint32_t)e->data, (int32_t)e->gpu, &key);
        if (!x)
            continue;
        if (x->gpu == GS_NO_GPU)
            x->gpu = (int32_t)e->gpu; /* a kernel-log entry for this GPU came first */
        x->n_nvml++;
        x->sources |= 1;
        x->last_ms = t_ms;
    }
}

int gs_health_add(struct gs_health *h, const struct gs_snapshot *snap, int64_t t_ms)
{
    if (!h->have_snap)
        h->first_ms = t_ms;
    h->have_snap = true;
    h->now_ms = t_ms;
    h->ngpus = snap->ngpus;
    h->sys = snap->sys;
    h->now_wall_ms = (int64_t)snap->wall.tv_sec * 1000 + snap->wall.tv_nsec / 1000000;
    for (uint32_t i = 0; i < snap->ngpus && i < HGPU_MAX; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        struct hgpu *hg = &h->gpus[i];
        if (!hg->ring && !(hg->ring = calloc(h->cfg.ring_samples, sizeof(*hg->ring))))
            return -GS_E_NOMEM;
        hg->seen = true;
        hg->st = g->st;
        hg->state = g->state;
        hg->lost_since = g->lost_since;
        snprintf(hg->last_error, sizeof(hg->last_error), "%s", g->last_error);
        if (g->state == GS_GPU_OK)
            hg->last = g->s;
        struct hsample *x;
        if (hg->count < h->cfg.ring_samples) {
            x = hg_at(h, hg, hg->count++);
        } else {
            x = hg_at(h, hg, 0);
            hg->head = (hg->head + 1) % h->cfg.ring_samples;
        }
        fill_hsample(x, g, t_ms);
        uint64_t best = 0;
        if (g->state == GS_GPU_OK)
            hg->job[0] = '\0';
        for (uint32_t j = 0; j < g->nprocs; j++) {
            const struct gs_proc *p = &g->procs[j];
            add_proc(h, (int32_t)i, p, t_ms);
            if (gs_proc_has(p, GS_P_GPU_MEM) && p->gpu_mem_bytes >= best) {
                best = p->gpu_mem_bytes;
                snprintf(hg->job, sizeof(hg->job), "%s", gs_proc_has(p, GS_P_NAME) ? p->name : p->comm);
                hg->job_pid = p->pid;
                hg->job_pgid = gs_proc_has(p, GS_P_PARENT) ? p->pgid : 0;
                hg->job_ppid = gs_proc_has(p, GS_P_PARENT) ? p->ppid : 0;
            }
        }
    }
    add_events(h, snap, t_ms);
    expire_procs(h, t_ms);
    return 0;
}

static void add_kmsg(struct gs_health *h, const struct gs_xid *v, size_t n, bool live)
{
    for (size_t i = 0; i < n; i++) {
        int32_t gpu = v[i].gpu != GS_NO_GPU ? v[i].gpu : index_by_pci(h, &v[i]);
        struct hxid *x = xid_slot(h, v[i].xid, gpu, &v[i]);
        if (!x)
            continue;
        if (x->gpu == GS_NO_GPU)
            x->gpu = gpu;
        x->n_kmsg++;
        x->sources |= 2;
        if (live)
            x->last_ms = h->now_ms;
        else
            x->since_boot = true;
        x->last_boot_s = v[i].ts_s;
        if (v[i].pid || v[i].name[0]) {
            x->pid = v[i].pid;
            snprintf(x->name, sizeof(x->name), "%s", v[i].name);
        }
        snprintf(x->msg, sizeof(x->msg), "%s", v[i].msg);
    }
}

void gs_health_add_kmsg(struct gs_health *h, const struct gs_xid *v, size_t n)
{
    add_kmsg(h, v, n, false);
}

void gs_health_add_kmsg_live(struct gs_health *h, const struct gs_xid *v, size_t n)
{
    add_kmsg(h, v, n, true);
}

static int cmp_finding(const void *a, const void *b)
{
    const struct gs_finding *x = a, *y = b;
    if (x->severity != y->severity)
        return y->severity - x->severity;
    if (x->gpu != y->gpu)
        return x->gpu < y->gpu ? -1 : 1;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return strcmp(x->code, y->code);
}

/* ---- what the caller reads beyond NVML: the PCI bus, /dev holders ---------------------- */

void gs_health_add_pci(struct gs_health *h, const struct gs_pci_dev *d, size_t n)
{
    if (!h->pci_scanned)
        h->pci_first_ms = h->now_ms;
    h->pci_scanned = true;
    h->pci_last_ms = h->now_ms;
    for (size_t i = 0; i < n; i++) {
        struct hpci *p = NULL;
        for (uint32_t k = 0; k < h->npci && !p; k++)
            if (!strcmp(h->pci[k].last.bdf, d[i].bdf))
                p = &h->pci[k];
        if (!p && h->npci < GS_PCI_MAX_DEVS) {
            p = &h->pci[h->npci++];
            p->first = d[i];
        }
        if (p)
            p->last = d[i];
    }
}

static void gpus_without_procs(const struct gs_health *h, uint64_t *minors)
{
    *minors = 0;
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct hgpu *g = &h->gpus[i];
        if (!g->seen || g->state != GS_GPU_OK || !g->count || !gs_static_has(&g->st, GS_S_MINOR_NUMBER) ||
            g->st.minor_number >= 64)
            continue;
        const struct hsample *x = hg_at(h, g, g->count - 1);
        bool busy = gs_fmask_has(x->valid, GS_F_GPU_UTIL) && x->util_pct >= h->cfg.busy_util_pct;
        bool holds = gs_fmask_has(x->valid, GS_F_MEM_USED) && x->mem_used_mib >= h->cfg.idle_min_mib;
        if (x->procs_ok && x->nprocs == 0 && (busy || holds))
            *minors |= UINT64_C(1) << g->st.minor_number;
    }
}

bool gs_health_holders_wanted(const struct gs_health *h, uint64_t *minors)
{
    gpus_without_procs(h, minors);
    return *minors != 0;
}

void gs_health_add_holders(struct gs_health *h, const struct gs_dev_holder *v, size_t n)
{
    h->nholders = 0;
    for (size_t i = 0; i < n && h->nholders < sizeof(h->holders) / sizeof(h->holders[0]); i++)
        h->holders[h->nholders++] = v[i];
}

/* ---- checks that need a window: what was too short -------------------------------------- */

static bool any_fan(const struct gs_health *h)
{
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++)
        if (h->gpus[i].seen && gs_sample_has(&h->gpus[i].last, GS_F_FAN_SPEED))
            return true;
    return false;
}

static bool any_procs(const struct gs_health *h)
{
    return h->nprocs > 0;
}

static bool any_gpu(const struct gs_health *h)
{
    return h->ngpus > 0;
}

static bool many_gpus(const struct gs_health *h)
{
    return h->ngpus >= 3;
}

/* Checks with parts: the window the whole check needs in u->need_s, what a window
 * of have seconds allowed in u->judged; false when it allowed everything. */
static bool fan_window(const struct gs_health *h, double have, struct gs_unevaluated *u)
{
    uint32_t hot = h->cfg.fan_stuck_min_s, flat = h->cfg.fan_flat_s;
    u->need_s = hot > flat ? hot : flat;
    if (have + 1e-9 >= u->need_s)
        return false;
    if (have + 1e-9 >= hot)
        snprintf(u->judged, sizeof(u->judged), "judged a fan stuck while hot (%u s), not a flat fan (%u s)", hot, flat);
    else
        snprintf(u->judged, sizeof(u->judged), "a fan stuck while hot needs %u s, a flat fan %u s", hot, flat);
    return true;
}

/* A sawtooth is judged on a cycle and a half of the samples the check looks at
 * (at least 8, the last PROC_RING * 2): a span of S s shows periods up to about
 * S / 1.5 s (stats.c), of the 2 s to saw_max_period_s it looks for. */
static bool saw_window(const struct gs_health *h, double have, struct gs_unevaluated *u)
{
    const double shortest = 2.0, longest = h->cfg.saw_max_period_s;
    size_t n = 0;
    double span = hp_saw_span(h, &n);
    int len;
    (void)have;
    u->need_s = (uint32_t)(1.5 * longest + 0.999);
    if (n >= 8 && span + 1e-9 >= u->need_s)
        return false;
    u->longest_s = n >= 8 && span / 1.5 + 1e-9 >= shortest ? span / 1.5 : 0;
    if (u->longest_s > 0)
        len = snprintf(u->judged, sizeof(u->judged), "judged periods up to %.1f s of %.0f-%.0f s", u->longest_s,
                       shortest, longest);
    else if (n < 8)
        len = snprintf(u->judged, sizeof(u->judged), "judged no period: %zu samples, it needs 8", n);
    else
        len = snprintf(u->judged, sizeof(u->judged), "judged no period: the shortest (%.0f s) needs %.0f s",
                       shortest, 1.5 * shortest);
    if (n >= PROC_RING * 2 && len > 0 && (size_t)len < sizeof(u->judged))
        snprintf(u->judged + len, sizeof(u->judged) - (size_t)len, " (its last %u samples, %.0f s)",
                 PROC_RING * 2, span);
    return true;
}

/* The checks that need history, the window each needs, and when they apply. */
static const struct hwindow {
    const char *code;
    size_t need_off;            /* uint32_t seconds in struct gs_health_cfg, or SIZE_MAX: fixed, or parts */
    uint32_t fixed_s;
    bool (*applies)(const struct gs_health *h);
    bool live_only;             /* its counters are not in the recorder's samples */
    bool (*parts)(const struct gs_health *h, double have, struct gs_unevaluated *u); /* a check with parts */
} hwindows[] = {
    { "proc.memory_leak", offsetof(struct gs_health_cfg, leak_min_s), 0, any_procs, false, NULL },
    { "proc.idle_memory", offsetof(struct gs_health_cfg, idle_min_s), 0, any_gpu, false, NULL },
    { "thermal.fan_stuck", SIZE_MAX, 0, any_fan, false, fan_window }, /* stuck while hot, and flat */
    { "pcie.replay_rate", SIZE_MAX, 60, any_gpu, true, NULL },
    { "gpu.busy_no_process", offsetof(struct gs_health_cfg, busy_min_s), 0, any_gpu, false, NULL },
    { "job.gpu_lagging", offsetof(struct gs_health_cfg, lag_min_s), 0, many_gpus, false, NULL },
    { "proc.input_stall", SIZE_MAX, 0, any_procs, false, saw_window }, /* periods of 2-60 s */
    { "ecc.sbe_storm", SIZE_MAX, 10, any_gpu, true, NULL },
};

void gs_health_set_live_start(struct gs_health *h, int64_t t_ms)
{
    h->live_ms = t_ms;
}

size_t gs_health_unevaluated(const struct gs_health *h, struct gs_unevaluated *out, size_t cap)
{
    double all = h->have_snap ? (double)(h->now_ms - h->first_ms) / 1000.0 : 0;
    double live = h->have_snap && h->live_ms != INT64_MIN ? (double)(h->now_ms - h->live_ms) / 1000.0 : all;
    size_t n = 0;
    for (size_t i = 0; i < sizeof(hwindows) / sizeof(hwindows[0]) && n < cap; i++) {
        const struct hwindow *w = &hwindows[i];
        struct gs_unevaluated *u = &out[n];
        double have = w->live_only ? live : all;
        memset(u, 0, sizeof(*u));
        u->need_s = w->fixed_s;
        if (w->need_off != SIZE_MAX)
            memcpy(&u->need_s, (const char *)&h->cfg + w->need_off, sizeof(u->need_s));
        if (!h->have_snap || !w->applies(h))
            continue;
        if (w->parts ? !w->parts(h, have, u) : have + 1e-9 >= u->need_s)
            continue;
        snprintf(u->code, sizeof(u->code), "%s", w->code);
        u->have_s = have;
        n++;
    }
    return n;
}

/* ---- evaluation --------------------------------------------------------------------------- */

static void hc_gpus(struct gs_health *h, struct gs_findings *out)
{
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++)
        if (h->gpus[i].seen)
            hc_gpu(h, &h->gpus[i], out);
}

/* Every check, in order (later ones may look at earlier findings: a lagging
 * GPU already explained by throttling is not reported twice). A new family of
 * checks is one row here (and one in hwindows[] if it needs history). */
static const struct hcheck {
    const char *name;
    void (*run)(struct gs_health *h, struct gs_findings *out);
} hchecks[] = {
    { "driver and GPU count", hc_driver },
    { "Xids", hc_xid },
    { "per GPU", hc_gpus },
    { "PCI bus and device holders", hc_host },
    { "processes", hc_procs },
    { "multi-GPU jobs", hc_jobs },
    { "routine checks (doctor --daily/--weekly/--monthly)", hc_routines },
};

int gs_health_eval(struct gs_health *h, struct gs_findings *out)
{
    gs_findings_clear(out);
    for (size_t i = 0; i < sizeof(hchecks) / sizeof(hchecks[0]); i++)
        hchecks[i].run(h, out);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), cmp_finding);
    return out->lost ? -GS_E_NOMEM : 0;
}
