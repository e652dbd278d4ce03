/* SPDX-License-Identifier: MIT */
/* test_k8s.c - the kubelet pod-resources client's parts that need no kubelet:
 * device IDs as dcgm-exporter reads them, decoding answers (built with
 * protobuf-c, and one encoded by Google's protobuf), malformed answers, and the
 * transport's failures against sockets that do not answer gRPC. A real gRPC
 * server is in tests/cli/32*-serve-kubelet-*.test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "k8s/kubelet.h"
#include "k8s/podres.h"
#include "k8s/podresources.pb-c.h"
#include "k8s_fixture.h"

/* ---- building answers with protobuf-c ---------------------------------------------------- */

struct dev {
    const char *resource;
    const char *ids[4];
};
struct ctr {
    const char *name;
    struct dev devs[2];
};
struct pod {
    const char *ns, *name;
    struct ctr ctrs[2];
};

/* Pack pods as a ListPodResourcesResponse behind a gRPC message prefix; *len gets its size. */
static uint8_t *answer(const struct pod *pods, size_t npods, size_t *len)
{
    V1__ListPodResourcesResponse r = V1__LIST_POD_RESOURCES_RESPONSE__INIT;
    V1__PodResources pr[8], *prp[8];
    V1__ContainerResources cr[8][2], *crp[8][2];
    V1__ContainerDevices cd[8][2][2], *cdp[8][2][2];
    assert_true(npods <= 8);
    for (size_t p = 0; p < npods; p++) {
        v1__pod_resources__init(&pr[p]);
        pr[p].name = (char *)pods[p].name;
        pr[p].namespace_ = (char *)pods[p].ns;
        size_t nc = 0;
        for (size_t c = 0; c < 2 && pods[p].ctrs[c].name; c++, nc++) {
            v1__container_resources__init(&cr[p][c]);
            cr[p][c].name = (char *)pods[p].ctrs[c].name;
            size_t nd = 0;
            for (size_t d = 0; d < 2 && pods[p].ctrs[c].devs[d].resource; d++, nd++) {
                const struct dev *dv = &pods[p].ctrs[c].devs[d];
                v1__container_devices__init(&cd[p][c][d]);
                cd[p][c][d].resource_name = (char *)dv->resource;
                size_t ni = 0;
                while (ni < 4 && dv->ids[ni])
                    ni++;
                cd[p][c][d].n_device_ids = ni;
                cd[p][c][d].device_ids = (char **)dv->ids;
                cdp[p][c][d] = &cd[p][c][d];
            }
            cr[p][c].n_devices = nd;
            cr[p][c].devices = cdp[p][c];
            crp[p][c] = &cr[p][c];
        }
        pr[p].n_containers = nc;
        pr[p].containers = crp[p];
        prp[p] = &pr[p];
    }
    r.n_pod_resources = npods;
    r.pod_resources = prp;
    uint8_t *b = k8s_fixture_frame(&r, len);
    assert_non_null(b);
    return b;
}

static struct gs_k8s_map *decode(const struct pod *pods, size_t npods, const struct gs_k8s_map_opts *o)
{
    size_t len = 0;
    struct gs_err err = { 0 };
    struct gs_k8s_map *m = NULL;
    uint8_t *b = answer(pods, npods, &len);
    assert_int_equal(gs_k8s_decode(b, len, o, &m, &err), 0);
    free(b);
    return m;
}

/* ---- device IDs --------------------------------------------------------------------------- */

static void key_is(const char *id, const char *key, const char *vgpu)
{
    size_t kl, vl;
    const char *v;
    gs_k8s_device_key(id, &kl, &v, &vl);
    assert_int_equal(kl, strlen(key));
    assert_memory_equal(id, key, kl);
    if (!vgpu) {
        assert_null(v);
        return;
    }
    assert_non_null(v);
    assert_int_equal(vl, strlen(vgpu));
    assert_memory_equal(v, vgpu, vl);
}

static void test_device_keys(void **state)
{
    (void)state;
    key_is("GPU-8a1b2c3d-0000-1111-2222-333344445555", "GPU-8a1b2c3d-0000-1111-2222-333344445555", NULL);
    /* NVIDIA's device plugin, time-slicing and MPS replicas */
    key_is("GPU-8a1b2c3d-0000-1111-2222-333344445555::0", "GPU-8a1b2c3d-0000-1111-2222-333344445555", "0");
    key_is("GPU-8a1b2c3d-0000-1111-2222-333344445555::13", "GPU-8a1b2c3d-0000-1111-2222-333344445555", "13");
    /* MIG devices, and EKS's MIG replicas */
    key_is("MIG-5c89852c-d268-5a24-b8f1-a2bd5f8a4a5a", "MIG-5c89852c-d268-5a24-b8f1-a2bd5f8a4a5a", NULL);
    key_is("MIG-5c89852c-d268-5a24-b8f1-a2bd5f8a4a5a::7", "MIG-5c89852c-d268-5a24-b8f1-a2bd5f8a4a5a", "7");
    /* GKE's device plugin */
    key_is("nvidia0", "nvidia0", NULL);
    key_is("nvidia3/vgpu2", "nvidia3", "2");
    key_is("nvidia1/gi2", "nvidia1/gi2", NULL);
    key_is("nvidia1/gi2/vgpu5", "nvidia1/gi2", "5");
    key_is("nvidia1/gix", "nvidia1/gix", NULL);
    /* Go's strings.Split(id, "::")[1]: the piece up to the next separator */
    key_is("GPU-a::1::2", "GPU-a", "1");
    key_is("GPU-a::", "GPU-a", NULL);
}

static void test_resource_names(void **state)
{
    (void)state;
    const char *extra[] = { "nvidia.com/gpu.shared" };
    struct gs_k8s_map_opts o = { extra, 1 };
    assert_true(gs_k8s_resource_ok(NULL, "nvidia.com/gpu"));
    assert_true(gs_k8s_resource_ok(NULL, "nvidia.com/mig-1g.10gb"));
    assert_false(gs_k8s_resource_ok(NULL, "nvidia.com/gpu.shared"));
    assert_true(gs_k8s_resource_ok(&o, "nvidia.com/gpu.shared"));
    assert_false(gs_k8s_resource_ok(&o, "example.com/nic"));
    assert_false(gs_k8s_resource_ok(&o, "nvidia.com/gpux"));
    assert_false(gs_k8s_resource_ok(NULL, NULL));
}

/* ---- decoding ------------------------------------------------------------------------------ */

#define G0 "GPU-00000000-0000-0000-0000-000000000000"
#define G1 "GPU-11111111-1111-1111-1111-111111111111"
#define MIG "MIG-5c89852c-d268-5a24-b8f1-a2bd5f8a4a5a"

static void test_decode_shared(void **state)
{
    (void)state;
    const struct pod pods[] = {
        { "team-a", "trainer-0", { { "pytorch", { { "nvidia.com/gpu", { G0 } } } } } },
        { "team-b", "nb-1", { { "jupyter", { { "nvidia.com/gpu", { G1 "::0" } } } } } },
        { "team-b", "nb-2", { { "jupyter", { { "nvidia.com/gpu", { G1 "::1" } }, { "example.com/nic", { "eth1" } } } },
                              { "sidecar", { { "example.com/nic", { "eth2" } } } } } },
        { "team-c", "mig-job", { { "main", { { "nvidia.com/mig-1g.10gb", { MIG } } } } } },
        { "team-d", "no-gpu", { { "app", { { "example.com/nic", { "eth3" } } } } } },
    };
    struct gs_k8s_map *m = decode(pods, 5, NULL);
    unsigned n;
    assert_int_equal(gs_k8s_npods(m), 4); /* no-gpu holds no NVIDIA device */
    gs_k8s_all(m, &n);
    assert_int_equal(n, 4);

    const struct gs_k8s_alloc *a = gs_k8s_find(m, G0, &n);
    assert_int_equal(n, 1);
    assert_string_equal(a->pod, "trainer-0");
    assert_string_equal(a->ns, "team-a");
    assert_string_equal(a->container, "pytorch");
    assert_string_equal(a->resource, "nvidia.com/gpu");
    assert_null(a->vgpu);

    a = gs_k8s_find(m, G1, &n); /* in the kubelet's order: dcgm-exporter keeps the last */
    assert_int_equal(n, 2);
    assert_string_equal(a[0].pod, "nb-1");
    assert_string_equal(a[0].vgpu, "0");
    assert_string_equal(a[0].device_id, G1 "::0");
    assert_string_equal(a[1].pod, "nb-2");
    assert_string_equal(a[1].vgpu, "1");
    assert_true(a[0].seq < a[1].seq);

    a = gs_k8s_find(m, MIG, &n);
    assert_int_equal(n, 1);
    assert_string_equal(a->resource, "nvidia.com/mig-1g.10gb");
    assert_null(gs_k8s_find(m, "GPU-99", &n));
    assert_int_equal(n, 0);
    assert_null(gs_k8s_find(m, "", &n));

    gs_k8s_map_ref(m);
    gs_k8s_map_unref(m);
    gs_k8s_map_unref(m);
    gs_k8s_map_unref(NULL);
}

static void test_decode_renamed_and_empty(void **state)
{
    (void)state;
    const char *extra[] = { "nvidia.com/gpu.shared" };
    struct gs_k8s_map_opts o = { extra, 1 };
    const struct pod pods[] = {
        { "team-a", "p1", { { "c", { { "nvidia.com/gpu.shared", { G0 "::3", "", G1 "::4", "::5" } },
                                     { "nvidia.com/gpu", { "/vgpu1" } } } } } },
        { "", "no-namespace", { { "c", { { "nvidia.com/gpu", { G0 } } } } } },
        { "team-a", "", { { "c", { { "nvidia.com/gpu", { G0 } } } } } },
        { "team-a", "no-containers", { { NULL } } },
        { "team-a", "p1", { { "c", { { "nvidia.com/gpu.shared", { G0 "::3" } } } } } }, /* listed twice */
    };
    struct gs_k8s_map *m = decode(pods, 5, &o);
    unsigned n;
    const struct gs_k8s_alloc *a = gs_k8s_find(m, G0, &n);
    assert_int_equal(n, 1); /* pods without a name or namespace cannot label anything */
    assert_string_equal(a->vgpu, "3");
    assert_non_null(gs_k8s_find(m, G1, &n));
    assert_int_equal(gs_k8s_npods(m), 1); /* p1, listed twice */
    gs_k8s_all(m, &n);
    assert_int_equal(n, 2); /* "", "::5" and "/vgpu1" name no device; the repeat is one series */
    gs_k8s_map_unref(m);

    m = decode(pods, 5, NULL); /* without the option the renamed resource does not count */
    assert_null(gs_k8s_find(m, G0, &n));
    assert_int_equal(gs_k8s_npods(m), 0);
    gs_k8s_map_unref(m);

    m = decode(pods, 0, NULL); /* an empty answer: a node with no pods */
    gs_k8s_all(m, &n);
    assert_int_equal(n, 0);
    gs_k8s_map_unref(m);
}

/* A ListPodResourcesResponse as Google's protobuf (python3-protobuf 4.21.12) encodes it
 * from tests/fixtures/kubelet/api.proto, with every field the kubelet sends that
 * gpuscope's .proto leaves out: pod and container cpu_ids, memory with topology, device
 * topology, a DRA claim with a CDI device. protobuf-c must skip them all. */
static const char google_hex[] =
    "0ab8010a09747261696e65722d3012067465616d2d611a9f010a077079746f72636812260a0e6e76696469612e636f6d2f67"
    "707512064750552d306112064750552d30621a040a02080112170a0f6578616d706c652e636f6d2f6e69631204657468311a"
    "02020322120a066d656d6f72791080808080041a020a002a3b1201631a067465616d2d61222e0a120a106e76696469612e63"
    "6f6d2f6770753d30120e6770752e6e76696469612e636f6d1a017022056770752d302201040a5d0a046e622d3112067465"
    "616d2d621a4d0a076a75707974657212420a166e76696469612e636f6d2f6d69672d31672e3130676212284d49472d3563"
    "3839383532632d643236382d356132342d623866312d613262643566386134613561";

static uint8_t *from_hex(const char *hex, size_t *len)
{
    size_t n = strlen(hex) / 2;
    uint8_t *b = malloc(n + 5);
    assert_non_null(b);
    b[0] = 0, b[1] = (uint8_t)(n >> 24), b[2] = (uint8_t)(n >> 16), b[3] = (uint8_t)(n >> 8), b[4] = (uint8_t)n;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        b[5 + i] = (uint8_t)v;
    }
    *len = n + 5;
    return b;
}

static void test_decode_google_encoded(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = from_hex(google_hex, &len);
    struct gs_k8s_map *m = NULL;
    struct gs_err err = { 0 };
    assert_int_equal(gs_k8s_decode(b, len, NULL, &m, &err), 0);
    unsigned n;
    const struct gs_k8s_alloc *a = gs_k8s_find(m, "GPU-0b", &n);
    assert_int_equal(n, 1);
    assert_string_equal(a->pod, "trainer-0");
    assert_string_equal(a->container, "pytorch");
    assert_non_null(gs_k8s_find(m, "GPU-0a", &n));
    a = gs_k8s_find(m, MIG, &n);
    assert_int_equal(n, 1);
    assert_string_equal(a->ns, "team-b");
    assert_null(gs_k8s_find(m, "eth1", &n));
    assert_int_equal(gs_k8s_npods(m), 2);
    gs_k8s_map_unref(m);
    free(b);
}

static void bad(const void *b, size_t len, const char *what)
{
    struct gs_k8s_map *m = (struct gs_k8s_map *)1;
    struct gs_err err = { 0 };
    assert_int_equal(gs_k8s_decode(b, len, NULL, &m, &err), -GS_E_PARSE);
    assert_null(m);
    if (!strstr(err.msg, what))
        fail_msg("'%s' does not say '%s'", err.msg, what);
}

static void test_decode_malformed(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = from_hex(google_hex, &len);
    bad(b, 0, "no gRPC message");
    bad(b, 4, "no gRPC message");
    bad(b, len - 1, "cut short");
    uint8_t *longer = calloc(1, len + 3);
    memcpy(longer, b, len);
    bad(longer, len + 3, "3 bytes after its message");
    b[0] = 1;
    bad(b, len, "compressed");
    b[0] = 7;
    bad(b, len, "prefix");
    b[0] = 0;
    b[1] = 0x7f; /* 2 GiB announced */
    bad(b, len, "more than");
    free(longer);
    free(b);

    /* valid frames around bytes that are not the message */
    static const uint8_t trunc[] = { 0, 0, 0, 0, 3, 0x0a, 0x10, 0x0a };           /* a field longer than the rest */
    static const uint8_t wire7[] = { 0, 0, 0, 0, 2, 0x0f, 0x01 };                /* wire type 7 does not exist */
    static const uint8_t varint[] = { 0, 0, 0, 0, 11, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                      0xff, 0xff, 0xff, 0xff, 0xff };            /* an 11-byte varint */
    static const uint8_t wrongtype[] = { 0, 0, 0, 0, 2, 0x08, 0x01 };             /* pod_resources as a varint */
    bad(trunc, sizeof(trunc), "not a ListPodResourcesResponse");
    bad(wire7, sizeof(wire7), "not a ListPodResourcesResponse");
    bad(varint, sizeof(varint), "not a ListPodResourcesResponse");
    bad(wrongtype, sizeof(wrongtype), "not a ListPodResourcesResponse");
}

/* ---- the transport against sockets that do not speak gRPC --------------------------------- */

struct mute {
    int fd;
    char path[108];
};

/* A UNIX socket that accepts connections (the kernel's backlog) and never answers. */
static void mute_open(struct mute *s)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(s->path, sizeof(s->path), "/tmp/gs-k8s-%d.sock", (int)getpid());
    unlink(s->path);
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", s->path);
    s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(s->fd >= 0);
    assert_int_equal(bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(s->fd, 8), 0);
}

static void mute_close(struct mute *s)
{
    close(s->fd);
    unlink(s->path);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_call_no_answer(void **state)
{
    (void)state;
    struct mute s;
    struct gs_err err = { 0 };
    struct gs_k8s_map *m = NULL;
    mute_open(&s);
    double t0 = now_s();
    assert_true(gs_kubelet_list(s.path, 300, NULL, NULL, &m, &err) < 0);
    double dt = now_s() - t0;
    assert_null(m);
    assert_non_null(strstr(err.msg, "within 300 ms"));
    assert_true(dt >= 0.25 && dt < 5); /* bounded by the timeout, not by the server */
    mute_close(&s);
}

static void test_call_absent(void **state)
{
    (void)state;
    struct gs_err err = { 0 };
    struct gs_k8s_map *m = NULL;
    assert_true(gs_kubelet_list("/nonexistent/kubelet.sock", 300, NULL, NULL, &m, &err) < 0);
    assert_non_null(strstr(err.msg, "/nonexistent/kubelet.sock"));
}

static void *stop_soon(void *arg)
{
    usleep(150 * 1000);
    atomic_store((atomic_bool *)arg, true);
    return NULL;
}

static void test_call_stopped(void **state)
{
    (void)state;
    struct mute s;
    struct gs_err err = { 0 };
    struct gs_k8s_map *m = NULL;
    atomic_bool stop;
    pthread_t t;
    atomic_init(&stop, false);
    mute_open(&s);
    pthread_create(&t, NULL, stop_soon, &stop);
    double t0 = now_s();
    assert_true(gs_kubelet_list(s.path, 20000, NULL, &stop, &m, &err) < 0);
    assert_true(now_s() - t0 < 10); /* stopping does not wait for the 20 s timeout */
    assert_non_null(strstr(err.msg, "stopped"));
    pthread_join(t, NULL);
    mute_close(&s);
}

/* The refresher with a socket that never answers: up 0, errors counted, no map, and
 * stop returns at once although a call is in flight. */
static void test_refresher_mute(void **state)
{
    (void)state;
    struct mute s;
    struct gs_err err = { 0 };
    struct gs_kubelet *k;
    struct gs_kubelet_status st;
    mute_open(&s);
    struct gs_kubelet_opts o = { .socket = s.path, .interval_ms = 100, .timeout_ms = 100, .required = true };
    assert_int_equal(gs_kubelet_start(&k, &o, &err), 0);
    gs_kubelet_wait_first(k, 5000);
    gs_kubelet_status(k, &st);
    assert_true(st.seen && st.present);
    assert_false(st.up);
    assert_null(st.map);
    assert_true(st.refreshes >= 1 && st.errors >= 1);
    gs_kubelet_stop(k);

    /* a call in flight for up to 20 s: stopping aborts it */
    o.timeout_ms = 20000;
    assert_int_equal(gs_kubelet_start(&k, &o, &err), 0);
    usleep(200 * 1000);
    double t0 = now_s();
    gs_kubelet_stop(k);
    assert_true(now_s() - t0 < 5);
    mute_close(&s);

    /* absent and required: counted as an error, nothing called */
    assert_int_equal(gs_kubelet_start(&k, &o, &err), 0);
    gs_kubelet_wait_first(k, 5000);
    gs_kubelet_status(k, &st);
    assert_false(st.present);
    assert_int_equal(st.refreshes, 0);
    assert_true(st.errors >= 1);
    gs_kubelet_stop(k);

    /* absent and not asked for: nothing to report */
    o.required = false;
    assert_int_equal(gs_kubelet_start(&k, &o, &err), 0);
    gs_kubelet_wait_first(k, 5000);
    gs_kubelet_status(k, &st);
    assert_false(st.seen);
    assert_int_equal(st.errors, 0);
    gs_kubelet_stop(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_keys),           cmocka_unit_test(test_resource_names),
        cmocka_unit_test(test_decode_shared),         cmocka_unit_test(test_decode_renamed_and_empty),
        cmocka_unit_test(test_decode_google_encoded), cmocka_unit_test(test_decode_malformed),
        cmocka_unit_test(test_call_no_answer),        cmocka_unit_test(test_call_absent),
        cmocka_unit_test(test_call_stopped),          cmocka_unit_test(test_refresher_mute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
