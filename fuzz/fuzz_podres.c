/* SPDX-License-Identifier: MIT */
/*
 * fuzz_podres.c - libFuzzer harness for gs_k8s_decode (the kubelet's gRPC
 * answer: message prefix, then a protobuf ListPodResourcesResponse). Either it
 * fails with a message, or every allocation in the map is well-formed: the key
 * a prefix of its device ID, strings terminated, the map sorted by (key, seq)
 * so that a lookup finds every entry of its key, and only NVIDIA resources.
 * The seeds in fuzz/corpus/podres/ are answers a kubelet gives.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/podres.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct gs_k8s_map *m)
{
    unsigned n, nk;
    const struct gs_k8s_alloc *a = gs_k8s_all(m, &n);
    for (unsigned i = 0; i < n; i++) {
        size_t kl = strlen(a[i].key);
        if (!kl || strncmp(a[i].key, a[i].device_id, kl) || !a[i].pod[0] || !a[i].ns[0])
            abort();
        if (!gs_k8s_resource_ok(NULL, a[i].resource) || (a[i].vgpu && !a[i].vgpu[0]))
            abort();
        if (i && (strcmp(a[i - 1].key, a[i].key) > 0 ||
                  (!strcmp(a[i - 1].key, a[i].key) && a[i - 1].seq >= a[i].seq)))
            abort();
        const struct gs_k8s_alloc *f = gs_k8s_find(m, a[i].key, &nk);
        if (!f || f > &a[i] || &a[i] >= f + nk)
            abort();
    }
    if (gs_k8s_npods(m) > n)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_k8s_map *m = NULL;
    struct gs_err err = { 0 };
    uint8_t *buf = malloc(size ? size : 1); /* exactly size bytes: reads past them are caught */
    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    if (gs_k8s_decode(buf, size, NULL, &m, &err) == 0) {
        check(m);
        gs_k8s_map_unref(m);
    } else if (m || !err.msg[0]) {
        abort();
    }
    free(buf);
    return 0;
}
