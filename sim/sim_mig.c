/* SPDX-License-Identifier: MIT */
/*
 * sim_mig.c - MIG in the simulator, as a driver models it: GPU instances
 * (profiles, placements, IDs), compute instances, and the MIG device handles
 * (one per compute instance) that clients use like GPU handles: name, UUID,
 * memory, processes of the instance; everything else answers NOT_SUPPORTED
 * on a MIG handle, as NVML does for utilization, clocks and the like.
 *
 * Built at load from the scenario's `mig` lines against the GPU model's
 * profile table (H100 80GB, A100 40GB); the layout is fixed while loaded.
 * GPU instance IDs follow the driver's placement numbering: with 8 memory
 * slices, ID = 8/size - 1 + start/size (7g: 0, halves: 1-2, quarters: 3-6,
 * eighths: 7-14), which is what nvidia-smi and dcgm-exporter's GPU_I_ID show.
 */
#include "sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- profile tables ------------------------------------------------------------------
 * nvidia-smi mig -lgip of the model: profile ID, instances, memory, SMs and engines.
 * H100 80GB (SXM5/PCIe) and A100-SXM4-40GB, from NVIDIA's MIG user guide. */
#define ALL1 0x7Fu   /* 1-slice profiles: memory slices 0-6 */
static const struct sim_gip sim_h100_80[] = {
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, "1g.10gb", 1, 1, 7, 16, 1, 1, 0, 1, 0, 9984, ALL1},
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, "1g.10gb+me", 1, 1, 1, 16, 1, 1, 0, 1, 1, 9984, ALL1},
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, "1g.20gb", 1, 2, 4, 26, 1, 1, 0, 1, 0, 20096, 0x55},
    {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, "2g.20gb", 2, 2, 3, 32, 2, 2, 0, 2, 0, 20096, 0x15},
    {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, "3g.40gb", 3, 4, 2, 60, 3, 3, 0, 3, 0, 40448, 0x11},
    {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, "4g.40gb", 4, 4, 1, 64, 4, 4, 0, 4, 0, 40448, 0x01},
    {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, "7g.80gb", 7, 8, 1, 132, 8, 7, 0, 7, 1, 81152, 0x01},
};
static const struct sim_gip sim_a100_40[] = {
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 19, "1g.5gb", 1, 1, 7, 14, 1, 0, 0, 0, 0, 4864, ALL1},
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 20, "1g.5gb+me", 1, 1, 1, 14, 1, 1, 0, 1, 1, 4864, ALL1},
    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, 15, "1g.10gb", 1, 2, 4, 14, 1, 1, 0, 0, 0, 9984, 0x55},
    {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 14, "2g.10gb", 2, 2, 3, 28, 2, 1, 0, 0, 0, 9984, 0x15},
    {NVML_GPU_INSTANCE_PROFILE_3_SLICE, 9, "3g.20gb", 3, 4, 2, 42, 3, 2, 0, 0, 0, 20096, 0x11},
    {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 5, "4g.20gb", 4, 4, 1, 56, 4, 2, 0, 0, 0, 20096, 0x01},
    {NVML_GPU_INSTANCE_PROFILE_7_SLICE, 0, "7g.40gb", 7, 8, 1, 98, 7, 5, 0, 1, 1, 40192, 0x01},
};
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define SIM_MIG_MAX_DEVICES 7u  /* GetMaxMigDeviceCount on both models */
#define SIM_MIG_DRIVER_MIB 12u  /* what the driver holds in an idle instance */

static double sim_cfg_num(const struct nvmlDevice_st *g, enum gs_scn_num n)
{
    struct gs_scn_env env = {.gpu = g->cfg, .salt = (unsigned)g->index * 7919u, .depth = 0};
    double v = gs_scn_eval(g->cfg->num[n], 0.0, &env);
    return isfinite(v) ? v : 0.0;
}

/* The profile table of g's model (by architecture and memory size at t = 0), or NULL. */
const struct sim_gip *gs_sim_mig_table(const struct nvmlDevice_st *g, int *n, unsigned *max_devs)
{
    double arch = sim_cfg_num(g, GS_SCN_N_ARCH), gib = sim_cfg_num(g, GS_SCN_N_MEM_TOTAL) / 1073741824.0;
    *max_devs = SIM_MIG_MAX_DEVICES;
    if (gs_sim_unsupported(g, GS_SCN_F_MIG))
        return NULL;
    if (arch == 9 && gib >= 64 && gib <= 88) {
        *n = NELEM(sim_h100_80);
        return sim_h100_80;
    }
    if (arch == 7 && gib >= 32 && gib <= 48) {
        *n = NELEM(sim_a100_40);
        return sim_a100_40;
    }
    *n = 0;
    return NULL;
}

/* ---- building the layout at load -------------------------------------------------------- */

struct sim_mig_build {
    const struct gs_scn *s;
    const char *path;
    char *err;
    size_t errlen;
    unsigned used_mem[GS_SCN_MAX_GPUS];    /* memory slices taken, per GPU */
    unsigned used_compute[GS_SCN_MAX_GPUS]; /* compute slices taken */
};

static int sim_mig_fail(struct sim_mig_build *b, const struct gs_scn_mig *m, const char *what)
{
    snprintf(b->err, b->errlen, "%s:%d: %s", b->path, m->line, what);
    return -1;
}

static const struct sim_gip *sim_mig_profile(const struct sim_gip *tab, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(tab[i].name, name) == 0)
            return &tab[i];
    return NULL;
}

static int sim_mig_count(const struct nvmlGpuInstance_st *gis, int n, const struct nvmlDevice_st *g,
                         const struct sim_gip *p)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += gis[i].parent == g && gis[i].prof == p;
    return k;
}

/* Place one GPU instance: profile, placement, ID, compute instances. */
static int sim_mig_place(struct sim_mig_build *b, const struct gs_scn_mig *m, struct nvmlGpuInstance_st *gis,
                         int ngis)
{
    char what[200];
    struct nvmlDevice_st *g = &gs_sim.gpus[m->gpu];
    struct nvmlGpuInstance_st *gi = &gis[ngis];
    unsigned maxd;
    int n;
    const struct sim_gip *tab = gs_sim_mig_table(g, &n, &maxd), *p;
    if (!tab)
        return sim_mig_fail(b, m, "mig: the simulator has MIG profiles for an H100 80GB (arch=hopper) and an "
                                  "A100 40GB (arch=ampere) only, with MIG not in unsupported=");
    if (!(p = sim_mig_profile(tab, n, m->profile))) {
        snprintf(what, sizeof(what), "mig: no profile %s on this GPU (its smallest is %s)", m->profile, tab[0].name);
        return sim_mig_fail(b, m, what);
    }
    if (sim_mig_count(gis, ngis, g, p) >= (int)p->instances) {
        snprintf(what, sizeof(what), "mig: at most %u %s instance(s) fit on a GPU", p->instances, p->name);
        return sim_mig_fail(b, m, what);
    }
    unsigned mask = ((1u << p->mem_slices) - 1u), start = 8;
    for (unsigned s = 0; s < 8 && start == 8; s++)
        if ((m->placement < 0 || (unsigned)m->placement == s) && (p->starts >> s & 1u) &&
            !(b->used_mem[m->gpu] & mask << s))
            start = s;
    if (start == 8 || b->used_compute[m->gpu] + p->slices > 7)
        return sim_mig_fail(b, m, m->placement >= 0 ? "mig: that placement is not free or not allowed for the profile"
                                                    : "mig: no room left on the GPU for this instance");
    if (m->cis != 1 && (unsigned)m->cis != p->slices)
        return sim_mig_fail(b, m, "mig: cis= must be 1 (one compute instance) or the profile's slice count");
    *gi = (struct nvmlGpuInstance_st){.parent = g, .prof = p, .cfg = m, .start = start, .nci = m->cis};
    gi->id = m->gi >= 0 ? (unsigned)m->gi : 8u / p->mem_slices - 1u + start / p->mem_slices;
    for (int i = 0; i < ngis; i++)
        if (gis[i].parent == g && gis[i].id == gi->id)
            return sim_mig_fail(b, m, "mig: two GPU instances with the same gi= on one GPU");
    gi->salt = (unsigned)m->gpu * 7919u + gi->id * 104723u + 31u;
    b->used_mem[m->gpu] |= mask << start;
    b->used_compute[m->gpu] += p->slices;
    return 0;
}

static int sim_gi_cmp(const void *a, const void *b)
{
    const struct nvmlGpuInstance_st *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent->index - y->parent->index;
    return (x->id > y->id) - (x->id < y->id);
}

/* CI profile index of a compute instance of `slices` slices. */
static unsigned sim_ci_profile_index(unsigned slices)
{
    static const unsigned idx[9] = {0, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE,
                                    NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE, 0,
                                    NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE, NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE,
                                    NVML_COMPUTE_INSTANCE_PROFILE_8_SLICE};
    return slices < 9 ? idx[slices] : 0;
}

/* "1g.10gb" for a compute instance spanning its GPU instance, else "1c.3g.40gb". */
static void sim_ci_name(const struct nvmlComputeInstance_st *ci, char *out, size_t len)
{
    if (ci->slices == ci->gi->prof->slices)
        snprintf(out, len, "%s", ci->gi->prof->name);
    else
        snprintf(out, len, "%uc.%s", ci->slices, ci->gi->prof->name);
}

/* A version-5 style UUID, stable for (parent, GPU instance, compute instance, seed). */
static void sim_mig_uuid(struct nvmlDevice_st *d, const struct nvmlComputeInstance_st *ci, unsigned seed)
{
    unsigned h = 2166136261u ^ seed;
    for (const char *p = ci->gi->parent->uuid; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    h ^= ci->gi->id * 0x9e3779b9u + ci->id * 0x85ebca6bu;
    unsigned a = h * 2654435761u, b = a * 2246822519u + 3266489917u, c = b * 668265263u + 374761393u;
    snprintf(d->uuid, sizeof(d->uuid), "MIG-%08x-%04x-5%03x-%04x-%04x%08x", a ^ h, b >> 16, b & 0xfffu,
             (c >> 16 & 0x3fffu) | 0x8000u, c & 0xffffu, a ^ c);
}

/* Compute instances and MIG device handles of the (sorted) GPU instances. */
static void sim_mig_devices(void)
{
    unsigned per_gpu[GS_SCN_MAX_GPUS] = {0};
    int k = 0;
    for (int i = 0; i < gs_sim.mig_ngis; i++) {
        struct nvmlGpuInstance_st *gi = &gs_sim.mig_gis[i];
        unsigned ci_slices = gi->nci == 1 ? gi->prof->slices : 1;
        gi->first_ci = k;
        for (int j = 0; j < gi->nci; j++, k++) {
            struct nvmlComputeInstance_st *ci = &gs_sim.mig_cis[k];
            struct nvmlDevice_st *d = &gs_sim.mig_devs[k];
            char cname[40];
            *ci = (struct nvmlComputeInstance_st){gi, (unsigned)j, sim_ci_profile_index(ci_slices),
                                                  (unsigned)j * ci_slices, ci_slices, d};
            memset(d, 0, sizeof(*d));
            d->index = gi->parent->index;
            d->cfg = gi->parent->cfg;
            d->parent = gi->parent;
            d->ci = ci;
            d->mig_index = per_gpu[gi->parent->index]++;
            sim_mig_uuid(d, ci, gs_sim.scn->seed);
            sim_ci_name(ci, cname, sizeof(cname));
            const char *pname = gi->parent->cfg->str[GS_SCN_S_NAME] ? gi->parent->cfg->str[GS_SCN_S_NAME]
                                                                      : "NVIDIA Simulated GPU";
            snprintf(d->name, sizeof(d->name), "%.60s MIG %.30s", pname, cname);
        }
    }
    gs_sim.mig_ncis = gs_sim.mig_ndevs = k;
}

int gs_sim_mig_build(const struct gs_scn *s, const char *path, char *err, size_t errlen)
{
    struct sim_mig_build b = {.s = s, .path = path, .err = err, .errlen = errlen};
    size_t ncis = 0;
    if (s->nmigs <= 0)
        return 0;
    for (int i = 0; i < s->nmigs; i++)
        ncis += (size_t)s->migs[i].cis;
    gs_sim.mig_gis = calloc((size_t)s->nmigs, sizeof(*gs_sim.mig_gis));
    gs_sim.mig_cis = calloc(ncis, sizeof(*gs_sim.mig_cis));
    gs_sim.mig_devs = calloc(ncis, sizeof(*gs_sim.mig_devs));
    if (!gs_sim.mig_gis || !gs_sim.mig_cis || !gs_sim.mig_devs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int i = 0; i < s->nmigs; i++)
        if (sim_mig_place(&b, &s->migs[i], gs_sim.mig_gis, i) < 0)
            return -1;
    gs_sim.mig_ngis = s->nmigs;
    qsort(gs_sim.mig_gis, (size_t)gs_sim.mig_ngis, sizeof(*gs_sim.mig_gis), sim_gi_cmp);
    sim_mig_devices();
    return 0;
}

void gs_sim_mig_free(void)
{
    free(gs_sim.mig_gis);
    free(gs_sim.mig_cis);
    free(gs_sim.mig_devs);
    gs_sim.mig_gis = NULL;
    gs_sim.mig_cis = NULL;
    gs_sim.mig_devs = NULL;
    gs_sim.mig_ngis = gs_sim.mig_ncis = gs_sim.mig_ndevs = 0;
}

/* ---- what the rest of the simulator asks ---------------------------------------------------- */

struct nvmlDevice_st *gs_sim_mig_handle(nvmlDevice_t dev)
{
    if (!gs_sim.mig_devs || dev < gs_sim.mig_devs || dev >= gs_sim.mig_devs + gs_sim.mig_ndevs)
        return NULL;
    if (((const char *)dev - (const char *)gs_sim.mig_devs) % sizeof(*gs_sim.mig_devs) != 0)
        return NULL;
    return dev;
}

/* Functions that work on a MIG device handle (nvml.md 3.17); any other answers NOT_SUPPORTED. */
int gs_sim_mig_sym_ok(enum sim_sym sym)
{
    switch (sym) {
    case SIM_SYM_nvmlDeviceGetName: case SIM_SYM_nvmlDeviceGetUUID: case SIM_SYM_nvmlDeviceGetIndex:
    case SIM_SYM_nvmlDeviceGetMemoryInfo: case SIM_SYM_nvmlDeviceGetMemoryInfo_v2:
    case SIM_SYM_nvmlDeviceGetPciInfo: case SIM_SYM_nvmlDeviceGetPciInfo_v2: case SIM_SYM_nvmlDeviceGetPciInfo_v3:
    case SIM_SYM_nvmlDeviceGetArchitecture: case SIM_SYM_nvmlDeviceGetCudaComputeCapability:
    case SIM_SYM_nvmlDeviceGetBrand: case SIM_SYM_nvmlDeviceGetComputeMode:
    case SIM_SYM_nvmlDeviceGetComputeRunningProcesses: case SIM_SYM_nvmlDeviceGetComputeRunningProcesses_v2:
    case SIM_SYM_nvmlDeviceGetComputeRunningProcesses_v3: case SIM_SYM_nvmlDeviceGetGraphicsRunningProcesses:
    case SIM_SYM_nvmlDeviceGetGraphicsRunningProcesses_v2: case SIM_SYM_nvmlDeviceGetGraphicsRunningProcesses_v3:
    case SIM_SYM_nvmlDeviceGetMPSComputeRunningProcesses: case SIM_SYM_nvmlDeviceGetMPSComputeRunningProcesses_v2:
    case SIM_SYM_nvmlDeviceGetMPSComputeRunningProcesses_v3: case SIM_SYM_nvmlDeviceGetRunningProcessDetailList:
    case SIM_SYM_nvmlDeviceIsMigDeviceHandle: case SIM_SYM_nvmlDeviceGetDeviceHandleFromMigDeviceHandle:
    case SIM_SYM_nvmlDeviceGetGpuInstanceId: case SIM_SYM_nvmlDeviceGetComputeInstanceId:
    case SIM_SYM_nvmlDeviceGetAttributes: case SIM_SYM_nvmlDeviceGetAttributes_v2:
    case SIM_SYM_nvmlGpmQueryDeviceSupport: case SIM_SYM_nvmlGpmSampleGet:
        return 1;
    default:
        return 0;
    }
}

int gs_sim_mig_on(const struct sim_call *c)
{
    return gs_sim_u32(c, GS_SCN_N_MIG) != 0;
}

int gs_sim_mig_proc_in(const struct sim_call *c, int i)
{
    const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
    if (!c->mig)
        return 1;
    return p->gi == c->mig->ci->gi->id && p->ci == c->mig->ci->id;
}

double gs_sim_gi_num(const struct sim_call *c, const struct nvmlGpuInstance_st *gi, enum gs_scn_num n)
{
    struct gs_scn_env env = {.gpu = &gi->cfg->cfg, .salt = gi->salt, .depth = 0};
    double v = gs_scn_eval(gi->cfg->cfg.num[n], c->t, &env);
    return isfinite(v) ? v : 0.0;
}

/* Used memory of a GPU instance: its processes plus the driver's share, unless memory_used= says. */
unsigned long long gs_sim_gi_mem_used(const struct sim_call *c, const struct nvmlGpuInstance_st *gi)
{
    unsigned long long total = gi->prof->mem_mib << 20, used = 0;
    if (gi->cfg->cfg.num[GS_SCN_N_MEM_USED]) {
        double v = gs_sim_gi_num(c, gi, GS_SCN_N_MEM_USED);
        used = v > 0 ? (unsigned long long)v : 0;
    } else {
        for (int k = gs_sim.by_gpu_start[gi->parent->index]; k < gs_sim.by_gpu_start[gi->parent->index + 1]; k++) {
            int i = gs_sim.by_gpu[k];
            if (gs_sim.scn->procs[i].gi != gi->id || !gs_sim_proc_visible(c, i))
                continue;
            unsigned long long m = gs_sim_proc_mem(c, i);
            used += m == NVML_VALUE_NOT_AVAILABLE_ULL ? 0 : m;
        }
        used += (unsigned long long)SIM_MIG_DRIVER_MIB << 20;
    }
    return used > total ? total : used;
}
