/* SPDX-License-Identifier: MIT */
/*
 * verdict.c - the burn's findings, in the doctor's format (struct gs_finding:
 * severity, code, title, evidence in numbers, cause, action), from what each
 * GPU's worker and monitor recorded. Critical findings make a GPU FAIL,
 * warnings WARN; docs/BURN.md lists the rules. Pure logic over the records.
 */
#include "burn/burn_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const wl_names[GS_BW__COUNT] = { "fp32", "fp64", "tensor", "memory" };

const char *gs_burn_wl_name(int wl)
{
    return wl >= 0 && wl < GS_BW__COUNT ? wl_names[wl] : "?";
}

bool gs_burn_wl_is_memory(int wl)
{
    return wl == GS_BW_MEMORY;
}

const char *gs_burn_verdict_word(enum gs_sev worst)
{
    return worst >= GS_SEV_CRITICAL ? "FAIL" : worst == GS_SEV_WARNING ? "WARN" : "PASS";
}

enum gs_sev gs_burn_gpu_worst(const struct gs_findings *f, int gpu_index)
{
    enum gs_sev w = GS_SEV_NONE;
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].gpu == gpu_index && f->v[i].severity > w)
            w = (enum gs_sev)f->v[i].severity;
    return w;
}

static struct gs_finding *add(struct gs_findings *out, enum gs_sev sev, const struct burn_gpu *g, const char *code,
                              double value)
{
    struct gs_finding *f = gs_findings_add(out);
    if (!f)
        return NULL;
    memset(f, 0, sizeof(*f));
    f->severity = (uint8_t)sev;
    f->gpu = g->index;
    f->value = value;
    snprintf(f->code, sizeof(f->code), "%s", code);
    return f;
}

#define SET(field, ...) snprintf(f->field, sizeof(f->field), __VA_ARGS__)

static void v_results(struct gs_findings *out, const struct burn_gpu *g)
{
    char ev[400] = "";
    size_t n = 0;
    uint64_t total = 0;
    bool memory = false, compute = false;
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        const struct burn_wstat *w = &g->w[wl];
        if (!w->mismatches)
            continue;
        total += w->mismatches;
        memory |= gs_burn_wl_is_memory(wl);
        compute |= !gs_burn_wl_is_memory(wl);
        n += (size_t)snprintf(ev + n, n < sizeof(ev) ? sizeof(ev) - n : 0,
                              "%s%s: %llu wrong word%s in %llu iteration%s (first in iteration %llu at %.0f s%s)",
                              n ? "; " : "", wl_names[wl], (unsigned long long)w->mismatches,
                              w->mismatches == 1 ? "" : "s", (unsigned long long)w->iterations,
                              w->iterations == 1 ? "" : "s", (unsigned long long)w->first_bad_iter, w->first_bad_s,
                              w->ref_mismatches ? ", against the CPU reference" : "");
    }
    if (!total)
        return;
    struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "burn.wrong_result", (double)total);
    if (!f)
        return;
    SET(title, "GPU %d computed %llu wrong result%s", g->index, (unsigned long long)total, total == 1 ? "" : "s");
    SET(evidence, "%s", ev);
    SET(cause, "%s", memory && !compute ? "memory cells that do not keep what was written (moving inversions, address "
                                          "in address): a failing memory chip or an unstable memory clock"
                     : "silent data corruption under load: a faulty SM, tensor core or memory, or a clock or "
                       "voltage that is not stable under this load");
    SET(action, "run the burn again (gpuscope burn -i %d); if wrong results come back, take the GPU out of service and "
        "RMA it; look at 'nvidia-smi -q -d ECC,ROW_REMAPPER' and 'sudo dmesg' for Xids meanwhile", g->index);
}

static bool has_xid(const struct burn_mon *m, uint32_t code)
{
    for (uint32_t i = 0; i < m->nxids; i++)
        if (m->xid_code[i] == code)
            return true;
    return false;
}

static void v_cuda(struct gs_findings *out, const struct burn_gpu *g)
{
    if (!g->cuda_error)
        return;
    struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "burn.cuda_error", g->cuda_error);
    if (!f)
        return;
    uint64_t iters = 0;
    for (int wl = 0; wl < GS_BW__COUNT; wl++)
        iters += g->w[wl].iterations;
    SET(title, "GPU %d: CUDA failed during the burn: %s", g->index, g->cuda_errname);
    SET(evidence, "%.40s returned %.60s (%.200s) at %.0f s, after %llu iteration%s", g->cuda_call, g->cuda_errname,
        g->cuda_errtext, g->error_s, (unsigned long long)iters, iters == 1 ? "" : "s");
    if (g->mon.lost || has_xid(&g->mon, 79))
        SET(cause, "the GPU fell off the bus while it ran the burn (see the Xid / lost finding)");
    else if (g->cuda_error == CUDA_ERROR_ECC_UNCORRECTABLE)
        SET(cause, "an uncorrectable ECC error in the GPU's memory ended the work");
    else if (g->cuda_error >= 700 && g->cuda_error < 800)
        SET(cause, "a kernel failed on the GPU (an Xid in the kernel log usually says why): under a verified "
            "workload that points at the hardware, its power delivery or its temperature");
    else
        SET(cause, "the driver refused the work: a driver or configuration problem, or a GPU in a bad state");
    SET(action, "look at 'sudo dmesg' for Xid lines around that time; reset the GPU ('nvidia-smi -r -i %d') or reboot, "
        "then run the burn again; a GPU that fails again needs service", g->index);
}

static void v_progress(struct gs_findings *out, const struct burn_gpu *g, bool interrupted)
{
    if (g->cuda_error || g->ordinal < 0 || interrupted)
        return;
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        const struct burn_wstat *w = &g->w[wl];
        if (!w->selected || !w->supported || w->iterations)
            continue;
        struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "burn.no_progress", 0);
        if (!f)
            return;
        SET(title, "GPU %d finished no %s iteration", g->index, wl_names[wl]);
        SET(evidence, "0 verified %s iterations during the burn", wl_names[wl]);
        SET(cause, "the burn was too short for one iteration, or the GPU is far slower than it should be");
        SET(action, "run a longer burn (--duration 60s or more); if a GPU still completes nothing, compare its clocks "
            "and throttle reasons with its siblings'");
    }
}

static void v_unseen(struct gs_findings *out, const struct burn_gpu *g)
{
    if (g->ordinal >= 0)
        return;
    struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "burn.not_tested", 0);
    if (!f)
        return;
    SET(title, "GPU %d was not burned: CUDA does not see it", g->index);
    SET(evidence, "NVML lists GPU %d (%s, %s) but no CUDA device has its PCI bus id or UUID", g->index, g->pci, g->uuid);
    SET(cause, "CUDA_VISIBLE_DEVICES hides it, the GPU is in a MIG mode or state CUDA cannot open, or CUDA failed to "
        "initialise it");
    SET(action, "unset CUDA_VISIBLE_DEVICES (burn chooses GPUs with -i), check 'nvidia-smi -q -i %d' and 'dmesg'",
        g->index);
}

static void v_skipped(struct gs_findings *out, const struct burn_gpu *g)
{
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        const struct burn_wstat *w = &g->w[wl];
        if (!w->selected || w->supported)
            continue;
        struct gs_finding *f = add(out, GS_SEV_INFO, g, "burn.workload_skipped", 0);
        if (!f)
            return;
        SET(title, "GPU %d: the %s workload was not run", g->index, wl_names[wl]);
        SET(evidence, "%s", w->skip_why);
        SET(cause, "a feature this GPU or driver lacks");
        SET(action, "nothing to do for this GPU; the other workloads were verified");
    }
}

static void v_lost_xids(struct gs_findings *out, const struct burn_gpu *g)
{
    const struct burn_mon *m = &g->mon;
    if (m->lost) {
        struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "gpu.lost", 79);
        if (f) {
            SET(title, "GPU %d fell off the bus during the burn", g->index);
            SET(evidence, "NVML answers GPU_IS_LOST from %.0f s on%s", m->lost_s,
                has_xid(m, 79) ? "; Xid 79 reported" : "");
            SET(cause, "the GPU stopped answering on PCIe: power delivery, overheating, a bad riser or slot, or a "
                "hardware fault, often under exactly this kind of load");
            SET(action, "drain the node; reset the GPU or reboot (a cold power cycle if needed), reseat it and check "
                "its power cables; if it happens again the GPU or board needs service");
        }
    }
    for (uint32_t i = 0; i < m->nxids; i++) {
        if (m->xid_code[i] == 79 && m->lost)
            continue; /* folded into gpu.lost */
        const struct gs_xid_info *x = gs_xid_lookup(m->xid_code[i]);
        char code[32];
        snprintf(code, sizeof(code), "xid.%u", m->xid_code[i]);
        struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, code, m->xid_code[i]);
        if (!f)
            continue;
        SET(title, "GPU %d reported Xid %u%s%s%s during the burn", g->index, m->xid_code[i], x ? " (" : "",
            x ? x->words : "", x ? ")" : "");
        SET(evidence, "Xid %u %u time%s, first at %.0f s", m->xid_code[i], m->xid_count[i],
            m->xid_count[i] == 1 ? "" : "s", m->xid_first_s[i]);
        SET(cause, "%s", x ? x->meaning : "an Xid the catalog does not know");
        SET(action, "%s", x ? x->action : "look up the Xid in NVIDIA's Xid catalog and the kernel log ('sudo dmesg')");
    }
}

static void v_ecc(struct gs_findings *out, const struct burn_gpu *g)
{
    const struct burn_mon *m = &g->mon;
    uint64_t ecc = m->ecc_unc > m->ecc_unc_base ? m->ecc_unc - m->ecc_unc_base : 0;
    uint32_t rows = m->remap_unc > m->remap_unc_base ? m->remap_unc - m->remap_unc_base : 0;
    if (ecc || rows) {
        struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "ecc.uncorrectable", (double)(ecc + rows));
        if (f) {
            SET(title, "GPU %d had new uncorrectable memory errors during the burn", g->index);
            SET(evidence, "volatile uncorrectable ECC errors %llu -> %llu; rows remapped for uncorrectable errors %u -> %u",
                (unsigned long long)m->ecc_unc_base, (unsigned long long)m->ecc_unc, m->remap_unc_base, m->remap_unc);
            SET(cause, "the GPU's memory failed under load (an uncorrectable error is a lost value)");
            SET(action, "drain the GPU; reset it so pending row remaps take effect, run the burn again, and RMA it "
                "if errors return or the remap failed");
        }
    }
    if (m->remap_failed && !m->remap_failed_base) {
        struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, "ecc.remap_failed", 1);
        if (f) {
            SET(title, "GPU %d: a row remap failed during the burn", g->index);
            SET(evidence, "the row-remapping failure flag went from 0 to 1");
            SET(cause, "no spare row was left for a failing memory row");
            SET(action, "take the GPU out of service and RMA it (NVIDIA's memory-error RMA policy)");
        }
    }
}

static void v_hw_reason(struct gs_findings *out, const struct burn_gpu *g, int bit, const char *code, const char *what,
                        const char *cause, const char *action)
{
    const struct burn_mon *m = &g->mon;
    if (m->throttle_s[bit] <= 0)
        return;
    struct gs_finding *f = add(out, GS_SEV_CRITICAL, g, code, m->throttle_s[bit]);
    if (!f)
        return;
    SET(title, "GPU %d: %s during the burn", g->index, what);
    SET(evidence, "active %.0f s of the burn, first at %.0f s; peak temperature %d C (slowdown %d C), peak power %.0f W "
        "(limit %.0f W)", m->throttle_s[bit], m->hw_first_s[bit], m->temp_ok ? m->temp_max_c : 0,
        g->st.temp_slowdown_c, m->power_max_mw / 1000.0, m->power_limit_mw / 1000.0);
    SET(cause, "%s", cause);
    SET(action, "%s", action);
}

static void v_hw(struct gs_findings *out, const struct burn_gpu *g)
{
    v_hw_reason(out, g, 6, "thermal.hw_thermal", "HW thermal slowdown",
                "the GPU crossed its hardware thermal limit: cooling cannot carry the load",
                "check fans, airflow, inlet temperature and blanking panels; compare with identical GPUs in the chassis");
    v_hw_reason(out, g, 3, "thermal.hw_slowdown", "HW slowdown",
                "the hardware halved the clocks: an over-temperature or power-supply (external) slowdown signal",
                "check cooling and the power supplies and their cables; look at 'nvidia-smi -q -d PERFORMANCE'");
    v_hw_reason(out, g, 7, "power.hw_power_brake", "HW power brake",
                "an external power brake signal: the system's power supply or its management (BMC) asked the GPU to "
                "slow down",
                "check the power supplies, their redundancy and the BMC's power capping; this is not the GPU's own "
                "limit");
}

static void v_thermal(const struct gs_burn_opts *o, struct gs_findings *out, const struct burn_gpu *g)
{
    const struct burn_mon *m = &g->mon;
    if (!m->temp_ok || !gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) ||
        m->temp_max_c < g->st.temp_slowdown_c - o->th.slowdown_margin_c)
        return;
    struct gs_finding *f = add(out, GS_SEV_WARNING, g, "thermal.at_slowdown", m->temp_max_c);
    if (!f)
        return;
    SET(title, "GPU %d reached its slowdown temperature under load", g->index);
    SET(evidence, "peak %d C, slowdown threshold %d C (warn from %d C); %.0f s at or above it", m->temp_max_c,
        g->st.temp_slowdown_c, g->st.temp_slowdown_c - o->th.slowdown_margin_c, m->temp_at_slowdown_s);
    SET(cause, "cooling is barely enough for a full load: airflow, fans, inlet temperature, or thermal paste");
    SET(action, "check fans, airflow and inlet temperature; compare with identical GPUs in the chassis; a GPU that runs "
        "this hot throttles in production");
}

static void v_clocks(const struct gs_burn_opts *o, struct gs_findings *out, const struct burn_gpu *g)
{
    const struct burn_mon *m = &g->mon;
    if (o->th.clock_low_ratio <= 0 || m->clock_judged < 3 ||
        (double)m->clock_low < o->th.clock_low_share * m->clock_judged)
        return;
    struct gs_finding *f = add(out, GS_SEV_WARNING, g, "clocks.low", m->clk_min_mhz);
    if (!f)
        return;
    SET(title, "GPU %d ran far below its maximum SM clock without a power cap", g->index);
    SET(evidence, "SM clock %u-%u MHz under load, maximum %u MHz; below %.0f %% of it in %u of %u loaded samples that "
        "were not power-capped%s", m->clk_min_mhz == UINT32_MAX ? 0 : m->clk_min_mhz, m->clk_max_mhz,
        g->st.clock_max_sm_mhz, o->th.clock_low_ratio * 100, m->clock_low, m->clock_judged,
        m->sw_thermal_in_low ? " (SW thermal slowdown in some)" : "");
    SET(cause, "%s", m->sw_thermal_in_low ? "the driver slowed the GPU for temperature: cooling"
                                          : "application clocks or a clock lock set low, or a slowdown reason NVML does "
                                            "not report");
    SET(action, "check 'nvidia-smi -q -d CLOCK,PERFORMANCE' (application clocks, locked clocks) and cooling; "
        "'nvidia-smi -rac' / '-rgc' reset clock settings");
}

static void v_pcie(const struct gs_burn_opts *o, struct gs_findings *out, const struct burn_gpu *g)
{
    const struct burn_mon *m = &g->mon;
    if (o->th.pcie_low_share <= 0 || m->pcie_judged < 3 || (double)m->pcie_low < o->th.pcie_low_share * m->pcie_judged)
        return;
    struct gs_finding *f = add(out, GS_SEV_WARNING, g, "pcie.below_max", m->pcie_gen_seen);
    if (!f)
        return;
    SET(title, "GPU %d's PCIe link ran below its maximum under load", g->index);
    SET(evidence, "gen %u x%u seen while the GPU and slot support gen %u x%u (below it in %u of %u loaded samples)",
        m->pcie_gen_seen, m->pcie_width_seen, g->st.pcie_max_gen, g->st.pcie_max_width, m->pcie_low, m->pcie_judged);
    SET(cause, "a link that trained down: seating, a riser or cable, the slot, or a BIOS link-speed setting");
    SET(action, "reseat the GPU (and riser), check the slot's link-speed setting in the BIOS, and compare 'lspci -vv' "
        "LnkCap with LnkSta");
}

/* DCGM's expected PCIe replays per lane per minute (a 1e-12 bit error rate at the
 * generation's line rate), as doctor's pcie.replay_rate uses them. */
static double replays_per_lane_min(uint32_t gen)
{
    static const double r[] = { 0.15, 0.15, 0.3, 0.48, 0.96, 1.92, 3.84 };
    return r[gen < 7 ? gen : 6];
}

static void v_replay(const struct gs_burn_opts *o, struct gs_findings *out, const struct burn_gpu *g)
{
    const struct burn_mon *m = &g->mon;
    double span_s = m->replay_last_s - m->replay_first_s;
    if (o->th.pcie_replay_factor <= 0 || !m->replay_ok || span_s < 30 || m->replay_last <= m->replay_first)
        return;
    uint32_t gen = m->replay_gen ? m->replay_gen : g->st.pcie_max_gen;
    uint32_t width = m->replay_width ? m->replay_width : g->st.pcie_max_width ? g->st.pcie_max_width : 16;
    double limit = o->th.pcie_replay_factor * ceil(width * replays_per_lane_min(gen));
    double per_min = (double)(m->replay_last - m->replay_first) / (span_s / 60.0);
    if (per_min <= limit)
        return;
    struct gs_finding *f = add(out, GS_SEV_WARNING, g, "pcie.replay_rate", per_min);
    if (!f)
        return;
    SET(title, "GPU %d's PCIe link retransmitted %.0f times a minute during the burn", g->index, per_min);
    SET(evidence, "replay counter %u -> %u over %.0f s; expected at most %.0f a minute for gen %u x%u",
        m->replay_first, m->replay_last, span_s, limit, gen, width);
    SET(cause, "link-layer retransmissions after CRC errors: a marginal link (seating, riser or cable, the slot)");
    SET(action, "reseat the GPU (and riser), check 'lspci -vv' and the AER counters; watch for Xid 79/32/119 on "
        "this GPU");
}

static double gpu_rate(const struct burn_gpu *g, int wl)
{
    return g->w[wl].gpu_s > 0 ? g->w[wl].work / g->w[wl].gpu_s : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Each workload's rate against the median of the other GPUs of the same name;
 * one finding per GPU naming every workload that is slow. */
static double sibling_median(const struct burn_gpu *gpus, int n, int i, int wl, int *k)
{
    double others[64];
    *k = 0;
    for (int j = 0; j < n && *k < 64; j++)
        if (j != i && !strcmp(gpus[j].name, gpus[i].name) && gpu_rate(&gpus[j], wl) > 0)
            others[(*k)++] = gpu_rate(&gpus[j], wl);
    if (*k == 0)
        return 0;
    qsort(others, (size_t)*k, sizeof(others[0]), cmp_double);
    return *k % 2 ? others[*k / 2] : (others[*k / 2 - 1] + others[*k / 2]) / 2;
}

static void v_siblings(const struct gs_burn_opts *o, struct gs_findings *out, const struct burn_gpu *gpus, int n,
                       int i)
{
    const struct burn_gpu *g = &gpus[i];
    char ev[400] = "", a[32], b[32];
    size_t len = 0;
    double worst = 1;
    int slow = 0, peers = 0;
    if (o->th.sibling_ratio <= 0)
        return;
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        int k;
        double mine = gpu_rate(g, wl), med = mine > 0 ? sibling_median(gpus, n, i, wl, &k) : 0;
        if (med <= 0 || mine >= o->th.sibling_ratio * med)
            continue;
        bool bytes = gs_burn_wl_is_memory(wl);
        len += (size_t)snprintf(ev + len, len < sizeof(ev) ? sizeof(ev) - len : 0, "%s%s %s against a median %s",
                                slow ? "; " : "", wl_names[wl], gs_burn_rate_str(mine, bytes, a, sizeof(a)),
                                gs_burn_rate_str(med, bytes, b, sizeof(b)));
        worst = mine / med < worst ? mine / med : worst;
        peers = k;
        slow++;
    }
    if (!slow)
        return;
    struct gs_finding *f = add(out, GS_SEV_WARNING, g, "burn.slow_sibling", worst);
    if (!f)
        return;
    SET(title, "GPU %d is up to %.0f %% slower than identical GPUs", g->index, 100 * (1 - worst));
    SET(evidence, "%.300s (the median of %d other %.60s)", ev, peers, g->name);
    SET(cause, "lower clocks (temperature, power limit, clock settings), a degraded link or memory, or a weaker part: "
        "identical GPUs should be within a few percent");
    SET(action, "compare its clocks, power limit and temperature with its siblings' ('nvidia-smi -q -d "
        "CLOCK,POWER,TEMPERATURE'); swap it into another slot to tell the GPU from the slot");
}

static int finding_cmp(const void *a, const void *b)
{
    const struct gs_finding *x = a, *y = b;
    if (x->severity != y->severity)
        return y->severity - x->severity;
    if (x->gpu != y->gpu)
        return x->gpu - y->gpu;
    return strcmp(x->code, y->code);
}

void gs_burn_verdict(const struct gs_burn_opts *o, struct burn_gpu *gpus, int n, bool interrupted,
                     struct gs_findings *out)
{
    for (int i = 0; i < n; i++) {
        const struct burn_gpu *g = &gpus[i];
        v_unseen(out, g);
        v_lost_xids(out, g);
        v_results(out, g);
        v_cuda(out, g);
        v_progress(out, g, interrupted);
        v_ecc(out, g);
        v_hw(out, g);
        v_thermal(o, out, g);
        v_clocks(o, out, g);
        v_pcie(o, out, g);
        v_replay(o, out, g);
        v_siblings(o, out, gpus, n, i);
        v_skipped(out, g);
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(out->v[0]), finding_cmp);
}
