/* SPDX-License-Identifier: MIT */
/*
 * sim_gpm.c - NVML's GPU Performance Monitoring (GPM) in the simulator:
 * support query, sample buffers, samples of a GPU, of a MIG GPU instance or
 * of a MIG device, and metrics computed between two samples.
 *
 * As on a driver, a sample holds counters and a metric is their rate over the
 * interval between two samples. The counters integrate the scenario's
 * activity readings (gr_active, sm_active, tensor_active, ..., percent) and
 * PCIe/NVLink throughput (KB/s) on the driver's 100 ms refresh grid, so two
 * samples in the same 100 ms give NaN, as a metric over no time would.
 * Hopper and newer only: older GPUs (or unsupported=gpm) answer NOT_SUPPORTED.
 */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_GPM_STEP_S 0.1       /* the driver's internal refresh */
#define SIM_GPM_MAX_STEPS 20000  /* longer spans are integrated coarser */

enum sim_gpm_acc_index {
    ACC_GR, ACC_SM, ACC_OCC, ACC_TENSOR, ACC_DRAM, ACC_FP64, ACC_FP32, ACC_FP16,
    ACC_PCIE_TX, ACC_PCIE_RX, ACC_NVL_TX, ACC_NVL_RX,
};
_Static_assert(ACC_NVL_RX + 1 == SIM_GPM_NACC, "one counter per modelled quantity");

static const enum gs_scn_num sim_acc_num[SIM_GPM_NACC] = {
    GS_SCN_N_GR_ACTIVE, GS_SCN_N_SM_ACTIVE, GS_SCN_N_SM_OCCUPANCY, GS_SCN_N_TENSOR_ACTIVE,
    GS_SCN_N_DRAM_ACTIVE, GS_SCN_N_FP64_ACTIVE, GS_SCN_N_FP32_ACTIVE, GS_SCN_N_FP16_ACTIVE,
    GS_SCN_N_PCIE_TX, GS_SCN_N_PCIE_RX, GS_SCN_N_NVLINK_TX, GS_SCN_N_NVLINK_RX,
};

struct nvmlGpmSample_st {
    struct nvmlGpmSample_st *next;  /* gs_sim.gpm_samples */
    const void *source;             /* the GPU or GPU instance sampled; NULL until the first sample */
    int is_gi;
    double t;                       /* scenario time of the sample (on the refresh grid) */
    double v[SIM_GPM_NACC];
};

/* ---- counters ------------------------------------------------------------------------------ */

static double sim_pct(double v)
{
    return v < 0 ? 0 : v > 100 ? 100 : v;
}

/* Instantaneous values of a GPU (gi == NULL) or GPU instance at the call's time. A GPU in
 * MIG mode is busy as its instances are, weighted by their compute slices. */
static void sim_gpm_now(const struct sim_call *c, const struct nvmlGpuInstance_st *gi, double *out)
{
    for (int k = 0; k < SIM_GPM_NACC; k++) {
        if (k >= ACC_PCIE_TX)
            out[k] = gi ? 0 : fmax(0, gs_sim_num(c, sim_acc_num[k]));
        else if (gi)
            out[k] = sim_pct(gs_sim_gi_num(c, gi, sim_acc_num[k]));
        else if (!gs_sim_mig_on(c) || !gs_sim.mig_ngis)
            out[k] = sim_pct(gs_sim_num(c, sim_acc_num[k]));
        else {
            out[k] = 0;
            for (int i = 0; i < gs_sim.mig_ngis; i++)
                if (gs_sim.mig_gis[i].parent == c->gpu)
                    out[k] += sim_pct(gs_sim_gi_num(c, &gs_sim.mig_gis[i], sim_acc_num[k])) *
                              gs_sim.mig_gis[i].prof->slices / 7.0;
        }
    }
}

/* Advance acc to t (on the grid): the driver's counters keep counting. */
static void sim_gpm_advance(struct sim_call *c, const struct nvmlGpuInstance_st *gi, struct sim_gpm_acc *acc,
                            double t)
{
    double now[SIM_GPM_NACC], saved = c->t;
    if (t < acc->t)
        memset(acc, 0, sizeof(*acc)); /* the clock went back: count from 0 again */
    double span = t - acc->t;
    long steps = lround(span / SIM_GPM_STEP_S);
    if (steps <= 0)
        return;
    if (steps > SIM_GPM_MAX_STEPS)
        steps = SIM_GPM_MAX_STEPS;
    double h = span / (double)steps;
    for (long i = 0; i < steps; i++) {
        c->t = acc->t + (double)i * h;
        sim_gpm_now(c, gi, now);
        for (int k = 0; k < SIM_GPM_NACC; k++)
            acc->v[k] += now[k] * h;
    }
    acc->t = t;
    c->t = saved;
}

static struct nvmlGpmSample_st *sim_gpm_find(nvmlGpmSample_t s)
{
    for (struct nvmlGpmSample_st *p = gs_sim.gpm_samples; p; p = p->next)
        if (p == s)
            return p;
    return NULL;
}

/* GPM needs Hopper or newer, and not unsupported=gpm. */
static int sim_gpm_capable(const struct sim_call *c)
{
    double arch = gs_sim_num(c, GS_SCN_N_ARCH);
    return arch >= 9 && arch < 1000 && !gs_sim_unsupported(c->gpu, GS_SCN_F_GPM);
}

/* Take a sample of the GPU (gi NULL) or GPU instance into s; ends the call. */
static nvmlReturn_t sim_gpm_take(struct sim_call *c, const struct nvmlGpuInstance_st *gi, nvmlGpmSample_t s)
{
    struct nvmlGpmSample_st *p = sim_gpm_find(s);
    struct sim_gpm_acc *acc = gi ? &((struct nvmlGpuInstance_st *)gi)->gpm : &c->gpu->gpm;
    if (!p)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    double t = floor(c->t / SIM_GPM_STEP_S + 1e-9) * SIM_GPM_STEP_S;
    sim_gpm_advance(c, gi, acc, t);
    p->source = gi ? (const void *)gi : (const void *)c->gpu;
    p->is_gi = gi != NULL;
    p->t = acc->t;
    memcpy(p->v, acc->v, sizeof(p->v));
    return gs_sim_end(c, NVML_SUCCESS);
}

/* ---- the NVML functions ------------------------------------------------------------------------- */

nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
    SIM_BEGIN_DEV(nvmlGpmQueryDeviceSupport, device, -1);
    if (!gpmSupport)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (gpmSupport->version != NVML_GPM_SUPPORT_VERSION)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    gpmSupport->isSupportedDevice = (unsigned)sim_gpm_capable(&c);
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
    SIM_BEGIN(nvmlGpmSampleAlloc);
    if (!gpmSample)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct nvmlGpmSample_st *p = calloc(1, sizeof(*p));
    if (!p)
        return gs_sim_end(&c, NVML_ERROR_MEMORY);
    p->next = gs_sim.gpm_samples;
    gs_sim.gpm_samples = p;
    *gpmSample = p;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
    SIM_BEGIN(nvmlGpmSampleFree);
    for (struct nvmlGpmSample_st **pp = &gs_sim.gpm_samples; *pp; pp = &(*pp)->next)
        if (*pp == gpmSample) {
            *pp = gpmSample->next;
            free(gpmSample);
            return gs_sim_end(&c, NVML_SUCCESS);
        }
    return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

/* A GPU, or a MIG device (its GPU instance's counters). */
nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
    SIM_BEGIN_DEV(nvmlGpmSampleGet, device, -1);
    if (!sim_gpm_capable(&c))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    return sim_gpm_take(&c, c.mig ? c.mig->ci->gi : NULL, gpmSample);
}

nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId, nvmlGpmSample_t gpmSample)
{
    SIM_BEGIN_DEV(nvmlGpmMigSampleGet, device, -1);
    if (!sim_gpm_capable(&c) || !gs_sim_mig_on(&c))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    for (int i = 0; i < gs_sim.mig_ngis; i++)
        if (gs_sim.mig_gis[i].parent == c.gpu && gs_sim.mig_gis[i].id == gpuInstanceId)
            return sim_gpm_take(&c, &gs_sim.mig_gis[i], gpmSample);
    return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

/* One metric between a and b (same source, dt > 0 or NaN). */
static void sim_gpm_metric(const struct sim_call *c, const struct nvmlGpmSample_st *a,
                           const struct nvmlGpmSample_st *b, nvmlGpmMetric_t *m)
{
    static const struct { unsigned id; int acc; } map[] = {
        {NVML_GPM_METRIC_GRAPHICS_UTIL, ACC_GR}, {NVML_GPM_METRIC_SM_UTIL, ACC_SM},
        {NVML_GPM_METRIC_SM_OCCUPANCY, ACC_OCC}, {NVML_GPM_METRIC_ANY_TENSOR_UTIL, ACC_TENSOR},
        {NVML_GPM_METRIC_DRAM_BW_UTIL, ACC_DRAM}, {NVML_GPM_METRIC_FP64_UTIL, ACC_FP64},
        {NVML_GPM_METRIC_FP32_UTIL, ACC_FP32}, {NVML_GPM_METRIC_FP16_UTIL, ACC_FP16},
        {NVML_GPM_METRIC_PCIE_TX_PER_SEC, ACC_PCIE_TX}, {NVML_GPM_METRIC_PCIE_RX_PER_SEC, ACC_PCIE_RX},
        {NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC, ACC_NVL_TX}, {NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC, ACC_NVL_RX},
    };
    int acc = -1;
    memset(&m->metricInfo, 0, sizeof(m->metricInfo)); /* names: may be NULL (nvml.h) */
    m->value = 0;
    m->nvmlReturn = m->metricId < NVML_GPM_METRIC_MAX ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (map[i].id == m->metricId)
            acc = map[i].acc;
    if (acc < 0 || (acc >= ACC_PCIE_TX && a->is_gi))
        return; /* not modelled, or a GPU-level metric asked of an instance */
    if (acc >= ACC_NVL_TX && gs_sim_u32(c, GS_SCN_N_NVLINKS) == 0)
        return; /* no NVLink on this board */
    double dt = fabs(b->t - a->t), dv = fabs(b->v[acc] - a->v[acc]);
    m->nvmlReturn = NVML_SUCCESS;
    if (dt <= 0)
        m->value = NAN;
    else if (acc >= ACC_PCIE_TX)
        m->value = dv * 1000.0 / dt / 1048576.0; /* KB -> MiB/s */
    else
        m->value = dv / dt;                      /* percent */
}

nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet)
{
    SIM_BEGIN(nvmlGpmMetricsGet);
    if (!metricsGet)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (metricsGet->version != NVML_GPM_METRICS_GET_VERSION)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    const struct nvmlGpmSample_st *a = sim_gpm_find(metricsGet->sample1), *b = sim_gpm_find(metricsGet->sample2);
    if (!a || !b || !a->source || a->source != b->source || metricsGet->numMetrics > NVML_GPM_METRIC_MAX)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    c.gpu = a->is_gi ? ((const struct nvmlGpuInstance_st *)a->source)->parent
                     : (struct nvmlDevice_st *)(uintptr_t)a->source;
    for (unsigned i = 0; i < metricsGet->numMetrics; i++)
        sim_gpm_metric(&c, a, b, &metricsGet->metrics[i]);
    return gs_sim_end(&c, NVML_SUCCESS);
}

void gs_sim_gpm_free_all(void)
{
    while (gs_sim.gpm_samples) {
        struct nvmlGpmSample_st *p = gs_sim.gpm_samples;
        gs_sim.gpm_samples = p->next;
        free(p);
    }
}
