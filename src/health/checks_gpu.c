/* SPDX-License-Identifier: MIT */
/*
 * checks_gpu.c - machine and GPU checks: driver/NVML state, GPU count, lost
 * GPUs, Xids (NVML events and kernel log, decoded with the catalog), ECC and
 * row remapping, PCIe link and replays, thermal and power throttling (fans:
 * checks_fan.c).
 * Thresholds come from struct gs_health_cfg; docs/HEALTH.md gives the sources.
 */
#include "health/health_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* GPUs in the recorder's history that the current snapshot lacks, by UUID. */
static void missing_gpus(const struct gs_health *h, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < h->hist->ngpus && used + 1 < cap; k++) {
        const struct gs_history_gpu *hg = &h->hist->gpus[k];
        bool present = false;
        for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX && !present; i++)
            present = h->gpus[i].seen && !strcmp(h->gpus[i].st.uuid, hg->uuid);
        if (present)
            continue;
        int n = snprintf(buf + used, cap - used, "%sGPU %u %s (%s, %s)", used ? "; " : "", hg->index, hg->uuid,
                         hg->name, hg->pci_bus_id);
        if (n < 0)
            break;
        used += (size_t)n < cap - used ? (size_t)n : cap - used - 1;
    }
}

static void count_low_history(struct gs_health *h, struct gs_findings *out)
{
    char missing[240];
    const struct gs_history *hi = h->hist;
    struct gs_finding *f = hf_new(out, GS_SEV_CRITICAL, GS_NO_GPU, 0, "gpu.count_low",
                                  "%u GPUs visible, the recorder has seen %u", h->ngpus, hi->ngpus);
    f->value = h->ngpus;
    missing_gpus(h, missing, sizeof(missing));
    long age_s = (long)((hi->last_ms > 0 ? (int64_t)time(NULL) * 1000 - hi->last_ms : 0) / 1000);
    hf_set(f->evidence, sizeof(f->evidence), "NVML counts %u GPUs; %s recorded %u (latest sample %ld s ago)%s%s",
           h->ngpus, hi->path, hi->ngpus, age_s > 0 ? age_s : 0L, missing[0] ? "; missing: " : "", missing);
    hf_set(f->cause, sizeof(f->cause),
           "a GPU fell off the bus or failed driver initialisation (kernel log: RmInitAdapter failed)");
    hf_set(f->action, sizeof(f->action),
           "compare with `lspci -d 10de:`: present there but not in NVML = driver init failure, read the "
           "kernel log; absent = power/slot/riser/BIOS; drain and reboot or power-cycle, RMA on recurrence");
}

void hc_driver(struct gs_health *h, struct gs_findings *out)
{
    if (h->open_failed) {
        const struct gs_err *e = &h->open_err;
        const char *code = "driver.error";
        if (e->code == GS_E_NO_LIBRARY)
            code = "driver.no_library";
        else if (e->code == GS_E_NO_DRIVER)
            code = strstr(e->msg, "mismatch") ? "driver.version_mismatch" : "driver.not_loaded";
        else if (e->code == GS_E_PERMISSION)
            code = "driver.permission";
        else if (e->code == GS_E_NO_DEVICE)
            code = "gpu.none";
        struct gs_finding *f = hf_new(out, GS_SEV_CRITICAL, GS_NO_GPU, 0, code, "GPUs cannot be read: %s",
                                      gs_errc_name((enum gs_errc)e->code));
        f->value = e->code;
        hf_set(f->evidence, sizeof(f->evidence), "%s (gpuscope error %d)", e->msg, e->code);
        hf_set(f->cause, sizeof(f->cause), "the NVIDIA library or kernel driver is unusable");
        hf_set(f->action, sizeof(f->action), "%s", e->hint[0] ? e->hint : "see the message above");
        return;
    }
    if (h->have_snap && h->hist && h->hist->ngpus > h->ngpus &&
        (h->cfg.expect_gpus <= 0 || h->hist->ngpus >= (uint32_t)h->cfg.expect_gpus)) {
        count_low_history(h, out);
        return;
    }
    if (h->have_snap && h->cfg.expect_gpus > 0 && h->ngpus < (uint32_t)h->cfg.expect_gpus) {
        struct gs_finding *f = hf_new(out, GS_SEV_CRITICAL, GS_NO_GPU, 0, "gpu.count_low",
                                      "%u GPUs visible, %d expected", h->ngpus, h->cfg.expect_gpus);
        f->value = h->ngpus;
        hf_set(f->evidence, sizeof(f->evidence), "NVML counts %u GPUs; --expect-gpus %d", h->ngpus,
               h->cfg.expect_gpus);
        hf_set(f->cause, sizeof(f->cause),
               "a GPU fell off the bus or failed driver initialisation (kernel log: RmInitAdapter failed)");
        hf_set(f->action, sizeof(f->action),
               "compare with `lspci -d 10de:`: present there but not in NVML = driver init failure, read the "
               "kernel log; absent = power/slot/riser/BIOS; drain and reboot or power-cycle, RMA on recurrence");
    }
}

static int32_t gpu_by_pci(const struct gs_health *h, const struct hxid *x)
{
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct gs_static *st = &h->gpus[i].st;
        if (h->gpus[i].seen && gs_static_has(st, GS_S_PCI) && st->pci_domain == x->pci_domain &&
            st->pci_bus == x->pci_bus && st->pci_device == x->pci_device)
            return (int32_t)i;
    }
    return GS_NO_GPU;
}

static void xid_finding(struct gs_health *h, const struct hxid *x, int32_t gpu, struct gs_findings *out)
{
    const struct gs_xid_info *ci = gs_xid_lookup(x->xid);
    enum gs_sev sev = ci ? (enum gs_sev)ci->severity : GS_SEV_WARNING;
    uint32_t n = x->n_nvml > x->n_kmsg ? x->n_nvml : x->n_kmsg;
    char where[48];

    if (gpu != GS_NO_GPU)
        snprintf(where, sizeof(where), "GPU %d", gpu);
    else if (x->has_pci)
        snprintf(where, sizeof(where), "PCI %04x:%02x:%02x", x->pci_domain, x->pci_bus, x->pci_device);
    else
        snprintf(where, sizeof(where), "unknown GPU");
    char code[16];
    snprintf(code, sizeof(code), "xid.%u", x->xid);
    /* Xid 119/120 name the process whose call hit the GSP timeout: not the culprit */
    uint32_t pid = x->xid == 119 || x->xid == 120 ? 0 : x->pid;
    struct gs_finding *f = hf_new(out, sev, gpu, pid, code, "%s: Xid %u %s%s", where, x->xid,
                                  ci ? ci->mnemonic : "(not in the catalog)", n > 1 ? " (repeated)" : "");
    f->value = x->xid;
    char proc[200] = "", when[48] = "", lost[96] = "";
    if ((x->xid == 119 || x->xid == 120) && (x->pid || x->name[0]))
        snprintf(proc, sizeof(proc), "; process %u (%s) was the caller waiting on the GSP firmware when it timed "
                 "out, not the cause", x->pid, x->name[0] ? x->name : "?");
    else if (x->pid || x->name[0])
        snprintf(proc, sizeof(proc), "; process %u (%s)", x->pid, x->name[0] ? x->name : "?");
    if (x->last_boot_s >= 0)
        snprintf(when, sizeof(when), "; last at %.1f s after boot", x->last_boot_s);
    if (gpu != GS_NO_GPU && h->gpus[gpu].state == GS_GPU_LOST)
        snprintf(lost, sizeof(lost), "; the GPU is now lost (every NVML call: GPU_IS_LOST)");
    hf_set(f->evidence, sizeof(f->evidence), "%u occurrence%s (%s%s%s)%s%s%s%s%s", n, n == 1 ? "" : "s",
           x->sources & 1 ? "NVML event" : "", x->sources == 3 ? ", " : "",
           x->sources & 2 ? "kernel log" : "", proc, when, x->msg[0] ? "; message: " : "", x->msg, lost);
    if (ci)
        hf_set(f->cause, sizeof(f->cause), "%s%s%s%s", ci->meaning, ci->causes[0] ? " (possible causes: " : "",
               ci->causes, ci->causes[0] ? ")" : "");
    else
        hf_set(f->cause, sizeof(f->cause), "an Xid gpuscope's catalog does not describe");
    hf_set(f->action, sizeof(f->action), "%s",
           ci ? ci->action
              : "consult NVIDIA's Xid catalog (https://docs.nvidia.com/deploy/xid-errors/) and the lines around "
                "it in the kernel log");
}

/* Xids from NVML events and a followed kernel log fade after xid_hold_s; those
 * of a whole-log read (since boot) stay. */
static bool xid_active(const struct gs_health *h, const struct hxid *x)
{
    return x->since_boot || h->now_ms - x->last_ms <= (int64_t)h->cfg.xid_hold_s * 1000;
}

/* "RmInitAdapter failed" lines: the driver could not bring up the GPU at that
 * address (it is then usually missing from NVML). */
static void init_failed_finding(const struct hxid *x, int32_t gpu, struct gs_findings *out)
{
    uint32_t n = x->n_nvml > x->n_kmsg ? x->n_nvml : x->n_kmsg;
    char where[48];
    if (x->has_pci)
        snprintf(where, sizeof(where), "PCI %04x:%02x:%02x", x->pci_domain, x->pci_bus, x->pci_device);
    else
        snprintf(where, sizeof(where), "a GPU");
    struct gs_finding *f = hf_new(out, GS_SEV_CRITICAL, gpu, 0, "driver.init_failed",
                                  "%s: the driver failed to initialise the GPU", where);
    f->value = n;
    char when[48] = "";
    if (x->last_boot_s >= 0)
        snprintf(when, sizeof(when), "; last at %.1f s after boot", x->last_boot_s);
    hf_set(f->evidence, sizeof(f->evidence), "%u kernel log line%s: %s%s", n, n == 1 ? "" : "s", x->msg, when);
    hf_set(f->cause, sizeof(f->cause), "GSP firmware or driver/firmware mismatch, a GPU in a bad state, power or "
           "PCIe trouble, or an unsupported configuration (the code in parentheses says which to NVIDIA)");
    hf_set(f->action, sizeof(f->action), "read the kernel log lines before it (GSP, GFW_BOOT, PCIe); reboot or "
           "power-cycle; reinstall a matching driver and firmware; reseat the card; RMA on recurrence");
}

void hc_xid(struct gs_health *h, struct gs_findings *out)
{
    for (uint32_t i = 0; i < h->nxids; i++) {
        const struct hxid *x = &h->xids[i];
        int32_t gpu = x->gpu != GS_NO_GPU ? x->gpu : gpu_by_pci(h, x);
        if (!xid_active(h, x))
            continue;
        if (x->xid == GS_XID_INIT_FAILED)
            init_failed_finding(x, gpu, out);
        else
            xid_finding(h, x, gpu, out);
    }
}

static bool has_xid(const struct gs_health *h, int32_t gpu, uint32_t code)
{
    for (uint32_t i = 0; i < h->nxids; i++) {
        const struct hxid *x = &h->xids[i];
        if (x->xid == code && xid_active(h, x) && (x->gpu != GS_NO_GPU ? x->gpu : gpu_by_pci(h, x)) == gpu)
            return true;
    }
    return false;
}

/* What the window says about one GPU. */
struct gsum {
    uint32_t n;                 /* samples read fine */
    uint32_t hw_thermal, sw_thermal, brake, loaded, loaded_gen_low;
    int32_t max_temp;
    const struct hsample *first_replay, *last_replay;
    double span_s;
    const struct hsample *latest; /* the newest sample read fine */
};

/* The mask's reasons as the checks judge them: HW slowdown (0x8) is set with
 * HW thermal and with the power brake; with the brake bit it is the brake's. */
static uint64_t effective_reasons(uint64_t m)
{
    if ((m & GS_THROTTLE_HW_POWER_BRAKE) && !(m & GS_THROTTLE_HW_THERMAL))
        m &= ~GS_THROTTLE_HW_SLOWDOWN;
    return m;
}

static bool in_window(const struct gs_health *h, const struct hsample *x)
{
    return hs_in_window(h, x);
}

/* The first and latest samples of the window in which field f holds a value. */
static bool span_of(const struct gs_health *h, const struct hgpu *g, unsigned f, const struct hsample **a,
                    const struct hsample **b)
{
    *a = *b = NULL;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (!in_window(h, x) || !gs_fmask_has(x->valid, f))
            continue;
        if (!*a)
            *a = x;
        *b = x;
    }
    return *a != NULL;
}

static void summarize(const struct gs_health *h, const struct hgpu *g, struct gsum *s)
{
    memset(s, 0, sizeof(*s));
    s->max_temp = INT32_MIN;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (!in_window(h, x))
            continue;
        s->n++;
        s->latest = x;
        if (gs_fmask_has(x->valid, GS_F_THROTTLE)) {
            uint64_t m = effective_reasons(x->throttle);
            s->hw_thermal += (m & (GS_THROTTLE_HW_THERMAL | GS_THROTTLE_HW_SLOWDOWN)) != 0;
            s->sw_thermal += (x->throttle & GS_THROTTLE_SW_THERMAL) != 0;
            s->brake += (x->throttle & GS_THROTTLE_HW_POWER_BRAKE) != 0;
        }
        if (gs_fmask_has(x->valid, GS_F_TEMP_GPU) && x->temp_c > s->max_temp)
            s->max_temp = x->temp_c;
        /* the link trains up under load within milliseconds: only a generation read in the same
         * tick as the utilization says anything (the read schedule hands older ones on) */
        if (gs_fmask_has(x->valid, GS_F_GPU_UTIL) && x->util_pct >= h->cfg.load_util_pct &&
            gs_fmask_has(x->valid, GS_F_PCIE_GEN) && x->pcie_gen_fresh) {
            s->loaded++;
            s->loaded_gen_low += g->st.pcie_max_gen > 0 && x->pcie_gen < g->st.pcie_max_gen;
        }
        if (gs_fmask_has(x->valid, GS_F_PCIE_REPLAY)) {
            if (!s->first_replay)
                s->first_replay = x;
            s->last_replay = x;
        }
    }
    if (s->first_replay)
        s->span_s = (double)(s->last_replay->t_ms - s->first_replay->t_ms) / 1000.0;
}

static double share(uint32_t k, uint32_t n)
{
    return n ? (double)k / n : 0;
}

/* Throttle time measured by a violation counter over the window: false when
 * the counter is not read (or only once). */
struct vtime {
    double s, span_s;           /* limiter time and the span it was measured over */
};

static bool viol_time(const struct gs_health *h, const struct hgpu *g, enum gs_viol v, struct vtime *out)
{
    const struct hsample *prev = NULL, *first = NULL;
    double sum = 0;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (!in_window(h, x) || !gs_fmask_has(x->valid, GS_F_VIOL_POWER + v))
            continue;
        /* pair by pair: a counter cannot run faster than time (a reset, or a
         * clock that jumped, adds at most the pair's own span) */
        if (prev && x->t_ms > prev->t_ms && x->viol_ns[v] > prev->viol_ns[v]) {
            double d = (double)(x->viol_ns[v] - prev->viol_ns[v]) / 1e9, dt = (double)(x->t_ms - prev->t_ms) / 1000;
            sum += d < dt ? d : dt;
        }
        first = first ? first : x;
        prev = x;
    }
    if (!first || first == prev || prev->t_ms <= first->t_ms)
        return false;
    out->span_s = (double)(prev->t_ms - first->t_ms) / 1000.0;
    out->s = sum;
    return true;
}

/* One throttle reason, judged on the exact counter when there is one, else on
 * the sampled bit mask (a share of the samples); a single snapshot (doctor
 * --quick) reports what is active at that instant. */
struct treason {
    const char *code, *words;
    uint64_t bits;              /* reason bits in the mask */
    uint32_t nbits;             /* samples with a bit set */
    int viol;                   /* enum gs_viol, or -1: no counter */
    bool hw;                    /* a HW reason: any counter time >= hw_throttle_min_ms counts */
};

static bool reason_fires(struct gs_health *h, const struct hgpu *g, const struct gsum *s, const struct treason *r,
                         char *ev, size_t cap, double *value)
{
    struct vtime vt = { 0, 0 };
    bool have_ctr = r->viol >= 0 && viol_time(h, g, (enum gs_viol)r->viol, &vt);
    bool now = s->latest && gs_fmask_has(s->latest->valid, GS_F_THROTTLE) &&
               (effective_reasons(s->latest->throttle) & r->bits);
    double min_s = r->hw ? h->cfg.hw_throttle_min_ms / 1000.0 : 0;
    if (have_ctr && vt.s > 0 && ((r->hw && vt.s >= min_s) || vt.s / vt.span_s >= h->cfg.throttle_min_share)) {
        *value = vt.s;
        snprintf(ev, cap, "%s %.1f s of %.0f s (%.0f%%, violation counter); the reason bit was set in %u of %u "
                 "samples", r->words, vt.s, vt.span_s, 100 * vt.s / vt.span_s, r->nbits, s->n);
        return true;
    }
    if (r->nbits >= 2 && share(r->nbits, s->n) >= h->cfg.throttle_min_share) {
        *value = 100 * share(r->nbits, s->n);
        snprintf(ev, cap, "%s active in %u of %u samples (%.0f%%)%s", r->words, r->nbits, s->n, *value,
                 have_ctr ? "" : "; no violation counter on this GPU/driver");
        return true;
    }
    if (s->n == 1 && now) { /* one snapshot: what is true at this instant */
        *value = 100;
        snprintf(ev, cap, "%s active now (one snapshot; the clock event reason mask is 0x%llx)", r->words,
                 (unsigned long long)s->latest->throttle);
        return true;
    }
    return false;
}

static void thermal_context(const struct hgpu *g, const struct gsum *s, char *buf, size_t cap)
{
    bool slow_known = gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) && g->st.temp_slowdown_c > 0;
    buf[0] = '\0';
    if (s->max_temp != INT32_MIN)
        snprintf(buf, cap, "; peak %d C%s", s->max_temp, slow_known ? "," : "");
    if (slow_known && s->max_temp != INT32_MIN)
        snprintf(buf + strlen(buf), cap - strlen(buf), " slowdown threshold %d C", g->st.temp_slowdown_c);
}

static void check_thermal(struct gs_health *h, const struct hgpu *g, const struct gsum *s,
                          struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    const struct gs_sample *l = &g->last;
    bool slow_known = gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) && g->st.temp_slowdown_c > 0;
    char temp[96], ev[300];
    double v;
    thermal_context(g, s, temp, sizeof(temp));
    const struct treason hw = { "thermal.hw_slowdown", "HW thermal/HW slowdown",
                                GS_THROTTLE_HW_THERMAL | GS_THROTTLE_HW_SLOWDOWN, s->hw_thermal, GS_VIOL_HW_THERMAL,
                                true };
    const struct treason sw = { "thermal.sw_slowdown", "SW thermal slowdown", GS_THROTTLE_SW_THERMAL, s->sw_thermal,
                                GS_VIOL_THERMAL, false };
    const struct treason brake = { "power.hw_power_brake", "HW power brake", GS_THROTTLE_HW_POWER_BRAKE, s->brake,
                                   GS_VIOL_HW_POWER_BRAKE, true };
    struct gs_finding *f;

    if (reason_fires(h, g, s, &hw, ev, sizeof(ev), &v)) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, hw.code, "GPU %d: hardware slowdown (%s)", idx, ev);
        snprintf(f->title, sizeof(f->title), "GPU %d: hardware slowdown", idx);
        f->value = v;
        hf_set(f->evidence, sizeof(f->evidence), "%s%s", ev, temp);
        hf_set(f->cause, sizeof(f->cause), "the GPU cut its clocks by half or more: too hot (cooling fault), "
               "or power-delivery protection");
        hf_set(f->action, sizeof(f->action), "drain the GPU; check fans, inlet temperature, airflow and blanking "
               "panels, the BMC event log and PSUs; compare with the sibling GPUs (one GPU: that slot/card; all: "
               "chassis or facility)");
    } else if (reason_fires(h, g, s, &sw, ev, sizeof(ev), &v)) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, sw.code, "GPU %d: software thermal slowdown", idx);
        f->value = v;
        hf_set(f->evidence, sizeof(f->evidence), "%s%s", ev, temp);
        hf_set(f->cause, sizeof(f->cause), "the GPU reached its maximum operating temperature under load");
        hf_set(f->action, sizeof(f->action), "check fans, inlet temperature and airflow; compare with sibling GPUs");
    } else if (slow_known && gs_sample_has(l, GS_F_TEMP_GPU) && g->state == GS_GPU_OK &&
               l->temp_gpu_c >= g->st.temp_slowdown_c - h->cfg.thermal_margin_c) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.near_slowdown", "GPU %d: %d C, %d C from slowdown", idx,
                   l->temp_gpu_c, g->st.temp_slowdown_c - l->temp_gpu_c);
        f->value = l->temp_gpu_c;
        hf_set(f->evidence, sizeof(f->evidence), "temperature %d C, slowdown threshold %d C (warning margin %d C)%s",
               l->temp_gpu_c, g->st.temp_slowdown_c, h->cfg.thermal_margin_c, temp);
        hf_set(f->cause, sizeof(f->cause), "cooling barely keeps up with the load");
        hf_set(f->action, sizeof(f->action), "check fans, inlet temperature and airflow before clocks drop");
    }
    if (reason_fires(h, g, s, &brake, ev, sizeof(ev), &v)) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, brake.code, "GPU %d: hardware power brake", idx);
        f->value = v;
        hf_set(f->evidence, sizeof(f->evidence), "%s", ev);
        hf_set(f->cause, sizeof(f->cause), "the system asserted the external power-brake signal (PSU failure or "
               "lost redundancy, chassis power budget)");
        hf_set(f->action, sizeof(f->action), "check PSUs, the BMC event log and the chassis power policy");
    }
}

static void check_power(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    const struct gs_sample *l = &g->last;
    if (!gs_sample_has(l, GS_F_POWER_ENFORCED) || !gs_static_has(&g->st, GS_S_POWER_DEFAULT) ||
        !g->st.power_default_limit_mw)
        return;
    double r = (double)l->power_enforced_limit_mw / g->st.power_default_limit_mw;
    if (r >= h->cfg.power_limit_min_ratio)
        return;
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, 0, "power.limit_reduced",
                                  "GPU %d: power capped at %.0f%% of the board default", idx, r * 100);
    f->value = r * 100;
    hf_set(f->evidence, sizeof(f->evidence), "enforced limit %.0f W, default limit %.0f W",
           l->power_enforced_limit_mw / 1000.0, g->st.power_default_limit_mw / 1000.0);
    hf_set(f->cause, sizeof(f->cause), "an administrator's `nvidia-smi -pl`, or BMC/system power capping");
    hf_set(f->action, sizeof(f->action), "if unintended restore the default limit (`nvidia-smi -pl`) and check the "
           "BMC's power policy; SW power cap under load is otherwise normal");
}

static void ecc_one(struct gs_findings *out, enum gs_sev sev, int32_t idx, const char *code, const char *title,
                    double value, const char *evidence, const char *cause, const char *action)
{
    struct gs_finding *f = hf_new(out, sev, idx, 0, code, "GPU %d: %s", idx, title);
    f->value = value;
    hf_set(f->evidence, sizeof(f->evidence), "%s", evidence);
    hf_set(f->cause, sizeof(f->cause), "%s", cause);
    hf_set(f->action, sizeof(f->action), "%s", action);
}

static void check_ecc(const struct hgpu *g, struct gs_findings *out)
{
    const struct gs_sample *l = &g->last;
    int32_t idx = (int32_t)g->st.index;
    char ev[200];
    if (gs_sample_has(l, GS_F_ECC_VOL_UNCORR) && l->ecc_vol_uncorrected > 0) {
        snprintf(ev, sizeof(ev), "%llu volatile uncorrectable ECC errors since the driver loaded",
                 (unsigned long long)l->ecc_vol_uncorrected);
        ecc_one(out, GS_SEV_CRITICAL, idx, "ecc.uncorrectable", "uncorrectable ECC errors",
                (double)l->ecc_vol_uncorrected, ev,
                "a double-bit (uncorrectable) memory error; the application that read it received an error",
                "reset the GPU (or reboot); if a row remap is pending it takes effect then; run field diagnostics "
                "if errors recur");
    }
    if (gs_sample_has(l, GS_F_REMAP_FAILED) && l->remap_failed) {
        snprintf(ev, sizeof(ev), "row remapping failure flag set; %u uncorrectable, %u correctable rows remapped",
                 l->remap_uncorr_rows, l->remap_corr_rows);
        ecc_one(out, GS_SEV_CRITICAL, idx, "ecc.remap_failed", "row remapping failed", l->remap_uncorr_rows, ev,
                "a bank ran out of spare rows (8 UCE remaps), a remapped row failed again, or 512 remaps in total",
                "drain the GPU and run NVIDIA field diagnostics: a confirmed failure flag meets the RMA criteria");
    } else if (gs_sample_has(l, GS_F_REMAP_PENDING) && l->remap_pending) {
        snprintf(ev, sizeof(ev), "row remap pending (flag %u); %u uncorrectable, %u correctable rows remapped",
                 l->remap_pending, l->remap_uncorr_rows, l->remap_corr_rows);
        ecc_one(out, GS_SEV_WARNING, idx, "ecc.remap_pending", "row remap pending a GPU reset", l->remap_pending, ev,
                "a memory row was marked for remapping; it takes effect at the next GPU reset",
                "reset the GPU when convenient (`nvidia-smi -r` with no processes); running applications are not "
                "affected");
    }
    if (gs_sample_has(l, GS_F_REMAP_UNCORR) && l->remap_uncorr_rows >= 512) {
        snprintf(ev, sizeof(ev), "%u uncorrectable rows remapped (limit 512)", l->remap_uncorr_rows);
        ecc_one(out, GS_SEV_WARNING, idx, "ecc.remap_limit", "row remapping exhausted", l->remap_uncorr_rows, ev,
                "the GPU's memory keeps producing uncorrectable errors", "plan an RMA; run field diagnostics");
    }
    if (gs_sample_has(l, GS_F_RETIRED_PENDING) && l->retired_pending) {
        ecc_one(out, GS_SEV_WARNING, idx, "ecc.retired_pending", "page retirement pending", 1,
                "retired pages pending (flag 1)",
                "a memory page was retired; it takes effect when the driver reloads or the GPU resets",
                "reset the GPU or reload the driver when convenient");
    }
    if (gs_sample_has(l, GS_F_RETIRED_SBE) && gs_sample_has(l, GS_F_RETIRED_DBE) &&
        l->retired_sbe_pages + l->retired_dbe_pages >= 63) {
        snprintf(ev, sizeof(ev), "%u pages retired (SBE %u, DBE %u); the limit is 64",
                 l->retired_sbe_pages + l->retired_dbe_pages, l->retired_sbe_pages, l->retired_dbe_pages);
        ecc_one(out, GS_SEV_CRITICAL, idx, "ecc.retired_limit", "page retirement limit reached",
                l->retired_sbe_pages + l->retired_dbe_pages, ev, "failing GPU memory",
                "drain the GPU and start the RMA path");
    }
    if (gs_sample_has(l, GS_F_ECC_MODE) && l->ecc_mode_current != l->ecc_mode_pending) {
        snprintf(ev, sizeof(ev), "ECC is %s now and %s after the next reboot or GPU reset (current %u, pending %u)",
                 l->ecc_mode_current ? "on" : "off", l->ecc_mode_pending ? "on" : "off", l->ecc_mode_current,
                 l->ecc_mode_pending);
        ecc_one(out, l->ecc_mode_pending ? GS_SEV_INFO : GS_SEV_WARNING, idx, "config.ecc_pending",
                l->ecc_mode_pending ? "ECC turns on at the next reset" : "ECC turns off at the next reset",
                l->ecc_mode_pending, ev,
                "someone ran `nvidia-smi -e`; the change applies at the next reboot or GPU reset (memory capacity "
                "and bandwidth change with it, and memory errors go undetected with ECC off)",
                "if unintended, set it back with `nvidia-smi -i N -e 1` (or 0) before the next reboot");
    }
}

/* Memory errors arriving now, from the window's counters (tolerates counters
 * refreshed only every few seconds: first and latest reading). */
static void check_ecc_rates(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    const struct hsample *a, *b;
    char ev[300];
    if (span_of(h, g, GS_F_ECC_VOL_CORR, &a, &b) && b->t_ms > a->t_ms && b->ecc_vol_corr > a->ecc_vol_corr) {
        double span = (double)(b->t_ms - a->t_ms) / 1000.0, d = (double)(b->ecc_vol_corr - a->ecc_vol_corr);
        double per_min = d / span * 60;
        if (d >= h->cfg.sbe_storm_min && per_min >= h->cfg.sbe_storm_per_min) {
            snprintf(ev, sizeof(ev), "%.0f corrected (single-bit) ECC errors in %.0f s (%.0f/min; threshold %.0f/min "
                     "and at least %u); %llu since the driver loaded", d, span, per_min, h->cfg.sbe_storm_per_min,
                     h->cfg.sbe_storm_min, (unsigned long long)b->ecc_vol_corr);
            ecc_one(out, GS_SEV_WARNING, idx, "ecc.sbe_storm", "storm of corrected ECC errors", per_min, ev,
                    "a weak memory cell or row keeps producing single-bit errors; corrected, but it costs "
                    "bandwidth and often precedes page retirement or an uncorrectable error",
                    "watch retired pages / remapped rows; drain and reset the GPU (pending remaps apply), run field "
                    "diagnostics if the storm continues");
        }
    }
    unsigned fr = gs_fmask_has(g->last.valid, GS_F_REMAP_CORR) ? GS_F_REMAP_CORR : GS_F_RETIRED_SBE;
    if (span_of(h, g, fr, &a, &b) && b->t_ms > a->t_ms) {
        uint32_t x0 = fr == GS_F_REMAP_CORR ? a->remapped : a->retired, x1 = fr == GS_F_REMAP_CORR ? b->remapped
                                                                                              : b->retired;
        if (x1 > x0) {
            double span = (double)(b->t_ms - a->t_ms) / 1000.0;
            snprintf(ev, sizeof(ev), "%u %s in the last %.0f s (%u -> %u)", x1 - x0,
                     fr == GS_F_REMAP_CORR ? "rows remapped" : "pages retired", span, x0, x1);
            ecc_one(out, GS_SEV_WARNING, idx, "ecc.retire_rate",
                    fr == GS_F_REMAP_CORR ? "rows being remapped now" : "pages being retired now",
                    (x1 - x0) / span * 3600, ev,
                    "memory keeps failing: each retirement or remap takes a spare row or page out of service",
                    "drain the GPU; reset it so pending remaps apply; RMA when the rate continues or the limits "
                    "(64 pages, 512 rows, 8 per bank) come near");
        }
    }
}

/* NVLink: links inactive while others are up (all down usually means no
 * bridge or fabric is attached), and data-link error counters growing
 * (DCGM's NVLink health watch: any replay or recovery error fails, CRC errors
 * warn, >= 100/s fail). */
static void check_nvlink(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    const struct gs_sample *l = &g->last;
    struct gs_finding *f;
    if (gs_sample_has(l, GS_F_NVLINK_STATE) && l->nvlink_count && l->nvlink_down_mask &&
        !(gs_sample_has(l, GS_F_MIG_MODE) && l->mig_mode_current)) {
        uint32_t down = (uint32_t)__builtin_popcountll(l->nvlink_down_mask);
        if (down < l->nvlink_count) {
            char links[160] = "";
            size_t used = 0;
            for (uint32_t k = 0; k < l->nvlink_count && k < 64 && used + 8 < sizeof(links); k++)
                if ((l->nvlink_down_mask >> k) & 1)
                    used += (size_t)snprintf(links + used, sizeof(links) - used, "%s%u", used ? ", " : "", k);
            f = hf_new(out, GS_SEV_CRITICAL, idx, 0, "nvlink.down", "GPU %d: %u of %u NVLinks down", idx, down,
                       l->nvlink_count);
            f->value = down;
            hf_set(f->evidence, sizeof(f->evidence), "links %s inactive, %u active", links, l->nvlink_count - down);
            hf_set(f->cause, sizeof(f->cause), "a link failed training or went down (cable/bridge, NVSwitch or the "
                   "peer GPU); collective traffic falls back to slower paths or the job hangs");
            hf_set(f->action, sizeof(f->action), "read `nvidia-smi nvlink -s` and the kernel log (Xid 74); drain and "
                   "reset the GPU or reboot; check the peer GPU / NVSwitch and Fabric Manager");
        }
    }
    const struct hsample *a, *b;
    if (!span_of(h, g, GS_F_NVLINK_ERRORS, &a, &b) || b->t_ms <= a->t_ms)
        return;
    double span = (double)(b->t_ms - a->t_ms) / 1000.0;
    uint64_t crc = b->nvl_crc - (a->nvl_crc <= b->nvl_crc ? a->nvl_crc : b->nvl_crc);
    uint64_t rep = b->nvl_replay - (a->nvl_replay <= b->nvl_replay ? a->nvl_replay : b->nvl_replay);
    uint64_t rec = b->nvl_recovery - (a->nvl_recovery <= b->nvl_recovery ? a->nvl_recovery : b->nvl_recovery);
    if (!crc && !rep && !rec)
        return;
    double crc_s = crc / span;
    f = hf_new(out, crc_s >= h->cfg.nvlink_crc_per_s ? GS_SEV_CRITICAL : GS_SEV_WARNING, idx, 0, "nvlink.errors",
               "GPU %d: NVLink errors growing", idx);
    f->value = (double)(crc + rep + rec);
    hf_set(f->evidence, sizeof(f->evidence), "over %.0f s: %llu CRC errors (%.1f/s; critical from %.0f/s), %llu "
           "replays, %llu recoveries", span, (unsigned long long)crc, crc_s, h->cfg.nvlink_crc_per_s,
           (unsigned long long)rep, (unsigned long long)rec);
    hf_set(f->cause, sizeof(f->cause), "a marginal NVLink (signal integrity of a cable/bridge, connector, the "
           "NVSwitch or peer side)");
    hf_set(f->action, sizeof(f->action), "compare the counters per link (`nvidia-smi nvlink -e`); reseat or swap the "
           "bridge/cable; drain if replays and recoveries keep growing");
}

/* DCGM's expected replays per lane per minute (1e-12 BER x line rate x 60). */
static double replay_rate_per_lane(uint32_t gen)
{
    static const double r[] = { 0.15, 0.15, 0.3, 0.48, 0.96, 1.92, 3.84 };
    return r[gen < 7 ? gen : 6];
}

static void check_pcie(struct gs_health *h, const struct hgpu *g, const struct gsum *s, struct gs_findings *out)
{
    const struct gs_sample *l = &g->last;
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f;
    if (gs_sample_has(l, GS_F_PCIE_WIDTH) && gs_static_has(&g->st, GS_S_PCIE_MAX_WIDTH) &&
        l->pcie_width && l->pcie_width < g->st.pcie_max_width) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "pcie.width_degraded", "GPU %d: PCIe link x%u, capable of x%u", idx,
                   l->pcie_width, g->st.pcie_max_width);
        f->value = l->pcie_width;
        hf_set(f->evidence, sizeof(f->evidence), "current width x%u, maximum x%u (width does not change with load)",
               l->pcie_width, g->st.pcie_max_width);
        hf_set(f->cause, sizeof(f->cause), "a physical problem: riser or cable, dirty or damaged connector, slot "
               "wiring or bifurcation setting");
        hf_set(f->action, sizeof(f->action), "reseat the card; swap card and slot/riser to see whether the fault "
               "follows the GPU or the slot");
    }
    if (s->loaded >= 3 && share(s->loaded_gen_low, s->loaded) >= 0.5) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "pcie.gen_degraded",
                   "GPU %d: PCIe gen %u under load, capable of gen %u", idx, l->pcie_gen, g->st.pcie_max_gen);
        f->value = l->pcie_gen;
        char own[40] = "unknown";
        if (gs_static_has(&g->st, GS_S_PCIE_GPU_MAX_GEN))
            snprintf(own, sizeof(own), "gen %u", g->st.pcie_gpu_max_gen);
        hf_set(f->evidence, sizeof(f->evidence), "below the maximum generation (gen %u for this GPU in this slot; "
               "the GPU's own: %s) in %u of %u samples at >= %u%% utilization", g->st.pcie_max_gen, own,
               s->loaded_gen_low, s->loaded, h->cfg.load_util_pct);
        hf_set(f->cause, sizeof(f->cause), "the link trained down: signal integrity (riser, connector, slot)");
        hf_set(f->action, sizeof(f->action), "check the PCIe replay and AER counters; reseat, then swap card and "
               "slot/riser");
    }
    if (s->first_replay && s->span_s >= 60 && s->last_replay->replay >= s->first_replay->replay) {
        uint32_t width = l->pcie_width ? l->pcie_width : 16;
        double limit = ceil(width * replay_rate_per_lane(l->pcie_gen));
        double per_min = (s->last_replay->replay - s->first_replay->replay) / (s->span_s / 60.0);
        if (per_min > limit) {
            f = hf_new(out, GS_SEV_WARNING, idx, 0, "pcie.replay_rate", "GPU %d: %.0f PCIe replays per minute", idx,
                       per_min);
            f->value = per_min;
            hf_set(f->evidence, sizeof(f->evidence), "replay counter %u -> %u over %.0f s; expected at most %.0f/min "
                   "for gen %u x%u", s->first_replay->replay, s->last_replay->replay, s->span_s, limit,
                   l->pcie_gen, width);
            hf_set(f->cause, sizeof(f->cause), "link-layer retransmissions after CRC errors: a marginal link");
            hf_set(f->action, sizeof(f->action), "reseat the card, check the riser/slot; watch for Xid 79/32/119 on "
                   "this GPU");
        }
    }
}

static void check_state(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f;
    if (g->state == GS_GPU_LOST && !has_xid(h, idx, 79)) {
        f = hf_new(out, GS_SEV_CRITICAL, idx, 0, "gpu.lost", "GPU %d fell off the bus", idx);
        f->value = 15; /* NVML_ERROR_GPU_IS_LOST */
        hf_set(f->evidence, sizeof(f->evidence), "every NVML call answers GPU_IS_LOST (NVML error 15)%s%s; lost for "
               "%.0f s", g->last_error[0] ? ": " : "", g->last_error,
               g->lost_since > 0 ? (double)(time(NULL) - g->lost_since) : 0);
        hf_set(f->cause, sizeof(f->cause), "the PCIe link dropped: hardware, power, thermal, riser or slot");
        hf_set(f->action, sizeof(f->action), "read the kernel log for Xid 79 and PCIe/AER messages; drain, reboot or "
               "power-cycle the node; reseat or swap the riser or slot; RMA on recurrence");
    } else if (g->state == GS_GPU_ERROR) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "gpu.unreadable", "GPU %d cannot be read", idx);
        hf_set(f->evidence, sizeof(f->evidence), "%s", g->last_error[0] ? g->last_error : "no details");
        hf_set(f->cause, sizeof(f->cause), "the driver refused the GPU (permissions, cgroup device rules, or a "
               "driver fault)");
        hf_set(f->action, sizeof(f->action), "read the error above; in a container check the device rules");
    }
    const struct gs_sample *l = &g->last;
    if (g->state == GS_GPU_OK && gs_sample_has(l, GS_F_PERSISTENCE) && !l->persistence_mode &&
        !(gs_sample_has(l, GS_F_DISPLAY_MODE) && l->display_mode)) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "config.persistence_off", "GPU %d: persistence mode is off", idx);
        f->value = l->persistence_mode;
        hf_set(f->evidence, sizeof(f->evidence), "persistence mode 0 (disabled) on a GPU without a display");
        hf_set(f->cause, sizeof(f->cause), "without nvidia-persistenced the driver tears the GPU down when the last "
               "client exits: slow starts, and ECC scrubbing shows as busy utilization");
        hf_set(f->action, sizeof(f->action), "enable the nvidia-persistenced service");
    }
}

void hc_gpu(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    struct gsum s;
    check_state(h, g, out);
    if (g->state != GS_GPU_OK)
        return;
    summarize(h, g, &s);
    check_thermal(h, g, &s, out);
    hc_fan(h, g, out);
    check_power(h, g, out);
    check_ecc(g, out);
    check_ecc_rates(h, g, out);
    check_nvlink(h, g, out);
    check_pcie(h, g, &s, out);
    hc_gpu_drm(h, g, out);
}
