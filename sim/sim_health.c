/* SPDX-License-Identifier: MIT */
/*
 * sim_health.c - ECC counters, retired pages, remapped rows, modes
 * (persistence, compute, display, MIG, virtualization, driver model) and field
 * values. MIG instances and their handles are in sim_mig.c.
 */
#include "sim.h"

#include <string.h>

/* Field ids served here (shared/reference/nvml.md 3.14). */
enum {
    SIM_FI_ECC_CURRENT = 1, SIM_FI_ECC_PENDING = 2, SIM_FI_ECC_SBE_VOL = 3, SIM_FI_ECC_DBE_VOL = 4,
    SIM_FI_ECC_SBE_AGG = 5, SIM_FI_ECC_DBE_AGG = 6, SIM_FI_RETIRED_SBE = 29, SIM_FI_RETIRED_DBE = 30,
    SIM_FI_RETIRED_PENDING = 31, SIM_FI_MEMORY_TEMP = 82, SIM_FI_ENERGY = 83, SIM_FI_NVLINK_COUNT = 91,
    SIM_FI_REPLAY = 94, SIM_FI_REMAP_COR = 142, SIM_FI_REMAP_UNC = 143, SIM_FI_REMAP_PENDING = 144,
    SIM_FI_REMAP_FAILURE = 145, SIM_FI_POWER_AVG = 185, SIM_FI_POWER_INSTANT = 186,
    SIM_FI_POWER_MIN = 187, SIM_FI_POWER_MAX = 188, SIM_FI_POWER_DEFAULT = 189, SIM_FI_POWER_CURRENT = 190,
    SIM_FI_ENERGY2 = 191, SIM_FI_POWER_REQUESTED = 192, SIM_FI_T_SHUTDOWN = 193, SIM_FI_T_SLOWDOWN = 194,
    SIM_FI_T_MEM_MAX = 195, SIM_FI_T_GPU_MAX = 196, SIM_FI_PCIE_TX_BYTES = 197, SIM_FI_PCIE_RX_BYTES = 198,
    SIM_FI_RESET_STATUS = 226, SIM_FI_DRAIN_RESET = 227, SIM_FI_RECOVERY = 230, SIM_FI_EDPP = 274,
    SIM_FI_REPLAY_ROLLOVER = 95, SIM_FI_ATOMICS_OUT = 228, SIM_FI_ATOMICS_IN = 229, SIM_FI_NVLINK_STATE = 165
};

/* ---- ECC ---------------------------------------------------------------------------- */

static unsigned long long sim_ecc_count(const struct sim_call *c, int uncorrected, int aggregate)
{
    enum gs_scn_num n = uncorrected ? (aggregate ? GS_SCN_N_ECC_DBE_AGG : GS_SCN_N_ECC_DBE_VOL)
                                    : (aggregate ? GS_SCN_N_ECC_SBE_AGG : GS_SCN_N_ECC_SBE_VOL);
    return gs_sim_u64(c, n) + gs_sim_event_sum(c, uncorrected ? GS_SCN_EV_ECC_DBE : GS_SCN_EV_ECC_SBE);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    SIM_BEGIN_DEV(nvmlDeviceGetEccMode, device, GS_SCN_F_ECC);
    if (!current || !pending)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *current = gs_sim_u32(&c, GS_SCN_N_ECC) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    *pending = gs_sim_u32(&c, GS_SCN_N_ECC_PENDING) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_sim_end(&c, NVML_SUCCESS);
}

static nvmlReturn_t sim_ecc(enum sim_sym sym, nvmlDevice_t device, nvmlMemoryErrorType_t type,
                            nvmlEccCounterType_t counter, int location, unsigned long long *out)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, GS_SCN_F_ECC);
    if (r != NVML_SUCCESS)
        return r;
    if (!out || (unsigned)type > 1 || (unsigned)counter > 1 || location < -1 ||
        location >= NVML_MEMORY_LOCATION_COUNT)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (!gs_sim_u32(&c, GS_SCN_N_ECC))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (location >= 0 && !((gs_sim_u32(&c, GS_SCN_N_ECC_LOCATIONS) >> location) & 1u))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED); /* no counter at that location on this board */
    /* every simulated error is in device memory */
    *out = location < 0 || location == NVML_MEMORY_LOCATION_DEVICE_MEMORY
               ? sim_ecc_count(&c, type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counter == NVML_AGGREGATE_ECC)
               : 0;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
    return sim_ecc(SIM_SYM_nvmlDeviceGetTotalEccErrors, device, errorType, counterType, -1, eccCounts);
}

nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                             nvmlEccCounterType_t counterType,
                                             nvmlMemoryLocation_t locationType, unsigned long long *count)
{
    return sim_ecc(SIM_SYM_nvmlDeviceGetMemoryErrorCounter, device, errorType, counterType,
                   (int)locationType, count);
}

/* ---- retired pages -------------------------------------------------------------------- */

static unsigned sim_retired(const struct sim_call *c, int dbe)
{
    return gs_sim_u32(c, dbe ? GS_SCN_N_RETIRED_DBE : GS_SCN_N_RETIRED_SBE) +
           (unsigned)gs_sim_event_sum(c, dbe ? GS_SCN_EV_RETIRE_DBE : GS_SCN_EV_RETIRE_SBE);
}

static nvmlReturn_t sim_retired_pages(enum sim_sym sym, nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                      unsigned *count, unsigned long long *addrs, unsigned long long *stamps)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, device, GS_SCN_F_RETIRED_PAGES);
    if (r != NVML_SUCCESS)
        return r;
    if (!count || (unsigned)cause > 1)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned n = sim_retired(&c, cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
    if (*count < n) {
        *count = n;
        return gs_sim_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n > 0 && (!addrs || (sym == SIM_SYM_nvmlDeviceGetRetiredPages_v2 && !stamps)))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    for (unsigned i = 0; i < n; i++) {
        addrs[i] = 0x1f3a000ull + (unsigned long long)c.gpu->index * 0x100000ull + i * 0x2000ull +
                   (unsigned long long)cause * 0x80000ull;
        if (stamps)
            stamps[i] = gs_sim_epoch_us(0) / 1000000ull - 86400ull * (n - i);
    }
    *count = n;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                       unsigned int *pageCount, unsigned long long *addresses)
{
    return sim_retired_pages(SIM_SYM_nvmlDeviceGetRetiredPages, device, cause, pageCount, addresses, NULL);
}

nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, nvmlPageRetirementCause_t cause,
                                          unsigned int *pageCount, unsigned long long *addresses,
                                          unsigned long long *timestamps)
{
    return sim_retired_pages(SIM_SYM_nvmlDeviceGetRetiredPages_v2, device, cause, pageCount, addresses,
                             timestamps);
}

nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending)
{
    SIM_BEGIN_DEV(nvmlDeviceGetRetiredPagesPendingStatus, device, GS_SCN_F_RETIRED_PAGES);
    if (!isPending)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *isPending = gs_sim_u32(&c, GS_SCN_N_RETIRED_PENDING) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- remapped rows ------------------------------------------------------------------------ */

struct sim_remap {
    unsigned cor, unc, pending, failure;
};

static struct sim_remap sim_remap_state(const struct sim_call *c)
{
    struct sim_remap m;
    m.cor = gs_sim_u32(c, GS_SCN_N_REMAP_COR) + (unsigned)gs_sim_event_sum(c, GS_SCN_EV_REMAP_COR);
    m.unc = gs_sim_u32(c, GS_SCN_N_REMAP_UNC) + (unsigned)gs_sim_event_sum(c, GS_SCN_EV_REMAP_UNC);
    m.pending = gs_sim_u32(c, GS_SCN_N_REMAP_PENDING) || gs_sim_event_sum(c, GS_SCN_EV_REMAP_PENDING) ||
                gs_sim_event_sum(c, GS_SCN_EV_REMAP_UNC);
    m.failure = gs_sim_u32(c, GS_SCN_N_REMAP_FAILURE) || gs_sim_event_sum(c, GS_SCN_EV_REMAP_FAILURE);
    return m;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
                                       unsigned int *isPending, unsigned int *failureOccurred)
{
    SIM_BEGIN_DEV(nvmlDeviceGetRemappedRows, device, GS_SCN_F_REMAPPED_ROWS);
    if (!corrRows || !uncRows || !isPending || !failureOccurred)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct sim_remap m = sim_remap_state(&c);
    *corrRows = m.cor;
    *uncRows = m.unc;
    *isPending = m.pending;
    *failureOccurred = m.failure;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Banks by remaining spare rows: each remapped row uses one spare of some bank. */
nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device, nvmlRowRemapperHistogramValues_t *values)
{
    SIM_BEGIN_DEV(nvmlDeviceGetRowRemapperHistogram, device, GS_SCN_F_REMAPPED_ROWS);
    if (!values)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct sim_remap m = sim_remap_state(&c);
    unsigned used = m.cor + m.unc, banks = 2560;
    memset(values, 0, sizeof(*values));
    values->high = used < banks ? used : banks;
    values->max = banks - values->high;
    values->none = m.failure ? 1 : 0;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- modes ----------------------------------------------------------------------------------- */

static unsigned sim_enabled(const struct sim_call *c, int n)
{
    return gs_sim_u32(c, (enum gs_scn_num)n) ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
}

static nvmlReturn_t sim_enable(enum sim_sym sym, nvmlDevice_t device, int feature, enum gs_scn_num n,
                               nvmlEnableState_t *out)
{
    unsigned v;
    nvmlReturn_t r = gs_sim_get_value(sym, device, feature, sim_enabled, (int)n, out ? &v : NULL);
    if (r == NVML_SUCCESS)
        *out = (nvmlEnableState_t)v;
    return r;
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return sim_enable(SIM_SYM_nvmlDeviceGetPersistenceMode, device, GS_SCN_F_PERSISTENCE, GS_SCN_N_PERSISTENCE, mode);
}

nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *display)
{
    return sim_enable(SIM_SYM_nvmlDeviceGetDisplayMode, device, GS_SCN_F_DISPLAY, GS_SCN_N_DISPLAY_MODE, display);
}

nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *isActive)
{
    return sim_enable(SIM_SYM_nvmlDeviceGetDisplayActive, device, GS_SCN_F_DISPLAY, GS_SCN_N_DISPLAY_ACTIVE, isActive);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetComputeMode, device, GS_SCN_F_COMPUTE_MODE);
    if (!mode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned m = gs_sim_u32(&c, GS_SCN_N_COMPUTE_MODE);
    *mode = (nvmlComputeMode_t)(m > 3 ? 0 : m);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetMigMode, device, GS_SCN_F_MIG);
    if (!currentMode || !pendingMode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *currentMode = gs_sim_u32(&c, GS_SCN_N_MIG) ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    *pendingMode = gs_sim_u32(&c, GS_SCN_N_MIG_PENDING) ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *mode)
{
    SIM_BEGIN_DEV(nvmlDeviceGetVirtualizationMode, device, -1);
    if (!mode)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *mode = (nvmlGpuVirtualizationMode_t)gs_sim_u32(&c, GS_SCN_N_VIRT_MODE);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Windows-only concept: Linux drivers answer NOT_SUPPORTED. */
nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    SIM_BEGIN_DEV(nvmlDeviceGetDriverModel, device, -1);
    (void)current, (void)pending;
    return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, nvmlDriverModel_t *current,
                                         nvmlDriverModel_t *pending)
{
    SIM_BEGIN_DEV(nvmlDeviceGetDriverModel_v2, device, -1);
    (void)current, (void)pending;
    return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
}

/* ---- field values --------------------------------------------------------------------------------- */

static nvmlReturn_t sim_field_u(struct sim_call *c, unsigned id, unsigned long long *v)
{
    static const struct {
        unsigned id;
        enum gs_scn_num num;
        int feature;
    } direct[] = {
        {SIM_FI_MEMORY_TEMP, GS_SCN_N_MEM_TEMP, GS_SCN_F_MEM_TEMP},   {SIM_FI_NVLINK_COUNT, GS_SCN_N_NVLINKS, -1},
        {SIM_FI_REPLAY, GS_SCN_N_PCIE_REPLAY, GS_SCN_F_REPLAY},       {SIM_FI_POWER_AVG, GS_SCN_N_POWER, GS_SCN_F_POWER},
        {SIM_FI_POWER_INSTANT, GS_SCN_N_POWER_INSTANT, GS_SCN_F_POWER},
        {SIM_FI_RECOVERY, GS_SCN_N_RECOVERY, GS_SCN_F_RECOVERY},     {SIM_FI_EDPP, GS_SCN_N_EDPP, GS_SCN_F_EDPP},       {SIM_FI_POWER_MIN, GS_SCN_N_POWER_MIN, GS_SCN_F_POWER_LIMIT},
        {SIM_FI_POWER_MAX, GS_SCN_N_POWER_MAX, GS_SCN_F_POWER_LIMIT}, {SIM_FI_POWER_DEFAULT, GS_SCN_N_POWER_DEFAULT, GS_SCN_F_POWER_LIMIT},
        {SIM_FI_POWER_CURRENT, GS_SCN_N_POWER_ENFORCED, GS_SCN_F_POWER_LIMIT},
        {SIM_FI_POWER_REQUESTED, GS_SCN_N_POWER_LIMIT, GS_SCN_F_POWER_LIMIT},
        {SIM_FI_T_SHUTDOWN, GS_SCN_N_TEMP_SHUTDOWN, GS_SCN_F_TEMP_THRESHOLDS},
        {SIM_FI_T_SLOWDOWN, GS_SCN_N_TEMP_SLOWDOWN, GS_SCN_F_TEMP_THRESHOLDS},
        {SIM_FI_T_MEM_MAX, GS_SCN_N_TEMP_MEM_MAX, GS_SCN_F_TEMP_THRESHOLDS},
        {SIM_FI_T_GPU_MAX, GS_SCN_N_TEMP_GPU_MAX, GS_SCN_F_TEMP_THRESHOLDS},
        {SIM_FI_ECC_CURRENT, GS_SCN_N_ECC, GS_SCN_F_ECC},             {SIM_FI_ECC_PENDING, GS_SCN_N_ECC_PENDING, GS_SCN_F_ECC},
        {SIM_FI_RETIRED_PENDING, GS_SCN_N_RETIRED_PENDING, GS_SCN_F_RETIRED_PAGES},
    };
    if (id == SIM_FI_POWER_AVG && gs_sim_unsupported(c->gpu, GS_SCN_F_POWER_AVERAGE))
        return NVML_ERROR_NOT_SUPPORTED; /* GA100 and older: no 1 s average */
    if (id == SIM_FI_RESET_STATUS || id == SIM_FI_DRAIN_RESET) {
        if (gs_sim_deprecated(c, GS_SCN_D_RESET_STATUS))
            return NVML_ERROR_DEPRECATED;
        *v = gs_sim_u32(c, GS_SCN_N_RECOVERY) == (id == SIM_FI_RESET_STATUS ? 1u : 4u);
        return NVML_SUCCESS;
    }
    for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++) {
        if (direct[i].id != id)
            continue;
        if (direct[i].feature >= 0 && gs_sim_unsupported(c->gpu, direct[i].feature))
            return NVML_ERROR_NOT_SUPPORTED;
        *v = gs_sim_u64(c, direct[i].num);
        return NVML_SUCCESS;
    }
    return NVML_ERROR_NOT_FOUND; /* not a direct field */
}

static nvmlReturn_t sim_field_derived(struct sim_call *c, unsigned id, unsigned long long *v)
{
    unsigned long long tx, rx;
    struct sim_remap m;
    int ecc_off = gs_sim_unsupported(c->gpu, GS_SCN_F_ECC) || !gs_sim_u32(c, GS_SCN_N_ECC);
    if (id >= SIM_FI_ECC_SBE_VOL && id <= SIM_FI_ECC_DBE_AGG) {
        if (ecc_off)
            return NVML_ERROR_NOT_SUPPORTED;
        *v = sim_ecc_count(c, id == SIM_FI_ECC_DBE_VOL || id == SIM_FI_ECC_DBE_AGG, id >= SIM_FI_ECC_SBE_AGG);
    } else if (id == SIM_FI_RETIRED_SBE || id == SIM_FI_RETIRED_DBE) {
        if (gs_sim_unsupported(c->gpu, GS_SCN_F_RETIRED_PAGES))
            return NVML_ERROR_NOT_SUPPORTED;
        *v = sim_retired(c, id == SIM_FI_RETIRED_DBE);
    } else if (id >= SIM_FI_REMAP_COR && id <= SIM_FI_REMAP_FAILURE) {
        if (gs_sim_unsupported(c->gpu, GS_SCN_F_REMAPPED_ROWS))
            return NVML_ERROR_NOT_SUPPORTED;
        m = sim_remap_state(c);
        *v = id == SIM_FI_REMAP_COR ? m.cor : id == SIM_FI_REMAP_UNC ? m.unc
             : id == SIM_FI_REMAP_PENDING ? m.pending : m.failure;
    } else if (id == SIM_FI_ENERGY || id == SIM_FI_ENERGY2) {
        if (gs_sim_unsupported(c->gpu, GS_SCN_F_ENERGY))
            return NVML_ERROR_NOT_SUPPORTED;
        *v = (unsigned long long)gs_sim_energy_mj(c);
    } else if (id == SIM_FI_PCIE_TX_BYTES || id == SIM_FI_PCIE_RX_BYTES) {
        /* the 12.5 header's ids (R555+): only the newest profile knows them; an older driver
         * answers an id it does not know NOT_SUPPORTED in the entry, as for 269-271 */
        if (!gs_sim.fields_r575 || gs_sim_unsupported(c->gpu, GS_SCN_F_PCIE_THROUGHPUT))
            return NVML_ERROR_NOT_SUPPORTED;
        gs_sim_pcie_bytes(c, &tx, &rx);
        *v = id == SIM_FI_PCIE_TX_BYTES ? tx : rx;
    } else if (id == 38 || id == 45 || id == 52 || id == 59) {
        /* NVLink error totals over all links (CRC flit, CRC data, replay, recovery) */
        if (gs_sim_unsupported(c->gpu, GS_SCN_F_NVLINK) || !gs_sim_u32(c, GS_SCN_N_NVLINKS))
            return NVML_ERROR_NOT_SUPPORTED;
        *v = gs_sim_u64(c, id == 38 ? GS_SCN_N_NVLINK_CRC_FLIT : id == 45 ? GS_SCN_N_NVLINK_CRC_DATA
                           : id == 52 ? GS_SCN_N_NVLINK_REPLAY : GS_SCN_N_NVLINK_RECOVERY);
    } else if ((id >= 74 && id <= 79) || (id >= 269 && id <= 271)) {
        /* violation time, ns (sim_counters.c): 74-79 by policy, 269 SW thermal = policy 75, 270/271 HW */
        static const unsigned idx[] = { 1, 6, 7 };
        int ok = 1;
        if (id >= 269 && !gs_sim.fields_r575)
            return NVML_ERROR_NOT_SUPPORTED; /* unknown field id before R575 */
        *v = gs_sim_violation_ns(c, id <= 79 ? id - 74 : idx[id - 269], &ok);
        if (!ok)
            return NVML_ERROR_NOT_SUPPORTED;
    } else {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    return NVML_SUCCESS;
}

/* The power fields (185, 186) with a scopeId other than the GPU's: the memory's
 * 1 s average (R580-era headers define the memory scope), nothing else. */
static nvmlReturn_t sim_field_scoped(struct sim_call *c, const nvmlFieldValue_t *f, unsigned long long *v)
{
    if (f->fieldId == SIM_FI_POWER_AVG && f->scopeId == 2 && gs_sim.fields_r575 &&
        gs_sim_num(c, GS_SCN_N_POWER_MEMORY) >= 0) {
        *v = gs_sim_u64(c, GS_SCN_N_POWER_MEMORY);
        return NVML_SUCCESS;
    }
    return NVML_ERROR_NOT_SUPPORTED;
}

/* NVLink state of link scopeId (165, R520+ headers): NVML_FEATURE_ENABLED while the link is up;
 * as nvmlDeviceGetNvLinkState, NOT_SUPPORTED without links, INVALID_ARGUMENT past the last one. */
static nvmlReturn_t sim_field_nvlink_state(struct sim_call *c, const nvmlFieldValue_t *f, unsigned long long *v)
{
    unsigned n = gs_sim_u32(c, GS_SCN_N_NVLINKS);
    if (!gs_sim.fields_r520 || gs_sim_unsupported(c->gpu, GS_SCN_F_NVLINK) || n == 0)
        return NVML_ERROR_NOT_SUPPORTED;
    if (f->scopeId >= n || f->scopeId >= NVML_NVLINK_MAX_LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long down = gs_sim_u64(c, GS_SCN_N_NVLINK_DOWN);
    *v = f->scopeId < 64 && (down >> f->scopeId) & 1 ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
    return NVML_SUCCESS;
}

/* PCIe replay rollovers (95) and the atomics masks (228, 229: 13.x headers). */
static nvmlReturn_t sim_field_pcie(struct sim_call *c, unsigned id, unsigned long long *v)
{
    enum gs_scn_num n = id == SIM_FI_REPLAY_ROLLOVER ? GS_SCN_N_PCIE_ROLLOVER
                        : id == SIM_FI_ATOMICS_OUT   ? GS_SCN_N_PCIE_ATOMICS_OUT
                                                     : GS_SCN_N_PCIE_ATOMICS_IN;
    if (id == SIM_FI_REPLAY_ROLLOVER && gs_sim_unsupported(c->gpu, GS_SCN_F_REPLAY))
        return NVML_ERROR_NOT_SUPPORTED;
    if (id != SIM_FI_REPLAY_ROLLOVER && (!gs_sim.fields_r575 || gs_sim_num(c, n) < 0))
        return NVML_ERROR_NOT_SUPPORTED;
    *v = gs_sim_u64(c, n);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    gs_sim_cost_fields(valuesCount); /* each entry is a query in the driver (sim_cost.c) */
    SIM_BEGIN_DEV(nvmlDeviceGetFieldValues, device, GS_SCN_F_FIELD_VALUES);
    if (valuesCount < 0 || (valuesCount > 0 && !values))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    long long now_us = (long long)gs_sim_epoch_us(c.t);
    for (int i = 0; i < valuesCount; i++) {
        nvmlFieldValue_t *f = &values[i];
        unsigned long long v = 0;
        nvmlReturn_t r = NVML_ERROR_NOT_FOUND;
        if ((f->fieldId == SIM_FI_POWER_AVG || f->fieldId == SIM_FI_POWER_INSTANT) && f->scopeId != 0)
            r = sim_field_scoped(&c, f, &v);
        else if (f->fieldId == SIM_FI_NVLINK_STATE)
            r = sim_field_nvlink_state(&c, f, &v);
        else if (f->fieldId == SIM_FI_REPLAY_ROLLOVER || f->fieldId == SIM_FI_ATOMICS_OUT ||
                 f->fieldId == SIM_FI_ATOMICS_IN)
            r = sim_field_pcie(&c, f->fieldId, &v);
        else
            r = sim_field_u(&c, f->fieldId, &v);
        if (r == NVML_ERROR_NOT_FOUND)
            r = sim_field_derived(&c, f->fieldId, &v);
        if (r == NVML_SUCCESS && f->fieldId == SIM_FI_POWER_AVG && f->scopeId == 0) {
            nvmlReturn_t e = gs_sim_fault_as(&c, SIM_SYM_nvmlDeviceGetPowerUsage); /* the same reading */
            r = e != NVML_SUCCESS ? e : r;
        }
        f->timestamp = now_us;
        f->latencyUsec = 0;
        f->nvmlReturn = r;
        f->valueType = f->fieldId == SIM_FI_NVLINK_COUNT || f->fieldId == SIM_FI_MEMORY_TEMP ||
                               f->fieldId >= SIM_FI_RESET_STATUS || f->fieldId == SIM_FI_NVLINK_STATE ||
                               (f->fieldId >= SIM_FI_POWER_AVG && f->fieldId <= SIM_FI_T_GPU_MAX &&
                                f->fieldId != SIM_FI_ENERGY2)
                           ? NVML_VALUE_TYPE_UNSIGNED_INT
                           : NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
        if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_INT)
            f->value.uiVal = (unsigned)v;
        else
            f->value.ullVal = v;
    }
    return gs_sim_end(&c, NVML_SUCCESS);
}
