/* SPDX-License-Identifier: MIT */
/*
 * sim_clocks.c - clocks, P-state, clock event (throttle) reasons and PCIe link
 * readings of the simulator, including the events that switch throttle reasons
 * on and off and drop the PCIe link by a generation.
 */
#include "sim.h"

static const enum gs_scn_num sim_cur_clk[NVML_CLOCK_COUNT] = {GS_SCN_N_CLK_GR, GS_SCN_N_CLK_SM, GS_SCN_N_CLK_MEM,
                                                              GS_SCN_N_CLK_VIDEO};
static const enum gs_scn_num sim_max_clk[NVML_CLOCK_COUNT] = {GS_SCN_N_CLK_MAX_GR, GS_SCN_N_CLK_MAX_SM,
                                                              GS_SCN_N_CLK_MAX_MEM, GS_SCN_N_CLK_MAX_VIDEO};
static const enum gs_scn_num sim_app_clk[NVML_CLOCK_COUNT] = {GS_SCN_N_CLK_APP_GR, GS_SCN_N_CLK_APP_GR,
                                                              GS_SCN_N_CLK_APP_MEM, GS_SCN_N_CLK_MAX_VIDEO};

/* A clock of one kind (current, max, app) with the type validated. */
static nvmlReturn_t sim_clock(enum sim_sym sym, nvmlDevice_t dev, int feature, const enum gs_scn_num *table,
                              nvmlClockType_t type, unsigned *mhz)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, dev, feature);
    if (r != NVML_SUCCESS)
        return r;
    if (!mhz || (unsigned)type >= NVML_CLOCK_COUNT)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned v = gs_sim_u32(&c, table[type]);
    if (table == sim_cur_clk) { /* never above the max clock */
        unsigned max = gs_sim_u32(&c, sim_max_clk[type]);
        v = max && v > max ? max : v;
    }
    *mhz = v;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return sim_clock(SIM_SYM_nvmlDeviceGetClockInfo, device, GS_SCN_F_CLOCKS, sim_cur_clk, type, clock);
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return sim_clock(SIM_SYM_nvmlDeviceGetMaxClockInfo, device, GS_SCN_F_MAX_CLOCKS, sim_max_clk, type, clock);
}

nvmlReturn_t nvmlDeviceGetMaxCustomerBoostClock(nvmlDevice_t device, nvmlClockType_t type,
                                                unsigned int *clock)
{
    return sim_clock(SIM_SYM_nvmlDeviceGetMaxCustomerBoostClock, device, GS_SCN_F_MAX_CLOCKS, sim_max_clk,
                     type, clock);
}

nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return sim_clock(SIM_SYM_nvmlDeviceGetApplicationsClock, device, GS_SCN_F_APP_CLOCKS, sim_app_clk, type,
                     clock);
}

nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t type,
                                                   unsigned int *clock)
{
    return sim_clock(SIM_SYM_nvmlDeviceGetDefaultApplicationsClock, device, GS_SCN_F_APP_CLOCKS, sim_app_clk,
                     type, clock);
}

nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t type, nvmlClockId_t id,
                                unsigned int *clock)
{
    const enum gs_scn_num *table = id == NVML_CLOCK_ID_CURRENT            ? sim_cur_clk
                                   : id == NVML_CLOCK_ID_CUSTOMER_BOOST_MAX ? sim_max_clk
                                                                            : sim_app_clk;
    if ((unsigned)id >= NVML_CLOCK_ID_COUNT) {
        struct sim_call c;
        nvmlReturn_t r = gs_sim_begin_dev(&c, SIM_SYM_nvmlDeviceGetClock, device, GS_SCN_F_CLOCKS);
        return r != NVML_SUCCESS ? r : gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    }
    return sim_clock(SIM_SYM_nvmlDeviceGetClock, device, GS_SCN_F_CLOCKS, table, type, clock);
}

/* ---- P-state and reasons ---------------------------------------------------------- */

static nvmlReturn_t sim_pstate(enum sim_sym sym, nvmlDevice_t device, nvmlPstates_t *pstate)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, GS_SCN_F_PSTATE);
    if (r != NVML_SUCCESS)
        return r;
    if (!pstate)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned p = gs_sim_u32(&c, GS_SCN_N_PSTATE);
    *pstate = (nvmlPstates_t)(p > 15 ? NVML_PSTATE_UNKNOWN : p);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pstate)
{
    return sim_pstate(SIM_SYM_nvmlDeviceGetPerformanceState, device, pstate);
}

nvmlReturn_t nvmlDeviceGetPowerState(nvmlDevice_t device, nvmlPstates_t *pstate)
{
    return sim_pstate(SIM_SYM_nvmlDeviceGetPowerState, device, pstate);
}

static nvmlReturn_t sim_reasons(enum sim_sym sym, nvmlDevice_t device, int supported,
                                unsigned long long *reasons)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, GS_SCN_F_THROTTLE);
    if (r != NVML_SUCCESS)
        return r;
    if (!reasons)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned long long sup = gs_sim_u64(&c, GS_SCN_N_THROTTLE_SUPPORTED) & NVML_CLOCKS_EVENT_REASON_ALL;
    *reasons = supported ? sup : gs_sim_throttle(&c) & sup;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return sim_reasons(SIM_SYM_nvmlDeviceGetCurrentClocksThrottleReasons, device, 0, reasons);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return sim_reasons(SIM_SYM_nvmlDeviceGetSupportedClocksThrottleReasons, device, 1, reasons);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return sim_reasons(SIM_SYM_nvmlDeviceGetCurrentClocksEventReasons, device, 0, reasons);
}

nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
    return sim_reasons(SIM_SYM_nvmlDeviceGetSupportedClocksEventReasons, device, 1, reasons);
}

/* ---- PCIe ------------------------------------------------------------------------------ */

enum sim_pcie_what { SIM_PCIE_GEN, SIM_PCIE_MAX_GEN, SIM_PCIE_GPU_MAX_GEN, SIM_PCIE_WIDTH,
                     SIM_PCIE_MAX_WIDTH, SIM_PCIE_REPLAY, SIM_PCIE_SPEED };

static unsigned sim_pcie_value(const struct sim_call *c, enum sim_pcie_what what)
{
    static const unsigned mbps_per_lane[] = {0, 2500, 5000, 8000, 16000, 32000, 64000};
    unsigned gen;
    switch (what) {
    case SIM_PCIE_GEN:
        return gs_sim_pcie_gen(c);
    case SIM_PCIE_MAX_GEN:
        return gs_sim_u32(c, GS_SCN_N_PCIE_MAX_GEN);
    case SIM_PCIE_GPU_MAX_GEN:
        return gs_sim_u32(c, GS_SCN_N_PCIE_GPU_MAX_GEN);
    case SIM_PCIE_WIDTH:
        return gs_sim_u32(c, GS_SCN_N_PCIE_WIDTH);
    case SIM_PCIE_MAX_WIDTH:
        return gs_sim_u32(c, GS_SCN_N_PCIE_MAX_WIDTH);
    case SIM_PCIE_REPLAY:
        return gs_sim_u32(c, GS_SCN_N_PCIE_REPLAY);
    default:
        gen = gs_sim_pcie_gen(c);
        return mbps_per_lane[gen < 7 ? gen : 6];
    }
}

static unsigned sim_pcie_at(const struct sim_call *c, int what)
{
    return sim_pcie_value(c, (enum sim_pcie_what)what);
}

static nvmlReturn_t sim_pcie(enum sim_sym sym, nvmlDevice_t device, int feature, enum sim_pcie_what what,
                             unsigned *out)
{
    return gs_sim_get_value(sym, device, feature, sim_pcie_at, (int)what, out);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *gen)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetCurrPcieLinkGeneration, device, GS_SCN_F_PCIE, SIM_PCIE_GEN, gen);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *gen)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetMaxPcieLinkGeneration, device, GS_SCN_F_PCIE, SIM_PCIE_MAX_GEN, gen);
}

nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *gen)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetGpuMaxPcieLinkGeneration, device, GS_SCN_F_PCIE,
                    SIM_PCIE_GPU_MAX_GEN, gen);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *width)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetCurrPcieLinkWidth, device, GS_SCN_F_PCIE, SIM_PCIE_WIDTH, width);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *width)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetMaxPcieLinkWidth, device, GS_SCN_F_PCIE, SIM_PCIE_MAX_WIDTH, width);
}

nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetPcieReplayCounter, device, GS_SCN_F_REPLAY, SIM_PCIE_REPLAY, value);
}

nvmlReturn_t nvmlDeviceGetPcieSpeed(nvmlDevice_t device, unsigned int *speed)
{
    return sim_pcie(SIM_SYM_nvmlDeviceGetPcieSpeed, device, GS_SCN_F_PCIE, SIM_PCIE_SPEED, speed);
}

/* KB/s over the last 20 ms window. (Real drivers block ~20 ms here; inject
 * `delay=20` faults to imitate that.) */
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter,
                                         unsigned int *value)
{
    SIM_BEGIN_DEV(nvmlDeviceGetPcieThroughput, device, GS_SCN_F_PCIE_THROUGHPUT);
    if (!value || (counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *value = gs_sim_u32(&c, counter == NVML_PCIE_UTIL_TX_BYTES ? GS_SCN_N_PCIE_TX : GS_SCN_N_PCIE_RX);
    return gs_sim_end(&c, NVML_SUCCESS);
}
