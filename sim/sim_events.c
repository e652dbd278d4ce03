/* SPDX-License-Identifier: MIT */
/*
 * sim_events.c - time-sampled NVML data of the simulator: event sets (Xid and
 * ECC events from the scenario's `at` lines), the samples API and per-process
 * utilization samples. Samples are synthesized on a 1/6 s grid of scenario
 * time and stamped with the matching wall clock, so lastSeenTimeStamp works.
 */
#include "sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIM_SAMPLE_PERIOD_S (1.0 / 6.0)
#define SIM_SAMPLE_RING 20
#define SIM_EVENT_SET_MAGIC 0x65767374u

struct nvmlEventSet_st {
    unsigned magic;
    struct nvmlEventSet_st *next;
    unsigned long long mask[GS_SCN_MAX_GPUS]; /* registered event types per GPU */
    double reg_t[GS_SCN_MAX_GPUS];            /* registration time per GPU */
    int cursor;                               /* next scenario event to consider */
    double pst_t[GS_SCN_MAX_GPUS];            /* P-state events: looked at up to this time */
    unsigned pst_last[GS_SCN_MAX_GPUS];       /* ... and the P-state then */
};

/* P-state changes are seen on the driver's refresh grid (100 ms, as GPM's counters); a wait
 * looks at no more than this many grid points back (a clock that jumps: the change at once). */
#define SIM_PSTATE_GRID_S 0.1
#define SIM_PSTATE_MAX_STEPS 600
#define SIM_ARCH_KEPLER 2 /* NVML_DEVICE_ARCH_KEPLER */

/* ---- event sets ---------------------------------------------------------------- */

static int sim_set_valid(const struct nvmlEventSet_st *set)
{
    for (const struct nvmlEventSet_st *s = gs_sim.sets; s; s = s->next)
        if (s == set)
            return 1;
    return 0;
}

void gs_sim_events_free_all(void)
{
    while (gs_sim.sets) {
        struct nvmlEventSet_st *next = gs_sim.sets->next;
        gs_sim.sets->magic = 0;
        free(gs_sim.sets);
        gs_sim.sets = next;
    }
}

static unsigned long long sim_event_type(enum gs_scn_event_kind kind)
{
    switch (kind) {
    case GS_SCN_EV_XID:
        return NVML_EVENT_TYPE_XID_CRITICAL;
    case GS_SCN_EV_ECC_SBE:
        return NVML_EVENT_TYPE_SINGLE_BIT_ECC;
    case GS_SCN_EV_ECC_DBE:
        return NVML_EVENT_TYPE_DOUBLE_BIT_ECC;
    default:
        return 0;
    }
}

static unsigned long long sim_supported_events(const struct sim_call *c)
{
    /* nvml.h documents the clock event for Kepler only */
    unsigned long long m = NVML_EVENT_TYPE_XID_CRITICAL;
    if (!gs_sim_unsupported(c->gpu, GS_SCN_F_PSTATE))
        m |= NVML_EVENT_TYPE_PSTATE;
    if (gs_sim_u32(c, GS_SCN_N_ARCH) == SIM_ARCH_KEPLER)
        m |= NVML_EVENT_TYPE_CLOCK;
    if (!gs_sim_unsupported(c->gpu, GS_SCN_F_ECC) && gs_sim_u32(c, GS_SCN_N_ECC))
        m |= NVML_EVENT_TYPE_SINGLE_BIT_ECC | NVML_EVENT_TYPE_DOUBLE_BIT_ECC;
    return m;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    SIM_BEGIN(nvmlEventSetCreate);
    if (!set)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    struct nvmlEventSet_st *s = calloc(1, sizeof(*s));
    if (!s)
        return gs_sim_end(&c, NVML_ERROR_MEMORY);
    s->magic = SIM_EVENT_SET_MAGIC;
    s->next = gs_sim.sets;
    gs_sim.sets = s;
    *set = s;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    SIM_BEGIN(nvmlEventSetFree);
    for (struct nvmlEventSet_st **pp = &gs_sim.sets; *pp; pp = &(*pp)->next) {
        if (*pp == set) {
            *pp = set->next;
            set->magic = 0;
            free(set);
            return gs_sim_end(&c, NVML_SUCCESS);
        }
    }
    return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
    SIM_BEGIN_DEV(nvmlDeviceGetSupportedEventTypes, device, GS_SCN_F_EVENTS);
    if (!eventTypes)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    *eventTypes = sim_supported_events(&c);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* Unsupported bits: NOT_SUPPORTED and nothing registered (the set stays usable). */
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set)
{
    SIM_BEGIN_DEV(nvmlDeviceRegisterEvents, device, GS_SCN_F_EVENTS);
    if (!sim_set_valid(set))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (eventTypes & ~sim_supported_events(&c))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (!set->mask[c.gpu->index])
        set->reg_t[c.gpu->index] = c.t;
    if ((eventTypes & NVML_EVENT_TYPE_PSTATE) && !(set->mask[c.gpu->index] & NVML_EVENT_TYPE_PSTATE)) {
        set->pst_t[c.gpu->index] = c.t;
        set->pst_last[c.gpu->index] = gs_sim_u32(&c, GS_SCN_N_PSTATE);
    }
    set->mask[c.gpu->index] |= eventTypes;
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* The next event due for this set at time t, or NULL. Advances the cursor. */
static const struct gs_scn_event *sim_next_event(struct nvmlEventSet_st *set, double t)
{
    const struct gs_scn *s = gs_sim.scn;
    while (set->cursor < s->nevents && s->events[set->cursor].at <= t) {
        const struct gs_scn_event *e = &s->events[set->cursor++];
        if ((set->mask[e->gpu] & sim_event_type(e->kind)) && e->at > set->reg_t[e->gpu])
            return e;
    }
    return NULL;
}

/* The first GPU whose P-state changed since the set last looked (on the grid), or -1;
 * the set then looks on from that change. A lost GPU sends none. */
static int sim_next_pstate(struct nvmlEventSet_st *set, const struct sim_call *c0, double t)
{
    for (int g = 0; g < gs_sim.scn->ngpus && g < GS_SCN_MAX_GPUS; g++) {
        if (!(set->mask[g] & NVML_EVENT_TYPE_PSTATE) || gs_sim.gpus[g].lost)
            continue;
        struct sim_call c = *c0;
        c.gpu = &gs_sim.gpus[g];
        c.mig = NULL;
        double from = set->pst_t[g];
        if (t - from > SIM_PSTATE_GRID_S * SIM_PSTATE_MAX_STEPS || t < from)
            from = t - SIM_PSTATE_GRID_S;
        for (double at = floor(from / SIM_PSTATE_GRID_S + 1) * SIM_PSTATE_GRID_S;; at += SIM_PSTATE_GRID_S) {
            c.t = at < t ? at : t;
            unsigned p = gs_sim_u32(&c, GS_SCN_N_PSTATE);
            set->pst_t[g] = c.t;
            if (p != set->pst_last[g]) {
                set->pst_last[g] = p;
                return g;
            }
            if (at >= t)
                break;
        }
    }
    return -1;
}

static double sim_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static nvmlReturn_t sim_event_wait(enum sim_sym sym, nvmlEventSet_t set, nvmlEventData_t *data,
                                   unsigned timeoutms, size_t fill)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin(&c, sym);
    if (r != NVML_SUCCESS)
        return r;
    if (!data || !sim_set_valid(set))
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    double deadline = sim_mono() + timeoutms / 1000.0;
    for (;;) {
        int pg = sim_next_pstate(set, &c, gs_sim_now());
        if (pg >= 0) {
            nvmlEventData_t d = {&gs_sim.gpus[pg], NVML_EVENT_TYPE_PSTATE, 0, NVML_INSTANCE_ID_NONE,
                                 NVML_INSTANCE_ID_NONE};
            memcpy(data, &d, fill);
            return gs_sim_end(&c, NVML_SUCCESS);
        }
        const struct gs_scn_event *e = sim_next_event(set, gs_sim_now());
        if (e) {
            nvmlEventData_t d = {&gs_sim.gpus[e->gpu], sim_event_type(e->kind),
                                 e->kind == GS_SCN_EV_XID ? e->arg : 0, NVML_INSTANCE_ID_NONE,
                                 NVML_INSTANCE_ID_NONE};
            memcpy(data, &d, fill); /* the legacy symbol fills only the pre-MIG 24 bytes */
            return gs_sim_end(&c, NVML_SUCCESS);
        }
        double left = deadline - sim_mono();
        if (left <= 0)
            return gs_sim_end(&c, NVML_ERROR_TIMEOUT);
        struct timespec ts = {0, (long)(fmin(left, 0.01) * 1e9)};
        pthread_mutex_unlock(&gs_sim.lock);
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&gs_sim.lock);
        if (gs_sim.refcount == 0 || !sim_set_valid(set))
            return gs_sim_end(&c, NVML_ERROR_UNINITIALIZED);
    }
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    return sim_event_wait(SIM_SYM_nvmlEventSetWait_v2, set, data, timeoutms, sizeof(nvmlEventData_t));
}

nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    return sim_event_wait(SIM_SYM_nvmlEventSetWait, set, data, timeoutms,
                          offsetof(nvmlEventData_t, gpuInstanceId));
}

unsigned long long gssimXidCount(unsigned int gpu)
{
    unsigned long long n = 0;
    pthread_mutex_lock(&gs_sim.lock);
    if (gs_sim.loaded) {
        double t = gs_sim_now();
        for (int i = 0; i < gs_sim.scn->nevents && gs_sim.scn->events[i].at <= t; i++)
            n += gs_sim.scn->events[i].kind == GS_SCN_EV_XID && gs_sim.scn->events[i].gpu == (int)gpu;
    }
    pthread_mutex_unlock(&gs_sim.lock);
    return n;
}

/* ---- samples API ---------------------------------------------------------------------- */

static int sim_sample_num(nvmlSamplingType_t type, enum gs_scn_num *n)
{
    static const enum gs_scn_num map[] = {GS_SCN_N_POWER, GS_SCN_N_UTIL, GS_SCN_N_MEM_UTIL, GS_SCN_N_ENC, GS_SCN_N_DEC,
                                          GS_SCN_N_CLK_SM, GS_SCN_N_CLK_MEM};
    if ((unsigned)type >= sizeof(map) / sizeof(map[0]))
        return -1;
    *n = map[type];
    return 0;
}

/* Sample grid times newer than lastSeen, oldest first; returns how many (<= ring). */
static int sim_sample_times(double t, unsigned long long last_seen, double *times)
{
    double newest = floor(t / SIM_SAMPLE_PERIOD_S) * SIM_SAMPLE_PERIOD_S;
    int n = 0;
    for (int j = SIM_SAMPLE_RING - 1; j >= 0; j--) {
        double tk = newest - j * SIM_SAMPLE_PERIOD_S;
        if (tk >= 0 && gs_sim_epoch_us(tk) > last_seen)
            times[n++] = tk;
    }
    return n;
}

nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type,
                                  unsigned long long lastSeenTimeStamp, nvmlValueType_t *sampleValType,
                                  unsigned int *sampleCount, nvmlSample_t *samples)
{
    double times[SIM_SAMPLE_RING];
    enum gs_scn_num num;
    SIM_BEGIN_DEV(nvmlDeviceGetSamples, device, GS_SCN_F_SAMPLES);
    if (!sampleValType || !sampleCount || (unsigned)type >= NVML_SAMPLINGTYPE_COUNT)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (sim_sample_num(type, &num) < 0 ||
        (type != NVML_TOTAL_POWER_SAMPLES && type < NVML_PROCESSOR_CLK_SAMPLES && gs_sim_u32(&c, GS_SCN_N_MIG)))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    int n = sim_sample_times(c.t, lastSeenTimeStamp, times);
    *sampleValType = NVML_VALUE_TYPE_UNSIGNED_INT;
    if (!samples) { /* size probe: SUCCESS with the count */
        *sampleCount = (unsigned)n;
        return gs_sim_end(&c, n ? NVML_SUCCESS : NVML_ERROR_NOT_FOUND);
    }
    if (n == 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
    int first = n > (int)*sampleCount ? n - (int)*sampleCount : 0; /* keep the newest */
    double now = c.t;
    for (int i = first; i < n; i++) {
        c.t = times[i];
        samples[i - first].timeStamp = gs_sim_epoch_us(times[i]);
        samples[i - first].sampleValue.ullVal = 0;
        samples[i - first].sampleValue.uiVal = gs_sim_u32(&c, num);
    }
    c.t = now;
    *sampleCount = (unsigned)(n - first);
    return gs_sim_end(&c, NVML_SUCCESS);
}

/* ---- per-process utilization ------------------------------------------------------------ */

struct sim_putil {
    unsigned pid, sm, mem, enc, dec;
};

/* Processes that were busy in the newest sample period, if newer than last_seen. */
static unsigned sim_proc_samples(struct sim_call *c, unsigned long long last_seen, unsigned long long *ts,
                                 struct sim_putil *out, unsigned cap)
{
    double tk = floor(c->t / SIM_SAMPLE_PERIOD_S) * SIM_SAMPLE_PERIOD_S;
    unsigned n = 0;
    *ts = gs_sim_epoch_us(tk);
    if (*ts <= last_seen)
        return 0;
    gs_sim_procs_tick(c->t);
    for (int k = gs_sim.by_gpu_start[c->gpu->index]; k < gs_sim.by_gpu_start[c->gpu->index + 1]; k++) {
        int i = gs_sim.by_gpu[k];
        const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
        if (!gs_sim_proc_visible(c, i) || !(p->types & (GS_SCN_PROC_COMPUTE | GS_SCN_PROC_GRAPHICS)))
            continue;
        struct sim_putil u = {gs_sim.procs[i].pid, gs_sim_proc_util(c, i, 0), gs_sim_proc_util(c, i, 1),
                              gs_sim_proc_util(c, i, 2), gs_sim_proc_util(c, i, 3)};
        if (!u.sm && !u.mem && !u.enc && !u.dec)
            continue; /* idle processes have no sample */
        if (n < cap)
            out[n] = u;
        n++;
    }
    return n;
}

nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *processSamplesCount,
                                             unsigned long long lastSeenTimeStamp)
{
    static struct sim_putil buf[GS_SCN_MAX_PROCS];
    unsigned long long ts;
    SIM_BEGIN_DEV(nvmlDeviceGetProcessUtilization, device, GS_SCN_F_PROC_UTIL);
    if (!processSamplesCount)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (gs_sim_u32(&c, GS_SCN_N_MIG))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned n = sim_proc_samples(&c, lastSeenTimeStamp, &ts, buf, GS_SCN_MAX_PROCS);
    if (n == 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
    if (!utilization || *processSamplesCount < n) {
        *processSamplesCount = n;
        return gs_sim_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    for (unsigned i = 0; i < n; i++) {
        nvmlProcessUtilizationSample_t s = {buf[i].pid, ts, buf[i].sm, buf[i].mem, buf[i].enc, buf[i].dec};
        utilization[i] = s;
    }
    *processSamplesCount = n;
    return gs_sim_end(&c, NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
                                                   nvmlProcessesUtilizationInfo_v1_t *info)
{
    static struct sim_putil buf[GS_SCN_MAX_PROCS];
    unsigned long long ts;
    SIM_BEGIN_DEV(nvmlDeviceGetProcessesUtilizationInfo, device, GS_SCN_F_PROC_UTIL);
    if (gs_sim_unsupported(c.gpu, GS_SCN_F_PROC_UTIL_INFO)) /* a GPU whose driver has only the old call */
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    if (!info)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (info->version != nvmlProcessesUtilizationInfo_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (gs_sim_u32(&c, GS_SCN_N_MIG))
        return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED);
    unsigned n = sim_proc_samples(&c, info->lastSeenTimeStamp, &ts, buf, GS_SCN_MAX_PROCS);
    if (n == 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
    if (!info->procUtilArray || info->processSamplesCount < n) {
        info->processSamplesCount = n;
        return gs_sim_end(&c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    for (unsigned i = 0; i < n; i++) {
        nvmlProcessUtilizationInfo_v1_t s = {ts, buf[i].pid, buf[i].sm, buf[i].mem, buf[i].enc, buf[i].dec,
                                             0, 0};
        info->procUtilArray[i] = s;
    }
    info->processSamplesCount = n;
    return gs_sim_end(&c, NVML_SUCCESS);
}
