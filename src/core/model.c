/* SPDX-License-Identifier: MIT */
/* model.c - snapshot lifetime and the names people read (see model.h). */
#include "core/model.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

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
        [GS_ST_DEPRECATED] = "Requested functionality has been deprecated",
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
    for (uint32_t i = 0; snap->gpus && i < snap->ngpus; i++) {
        free(snap->gpus[i].procs);
        gs_text_release(&snap->gpus[i].text);
        free(snap->gpus[i].mig);
    }
    free(snap->gpus);
    memset(snap, 0, sizeof(*snap));
}

int gs_snapshot_copy(struct gs_snapshot *dst, const struct gs_snapshot *src)
{
    struct gs_snapshot tmp = *src;

    assert(src != dst && (src->gpus || !src->ngpus) && src->nevents <= GS_MAX_EVENTS);
    tmp.gpus = calloc(src->ngpus ? src->ngpus : 1, sizeof(*tmp.gpus));
    if (!tmp.gpus)
        return -1;
    for (uint32_t i = 0; i < src->ngpus; i++) {
        struct gs_gpu *g = &tmp.gpus[i];
        *g = src->gpus[i];
        g->procs = NULL;
        g->procs_cap = 0;
        g->text.buf = NULL;
        g->text.cap = 0;
        g->mig = NULL;
        g->mig_cap = 0;
        if (g->text.len) {
            g->text.buf = malloc(g->text.len);
            if (g->text.buf) {
                memcpy(g->text.buf, src->gpus[i].text.buf, g->text.len);
                g->text.cap = g->text.len;
            }
        }
        if (g->nmig && gs_gpu_mig_reserve(g, g->nmig) == 0)
            memcpy(g->mig, src->gpus[i].mig, g->nmig * sizeof(*g->mig));
        g->procs = src->gpus[i].nprocs ? malloc(src->gpus[i].nprocs * sizeof(*g->procs)) : NULL;
        if ((src->gpus[i].nprocs && !g->procs) || (g->text.len && !g->text.buf) || (g->nmig && !g->mig)) {
            tmp.ngpus = i + 1; /* gpu i holds only what it owns (or NULL) */
            gs_snapshot_release(&tmp);
            return -1;
        }
        if (src->gpus[i].nprocs)
            memcpy(g->procs, src->gpus[i].procs, src->gpus[i].nprocs * sizeof(*g->procs));
        g->procs_cap = src->gpus[i].nprocs;
    }
    gs_snapshot_release(dst);
    *dst = tmp;
    return 0;
}

int gs_gpu_mig_reserve(struct gs_gpu *gpu, uint32_t n)
{
    if (n > GS_MAX_MIG)
        return -1;
    if (n <= gpu->mig_cap)
        return 0;
    struct gs_mig *m = realloc(gpu->mig, GS_MAX_MIG * sizeof(*m)); /* small: the whole bound at once */
    if (!m)
        return -1;
    gpu->mig = m;
    gpu->mig_cap = GS_MAX_MIG;
    return 0;
}

int gs_gpu_reserve_procs(struct gs_gpu *gpu, size_t n)
{
    if (n <= gpu->procs_cap)
        return 0;
    size_t cap = gpu->procs_cap;
    struct gs_proc *p = n <= UINT32_MAX ? gs_vec_grow(gpu->procs, &cap, n, sizeof(*p)) : NULL;
    if (!p)
        return -1;
    gpu->procs = p;
    gpu->procs_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    return 0;
}

struct gs_proc *gs_gpu_add_proc(struct gs_gpu *gpu)
{
    assert(gpu->nprocs <= gpu->procs_cap && (gpu->procs || !gpu->procs_cap)); /* the GPU owns procs[cap] */
    if (gpu->nprocs == gpu->procs_cap) {
        size_t cap = gpu->procs_cap;
        struct gs_proc *p = gs_vec_grow(gpu->procs, &cap, (size_t)gpu->nprocs + 1, sizeof(*p));
        if (!p)
            return NULL;
        gpu->procs = p;
        gpu->procs_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    struct gs_proc *p = &gpu->procs[gpu->nprocs++];
    memset(p, 0, sizeof(*p));
    p->gpu_instance_id = UINT32_MAX;
    p->compute_instance_id = UINT32_MAX;
    p->mig_index = UINT32_MAX;
    return p;
}

/* Room for n more bytes in t; 0 or -1. Offsets stay below 2^31. */
static int text_reserve(struct gs_text *t, size_t n)
{
    if (n > UINT32_MAX / 2 || t->len > UINT32_MAX / 2)
        return -1;
    if ((size_t)t->len + n > t->cap) {
        size_t cap = t->cap;
        char *b = gs_vec_grow(t->buf, &cap, (size_t)t->len + n, 1);
        if (!b)
            return -1;
        t->buf = b;
        t->cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
    }
    return 0;
}

/* The text at off..off+len (and its NUL) when it lies inside t, else NULL. */
static const char *text_at(const struct gs_text *t, uint32_t off, uint32_t len)
{
    if (!len || !t->buf || (uint64_t)off + len >= t->len)
        return NULL;
    return t->buf + off;
}

const char *gs_proc_name(const struct gs_gpu *gpu, const struct gs_proc *p)
{
    const char *s = text_at(&gpu->text, p->name_off, p->name_len);
    return s ? s : p->name;
}

int gs_proc_set_long_name(struct gs_gpu *gpu, struct gs_proc *p, const char *name, size_t len)
{
    struct gs_text *t = &gpu->text;

    if (text_reserve(t, len + 1) < 0)
        return -1;
    memcpy(t->buf + t->len, name, len);
    t->buf[t->len + len] = '\0';
    p->name_off = t->len;
    p->name_len = (uint32_t)len;
    t->len += (uint32_t)len + 1;
    return 0;
}

const char *gs_proc_cmdline(const struct gs_text *t, const struct gs_proc *p)
{
    const char *s = text_at(t, p->cmd_off, p->cmd_len);
    return s ? s : "";
}

bool gs_proc_cmdline_sep(const struct gs_text *t, const struct gs_proc *p, size_t i)
{
    const char *s = text_at(t, p->cmd_off, p->cmd_len);

    if (!s || i / 8 >= p->cmd_sep_bytes || (uint64_t)p->cmd_off + p->cmd_len + 1 + p->cmd_sep_bytes > t->len)
        return false;
    return ((const uint8_t *)s)[p->cmd_len + 1 + i / 8] & (1u << (i % 8));
}

int gs_proc_set_cmdline(struct gs_text *t, struct gs_proc *p, const char *cmd, size_t len,
                        const uint8_t *sep, size_t nsep)
{
    p->cmd_off = p->cmd_len = p->cmd_sep_bytes = 0;
    if (!len)
        return 0;
    assert(len < GS_CMDLINE_MAX && nsep <= GS_CMDLINE_MAX / 8);
    if (text_reserve(t, len + 1 + nsep) < 0) {
        p->valid &= ~(UINT32_C(1) << GS_P_COMM); /* not "" with an OK status: not available */
        return -1;
    }
    char *d = t->buf + t->len;
    memcpy(d, cmd, len);
    d[len] = '\0';
    if (nsep)
        memcpy(d + len + 1, sep, nsep);
    p->cmd_off = t->len;
    p->cmd_len = (uint32_t)len;
    p->cmd_sep_bytes = (uint32_t)nsep;
    t->len += (uint32_t)(len + 1 + nsep);
    return 0;
}

void gs_text_release(struct gs_text *t)
{
    free(t->buf);
    memset(t, 0, sizeof(*t));
}

const struct gs_prof_info *gs_prof_info(enum gs_prof k)
{
    /* HELP texts as dcgm-exporter's etc/dcp-metrics-included.csv words them (NVLink, which it
     * does not list: DCGM's dcgm_fields.h, as a rate) */
    static const struct gs_prof_info info[GS_PROF_COUNT] = {
        [GS_PROF_GR_ENGINE] = { "gr_engine_active_ratio", "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                                "Ratio of time the graphics engine is active.", false },
        [GS_PROF_SM_ACTIVE] = { "sm_active_ratio", "DCGM_FI_PROF_SM_ACTIVE",
                                "The ratio of cycles an SM has at least 1 warp assigned.", false },
        [GS_PROF_SM_OCCUPANCY] = { "sm_occupancy_ratio", "DCGM_FI_PROF_SM_OCCUPANCY",
                                   "The ratio of number of warps resident on an SM.", false },
        [GS_PROF_TENSOR] = { "pipe_tensor_active_ratio", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                             "Ratio of cycles the tensor (HMMA) pipe is active.", false },
        [GS_PROF_DRAM] = { "dram_active_ratio", "DCGM_FI_PROF_DRAM_ACTIVE",
                           "Ratio of cycles the device memory interface is active sending or receiving data.", false },
        [GS_PROF_FP64] = { "pipe_fp64_active_ratio", "DCGM_FI_PROF_PIPE_FP64_ACTIVE",
                           "Ratio of cycles the fp64 pipes are active.", false },
        [GS_PROF_FP32] = { "pipe_fp32_active_ratio", "DCGM_FI_PROF_PIPE_FP32_ACTIVE",
                           "Ratio of cycles the fp32 pipes are active.", false },
        [GS_PROF_FP16] = { "pipe_fp16_active_ratio", "DCGM_FI_PROF_PIPE_FP16_ACTIVE",
                           "Ratio of cycles the fp16 pipes are active.", false },
        [GS_PROF_PCIE_TX] = { "pcie_tx_bytes_per_s", "DCGM_FI_PROF_PCIE_TX_BYTES",
                              "The rate of data transmitted over the PCIe bus - including both protocol "
                              "headers and data payloads - in bytes per second.", true },
        [GS_PROF_PCIE_RX] = { "pcie_rx_bytes_per_s", "DCGM_FI_PROF_PCIE_RX_BYTES",
                              "The rate of data received over the PCIe bus - including both protocol "
                              "headers and data payloads - in bytes per second.", true },
        [GS_PROF_NVLINK_TX] = { "nvlink_tx_bytes_per_s", "DCGM_FI_PROF_NVLINK_TX_BYTES",
                                "The rate of active NvLink tx (transmit) data including both header and "
                                "payload, in bytes per second.", true },
        [GS_PROF_NVLINK_RX] = { "nvlink_rx_bytes_per_s", "DCGM_FI_PROF_NVLINK_RX_BYTES",
                                "The rate of active NvLink rx (read) data including both header and "
                                "payload, in bytes per second.", true },
    };
    return (unsigned)k < GS_PROF_COUNT ? &info[k] : NULL;
}

const struct gs_mig *gs_gpu_find_mig(const struct gs_gpu *g, uint32_t gi, uint32_t ci)
{
    for (uint32_t i = 0; i < g->nmig && i < GS_MAX_MIG; i++)
        if (g->mig[i].gpu_instance_id == gi && (ci == UINT32_MAX || g->mig[i].compute_instance_id == ci))
            return &g->mig[i];
    return NULL;
}

unsigned gs_gpu_gpu_instances(const struct gs_gpu *g, uint32_t *out)
{
    unsigned n = 0;
    for (uint32_t i = 0; i < g->nmig && i < GS_MAX_MIG; i++) {
        bool seen = false;
        for (unsigned k = 0; k < n && !seen; k++)
            seen = g->mig[out[k]].gpu_instance_id == g->mig[i].gpu_instance_id;
        if (!seen)
            out[n++] = i;
    }
    return n;
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

/* One row per clock-event (throttle) reason bit, in bit order: the words of
 * gpuscope's own lines, and nvidia-smi's clocks_event_reasons.* name. */
const struct gs_throttle_name gs_throttle_names[GS_THROTTLE_NAMES] = {
    { GS_THROTTLE_GPU_IDLE, "idle", "gpu_idle" },
    { GS_THROTTLE_APP_CLOCKS, "application clocks", "applications_clocks_setting" },
    { GS_THROTTLE_SW_POWER_CAP, "SW power cap", "sw_power_cap" },
    { GS_THROTTLE_HW_SLOWDOWN, "HW slowdown", "hw_slowdown" },
    { GS_THROTTLE_SYNC_BOOST, "sync boost", "sync_boost" },
    { GS_THROTTLE_SW_THERMAL, "SW thermal", "sw_thermal_slowdown" },
    { GS_THROTTLE_HW_THERMAL, "HW thermal", "hw_thermal_slowdown" },
    { GS_THROTTLE_HW_POWER_BRAKE, "HW power brake", "hw_power_brake_slowdown" },
    { GS_THROTTLE_DISPLAY_CLOCK, "display clock", "display_clock_setting" },
};

const char *gs_throttle_str(uint64_t mask, char *buf, unsigned len)
{
    size_t used = 0;

    if (!len)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < GS_THROTTLE_NAMES; i++) {
        if (!(mask & gs_throttle_names[i].bit))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", gs_throttle_names[i].human);
        if (n < 0 || (size_t)n >= len - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

const char *gs_viol_name(enum gs_viol v)
{
    static const char *const names[GS_VIOL_COUNT] = {
        "power", "thermal", "sync_boost", "board_limit", "low_util", "reliability", "hw_thermal", "hw_power_brake",
    };
    return (unsigned)v < GS_VIOL_COUNT ? names[v] : "?";
}
