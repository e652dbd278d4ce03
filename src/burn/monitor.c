/* SPDX-License-Identifier: MIT */
/*
 * monitor.c - what one snapshot adds to a GPU's record of the burn (struct
 * burn_mon): peaks of temperature and power, the SM clock and PCIe link while
 * loaded, seconds under each clock-event reason, Xids from NVML's events, ECC,
 * row-remap and PCIe replay counters against their values at the start, and whether the
 * GPU fell off the bus. Main thread only; the verdict reads it at the end.
 */
#include "burn/burn_priv.h"

#include <string.h>

static void mon_base(struct burn_mon *m, const struct gs_sample *s)
{
    m->have_base = true;
    m->ecc_ok = gs_sample_has(s, GS_F_ECC_VOL_UNCORR);
    m->ecc_unc_base = m->ecc_unc = m->ecc_ok ? s->ecc_vol_uncorrected : 0;
    m->remap_ok = gs_sample_has(s, GS_F_REMAP_UNCORR) && gs_sample_has(s, GS_F_REMAP_FAILED);
    m->remap_unc_base = m->remap_unc = m->remap_ok ? s->remap_uncorr_rows : 0;
    m->remap_failed_base = m->remap_failed = m->remap_ok && s->remap_failed;
    for (int b = 0; b < 16; b++)
        m->hw_first_s[b] = -1;
    m->clk_min_mhz = UINT32_MAX;
    m->pcie_gen_seen = m->pcie_width_seen = UINT32_MAX;
}

static void mon_counters(struct burn_mon *m, const struct gs_sample *s)
{
    if (m->ecc_ok && gs_sample_has(s, GS_F_ECC_VOL_UNCORR))
        m->ecc_unc = s->ecc_vol_uncorrected;
    if (m->remap_ok && gs_sample_has(s, GS_F_REMAP_UNCORR))
        m->remap_unc = s->remap_uncorr_rows;
    if (m->remap_ok && gs_sample_has(s, GS_F_REMAP_FAILED) && s->remap_failed)
        m->remap_failed = true;
}

/* The PCIe replay counter (cumulative since boot): its first and latest reading. */
static void mon_replay(struct burn_mon *m, const struct gs_sample *s, double t_s)
{
    if (!gs_sample_has(s, GS_F_PCIE_REPLAY))
        return;
    if (!m->replay_ok) {
        m->replay_ok = true;
        m->replay_first = s->pcie_replay_count;
        m->replay_first_s = t_s;
    }
    m->replay_last = s->pcie_replay_count;
    m->replay_last_s = t_s;
    m->replay_gen = gs_sample_has(s, GS_F_PCIE_GEN) ? s->pcie_gen : 0;
    m->replay_width = gs_sample_has(s, GS_F_PCIE_WIDTH) ? s->pcie_width : 0;
}

static void mon_thermal(const struct gs_burn_opts *o, struct burn_mon *m, const struct gs_static *st,
                        const struct gs_sample *s, double dt_s)
{
    if (gs_sample_has(s, GS_F_TEMP_GPU)) {
        if (!m->temp_ok || s->temp_gpu_c > m->temp_max_c)
            m->temp_max_c = s->temp_gpu_c;
        m->temp_ok = true;
        if (gs_static_has(st, GS_S_TEMP_SLOWDOWN) && s->temp_gpu_c >= st->temp_slowdown_c - o->th.slowdown_margin_c)
            m->temp_at_slowdown_s += dt_s;
    }
    if (gs_sample_has(s, GS_F_POWER)) {
        m->power_ok = true;
        if (s->power_mw > m->power_max_mw)
            m->power_max_mw = s->power_mw;
    }
    if (gs_sample_has(s, GS_F_POWER_ENFORCED))
        m->power_limit_mw = s->power_enforced_limit_mw;
    else if (gs_sample_has(s, GS_F_POWER_LIMIT))
        m->power_limit_mw = s->power_limit_mw;
}

static void mon_throttle(struct burn_mon *m, const struct gs_sample *s, double t_s, double dt_s)
{
    if (!gs_sample_has(s, GS_F_THROTTLE))
        return;
    for (int b = 0; b < 16; b++)
        if (s->throttle_reasons & (1ull << b)) {
            m->throttle_s[b] += dt_s;
            if (m->hw_first_s[b] < 0)
                m->hw_first_s[b] = t_s;
        }
}

/* Clocks and the PCIe link are judged only while loaded and past the warm-up. */
static void mon_loaded(const struct gs_burn_opts *o, struct burn_mon *m, const struct gs_static *st,
                       const struct gs_sample *s, double t_s)
{
    if (!gs_sample_has(s, GS_F_GPU_UTIL) || s->gpu_util_pct < o->th.load_util_pct)
        return;
    m->loaded++;
    if (gs_sample_has(s, GS_F_CLOCK_SM)) {
        if (s->clock_sm_mhz < m->clk_min_mhz)
            m->clk_min_mhz = s->clock_sm_mhz;
        if (s->clock_sm_mhz > m->clk_max_mhz)
            m->clk_max_mhz = s->clock_sm_mhz;
    }
    if (t_s < o->th.warmup_s)
        return;
    bool capped = gs_sample_has(s, GS_F_THROTTLE) &&
                  (s->throttle_reasons & (GS_THROTTLE_SW_POWER_CAP | GS_THROTTLE_HW_POWER_BRAKE));
    if (gs_sample_has(s, GS_F_CLOCK_SM) && gs_static_has(st, GS_S_CLOCK_MAX_SM) && !capped) {
        m->clock_judged++;
        if (s->clock_sm_mhz < o->th.clock_low_ratio * st->clock_max_sm_mhz) {
            m->clock_low++;
            if (gs_sample_has(s, GS_F_THROTTLE) && (s->throttle_reasons & GS_THROTTLE_SW_THERMAL))
                m->sw_thermal_in_low++;
        }
    }
    if (gs_sample_has(s, GS_F_PCIE_GEN) && gs_sample_has(s, GS_F_PCIE_WIDTH) && gs_static_has(st, GS_S_PCIE_MAX_GEN) &&
        gs_static_has(st, GS_S_PCIE_MAX_WIDTH)) {
        m->pcie_judged++;
        if (s->pcie_gen < st->pcie_max_gen || s->pcie_width < st->pcie_max_width)
            m->pcie_low++;
        if (s->pcie_gen < m->pcie_gen_seen)
            m->pcie_gen_seen = s->pcie_gen;
        if (s->pcie_width < m->pcie_width_seen)
            m->pcie_width_seen = s->pcie_width;
    }
}

static void mon_xids(struct burn_mon *m, const struct gs_snapshot *snap, uint32_t index, double t_s)
{
    for (uint32_t i = 0; i < snap->nevents; i++) {
        const struct gs_event *e = &snap->events[i];
        if (e->gpu != index || e->kind != GS_EV_XID)
            continue;
        uint32_t k;
        for (k = 0; k < m->nxids && m->xid_code[k] != (uint32_t)e->data; k++)
            ;
        if (k == m->nxids) {
            if (m->nxids == BURN_MAX_XIDS)
                continue;
            m->nxids++;
            m->xid_code[k] = (uint32_t)e->data;
            m->xid_first_s[k] = t_s;
        }
        m->xid_count[k]++;
    }
}

void gs_burn_monitor_tick(const struct gs_burn_opts *o, struct burn_gpu *g, const struct gs_gpu *sg,
                          const struct gs_snapshot *snap, double t_s, double dt_s)
{
    struct burn_mon *m = &g->mon;
    if (!m->have_base)
        mon_base(m, &sg->s);
    mon_xids(m, snap, sg->st.index, t_s);
    if (sg->state == GS_GPU_LOST) {
        if (!m->lost)
            m->lost_s = t_s;
        m->lost = true;
        return;
    }
    if (sg->state != GS_GPU_OK)
        return;
    m->samples++;
    mon_counters(m, &sg->s);
    mon_replay(m, &sg->s, t_s);
    mon_thermal(o, m, &sg->st, &sg->s, dt_s);
    mon_throttle(m, &sg->s, t_s, dt_s);
    mon_loaded(o, m, &sg->st, &sg->s, t_s);
}
