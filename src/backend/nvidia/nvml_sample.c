/* SPDX-License-Identifier: MIT */
/*
 * nvml_sample.c - one tick of one GPU: the GS_F_* fields of struct gs_sample.
 *
 * Table-driven: nvml_readers[] lists, for each NVML call (or call + argument),
 * the fields it fills, the function(s) it needs and the reader that makes it.
 * A tick walks the table once, so each (function, argument) is called at most
 * once per GPU per tick, and only for wanted fields. Fields whose call once
 * answered NOT_SUPPORTED (or whose symbol is absent) are in the device's
 * `unsup` mask and are never asked again. After GPU_IS_LOST nothing more is
 * called for that GPU, ever.
 *
 * The read schedule: a reader listed in nvml_every[] reads something that
 * changes slowly or rarely (ECC and remapping counters, PCIe link, power
 * limits, modes, BAR1; not the fan, whose repeats the health engine's
 * stuck-fan check would take for a stuck fan). It is called at the first tick, then once per
 * period (5 s, GPUSCOPE_READ_PERIOD_MS; NVLink link state, one call per link, every 6
 * periods; the modes an operator sets, persistence, compute, MIG and display, every 6
 * too), and at the next tick after an ECC or
 * Xid event on that GPU (gs_nvml_sched_event); in between its last values are
 * handed on with their age (gs_sample.age_ms), so no consumer takes a cached
 * value for a fresh one. A read that failed is retried at the next tick.
 * Some readings are held only while nothing says they changed (enum nvml_hold):
 * encoder and decoder utilization while they read 0, the memory clock while
 * the P-state and clock event reasons are those it was read under; each is
 * still read at least once a period, and its age is handed on the same way.
 * Everything else (utilization, memory, power, temperatures, the other clocks,
 * clock event reasons, energy, violation counters) is read every tick.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/clock.h"

/* A reader's fields, as a list a static table can hold (a gs_fmask cannot be
 * built from several bits in a constant expression). */
#define GS_RD_MAXF 22
#define GS_F_END 0xff
#define FL(...) { __VA_ARGS__, GS_F_END }
#define NO_FN SIZE_MAX
#define FN(field) offsetof(struct nvml_fns, field)
#define DST(field) offsetof(struct gs_sample, field)

struct nvml_tick {
    struct nvml_device *d;
    const struct nvml_fns *f;
    struct gs_gpu *g;
    struct gs_sample *s;
    struct gs_fmask want;   /* the fields asked for in this tick */
    bool error;             /* some field got GS_ST_ERROR */
    struct nvml_fvs_batch fvs; /* the slow counters' field values (nvml_fvslow.c) */
};

/* What a slow-changing reader writes: bytes [off, off + len) of struct
 * gs_sample (each reader's values are adjacent members); see nvml_every[]. */
enum nvml_hold {
    NVML_HOLD_ALWAYS,       /* held between its periods */
    NVML_HOLD_WHILE_ZERO,   /* ... only while its last value was 0 (a u32), else read every tick */
    NVML_HOLD_WHILE_PSTATE, /* ... only while P-state and clock event reasons are as they were at
                             * its last read (both read earlier in the same tick) */
};
struct nvml_span {
    uint16_t off, len;
    uint8_t periods; /* read every this many periods (0 = 1) */
    uint8_t hold;    /* enum nvml_hold */
};
#define EVERY_PERIODS(first, last, n)                                                           \
    { (uint16_t)DST(first),                                                                     \
      (uint16_t)(DST(last) + sizeof(((struct gs_sample *)0)->last) - DST(first)), (n),          \
      NVML_HOLD_ALWAYS }
#define EVERY_PERIOD(first, last) EVERY_PERIODS(first, last, 1)
#define HELD_WHILE(member, how) { (uint16_t)DST(member), (uint16_t)sizeof(((struct gs_sample *)0)->member), 1, (how) }

struct nvml_reader {
    uint8_t fields[GS_RD_MAXF]; /* GS_F_* it fills, GS_F_END after the last */
    size_t fn, fn_alt;      /* offsets in struct nvml_fns; usable if either is bound */
    size_t dst;             /* generic readers: offset of the value in struct gs_sample */
    unsigned arg;           /* clock type, counter, cause ... */
    void (*read)(struct nvml_tick *t, const struct nvml_reader *rd);
    const char *what;       /* for error messages */
};

static struct gs_fmask rd_mask(const struct nvml_reader *rd)
{
    struct gs_fmask m = GS_FMASK_NONE;

    for (unsigned i = 0; i < GS_RD_MAXF && rd->fields[i] != GS_F_END; i++)
        gs_fmask_set(&m, rd->fields[i]);
    return m;
}

static void *nvml_fn(const struct nvml_fns *f, size_t off)
{
    void *p = NULL;

    if (off != NO_FN)
        memcpy(&p, (const char *)f + off, sizeof(p));
    return p;
}

/* Mark the fields of one call with the result r; true when they hold values. */
static bool nvml_put(struct nvml_tick *t, struct gs_fmask fields, nvmlReturn_t r, const char *what)
{
    enum gs_status st = gs_nvml_status(t->d, t->g, r, fields, what);

    GS_FMASK_FOREACH(f, fields)
        gs_sample_mark(t->s, (enum gs_field)f, st);
    if (st == GS_ST_ERROR)
        t->error = true;
    return st == GS_ST_OK;
}

static void nvml_put_u32(struct nvml_tick *t, const struct nvml_reader *rd, unsigned v)
{
    memcpy((char *)t->s + rd->dst, &v, sizeof(v));
}

/* A slow counter from this tick's field-values batch; false: read it by its function. */
static bool nvml_fvs(struct nvml_tick *t, enum nvml_fvs k, uint64_t *v)
{
    return gs_nvml_fvs_get(t->d, t->f, &t->fvs, gs_fmask_minus(t->want, gs_nvml_unsup(t->d)), k, v);
}

/* ---- generic readers for the common signatures ------------------------------- */
static void nvml_read_uint(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetUInt_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned v = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd_mask(rd), fn(t->d->handle, &v), rd->what))
        nvml_put_u32(t, rd, v);
}

static void nvml_read_enable(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetEnable_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    nvmlEnableState_t v = NVML_FEATURE_DISABLED;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd_mask(rd), fn(t->d->handle, &v), rd->what))
        nvml_put_u32(t, rd, v == NVML_FEATURE_ENABLED);
}

static void nvml_read_ull(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetULL_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned long long v = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd_mask(rd), fn(t->d->handle, &v), rd->what)) {
        uint64_t v64 = v;
        memcpy((char *)t->s + rd->dst, &v64, sizeof(v64));
    }
}

static void nvml_read_clock(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned v = 0;

    if (nvml_put(t, rd_mask(rd), t->f->clock(t->d->handle, (nvmlClockType_t)rd->arg, &v), rd->what))
        nvml_put_u32(t, rd, v);
}

static void nvml_read_pcie_rate(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned v = 0;
    nvmlReturn_t r = t->f->pcie_throughput(t->d->handle, (nvmlPcieUtilCounter_t)rd->arg, &v);

    if (nvml_put(t, rd_mask(rd), r, rd->what)) {
        nvml_put_u32(t, rd, v);
        t->s->pcie_rate_age_ns = 0;
    }
}

/* ECC totals: fields 3-6 (corrected = single bit, uncorrected = double bit), else the function. */
static void nvml_read_ecc_count(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (nvml_fvs(t, (enum nvml_fvs)(NVML_FVS_SBE_VOL + (rd->arg & 1) + 2 * (rd->arg >> 1)), &fv)) {
        nvml_put(t, rd_mask(rd), NVML_SUCCESS, rd->what);
        memcpy((char *)t->s + rd->dst, &fv, sizeof(fv));
        return;
    }
    unsigned long long v = 0;
    nvmlReturn_t r = t->f->ecc_errors(t->d->handle, (nvmlMemoryErrorType_t)(rd->arg & 1),
                                      (nvmlEccCounterType_t)(rd->arg >> 1), &v);

    if (nvml_put(t, rd_mask(rd), r, rd->what)) {
        uint64_t v64 = v;
        memcpy((char *)t->s + rd->dst, &v64, sizeof(v64));
    }
}

/* Retired pages: a count query (*count = 0) answers with the number of pages. */
static void nvml_read_retired(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (nvml_fvs(t, rd->arg == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? NVML_FVS_RET_DBE : NVML_FVS_RET_SBE,
                 &fv)) {
        nvml_put(t, rd_mask(rd), NVML_SUCCESS, rd->what);
        nvml_put_u32(t, rd, (unsigned)fv);
        return;
    }
    unsigned count = 0;
    nvmlReturn_t r = t->f->retired_pages(t->d->handle, (nvmlPageRetirementCause_t)rd->arg, &count,
                                         NULL);

    if (r == NVML_ERROR_INSUFFICIENT_SIZE)
        r = NVML_SUCCESS;
    if (nvml_put(t, rd_mask(rd), r, rd->what))
        nvml_put_u32(t, rd, count);
}

/* Retired pages pending (field 31) and the PCIe replay counter (field 94), else their functions. */
static void nvml_read_retired_pending(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (!nvml_fvs(t, NVML_FVS_RET_PEND, &fv)) {
        nvml_read_enable(t, rd);
        return;
    }
    nvml_put(t, rd_mask(rd), NVML_SUCCESS, rd->what);
    nvml_put_u32(t, rd, fv != 0);
}

static void nvml_read_replay(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (!nvml_fvs(t, NVML_FVS_REPLAY, &fv)) {
        nvml_read_uint(t, rd);
        return;
    }
    nvml_put(t, rd_mask(rd), NVML_SUCCESS, rd->what);
    nvml_put_u32(t, rd, (unsigned)fv);
}

/* ---- readers with their own shapes or fallbacks ------------------------------ */
static void nvml_read_memory_v1(struct nvml_tick *t)
{
    nvmlMemory_t m;
    struct gs_fmask fields = gs_fmask_of(GS_F_MEM_TOTAL);

    gs_fmask_set(&fields, GS_F_MEM_USED);
    gs_fmask_set(&fields, GS_F_MEM_FREE);

    gs_sample_mark(t->s, GS_F_MEM_RESERVED, GS_ST_NOT_SUPPORTED);
    if (!t->f->memory) {
        nvml_put(t, fields, NVML_ERROR_FUNCTION_NOT_FOUND, "memory info");
        return;
    }
    memset(&m, 0, sizeof(m));
    if (nvml_put(t, fields, t->f->memory(t->d->handle, &m), "memory info")) {
        t->s->mem_total_bytes = m.total;
        t->s->mem_used_bytes = m.used;
        t->s->mem_free_bytes = m.free;
    }
}

/* Memory info v2 (used excludes the driver's reservation). Its version must be
 * nvmlMemory_v2 (0x02000028, not 2); a library that refuses it with
 * FUNCTION_NOT_FOUND or ARGUMENT_VERSION_MISMATCH gets v1 from then on. */
static void nvml_read_memory(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlMemory_v2_t m;
    nvmlReturn_t r;

    if (t->d->mem_v1 || !t->f->memory_v2) {
        nvml_read_memory_v1(t);
        return;
    }
    memset(&m, 0, sizeof(m));
    m.version = nvmlMemory_v2;
    r = t->f->memory_v2(t->d->handle, &m);
    if (r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
        t->d->mem_v1 = true;
        nvml_read_memory_v1(t);
        return;
    }
    if (nvml_put(t, rd_mask(rd), r, rd->what)) {
        t->s->mem_total_bytes = m.total;
        t->s->mem_reserved_bytes = m.reserved;
        t->s->mem_used_bytes = m.used;
        t->s->mem_free_bytes = m.free;
    }
}

static void nvml_read_bar1(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlBAR1Memory_t b;

    memset(&b, 0, sizeof(b));
    if (nvml_put(t, rd_mask(rd), t->f->bar1(t->d->handle, &b), rd->what)) {
        t->s->bar1_total_bytes = b.bar1Total;
        t->s->bar1_used_bytes = b.bar1Used;
        t->s->bar1_free_bytes = b.bar1Free;
    }
}

static void nvml_read_util(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlUtilization_t u = { 0, 0 };

    if (nvml_put(t, rd_mask(rd), t->f->utilization(t->d->handle, &u), rd->what)) {
        t->s->gpu_util_pct = u.gpu;
        t->s->mem_util_pct = u.memory;
    }
}

static void nvml_read_codec(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetCodecUtilization_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned v = 0, period_us = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd_mask(rd), fn(t->d->handle, &v, &period_us), rd->what))
        nvml_put_u32(t, rd, v);
}

/* TemperatureV when bound (signed value), else the legacy call; a library that
 * refuses our struct version gets the legacy call from then on. */
static void nvml_read_temp(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;

    if (t->f->temperature_v && !t->d->temp_legacy) {
        nvmlTemperature_v1_t tv = { nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0 };
        r = t->f->temperature_v(t->d->handle, &tv);
        if (r == NVML_SUCCESS) {
            nvml_put(t, rd_mask(rd), r, rd->what);
            t->s->temp_gpu_c = tv.temperature;
            return;
        }
        if (r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
            t->d->temp_legacy = true;
    }
    if (t->f->temperature && (r == NVML_ERROR_FUNCTION_NOT_FOUND ||
                              r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)) {
        unsigned v = 0;
        r = t->f->temperature(t->d->handle, NVML_TEMPERATURE_GPU, &v);
        if (r == NVML_SUCCESS)
            t->s->temp_gpu_c = (int32_t)v;
    }
    nvml_put(t, rd_mask(rd), r, rd->what);
}

/* A field value as a signed number, whatever type the driver chose. */
static int64_t nvml_fv_i64(const nvmlFieldValue_t *fv)
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
static uint64_t nvml_fv_u64(const nvmlFieldValue_t *fv)
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
    nvmlFieldValue_t fv[2 + GS_VIOL_COUNT + 1 + 4 + NVML_NFV];
    unsigned n;
    int temp, energy, viol[GS_VIOL_COUNT], links, nverr;
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

static void nvml_set_links(struct nvml_tick *t, const nvmlFieldValue_t *fv, nvmlReturn_t r)
{
    t->d->nvlinks = r == NVML_SUCCESS ? (uint32_t)nvml_fv_i64(fv) : 0;
    if (t->d->nvlinks > NVML_NVLINK_MAX_LINKS)
        t->d->nvlinks = NVML_NVLINK_MAX_LINKS;
    t->d->nvlink_known = r != NVML_ERROR_GPU_IS_LOST;
}

/* One field-values call per tick for everything NVML gives that way: memory
 * (HBM) temperature (82, the only way NVML gives it), energy (83), the eight
 * violation counters (74-79, 270, 271), the NVLink count (91, once) and error
 * totals (38, 45, 52, 59), and the query-fidelity fields of nvml_fv_map (power
 * average/instant, recovery action, EDPp, reset status). Only what is wanted
 * and not known unsupported. */
static void nvml_read_fv_fast(struct nvml_tick *t, const struct nvml_reader *rd)
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
    l.extra = -1;
    for (unsigned i = 0; i < NVML_NFV; i++) /* the query-fidelity fields ride along */
        if (WANTED(nvml_fv_map[i].field)) {
            int k = nvml_fv_add(&l, nvml_fv_map[i].id);
            l.fv[k].scopeId = nvml_fv_map[i].scope;
            l.extra = l.nextra ? l.extra : k;
            l.extra_idx[l.nextra++] = i;
        }
#undef WANTED
    if (l.n && t->f->field_values)
        r = t->f->field_values(t->d->handle, (int)l.n, l.fv);
    if (r == NVML_ERROR_GPU_IS_LOST) {
        nvml_put(t, rd_mask(rd), r, rd->what);
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
    if (l.nextra)
        nvml_fv_extra(t, &l.fv[l.extra], l.extra_idx, l.nextra, r);
}

/* Every link's state in one field-values call (field 165, scopeId = link) instead of
 * one nvmlDeviceGetNvLinkState per link; true when it answered (*r: SUCCESS or
 * GPU_IS_LOST). A driver or GPU that refuses the field for any link (older
 * headers than CUDA 11.8, a GPU without it) gets the per-link calls from then on. */
static bool nvml_nvlink_state_fv(struct nvml_tick *t, nvmlReturn_t *r)
{
    nvmlFieldValue_t fv[NVML_NVLINK_MAX_LINKS];
    int n = (int)t->d->nvlinks;

    if (t->d->nvlink_state_fv_refused || !t->f->field_values)
        return false;
    memset(fv, 0, sizeof(fv));
    for (int lk = 0; lk < n; lk++) {
        fv[lk].fieldId = NVML_FI_DEV_NVLINK_GET_STATE;
        fv[lk].scopeId = (unsigned)lk;
    }
    *r = t->f->field_values(t->d->handle, n, fv);
    if (*r == NVML_ERROR_GPU_IS_LOST)
        return true;
    for (int lk = 0; lk < n && *r == NVML_SUCCESS; lk++)
        *r = fv[lk].nvmlReturn;
    if (*r != NVML_SUCCESS) {
        t->d->nvlink_state_fv_refused = true;
        return false;
    }
    for (int lk = 0; lk < n; lk++)
        if (nvml_fv_u64(&fv[lk]) != NVML_FEATURE_ENABLED)
            t->s->nvlink_down_mask |= UINT64_C(1) << lk;
    return true;
}

/* NVLink state per link (on the read schedule: links rarely change). The link
 * count comes with the field values, or from its own call when only the state is wanted. */
static void nvml_read_nvlink(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t r = NVML_SUCCESS;

    if (!t->d->nvlink_known && t->f->field_values) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof(fv));
        fv.fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
        r = t->f->field_values(t->d->handle, 1, &fv);
        nvml_set_links(t, &fv, r == NVML_SUCCESS ? fv.nvmlReturn : r);
        if (r == NVML_ERROR_GPU_IS_LOST) {
            nvml_put(t, rd_mask(rd), r, rd->what);
            return;
        }
    }
    if (!t->d->nvlinks) {
        nvml_put(t, rd_mask(rd), NVML_ERROR_NOT_SUPPORTED, rd->what);
        return;
    }
    t->s->nvlink_count = t->d->nvlinks;
    t->s->nvlink_down_mask = 0;
    if (nvml_nvlink_state_fv(t, &r)) {
        nvml_put(t, rd_mask(rd), r, rd->what);
        return;
    }
    r = NVML_SUCCESS;
    for (uint32_t lk = 0; lk < t->d->nvlinks && r == NVML_SUCCESS; lk++) {
        nvmlEnableState_t on = NVML_FEATURE_DISABLED;
        r = t->f->nvlink_state(t->d->handle, lk, &on);
        if (r == NVML_SUCCESS && on != NVML_FEATURE_ENABLED)
            t->s->nvlink_down_mask |= UINT64_C(1) << lk;
    }
    nvml_put(t, rd_mask(rd), r, rd->what);
}

/* Fans: per-fan _v2 calls when the fan count is known, else the one-fan call. */
static void nvml_read_fans(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
    uint32_t n = 0;

    if (t->d->fan_count && t->f->fan_speed_v2) {
        for (; n < t->d->fan_count; n++) {
            r = t->f->fan_speed_v2(t->d->handle, n, &t->s->fan_speed_pct[n]);
            if (r != NVML_SUCCESS)
                break;
        }
        if (n > 0)
            r = NVML_SUCCESS;
    } else if (t->f->fan_speed) {
        r = t->f->fan_speed(t->d->handle, &t->s->fan_speed_pct[0]);
        n = r == NVML_SUCCESS;
    }
    t->s->fan_count = n;
    nvml_put(t, rd_mask(rd), r, rd->what);
}

static void nvml_read_pstate(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
    nvmlReturn_t r = t->f->pstate(t->d->handle, &p);

    if (r == NVML_SUCCESS && (unsigned)p > 15) {
        gs_sample_mark(t->s, GS_F_PSTATE, GS_ST_NOT_AVAILABLE);
        return;
    }
    if (nvml_put(t, rd_mask(rd), r, rd->what))
        t->s->pstate = (uint32_t)p;
}

static void nvml_read_ecc_mode(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fc = 0, fp = 0;
    if (nvml_fvs(t, NVML_FVS_ECC_CUR, &fc) && nvml_fvs(t, NVML_FVS_ECC_PEND, &fp)) {
        nvml_put(t, rd_mask(rd), NVML_SUCCESS, rd->what);
        t->s->ecc_mode_current = fc == NVML_FEATURE_ENABLED;
        t->s->ecc_mode_pending = fp == NVML_FEATURE_ENABLED;
        return;
    }
    nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pend = NVML_FEATURE_DISABLED;

    if (nvml_put(t, rd_mask(rd), t->f->ecc_mode(t->d->handle, &cur, &pend), rd->what)) {
        t->s->ecc_mode_current = cur == NVML_FEATURE_ENABLED;
        t->s->ecc_mode_pending = pend == NVML_FEATURE_ENABLED;
    }
}

static void nvml_read_remap(struct nvml_tick *t, const struct nvml_reader *rd)
{
    struct gs_sample *s = t->s;
    uint64_t v[4];
    bool ok = true;
    for (unsigned k = 0; k < 4 && ok; k++)
        ok = nvml_fvs(t, (enum nvml_fvs)(NVML_FVS_REMAP_COR + k), &v[k]);
    if (ok) {
        s->remap_corr_rows = (unsigned)v[0];
        s->remap_uncorr_rows = (unsigned)v[1];
        s->remap_pending = (unsigned)v[2];
        s->remap_failed = (unsigned)v[3];
        nvml_put(t, rd_mask(rd), NVML_SUCCESS, rd->what);
        return;
    }
    nvmlReturn_t r = t->f->remapped_rows(t->d->handle, &s->remap_corr_rows, &s->remap_uncorr_rows,
                                         &s->remap_pending, &s->remap_failed);

    nvml_put(t, rd_mask(rd), r, rd->what);
}

static void nvml_read_mig(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned cur = 0, pend = 0;

    if (nvml_put(t, rd_mask(rd), t->f->mig_mode(t->d->handle, &cur, &pend), rd->what)) {
        t->s->mig_mode_current = cur;
        t->s->mig_mode_pending = pend;
        t->d->mig_on = cur == NVML_DEVICE_MIG_ENABLE;
    }
}

/* ---- query fidelity (9a): the rest of what nvidia-smi prints ------------------ */

static void nvml_read_enc_stats(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned n = 0, fps = 0, lat = 0;

    if (nvml_put(t, rd_mask(rd), t->f->encoder_stats(t->d->handle, &n, &fps, &lat), rd->what)) {
        t->s->enc_sessions = n;
        t->s->enc_avg_fps = fps;
        t->s->enc_avg_latency_us = lat;
    }
}

static void nvml_read_margin(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlMarginTemperature_v1_t m = { nvmlMarginTemperature_v1, 0 };

    if (nvml_put(t, rd_mask(rd), t->f->margin_temp(t->d->handle, &m), rd->what))
        t->s->temp_tlimit_c = m.marginTemperature;
}

/* Errors per memory location: up to 2 x 2 x 8 calls, but a location that
 * answers NOT_SUPPORTED once (most of them, on most boards) is not asked again. */
static void nvml_read_ecc_detail(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t first = NVML_ERROR_NOT_SUPPORTED;
    uint32_t ok = 0;

    for (unsigned k = 0; k < 4 * GS_ECC_LOCS && !atomic_load(&t->d->lost); k++) {
        unsigned type = k / (2 * GS_ECC_LOCS), counter = (k / GS_ECC_LOCS) % 2, loc = k % GS_ECC_LOCS;
        unsigned long long v = 0;
        if (t->d->ecc_loc_unsup & (UINT32_C(1) << k))
            continue;
        nvmlReturn_t r = t->f->ecc_counter(t->d->handle, (nvmlMemoryErrorType_t)type,
                                           (nvmlEccCounterType_t)counter, (nvmlMemoryLocation_t)loc, &v);
        if (r == NVML_SUCCESS) {
            t->s->ecc_loc[type][counter][loc] = v;
            ok |= UINT32_C(1) << k;
            first = NVML_SUCCESS;
        } else if (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_INVALID_ARGUMENT) {
            t->d->ecc_loc_unsup |= UINT32_C(1) << k;
        } else if (first == NVML_ERROR_NOT_SUPPORTED) {
            first = r; /* an error that is not "no such location" speaks for the field */
        }
    }
    t->s->ecc_loc_ok = ok;
    nvml_put(t, rd_mask(rd), first, rd->what);
}

static void nvml_read_sram_ecc(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlEccSramErrorStatus_v1_t e;
    struct gs_sample *s = t->s;

    memset(&e, 0, sizeof(e));
    e.version = nvmlEccSramErrorStatus_v1;
    if (!nvml_put(t, rd_mask(rd), t->f->sram_ecc(t->d->handle, &e), rd->what))
        return;
    s->sram_vol_parity = e.volatileUncParity;
    s->sram_vol_secded = e.volatileUncSecDed;
    s->sram_agg_parity = e.aggregateUncParity;
    s->sram_agg_secded = e.aggregateUncSecDed;
    s->sram_l2 = e.aggregateUncBucketL2;
    s->sram_sm = e.aggregateUncBucketSm;
    s->sram_mcu = e.aggregateUncBucketMcu;
    s->sram_pcie = e.aggregateUncBucketPcie;
    s->sram_other = e.aggregateUncBucketOther;
    s->sram_threshold_exceeded = e.bThresholdExceeded != 0;
}

static void nvml_read_remap_hist(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlRowRemapperHistogramValues_t h;

    memset(&h, 0, sizeof(h));
    if (nvml_put(t, rd_mask(rd), t->f->remap_histogram(t->d->handle, &h), rd->what)) {
        t->s->remap_hist[0] = h.max;
        t->s->remap_hist[1] = h.high;
        t->s->remap_hist[2] = h.partial;
        t->s->remap_hist[3] = h.low;
        t->s->remap_hist[4] = h.none;
    }
}

static void nvml_read_prot_mem(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlMemory_t m;

    memset(&m, 0, sizeof(m));
    if (nvml_put(t, rd_mask(rd), t->f->prot_mem(t->d->handle, &m), rd->what)) {
        t->s->prot_mem_total_bytes = m.total;
        t->s->prot_mem_used_bytes = m.used;
        t->s->prot_mem_free_bytes = m.free;
    }
}

/* Applications clocks, current or default (rd->fn): graphics and memory. */
static void nvml_read_app_clocks(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetClockById_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned gr = 0, mem = 0;
    nvmlReturn_t r;

    memcpy(&fn, &p, sizeof(fn));
    r = fn(t->d->handle, NVML_CLOCK_GRAPHICS, &gr);
    if (r == NVML_SUCCESS)
        r = fn(t->d->handle, NVML_CLOCK_MEM, &mem);
    if (nvml_put(t, rd_mask(rd), r, rd->what)) {
        memcpy((char *)t->s + rd->dst, &gr, sizeof(gr));
        memcpy((char *)t->s + rd->dst + sizeof(uint32_t), &mem, sizeof(mem));
    }
}

static void nvml_read_fabric(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlGpuFabricInfo_v3_t fi;
    struct gs_sample *s = t->s;

    memset(&fi, 0, sizeof(fi));
    fi.version = nvmlGpuFabricInfo_v3;
    nvmlReturn_t r = t->f->fabric_info(t->d->handle, &fi);
    if (r == NVML_SUCCESS && fi.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED)
        r = NVML_ERROR_NOT_SUPPORTED;
    if (!nvml_put(t, rd_mask(rd), r, rd->what))
        return;
    s->fabric_state = fi.state;
    s->fabric_status = (int32_t)fi.status;
    s->fabric_clique = fi.cliqueId;
    memcpy(s->fabric_cluster_uuid, fi.clusterUuid, sizeof(s->fabric_cluster_uuid));
    s->fabric_health_mask = fi.healthMask;
    s->fabric_health_summary = fi.healthSummary;
}

/* ---- the table ----------------------------------------------------------------- */
static const struct nvml_reader nvml_readers[] = {
    { FL(GS_F_MEM_TOTAL, GS_F_MEM_USED, GS_F_MEM_FREE, GS_F_MEM_RESERVED),
      FN(memory_v2), FN(memory), 0, 0, nvml_read_memory, "memory info" },
    { FL(GS_F_BAR1_TOTAL, GS_F_BAR1_USED, GS_F_BAR1_FREE), FN(bar1), NO_FN, 0, 0,
      nvml_read_bar1, "BAR1 memory" },
    { FL(GS_F_GPU_UTIL, GS_F_MEM_UTIL), FN(utilization), NO_FN, 0, 0, nvml_read_util,
      "utilization" },
    { FL(GS_F_ENC_UTIL), FN(encoder_util), NO_FN, DST(enc_util_pct), 0, nvml_read_codec,
      "encoder utilization" },
    { FL(GS_F_DEC_UTIL), FN(decoder_util), NO_FN, DST(dec_util_pct), 0, nvml_read_codec,
      "decoder utilization" },
    { FL(GS_F_TEMP_GPU), FN(temperature_v), FN(temperature), 0, 0, nvml_read_temp, "temperature" },
    /* memory temperature, energy, violation counters, NVLink errors, power average/instant,
     * recovery action, EDPp, reset status, PCIe rollovers and atomics, memory power: the field-value fields, in one nvmlDeviceGetFieldValues call */
    { FL(GS_F_TEMP_MEM, GS_F_ENERGY, GS_F_VIOL_POWER, GS_F_VIOL_THERMAL, GS_F_VIOL_SYNC_BOOST, GS_F_VIOL_BOARD_LIMIT,
         GS_F_VIOL_LOW_UTIL, GS_F_VIOL_RELIABILITY, GS_F_VIOL_HW_THERMAL, GS_F_VIOL_HW_POWER_BRAKE,
         GS_F_NVLINK_ERRORS, GS_F_POWER_AVG, GS_F_POWER_INSTANT, GS_F_RECOVERY, GS_F_EDPP, GS_F_RESET_STATUS,
         GS_F_PCIE_ROLLOVER, GS_F_PCIE_ATOMICS_OUT, GS_F_PCIE_ATOMICS_IN, GS_F_POWER_MEM_AVG),
      FN(field_values), FN(energy), 0, 0, nvml_read_fv_fast, "field values" },
    { FL(GS_F_FAN_SPEED), FN(fan_speed_v2), FN(fan_speed), 0, 0, nvml_read_fans, "fan speed" },
    { FL(GS_F_POWER), FN(power_usage), NO_FN, DST(power_mw), 0, nvml_read_uint, "power usage" },
    { FL(GS_F_POWER_LIMIT), FN(power_limit), NO_FN, DST(power_limit_mw), 0, nvml_read_uint,
      "power limit" },
    { FL(GS_F_POWER_ENFORCED), FN(power_enforced), NO_FN, DST(power_enforced_limit_mw), 0,
      nvml_read_uint, "enforced power limit" },
    /* P-state and reasons before the clocks: the memory clock is held while they stay */
    { FL(GS_F_PSTATE), FN(pstate), NO_FN, 0, 0, nvml_read_pstate, "performance state" },
    { FL(GS_F_THROTTLE), FN(current_reasons), NO_FN, DST(throttle_reasons), 0, nvml_read_ull,
      "clock event reasons" },
    { FL(GS_F_CLOCK_GRAPHICS), FN(clock), NO_FN, DST(clock_graphics_mhz), NVML_CLOCK_GRAPHICS,
      nvml_read_clock, "graphics clock" },
    { FL(GS_F_CLOCK_SM), FN(clock), NO_FN, DST(clock_sm_mhz), NVML_CLOCK_SM, nvml_read_clock,
      "SM clock" },
    { FL(GS_F_CLOCK_MEM), FN(clock), NO_FN, DST(clock_mem_mhz), NVML_CLOCK_MEM, nvml_read_clock,
      "memory clock" },
    { FL(GS_F_CLOCK_VIDEO), FN(clock), NO_FN, DST(clock_video_mhz), NVML_CLOCK_VIDEO,
      nvml_read_clock, "video clock" },
    { FL(GS_F_PCIE_GEN), FN(pcie_gen), NO_FN, DST(pcie_gen), 0, nvml_read_uint, "PCIe generation" },
    { FL(GS_F_PCIE_WIDTH), FN(pcie_width), NO_FN, DST(pcie_width), 0, nvml_read_uint, "PCIe width" },
    { FL(GS_F_PCIE_TX), FN(pcie_throughput), NO_FN, DST(pcie_tx_kbps), NVML_PCIE_UTIL_TX_BYTES,
      nvml_read_pcie_rate, "PCIe TX throughput" },
    { FL(GS_F_PCIE_RX), FN(pcie_throughput), NO_FN, DST(pcie_rx_kbps), NVML_PCIE_UTIL_RX_BYTES,
      nvml_read_pcie_rate, "PCIe RX throughput" },
    { FL(GS_F_PCIE_REPLAY), FN(pcie_replay), NO_FN, DST(pcie_replay_count), 0, nvml_read_replay,
      "PCIe replay counter" },
    { FL(GS_F_ECC_MODE), FN(ecc_mode), NO_FN, 0, 0, nvml_read_ecc_mode, "ECC mode" },
    { FL(GS_F_ECC_VOL_CORR), FN(ecc_errors), NO_FN, DST(ecc_vol_corrected),
      NVML_MEMORY_ERROR_TYPE_CORRECTED | NVML_VOLATILE_ECC << 1, nvml_read_ecc_count, "ECC errors" },
    { FL(GS_F_ECC_VOL_UNCORR), FN(ecc_errors), NO_FN, DST(ecc_vol_uncorrected),
      NVML_MEMORY_ERROR_TYPE_UNCORRECTED | NVML_VOLATILE_ECC << 1, nvml_read_ecc_count,
      "ECC errors" },
    { FL(GS_F_ECC_AGG_CORR), FN(ecc_errors), NO_FN, DST(ecc_agg_corrected),
      NVML_MEMORY_ERROR_TYPE_CORRECTED | NVML_AGGREGATE_ECC << 1, nvml_read_ecc_count,
      "ECC errors" },
    { FL(GS_F_ECC_AGG_UNCORR), FN(ecc_errors), NO_FN, DST(ecc_agg_uncorrected),
      NVML_MEMORY_ERROR_TYPE_UNCORRECTED | NVML_AGGREGATE_ECC << 1, nvml_read_ecc_count,
      "ECC errors" },
    { FL(GS_F_RETIRED_SBE), FN(retired_pages), NO_FN, DST(retired_sbe_pages),
      NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, nvml_read_retired,
      "retired pages" },
    { FL(GS_F_RETIRED_DBE), FN(retired_pages), NO_FN, DST(retired_dbe_pages),
      NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, nvml_read_retired, "retired pages" },
    { FL(GS_F_RETIRED_PENDING), FN(retired_pending), NO_FN, DST(retired_pending), 0,
      nvml_read_retired_pending, "retired pages pending" },
    { FL(GS_F_REMAP_CORR, GS_F_REMAP_UNCORR, GS_F_REMAP_PENDING, GS_F_REMAP_FAILED),
      FN(remapped_rows), NO_FN, 0, 0, nvml_read_remap, "remapped rows" },
    { FL(GS_F_PERSISTENCE), FN(persistence), NO_FN, DST(persistence_mode), 0, nvml_read_enable,
      "persistence mode" },
    { FL(GS_F_COMPUTE_MODE), FN(compute_mode), NO_FN, DST(compute_mode), 0, nvml_read_uint,
      "compute mode" },
    { FL(GS_F_MIG_MODE), FN(mig_mode), NO_FN, 0, 0, nvml_read_mig, "MIG mode" },
    { FL(GS_F_DISPLAY_ACTIVE), FN(display_active), NO_FN, DST(display_active), 0,
      nvml_read_enable, "display active" },
    { FL(GS_F_DISPLAY_MODE), FN(display_mode), NO_FN, DST(display_mode), 0, nvml_read_enable,
      "display mode" },
    /* throttle time, NVLink and health counters */
    { FL(GS_F_NVLINK_STATE), FN(nvlink_state), NO_FN, 0, 0, nvml_read_nvlink, "NVLink state" },
    /* query fidelity (9a) */
    { FL(GS_F_JPG_UTIL), FN(jpg_util), NO_FN, DST(jpg_util_pct), 0, nvml_read_codec, "JPEG utilization" },
    { FL(GS_F_OFA_UTIL), FN(ofa_util), NO_FN, DST(ofa_util_pct), 0, nvml_read_codec, "OFA utilization" },
    { FL(GS_F_ENC_STATS), FN(encoder_stats), NO_FN, 0, 0, nvml_read_enc_stats, "encoder stats" },
    { FL(GS_F_TEMP_TLIMIT), FN(margin_temp), NO_FN, 0, 0, nvml_read_margin, "margin temperature" },
    { FL(GS_F_ECC_DETAIL), FN(ecc_counter), NO_FN, 0, 0, nvml_read_ecc_detail, "ECC errors by location" },
    { FL(GS_F_SRAM_ECC), FN(sram_ecc), NO_FN, 0, 0, nvml_read_sram_ecc, "SRAM ECC error status" },
    { FL(GS_F_REMAP_HIST), FN(remap_histogram), NO_FN, 0, 0, nvml_read_remap_hist,
      "row remapper histogram" },
    { FL(GS_F_ACCOUNTING), FN(accounting_mode), NO_FN, DST(accounting_mode), 0, nvml_read_enable,
      "accounting mode" },
    { FL(GS_F_PROT_MEM), FN(prot_mem), NO_FN, 0, 0, nvml_read_prot_mem, "protected memory" },
    { FL(GS_F_APP_CLOCKS), FN(app_clock), NO_FN, DST(app_clock_graphics_mhz), 0, nvml_read_app_clocks,
      "applications clocks" },
    { FL(GS_F_DEF_APP_CLOCKS), FN(def_app_clock), NO_FN, DST(def_app_clock_graphics_mhz), 0,
      nvml_read_app_clocks, "default applications clocks" },
    { FL(GS_F_POWER_MGMT), FN(power_mgmt_mode), NO_FN, DST(power_mgmt), 0, nvml_read_enable,
      "power management mode" },
    { FL(GS_F_FABRIC), FN(fabric_info), NO_FN, 0, 0, nvml_read_fabric, "fabric info" },
};

/* The read schedule: the readers of slow-changing values, by the first field
 * of their entry above, with the members of struct gs_sample they write.
 * A reader not listed here is called every tick. */
static const struct nvml_span nvml_every[GS_F_COUNT] = {
    [GS_F_BAR1_TOTAL] = EVERY_PERIOD(bar1_total_bytes, bar1_free_bytes),
    [GS_F_POWER_LIMIT] = EVERY_PERIOD(power_limit_mw, power_limit_mw),
    [GS_F_POWER_ENFORCED] = EVERY_PERIOD(power_enforced_limit_mw, power_enforced_limit_mw),
    [GS_F_PCIE_GEN] = EVERY_PERIOD(pcie_gen, pcie_gen),
    [GS_F_PCIE_WIDTH] = EVERY_PERIOD(pcie_width, pcie_width),
    [GS_F_PCIE_REPLAY] = EVERY_PERIOD(pcie_replay_count, pcie_replay_count),
    [GS_F_ECC_MODE] = EVERY_PERIOD(ecc_mode_current, ecc_mode_pending),
    [GS_F_ECC_VOL_CORR] = EVERY_PERIOD(ecc_vol_corrected, ecc_vol_corrected),
    [GS_F_ECC_VOL_UNCORR] = EVERY_PERIOD(ecc_vol_uncorrected, ecc_vol_uncorrected),
    [GS_F_ECC_AGG_CORR] = EVERY_PERIOD(ecc_agg_corrected, ecc_agg_corrected),
    [GS_F_ECC_AGG_UNCORR] = EVERY_PERIOD(ecc_agg_uncorrected, ecc_agg_uncorrected),
    [GS_F_RETIRED_SBE] = EVERY_PERIOD(retired_sbe_pages, retired_sbe_pages),
    [GS_F_RETIRED_DBE] = EVERY_PERIOD(retired_dbe_pages, retired_dbe_pages),
    [GS_F_RETIRED_PENDING] = EVERY_PERIOD(retired_pending, retired_pending),
    [GS_F_REMAP_CORR] = EVERY_PERIOD(remap_corr_rows, remap_failed),
    /* modes an operator sets: every 6 periods (30 s), at once after an Xid */
    [GS_F_PERSISTENCE] = EVERY_PERIODS(persistence_mode, persistence_mode, 6),
    [GS_F_COMPUTE_MODE] = EVERY_PERIODS(compute_mode, compute_mode, 6),
    [GS_F_MIG_MODE] = EVERY_PERIODS(mig_mode_current, mig_mode_pending, 6),
    [GS_F_DISPLAY_ACTIVE] = EVERY_PERIODS(display_active, display_active, 6),
    [GS_F_DISPLAY_MODE] = EVERY_PERIODS(display_mode, display_mode, 6),
    /* one call per link (18 on an H100): every 6 periods (30 s), and at once after an Xid */
    [GS_F_NVLINK_STATE] = EVERY_PERIODS(nvlink_count, nvlink_down_mask, 6),
    /* The video engines change with load only: while idle (0) once a period, busy every tick. */
    [GS_F_ENC_UTIL] = HELD_WHILE(enc_util_pct, NVML_HOLD_WHILE_ZERO),
    [GS_F_DEC_UTIL] = HELD_WHILE(dec_util_pct, NVML_HOLD_WHILE_ZERO),
    /* The memory clock is set by the P-state (and cut by the slowdowns the reasons name);
     * locked or offset memory clocks are operator changes, seen within a period. */
    [GS_F_CLOCK_MEM] = HELD_WHILE(clock_mem_mhz, NVML_HOLD_WHILE_PSTATE),
};

#define NREADERS (sizeof(nvml_readers) / sizeof(nvml_readers[0]))

struct gs_fmask gs_nvml_missing_fields(const struct nvml_fns *f)
{
    struct gs_fmask missing = gs_nvml_mig_gpm_missing(f); /* read outside the table */

    for (size_t i = 0; i < NREADERS; i++) {
        const struct nvml_reader *rd = &nvml_readers[i];
        if (!nvml_fn(f, rd->fn) && !nvml_fn(f, rd->fn_alt))
            missing = gs_fmask_or(missing, rd_mask(rd));
    }
    return missing;
}

/* Every wanted field of an unreadable or lost GPU gets the same status. */
static void nvml_mark_all(struct gs_sample *s, struct gs_fmask fields, enum gs_status st)
{
    GS_FMASK_FOREACH(f, fields)
        gs_sample_mark(s, (enum gs_field)f, st);
}

static void nvml_sample_start(struct gs_gpu *g, struct gs_fmask want)
{
    struct gs_sample *s = &g->s;

    s->valid = GS_FMASK_NONE;
    for (int i = 0; i < GS_F_COUNT; i++)
        s->status[i] = gs_fmask_has(want, (unsigned)i) ? GS_ST_NOT_SUPPORTED : GS_ST_NOT_SAMPLED;
    memset(s->age_ms, 0, sizeof(s->age_ms));
    s->timestamp_ns = gs_clock_mono_ns();
    g->last_error[0] = '\0';
    g->nmig = 0; /* MIG devices: nvml_mig.c fills them when read */
}

/* ---- the read schedule (see the top of this file) ------------------------------- */

uint64_t gs_nvml_sched_period_ns(void)
{
    const char *v = getenv("GPUSCOPE_READ_PERIOD_MS");
    char *end;
    unsigned long ms;

    if (!v || !*v)
        return GS_NVML_SCHED_PERIOD_MS * UINT64_C(1000000);
    ms = strtoul(v, &end, 10);
    if (*end || ms > 3600000ul)
        return GS_NVML_SCHED_PERIOD_MS * UINT64_C(1000000);
    return ms * UINT64_C(1000000);
}

void gs_nvml_sched_event(struct nvml_device *d, unsigned long long event_type)
{
    static const uint8_t ecc[] = { GS_F_ECC_VOL_CORR, GS_F_ECC_VOL_UNCORR, GS_F_ECC_AGG_CORR,
                                   GS_F_ECC_AGG_UNCORR, GS_F_RETIRED_SBE, GS_F_RETIRED_DBE,
                                   GS_F_RETIRED_PENDING, GS_F_REMAP_CORR, GS_F_REMAP_UNCORR,
                                   GS_F_REMAP_PENDING, GS_F_REMAP_FAILED };

    if (event_type & NVML_EVENT_TYPE_XID_CRITICAL) {
        d->sched_due_ns = 0; /* an Xid may follow anything: everything at the next tick, */
        d->sched_force = gs_fmask_all(); /* NVLink state (read every few periods) too */
        return;
    }
    for (size_t i = 0; i < sizeof(ecc); i++)
        gs_fmask_set(&d->sched_force, ecc[i]);
}

/* One tick's view of the schedule, set up at the first slow-changing reader
 * (so that the PCIe worker thread, which asks for none, never touches it). */
struct nvml_sched {
    bool started, due;
    uint64_t now_ns;
    struct gs_fmask force;
};

static void nvml_sched_start(struct nvml_tick *t, struct nvml_sched *sc)
{
    uint64_t period = t->d->ctx->sched_period_ns;

    sc->started = true;
    sc->now_ns = t->s->timestamp_ns;
    sc->due = !period || sc->now_ns >= t->d->sched_due_ns;
    sc->force = gs_fmask_or(t->d->sched_force, t->d->ctx->sched_every_tick);
}

static void nvml_sched_end(struct nvml_tick *t, const struct nvml_sched *sc)
{
    if (!sc->started)
        return;
    if (sc->due)
        t->d->sched_due_ns = sc->now_ns + t->d->ctx->sched_period_ns;
    t->d->sched_force = GS_FMASK_NONE;
}

/* Whether a conditionally held reading (enum nvml_hold) may be held in this tick. */
static bool nvml_hold_ok(const struct nvml_tick *t, const struct nvml_span *every)
{
    const struct nvml_device *d = t->d;
    const struct gs_sample *s = t->s;
    uint32_t v;

    switch ((enum nvml_hold)every->hold) {
    case NVML_HOLD_ALWAYS:
        return true;
    case NVML_HOLD_WHILE_ZERO:
        memcpy(&v, (const char *)&d->sched_cache + every->off, sizeof(v));
        return v == 0;
    case NVML_HOLD_WHILE_PSTATE:
        return s->status[GS_F_PSTATE] == GS_ST_OK && s->status[GS_F_THROTTLE] == GS_ST_OK &&
               d->hold_pstate_st == GS_ST_OK && d->hold_reasons_st == GS_ST_OK &&
               s->pstate == d->hold_pstate && s->throttle_reasons == d->hold_reasons;
    }
    return false;
}

/* Hand on a slow-changing reader's last values (fields = its wanted fields)
 * when they are not due; true when it did, so the reader is not called. */
static bool nvml_sched_reuse(struct nvml_tick *t, const struct nvml_span *every,
                             struct gs_fmask fields, struct nvml_sched *sc)
{
    struct nvml_device *d = t->d;

    if (!sc->started)
        nvml_sched_start(t, sc);
    if (gs_fmask_any(gs_fmask_and(fields, sc->force)))
        return false;
    GS_FMASK_FOREACH(f, fields)
        if (!d->sched_read_ns[f])
            return false;
    if (!nvml_hold_ok(t, every))
        return false;
    if (sc->due) {
        /* due every period; a reader of several periods when its oldest value is that old
         * (one period of slack: the due ticks come at the period, not before) */
        uint64_t keep = every->periods > 1 ? (every->periods - 1u) * d->ctx->sched_period_ns : 0;
        GS_FMASK_FOREACH(f, fields)
            if (sc->now_ns - d->sched_read_ns[f] >= keep)
                return false;
    }
    memcpy((char *)t->s + every->off, (const char *)&d->sched_cache + every->off, every->len);
    GS_FMASK_FOREACH(f, fields) {
        uint64_t age = sc->now_ns > d->sched_read_ns[f] ? sc->now_ns - d->sched_read_ns[f] : 0;
        gs_sample_mark(t->s, (enum gs_field)f, (enum gs_status)d->sched_cache.status[f]);
        t->s->age_ms[f] = (uint32_t)(age / 1000000u);
    }
    return true;
}

/* Keep what a slow-changing reader just read (failed reads are retried next tick). */
static void nvml_sched_keep(struct nvml_tick *t, const struct nvml_span *every,
                            struct gs_fmask fields, const struct nvml_sched *sc)
{
    struct nvml_device *d = t->d;

    memcpy((char *)&d->sched_cache + every->off, (const char *)t->s + every->off, every->len);
    if (every->hold == NVML_HOLD_WHILE_PSTATE) {
        d->hold_pstate = t->s->pstate;
        d->hold_pstate_st = t->s->status[GS_F_PSTATE];
        d->hold_reasons = t->s->throttle_reasons;
        d->hold_reasons_st = t->s->status[GS_F_THROTTLE];
    }
    GS_FMASK_FOREACH(f, fields) {
        uint8_t st = t->s->status[f];
        d->sched_cache.status[f] = st;
        d->sched_read_ns[f] = st == GS_ST_OK || st == GS_ST_NOT_AVAILABLE ? sc->now_ns : 0;
    }
}

int gs_nvml_sample(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g)
{
    struct nvml_device *d = nvml_dev(b);
    const struct gs_fmask all = gs_fmask_all();
    struct nvml_sched sc = { false, false, 0, GS_FMASK_NONE };

    want = gs_fmask_and(want, all); /* literal: empty reads nothing but still reports the GPU's state */
    struct nvml_tick t = { .d = d, .f = &d->ctx->lib.f, .g = g, .s = &g->s, .want = want };
    nvml_sample_start(g, want);
    /* a deprecated call stays deprecated: say so without asking again */
    GS_FMASK_FOREACH(f, gs_fmask_and(want, gs_nvml_deprecated(d)))
        gs_sample_mark(&g->s, (enum gs_field)f, GS_ST_DEPRECATED);
    if (d->open_rc != NVML_SUCCESS && !atomic_load(&d->lost)) {
        nvml_put(&t, want, d->open_rc, "open");
        gs_nvml_gpu_state(d, g);
        return d->open_rc == NVML_ERROR_NO_PERMISSION ? -GS_E_PERMISSION : -GS_E_BACKEND;
    }
    struct gs_fmask unsup = gs_nvml_unsup(d);
    for (size_t i = 0; i < NREADERS && !atomic_load(&d->lost); i++) {
        const struct nvml_reader *rd = &nvml_readers[i];
        struct gs_fmask m = rd_mask(rd), fields = gs_fmask_and(want, m);
        if (!gs_fmask_any(fields) || gs_fmask_eq(gs_fmask_and(unsup, m), m))
            continue; /* status already says "not sampled" or "not supported" */
        const struct nvml_span *every = &nvml_every[rd->fields[0]];
        if (every->len && nvml_sched_reuse(&t, every, fields, &sc))
            continue;
        rd->read(&t, rd);
        if (every->len)
            nvml_sched_keep(&t, every, fields, &sc);
    }
    nvml_sched_end(&t, &sc);
    /* MIG devices, then profiling metrics (per GPU instance too): nvml_mig.c, nvml_gpm.c */
    if (gs_fmask_has(want, GS_F_MIG_DEVICES) && !gs_fmask_has(unsup, GS_F_MIG_DEVICES) && !atomic_load(&d->lost))
        gs_nvml_mig_read(d, g, &t.error);
    if (!atomic_load(&d->lost))
        gs_nvml_gpm_read(d, g, want, &t.error);
    /* A call may fill fields nobody asked for (one call, several fields). */
    nvml_mark_all(&g->s, gs_fmask_minus(all, want), GS_ST_NOT_SAMPLED);
    /* Xid counts come from the event set (the sampler fills the values). */
    if (gs_fmask_has(want, GS_F_XID))
        gs_sample_mark(&g->s, GS_F_XID, d->events_on ? GS_ST_OK : GS_ST_NOT_SUPPORTED);
    gs_nvml_gpu_state(d, g);
    if (atomic_load(&d->lost)) {
        nvml_mark_all(&g->s, want, GS_ST_GPU_LOST);
        return -GS_E_GPU_LOST;
    }
    return t.error ? -GS_E_BACKEND : 0;
}
