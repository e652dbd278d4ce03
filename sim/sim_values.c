/* SPDX-License-Identifier: MIT */
/*
 * sim_values.c - readings of a simulated GPU at the call's scenario time:
 * scenario expressions, adjusted by timed events (throttle on/off, PCIe drops,
 * ECC and remap increments), memory derived from processes, and the integrated
 * counters (energy from power, PCIe bytes from throughput). Caller holds the lock.
 */
#include "sim.h"

#include <math.h>
#include <string.h>

static struct gs_scn_env sim_env(const struct sim_call *c)
{
    struct gs_scn_env env = {.gpu = c->gpu->cfg, .salt = (unsigned)c->gpu->index * 7919u, .depth = 0};
    return env;
}

double gs_sim_num(const struct sim_call *c, enum gs_scn_num n)
{
    struct gs_scn_env env = sim_env(c);
    double v = gs_scn_eval(c->gpu->cfg->num[n], c->t, &env);
    v = gs_sim_load_num(c, n, isfinite(v) ? v : 0.0); /* the CUDA simulator's load (sim_load.c) */
    return isfinite(v) ? v : 0.0;
}

unsigned gs_sim_u32(const struct sim_call *c, enum gs_scn_num n)
{
    double v = gs_sim_num(c, n);
    if (v <= 0)
        return 0;
    return v >= 4294967294.0 ? 4294967294u : (unsigned)llround(v);
}

unsigned long long gs_sim_u64(const struct sim_call *c, enum gs_scn_num n)
{
    double v = gs_sim_num(c, n);
    if (v <= 0)
        return 0;
    return v >= 1.8e19 ? 18000000000000000000ull : (unsigned long long)llround(v);
}

unsigned long long gs_sim_event_sum(const struct sim_call *c, enum gs_scn_event_kind kind)
{
    const struct gs_scn *s = gs_sim.scn;
    unsigned long long sum = 0;
    for (int i = 0; i < s->nevents && s->events[i].at <= c->t; i++)
        if (s->events[i].gpu == c->gpu->index && s->events[i].kind == kind)
            sum += s->events[i].kind == GS_SCN_EV_REMAP_PENDING || s->events[i].kind == GS_SCN_EV_REMAP_FAILURE
                       ? 1
                       : s->events[i].arg;
    return sum;
}

unsigned long long gs_sim_throttle(const struct sim_call *c)
{
    const struct gs_scn *s = gs_sim.scn;
    unsigned long long mask = gs_sim_u64(c, GS_SCN_N_THROTTLE);
    for (int i = 0; i < s->nevents && s->events[i].at <= c->t; i++) {
        const struct gs_scn_event *e = &s->events[i];
        if (e->gpu != c->gpu->index)
            continue;
        if (e->kind == GS_SCN_EV_THROTTLE_ON)
            mask |= e->arg;
        else if (e->kind == GS_SCN_EV_THROTTLE_OFF)
            mask &= ~e->arg;
    }
    return gs_sim_load_throttle(c, mask) & NVML_CLOCKS_EVENT_REASON_ALL;
}

unsigned gs_sim_pcie_gen(const struct sim_call *c)
{
    const struct gs_scn *s = gs_sim.scn;
    unsigned gen = gs_sim_u32(c, GS_SCN_N_PCIE_GEN);
    unsigned long long drop = 0;
    for (int i = 0; i < s->nevents && s->events[i].at <= c->t; i++) {
        const struct gs_scn_event *e = &s->events[i];
        if (e->gpu == c->gpu->index && e->kind == GS_SCN_EV_PCIE_DROP)
            drop += e->arg;
        else if (e->gpu == c->gpu->index && e->kind == GS_SCN_EV_PCIE_RESTORE)
            drop = 0;
    }
    return drop >= gen ? 1 : gen - (unsigned)drop;
}

unsigned long long gs_sim_mem_used(const struct sim_call *c)
{
    unsigned long long total = gs_sim_u64(c, GS_SCN_N_MEM_TOTAL);
    unsigned long long reserved = gs_sim_u64(c, GS_SCN_N_MEM_RESERVED);
    unsigned long long used = 0;
    if (c->gpu->cfg->num[GS_SCN_N_MEM_USED]) {
        used = gs_sim_u64(c, GS_SCN_N_MEM_USED);
    } else {
        for (int k = gs_sim.by_gpu_start[c->gpu->index]; k < gs_sim.by_gpu_start[c->gpu->index + 1]; k++) {
            int i = gs_sim.by_gpu[k];
            if (!gs_sim_proc_visible(c, i))
                continue;
            unsigned long long m = gs_sim_proc_mem(c, i);
            used += m == NVML_VALUE_NOT_AVAILABLE_ULL ? 0 : m;
        }
        used += 2ull << 20; /* the driver's own context */
    }
    if (reserved > total)
        reserved = total;
    return used > total - reserved ? total - reserved : used;
}

/* Integrate f (mW or KB/s) from *from_t to t with steps of at most 1 s
 * (coarser for very long spans), restarting from 0 if time went backwards. */
static double sim_integrate(struct sim_call *c, enum gs_scn_num n, double *from_t, double acc)
{
    double t = c->t, saved = c->t;
    if (t < *from_t) {
        *from_t = 0;
        acc = 0;
    }
    double span = t - *from_t;
    if (span <= 0)
        return acc;
    int steps = (int)ceil(span);
    if (steps > 20000)
        steps = 20000;
    double h = span / steps, a = *from_t;
    c->t = a;
    double fa = gs_sim_num(c, n);
    for (int i = 0; i < steps; i++) {
        c->t = a + h;
        double fb = gs_sim_num(c, n);
        acc += (fa + fb) * 0.5 * h;
        a += h;
        fa = fb;
    }
    c->t = saved;
    *from_t = t;
    return acc;
}

double gs_sim_energy_mj(struct sim_call *c)
{
    struct nvmlDevice_st *g = c->gpu;
    g->energy_mj = sim_integrate(c, GS_SCN_N_POWER, &g->energy_t, g->energy_mj);
    return gs_sim_num(c, GS_SCN_N_ENERGY_START) + g->energy_mj;
}

/* A byte counter from its start (bytes) and what it integrated: 64 bits, wrapping as an
 * unsigned long long does. */
static unsigned long long sim_pcie_counter(const struct sim_call *c, enum gs_scn_num start, double bytes)
{
    const double span = 18446744073709551616.0; /* 2^64 */
    double s = fmod(fmax(0, gs_sim_num(c, start)), span);
    unsigned long long base = s >= span ? 0 : (unsigned long long)s;
    return base + (unsigned long long)fmod(fmax(0, bytes), span);
}

/* Fields 197/198: the scenario's pcie_tx/pcie_rx (KB/s, 1000 bytes as nvmlDeviceGetPcieThroughput's)
 * integrated into bytes since the clock's start, from pcie_tx_start/pcie_rx_start. */
void gs_sim_pcie_bytes(struct sim_call *c, unsigned long long *tx, unsigned long long *rx)
{
    struct nvmlDevice_st *g = c->gpu;
    double t0 = g->pcie_t;
    g->pcie_tx_bytes = sim_integrate(c, GS_SCN_N_PCIE_TX, &t0, g->pcie_tx_bytes / 1000.0) * 1000.0;
    g->pcie_rx_bytes = sim_integrate(c, GS_SCN_N_PCIE_RX, &g->pcie_t, g->pcie_rx_bytes / 1000.0) * 1000.0;
    *tx = sim_pcie_counter(c, GS_SCN_N_PCIE_TX_START, g->pcie_tx_bytes);
    *rx = sim_pcie_counter(c, GS_SCN_N_PCIE_RX_START, g->pcie_rx_bytes);
}

nvmlReturn_t gs_sim_copy_str(char *buf, unsigned length, const char *s)
{
    size_t n = strlen(s);
    if (!buf)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (n + 1 > length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, n + 1);
    return NVML_SUCCESS;
}
