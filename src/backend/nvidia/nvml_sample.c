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
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend/nvidia/nvml_priv.h"

#define F(x) (UINT64_C(1) << (x))
#define NO_FN SIZE_MAX
#define FN(field) offsetof(struct nvml_fns, field)
#define DST(field) offsetof(struct gs_sample, field)

struct nvml_tick {
    struct nvml_device *d;
    const struct nvml_fns *f;
    struct gs_gpu *g;
    struct gs_sample *s;
    bool error;             /* some field got GS_ST_ERROR */
};

struct nvml_reader {
    uint64_t fields;        /* GS_F_* bits it fills */
    size_t fn, fn_alt;      /* offsets in struct nvml_fns; usable if either is bound */
    size_t dst;             /* generic readers: offset of the value in struct gs_sample */
    unsigned arg;           /* clock type, counter, cause ... */
    void (*read)(struct nvml_tick *t, const struct nvml_reader *rd);
    const char *what;       /* for error messages */
};

static void *nvml_fn(const struct nvml_fns *f, size_t off)
{
    void *p = NULL;

    if (off != NO_FN)
        memcpy(&p, (const char *)f + off, sizeof(p));
    return p;
}

/* Mark the fields of one call with the result r; true when they hold values. */
static bool nvml_put(struct nvml_tick *t, uint64_t fields, nvmlReturn_t r, const char *what)
{
    enum gs_status st = gs_nvml_status(t->d, t->g, r, fields, what);

    for (uint64_t m = fields; m; m &= m - 1)
        gs_sample_mark(t->s, (enum gs_field)__builtin_ctzll(m), st);
    if (st == GS_ST_ERROR)
        t->error = true;
    return st == GS_ST_OK;
}

static void nvml_put_u32(struct nvml_tick *t, const struct nvml_reader *rd, unsigned v)
{
    memcpy((char *)t->s + rd->dst, &v, sizeof(v));
}

/* ---- generic readers for the common signatures ------------------------------- */
static void nvml_read_uint(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetUInt_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned v = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd->fields, fn(t->d->handle, &v), rd->what))
        nvml_put_u32(t, rd, v);
}

static void nvml_read_enable(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetEnable_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    nvmlEnableState_t v = NVML_FEATURE_DISABLED;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd->fields, fn(t->d->handle, &v), rd->what))
        nvml_put_u32(t, rd, v == NVML_FEATURE_ENABLED);
}

static void nvml_read_ull(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlDeviceGetULL_fn fn;
    void *p = nvml_fn(t->f, rd->fn);
    unsigned long long v = 0;

    memcpy(&fn, &p, sizeof(fn));
    if (nvml_put(t, rd->fields, fn(t->d->handle, &v), rd->what)) {
        uint64_t v64 = v;
        memcpy((char *)t->s + rd->dst, &v64, sizeof(v64));
    }
}

static void nvml_read_clock(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned v = 0;

    if (nvml_put(t, rd->fields, t->f->clock(t->d->handle, (nvmlClockType_t)rd->arg, &v), rd->what))
        nvml_put_u32(t, rd, v);
}

static void nvml_read_pcie_rate(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned v = 0;
    nvmlReturn_t r = t->f->pcie_throughput(t->d->handle, (nvmlPcieUtilCounter_t)rd->arg, &v);

    if (nvml_put(t, rd->fields, r, rd->what)) {
        nvml_put_u32(t, rd, v);
        t->s->pcie_rate_age_ns = 0;
    }
}

static void nvml_read_ecc_count(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned long long v = 0;
    nvmlReturn_t r = t->f->ecc_errors(t->d->handle, (nvmlMemoryErrorType_t)(rd->arg & 1),
                                      (nvmlEccCounterType_t)(rd->arg >> 1), &v);

    if (nvml_put(t, rd->fields, r, rd->what)) {
        uint64_t v64 = v;
        memcpy((char *)t->s + rd->dst, &v64, sizeof(v64));
    }
}

/* Retired pages: a count query (*count = 0) answers with the number of pages. */
static void nvml_read_retired(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned count = 0;
    nvmlReturn_t r = t->f->retired_pages(t->d->handle, (nvmlPageRetirementCause_t)rd->arg, &count,
                                         NULL);

    if (r == NVML_ERROR_INSUFFICIENT_SIZE)
        r = NVML_SUCCESS;
    if (nvml_put(t, rd->fields, r, rd->what))
        nvml_put_u32(t, rd, count);
}

/* ---- readers with their own shapes or fallbacks ------------------------------ */
static void nvml_read_memory_v1(struct nvml_tick *t)
{
    nvmlMemory_t m;
    const uint64_t fields = F(GS_F_MEM_TOTAL) | F(GS_F_MEM_USED) | F(GS_F_MEM_FREE);

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
    if (nvml_put(t, rd->fields, r, rd->what)) {
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
    if (nvml_put(t, rd->fields, t->f->bar1(t->d->handle, &b), rd->what)) {
        t->s->bar1_total_bytes = b.bar1Total;
        t->s->bar1_used_bytes = b.bar1Used;
        t->s->bar1_free_bytes = b.bar1Free;
    }
}

static void nvml_read_util(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlUtilization_t u = { 0, 0 };

    if (nvml_put(t, rd->fields, t->f->utilization(t->d->handle, &u), rd->what)) {
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
    if (nvml_put(t, rd->fields, fn(t->d->handle, &v, &period_us), rd->what))
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
            nvml_put(t, rd->fields, r, rd->what);
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
    nvml_put(t, rd->fields, r, rd->what);
}

/* Memory (HBM) temperature: field value 82, the only way NVML gives it. */
static void nvml_read_temp_mem(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlFieldValue_t fv;
    nvmlReturn_t r;

    memset(&fv, 0, sizeof(fv));
    fv.fieldId = NVML_FI_DEV_MEMORY_TEMP;
    r = t->f->field_values(t->d->handle, 1, &fv);
    if (r == NVML_SUCCESS)
        r = fv.nvmlReturn;
    if (!nvml_put(t, rd->fields, r, rd->what))
        return;
    switch (fv.valueType) {
    case NVML_VALUE_TYPE_SIGNED_INT:
        t->s->temp_mem_c = fv.value.siVal;
        break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        t->s->temp_mem_c = (int32_t)fv.value.sllVal;
        break;
    case NVML_VALUE_TYPE_DOUBLE:
        t->s->temp_mem_c = (int32_t)fv.value.dVal;
        break;
    default:
        t->s->temp_mem_c = (int32_t)fv.value.uiVal;
        break;
    }
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
    nvml_put(t, rd->fields, r, rd->what);
}

static void nvml_read_pstate(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlPstates_t p = NVML_PSTATE_UNKNOWN;
    nvmlReturn_t r = t->f->pstate(t->d->handle, &p);

    if (r == NVML_SUCCESS && (unsigned)p > 15) {
        gs_sample_mark(t->s, GS_F_PSTATE, GS_ST_NOT_AVAILABLE);
        return;
    }
    if (nvml_put(t, rd->fields, r, rd->what))
        t->s->pstate = (uint32_t)p;
}

static void nvml_read_ecc_mode(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pend = NVML_FEATURE_DISABLED;

    if (nvml_put(t, rd->fields, t->f->ecc_mode(t->d->handle, &cur, &pend), rd->what)) {
        t->s->ecc_mode_current = cur == NVML_FEATURE_ENABLED;
        t->s->ecc_mode_pending = pend == NVML_FEATURE_ENABLED;
    }
}

static void nvml_read_remap(struct nvml_tick *t, const struct nvml_reader *rd)
{
    struct gs_sample *s = t->s;
    nvmlReturn_t r = t->f->remapped_rows(t->d->handle, &s->remap_corr_rows, &s->remap_uncorr_rows,
                                         &s->remap_pending, &s->remap_failed);

    nvml_put(t, rd->fields, r, rd->what);
}

static void nvml_read_mig(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned cur = 0, pend = 0;

    if (nvml_put(t, rd->fields, t->f->mig_mode(t->d->handle, &cur, &pend), rd->what)) {
        t->s->mig_mode_current = cur;
        t->s->mig_mode_pending = pend;
        t->d->mig_on = cur == NVML_DEVICE_MIG_ENABLE;
    }
}

/* ---- the table ----------------------------------------------------------------- */
static const struct nvml_reader nvml_readers[] = {
    { F(GS_F_MEM_TOTAL) | F(GS_F_MEM_USED) | F(GS_F_MEM_FREE) | F(GS_F_MEM_RESERVED),
      FN(memory_v2), FN(memory), 0, 0, nvml_read_memory, "memory info" },
    { F(GS_F_BAR1_TOTAL) | F(GS_F_BAR1_USED) | F(GS_F_BAR1_FREE), FN(bar1), NO_FN, 0, 0,
      nvml_read_bar1, "BAR1 memory" },
    { F(GS_F_GPU_UTIL) | F(GS_F_MEM_UTIL), FN(utilization), NO_FN, 0, 0, nvml_read_util,
      "utilization" },
    { F(GS_F_ENC_UTIL), FN(encoder_util), NO_FN, DST(enc_util_pct), 0, nvml_read_codec,
      "encoder utilization" },
    { F(GS_F_DEC_UTIL), FN(decoder_util), NO_FN, DST(dec_util_pct), 0, nvml_read_codec,
      "decoder utilization" },
    { F(GS_F_TEMP_GPU), FN(temperature_v), FN(temperature), 0, 0, nvml_read_temp, "temperature" },
    { F(GS_F_TEMP_MEM), FN(field_values), NO_FN, 0, 0, nvml_read_temp_mem, "memory temperature" },
    { F(GS_F_FAN_SPEED), FN(fan_speed_v2), FN(fan_speed), 0, 0, nvml_read_fans, "fan speed" },
    { F(GS_F_POWER), FN(power_usage), NO_FN, DST(power_mw), 0, nvml_read_uint, "power usage" },
    { F(GS_F_POWER_LIMIT), FN(power_limit), NO_FN, DST(power_limit_mw), 0, nvml_read_uint,
      "power limit" },
    { F(GS_F_POWER_ENFORCED), FN(power_enforced), NO_FN, DST(power_enforced_limit_mw), 0,
      nvml_read_uint, "enforced power limit" },
    { F(GS_F_ENERGY), FN(energy), NO_FN, DST(energy_mj), 0, nvml_read_ull, "energy" },
    { F(GS_F_CLOCK_GRAPHICS), FN(clock), NO_FN, DST(clock_graphics_mhz), NVML_CLOCK_GRAPHICS,
      nvml_read_clock, "graphics clock" },
    { F(GS_F_CLOCK_SM), FN(clock), NO_FN, DST(clock_sm_mhz), NVML_CLOCK_SM, nvml_read_clock,
      "SM clock" },
    { F(GS_F_CLOCK_MEM), FN(clock), NO_FN, DST(clock_mem_mhz), NVML_CLOCK_MEM, nvml_read_clock,
      "memory clock" },
    { F(GS_F_CLOCK_VIDEO), FN(clock), NO_FN, DST(clock_video_mhz), NVML_CLOCK_VIDEO,
      nvml_read_clock, "video clock" },
    { F(GS_F_PSTATE), FN(pstate), NO_FN, 0, 0, nvml_read_pstate, "performance state" },
    { F(GS_F_THROTTLE), FN(current_reasons), NO_FN, DST(throttle_reasons), 0, nvml_read_ull,
      "clock event reasons" },
    { F(GS_F_PCIE_GEN), FN(pcie_gen), NO_FN, DST(pcie_gen), 0, nvml_read_uint, "PCIe generation" },
    { F(GS_F_PCIE_WIDTH), FN(pcie_width), NO_FN, DST(pcie_width), 0, nvml_read_uint, "PCIe width" },
    { F(GS_F_PCIE_TX), FN(pcie_throughput), NO_FN, DST(pcie_tx_kbps), NVML_PCIE_UTIL_TX_BYTES,
      nvml_read_pcie_rate, "PCIe TX throughput" },
    { F(GS_F_PCIE_RX), FN(pcie_throughput), NO_FN, DST(pcie_rx_kbps), NVML_PCIE_UTIL_RX_BYTES,
      nvml_read_pcie_rate, "PCIe RX throughput" },
    { F(GS_F_PCIE_REPLAY), FN(pcie_replay), NO_FN, DST(pcie_replay_count), 0, nvml_read_uint,
      "PCIe replay counter" },
    { F(GS_F_ECC_MODE), FN(ecc_mode), NO_FN, 0, 0, nvml_read_ecc_mode, "ECC mode" },
    { F(GS_F_ECC_VOL_CORR), FN(ecc_errors), NO_FN, DST(ecc_vol_corrected),
      NVML_MEMORY_ERROR_TYPE_CORRECTED | NVML_VOLATILE_ECC << 1, nvml_read_ecc_count, "ECC errors" },
    { F(GS_F_ECC_VOL_UNCORR), FN(ecc_errors), NO_FN, DST(ecc_vol_uncorrected),
      NVML_MEMORY_ERROR_TYPE_UNCORRECTED | NVML_VOLATILE_ECC << 1, nvml_read_ecc_count,
      "ECC errors" },
    { F(GS_F_ECC_AGG_CORR), FN(ecc_errors), NO_FN, DST(ecc_agg_corrected),
      NVML_MEMORY_ERROR_TYPE_CORRECTED | NVML_AGGREGATE_ECC << 1, nvml_read_ecc_count,
      "ECC errors" },
    { F(GS_F_ECC_AGG_UNCORR), FN(ecc_errors), NO_FN, DST(ecc_agg_uncorrected),
      NVML_MEMORY_ERROR_TYPE_UNCORRECTED | NVML_AGGREGATE_ECC << 1, nvml_read_ecc_count,
      "ECC errors" },
    { F(GS_F_RETIRED_SBE), FN(retired_pages), NO_FN, DST(retired_sbe_pages),
      NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS, nvml_read_retired,
      "retired pages" },
    { F(GS_F_RETIRED_DBE), FN(retired_pages), NO_FN, DST(retired_dbe_pages),
      NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR, nvml_read_retired, "retired pages" },
    { F(GS_F_RETIRED_PENDING), FN(retired_pending), NO_FN, DST(retired_pending), 0,
      nvml_read_enable, "retired pages pending" },
    { F(GS_F_REMAP_CORR) | F(GS_F_REMAP_UNCORR) | F(GS_F_REMAP_PENDING) | F(GS_F_REMAP_FAILED),
      FN(remapped_rows), NO_FN, 0, 0, nvml_read_remap, "remapped rows" },
    { F(GS_F_PERSISTENCE), FN(persistence), NO_FN, DST(persistence_mode), 0, nvml_read_enable,
      "persistence mode" },
    { F(GS_F_COMPUTE_MODE), FN(compute_mode), NO_FN, DST(compute_mode), 0, nvml_read_uint,
      "compute mode" },
    { F(GS_F_MIG_MODE), FN(mig_mode), NO_FN, 0, 0, nvml_read_mig, "MIG mode" },
    { F(GS_F_DISPLAY_ACTIVE), FN(display_active), NO_FN, DST(display_active), 0,
      nvml_read_enable, "display active" },
    { F(GS_F_DISPLAY_MODE), FN(display_mode), NO_FN, DST(display_mode), 0, nvml_read_enable,
      "display mode" },
};

#define NREADERS (sizeof(nvml_readers) / sizeof(nvml_readers[0]))

uint64_t gs_nvml_missing_fields(const struct nvml_fns *f)
{
    uint64_t missing = 0;

    for (size_t i = 0; i < NREADERS; i++) {
        const struct nvml_reader *rd = &nvml_readers[i];
        if (!nvml_fn(f, rd->fn) && !nvml_fn(f, rd->fn_alt))
            missing |= rd->fields;
    }
    return missing;
}

static uint64_t nvml_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Every wanted field of an unreadable or lost GPU gets the same status. */
static void nvml_mark_all(struct gs_sample *s, uint64_t fields, enum gs_status st)
{
    for (uint64_t m = fields; m; m &= m - 1)
        gs_sample_mark(s, (enum gs_field)__builtin_ctzll(m), st);
}

static void nvml_sample_start(struct gs_gpu *g, uint64_t want)
{
    struct gs_sample *s = &g->s;

    s->valid = 0;
    for (int i = 0; i < GS_F_COUNT; i++)
        s->status[i] = (want & F(i)) ? GS_ST_NOT_SUPPORTED : GS_ST_NOT_SAMPLED;
    s->timestamp_ns = nvml_now_ns();
    g->last_error[0] = '\0';
}

int gs_nvml_sample(struct gs_bdev *b, uint64_t want, struct gs_gpu *g)
{
    struct nvml_device *d = nvml_dev(b);
    struct nvml_tick t = { d, &d->ctx->lib.f, g, &g->s, false };
    const uint64_t all = F(GS_F_COUNT) - 1;

    want &= all; /* literal: 0 reads nothing but still reports the GPU's state */
    nvml_sample_start(g, want);
    if (d->open_rc != NVML_SUCCESS && !atomic_load(&d->lost)) {
        nvml_put(&t, want, d->open_rc, "open");
        gs_nvml_gpu_state(d, g);
        return d->open_rc == NVML_ERROR_NO_PERMISSION ? -GS_E_PERMISSION : -GS_E_BACKEND;
    }
    uint64_t unsup = atomic_load(&d->unsup);
    for (size_t i = 0; i < NREADERS && !atomic_load(&d->lost); i++) {
        const struct nvml_reader *rd = &nvml_readers[i];
        if (!(want & rd->fields) || (unsup & rd->fields) == rd->fields)
            continue; /* status already says "not sampled" or "not supported" */
        rd->read(&t, rd);
    }
    /* A call may fill fields nobody asked for (one call, several fields). */
    nvml_mark_all(&g->s, all & ~want, GS_ST_NOT_SAMPLED);
    /* Xid counts come from the event set (the sampler fills the values). */
    if (want & F(GS_F_XID))
        gs_sample_mark(&g->s, GS_F_XID, d->events_on ? GS_ST_OK : GS_ST_NOT_SUPPORTED);
    gs_nvml_gpu_state(d, g);
    if (atomic_load(&d->lost)) {
        nvml_mark_all(&g->s, want, GS_ST_GPU_LOST);
        return -GS_E_GPU_LOST;
    }
    return t.error ? -GS_E_BACKEND : 0;
}
