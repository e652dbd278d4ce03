/* SPDX-License-Identifier: MIT */
/* model.c - snapshot lifetime and the names people read (see model.h). */
#include "core/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *gs_status_name(enum gs_status st)
{
    static const char *const names[GS_ST_COUNT] = {
        [GS_ST_NOT_SUPPORTED] = "Not Supported",
        [GS_ST_OK] = "OK",
        [GS_ST_NO_PERMISSION] = "Insufficient Permissions",
        [GS_ST_GPU_LOST] = "GPU is lost",
        [GS_ST_NOT_AVAILABLE] = "N/A",
        [GS_ST_NOT_SAMPLED] = "Not Sampled",
        [GS_ST_ERROR] = "Error",
    };
    if ((unsigned)st < GS_ST_COUNT)
        return names[st];
    return "Unknown";
}

void gs_snapshot_init(struct gs_snapshot *snap)
{
    memset(snap, 0, sizeof(*snap));
}

void gs_snapshot_release(struct gs_snapshot *snap)
{
    for (uint32_t i = 0; i < snap->ngpus; i++)
        free(snap->gpus[i].procs);
    free(snap->gpus);
    memset(snap, 0, sizeof(*snap));
}

int gs_snapshot_copy(struct gs_snapshot *dst, const struct gs_snapshot *src)
{
    struct gs_snapshot tmp = *src;

    tmp.gpus = calloc(src->ngpus ? src->ngpus : 1, sizeof(*tmp.gpus));
    if (!tmp.gpus)
        return -1;
    for (uint32_t i = 0; i < src->ngpus; i++) {
        struct gs_gpu *g = &tmp.gpus[i];
        *g = src->gpus[i];
        g->procs = NULL;
        g->procs_cap = 0;
        if (!src->gpus[i].nprocs)
            continue;
        g->procs = malloc(src->gpus[i].nprocs * sizeof(*g->procs));
        if (!g->procs) {
            tmp.ngpus = i;
            gs_snapshot_release(&tmp);
            return -1;
        }
        memcpy(g->procs, src->gpus[i].procs, src->gpus[i].nprocs * sizeof(*g->procs));
        g->procs_cap = src->gpus[i].nprocs;
    }
    gs_snapshot_release(dst);
    *dst = tmp;
    return 0;
}

struct gs_proc *gs_gpu_add_proc(struct gs_gpu *gpu)
{
    if (gpu->nprocs == gpu->procs_cap) {
        uint32_t cap = gpu->procs_cap ? gpu->procs_cap * 2 : 16;
        struct gs_proc *p = realloc(gpu->procs, cap * sizeof(*p));
        if (!p)
            return NULL;
        gpu->procs = p;
        gpu->procs_cap = cap;
    }
    struct gs_proc *p = &gpu->procs[gpu->nprocs++];
    memset(p, 0, sizeof(*p));
    p->gpu_instance_id = UINT32_MAX;
    p->compute_instance_id = UINT32_MAX;
    return p;
}

const char *gs_arch_name(uint32_t nvml_arch)
{
    static const char *const names[] = {
        [2] = "Kepler", [3] = "Maxwell", [4] = "Pascal",     [5] = "Volta",
        [6] = "Turing", [7] = "Ampere",  [8] = "Ada Lovelace", [9] = "Hopper",
        [10] = "Blackwell", [13] = "Rubin",
    };
    if (nvml_arch < sizeof(names) / sizeof(names[0]) && names[nvml_arch])
        return names[nvml_arch];
    return "Unknown";
}

const char *gs_throttle_str(uint64_t mask, char *buf, unsigned len)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } reasons[] = {
        { GS_THROTTLE_GPU_IDLE, "idle" },
        { GS_THROTTLE_APP_CLOCKS, "application clocks" },
        { GS_THROTTLE_SW_POWER_CAP, "SW power cap" },
        { GS_THROTTLE_HW_SLOWDOWN, "HW slowdown" },
        { GS_THROTTLE_SYNC_BOOST, "sync boost" },
        { GS_THROTTLE_SW_THERMAL, "SW thermal" },
        { GS_THROTTLE_HW_THERMAL, "HW thermal" },
        { GS_THROTTLE_HW_POWER_BRAKE, "HW power brake" },
        { GS_THROTTLE_DISPLAY_CLOCK, "display clock" },
    };
    size_t used = 0;

    if (!len)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
        if (!(mask & reasons[i].bit))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", reasons[i].name);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    return buf;
}
