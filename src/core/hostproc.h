/* SPDX-License-Identifier: MIT */
/*
 * hostproc.h - host facts for the processes NVML reports: user, command line,
 * CPU %, resident memory, start time, parent, process group, container and pod.
 *
 * Reads only the PIDs it is given (never scans all of /proc), each at most once
 * per tick however many GPUs it is on, and caches what cannot change for a
 * given PID + start time (user, command line, container). All paths go through
 * a root prefix (default "/proc") so tests can point it at a fixture tree.
 */
#ifndef GS_HOSTPROC_H
#define GS_HOSTPROC_H

#include <stdint.h>

#include "core/model.h"

struct gs_hostproc;

/* proc_root: NULL means "/proc". clk_tck and page size are read once here. */
int gs_hostproc_open(struct gs_hostproc **out, const char *proc_root);
void gs_hostproc_close(struct gs_hostproc *hp);

/* Start a tick at CLOCK_MONOTONIC now_ns and wall-clock now_s. */
void gs_hostproc_begin(struct gs_hostproc *hp, uint64_t now_ns, int64_t now_s);
/* Fill the host fields of p (p->pid set) and its host_vis. A PID this tick has
 * already seen is filled from the tick's cache without touching /proc. */
void gs_hostproc_fill(struct gs_hostproc *hp, struct gs_proc *p);
/* End the tick: forget PIDs not seen in it. */
void gs_hostproc_end(struct gs_hostproc *hp);

/* Parsers, exposed for unit tests and fuzzing. Each returns 0 or -1. */
/* /proc/PID/stat contents -> comm, state, ppid, pgid, utime+stime ticks, starttime ticks, rss pages. */
struct gs_proc_stat {
    char comm[17];
    char state;
    uint32_t ppid, pgid;
    uint64_t cpu_ticks;    /* utime + stime */
    uint64_t start_ticks;  /* since boot */
    uint64_t rss_pages;
};
int gs_hostproc_parse_stat(const char *buf, size_t len, struct gs_proc_stat *out);
/* /proc/PID/cgroup contents (v1 or v2) -> container id, runtime, pod uid into p. */
int gs_hostproc_parse_cgroup(const char *buf, size_t len, struct gs_proc *p);

#endif /* GS_HOSTPROC_H */
