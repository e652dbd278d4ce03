/* SPDX-License-Identifier: MIT */
/*
 * sim_counters.c - the simulator's health counters: violation (throttle) time
 * integrated from the scenario's clock event reasons (SW power cap, SW and HW
 * thermal, power brake, sync boost, idle) plus the board-limit and reliability
 * shares the scenario gives; NVLink link state and data-link error counters;
 * the fan controller's speed range. docs/SIMULATOR.md.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

/* The clock event reason whose time each counter accumulates (enum gs_viol
 * order); 0: the scenario gives a share of time instead (viol_board_limit,
 * viol_reliability). */
static const unsigned long long sim_viol_bit[8] = {
    0x4 /* SW power cap */, 0x20 /* SW thermal */, 0x10 /* sync boost */, 0, 0x1 /* idle */, 0,
    0x40 /* HW thermal */, 0x80 /* HW power brake */,
};

/* Seconds each reason was active from g->viol_t to c->t, in steps of at most
 * 10 ms (at most 20,000 steps a call: coarser for a first call far into the
 * scenario), so slowdowns much shorter than a sampling interval count. */
static void sim_viol_integrate(struct sim_call *c)
{
    struct nvmlDevice_st *g = c->gpu;
    double t = c->t;
    if (t < g->viol_t) { /* the clock went back: start over */
        g->viol_t = 0;
        memset(g->viol_s, 0, sizeof(g->viol_s));
    }
    double span = t - g->viol_t;
    if (span <= 0)
        return;
    int steps = (int)ceil(span / 0.01);
    if (steps > 20000)
        steps = 20000;
    double dt = span / steps;
    unsigned long long sup = gs_sim_u64(c, GS_SCN_N_THROTTLE_SUPPORTED);
    for (int k = 0; k < steps; k++) {
        c->t = g->viol_t + (k + 0.5) * dt;
        unsigned long long m = gs_sim_throttle(c) & sup;
        for (unsigned i = 0; i < 8; i++) {
            if (sim_viol_bit[i])
                g->viol_s[i] += (m & sim_viol_bit[i]) ? dt : 0;
            else {
                double share = gs_sim_num(c, i == 3 ? GS_SCN_N_VIOL_BOARD_LIMIT : GS_SCN_N_VIOL_RELIABILITY);
                g->viol_s[i] += (share < 0 ? 0 : share > 1 ? 1 : share) * dt;
            }
        }
    }
    c->t = t;
    g->viol_t = t;
}

unsigned long long gs_sim_violation_ns(struct sim_call *c, unsigned i, int *ok)
{
    *ok = i < 8 && !gs_sim_unsupported(c->gpu, GS_SCN_F_VIOLATION) &&
          !(i >= 6 && (gs_sim_unsupported(c->gpu, GS_SCN_F_VIOL_HW) || !gs_sim.fields_r575));
    if (!*ok)
        return 0;
    sim_viol_integrate(c);
    return (unsigned long long)llround(c->gpu->viol_s[i] * 1e9);
}

nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType,
                                          nvmlViolationTime_t *violTime)
{
    SIM_BEGIN_DEV(nvmlDeviceGetViolationStatus, device, GS_SCN_F_VIOLATION);
    if (!violTime || (unsigned)perfPolicyType > NVML_PERF_POLICY_TOTAL_BASE_CLOCKS ||
        (perfPolicyType > NVML_PERF_POLICY_RELIABILITY && perfPolicyType < NVML_PERF_POLICY_TOTAL_APP_CLOCKS))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    int ok = 1;
    unsigned long long ns = 0;
    if (perfPolicyType <= NVML_PERF_POLICY_RELIABILITY) {
        ns = gs_sim_violation_ns(&c, (unsigned)perfPolicyType, &ok);
    } else { /* any limiter: the longest single one is a lower bound we can give exactly */
        for (unsigned i = 0; i < 6; i++) {
            unsigned long long v = gs_sim_violation_ns(&c, i, &ok);
            ns = v > ns ? v : ns;
        }
    }
    violTime->referenceTime = gs_sim_epoch_us(c.t);
    violTime->violationTime = ns;
    return gs_sim_end(&c, ok ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED);
}

/* ---- NVLink ------------------------------------------------------------------------------ */

static nvmlReturn_t sim_nvlink_begin(struct sim_call *c, enum sim_sym sym, nvmlDevice_t device, unsigned link)
{
    nvmlReturn_t r = gs_sim_begin_dev(c, sym, device, GS_SCN_F_NVLINK);
    if (r != NVML_SUCCESS)
        return r;
    unsigned n = gs_sim_u32(c, GS_SCN_N_NVLINKS);
    if (n == 0)
        return gs_sim_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (link >= n || link >= NVML_NVLINK_MAX_LINKS)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
    struct sim_call c;
    nvmlReturn_t r = sim_nvlink_begin(&c, SIM_SYM_nvmlDeviceGetNvLinkState, device, link);
    if (r != NVML_SUCCESS)
        return r;
    if (!isActive)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned long long down = gs_sim_u64(&c, GS_SCN_N_NVLINK_DOWN);
    *isActive = link < 64 && (down >> link) & 1 ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* The scenario gives per-GPU totals; link 0 carries the remainder of an even split. */
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link,
                                             nvmlNvLinkErrorCounter_t counter, unsigned long long *counterValue)
{
    struct sim_call c;
    nvmlReturn_t r = sim_nvlink_begin(&c, SIM_SYM_nvmlDeviceGetNvLinkErrorCounter, device, link);
    if (r != NVML_SUCCESS)
        return r;
    if (!counterValue || (unsigned)counter >= NVML_NVLINK_ERROR_COUNT)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    static const enum gs_scn_num which[NVML_NVLINK_ERROR_COUNT - 1] = {
        GS_SCN_N_NVLINK_REPLAY, GS_SCN_N_NVLINK_RECOVERY, GS_SCN_N_NVLINK_CRC_FLIT, GS_SCN_N_NVLINK_CRC_DATA,
    };
    unsigned n = gs_sim_u32(&c, GS_SCN_N_NVLINKS);
    unsigned long long total = counter == NVML_NVLINK_ERROR_DL_ECC_DATA ? 0 : gs_sim_u64(&c, which[counter]);
    *counterValue = total / n + (link == 0 ? total % n : 0);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- fans ---------------------------------------------------------------------------------- */

nvmlReturn_t nvmlDeviceGetMinMaxFanSpeed(nvmlDevice_t device, unsigned int *minSpeed, unsigned int *maxSpeed)
{
    SIM_BEGIN_DEV(nvmlDeviceGetMinMaxFanSpeed, device, GS_SCN_F_FAN);
    if (!minSpeed || !maxSpeed)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (gs_sim_u32(&c, GS_SCN_N_FANS) == 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    *minSpeed = gs_sim_u32(&c, GS_SCN_N_FAN_MIN);
    *maxSpeed = gs_sim_u32(&c, GS_SCN_N_FAN_MAX);
    return gs_sim_end(&c, NVML_SUCCESS);
}
