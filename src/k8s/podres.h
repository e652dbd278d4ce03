/* SPDX-License-Identifier: MIT */
/*
 * podres.h - the kubelet's pod-resources answer (v1 PodResourcesLister/List)
 * as a map from device to the containers it is allocated to, with
 * dcgm-exporter's reading of device IDs. The decoder is a parser of bytes
 * from another process (fuzz/fuzz_podres.c): it takes the gRPC response body
 * as received and never trusts a length or a string in it.
 *
 * A map is immutable once built and reference-counted, so the thread that
 * refreshes it (kubelet.h) can hand the same map to every exporter tick and
 * to renderings in HTTP threads without copying.
 */
#ifndef GS_K8S_PODRES_H
#define GS_K8S_PODRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

/* The kubelet's own client accepts answers up to 16 MiB (defaultPodResourcesMaxSize). */
#define GS_K8S_MAX_ANSWER (16u * 1024u * 1024u)

/* One device ID of one container, as the kubelet listed it. Strings belong to the map. */
struct gs_k8s_alloc {
    const char *key;       /* the device it names: "GPU-<uuid>", "MIG-<uuid>", "nvidia0", "nvidia0/gi1" */
    const char *device_id; /* as listed: "GPU-<uuid>::1", "nvidia0/vgpu2", ... */
    const char *resource;  /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", ... */
    const char *ns;        /* pod namespace */
    const char *pod;       /* pod name */
    const char *container; /* container name */
    const char *vgpu;      /* replica "N" of a shared device ("::N", "/vgpuN"); NULL: not shared */
    uint32_t seq;          /* position in the kubelet's answer (later = larger) */
};

/* Which resources count as NVIDIA GPUs: nvidia.com/gpu and nvidia.com/mig-* always
 * (as dcgm-exporter), plus these names (dcgm-exporter --nvidia-resource-names), for
 * renamed resources such as nvidia.com/gpu.shared. */
struct gs_k8s_map_opts {
    const char *const *resource_names;
    unsigned nresource_names;
};

struct gs_k8s_map;

/* Decode one gRPC response body (5-byte message prefix + protobuf) of
 * ListPodResourcesResponse into a new map (one reference, *out). Devices of
 * other resources are left out. Returns 0, or -GS_E_PARSE / -GS_E_NOMEM with
 * err saying what is wrong with the answer. */
int gs_k8s_decode(const void *body, size_t len, const struct gs_k8s_map_opts *o, struct gs_k8s_map **out,
                  struct gs_err *err);

void gs_k8s_map_ref(struct gs_k8s_map *m);
void gs_k8s_map_unref(struct gs_k8s_map *m); /* NULL: no-op */

/* The allocations of device key, oldest first (in the kubelet's order); *n of them
 * (0: none, NULL returned). dcgm-exporter without --kubernetes-virtual-gpus labels a
 * device with the last one; with it, with each. Valid while the map is referenced. */
const struct gs_k8s_alloc *gs_k8s_find(const struct gs_k8s_map *m, const char *key, unsigned *n);

/* Every allocation, sorted by (key, seq). */
const struct gs_k8s_alloc *gs_k8s_all(const struct gs_k8s_map *m, unsigned *n);
/* Pods that hold at least one NVIDIA device. */
unsigned gs_k8s_npods(const struct gs_k8s_map *m);

/* The device key and replica of one device ID (dcgm-exporter's rules): "X::N" and
 * GKE's "nvidiaN/vgpuM" are replica N / M of X / nvidiaN; "nvidiaN/giG[/vgpuM]" is
 * GKE's MIG instance G of GPU N. *keylen: how much of device_id is the key; *vgpu,
 * *vgpulen: the replica part (NULL, 0 when not shared). */
void gs_k8s_device_key(const char *device_id, size_t *keylen, const char **vgpu, size_t *vgpulen);

/* Whether resource counts as an NVIDIA GPU under o (NULL: the defaults only). */
bool gs_k8s_resource_ok(const struct gs_k8s_map_opts *o, const char *resource);

#endif /* GS_K8S_PODRES_H */
