/* SPDX-License-Identifier: MIT */
/*
 * nvml_fvfast.c - the tick's one nvmlDeviceGetFieldValues call for the fields
 * read every tick that NVML gives that way (power usage where the GPU gives it
 * as field 185, memory temperature, energy, the violation counters, NVLink
 * error totals, the query-fidelity fields of
 * nvml_fv_map), and the field value as a number, whatever its type.
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"

/* A field value as a signed number, whatever type the driver chose. */
int64_t nvml_fv_i64(const nvmlFieldValue_t *fv)
{
    switch (fv->valueType) {
    case NVML_VALUE_TYPE_SIGNED_INT:
        return fv->value.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return fv->value.sllVal;
    case NVML_VALUE_TYPE_DOUBLE:
        return (int64_t)fv->value.dVal;
    default:
        return fv->value.uiVal;
    }
}

/* A field value as an unsigned number, whatever its type. */
uint64_t nvml_fv_u64(const nvmlFieldValue_t *fv)
{
    switch (fv->valueType) {
    case NVML_VALUE_TYPE_DOUBLE:
        return fv->value.dVal > 0 ? (uint64_t)(fv->value.dVal + 0.5) : 0;
    case NVML_VALUE_TYPE_UNSIGNED_INT:
        return fv->value.uiVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
        return fv->value.siVal > 0 ? (uint64_t)fv->value.siVal : 0;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return fv->value.sllVal > 0 ? (uint64_t)fv->value.sllVal : 0;
    default:
        return fv->value.ullVal;
    }
}

static const struct {
    uint8_t field;     /* enum gs_field */
    unsigned id;       /* NVML_FI_* */
    unsigned scope;    /* nvmlFieldValue_t.scopeId (power scope) */
    size_t dst;        /* uint32_t (temp_mem_c is read as an int) */
} nvml_fv_map[] = {
    { GS_F_POWER_AVG, NVML_FI_DEV_POWER_AVERAGE, NVML_POWER_SCOPE_GPU, DST(power_avg_mw) },
    { GS_F_POWER_INSTANT, NVML_FI_DEV_POWER_INSTANT, NVML_POWER_SCOPE_GPU, DST(power_instant_mw) },
    { GS_F_RECOVERY, NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0, DST(recovery_action) },
    { GS_F_EDPP, NVML_FI_DEV_EDPP_MULTIPLIER, 0, DST(edpp_pct) },
    { GS_F_RESET_STATUS, NVML_FI_DEV_RESET_STATUS, 0, DST(reset_required) },
    { GS_F_RESET_STATUS, NVML_FI_DEV_DRAIN_AND_RESET_STATUS, 0, DST(drain_and_reset_recommended) },
    { GS_F_PCIE_ROLLOVER, NVML_FI_DEV_PCIE_REPLAY_ROLLOVER_COUNTER, 0, DST(pcie_replay_rollovers) },
    { GS_F_PCIE_ATOMICS_OUT, NVML_FI_DEV_PCIE_OUTBOUND_ATOMICS_MASK, 0, DST(pcie_atomics_out) },
    { GS_F_PCIE_ATOMICS_IN, NVML_FI_DEV_PCIE_INBOUND_ATOMICS_MASK, 0, DST(pcie_atomics_in) },
    { GS_F_POWER_MEM_AVG, NVML_FI_DEV_POWER_AVERAGE, NVML_POWER_SCOPE_MEMORY, DST(power_mem_avg_mw) },
};
#define NVML_NFV (sizeof(nvml_fv_map) / sizeof(nvml_fv_map[0]))

/* Distribute the query-fidelity entries of a field-values call (nvml_read_fv_fast): each entry
 * has its own status, so each field is marked on its own; a field of two entries (reset status)
 * keeps its first failure. */
static void nvml_fv_extra(struct nvml_tick *t, const nvmlFieldValue_t *fv, const unsigned *idx, unsigned n,
                          nvmlReturn_t r)
{
    for (unsigned k = 0; k < n; k++) {
        unsigned i = idx[k];
        enum gs_field f = (enum gs_field)nvml_fv_map[i].field;
        nvmlReturn_t e = r == NVML_SUCCESS ? fv[k].nvmlReturn : r;
        if (k > 0 && nvml_fv_map[idx[k - 1]].field == f && t->s->status[f] != GS_ST_OK)
            continue;
        if (!nvml_put(t, gs_fmask_of(f), e, "field values"))
            continue;
        uint32_t v = (uint32_t)nvml_fv_u64(&fv[k]);
        if (f == GS_F_RESET_STATUS)
            v = v != 0;
        memcpy((char *)t->s + nvml_fv_map[i].dst, &v, sizeof(v));
    }
}

/* ---- the tick's one field-values call ------------------------------------------------ */

/* The violation counters as field ids, in enum gs_viol order: 74-79 by policy,
 * then HW thermal (270) and HW power brake (271), which exist only as fields (R575+). */
static const unsigned nvml_viol_fields[GS_VIOL_COUNT] = {
    NVML_FI_DEV_PERF_POLICY_POWER, NVML_FI_DEV_PERF_POLICY_THERMAL, NVML_FI_DEV_PERF_POLICY_SYNC_BOOST,
    NVML_FI_DEV_PERF_POLICY_BOARD_LIMIT, NVML_FI_DEV_PERF_POLICY_LOW_UTILIZATION, NVML_FI_DEV_PERF_POLICY_RELIABILITY,
    NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN, NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN,
};
static const unsigned nvml_nverr_fields[4] = { 38, 45, 52, 59 }; /* NVLink CRC flit, CRC data, replay, recovery totals */

/* Which entry of the call holds what (-1: not asked this tick). */
struct nvml_fvlist {
    nvmlFieldValue_t fv[3 + GS_VIOL_COUNT + 1 + 4 + NVML_NFV + 2];
    unsigned n;
    int temp, energy, viol[GS_VIOL_COUNT], links, nverr;
    int pcie;                  /* fields 197/198 (PCIe bytes, nvml_pcie.c), -1: not asked */
    int power;                 /* field 185 for power usage (and the power average), -1: not asked */
    int extra;                 /* first query-fidelity entry (nvml_fv_map), -1: none */
    unsigned extra_idx[NVML_NFV], nextra;
};

static int nvml_fv_add(struct nvml_fvlist *l, unsigned id)
{
    l->fv[l->n].fieldId = id;
    return (int)l->n++;
}

static nvmlReturn_t nvml_fv_ret(const struct nvml_fvlist *l, int i, nvmlReturn_t r)
{
    return i < 0 ? NVML_ERROR_NOT_SUPPORTED : r == NVML_SUCCESS ? l->fv[i].nvmlReturn : r;
}

/* Energy: field 83, or nvmlDeviceGetTotalEnergyConsumption where field 83 is
 * refused (then for good) or field values are missing. */
static void nvml_put_energy(struct nvml_tick *t, const struct nvml_fvlist *l, nvmlReturn_t r)
{
    const nvmlFieldValue_t *e = l->energy >= 0 ? &l->fv[l->energy] : NULL;
    if (e && r == NVML_SUCCESS && e->nvmlReturn == NVML_SUCCESS) {
        nvml_put(t, gs_fmask_of(GS_F_ENERGY), NVML_SUCCESS, "energy");
        t->s->energy_mj = (uint64_t)nvml_fv_i64(e);
        return;
    }
    if (!t->f->energy) {
        nvml_put(t, gs_fmask_of(GS_F_ENERGY), e && r == NVML_SUCCESS ? e->nvmlReturn : r, "energy");
        return;
    }
    if (e && !atomic_load(&t->d->lost))
        t->d->energy_fv_refused = true;
    unsigned long long v = 0;
    if (nvml_put(t, gs_fmask_of(GS_F_ENERGY), t->f->energy(t->d->handle, &v), "energy"))
        t->s->energy_mj = v;
}

/* Violation counters: the fields, else nvmlDeviceGetViolationStatus per policy;
 * each keeps its own status. */
static void nvml_put_violations(struct nvml_tick *t, const struct nvml_fvlist *l, nvmlReturn_t r)
{
    for (unsigned i = 0; i < GS_VIOL_COUNT && !atomic_load(&t->d->lost); i++) {
        if (l->viol[i] < 0)
            continue;
        nvmlReturn_t ri = nvml_fv_ret(l, l->viol[i], r);
        uint64_t v = ri == NVML_SUCCESS ? (uint64_t)nvml_fv_i64(&l->fv[l->viol[i]]) : 0;
        if (ri != NVML_SUCCESS && i <= GS_VIOL_RELIABILITY && t->f->violation_status) {
            nvmlViolationTime_t vt = { 0, 0 };
            ri = t->f->violation_status(t->d->handle, (nvmlPerfPolicyType_t)i, &vt);
            v = vt.violationTime;
        } else if (ri == NVML_ERROR_INVALID_ARGUMENT || ri == NVML_ERROR_NOT_FOUND) {
            ri = NVML_ERROR_NOT_SUPPORTED; /* a field id this driver does not know */
        }
        if (nvml_put(t, gs_fmask_of(GS_F_VIOL_POWER + i), ri, "violation counters"))
            t->s->violation_ns[i] = v;
    }
}

/* NVLink data-link error counters, summed over links: the four "total" fields
 * when the driver answers them, else per link. */
static void nvml_put_nvlink_errors(struct nvml_tick *t, const struct nvml_fvlist *l, nvmlReturn_t r)
{
    static const nvmlNvLinkErrorCounter_t ctr[4] = { NVML_NVLINK_ERROR_DL_CRC_FLIT, NVML_NVLINK_ERROR_DL_CRC_DATA,
                                                     NVML_NVLINK_ERROR_DL_REPLAY, NVML_NVLINK_ERROR_DL_RECOVERY };
    struct gs_sample *s = t->s;
    uint64_t *dst[4] = { &s->nvlink_crc_flit, &s->nvlink_crc_data, &s->nvlink_replay, &s->nvlink_recovery };
    if (l->nverr < 0)
        return;
    if (!t->d->nvlinks) {
        nvml_put(t, gs_fmask_of(GS_F_NVLINK_ERRORS), NVML_ERROR_NOT_SUPPORTED, "NVLink error counters");
        return;
    }
    for (unsigned k = 0; k < 4 && r == NVML_SUCCESS; k++)
        if ((r = l->fv[l->nverr + (int)k].nvmlReturn) == NVML_SUCCESS)
            *dst[k] = (uint64_t)nvml_fv_i64(&l->fv[l->nverr + (int)k]);
    if (r != NVML_SUCCESS && r != NVML_ERROR_GPU_IS_LOST && t->f->nvlink_errors) {
        r = NVML_SUCCESS;
        for (unsigned k = 0; k < 4; k++)
            *dst[k] = 0;
        for (uint32_t lk = 0; lk < t->d->nvlinks && r == NVML_SUCCESS; lk++)
            for (unsigned k = 0; k < 4 && r == NVML_SUCCESS; k++) {
                unsigned long long v = 0;
                r = t->f->nvlink_errors(t->d->handle, lk, ctr[k], &v);
                *dst[k] += v;
            }
    }
    nvml_put(t, gs_fmask_of(GS_F_NVLINK_ERRORS), r, "NVLink error counters");
}

/* Power usage from field 185, the 1 s average that nvmlDeviceGetPowerUsage answers on GPUs
 * that have one (Ampere and newer but GA100, NVIDIA's docs of both). Where the field is
 * refused (older GPUs, older drivers), or the call fails, nvml_read_power calls the function,
 * from then on. An entry's other errors are the reading's, as the function's would be. The
 * power average of the query rides on the same entry. */
static void nvml_put_power(struct nvml_tick *t, const struct nvml_fvlist *l, nvmlReturn_t r)
{
    if (l->power < 0)
        return;
    const nvmlFieldValue_t *fv = &l->fv[l->power];
    nvmlReturn_t e = r == NVML_SUCCESS ? fv->nvmlReturn : r;
    bool refused = e == NVML_ERROR_NOT_SUPPORTED || e == NVML_ERROR_INVALID_ARGUMENT || e == NVML_ERROR_NOT_FOUND;
    if (r != NVML_SUCCESS || refused) {
        t->d->power_fv_refused = true;
        if (gs_fmask_has(t->want, GS_F_POWER_AVG))
            nvml_put(t, gs_fmask_of(GS_F_POWER_AVG), e, "field values");
        return;
    }
    if (gs_fmask_has(t->want, GS_F_POWER_AVG) && nvml_put(t, gs_fmask_of(GS_F_POWER_AVG), e, "field values"))
        t->s->power_avg_mw = (uint32_t)nvml_fv_u64(fv);
    t->power_done = true;
    if (nvml_put(t, gs_fmask_of(GS_F_POWER), e, "power usage"))
        t->s->power_mw = (uint32_t)nvml_fv_u64(fv);
}

/* Power by its function where this tick's field values did not give it. */
void nvml_read_power(struct nvml_tick *t, const struct nvml_reader *rd)
{
    if (!t->power_done)
        nvml_read_uint(t, rd);
}

/* One field-values call per tick for everything NVML gives that way: memory
 * (HBM) temperature (82, the only way NVML gives it), energy (83), the eight
 * violation counters (74-79, 270, 271), the NVLink count (91, once) and error
 * totals (38, 45, 52, 59), the query-fidelity fields of nvml_fv_map (power
 * average/instant, recovery action, EDPp, reset status), and the PCIe byte
 * counters (197, 198) on a GPU whose rates come from them. Only what is wanted
 * and not known unsupported. */
void nvml_read_fv_fast(struct nvml_tick *t, const struct nvml_reader *rd)
{
    struct gs_fmask unsup = gs_nvml_unsup(t->d);
    struct nvml_fvlist l;
    nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
#define WANTED(f) (gs_fmask_has(t->want, f) && !gs_fmask_has(unsup, f))

    (void)rd;
    memset(&l, 0, sizeof(l));
    l.temp = WANTED(GS_F_TEMP_MEM) ? nvml_fv_add(&l, NVML_FI_DEV_MEMORY_TEMP) : -1;
    bool energy = WANTED(GS_F_ENERGY);
    l.energy = energy && !t->d->energy_fv_refused ? nvml_fv_add(&l, NVML_FI_DEV_TOTAL_ENERGY_CONSUMPTION) : -1;
    for (unsigned i = 0; i < GS_VIOL_COUNT; i++)
        l.viol[i] = WANTED(GS_F_VIOL_POWER + i) ? nvml_fv_add(&l, nvml_viol_fields[i]) : -1;
    bool nverr = WANTED(GS_F_NVLINK_ERRORS);
    l.links = nverr && !t->d->nvlink_known ? nvml_fv_add(&l, NVML_FI_DEV_NVLINK_LINK_COUNT) : -1;
    l.nverr = -1;
    for (unsigned k = 0; nverr && k < 4; k++) {
        int i = nvml_fv_add(&l, nvml_nverr_fields[k]);
        l.nverr = k ? l.nverr : i;
    }
    l.power = WANTED(GS_F_POWER) && !t->d->power_fv_refused ? nvml_fv_add(&l, NVML_FI_DEV_POWER_AVERAGE) : -1;
    l.extra = -1;
    for (unsigned i = 0; i < NVML_NFV; i++) /* the query-fidelity fields ride along */
        if (WANTED(nvml_fv_map[i].field) && !(l.power >= 0 && nvml_fv_map[i].field == GS_F_POWER_AVG)) {
            int k = nvml_fv_add(&l, nvml_fv_map[i].id);
            l.fv[k].scopeId = nvml_fv_map[i].scope;
            l.extra = l.nextra ? l.extra : k;
            l.extra_idx[l.nextra++] = i;
        }
#undef WANTED
    l.pcie = -1;
    if (nvml_pcie_counters_wanted(t)) {
        l.pcie = nvml_fv_add(&l, NVML_FI_DEV_PCIE_COUNT_TX_BYTES);
        nvml_fv_add(&l, NVML_FI_DEV_PCIE_COUNT_RX_BYTES);
    }
    if (l.n && t->f->field_values)
        r = t->f->field_values(t->d->handle, (int)l.n, l.fv);
    if (l.pcie >= 0)
        nvml_pcie_fv_take(t, &l.fv[l.pcie], r);
    if (r == NVML_ERROR_GPU_IS_LOST) {
        nvml_put(t, nvml_rd_mask(rd), r, rd->what);
        return;
    }
    if (l.temp >= 0 && nvml_put(t, gs_fmask_of(GS_F_TEMP_MEM), nvml_fv_ret(&l, l.temp, r), "memory temperature"))
        t->s->temp_mem_c = (int32_t)nvml_fv_i64(&l.fv[l.temp]);
    if (energy)
        nvml_put_energy(t, &l, r);
    nvml_put_violations(t, &l, r);
    if (l.links >= 0)
        nvml_set_links(t, &l.fv[l.links], nvml_fv_ret(&l, l.links, r));
    nvml_put_nvlink_errors(t, &l, r);
    nvml_put_power(t, &l, r);
    if (l.nextra)
        nvml_fv_extra(t, &l.fv[l.extra], l.extra_idx, l.nextra, r);
}
