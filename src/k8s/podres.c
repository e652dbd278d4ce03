/* SPDX-License-Identifier: MIT */
/*
 * podres.c - decoding the kubelet's ListPodResourcesResponse (gRPC message
 * prefix, then protobuf-c) into the device -> containers map of podres.h.
 * The map is one block: the allocations array followed by their strings, so
 * building it is two passes (size, then fill) and freeing it is one free().
 */
#include "k8s/podres.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "k8s/podresources.pb-c.h"

struct gs_k8s_map {
    atomic_uint refs;
    unsigned n;               /* allocations */
    unsigned npods;           /* pods holding at least one of them */
    struct gs_k8s_alloc *a;   /* n entries, sorted by (key, seq); points into this block */
    char *str;                /* string area, after a[] */
    size_t str_len;
};

#define K8S_RES_GPU "nvidia.com/gpu"
#define K8S_RES_MIG_PREFIX "nvidia.com/mig-"

bool gs_k8s_resource_ok(const struct gs_k8s_map_opts *o, const char *resource)
{
    if (!resource)
        return false;
    if (!strcmp(resource, K8S_RES_GPU) || !strncmp(resource, K8S_RES_MIG_PREFIX, strlen(K8S_RES_MIG_PREFIX)))
        return true;
    for (unsigned i = 0; o && i < o->nresource_names; i++)
        if (o->resource_names[i] && !strcmp(resource, o->resource_names[i]))
            return true;
    return false;
}

/* "nvidia<digits>/gi<digits>", returning its length, or 0. */
static size_t k8s_gke_mig(const char *id)
{
    const char *p = id;
    if (strncmp(p, "nvidia", 6))
        return 0;
    p += 6;
    size_t d = strspn(p, "0123456789");
    if (!d || strncmp(p + d, "/gi", 3))
        return 0;
    p += d + 3;
    size_t g = strspn(p, "0123456789");
    if (!g)
        return 0;
    p += g;
    /* the whole ID must be this, optionally followed by "/vgpu<digits>" */
    if (*p && (strncmp(p, "/vgpu", 5) || !p[5] || strspn(p + 5, "0123456789") != strlen(p + 5)))
        return 0;
    return (size_t)(p - id);
}

/* The piece after sep up to the next sep (Go's strings.Split(id, sep)[1]). */
static void k8s_after(const char *at, const char *sep, const char **v, size_t *vlen)
{
    *v = at + strlen(sep);
    const char *next = strstr(*v, sep);
    *vlen = next ? (size_t)(next - *v) : strlen(*v);
}

void gs_k8s_device_key(const char *id, size_t *keylen, const char **vgpu, size_t *vgpulen)
{
    const char *at;
    size_t gke;
    *vgpu = NULL;
    *vgpulen = 0;
    *keylen = strlen(id);
    /* dcgm-exporter's order: a replica of either form first ("/vgpu" before "::"),
     * then what names the device: a MIG UUID, GKE's MIG form, "X/vgpuN", "X::N" */
    if ((at = strstr(id, "/vgpu")))
        k8s_after(at, "/vgpu", vgpu, vgpulen);
    else if ((at = strstr(id, "::")))
        k8s_after(at, "::", vgpu, vgpulen);
    if (!strncmp(id, "MIG-", 4)) {
        if ((at = strstr(id, "::")))
            *keylen = (size_t)(at - id);
    } else if ((gke = k8s_gke_mig(id))) {
        *keylen = gke;
    } else if ((at = strstr(id, "/vgpu")) || (at = strstr(id, "::"))) {
        *keylen = (size_t)(at - id);
    }
    if (*vgpu && !*vgpulen)
        *vgpu = NULL; /* "X::" names no replica */
}

/* ---- the map block ------------------------------------------------------------------ */

static const char *k8s_str(struct gs_k8s_map *m, const char *s, size_t len)
{
    char *d = m->str + m->str_len;
    memcpy(d, s, len);
    d[len] = '\0';
    m->str_len += len + 1;
    return d;
}

static bool k8s_usable(const char *s)
{
    return s && *s;
}

/* A device ID that names some device ("/vgpu1" or "::1" alone name none). */
static bool k8s_usable_id(const char *id)
{
    size_t keylen, vlen;
    const char *v;
    if (!k8s_usable(id))
        return false;
    gs_k8s_device_key(id, &keylen, &v, &vlen);
    return keylen > 0;
}

/* Calls fn(ctx, pod, container, resource, id) for every device ID that counts. */
static void k8s_walk(const V1__ListPodResourcesResponse *r, const struct gs_k8s_map_opts *o,
                     void (*fn)(void *ctx, const V1__PodResources *, const V1__ContainerResources *,
                                const char *resource, const char *id),
                     void *ctx)
{
    for (size_t p = 0; p < r->n_pod_resources; p++) {
        const V1__PodResources *pod = r->pod_resources[p];
        if (!pod || !k8s_usable(pod->name) || !k8s_usable(pod->namespace_))
            continue;
        for (size_t c = 0; c < pod->n_containers; c++) {
            const V1__ContainerResources *ctr = pod->containers[c];
            if (!ctr)
                continue;
            for (size_t d = 0; d < ctr->n_devices; d++) {
                const V1__ContainerDevices *dev = ctr->devices[d];
                if (!dev || !gs_k8s_resource_ok(o, dev->resource_name))
                    continue;
                for (size_t i = 0; i < dev->n_device_ids; i++)
                    if (k8s_usable_id(dev->device_ids[i]))
                        fn(ctx, pod, ctr, dev->resource_name, dev->device_ids[i]);
            }
        }
    }
}

struct k8s_count {
    unsigned n;
    size_t bytes;
};

static void k8s_count_one(void *ctx, const V1__PodResources *pod, const V1__ContainerResources *ctr,
                          const char *resource, const char *id)
{
    struct k8s_count *c = ctx;
    c->n++;
    /* key, device_id and vgpu are at most the ID's length each */
    c->bytes += 3 * (strlen(id) + 1) + strlen(resource) + 1 + strlen(pod->name) + 1 + strlen(pod->namespace_) +
                1 + strlen(ctr->name ? ctr->name : "") + 1;
}

struct k8s_fill {
    struct gs_k8s_map *m;
    const V1__PodResources *last_pod; /* to count pods and share their strings */
    const char *ns, *name;
};

static void k8s_fill_one(void *ctx, const V1__PodResources *pod, const V1__ContainerResources *ctr,
                         const char *resource, const char *id)
{
    struct k8s_fill *f = ctx;
    struct gs_k8s_map *m = f->m;
    struct gs_k8s_alloc *a = &m->a[m->n];
    const char *vgpu;
    size_t keylen, vgpulen;

    if (pod != f->last_pod) {
        f->last_pod = pod;
        f->ns = k8s_str(m, pod->namespace_, strlen(pod->namespace_));
        f->name = k8s_str(m, pod->name, strlen(pod->name));
        m->npods++;
    }
    gs_k8s_device_key(id, &keylen, &vgpu, &vgpulen);
    a->device_id = k8s_str(m, id, strlen(id));
    a->key = k8s_str(m, id, keylen);
    a->vgpu = vgpu ? k8s_str(m, vgpu, vgpulen) : NULL;
    a->resource = k8s_str(m, resource, strlen(resource));
    a->ns = f->ns;
    a->pod = f->name;
    a->container = k8s_str(m, ctr->name ? ctr->name : "", strlen(ctr->name ? ctr->name : ""));
    a->seq = m->n++;
}

static int k8s_cmp(const void *x, const void *y)
{
    const struct gs_k8s_alloc *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool k8s_streq(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* The same container listed twice with the same device (or replica) would make two
 * series with one label set, and Prometheus refuses a scrape with a duplicate: keep
 * the first of each. m->a is sorted by (key, seq). */
static void k8s_dedup(struct gs_k8s_map *m)
{
    unsigned w = 0;
    for (unsigned i = 0, start = 0; i < m->n; i++) {
        if (i && strcmp(m->a[i].key, m->a[i - 1].key))
            start = w; /* first entry of this key in the output */
        bool dup = false;
        for (unsigned j = start; j < w && !dup; j++)
            dup = k8s_streq(m->a[j].ns, m->a[i].ns) && k8s_streq(m->a[j].pod, m->a[i].pod) &&
                  k8s_streq(m->a[j].container, m->a[i].container) && k8s_streq(m->a[j].vgpu, m->a[i].vgpu);
        if (!dup)
            m->a[w++] = m->a[i];
    }
    m->n = w;
}

static int k8s_cmp_pod(const void *x, const void *y)
{
    const struct gs_k8s_alloc *a = *(const struct gs_k8s_alloc *const *)x, *b = *(const struct gs_k8s_alloc *const *)y;
    int c = strcmp(a->ns, b->ns);
    return c ? c : strcmp(a->pod, b->pod);
}

/* Distinct (namespace, pod) among the allocations (a pod listed twice counts once). */
static unsigned k8s_count_pods(const struct gs_k8s_map *m)
{
    const struct gs_k8s_alloc **v = m->n ? malloc(m->n * sizeof(*v)) : NULL;
    unsigned n = 0;
    if (!v)
        return m->npods; /* out of memory: the count of the walk, repeats included */
    for (unsigned i = 0; i < m->n; i++)
        v[i] = &m->a[i];
    qsort(v, m->n, sizeof(*v), k8s_cmp_pod);
    for (unsigned i = 0; i < m->n; i++)
        n += !i || k8s_cmp_pod(&v[i - 1], &v[i]) != 0;
    free(v);
    return n;
}

static int k8s_build(const V1__ListPodResourcesResponse *r, const struct gs_k8s_map_opts *o,
                     struct gs_k8s_map **out, struct gs_err *err)
{
    struct k8s_count c = { 0, 0 };
    k8s_walk(r, o, k8s_count_one, &c);
    size_t head = sizeof(struct gs_k8s_map) + c.n * sizeof(struct gs_k8s_alloc);
    struct gs_k8s_map *m = malloc(head + c.bytes + 1);
    if (!m)
        return gs_err_set(err, GS_E_NOMEM, "out of memory for the kubelet's pod map (%u devices)", c.n);
    memset(m, 0, sizeof(*m));
    atomic_init(&m->refs, 1);
    m->a = (struct gs_k8s_alloc *)(void *)(m + 1);
    m->str = (char *)m + head;
    struct k8s_fill f = { .m = m };
    k8s_walk(r, o, k8s_fill_one, &f);
    if (m->n > 1) {
        qsort(m->a, m->n, sizeof(*m->a), k8s_cmp);
        k8s_dedup(m);
        m->npods = k8s_count_pods(m);
    }
    *out = m;
    return 0;
}

/* ---- decoding ------------------------------------------------------------------------ */

int gs_k8s_decode(const void *body, size_t len, const struct gs_k8s_map_opts *o, struct gs_k8s_map **out,
                  struct gs_err *err)
{
    const uint8_t *b = body;
    *out = NULL;
    if (len < 5)
        return gs_err_set(err, GS_E_PARSE,
                          "the kubelet's answer holds no gRPC message (%zu bytes, a message needs at least 5)",
                          len);
    if (b[0] != 0)
        return gs_err_set(err, GS_E_PARSE,
                          b[0] == 1 ? "the kubelet's answer is compressed, which was not asked for"
                                    : "the kubelet's answer does not start with a gRPC message prefix (flag %u)",
                          b[0]);
    uint32_t mlen = (uint32_t)b[1] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 8 | b[4];
    if (mlen > GS_K8S_MAX_ANSWER)
        return gs_err_set(err, GS_E_PARSE, "the kubelet's answer announces %u bytes, more than the %u accepted",
                          mlen, GS_K8S_MAX_ANSWER);
    if (mlen > len - 5)
        return gs_err_set(err, GS_E_PARSE, "the kubelet's answer is cut short: %zu of %u bytes", len - 5, mlen);
    if (mlen < len - 5)
        return gs_err_set(err, GS_E_PARSE, "the kubelet's answer has %zu bytes after its message",
                          len - 5 - mlen);
    V1__ListPodResourcesResponse *r = v1__list_pod_resources_response__unpack(NULL, mlen, b + 5);
    if (!r)
        return gs_err_set(err, GS_E_PARSE,
                          "the kubelet's answer is not a ListPodResourcesResponse (%u bytes of invalid protobuf)",
                          mlen);
    int rc = k8s_build(r, o, out, err);
    v1__list_pod_resources_response__free_unpacked(r, NULL);
    return rc;
}

void gs_k8s_map_ref(struct gs_k8s_map *m)
{
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
}

void gs_k8s_map_unref(struct gs_k8s_map *m)
{
    if (m && atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) == 1)
        free(m);
}

const struct gs_k8s_alloc *gs_k8s_find(const struct gs_k8s_map *m, const char *key, unsigned *n)
{
    unsigned lo = 0, hi = m ? m->n : 0;
    *n = 0;
    while (lo < hi) { /* first entry whose key is >= key */
        unsigned mid = lo + (hi - lo) / 2;
        if (strcmp(m->a[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    unsigned end = lo;
    while (m && end < m->n && !strcmp(m->a[end].key, key))
        end++;
    *n = end - lo;
    return *n ? &m->a[lo] : NULL;
}

const struct gs_k8s_alloc *gs_k8s_all(const struct gs_k8s_map *m, unsigned *n)
{
    *n = m ? m->n : 0;
    return *n ? m->a : NULL;
}

unsigned gs_k8s_npods(const struct gs_k8s_map *m)
{
    return m ? m->npods : 0;
}
