/* SPDX-License-Identifier: MIT */
/*
 * podmap.h - Kubernetes pod names without the API server. The sampler gives
 * each process a pod UID and a container ID (from /proc/PID/cgroup); this
 * module turns them into namespace, pod and container names by listing the
 * kubelet's log directories on the node:
 *   <root>/var/log/pods/<namespace>_<pod>_<uid>/            UID -> namespace, pod
 *   <root>/var/log/containers/<pod>_<namespace>_<container>-<id>.log   id -> container
 * where <root> is a prefix ("" on the host, "/host" in a container that
 * mounts the host's /var/log there, a fixture tree in tests).
 *
 * Not thread-safe: the exporter's sampler thread owns it. Lookups never touch
 * the disk; gs_podmap_tick() rescans when a lookup missed (at most every 5 s)
 * and otherwise every 60 s, so names returned stay valid until the next tick.
 */
#ifndef GS_SERVE_PODMAP_H
#define GS_SERVE_PODMAP_H

#include <stdbool.h>
#include <stdint.h>

struct gs_podmap;

/* root: prefix for /var/log ("" or NULL for none); copied. NULL on OOM. */
struct gs_podmap *gs_podmap_new(const char *root);
void gs_podmap_free(struct gs_podmap *pm);

/* Call once per tick before lookups; now_ns is CLOCK_MONOTONIC. */
void gs_podmap_tick(struct gs_podmap *pm, uint64_t now_ns);

/* Pod UID (with dashes) -> namespace and pod name; false when unknown. */
bool gs_podmap_pod(struct gs_podmap *pm, const char *pod_uid, const char **ns, const char **pod);
/* Container ID (64 hex) -> container name; NULL when unknown. */
const char *gs_podmap_container(struct gs_podmap *pm, const char *container_id);

/* Number of pods and containers known after the last scan (for tests). */
unsigned gs_podmap_npods(const struct gs_podmap *pm);
unsigned gs_podmap_ncontainers(const struct gs_podmap *pm);

#endif /* GS_SERVE_PODMAP_H */
