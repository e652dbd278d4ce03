/* SPDX-License-Identifier: MIT */
/*
 * k8s_fixture.h - for the tests of the kubelet client (test_k8s.c, test_prom_kube.c): a
 * ListPodResourcesResponse packed by protobuf-c behind gRPC's 5-byte message prefix, as the
 * body of the kubelet's answer arrives, and the map decoded from one (also test_prom_mig.c).
 */
#ifndef GS_TEST_K8S_FIXTURE_H
#define GS_TEST_K8S_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>

#include "k8s/podres.h"
#include "k8s/podresources.pb-c.h"

/* The answer's body (malloc'd, the caller frees it); *len gets its size. NULL on OOM. */
static inline uint8_t *k8s_fixture_frame(const V1__ListPodResourcesResponse *r, size_t *len)
{
    size_t n = v1__list_pod_resources_response__get_packed_size(r);
    uint8_t *b = malloc(n + 5);
    *len = 0;
    if (!b)
        return NULL;
    b[0] = 0; /* not compressed */
    b[1] = (uint8_t)(n >> 24), b[2] = (uint8_t)(n >> 16), b[3] = (uint8_t)(n >> 8), b[4] = (uint8_t)n;
    v1__list_pod_resources_response__pack(r, b + 5);
    *len = n + 5;
    return b;
}

/* One container per allocation, in this order (the kubelet's). */
struct k8s_fixture_alloc {
    const char *ns, *pod, *ctr, *resource, *id;
};

/* The map gs_k8s_decode makes of an answer with these allocations (n <= 8), or NULL. */
static inline struct gs_k8s_map *k8s_fixture_map(const struct k8s_fixture_alloc *a, size_t n)
{
    V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
    V1__PodResources pr[8], *prp[8];
    V1__ContainerResources cr[8], *crp[8];
    V1__ContainerDevices cd[8], *cdp[8];
    char *ids[8];
    if (n > 8)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        v1__pod_resources__init(&pr[i]);
        v1__container_resources__init(&cr[i]);
        v1__container_devices__init(&cd[i]);
        pr[i].namespace_ = (char *)a[i].ns;
        pr[i].name = (char *)a[i].pod;
        cr[i].name = (char *)a[i].ctr;
        cd[i].resource_name = (char *)a[i].resource;
        ids[i] = (char *)a[i].id;
        cd[i].n_device_ids = 1;
        cd[i].device_ids = &ids[i];
        cdp[i] = &cd[i];
        cr[i].n_devices = 1;
        cr[i].devices = &cdp[i];
        crp[i] = &cr[i];
        pr[i].n_containers = 1;
        pr[i].containers = &crp[i];
        prp[i] = &pr[i];
    }
    r.n_pod_resources = n;
    r.pod_resources = prp;
    size_t len = 0;
    uint8_t *b = k8s_fixture_frame(&r, &len);
    struct gs_k8s_map *m = NULL;
    struct gs_err err = { 0 };
    if (b && gs_k8s_decode(b, len, NULL, &m, &err) < 0)
        m = NULL;
    free(b);
    return m;
}

#endif /* GS_TEST_K8S_FIXTURE_H */
