/* SPDX-License-Identifier: MIT */
/*
 * routine.c - the operators' routine checks behind `doctor --daily`,
 * `--weekly` and `--monthly` (practitioners' checklists; docs/HEALTH.md):
 *   daily   utilization, memory above 90 %, temperature, Xid count;
 *   weekly  driver and CUDA versions against what the installed frameworks
 *           were built for;
 *   monthly PCIe link state, fan speeds, and the load behaviour (SM clock
 *           under load, power at the same utilization, temperature at the same
 *           power) compared with the recorder's history a month ago.
 * Same findings as every other check: a summary at severity info, problems
 * as warnings or critical, so the exit codes mean the same.
 */
#include "health/health_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gs_health_set_routines(struct gs_health *h, unsigned which)
{
    h->routines = which;
}

void gs_health_set_frameworks(struct gs_health *h, const struct gs_framework *v, size_t n, const char *searched)
{
    h->nfw = 0;
    for (size_t i = 0; i < n && h->nfw < GS_FRAMEWORKS_MAX; i++)
        h->fw[h->nfw++] = v[i];
    snprintf(h->fw_searched, sizeof(h->fw_searched), "%s", searched ? searched : "");
}

void gs_health_set_trend(struct gs_health *h, const struct gs_trend *t)
{
    if (!t) {
        free(h->trend);
        h->trend = NULL;
        return;
    }
    if (!h->trend && !(h->trend = malloc(sizeof(*h->trend))))
        return;
    *h->trend = *t;
}

/* ---- daily ---------------------------------------------------------------------------------- */

struct gday {
    double util_sum;
    uint32_t util_n;
    double mem_pct_max;
    int32_t temp_max;
};

static void day_of(const struct gs_health *h, const struct hgpu *g, struct gday *d)
{
    memset(d, 0, sizeof(*d));
    d->temp_max = INT32_MIN;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (x->state != GS_GPU_OK)
            continue;
        if (gs_fmask_has(x->valid, GS_F_GPU_UTIL)) {
            d->util_sum += x->util_pct;
            d->util_n++;
        }
        if (gs_fmask_has(x->valid, GS_F_MEM_USED) && x->mem_total_mib)
            d->mem_pct_max = fmax(d->mem_pct_max, 100.0 * x->mem_used_mib / x->mem_total_mib);
        if (gs_fmask_has(x->valid, GS_F_TEMP_GPU) && x->temp_c > d->temp_max)
            d->temp_max = x->temp_c;
    }
}

static uint32_t xid_total(const struct gs_health *h)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nxids; i++)
        if (h->xids[i].xid != GS_XID_INIT_FAILED)
            n += h->xids[i].n_nvml > h->xids[i].n_kmsg ? h->xids[i].n_nvml : h->xids[i].n_kmsg;
    return n;
}

static void daily(struct gs_health *h, struct gs_findings *out)
{
    double util_all = 0, mem_max = 0;
    uint32_t ngpu = 0, mem_gpu = 0, hot_gpu = 0, low_gpu = 0;
    int32_t temp_max = INT32_MIN;
    double low_util = INFINITY;
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct hgpu *g = &h->gpus[i];
        struct gday d;
        if (!g->seen || g->state != GS_GPU_OK)
            continue;
        day_of(h, g, &d);
        double u = d.util_n ? d.util_sum / d.util_n : 0;
        util_all += u;
        ngpu++;
        if (u < low_util)
            low_util = u, low_gpu = g->st.index;
        if (d.mem_pct_max > mem_max)
            mem_max = d.mem_pct_max, mem_gpu = g->st.index;
        if (d.temp_max > temp_max)
            temp_max = d.temp_max, hot_gpu = g->st.index;
        if (d.mem_pct_max >= 90) {
            int32_t idx = (int32_t)g->st.index;
            struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, g->job_pid, "daily.memory_high",
                                          "GPU %d: memory %.0f%% used", idx, d.mem_pct_max);
            f->value = d.mem_pct_max;
            hf_set(f->evidence, sizeof(f->evidence), "up to %.0f%% of GPU memory used during the check (daily "
                   "threshold 90%%)%s%s", d.mem_pct_max, g->job[0] ? "; largest process: " : "", g->job);
            hf_set(f->cause, sizeof(f->cause), "a job close to running out of memory (or a caching allocator "
                   "holding what it once needed)");
            hf_set(f->action, sizeof(f->action), "check the job's batch size and memory growth; an OOM is next");
        }
    }
    struct gs_finding *f = hf_new(out, GS_SEV_INFO, GS_NO_GPU, 0, "daily.summary", "daily check: %u GPU%s", ngpu,
                                  ngpu == 1 ? "" : "s");
    f->value = ngpu ? util_all / ngpu : 0;
    char temp[64] = "no temperature";
    if (temp_max != INT32_MIN)
        snprintf(temp, sizeof(temp), "peak temperature %d C (GPU %u)", temp_max, hot_gpu);
    hf_set(f->evidence, sizeof(f->evidence), "utilization mean %.0f%% (lowest GPU %u at %.0f%%); memory up to %.0f%% "
           "used (GPU %u); %s; %u Xid%s (kernel log since boot and NVML events)", f->value, low_gpu,
           isfinite(low_util) ? low_util : 0, mem_max, mem_gpu, temp, xid_total(h), xid_total(h) == 1 ? "" : "s");
    hf_set(f->cause, sizeof(f->cause), "the daily routine: utilization, memory above 90 %%, temperature, Xids");
    hf_set(f->action, sizeof(f->action), "act on the warnings above; nothing to do when there are none");
}

/* ---- weekly --------------------------------------------------------------------------------- */

/* The lowest Linux driver for a CUDA major under minor-version compatibility. */
/* n: what snprintf into buf (cap bytes) wanted; a cut text ends in "..." so it reads as cut. */
static void mark_cut(char *buf, size_t cap, int n)
{
    if (n >= 0 && (size_t)n >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

static const char *min_driver(int major)
{
    return major == 11 ? "450.80.02" : major == 12 ? "525.60.13" : major == 13 ? "580.65.06" : NULL;
}

/* "525.60.13" against "550.127.05": numeric per dot-separated part. */
static int cmp_version(const char *a, const char *b)
{
    for (int part = 0; part < 6; part++) {
        char *ea, *eb;
        long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
        if (x != y)
            return x < y ? -1 : 1;
        if (*ea != '.' || *eb != '.')
            break;
        a = ea + 1;
        b = eb + 1;
    }
    return 0;
}

static void weekly_fw(struct gs_health *h, const struct gs_framework *fw, char *ok, size_t okcap,
                      struct gs_findings *out)
{
    int drv = h->sys.cuda_driver_version, dmaj = drv / 1000, dmin = (drv % 1000) / 10;
    int fmaj = 0, fmin = 0;
    if (!fw->cuda[0] || sscanf(fw->cuda, "%d.%d", &fmaj, &fmin) < 1 || !drv) {
        size_t l = strlen(ok);
        snprintf(ok + l, okcap - l, "%s%s %s (%s)", l ? "; " : "", fw->name, fw->version,
                 fw->cuda[0] ? "driver CUDA unknown" : "CPU build");
        return;
    }
    const char *need = min_driver(fmaj);
    enum gs_sev sev = GS_SEV_NONE;
    char ev[400];
    if (fmaj > dmaj || (need && h->sys.driver_version[0] && cmp_version(h->sys.driver_version, need) < 0)) {
        sev = GS_SEV_CRITICAL;
        mark_cut(ev, sizeof(ev), snprintf(ev, sizeof(ev), "%s %s (%s) was built for CUDA %s; driver %s supports "
                 "CUDA %d.%d: its CUDA calls fail (cudaErrorInsufficientDriver)", fw->name, fw->version, fw->path,
                 fw->cuda, h->sys.driver_version, dmaj, dmin));
        if (need) {
            size_t l = strlen(ev);
            snprintf(ev + l, sizeof(ev) - l, "; CUDA %d needs driver >= %s", fmaj, need);
        }
    } else if (fmaj == dmaj && fmin > dmin) {
        sev = GS_SEV_WARNING;
        mark_cut(ev, sizeof(ev), snprintf(ev, sizeof(ev), "%s %s (%s) was built for CUDA %s; driver %s supports "
                 "CUDA %d.%d: it runs through minor-version compatibility, but PTX it JIT-compiles and features of "
                 "CUDA %s fail", fw->name, fw->version, fw->path, fw->cuda, h->sys.driver_version, dmaj, dmin,
                 fw->cuda));
    }
    if (sev == GS_SEV_NONE) {
        size_t l = strlen(ok);
        snprintf(ok + l, okcap - l, "%s%s %s (CUDA %s): compatible", l ? "; " : "", fw->name, fw->version, fw->cuda);
        return;
    }
    struct gs_finding *f = hf_new(out, sev, GS_NO_GPU, 0, "weekly.cuda_mismatch", "%s %s needs a newer driver",
                                  fw->name, fw->version);
    f->value = fmaj + fmin / 10.0;
    hf_set(f->evidence, sizeof(f->evidence), "%s", ev);
    hf_set(f->cause, sizeof(f->cause), "the framework's CUDA runtime is newer than the installed driver supports");
    hf_set(f->action, sizeof(f->action), "upgrade the driver (and reboot), or install the framework build for CUDA "
           "%d.%d or older", dmaj, dmin);
}

static void weekly(struct gs_health *h, struct gs_findings *out)
{
    char ok[300] = "";
    for (uint32_t i = 0; i < h->nfw; i++)
        weekly_fw(h, &h->fw[i], ok, sizeof(ok), out);
    int drv = h->sys.cuda_driver_version;
    struct gs_finding *f = hf_new(out, GS_SEV_INFO, GS_NO_GPU, 0, "weekly.summary", "weekly check: driver %s",
                                  h->sys.driver_version[0] ? h->sys.driver_version : "unknown");
    f->value = drv / 1000 + (drv % 1000) / 10 / 10.0;
    hf_set(f->evidence, sizeof(f->evidence), "driver %s supports CUDA %d.%d; %s%s", h->sys.driver_version,
           drv / 1000, (drv % 1000) / 10, h->nfw ? "frameworks: " : "no PyTorch, TensorFlow or CuPy found in ",
           h->nfw ? (ok[0] ? ok : "see the findings above") : h->fw_searched);
    hf_set(f->cause, sizeof(f->cause), "the weekly routine: driver and CUDA versions against the frameworks");
    hf_set(f->action, sizeof(f->action), "keep the driver at or above what the newest framework build needs; "
           "--framework-path DIR adds a site-packages directory");
}

/* ---- monthly -------------------------------------------------------------------------------- */

static const struct gs_trend_gpu *trend_of(const struct gs_health *h, const struct hgpu *g)
{
    for (uint32_t k = 0; h->trend && k < h->trend->ngpus; k++)
        if (!strcmp(h->trend->gpus[k].uuid, g->st.uuid))
            return &h->trend->gpus[k];
    return NULL;
}

static void trend_finding(struct gs_findings *out, int32_t idx, const char *code, const char *title, double v,
                          const char *ev, const char *cause, const char *action)
{
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, 0, code, "GPU %d: %s", idx, title);
    f->value = v;
    hf_set(f->evidence, sizeof(f->evidence), "%s", ev);
    hf_set(f->cause, sizeof(f->cause), "%s", cause);
    hf_set(f->action, sizeof(f->action), "%s", action);
}

/* Slow decay under the same load: SM clock down >= 5 %, power at the same
 * utilization off by >= 10 %, temperature at the same power up >= 10 %
 * (degrees above 25 C per watt) and >= 3 C. Thresholds heuristic. */
/* With a saved baseline as "then", "now" is the window: its samples at >= 80 % utilization. */
static bool window_now(const struct gs_health *h, const struct hgpu *g, struct gs_trend_gpu *t)
{
    double sm = 0, pw = 0, tc = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (x->state != GS_GPU_OK || !gs_fmask_has(x->valid, GS_F_GPU_UTIL) || x->util_pct < 80 ||
            !gs_fmask_has(x->valid, GS_F_CLOCK_SM) || !gs_fmask_has(x->valid, GS_F_POWER) ||
            !gs_fmask_has(x->valid, GS_F_TEMP_GPU))
            continue;
        sm += x->sm_mhz;
        pw += x->power_mw / 1000.0;
        tc += x->temp_c;
        n++;
    }
    if (!n)
        return false;
    t->now_sm_mhz = sm / n, t->now_power_w = pw / n, t->now_temp_c = tc / n;
    t->now_min = n >= 10 ? 10 : n; /* samples of the window stand for its minutes here */
    return true;
}

static void monthly_gpu(const struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    struct gs_trend_gpu tw;
    const struct gs_trend_gpu *t = trend_of(h, g);
    if (t && h->trend->baseline[0]) {
        tw = *t;
        if (!window_now(h, g, &tw))
            return;
        t = &tw;
    }
    int32_t idx = (int32_t)g->st.index;
    char ev[300];
    double days = !h->trend ? 0 : h->trend->baseline[0] ? (double)(h->now_wall_ms - h->trend->then_to_ms) / 86400000.0
                                                        : (double)(h->trend->now_from_ms - h->trend->then_from_ms) / 86400000.0;
    if (!t || t->then_min < 10 || t->now_min < 10)
        return;
    if (t->then_sm_mhz > 0 && t->now_sm_mhz < 0.95 * t->then_sm_mhz) {
        snprintf(ev, sizeof(ev), "SM clock under load %.0f MHz now, %.0f MHz %.0f days before (%.0f%%; %u and %u "
                 "loaded minutes)", t->now_sm_mhz, t->then_sm_mhz, days, 100 * (t->now_sm_mhz / t->then_sm_mhz - 1),
                 t->now_min, t->then_min);
        trend_finding(out, idx, "monthly.clock_decay", "clocks under load lower than before",
                      100 * (1 - t->now_sm_mhz / t->then_sm_mhz), ev,
                      "throttling that crept in (cooling, power delivery) or a lowered clock/power setting",
                      "read the throttle reasons and violation counters under load; clean filters and check fans; "
                      "compare with the sibling GPUs");
    }
    if (t->then_power_w > 0 && fabs(t->now_power_w / t->then_power_w - 1) >= 0.10) {
        snprintf(ev, sizeof(ev), "power under the same load %.0f W now, %.0f W %.0f days before (%+.0f%%)",
                 t->now_power_w, t->then_power_w, days, 100 * (t->now_power_w / t->then_power_w - 1));
        trend_finding(out, idx, "monthly.power_drift", "power at the same utilization changed",
                      100 * (t->now_power_w / t->then_power_w - 1), ev,
                      "higher: leakage from a hotter chip or a changed workload; lower: a power cap or brake",
                      "compare the power limit and throttle reasons with a month ago; check cooling");
    }
    double k_then = t->then_power_w > 0 ? (t->then_temp_c - 25) / t->then_power_w : 0;
    double k_now = t->now_power_w > 0 ? (t->now_temp_c - 25) / t->now_power_w : 0;
    if (k_then > 0 && k_now >= 1.10 * k_then && t->now_temp_c - t->then_temp_c >= 3) {
        snprintf(ev, sizeof(ev), "%.0f C at %.0f W now, %.0f C at %.0f W %.0f days before: %.3f vs %.3f C per W "
                 "above 25 C", t->now_temp_c, t->now_power_w, t->then_temp_c, t->then_power_w, days, k_now, k_then);
        trend_finding(out, idx, "monthly.thermal_decay", "hotter at the same power than before",
                      t->now_temp_c - t->then_temp_c, ev,
                      "cooling degrades: dust in filters or heatsinks, a weakening fan, dried thermal paste, a "
                      "warmer inlet",
                      "clean filters and heatsinks, check the fans and the inlet temperature; plan maintenance");
    }
}

static void monthly(struct gs_health *h, struct gs_findings *out)
{
    char links[300] = "", fans[160] = "";
    size_t ul = 0, uf = 0;
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct hgpu *g = &h->gpus[i];
        const struct gs_sample *l = &g->last;
        if (!g->seen || g->state != GS_GPU_OK)
            continue;
        if (gs_sample_has(l, GS_F_PCIE_GEN) && gs_sample_has(l, GS_F_PCIE_WIDTH) && ul + 40 < sizeof(links))
            ul += (size_t)snprintf(links + ul, sizeof(links) - ul, "%sGPU %u gen%u x%u (max gen%u x%u)", ul ? ", " : "",
                                   g->st.index, l->pcie_gen, l->pcie_width, g->st.pcie_max_gen, g->st.pcie_max_width);
        if (gs_sample_has(l, GS_F_FAN_SPEED) && uf + 24 < sizeof(fans))
            uf += (size_t)snprintf(fans + uf, sizeof(fans) - uf, "%sGPU %u %u%%", uf ? ", " : "", g->st.index,
                                   l->fan_speed_pct[0]);
        monthly_gpu(h, g, out);
    }
    struct gs_finding *f = hf_new(out, GS_SEV_INFO, GS_NO_GPU, 0, "monthly.summary", "monthly check");
    f->value = h->trend ? h->trend->ngpus : 0;
    char trend[240];
    if (h->trend && h->trend->baseline[0])
        snprintf(trend, sizeof(trend), "load behaviour compared with baseline '%.40s' of %.120s (saved %.0f days "
                 "before)", h->trend->baseline, h->trend->path,
                 (double)(h->now_wall_ms - h->trend->then_to_ms) / 86400000.0);
    else if (h->trend)
        snprintf(trend, sizeof(trend), "load behaviour compared with %.150s (%.1f days then and now, %.0f days "
                 "apart, %u GPUs)", h->trend->path,
                 (double)(h->trend->now_to_ms - h->trend->now_from_ms) / 86400000.0,
                 (double)(h->trend->now_from_ms - h->trend->then_from_ms) / 86400000.0, h->trend->ngpus);
    else
        snprintf(trend, sizeof(trend), "load behaviour not compared: no recorder history (gpuscope record) with a "
                 "week a month ago");
    hf_set(f->evidence, sizeof(f->evidence), "PCIe links: %s; fans: %s; %s", ul ? links : "not reported",
           uf ? fans : "none reported", trend);
    hf_set(f->cause, sizeof(f->cause), "the monthly routine: PCIe link state, fan speeds, load behaviour against "
           "history (SM clock under load, power at the same utilization, temperature at the same power)");
    hf_set(f->action, sizeof(f->action), "act on the warnings above; run `gpuscope record` so next month has a "
           "history to compare with");
}

void hc_routines(struct gs_health *h, struct gs_findings *out)
{
    if (!h->have_snap || h->open_failed)
        return;
    if (h->routines & GS_ROUTINE_DAILY)
        daily(h, out);
    if (h->routines & GS_ROUTINE_WEEKLY)
        weekly(h, out);
    if (h->routines & GS_ROUTINE_MONTHLY)
        monthly(h, out);
}
