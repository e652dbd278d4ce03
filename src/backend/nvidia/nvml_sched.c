/* SPDX-License-Identifier: MIT */
/*
 * nvml_sched.c - the read schedule of one tick: which readings are handed on
 * from their last read, with its age, instead of being asked again.
 *
 * A reader listed in nvml_every[] reads something that
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
 * still read at least once a period, and its age is handed on the same way;
 * the P-state, where the GPU sends P-state events (nvml_events.c), until one
 * comes, as long as the event queue is drained between two ticks.
 * Everything else (utilization, memory, power, temperatures, the other clocks,
 * clock event reasons, energy, violation counters) is read every tick.
 */
#include <stdlib.h>
#include <string.h>

#include "backend/nvidia/nvml_tick.h"

#define EVERY_PERIODS(first, last, n)                                                           \
    { (uint16_t)DST(first),                                                                     \
      (uint16_t)(DST(last) + sizeof(((struct gs_sample *)0)->last) - DST(first)), (n),          \
      NVML_HOLD_ALWAYS }
#define EVERY_PERIOD(first, last) EVERY_PERIODS(first, last, 1)
#define HELD_WHILE(member, how) { (uint16_t)DST(member), (uint16_t)sizeof(((struct gs_sample *)0)->member), 1, (how) }

/* The read schedule: the readers of slow-changing values, by the first field
 * of their entry in nvml_readers[] (nvml_sample.c), with the members of struct
 * gs_sample they write. A reader not listed here is called every tick. */
const struct nvml_span nvml_every[GS_F_COUNT] = {
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
    /* The P-state, where the GPU sends P-state events: read when one says it changed. */
    [GS_F_PSTATE] = HELD_WHILE(pstate, NVML_HOLD_UNTIL_EVENT),
};

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

    if (event_type == NVML_EVENT_TYPE_PSTATE) {
        gs_fmask_set(&d->sched_force, GS_F_PSTATE);
        return;
    }
    if (event_type & NVML_EVENT_TYPE_XID_CRITICAL) {
        d->sched_due_ns = 0; /* an Xid may follow anything: everything at the next tick, */
        d->sched_force = gs_fmask_all(); /* NVLink state (read every few periods) too */
        return;
    }
    for (size_t i = 0; i < sizeof(ecc); i++)
        gs_fmask_set(&d->sched_force, ecc[i]);
}

static void nvml_sched_start(struct nvml_tick *t, struct nvml_sched *sc)
{
    uint64_t period = t->d->ctx->sched_period_ns;

    sc->started = true;
    sc->now_ns = t->s->timestamp_ns;
    sc->due = !period || sc->now_ns >= t->d->sched_due_ns;
    sc->force = gs_fmask_or(t->d->sched_force, t->d->ctx->sched_every_tick);
}

void nvml_sched_end(struct nvml_tick *t, const struct nvml_sched *sc)
{
    if (!sc->started)
        return;
    if (sc->due)
        t->d->sched_due_ns = sc->now_ns + t->d->ctx->sched_period_ns;
    t->d->sched_force = GS_FMASK_NONE;
    t->d->drain_seq_seen = t->d->ctx->drain_seq;
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
    case NVML_HOLD_UNTIL_EVENT: /* the queue was drained since this GPU's last tick */
        return d->pstate_events && d->ctx->drain_seq != d->drain_seq_seen;
    }
    return false;
}

/* Hand on a slow-changing reader's last values (fields = its wanted fields)
 * when they are not due; true when it did, so the reader is not called. */
bool nvml_sched_reuse(struct nvml_tick *t, const struct nvml_span *every,
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
void nvml_sched_keep(struct nvml_tick *t, const struct nvml_span *every,
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
