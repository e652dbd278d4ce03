/* SPDX-License-Identifier: MIT */
/*
 * nvml_read_ecc.c - the readers of memory health: ECC mode and error totals,
 * retired pages, remapped rows, errors by memory location, SRAM ECC and the
 * row remapper histogram (the slow ones ask nvml_fvslow.c's batch first).
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"

/* ECC totals: fields 3-6 (corrected = single bit, uncorrected = double bit), else the function. */
void nvml_read_ecc_count(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (nvml_fvs(t, (enum nvml_fvs)(NVML_FVS_SBE_VOL + (rd->arg & 1) + 2 * (rd->arg >> 1)), &fv)) {
        nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
        memcpy((char *)t->s + rd->dst, &fv, sizeof(fv));
        return;
    }
    unsigned long long v = 0;
    nvmlReturn_t r = t->f->ecc_errors(t->d->handle, (nvmlMemoryErrorType_t)(rd->arg & 1),
                                      (nvmlEccCounterType_t)(rd->arg >> 1), &v);

    if (nvml_put(t, nvml_rd_mask(rd), r, rd->what)) {
        uint64_t v64 = v;
        memcpy((char *)t->s + rd->dst, &v64, sizeof(v64));
    }
}

/* Retired pages: a count query (*count = 0) answers with the number of pages. */
void nvml_read_retired(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (nvml_fvs(t, rd->arg == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR ? NVML_FVS_RET_DBE : NVML_FVS_RET_SBE,
                 &fv)) {
        nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
        nvml_put_u32(t, rd, (unsigned)fv);
        return;
    }
    unsigned count = 0;
    nvmlReturn_t r = t->f->retired_pages(t->d->handle, (nvmlPageRetirementCause_t)rd->arg, &count,
                                         NULL);

    if (r == NVML_ERROR_INSUFFICIENT_SIZE)
        r = NVML_SUCCESS;
    if (nvml_put(t, nvml_rd_mask(rd), r, rd->what))
        nvml_put_u32(t, rd, count);
}

/* Retired pages pending (field 31) and the PCIe replay counter (field 94), else their functions. */
void nvml_read_retired_pending(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (!nvml_fvs(t, NVML_FVS_RET_PEND, &fv)) {
        nvml_read_enable(t, rd);
        return;
    }
    nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
    nvml_put_u32(t, rd, fv != 0);
}

void nvml_read_ecc_mode(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fc = 0, fp = 0;
    if (nvml_fvs(t, NVML_FVS_ECC_CUR, &fc) && nvml_fvs(t, NVML_FVS_ECC_PEND, &fp)) {
        nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
        t->s->ecc_mode_current = fc == NVML_FEATURE_ENABLED;
        t->s->ecc_mode_pending = fp == NVML_FEATURE_ENABLED;
        return;
    }
    nvmlEnableState_t cur = NVML_FEATURE_DISABLED, pend = NVML_FEATURE_DISABLED;

    if (nvml_put(t, nvml_rd_mask(rd), t->f->ecc_mode(t->d->handle, &cur, &pend), rd->what)) {
        t->s->ecc_mode_current = cur == NVML_FEATURE_ENABLED;
        t->s->ecc_mode_pending = pend == NVML_FEATURE_ENABLED;
    }
}

void nvml_read_remap(struct nvml_tick *t, const struct nvml_reader *rd)
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
        nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
        return;
    }
    nvmlReturn_t r = t->f->remapped_rows(t->d->handle, &s->remap_corr_rows, &s->remap_uncorr_rows,
                                         &s->remap_pending, &s->remap_failed);

    nvml_put(t, nvml_rd_mask(rd), r, rd->what);
}

/* Errors per memory location: up to 2 x 2 x 8 calls, but a location that
 * answers NOT_SUPPORTED once (most of them, on most boards) is not asked again. */
void nvml_read_ecc_detail(struct nvml_tick *t, const struct nvml_reader *rd)
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
    nvml_put(t, nvml_rd_mask(rd), first, rd->what);
}

void nvml_read_sram_ecc(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlEccSramErrorStatus_v1_t e;
    struct gs_sample *s = t->s;

    memset(&e, 0, sizeof(e));
    e.version = nvmlEccSramErrorStatus_v1;
    if (!nvml_put(t, nvml_rd_mask(rd), t->f->sram_ecc(t->d->handle, &e), rd->what))
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

void nvml_read_remap_hist(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlRowRemapperHistogramValues_t h;

    memset(&h, 0, sizeof(h));
    if (nvml_put(t, nvml_rd_mask(rd), t->f->remap_histogram(t->d->handle, &h), rd->what)) {
        t->s->remap_hist[0] = h.max;
        t->s->remap_hist[1] = h.high;
        t->s->remap_hist[2] = h.partial;
        t->s->remap_hist[3] = h.low;
        t->s->remap_hist[4] = h.none;
    }
}
