/* SPDX-License-Identifier: MIT */
/*
 * devholders.h - which processes hold /dev/nvidiaN open (what operators ask
 * `fuser -v /dev/nvidia*` when a GPU is busy but NVML lists no process).
 * One walk of /proc/PID/fd, done only when a check asks for it.
 */
#ifndef GS_DEVHOLDERS_H
#define GS_DEVHOLDERS_H

#include <stddef.h>
#include <stdint.h>

struct gs_dev_holder {
    uint32_t pid;
    uint32_t minor;    /* N of /dev/nvidiaN */
    char comm[17];
};

/* Processes under proc_root (NULL: /proc) with /dev/nvidiaN open for a minor
 * whose bit is set in minors (N < 64); the calling process itself is left out.
 * Returns the count found (at most cap); unreadable processes are skipped. */
size_t gs_dev_holders(const char *proc_root, uint64_t minors, struct gs_dev_holder *out, size_t cap);

#endif /* GS_DEVHOLDERS_H */
