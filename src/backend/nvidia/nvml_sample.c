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
 * The readers live with what they read (nvml_tick.h lists the files); the read
 * schedule, which hands slow-changing readings on with their age instead of
 * asking again, is nvml_sched.c.
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"
#include "lib/clock.h"

struct gs_fmask nvml_rd_mask(const struct nvml_reader *rd)
{
    struct gs_fmask m = GS_FMASK_NONE;

    for (unsigned i = 0; i < GS_RD_MAXF && rd->fields[i] != GS_F_END; i++)
        gs_fmask_set(&m, rd->fields[i]);
    return m;
}

void *nvml_fn(const struct nvml_fns *f, size_t off)
{
    void *p = NULL;

    if (off != NO_FN)
        memcpy(&p, (const char *)f + off, sizeof(p));
    return p;
}

/* Mark the fields of one call with the result r; true when they hold values. */
bool nvml_put(struct nvml_tick *t, struct gs_fmask fields, nvmlReturn_t r, const char *what)
{
    enum gs_status st = gs_nvml_status(t->d, t->g, r, fields, what);

    GS_FMASK_FOREACH(f, fields)
        gs_sample_mark(t->s, (enum gs_field)f, st);
    if (st == GS_ST_ERROR)
        t->error = true;
    return st == GS_ST_OK;
}

void nvml_put_u32(struct nvml_tick *t, const struct nvml_reader *rd, unsigned v)
{
    memcpy((char *)t->s + rd->dst, &v, sizeof(v));
}

/* A slow counter from this tick's field-values batch; false: read it by its function. */
bool nvml_fvs(struct nvml_tick *t, enum nvml_fvs k, uint64_t *v)
{
    return gs_nvml_fvs_get(t->d, t->f, &t->fvs, gs_fmask_minus(t->want, gs_nvml_unsup(t->d)), k, v);
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
    { FL(GS_F_POWER), FN(power_usage), NO_FN, DST(power_mw), 0, nvml_read_power, "power usage" },
    { FL(GS_F_POWER_LIMIT), FN(power_limit), NO_FN, DST(power_limit_mw), NVML_FVS_PWR_LIMIT, nvml_read_fvs_uint,
      "power limit" },
    { FL(GS_F_POWER_ENFORCED), FN(power_enforced), NO_FN, DST(power_enforced_limit_mw), NVML_FVS_PWR_ENFORCED,
      nvml_read_fvs_uint, "enforced power limit" },
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

#define NREADERS (sizeof(nvml_readers) / sizeof(nvml_readers[0]))

struct gs_fmask gs_nvml_missing_fields(const struct nvml_fns *f)
{
    struct gs_fmask missing = gs_nvml_mig_gpm_missing(f); /* read outside the table */

    for (size_t i = 0; i < NREADERS; i++) {
        const struct nvml_reader *rd = &nvml_readers[i];
        if (!nvml_fn(f, rd->fn) && !nvml_fn(f, rd->fn_alt))
            missing = gs_fmask_or(missing, nvml_rd_mask(rd));
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

/* GPM, with the PCIe metrics where the rates come from there (nvml_pcie.c). */
static void nvml_sample_gpm(struct nvml_tick *t)
{
    struct gs_fmask pcie = gs_fmask_and(t->want, gs_fmask_or(gs_fmask_of(GS_F_PCIE_TX), gs_fmask_of(GS_F_PCIE_RX)));
    struct gs_fmask want = t->want;

    if (t->d->pcie_path != NVML_PCIE_GPM || t->slow_fn || !gs_fmask_any(pcie)) {
        gs_nvml_gpm_read(t->d, t->g, want, &t->error);
        return;
    }
    if (gs_fmask_has(pcie, GS_F_PCIE_TX))
        gs_fmask_set(&want, GS_F_PROF_FIRST + GS_PROF_PCIE_TX);
    if (gs_fmask_has(pcie, GS_F_PCIE_RX))
        gs_fmask_set(&want, GS_F_PROF_FIRST + GS_PROF_PCIE_RX);
    gs_nvml_gpm_read(t->d, t->g, want, &t->error);
    gs_nvml_gpm_pcie(t->d, t->g, pcie); /* the profiling fields not wanted are marked so below */
}

static int nvml_sample(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g, bool slow_fn)
{
    struct nvml_device *d = nvml_dev(b);
    const struct gs_fmask all = gs_fmask_all();
    struct nvml_sched sc = { false, false, 0, GS_FMASK_NONE };

    want = gs_fmask_and(want, all); /* literal: empty reads nothing but still reports the GPU's state */
    struct nvml_tick t = { .d = d, .f = &d->ctx->lib.f, .g = g, .s = &g->s, .want = want, .slow_fn = slow_fn };
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
        struct gs_fmask m = nvml_rd_mask(rd), fields = gs_fmask_and(want, m);
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
        nvml_sample_gpm(&t);
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

int gs_nvml_sample(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g)
{
    return nvml_sample(b, want, g, false);
}

int gs_nvml_sample_slow(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g)
{
    return nvml_sample(b, want, g, true);
}
