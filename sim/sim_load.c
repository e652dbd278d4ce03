/* SPDX-License-Identifier: MIT */
/*
 * sim_load.c - the NVML simulator's readings answer load: when the CUDA
 * simulator (simcuda/) runs kernels on a GPU it reports each busy interval of
 * scenario time with gssimLoadBusy(), and from then on that GPU's
 * utilization, power, temperature, clocks, P-state and clock-event reasons
 * follow it, so `gpuscope burn` watches a GPU that heats up under its own
 * load. Everything else (and every GPU nobody loads) reads as the scenario
 * says. The model, per GPU, with the `cuda` line's parameters:
 *
 *   utilization  max(scenario, share of the last second that was busy)
 *   power        scenario + I x (power_demand x enforced limit - scenario)
 *                (I over the last 250 ms),
 *                at most the enforced limit (then SW power cap is set)
 *   temperature  scenario + dT, dT' = ((temp_load - scenario) x B - dT) / tau
 *                (SW thermal slowdown from temp_gpu_max on)
 *   clocks       the maximum SM/graphics/memory clocks while busy (times
 *                clock_cap), 0.93 of them power-capped, 0.85 in SW thermal
 *                slowdown; P0
 *
 * where I is the kernels' intensity (1 for tensor-core work, less for FP64
 * and memory) and B the busy share of each 250 ms step. HW slowdown, HW thermal and power brake
 * are never made up here: they come from the scenario's `at ... throttle`
 * events, as they come from the hardware. Caller holds gs_sim.lock except in
 * the gssim* functions, which take it.
 */
#include "sim.h"
#include "scenario_cuda.h"

#include <math.h>
#include <string.h>

#define LOAD_SEGS 256
#define LOAD_GRID_S 0.25      /* the thermal model's step */
#define LOAD_WINDOW_S 1.0     /* utilization and power average over this */

struct load_seg {
    double t0, t1, intensity;
};

struct load_gpu {
    const struct gs_scn *owner;   /* the scenario this state belongs to (reset on reload) */
    int active;                   /* ever loaded */
    struct load_seg seg[LOAD_SEGS];
    int nseg, head;               /* ring: seg[head] is the oldest */
    long ode_k;                   /* dT is known at grid point ode_k (t = k x LOAD_GRID_S) */
    double ode_dt;
};

static struct load_gpu sim_load[GS_SCN_MAX_GPUS];

static struct load_gpu *load_of(int gpu)
{
    if (gpu < 0 || gpu >= GS_SCN_MAX_GPUS || !gs_sim.loaded)
        return NULL;
    struct load_gpu *l = &sim_load[gpu];
    if (l->owner != gs_sim.scn) {
        memset(l, 0, sizeof(*l));
        l->owner = gs_sim.scn;
    }
    return l;
}

static double load_raw(int gpu, enum gs_scn_num n, double t)
{
    const struct gs_scn_gpu *cfg = &gs_sim.scn->gpus[gpu];
    struct gs_scn_env env = {.gpu = cfg, .salt = (unsigned)gpu * 7919u, .depth = 0};
    double v = gs_scn_eval(cfg->num[n], t, &env);
    return isfinite(v) ? v : 0.0;
}

/* Share of [a, b] covered by busy intervals, and their mean intensity over it. */
static void load_cover(const struct load_gpu *l, double a, double b, double *busy, double *intensity)
{
    double cov = 0, acc = 0;
    for (int i = 0; i < l->nseg; i++) {
        const struct load_seg *s = &l->seg[(l->head + i) % LOAD_SEGS];
        double lo = s->t0 > a ? s->t0 : a, hi = s->t1 < b ? s->t1 : b;
        if (hi > lo) {
            cov += hi - lo;
            acc += (hi - lo) * s->intensity;
        }
    }
    *busy = b > a ? cov / (b - a) : 0;
    *intensity = b > a ? acc / (b - a) : 0;
}

/* Advance the thermal model to grid point k (never backwards: a reading at an
 * earlier time gets the latest state, like a sensor's last refresh). */
static void load_ode(struct load_gpu *l, int gpu, long k)
{
    const struct gs_scn_cuda_gpu *cg = &gs_scn_cuda_of(gs_sim.scn)->gpus[gpu];
    double decay = exp(-LOAD_GRID_S / cg->tau_s);
    if (k - l->ode_k > 200000) /* a clock jump of more than half a day: settle at once */
        l->ode_k = k - 200000;
    for (; l->ode_k < k; l->ode_k++) {
        double t1 = (double)(l->ode_k + 1) * LOAD_GRID_S, busy, in;
        load_cover(l, t1 - LOAD_GRID_S, t1, &busy, &in);
        (void)in;
        double target = (cg->temp_load_c - load_raw(gpu, GS_SCN_N_TEMP, t1)) * busy;
        l->ode_dt = target + (l->ode_dt - target) * decay;
    }
}

struct load_now {
    double busy;                  /* over the last second: utilization */
    double intensity;             /* over the last grid step: power, as a sensor averaging 250 ms */
    double busy_now;              /* over the last grid step: clocks up */
    double demand_mw, enforced_mw;
    double temp_c;
};

static void load_state(struct load_gpu *l, int gpu, double t, struct load_now *o)
{
    double dummy;
    load_cover(l, t - LOAD_WINDOW_S, t, &o->busy, &dummy);
    load_cover(l, t - LOAD_GRID_S, t, &o->busy_now, &o->intensity);
    const struct gs_scn_cuda_gpu *cg = &gs_scn_cuda_of(gs_sim.scn)->gpus[gpu];
    double idle = load_raw(gpu, GS_SCN_N_POWER, t);
    o->enforced_mw = load_raw(gpu, GS_SCN_N_POWER_ENFORCED, t);
    o->demand_mw = idle + o->intensity * (cg->power_demand * o->enforced_mw - idle);
    long k = (long)floor(t / LOAD_GRID_S);
    if (k > l->ode_k)
        load_ode(l, gpu, k);
    o->temp_c = load_raw(gpu, GS_SCN_N_TEMP, t) + l->ode_dt;
}

double gs_sim_load_num(const struct sim_call *c, enum gs_scn_num n, double v)
{
    struct load_gpu *l = load_of(c->gpu->index);
    if (!l || !l->active)
        return v;
    struct load_now s;
    int gpu = c->gpu->index;
    switch (n) {
    case GS_SCN_N_UTIL:
        load_state(l, gpu, c->t, &s);
        return fmax(v, round(100.0 * s.busy));
    case GS_SCN_N_POWER:
        load_state(l, gpu, c->t, &s);
        return fmax(v, fmin(s.demand_mw, s.enforced_mw));
    case GS_SCN_N_TEMP:
    case GS_SCN_N_MEM_TEMP:
        load_state(l, gpu, c->t, &s);
        return v + (s.temp_c - load_raw(gpu, GS_SCN_N_TEMP, c->t));
    case GS_SCN_N_CLK_GR:
    case GS_SCN_N_CLK_SM:
    case GS_SCN_N_CLK_MEM: {
        load_state(l, gpu, c->t, &s);
        if (s.busy_now <= 0)
            return v;
        double max = load_raw(gpu, n == GS_SCN_N_CLK_MEM ? GS_SCN_N_CLK_MAX_MEM
                                   : n == GS_SCN_N_CLK_SM ? GS_SCN_N_CLK_MAX_SM : GS_SCN_N_CLK_MAX_GR, c->t);
        double cap = gs_scn_cuda_of(gs_sim.scn)->gpus[gpu].clock_cap;
        double f = n == GS_SCN_N_CLK_MEM ? 1.0
                   : cap * (s.temp_c >= load_raw(gpu, GS_SCN_N_TEMP_GPU_MAX, c->t) ? 0.85
                            : s.demand_mw >= s.enforced_mw ? 0.93 : 1.0);
        return fmax(v, round(max * f));
    }
    case GS_SCN_N_PSTATE:
        load_state(l, gpu, c->t, &s);
        return s.busy_now > 0 ? 0 : v;
    default:
        return v;
    }
}

unsigned long long gs_sim_load_throttle(const struct sim_call *c, unsigned long long mask)
{
    struct load_gpu *l = load_of(c->gpu->index);
    if (!l || !l->active)
        return mask;
    struct load_now s;
    load_state(l, c->gpu->index, c->t, &s);
    if (s.busy_now > 0)
        mask &= ~(unsigned long long)NVML_CLOCKS_EVENT_REASON_GPU_IDLE;
    if (s.busy_now > 0 && s.demand_mw >= s.enforced_mw)
        mask |= NVML_CLOCKS_EVENT_REASON_SW_POWER_CAP;
    if (s.temp_c >= load_raw(c->gpu->index, GS_SCN_N_TEMP_GPU_MAX, c->t))
        mask |= NVML_CLOCKS_EVENT_REASON_SW_THERMAL;
    return mask;
}

/* ---- gssim control functions for the CUDA simulator -------------------------------- */

double gssimClockNow(void)
{
    pthread_mutex_lock(&gs_sim.lock);
    double t = gs_sim_now();
    pthread_mutex_unlock(&gs_sim.lock);
    return t;
}

void gssimLoadBusy(unsigned int gpu, double t0, double t1, double intensity)
{
    if (!(t1 > t0) || !isfinite(t0) || !isfinite(t1))
        return;
    intensity = intensity < 0 ? 0 : intensity > 1 ? 1 : intensity;
    pthread_mutex_lock(&gs_sim.lock);
    struct load_gpu *l = gs_sim.loaded && (int)gpu < gs_sim.scn->ngpus ? load_of((int)gpu) : NULL;
    if (l) {
        if (!l->active) {
            l->active = 1;
            l->ode_k = (long)floor(t0 / LOAD_GRID_S);
            l->ode_dt = 0;
        }
        struct load_seg *last = l->nseg ? &l->seg[(l->head + l->nseg - 1) % LOAD_SEGS] : NULL;
        if (last && t0 <= last->t1 + 1e-6 && t0 >= last->t0) {
            /* contiguous: one interval, its intensity the time-weighted mean */
            double a = last->t1 - last->t0, b = t1 - (t0 > last->t1 ? t0 : last->t1);
            if (b > 0) {
                last->intensity = (last->intensity * a + intensity * b) / (a + b);
                last->t1 = t1;
            }
        } else {
            if (l->nseg == LOAD_SEGS) { /* full: fold the oldest into the thermal state first */
                load_ode(l, (int)gpu, (long)floor(l->seg[l->head].t1 / LOAD_GRID_S));
                l->head = (l->head + 1) % LOAD_SEGS;
                l->nseg--;
            }
            l->seg[(l->head + l->nseg) % LOAD_SEGS] = (struct load_seg){ t0, t1, intensity };
            l->nseg++;
        }
    }
    pthread_mutex_unlock(&gs_sim.lock);
}
