/* SPDX-License-Identifier: MIT */
/*
 * nvml_pcie.c - PCIe TX/RX throughput by the path chosen once per GPU
 * (enum nvml_pcie_path), so that no sampling call sits on a refresh loop:
 *
 *   GPM       the GPU has GPM (Hopper and newer) and the tick reads profiling
 *             metrics anyway: PCIE_TX/RX_PER_SEC ride in that nvmlGpmMetricsGet;
 *   COUNTERS  fields 197/198 (cumulative bytes, R555+ drivers; older drivers
 *             refuse the id in its entry) ride in the tick's field-values call;
 *             the rate is the bytes between two ticks over their timestamps;
 *   FN        nvmlDeviceGetPcieThroughput, a 20 ms window per call and
 *             direction: one-shot commands, and the sampler's worker thread.
 *
 * Either average is over the interval between two ticks, as dcgm-exporter's
 * are. Only a sampler that runs a loop with the worker asks for the choice
 * (backend.h slow_free); the worker itself always calls the function
 * (gs_nvml_sample_slow). Until a tick has a rate (the first tick, a frozen
 * clock) the reading is "not available" here and the sampler shows the
 * worker's instead.
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"
#include "lib/clock.h"

/* More than any PCIe link carries (6.0 x16: ~128 GB/s a direction): a counter that
 * seems to have moved this fast went backwards (a GPU reset), it did not wrap. */
#define NVML_PCIE_MAX_BYTES_PER_S 1e12

enum nvml_pcie_step nvml_pcie_step(struct nvml_pcie_ctr *c, uint64_t bytes, unsigned bits, long long ts_us,
                                   uint64_t now_ns)
{
    uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

    bytes &= mask;
    if (c->have && ts_us == c->ts_us)
        return c->rate_ok ? NVML_PCIE_HELD : NVML_PCIE_NONE; /* not refreshed since: keep the baseline */
    double dt_s = c->have ? (double)(ts_us - c->ts_us) / 1e6 : 0;
    uint64_t delta = (bytes - c->bytes) & mask; /* a wrap at the counter's width comes out right */
    bool fresh = c->have && dt_s > 0 && (double)delta / dt_s <= NVML_PCIE_MAX_BYTES_PER_S;
    c->have = true;
    c->bytes = bytes;
    c->ts_us = ts_us;
    if (!fresh) { /* the first reading, a clock or counter that went back: a new baseline */
        c->rate_ok = false;
        return NVML_PCIE_NONE;
    }
    double kbps = (double)delta / dt_s / 1000.0 + 0.5;
    c->rate_kbps = kbps >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)kbps;
    c->rate_ok = true;
    c->rate_ns = now_ns;
    return NVML_PCIE_NEW;
}

/* The counter width an entry's value type says (a 32-bit counter wraps every few seconds). */
static unsigned nvml_pcie_bits(const nvmlFieldValue_t *fv)
{
    return fv->valueType == NVML_VALUE_TYPE_UNSIGNED_INT || fv->valueType == NVML_VALUE_TYPE_SIGNED_INT ? 32 : 64;
}

/* Ask fields 197/198 of d: true when both answered (their entries into fv). */
static bool nvml_pcie_fv(struct nvml_device *d, nvmlFieldValue_t fv[2], nvmlReturn_t *r)
{
    memset(fv, 0, 2 * sizeof(*fv));
    fv[0].fieldId = NVML_FI_DEV_PCIE_COUNT_TX_BYTES;
    fv[1].fieldId = NVML_FI_DEV_PCIE_COUNT_RX_BYTES;
    *r = d->ctx->lib.f.field_values(d->handle, 2, fv);
    return *r == NVML_SUCCESS && fv[0].nvmlReturn == NVML_SUCCESS && fv[1].nvmlReturn == NVML_SUCCESS;
}

bool gs_nvml_pcie_choose(struct gs_bdev *b, struct gs_fmask want)
{
    struct nvml_device *d = nvml_dev(b);
    const struct nvml_fns *f = &d->ctx->lib.f;
    bool prof = false;
    nvmlFieldValue_t fv[2];
    nvmlReturn_t r;

    d->pcie_path = NVML_PCIE_FN;
    if (d->open_rc != NVML_SUCCESS || atomic_load(&d->lost))
        return false;
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        prof |= gs_fmask_has(want, GS_F_PROF_FIRST + k);
    if (prof && !gs_fmask_any(gs_fmask_and(gs_nvml_mig_gpm_missing(f), gs_fmask_of(GS_F_PROF_FIRST))) &&
        gs_nvml_gpm_probe(d)) {
        d->pcie_path = NVML_PCIE_GPM;
        return true;
    }
    if (!f->field_values || !nvml_pcie_fv(d, fv, &r))
        return false; /* no counters on this driver or GPU: the worker, for good */
    uint64_t now = gs_clock_mono_ns();
    for (int k = 0; k < 2; k++) { /* the baseline: the first tick has a rate already */
        memset(&d->pcie[k], 0, sizeof(d->pcie[k]));
        nvml_pcie_step(&d->pcie[k], nvml_fv_u64(&fv[k]), nvml_pcie_bits(&fv[k]), fv[k].timestamp, now);
    }
    d->pcie_path = NVML_PCIE_COUNTERS;
    return true;
}

bool nvml_pcie_counters_wanted(const struct nvml_tick *t)
{
    return t->d->pcie_path == NVML_PCIE_COUNTERS && !t->slow_fn &&
           (gs_fmask_has(t->want, GS_F_PCIE_TX) || gs_fmask_has(t->want, GS_F_PCIE_RX));
}

void nvml_pcie_fv_take(struct nvml_tick *t, const nvmlFieldValue_t fv[2], nvmlReturn_t r)
{
    memcpy(t->pcie_fv, fv, sizeof(t->pcie_fv));
    t->pcie_fv_r = r;
    t->pcie_fv_done = true;
}

/* One direction from this tick's counters: a new rate, the last one with its age, or not yet. */
static void nvml_pcie_from_counters(struct nvml_tick *t, const struct nvml_reader *rd, unsigned k)
{
    const nvmlFieldValue_t *fv = &t->pcie_fv[k];
    nvmlReturn_t r = t->pcie_fv_r == NVML_SUCCESS ? fv->nvmlReturn : t->pcie_fv_r;
    struct nvml_pcie_ctr *c = &t->d->pcie[k];
    enum gs_field f = rd->fields[0];
    uint64_t now = gs_clock_mono_ns();

    if (!nvml_put(t, nvml_rd_mask(rd), r, rd->what))
        return;
    enum nvml_pcie_step st = nvml_pcie_step(c, nvml_fv_u64(fv), nvml_pcie_bits(fv), fv->timestamp, now);
    if (st == NVML_PCIE_NONE) {
        gs_sample_mark(t->s, f, GS_ST_NOT_AVAILABLE); /* no interval yet: never a 0 */
        return;
    }
    nvml_put_u32(t, rd, c->rate_kbps);
    uint64_t age = st == NVML_PCIE_HELD && now > c->rate_ns ? now - c->rate_ns : 0;
    t->s->age_ms[f] = (uint32_t)(age / 1000000u);
    t->s->pcie_rate_age_ns = age;
}

void nvml_read_pcie_rate(struct nvml_tick *t, const struct nvml_reader *rd)
{
    unsigned k = rd->arg == NVML_PCIE_UTIL_TX_BYTES ? 0 : 1;
    nvmlFieldValue_t fv[2];
    nvmlReturn_t r;

    if (t->d->pcie_path == NVML_PCIE_GPM && !t->slow_fn) {
        gs_sample_mark(t->s, rd->fields[0], GS_ST_NOT_AVAILABLE); /* the GPM read fills it */
        return;
    }
    if (nvml_pcie_counters_wanted(t)) {
        if (!t->pcie_fv_done) { /* no field-values call in this tick (only PCIe wanted) */
            nvml_pcie_fv(t->d, fv, &r);
            nvml_pcie_fv_take(t, fv, r);
        }
        nvml_pcie_from_counters(t, rd, k);
        return;
    }
    unsigned v = 0;
    r = t->f->pcie_throughput(t->d->handle, (nvmlPcieUtilCounter_t)rd->arg, &v);
    if (nvml_put(t, nvml_rd_mask(rd), r, rd->what)) {
        nvml_put_u32(t, rd, v);
        t->s->pcie_rate_age_ns = 0;
    }
}
