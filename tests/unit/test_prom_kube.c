/* SPDX-License-Identifier: MIT */
/* test_prom_kube.c - pod labels from the kubelet's map in the exposition, with
 * dcgm-exporter's semantics: one pod per device (the last listed) by default,
 * a series per sharing pod with vgpu under --kubernetes-virtual-gpus and its
 * per-pod GPU_UTIL / FB_USED, GKE's device names, gpuscope_gpu_pod_info, and
 * the kubelet's own families. Maps are built from answers packed by protobuf-c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model.h"
#include "k8s/podres.h"
#include "k8s/podresources.pb-c.h"
#include "k8s_fixture.h"
#include "serve/pbuf.h"
#include "serve/podmap.h"
#include "serve/prom.h"
#include "snap_fixture.h"
#include "text_match.h"

#define UID_A "aaaaaaaa-1111-2222-3333-444444444444"
#define UID_B "bbbbbbbb-1111-2222-3333-444444444444"
#define G(i) "GPU-0000000" #i "-0000-0000-0000-000000000000"
#define BASE(i)                                                                                                   \
    "gpu=\"" #i "\",UUID=\"" G(i) "\",pci_bus_id=\"00000000:1" #i ":00.0\",device=\"nvidia" #i "\","              \
    "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"550.54.15\""

/* ---- fixtures ----------------------------------------------------------------------------- */

/* A map from one container per allocation, in this order (the kubelet's). */
static struct gs_k8s_map *kube_map(const struct k8s_fixture_alloc *a, size_t n)
{
    struct gs_k8s_map *m = k8s_fixture_map(a, n);
    assert_non_null(m);
    return m;
}

static void fill_gpu(struct gs_gpu *g, uint32_t idx)
{
    fixture_gpu_identity(g, idx, 0x10);
    gs_static_mark(&g->st, GS_S_NAME, GS_ST_OK);
    gs_static_mark(&g->st, GS_S_UUID, GS_ST_OK);
    g->s.gpu_util_pct = 80;
    gs_sample_mark(&g->s, GS_F_GPU_UTIL, GS_ST_OK);
    g->s.mem_used_bytes = 30000ull << 20;
    gs_sample_mark(&g->s, GS_F_MEM_USED, GS_ST_OK);
    g->s.power_mw = 300000;
    gs_sample_mark(&g->s, GS_F_POWER, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_XID, GS_ST_OK); /* events watched, none yet */
    g->procs_status = GS_ST_OK;
}

static void add_proc(struct gs_gpu *g, uint32_t pid, const char *pod_uid, uint32_t sm_pct, uint64_t mem_mib,
                     bool visible)
{
    struct gs_proc *p = gs_gpu_add_proc(g);
    assert_non_null(p);
    p->pid = pid;
    p->gpu_mem_bytes = (mem_mib << 20) + 4095; /* a partial MiB: dcgm-exporter divides per process */
    gs_proc_set(p, GS_P_GPU_MEM);
    p->sm_util_pct = sm_pct;
    gs_proc_set(p, GS_P_SM_UTIL);
    if (visible) {
        snprintf(p->comm, sizeof(p->comm), "python");
        gs_proc_set(p, GS_P_COMM);
    }
    if (pod_uid) {
        snprintf(p->pod_uid, sizeof(p->pod_uid), "%s", pod_uid);
        gs_proc_set(p, GS_P_POD);
    }
}

/* Three GPUs: 0 one pod, 1 shared by two pods (both with processes), 2 none. */
static void make_snap(struct gs_snapshot *snap)
{
    gs_snapshot_init(snap);
    snap->ngpus = 3;
    snap->gpus = calloc(3, sizeof(*snap->gpus));
    assert_non_null(snap->gpus);
    for (uint32_t i = 0; i < 3; i++)
        fill_gpu(&snap->gpus[i], i);
    add_proc(&snap->gpus[1], 100, UID_A, 30, 1000, true);
    add_proc(&snap->gpus[1], 101, UID_A, 5, 200, true);
    add_proc(&snap->gpus[1], 200, UID_B, 40, 7000, true);
    add_proc(&snap->gpus[1], 300, NULL, 1, 10, true); /* a host process: in no pod */
    snprintf(snap->sys.driver_version, sizeof(snap->sys.driver_version), "550.54.15");
}

static const struct k8s_fixture_alloc allocs[] = {
    { "team-a", "trainer-0", "pytorch", "nvidia.com/gpu", G(0) },
    { "team-b", "nb-1", "jupyter", "nvidia.com/gpu", G(1) "::0" },
    { "team-b", "nb-2", "jupyter", "nvidia.com/gpu", G(1) "::1" },
};

/* The node's log directories name the pods of the processes' UIDs (podmap.h). */
static char *make_logs(void)
{
    char *root = strdup("/tmp/gs-kube-XXXXXX");
    char path[512];
    assert_non_null(mkdtemp(root));
    const char *dirs[] = { "/var", "/var/log", "/var/log/pods", "/var/log/containers",
                           "/var/log/pods/team-b_nb-1_" UID_A, "/var/log/pods/team-b_nb-2_" UID_B };
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(path, sizeof(path), "%s%s", root, dirs[i]);
        assert_int_equal(mkdir(path, 0755), 0);
    }
    return root;
}

static void rm_logs(char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    free(root);
}

static char *render(const struct gs_snapshot *snap, const struct gs_prom_opts *o, const struct gs_prom_kube *k)
{
    struct gs_prom *r = gs_prom_new(o);
    struct gs_pbuf b;
    struct gs_prom_self self = { .backend_up = true, .kube = *k };
    assert_non_null(r);
    gs_pbuf_init(&b);
    assert_int_equal(gs_prom_render(r, &b, snap, &self, GS_PROM_TEXT), 0);
    gs_prom_free(r);
    return b.data;
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_default_one_pod_per_device(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    make_snap(&snap);
    struct gs_k8s_map *m = kube_map(allocs, 3);
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1" };
    struct gs_prom_kube k = { .on = true, .map = m, .map_age_s = 2.5, .up = true, .refreshes = 4, .errors = 1,
                              .duration_s = 0.004, .cpu_s = 0.002 };
    char *t = render(&snap, &o, &k);
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(0) ",container=\"pytorch\",namespace=\"team-a\",pod=\"trainer-0\"} 80\n");
    /* a shared GPU: dcgm-exporter's map keeps the last pod the kubelet listed, no vgpu */
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\"} 80\n");
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(2) "} 80\n");
    assert_int_equal(count_lines(t, "DCGM_FI_DEV_POWER_USAGE{"), 3);
    has(t, "DCGM_FI_DEV_XID_ERRORS{" BASE(1) ",container=\"jupyter\",err_code=\"0\",err_msg=\"No Error\","
           "namespace=\"team-b\",pod=\"nb-2\"} 0\n");
    /* every pod on each GPU, shared or not */
    has(t, "gpuscope_gpu_pod_info{gpu=\"1\",uuid=\"" G(1) "\",namespace=\"team-b\",pod=\"nb-1\",container=\"jupyter\","
           "vgpu=\"0\",source=\"kubelet\"} 1\n");
    has(t, "gpuscope_gpu_pod_info{gpu=\"1\",uuid=\"" G(1) "\",namespace=\"team-b\",pod=\"nb-2\",container=\"jupyter\","
           "vgpu=\"1\",source=\"kubelet\"} 1\n");
    assert_int_equal(count_lines(t, "gpuscope_gpu_pod_info{"), 3);
    has(t, "gpuscope_kubelet_up 1\n");
    has(t, "gpuscope_kubelet_refreshes_total 4\n");
    has(t, "gpuscope_kubelet_refresh_errors_total 1\n");
    has(t, "gpuscope_kubelet_pod_map_age_seconds 2.5\n");
    has(t, "gpuscope_kubelet_pods 3\n");
    lacks(t, "vgpu=\"1\"}");
    free(t);
    gs_k8s_map_unref(m);
    gs_snapshot_release(&snap);
}

static void test_virtual_gpus(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    char *root = make_logs();
    struct gs_podmap *pm = gs_podmap_new(root);
    gs_podmap_tick(pm, 1);
    make_snap(&snap);
    struct gs_k8s_map *m = kube_map(allocs, 3);
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1", .podmap = pm,
                              .virtual_gpus = true };
    struct gs_prom_kube k = { .on = true, .map = m, .up = true };
    char *t = render(&snap, &o, &k);
    /* device series: one per sharing pod, with its replica */
    has(t, "DCGM_FI_DEV_POWER_USAGE{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-1\","
           "vgpu=\"0\"} 300.000000\n");
    has(t, "DCGM_FI_DEV_POWER_USAGE{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\","
           "vgpu=\"1\"} 300.000000\n");
    assert_int_equal(count_lines(t, "DCGM_FI_DEV_POWER_USAGE{"), 4);
    /* GPU_UTIL and FB_USED: the device's value without pod labels, then each pod's own */
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) "} 80\n");
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-1\",vgpu=\"0\"} 35\n");
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\",vgpu=\"1\"} 40\n");
    has(t, "DCGM_FI_DEV_FB_USED{" BASE(1) "} 30000\n");
    has(t, "DCGM_FI_DEV_FB_USED{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-1\",vgpu=\"0\"} 1200\n");
    has(t, "DCGM_FI_DEV_FB_USED{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\",vgpu=\"1\"} 7000\n");
    /* a pod holding a GPU with no process on it uses none of it */
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(0) ",container=\"pytorch\",namespace=\"team-a\",pod=\"trainer-0\"} 0\n");
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(0) "} 80\n");
    has(t, "DCGM_FI_DEV_XID_ERRORS{" BASE(1) ",container=\"jupyter\",err_code=\"0\",err_msg=\"No Error\","
           "namespace=\"team-b\",pod=\"nb-2\",vgpu=\"1\"} 0\n");
    free(t);

    /* a process whose pod cannot be told (no hostPID: /proc does not show it): no per-pod
     * values on that GPU rather than wrong ones; the device series keep their pod labels */
    add_proc(&snap.gpus[1], 400, NULL, 20, 100, false);
    t = render(&snap, &o, &k);
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) "} 80\n");
    lacks(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) ",");
    has(t, "DCGM_FI_DEV_POWER_USAGE{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\",vgpu=\"1\"}");
    free(t);
    gs_k8s_map_unref(m);
    gs_snapshot_release(&snap);
    gs_podmap_free(pm);
    rm_logs(root);
}

static void test_device_names(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    make_snap(&snap);
    const struct k8s_fixture_alloc gke[] = {
        { "team-a", "trainer-0", "pytorch", "nvidia.com/gpu", "nvidia0" },
        { "team-b", "nb-1", "jupyter", "nvidia.com/gpu", "nvidia1/vgpu3" },
    };
    struct gs_k8s_map *m = kube_map(gke, 2);
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1", .gpu_id_device_name = true };
    struct gs_prom_kube k = { .on = true, .map = m, .up = true };
    char *t = render(&snap, &o, &k);
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(0) ",container=\"pytorch\",namespace=\"team-a\",pod=\"trainer-0\"} 80\n");
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-1\"} 80\n");
    free(t);
    o.gpu_id_device_name = false; /* UUIDs expected: GKE's names match nothing */
    t = render(&snap, &o, &k);
    lacks(t, "pod=\"");
    free(t);
    gs_k8s_map_unref(m);
    gs_snapshot_release(&snap);
}

/* The kubelet's map wins over the processes; without a map the processes label. */
static void test_sources(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    char *root = make_logs();
    struct gs_podmap *pm = gs_podmap_new(root);
    gs_podmap_tick(pm, 1);
    make_snap(&snap);
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1", .podmap = pm };
    /* the socket seen, no answer yet: processes label (GPU 1 has two pods: none) */
    struct gs_prom_kube k = { .on = true, .up = false, .errors = 3 };
    char *t = render(&snap, &o, &k);
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) "} 80\n");
    has(t, "gpuscope_gpu_pod_info{gpu=\"1\",uuid=\"" G(1) "\",namespace=\"team-b\",pod=\"nb-1\","
           "source=\"processes\"} 1\n");
    assert_int_equal(count_lines(t, "gpuscope_gpu_pod_info{"), 2);
    has(t, "gpuscope_kubelet_up 0\n");
    has(t, "gpuscope_kubelet_refresh_errors_total 3\n");
    lacks(t, "gpuscope_kubelet_pod_map_age_seconds");
    lacks(t, "gpuscope_kubelet_pods");
    free(t);

    /* a map that gives GPU 1 to someone else, and nothing on GPU 0 */
    const struct k8s_fixture_alloc other[] = { { "team-c", "job", "main", "nvidia.com/gpu", G(1) } };
    struct gs_k8s_map *m = kube_map(other, 1);
    k.map = m;
    t = render(&snap, &o, &k);
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(1) ",container=\"main\",namespace=\"team-c\",pod=\"job\"} 80\n");
    has(t, "DCGM_FI_DEV_GPU_UTIL{" BASE(0) "} 80\n");
    lacks(t, "source=\"processes\"");
    free(t);

    /* not on Kubernetes: no gpuscope_kubelet_* at all */
    k = (struct gs_prom_kube){ .on = false };
    t = render(&snap, &o, &k);
    lacks(t, "gpuscope_kubelet_");
    free(t);
    gs_k8s_map_unref(m);
    gs_snapshot_release(&snap);
    gs_podmap_free(pm);
    rm_logs(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_one_pod_per_device),
        cmocka_unit_test(test_virtual_gpus),
        cmocka_unit_test(test_device_names),
        cmocka_unit_test(test_sources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
