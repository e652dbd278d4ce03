/* SPDX-License-Identifier: MIT */
/* test_prom_mig.c - the exporter's MIG GPU instances and profiling metrics, rendered from
 * hand-built snapshots: dcgm-exporter's flex mode (a MIG GPU exported per GPU instance, labels
 * GPU_I_PROFILE and GPU_I_ID after modelName, the instance's framebuffer and activity, the
 * parent's GPU-level fields, no GPU-level series), one series per GPU instance even with
 * several compute instances, DCGM_FI_PROF_* of whole GPUs (ratios %f, bytes/s integers),
 * nothing for metrics without a value, gpuscope_mig_* families, MIG labels on processes;
 * pod labels of instance series from the kubelet's MIG allocations (MIG UUIDs, GKE's
 * nvidiaN/giG), one pod or one series per sharing pod with --kubernetes-virtual-gpus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "k8s_fixture.h"
#include "serve/pbuf.h"
#include "serve/prom.h"
#include "snap_fixture.h"
#include "text_match.h"

#define U0 "GPU-00000000-0000-0000-0000-000000000000"
#define U1 "GPU-00000001-0000-0000-0000-000000000000"
#define BASE0 "gpu=\"0\",UUID=\"" U0 "\",pci_bus_id=\"00000000:18:00.0\",device=\"nvidia0\"," \
              "modelName=\"NVIDIA H100 80GB HBM3\""
#define TAIL ",Hostname=\"node1\",DCGM_FI_DRIVER_VERSION=\"550.127.05\""

static void fill_gpu(struct gs_gpu *g, uint32_t idx)
{
    fixture_gpu_identity(g, idx, 0x18);
    g->s.temp_gpu_c = 60;
    gs_sample_mark(&g->s, GS_F_TEMP_GPU, GS_ST_OK);
    g->s.mem_used_bytes = 40000ull << 20;
    gs_sample_mark(&g->s, GS_F_MEM_USED, GS_ST_OK);
    g->s.mem_reserved_bytes = 579ull << 20;
    gs_sample_mark(&g->s, GS_F_MEM_RESERVED, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_GPU_UTIL, GS_ST_NOT_SUPPORTED);
    gs_sample_mark(&g->s, GS_F_MIG_DEVICES, GS_ST_OK);
    g->procs_status = GS_ST_OK;
}

static void add_mig(struct gs_gpu *g, uint32_t gi, uint32_t ci, const char *profile, double gr)
{
    assert_int_equal(gs_gpu_mig_reserve(g, g->nmig + 1), 0);
    struct gs_mig *m = &g->mig[g->nmig];
    m->index = g->nmig++;
    m->gpu_instance_id = gi;
    m->compute_instance_id = ci;
    snprintf(m->uuid, sizeof(m->uuid), "MIG-%08x-1111-5222-8333-444444444444", gi * 16 + ci);
    snprintf(m->profile, sizeof(m->profile), "%s", profile);
    snprintf(m->ci_profile, sizeof(m->ci_profile), "%s", profile);
    m->mem_status = GS_ST_OK;
    m->mem_total_bytes = 40448ull << 20;
    m->mem_used_bytes = 30000ull << 20;
    m->mem_free_bytes = m->mem_total_bytes - m->mem_used_bytes;
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        m->prof_status[k] = k < GS_PROF_FIRST_RATE ? GS_ST_OK : GS_ST_NOT_SUPPORTED;
    m->prof[GS_PROF_GR_ENGINE] = gr;
    m->prof[GS_PROF_TENSOR] = gr / 2;
}

/* GPU 0: MIG with GPU instance 2 (two compute instances) and 9; GPU 1 whole, with profiling. */
static void make_snap(struct gs_snapshot *snap)
{
    gs_snapshot_init(snap);
    snap->ngpus = 2;
    snap->gpus = calloc(2, sizeof(*snap->gpus));
    assert_non_null(snap->gpus);
    struct gs_gpu *g0 = &snap->gpus[0], *g1 = &snap->gpus[1];
    fill_gpu(g0, 0);
    fill_gpu(g1, 1);
    add_mig(g0, 2, 0, "3g.40gb", 0.9);
    add_mig(g0, 2, 1, "3g.40gb", 0.9);
    add_mig(g0, 9, 0, "1g.10gb", 0.05);
    g0->mig[2].mem_status = GS_ST_NO_PERMISSION;
    struct gs_proc *p = gs_gpu_add_proc(g0);
    p->pid = 4242;
    p->gpu_instance_id = 2;
    p->compute_instance_id = 1;
    p->mig_index = 1;
    gs_proc_set(p, GS_P_MIG);
    p->gpu_mem_bytes = 1ull << 30;
    gs_proc_set(p, GS_P_GPU_MEM);
    g0->mig[1].nprocs = 1;
    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        gs_sample_mark(&g1->s, GS_F_PROF_FIRST + k, GS_ST_OK);
        g1->s.prof[k] = k < GS_PROF_FIRST_RATE ? 0.25 : 1048576000.0;
        gs_sample_mark(&g0->s, GS_F_PROF_FIRST + k, GS_ST_OK); /* a MIG GPU's own: not exported */
        g0->s.prof[k] = 0.5;
    }
    gs_sample_mark(&g1->s, GS_F_PROF_NVLINK_RX, GS_ST_NOT_AVAILABLE);
    snprintf(snap->sys.driver_version, sizeof(snap->sys.driver_version), "550.127.05");
}

static char *render_kube(const struct gs_snapshot *snap, enum gs_prom_format fmt, const struct gs_k8s_map *map,
                         bool virtual_gpus)
{
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1", .virtual_gpus = virtual_gpus };
    struct gs_prom *r = gs_prom_new(&o);
    struct gs_prom_self self = { .backend_up = true };
    if (map)
        self.kube = (struct gs_prom_kube){ .on = true, .map = map, .up = true };
    struct gs_pbuf b;
    assert_non_null(r);
    gs_pbuf_init(&b);
    assert_int_equal(gs_prom_render(r, &b, snap, &self, fmt), 0);
    gs_prom_free(r);
    gs_pbuf_addc(&b, '\0');
    return b.data;
}

static char *render(const struct gs_snapshot *snap, enum gs_prom_format fmt)
{
    return render_kube(snap, fmt, NULL, false);
}

static void test_flex_mode_series(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    make_snap(&snap);
    char *t = render(&snap, GS_PROM_TEXT);
    /* GPU-level fields: the parent's value on every GPU instance, one series per GPU instance */
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" BASE0 ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"" TAIL "} 60\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" BASE0 ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\"" TAIL "} 60\n"));
    assert_int_equal(count(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\""), 2);
    assert_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" BASE0 TAIL "}")); /* no whole-GPU series */
    /* framebuffer: the instance's (MiB), nothing where the instance's memory is unreadable */
    assert_non_null(strstr(t, "DCGM_FI_DEV_FB_USED{" BASE0 ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"" TAIL "} 30000\n"));
    assert_int_equal(count(t, "DCGM_FI_DEV_FB_USED{gpu=\"0\""), 1);
    assert_int_equal(count(t, "DCGM_FI_DEV_FB_RESERVED{gpu=\"0\""), 0);
    assert_int_equal(count(t, "DCGM_FI_DEV_FB_RESERVED{gpu=\"1\""), 1);
    /* profiling: the instance's activity; PCIe is GPU-level, so not on instances */
    assert_non_null(strstr(t, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" BASE0 ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"" TAIL
                              "} 0.900000\n"));
    assert_non_null(strstr(t, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{" BASE0 ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\""
                              TAIL "} 0.025000\n"));
    assert_int_equal(count(t, "DCGM_FI_PROF_PCIE_TX_BYTES{gpu=\"0\""), 0);
    assert_int_equal(count(t, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\""), 2);
    free(t);
    gs_snapshot_release(&snap);
}

static void test_profiling_whole_gpu(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    make_snap(&snap);
    char *t = render(&snap, GS_PROM_TEXT);
    assert_non_null(strstr(t, "# HELP DCGM_FI_PROF_GR_ENGINE_ACTIVE Ratio of time the graphics engine is active.\n"
                              "# TYPE DCGM_FI_PROF_GR_ENGINE_ACTIVE gauge\n"));
    assert_non_null(strstr(t, "DCGM_FI_PROF_SM_OCCUPANCY{gpu=\"1\",UUID=\"" U1 "\",pci_bus_id=\"00000000:19:00.0\","
                              "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\"" TAIL "} 0.250000\n"));
    assert_non_null(strstr(t, "DCGM_FI_PROF_PCIE_RX_BYTES{gpu=\"1\",UUID=\"" U1 "\",pci_bus_id=\"00000000:19:00.0\","
                              "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\"" TAIL "} 1048576000\n"));
    assert_int_equal(count(t, "DCGM_FI_PROF_NVLINK_RX_BYTES"), 0); /* no value: no series, never 0 */
    assert_int_equal(count(t, "DCGM_FI_PROF_NVLINK_TX_BYTES{"), 1);
    free(t);
    /* the first tick: no interval, nothing at all */
    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        gs_sample_mark(&snap.gpus[1].s, GS_F_PROF_FIRST + k, GS_ST_NOT_AVAILABLE);
        for (uint32_t m = 0; m < snap.gpus[0].nmig; m++)
            snap.gpus[0].mig[m].prof_status[k] = GS_ST_NOT_AVAILABLE;
    }
    t = render(&snap, GS_PROM_OPENMETRICS);
    assert_int_equal(count(t, "DCGM_FI_PROF_"), 0);
    free(t);
    gs_snapshot_release(&snap);
}

static void test_own_families_and_processes(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    make_snap(&snap);
    char *t = render(&snap, GS_PROM_TEXT);
    assert_non_null(strstr(t, "gpuscope_mig_device_info{gpu=\"0\",uuid=\"" U0 "\",gpu_instance_id=\"2\","
                              "compute_instance_id=\"1\",mig_device=\"1\",mig_uuid=\"MIG-00000021-1111-5222-8333-"
                              "444444444444\",profile=\"3g.40gb\",compute_instance_profile=\"3g.40gb\"} 1\n"));
    assert_int_equal(count(t, "gpuscope_mig_device_info{"), 3);
    assert_non_null(strstr(t, "gpuscope_mig_processes{gpu=\"0\",uuid=\"" U0 "\",gpu_instance_id=\"2\","
                              "compute_instance_id=\"1\"} 1\n"));
    assert_non_null(strstr(t, "gpuscope_mig_memory_used_bytes{gpu=\"0\",uuid=\"" U0 "\",gpu_instance_id=\"2\"} "
                              "31457280000\n"));
    assert_int_equal(count(t, "gpuscope_mig_memory_total_bytes{"), 1); /* one readable GPU instance */
    assert_non_null(strstr(t, "gpuscope_process_memory_bytes{gpu=\"0\",pid=\"4242\",gpu_instance_id=\"2\","
                              "compute_instance_id=\"1\"} 1073741824\n"));
    free(t);
    t = render(&snap, GS_PROM_OPENMETRICS);
    assert_non_null(strstr(t, "# TYPE gpuscope_mig_device info\n"));
    assert_non_null(strstr(t, "# TYPE gpuscope_mig_memory_used_bytes gauge\n# UNIT gpuscope_mig_memory_used_bytes bytes\n"));
    free(t);
    /* MIG on but no instance: the GPU is exported whole */
    snap.gpus[0].nmig = 0;
    t = render(&snap, GS_PROM_TEXT);
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" BASE0 TAIL "} 60\n"));
    assert_non_null(strstr(t, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" BASE0 TAIL "} 0.500000\n"));
    assert_int_equal(count(t, "GPU_I_ID"), 0);
    free(t);
    gs_snapshot_release(&snap);
}

#define MIG(gi_ci) "MIG-000000" gi_ci "-1111-5222-8333-444444444444"
#define GI2 BASE0 ",GPU_I_PROFILE=\"3g.40gb\",GPU_I_ID=\"2\"" TAIL
#define GI9 BASE0 ",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"9\"" TAIL

static void test_kubelet_pods(void **state)
{
    (void)state;
    struct gs_snapshot snap;
    make_snap(&snap);
    const struct k8s_fixture_alloc allocs[] = {
        { "team-a", "train-0", "main", "nvidia.com/mig-3g.40gb", MIG("21") }, /* CI 1 of GI 2 */
        { "team-b", "nb-1", "jupyter", "nvidia.com/mig-1g.10gb", MIG("90") "::0" },
        { "team-b", "nb-2", "jupyter", "nvidia.com/mig-1g.10gb", MIG("90") "::1" },
        { "team-c", "job", "main", "nvidia.com/gpu", U1 },
    };
    struct gs_k8s_map *m = k8s_fixture_map(allocs, 4);
    assert_non_null(m);
    /* by default one pod per device: the last the kubelet listed */
    char *t = render_kube(&snap, GS_PROM_TEXT, m, false);
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" GI2 ",container=\"main\",namespace=\"team-a\",pod=\"train-0\"} 60\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" GI9 ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\"} 60\n"));
    assert_int_equal(count(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\""), 2);
    assert_non_null(strstr(t, "DCGM_FI_PROF_GR_ENGINE_ACTIVE{" GI2 ",container=\"main\",namespace=\"team-a\","
                              "pod=\"train-0\"} 0.900000\n"));
    /* a whole GPU's profiling series carry its pod like its other DCGM series */
    assert_non_null(strstr(t, "DCGM_FI_PROF_SM_OCCUPANCY{gpu=\"1\",UUID=\"" U1 "\",pci_bus_id=\"00000000:19:00.0\","
                              "device=\"nvidia1\",modelName=\"NVIDIA H100 80GB HBM3\"" TAIL
                              ",container=\"main\",namespace=\"team-c\",pod=\"job\"} 0.250000\n"));
    /* gpuscope_gpu_pod_info names every pod holding an instance of the GPU */
    assert_non_null(strstr(t, "gpuscope_gpu_pod_info{gpu=\"0\",uuid=\"" U0 "\",namespace=\"team-a\",pod=\"train-0\","
                              "container=\"main\",source=\"kubelet\"} 1\n"));
    assert_non_null(strstr(t, "gpuscope_gpu_pod_info{gpu=\"0\",uuid=\"" U0 "\",namespace=\"team-b\",pod=\"nb-1\","
                              "container=\"jupyter\",vgpu=\"0\",source=\"kubelet\"} 1\n"));
    assert_int_equal(count(t, "gpuscope_gpu_pod_info{gpu=\"0\""), 3);
    free(t);
    /* --kubernetes-virtual-gpus: a series per sharing pod with its replica; FB_USED the instance's
     * without pod labels (its process's pod cannot be told here: no per-pod values) */
    t = render_kube(&snap, GS_PROM_TEXT, m, true);
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" GI9 ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-1\","
                              "vgpu=\"0\"} 60\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" GI9 ",container=\"jupyter\",namespace=\"team-b\",pod=\"nb-2\","
                              "vgpu=\"1\"} 60\n"));
    assert_int_equal(count(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\""), 3);
    assert_non_null(strstr(t, "DCGM_FI_DEV_FB_USED{" GI2 "} 30000\n"));
    assert_int_equal(count(t, "DCGM_FI_DEV_FB_USED{gpu=\"0\""), 1);
    free(t);
    gs_k8s_map_unref(m);
    /* GKE names a MIG instance nvidia<gpu>/gi<id> */
    const struct k8s_fixture_alloc gke[] = { { "team-d", "gke-job", "main", "nvidia.com/gpu", "nvidia0/gi9" } };
    m = k8s_fixture_map(gke, 1);
    assert_non_null(m);
    t = render_kube(&snap, GS_PROM_TEXT, m, false);
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" GI9 ",container=\"main\",namespace=\"team-d\",pod=\"gke-job\"} 60\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" GI2 "} 60\n"));
    free(t);
    gs_k8s_map_unref(m);
    gs_snapshot_release(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flex_mode_series),
        cmocka_unit_test(test_profiling_whole_gpu),
        cmocka_unit_test(test_own_families_and_processes),
        cmocka_unit_test(test_kubelet_pods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
