/* SPDX-License-Identifier: MIT */
/*
 * checks_gpu.c - machine and GPU checks: driver/NVML state, GPU count, lost
 * GPUs, Xids (NVML events and kernel log, decoded with the catalog), ECC and
 * row remapping, PCIe link and replays, thermal and power throttling.
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
        hf_set(f->evidence, sizeof(f->evidence), "%s", e->msg);
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
    struct gs_finding *f = hf_new(out, sev, gpu, x->pid, code, "%s: Xid %u %s%s", where, x->xid,
                                  ci ? ci->mnemonic : "(not in the catalog)", n > 1 ? " (repeated)" : "");
    f->value = x->xid;
    char proc[96] = "", when[48] = "", lost[96] = "";
    if (x->pid || x->name[0])
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

void hc_xid(struct gs_health *h, struct gs_findings *out)
{
    for (uint32_t i = 0; i < h->nxids; i++) {
        const struct hxid *x = &h->xids[i];
        int32_t gpu = x->gpu != GS_NO_GPU ? x->gpu : gpu_by_pci(h, x);
        if (!xid_active(h, x))
            continue;
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
    uint32_t hot, hot_fan_min, hot_fan_max; /* samples near slowdown with a fan reading, and its range */
    int64_t hot_first_ms, hot_last_ms;
    uint32_t hw_thermal, sw_thermal, brake, loaded, loaded_gen_low;
    int32_t max_temp;
    const struct hsample *first_replay, *last_replay;
    double span_s;
};

/* A sample near slowdown that has a fan reading: track the fan's range. */
static void summarize_fan(const struct gs_health *h, const struct hgpu *g, const struct hsample *x, struct gsum *s)
{
    const uint64_t need = (UINT64_C(1) << GS_F_TEMP_GPU) | (UINT64_C(1) << GS_F_FAN_SPEED);
    if ((x->valid & need) != need || !gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) || g->st.temp_slowdown_c <= 0 ||
        x->temp_c < g->st.temp_slowdown_c - h->cfg.fan_hot_margin_c)
        return;
    if (!s->hot++)
        s->hot_first_ms = x->t_ms;
    s->hot_last_ms = x->t_ms;
    if (x->fan_pct < s->hot_fan_min)
        s->hot_fan_min = x->fan_pct;
    if (x->fan_pct > s->hot_fan_max)
        s->hot_fan_max = x->fan_pct;
}

static void summarize(const struct gs_health *h, const struct hgpu *g, struct gsum *s)
{
    memset(s, 0, sizeof(*s));
    s->max_temp = INT32_MIN;
    s->hot_fan_min = UINT32_MAX;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (x->state != GS_GPU_OK || (h->cfg.recent_s && h->now_ms - x->t_ms > (int64_t)h->cfg.recent_s * 1000))
            continue;
        s->n++;
        if (x->valid & (UINT64_C(1) << GS_F_THROTTLE)) {
            s->hw_thermal += (x->throttle & (GS_THROTTLE_HW_THERMAL | GS_THROTTLE_HW_SLOWDOWN)) != 0;
            s->sw_thermal += (x->throttle & GS_THROTTLE_SW_THERMAL) != 0;
            s->brake += (x->throttle & GS_THROTTLE_HW_POWER_BRAKE) != 0;
        }
        summarize_fan(h, g, x, s);
        if ((x->valid & (UINT64_C(1) << GS_F_TEMP_GPU)) && x->temp_c > s->max_temp)
            s->max_temp = x->temp_c;
        if ((x->valid & (UINT64_C(1) << GS_F_GPU_UTIL)) && x->util_pct >= h->cfg.load_util_pct &&
            (x->valid & (UINT64_C(1) << GS_F_PCIE_GEN))) {
            s->loaded++;
            s->loaded_gen_low += g->st.pcie_max_gen > 0 && x->pcie_gen < g->st.pcie_max_gen;
        }
        if (x->valid & (UINT64_C(1) << GS_F_PCIE_REPLAY)) {
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

static void check_thermal(struct gs_health *h, const struct hgpu *g, const struct gsum *s,
                          struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    const struct gs_sample *l = &g->last;
    bool slow_known = gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) && g->st.temp_slowdown_c > 0;
    char temp[96] = "";
    if (s->max_temp != INT32_MIN)
        snprintf(temp, sizeof(temp), "; peak %d C%s", s->max_temp, slow_known ? "," : "");
    if (slow_known && s->max_temp != INT32_MIN)
        snprintf(temp + strlen(temp), sizeof(temp) - strlen(temp), " slowdown threshold %d C",
                 g->st.temp_slowdown_c);
    double win = (double)(h->now_ms - h->first_ms) / 1000.0;
    if (h->cfg.recent_s && win > h->cfg.recent_s)
        win = h->cfg.recent_s;
    double hw = share(s->hw_thermal, s->n), sw = share(s->sw_thermal, s->n);
    struct gs_finding *f = NULL;

    if (s->hw_thermal >= 2 && hw >= h->cfg.throttle_min_share) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.hw_slowdown",
                   "GPU %d: hardware slowdown %.0f%% of the last %.0f s", idx, hw * 100, win);
        f->value = hw * 100;
        hf_set(f->evidence, sizeof(f->evidence), "HW thermal/HW slowdown active in %u of %u samples, SW thermal in %u%s",
               s->hw_thermal, s->n, s->sw_thermal, temp);
        hf_set(f->cause, sizeof(f->cause), "the GPU cut its clocks by half or more: too hot (cooling fault), "
               "or power-delivery protection");
        hf_set(f->action, sizeof(f->action), "drain the GPU; check fans, inlet temperature, airflow and blanking "
               "panels, the BMC event log and PSUs; compare with the sibling GPUs (one GPU: that slot/card; all: "
               "chassis or facility)");
    } else if (s->sw_thermal >= 2 && sw >= h->cfg.throttle_min_share) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.sw_slowdown",
                   "GPU %d: software thermal slowdown %.0f%% of the last %.0f s", idx, sw * 100, win);
        f->value = sw * 100;
        hf_set(f->evidence, sizeof(f->evidence), "SW thermal active in %u of %u samples%s", s->sw_thermal, s->n,
               temp);
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
    if (s->brake >= 2 && share(s->brake, s->n) >= h->cfg.throttle_min_share) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "power.hw_power_brake",
                   "GPU %d: hardware power brake %.0f%% of the window", idx, share(s->brake, s->n) * 100);
        hf_set(f->evidence, sizeof(f->evidence), "HW power brake active in %u of %u samples", s->brake, s->n);
        hf_set(f->cause, sizeof(f->cause), "the system asserted the external power-brake signal (PSU failure or "
               "lost redundancy, chassis power budget)");
        hf_set(f->action, sizeof(f->action), "check PSUs, the BMC event log and the chassis power policy");
    }
}

/* A fan that does not move while the GPU runs hot: failed fan, or a fan
 * curve/manual setting pinning it. A fan already at (or above) 90 % is doing
 * what it can and is not "stuck". */
static void check_fan(struct gs_health *h, const struct hgpu *g, const struct gsum *s, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    double span_s = (double)(s->hot_last_ms - s->hot_first_ms) / 1000.0;

    if (s->hot < 3 || span_s < h->cfg.fan_stuck_min_s || s->hot_fan_min != s->hot_fan_max || s->hot_fan_max >= 90)
        return;
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.fan_stuck",
                                  "GPU %d: fan stuck at %u%% while hot", idx, s->hot_fan_max);
    f->value = s->hot_fan_max;
    hf_set(f->evidence, sizeof(f->evidence), "fan at %u%% in all %u samples over %.0f s within %d C of the "
           "slowdown threshold (%d C)", s->hot_fan_max, s->hot, span_s, h->cfg.fan_hot_margin_c,
           g->st.temp_slowdown_c);
    hf_set(f->cause, sizeof(f->cause), "a failed or blocked fan, or a manual fan setting / fan curve that does not "
           "follow temperature");
    hf_set(f->action, sizeof(f->action), "check the fan (nvidia-smi -q -d TEMPERATURE,PERFORMANCE; nvidia-settings "
           "fan control); replace it before the GPU throttles");
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
                    const char *evidence, const char *cause, const char *action)
{
    struct gs_finding *f = hf_new(out, sev, idx, 0, code, "GPU %d: %s", idx, title);
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
        ecc_one(out, GS_SEV_CRITICAL, idx, "ecc.uncorrectable", "uncorrectable ECC errors", ev,
                "a double-bit (uncorrectable) memory error; the application that read it received an error",
                "reset the GPU (or reboot); if a row remap is pending it takes effect then; run field diagnostics "
                "if errors recur");
    }
    if (gs_sample_has(l, GS_F_REMAP_FAILED) && l->remap_failed) {
        snprintf(ev, sizeof(ev), "row remapping failure flag set; %u uncorrectable, %u correctable rows remapped",
                 l->remap_uncorr_rows, l->remap_corr_rows);
        ecc_one(out, GS_SEV_CRITICAL, idx, "ecc.remap_failed", "row remapping failed", ev,
                "a bank ran out of spare rows (8 UCE remaps), a remapped row failed again, or 512 remaps in total",
                "drain the GPU and run NVIDIA field diagnostics: a confirmed failure flag meets the RMA criteria");
    } else if (gs_sample_has(l, GS_F_REMAP_PENDING) && l->remap_pending) {
        snprintf(ev, sizeof(ev), "row remap pending; %u uncorrectable, %u correctable rows remapped",
                 l->remap_uncorr_rows, l->remap_corr_rows);
        ecc_one(out, GS_SEV_WARNING, idx, "ecc.remap_pending", "row remap pending a GPU reset", ev,
                "a memory row was marked for remapping; it takes effect at the next GPU reset",
                "reset the GPU when convenient (`nvidia-smi -r` with no processes); running applications are not "
                "affected");
    }
    if (gs_sample_has(l, GS_F_REMAP_UNCORR) && l->remap_uncorr_rows >= 512) {
        snprintf(ev, sizeof(ev), "%u uncorrectable rows remapped (limit 512)", l->remap_uncorr_rows);
        ecc_one(out, GS_SEV_WARNING, idx, "ecc.remap_limit", "row remapping exhausted", ev,
                "the GPU's memory keeps producing uncorrectable errors", "plan an RMA; run field diagnostics");
    }
    if (gs_sample_has(l, GS_F_RETIRED_PENDING) && l->retired_pending) {
        ecc_one(out, GS_SEV_WARNING, idx, "ecc.retired_pending", "page retirement pending", "retired pages pending",
                "a memory page was retired; it takes effect when the driver reloads or the GPU resets",
                "reset the GPU or reload the driver when convenient");
    }
    if (gs_sample_has(l, GS_F_RETIRED_SBE) && gs_sample_has(l, GS_F_RETIRED_DBE) &&
        l->retired_sbe_pages + l->retired_dbe_pages >= 63) {
        snprintf(ev, sizeof(ev), "%u pages retired (SBE %u, DBE %u); the limit is 64",
                 l->retired_sbe_pages + l->retired_dbe_pages, l->retired_sbe_pages, l->retired_dbe_pages);
        ecc_one(out, GS_SEV_CRITICAL, idx, "ecc.retired_limit", "page retirement limit reached", ev,
                "failing GPU memory", "drain the GPU and start the RMA path");
    }
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
        hf_set(f->evidence, sizeof(f->evidence), "below the maximum generation in %u of %u samples at >= %u%% "
               "utilization", s->loaded_gen_low, s->loaded, h->cfg.load_util_pct);
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
        hf_set(f->evidence, sizeof(f->evidence), "every NVML call answers GPU_IS_LOST%s%s",
               g->last_error[0] ? ": " : "", g->last_error);
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
        hf_set(f->evidence, sizeof(f->evidence), "persistence mode disabled on a GPU without a display");
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
    check_fan(h, g, &s, out);
    check_power(h, g, out);
    check_ecc(g, out);
    check_pcie(h, g, &s, out);
}
