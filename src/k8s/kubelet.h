/* SPDX-License-Identifier: MIT */
/*
 * kubelet.h - the kubelet's pod-resources socket: one List call over gRPC
 * (nghttp2's HTTP/2 on a UNIX socket, kubelet_call.c), and a thread that
 * repeats it on its own cadence and keeps the last good map (kubelet.c), so
 * that neither the exporter's sampler nor its HTTP threads ever wait on the
 * kubelet. docs/SERVE.md ("Kubernetes pods") is the user's side of this.
 */
#ifndef GS_K8S_KUBELET_H
#define GS_K8S_KUBELET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "k8s/podres.h"

#define GS_KUBELET_SOCKET "/var/lib/kubelet/pod-resources/kubelet.sock"

/* One v1.PodResourcesLister/List call on the UNIX socket at path, answered within
 * timeout_ms (connection included). *out gets a new map (one reference). stop, if
 * not NULL, aborts the call as soon as it reads true. Returns 0, or a negative
 * enum gs_errc with err saying what failed: cannot connect, no answer in time, not
 * gRPC, a gRPC error status (named), a malformed answer (podres.h). */
int gs_kubelet_list(const char *path, uint32_t timeout_ms, const struct gs_k8s_map_opts *mo,
                    const atomic_bool *stop, struct gs_k8s_map **out, struct gs_err *err);

struct gs_kubelet_opts {
    const char *socket;      /* path of the kubelet's socket (GS_KUBELET_SOCKET); copied */
    uint32_t interval_ms;    /* between the starts of two calls */
    uint32_t timeout_ms;     /* for one call */
    bool required;           /* the socket was asked for by name: its absence counts as an error */
    struct gs_k8s_map_opts map; /* borrowed: must outlive the refresher */
};

/* Where the refresher stands. */
struct gs_kubelet_status {
    struct gs_k8s_map *map;  /* the last good map (a reference the caller drops), or NULL */
    uint64_t map_mono_ns;    /* when the call that produced it started (CLOCK_MONOTONIC) */
    bool seen;               /* the socket existed at some point, or is required */
    bool present;            /* the socket existed at the latest attempt */
    bool up;                 /* the latest call succeeded */
    uint64_t refreshes;      /* calls made */
    uint64_t errors;         /* calls that failed, and attempts that found a required socket absent */
    double last_duration_s;  /* wall time of the latest call */
    double cpu_s;            /* CPU time the refresher thread used, in total */
};

struct gs_kubelet;

/* Start the refresher thread; its first attempt begins at once. */
int gs_kubelet_start(struct gs_kubelet **out, const struct gs_kubelet_opts *o, struct gs_err *err);
/* Wait for the first attempt to end, for at most ms. */
void gs_kubelet_wait_first(struct gs_kubelet *k, uint32_t ms);
/* A consistent copy of the status; st->map is a new reference (or NULL). */
void gs_kubelet_status(struct gs_kubelet *k, struct gs_kubelet_status *st);
/* Stop the thread (a call in flight is aborted) and free everything. NULL: no-op. */
void gs_kubelet_stop(struct gs_kubelet *k);

#endif /* GS_K8S_KUBELET_H */
