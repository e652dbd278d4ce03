/* SPDX-License-Identifier: MIT */
/*
 * clients.h - the DRM clients of the machine, from /proc: which processes
 * hold a DRM node, what their fdinfo says, and each client's engine busy
 * time turned into utilization by the delta between two ticks.
 *
 * Cost (this is the DRM backend's per-tick hot path). /proc is listed at
 * most once per tick (one getdents pass), and only when a process may have
 * appeared since the last listing: when the kernel's last PID (loadavg) moved,
 * at the tick after, and at least every 5 s (clients.c, dc_must_list); a
 * process is looked into (its fd directory, one readlink per fd) when first
 * seen and then every 2.5-5 s (each PID on its own phase); only a process
 * that holds a DRM node has its DRM fds' fdinfo read, every tick, one pread
 * on a kept fd each, through a directory it keeps open (which pins the
 * process: a reused PID is not mistaken for it). Every holder is read every
 * tick, idle or not: a client whose counters did not move cannot be told
 * from one that did without reading it. A client that several fds or
 * processes share (dup, fork) is counted once, by (device, drm-client-id),
 * for the first process that shows it.
 *
 * Time: rates use the caller's clock (CLOCK_MONOTONIC), or the tree's
 * virtual clock when the tree is gpuscope's DRM simulator (drmsim writes
 * the instant its files describe), so planted deltas come out exact.
 */
#ifndef GS_DRM_CLIENTS_H
#define GS_DRM_CLIENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/drm/fdinfo.h"
#include "core/model.h"

struct gs_drmc;

/* A GPU the scanner attributes clients to. */
struct gs_drmc_gpu_id {
    char bdf[16];                       /* "0000:03:00.0" (drm-pdev) */
    int card_minor, render_minor;       /* N of /dev/dri/cardN, renderDN (-1: none) */
    const struct gs_fdinfo_keys *keys;  /* the driver's table */
    bool discrete;                      /* device memory counts as the GPU memory */
};

/* One process's clients on one GPU in the latest scan. */
struct gs_drmc_proc {
    uint32_t pid;
    uint32_t clients;                   /* distinct drm-client-ids */
    bool util_ok;                       /* every client had a previous reading */
    uint16_t engine_pct[GS_MAX_ENGINES];/* capacity-normalized, each capped at 100 */
    uint32_t engines_used;              /* bit per slot: busy time grew */
    bool has_mem;
    uint64_t dev_mem_bytes, sys_mem_bytes;
};

/* What the scanner knows about one GPU after a scan. */
struct gs_drmc_gpu {
    struct gs_drmc_gpu_id id;
    uint32_t nprocs;
    struct gs_drmc_proc *procs;         /* nprocs, owned by the scanner */
    uint32_t procs_cap;
    bool util_ok;                       /* an interval to compute engine busy over exists */
    uint16_t engine_pct[GS_MAX_ENGINES];/* all clients together, capped at 100 */
    uint64_t dev_mem_bytes, sys_mem_bytes; /* all clients together */
};

/* proc_root: NULL or "" -> "/proc". Returns 0 or -errno. */
int gs_drmc_open(struct gs_drmc **out, const char *proc_root);
void gs_drmc_close(struct gs_drmc *c);
/* Attribute clients to this GPU; returns its slot (0, 1, ...) or -1. */
int gs_drmc_add_gpu(struct gs_drmc *c, const struct gs_drmc_gpu_id *id);

/* A tick begins at now_ns (CLOCK_MONOTONIC, or the simulator's virtual
 * time); the next gs_drmc_scan() scans, later ones in the tick do nothing. */
void gs_drmc_tick(struct gs_drmc *c, uint64_t now_ns);
/* Scan /proc once for this tick (no-op when done). 0, or -errno when /proc
 * cannot be listed (every GPU's clients are then unknown). */
int gs_drmc_scan(struct gs_drmc *c);
/* Has this tick's scan been done? */
bool gs_drmc_scanned(const struct gs_drmc *c);
/* The latest scan's view of GPU slot (NULL for a bad slot). */
const struct gs_drmc_gpu *gs_drmc_gpu(const struct gs_drmc *c, int slot);
/* Did the latest scan read every process's fd directory? false: some were
 * another user's (not root: their clients, and memory, are missing). */
bool gs_drmc_complete(const struct gs_drmc *c);

/* Counters since open, for query --debug and the benchmark. */
struct gs_drmc_stats {
    uint64_t scans, pids_listed, fd_dirs_read, links_read, fdinfo_read;
    uint64_t listings;                  /* /proc listings (not every scan lists: see clients.c) */
};
void gs_drmc_stats(const struct gs_drmc *c, struct gs_drmc_stats *out);

#endif /* GS_DRM_CLIENTS_H */
