/* SPDX-License-Identifier: MIT */
/*
 * badge.c - a finding in a few plain words, for places with room for a badge
 * rather than a report (the live view's GPU blocks): "HW slowdown",
 * "memory leak pid 1234", "row remap pending", "Xid 79 fell off the bus".
 */
#include "health/health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *code;
    const char *words;
    bool with_pid;     /* add " pid N" */
} words[] = {
    { "gpu.count_low", "GPU missing", false },
    { "gpu.lost", "GPU lost", false },
    { "gpu.unreadable", "unreadable", false },
    { "gpu.busy_no_process", "busy, no process", false },
    { "config.persistence_off", "persistence off", false },
    { "ecc.uncorrectable", "uncorrectable ECC", false },
    { "ecc.remap_failed", "row remap failed", false },
    { "ecc.remap_pending", "row remap pending", false },
    { "ecc.remap_limit", "many rows remapped", false },
    { "ecc.retired_pending", "page retirement pending", false },
    { "ecc.retired_limit", "retired page limit", false },
    { "pcie.width_degraded", "PCIe width degraded", false },
    { "pcie.gen_degraded", "PCIe gen degraded", false },
    { "pcie.replay_rate", "PCIe replays", false },
    { "thermal.hw_slowdown", "HW slowdown", false },
    { "thermal.sw_slowdown", "SW thermal slowdown", false },
    { "thermal.near_slowdown", "near slowdown temp", false },
    { "power.hw_power_brake", "HW power brake", false },
    { "power.limit_reduced", "power limit reduced", false },
    { "proc.idle_memory", "idle memory", true },
    { "proc.memory_leak", "memory leak", true },
    { "proc.input_stall", "input stall", true },
    { "proc.outside_visible_devices", "outside CUDA_VISIBLE_DEVICES", true },
    { "job.gpu_lagging", "lags its job", false },
    { "proc.torch_oom", "PyTorch OOM", true },
    { "proc.torch_fragmentation", "PyTorch fragmentation", true },
    { "proc.torch_growth", "PyTorch memory growth", true },
};

const char *gs_finding_words(const struct gs_finding *f, char *buf, size_t len)
{
    if (!len)
        return buf;
    if (!strncmp(f->code, "xid.", 4)) {
        uint32_t xid = (uint32_t)strtoul(f->code + 4, NULL, 10);
        const struct gs_xid_info *x = gs_xid_lookup(xid);
        snprintf(buf, len, "Xid %u %s", xid, x ? x->words : "(see the Xid catalog)");
        return buf;
    }
    if (!strncmp(f->code, "driver.", 7)) {
        snprintf(buf, len, "driver: %s", f->code + 7);
        return buf;
    }
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(f->code, words[i].code))
            continue;
        if (words[i].with_pid && f->pid)
            snprintf(buf, len, "%s pid %u", words[i].words, f->pid);
        else
            snprintf(buf, len, "%s", words[i].words);
        return buf;
    }
    snprintf(buf, len, "%s", f->code); /* a check added later without words yet */
    return buf;
}
