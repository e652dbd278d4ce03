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
#include "lib/procstat.h"

struct gs_hostproc;

/* proc_root: NULL or "" means "/proc". clk_tck and page size are read once here. */
int gs_hostproc_open(struct gs_hostproc **out, const char *proc_root);
void gs_hostproc_close(struct gs_hostproc *hp);

/* Only one tick will be read (a one-shot query), for the host fields in
 * want (1 << GS_P_x; 0: all): keep no descriptor for a next tick, and read
 * only the files want needs (user and command alone: no stat; no container
 * or pod: no cgroup; no CPU % or CPU time: no CPU clock). The fields not
 * wanted may still be filled. */
void gs_hostproc_once(struct gs_hostproc *hp, uint32_t want);
/* In want: GS_P_COMM is the short name alone, the command line is not read. */
#define GS_HOSTPROC_NO_CMDLINE (1u << 31)
_Static_assert(GS_P_COUNT < 31, "GS_HOSTPROC_NO_CMDLINE is above the process fields");
/* Start a tick at CLOCK_MONOTONIC now_ns and wall-clock now_s. */
void gs_hostproc_begin(struct gs_hostproc *hp, uint64_t now_ns, int64_t now_s);
/* Fill the host fields of p (p->pid set) and its host_vis; its command line goes
 * into text (the arena of the GPU p is listed on). A PID this tick has already
 * seen is filled from the tick's cache without touching /proc. */
void gs_hostproc_fill(struct gs_hostproc *hp, struct gs_text *text, struct gs_proc *p);
/* End the tick: forget PIDs not seen in it. */
void gs_hostproc_end(struct gs_hostproc *hp);
/* Which PIDs someone looks at (the rows on top's screen): their CPU and RSS
 * are read every tick, the others' every GS_HOSTPROC_BACKGROUND_MS (each PID
 * on its own phase) and handed on in between. pids NULL: every PID every tick
 * (the default). The set holds until the next call. */
#define GS_HOSTPROC_BACKGROUND_MS 5000u
void gs_hostproc_focus(struct gs_hostproc *hp, const uint32_t *pids, uint32_t n);

/* The cgroup parser, exposed for unit tests and fuzzing (/proc/PID/stat's is
 * gs_proc_stat_parse, lib/procstat.h): /proc/PID/cgroup contents (v1 or v2)
 * -> container id, runtime, pod uid into p. Returns 0 or -1. */
int gs_hostproc_parse_cgroup(const char *buf, size_t len, struct gs_proc *p);

#endif /* GS_HOSTPROC_H */
