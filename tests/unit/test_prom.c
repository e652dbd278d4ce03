/* SPDX-License-Identifier: MIT */
/* test_prom.c - the exporter's pure parts: exposition rendering from hand-built
 * snapshots (text 0.0.4 and OpenMetrics), escaping, number formatting, Accept
 * negotiation, pod names from a fixture tree, the web config parser and bcrypt. */
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

#include "core/err.h"
#include "core/model.h"
#include "serve/pbuf.h"
#include "serve/podmap.h"
#include "serve/prom.h"
#include "serve/serve.h"
#include "serve/webauth.h"
#include "serve/webcfg.h"
#include "snap_fixture.h"
#include "text_match.h"

#include <crypt.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <time.h>

#define POD_UID "1f7c3a52-8d1e-4b7a-9c4e-0a2b3c4d5e6f"
#define CTR_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HASH_ALICE "$2y$04$KPcjA3tc7i.nTweMrZfew.UKB.FEs2hcmi5WPuB3Xjt2mSWrbUCbS" /* "password" */
#define HASH_BOB "$2b$04$3jsJX/sdfBPGX9QKKBsu9OLLprH9LZcN3LJfXzxMTt6kHuMMa.bH6"   /* "s3cret" */


/* ---- helpers ---------------------------------------------------------------------------- */

static char *escape(const char *s)
{
    static struct gs_pbuf b;
    gs_pbuf_reset(&b);
    gs_prom_escape_label(&b, s);
    gs_pbuf_addc(&b, '\0');
    return b.data;
}

static void fill_gpu(struct gs_gpu *g, uint32_t idx)
{
    fixture_gpu_identity(g, idx, 0x18);
    gs_static_mark(&g->st, GS_S_NAME, GS_ST_OK);
    gs_static_mark(&g->st, GS_S_UUID, GS_ST_OK);
    gs_static_mark(&g->st, GS_S_TEMP_SLOWDOWN, GS_ST_OK);
    g->st.temp_slowdown_c = 87;
    g->st.throttle_supported = GS_THROTTLE_GPU_IDLE | GS_THROTTLE_HW_THERMAL;
    gs_static_mark(&g->st, GS_S_THROTTLE_SUPPORTED, GS_ST_OK);
    g->s.temp_gpu_c = 45 + (int)idx;
    gs_sample_mark(&g->s, GS_F_TEMP_GPU, GS_ST_OK);
    g->s.power_mw = 312500;
    gs_sample_mark(&g->s, GS_F_POWER, GS_ST_OK);
    g->s.mem_used_bytes = 1024ull * 1048576ull + 5;
    gs_sample_mark(&g->s, GS_F_MEM_USED, GS_ST_OK);
    g->s.clock_graphics_mhz = 1980;
    gs_sample_mark(&g->s, GS_F_CLOCK_GRAPHICS, GS_ST_OK);
    g->s.energy_mj = 123456789012ull;
    gs_sample_mark(&g->s, GS_F_ENERGY, GS_ST_OK);
    g->s.throttle_reasons = GS_THROTTLE_HW_THERMAL;
    gs_sample_mark(&g->s, GS_F_THROTTLE, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_TEMP_MEM, GS_ST_NOT_SUPPORTED);
    gs_sample_mark(&g->s, GS_F_ECC_VOL_CORR, GS_ST_NO_PERMISSION);
    g->procs_status = GS_ST_OK;
}

static void add_proc(struct gs_gpu *g, uint32_t pid, const char *comm, bool in_pod)
{
    struct gs_proc *p = gs_gpu_add_proc(g);
    assert_non_null(p);
    p->pid = pid;
    p->gpu_mem_bytes = 4096ull * 1048576ull;
    gs_proc_set(p, GS_P_GPU_MEM);
    p->sm_util_pct = 31;
    gs_proc_set(p, GS_P_SM_UTIL);
    snprintf(p->comm, sizeof(p->comm), "%s", comm);
    const char *cmd = "python train.py --token=\"x\"";
    assert_int_equal(gs_proc_set_cmdline(&g->text, p, cmd, strlen(cmd), NULL, 0), 0);
    gs_proc_set(p, GS_P_COMM);
    snprintf(p->user, sizeof(p->user), "alice");
    gs_proc_set(p, GS_P_USER);
    if (in_pod) {
        snprintf(p->pod_uid, sizeof(p->pod_uid), POD_UID);
        gs_proc_set(p, GS_P_POD);
        snprintf(p->container_id, sizeof(p->container_id), CTR_ID);
        gs_proc_set(p, GS_P_CONTAINER);
    }
}

/* Two GPUs: 0 fine with two processes, 1 lost. */
static void make_snap(struct gs_snapshot *snap, bool pods)
{
    gs_snapshot_init(snap);
    snap->ngpus = 2;
    snap->gpus = calloc(2, sizeof(*snap->gpus));
    assert_non_null(snap->gpus);
    fill_gpu(&snap->gpus[0], 0);
    fill_gpu(&snap->gpus[1], 1);
    add_proc(&snap->gpus[0], 4242, "python", pods);
    add_proc(&snap->gpus[0], 4243, "bad\xff\"name", pods);
    snap->gpus[1].state = GS_GPU_LOST;
    for (int f = 0; f < GS_F_COUNT; f++)
        gs_sample_mark(&snap->gpus[1].s, f, GS_ST_GPU_LOST);
    snprintf(snap->sys.driver_version, sizeof(snap->sys.driver_version), "550.54.15");
    snprintf(snap->sys.backend, sizeof(snap->sys.backend), "nvml");
}

static char *render(const struct gs_snapshot *snap, const struct gs_prom_opts *o, enum gs_prom_format fmt)
{
    struct gs_prom *r = gs_prom_new(o);
    struct gs_pbuf b;
    struct gs_prom_self self = { .sample_duration_s = 0.0125, .samples_total = 7,
                                 .sample_errors_total = 1, .backend_up = true,
                                 .last_sample_unix_s = 1700000000.5 };
    assert_non_null(r);
    gs_pbuf_init(&b);
    assert_int_equal(gs_prom_render(r, &b, snap, &self, fmt), 0);
    /* a second rendering with the same renderer must give the same bytes */
    struct gs_pbuf b2;
    gs_pbuf_init(&b2);
    assert_int_equal(gs_prom_render(r, &b2, snap, &self, fmt), 0);
    assert_string_equal(b.data, b2.data);
    gs_pbuf_release(&b2);
    gs_prom_free(r);
    return b.data;
}

/* ---- escaping and formatting -------------------------------------------------------------- */

static void test_escape_label(void **state)
{
    (void)state;
    assert_string_equal(escape("plain"), "plain");
    assert_string_equal(escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    assert_string_equal(escape("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
    assert_string_equal(escape("x\xffy"), "x\xef\xbf\xbdy");
    assert_string_equal(escape("\xc3"), "\xef\xbf\xbd");                 /* truncated */
    assert_string_equal(escape("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd"); /* overlong */
    assert_string_equal(escape("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
    assert_string_equal(escape(""), "");
}

static void test_escape_help(void **state)
{
    struct gs_pbuf b;
    (void)state;
    gs_pbuf_init(&b);
    gs_prom_escape_help(&b, "a\\b\n\"q\"", GS_PROM_TEXT);
    assert_string_equal(b.data, "a\\\\b\\n\"q\"");
    gs_pbuf_reset(&b);
    gs_prom_escape_help(&b, "a\\b\n\"q\"", GS_PROM_OPENMETRICS);
    assert_string_equal(b.data, "a\\\\b\\n\\\"q\\\"");
    gs_pbuf_release(&b);
}

static void test_doubles(void **state)
{
    struct gs_pbuf b;
    (void)state;
    gs_pbuf_init(&b);
    const double v[] = { 0.31, 312.5, 1e300, 0, -2.5, 0.1 + 0.2 };
    const char *want[] = { "0.31", "312.5", "1e+300", "0", "-2.5", "0.30000000000000004" };
    for (size_t i = 0; i < 6; i++) {
        gs_pbuf_reset(&b);
        gs_prom_add_double(&b, v[i]);
        assert_string_equal(b.data, want[i]);
    }
    gs_pbuf_reset(&b);
    gs_prom_add_double(&b, 1.0 / 0.0);
    assert_string_equal(b.data, "+Inf");
    gs_pbuf_reset(&b);
    gs_prom_add_double(&b, 0.0 / 0.0);
    assert_string_equal(b.data, "NaN");
    gs_pbuf_release(&b);
}

static void test_accept(void **state)
{
    (void)state;
    assert_true(gs_prom_wants_openmetrics(
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,"
        "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
    assert_true(gs_prom_wants_openmetrics("application/openmetrics-text"));
    assert_false(gs_prom_wants_openmetrics(NULL));
    assert_false(gs_prom_wants_openmetrics("*/*"));
    assert_false(gs_prom_wants_openmetrics("text/plain;version=0.0.4"));
    assert_false(gs_prom_wants_openmetrics("application/openmetrics-text;q=0"));
    assert_false(gs_prom_wants_openmetrics("text/plain, application/openmetrics-text;q=0.5"));
}

static void test_age(void **state)
{
    char buf[320];
    (void)state;
    assert_true(gs_prom_format_age(buf, sizeof(buf), 1.5, GS_PROM_TEXT) > 0);
    assert_non_null(strstr(buf, "# TYPE gpuscope_exporter_last_sample_age_seconds gauge\n"));
    assert_non_null(strstr(buf, "\ngpuscope_exporter_last_sample_age_seconds 1.500\n"));
    assert_true(gs_prom_format_age(buf, sizeof(buf), 2, GS_PROM_OPENMETRICS) > 0);
    assert_non_null(strstr(buf, "# UNIT gpuscope_exporter_last_sample_age_seconds seconds\n"));
    assert_int_equal(gs_prom_format_age(buf, 10, 2, GS_PROM_TEXT), 0);
}

/* ---- rendering -------------------------------------------------------------------------- */

#define DCGM_L0 "gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\",pci_bus_id=\"00000000:18:00.0\"," \
                "device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node1\","          \
                "DCGM_FI_DRIVER_VERSION=\"550.54.15\""
#define OWN_L0 "gpu=\"0\",uuid=\"GPU-00000000-0000-0000-0000-000000000000\""
#define OWN_L1 "gpu=\"1\",uuid=\"GPU-00000001-0000-0000-0000-000000000000\""

static void test_render_text(void **state)
{
    struct gs_snapshot snap;
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1" };
    (void)state;
    make_snap(&snap, false);
    char *t = render(&snap, &o, GS_PROM_TEXT);

    assert_non_null(strstr(t, "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
                              "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
                              "DCGM_FI_DEV_GPU_TEMP{" DCGM_L0 "} 45\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_POWER_USAGE{" DCGM_L0 "} 312.500000\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_FB_USED{" DCGM_L0 "} 1024\n"));
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
                              "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{" DCGM_L0 "} 123456789012\n"));
    assert_non_null(strstr(t, "DCGM_FI_DEV_SLOWDOWN_TEMP{" DCGM_L0 "} 87\n"));
    assert_non_null(strstr(t, "gpuscope_clock_graphics_hertz{" OWN_L0 "} 1980000000\n"));
    /* the lost GPU: no sample families, up 0, static facts still there */
    assert_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\""));
    assert_non_null(strstr(t, "DCGM_FI_DEV_SLOWDOWN_TEMP{gpu=\"1\""));
    assert_non_null(strstr(t, "gpuscope_gpu_up{" OWN_L0 "} 1\ngpuscope_gpu_up{" OWN_L1 "} 0\n"));
    char want[160];
    snprintf(want, sizeof(want), "gpuscope_gpu_unavailable_fields{" OWN_L1 ",status=\"gpu_lost\"} %d\n", GS_F_COUNT);
    assert_non_null(strstr(t, want));
    assert_non_null(strstr(t, "gpuscope_gpu_unavailable_fields{" OWN_L0 ",status=\"no_permission\"} 1\n"));
    /* not-supported and no-permission fields are absent, never 0 */
    assert_null(strstr(t, "DCGM_FI_DEV_MEMORY_TEMP"));
    assert_null(strstr(t, "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL"));
    /* throttle: one series per supported reason */
    assert_non_null(strstr(t, "gpuscope_throttle_reason_active{" OWN_L0 ",reason=\"gpu_idle\"} 0\n"
                              "gpuscope_throttle_reason_active{" OWN_L0 ",reason=\"hw_thermal\"} 1\n"));
    assert_null(strstr(t, "reason=\"power_cap\""));
    /* processes: escaped comm, no cmdline by default, empty labels left out */
    assert_non_null(strstr(t, "gpuscope_process_memory_bytes{gpu=\"0\",pid=\"4243\",comm=\"bad\xef\xbf\xbd\\\"name\","
                              "user=\"alice\"} 4294967296\n"));
    assert_non_null(strstr(t, "gpuscope_process_sm_utilization_ratio{gpu=\"0\",pid=\"4242\""));
    assert_non_null(strstr(t, "} 0.31\n"));
    assert_null(strstr(t, "cmdline="));
    assert_non_null(strstr(t, "gpuscope_exporter_samples_total 7\n"));
    assert_non_null(strstr(t, "gpuscope_exporter_last_sample_timestamp_seconds 1700000000.500000\n"));
    assert_non_null(strstr(t, "gpuscope_build_info{version=\""));
    /* one HELP and one TYPE per family, no OpenMetrics-only lines */
    assert_int_equal(count(t, "# TYPE DCGM_FI_DEV_GPU_TEMP "), 1);
    assert_int_equal(count(t, "# HELP gpuscope_gpu_up "), 1);
    assert_null(strstr(t, "# EOF"));
    assert_null(strstr(t, "# UNIT"));
    assert_int_equal(t[strlen(t) - 1], '\n');
    free(t);
    gs_snapshot_release(&snap);
}

static void test_render_openmetrics(void **state)
{
    struct gs_snapshot snap;
    struct gs_prom_opts o = { .hostname_label = "hostname", .hostname = "node1" };
    (void)state;
    make_snap(&snap, false);
    char *t = render(&snap, &o, GS_PROM_OPENMETRICS);
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"));
    /* DCGM counters cannot be OpenMetrics counters without renaming their series: unknown, names kept */
    assert_non_null(strstr(t, "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION unknown\n"));
    assert_non_null(strstr(t, "\nDCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{"));
    assert_null(strstr(t, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total"));
    assert_non_null(strstr(t, "# TYPE gpuscope_exporter_samples counter\n# HELP gpuscope_exporter_samples "));
    assert_non_null(strstr(t, "\ngpuscope_exporter_samples_total 7\n"));
    assert_non_null(strstr(t, "# TYPE gpuscope_gpu info\n"));
    assert_non_null(strstr(t, "\ngpuscope_gpu_info{" OWN_L0 ",name="));
    assert_non_null(strstr(t, "# TYPE gpuscope_clock_graphics_hertz gauge\n# UNIT gpuscope_clock_graphics_hertz hertz\n"));
    assert_non_null(strstr(t, ",hostname=\"node1\","));
    assert_null(strstr(t, "Hostname="));
    assert_null(strstr(t, "# EOF")); /* the server appends it after the age family */
    free(t);
    gs_snapshot_release(&snap);
}

static void test_render_no_gpus(void **state)
{
    struct gs_snapshot snap;
    struct gs_prom_opts o = { 0 };
    (void)state;
    gs_snapshot_init(&snap);
    char *t = render(&snap, &o, GS_PROM_TEXT);
    assert_null(strstr(t, "DCGM_"));
    assert_non_null(strstr(t, "gpuscope_exporter_backend_up 1\n"));
    free(t);
}

/* A kubelet log tree under a temporary root. */
static char *make_pod_tree(void)
{
    char *root = strdup("/tmp/gs-podmap-XXXXXX");
    char path[512];
    assert_non_null(mkdtemp(root));
    snprintf(path, sizeof(path), "%s/var", root);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/var/log", root);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/var/log/pods", root);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/var/log/containers", root);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/var/log/pods/ml-team_trainer-0_" POD_UID, root);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/var/log/pods/not-a-pod", root);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/var/log/containers/trainer-0_ml-team_pytorch-" CTR_ID ".log", root);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/var/log/containers/junk.log", root);
    f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    return root;
}

static void rm_pod_tree(char *root)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    free(root);
}

static void test_podmap(void **state)
{
    (void)state;
    char *root = make_pod_tree();
    struct gs_podmap *pm = gs_podmap_new(root);
    const char *ns = NULL, *pod = NULL;
    gs_podmap_tick(pm, 1);
    assert_int_equal(gs_podmap_npods(pm), 1);
    assert_int_equal(gs_podmap_ncontainers(pm), 1);
    assert_true(gs_podmap_pod(pm, POD_UID, &ns, &pod));
    assert_string_equal(ns, "ml-team");
    assert_string_equal(pod, "trainer-0");
    assert_string_equal(gs_podmap_container(pm, CTR_ID), "pytorch");
    assert_false(gs_podmap_pod(pm, "00000000-0000-0000-0000-000000000000", &ns, &pod));
    assert_null(gs_podmap_container(pm, "ab"));
    gs_podmap_free(pm);
    rm_pod_tree(root);
}

static void test_render_pods(void **state)
{
    struct gs_snapshot snap;
    (void)state;
    char *root = make_pod_tree();
    struct gs_podmap *pm = gs_podmap_new(root);
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1", .podmap = pm,
                              .process_cmdline = true };
    gs_podmap_tick(pm, 1);
    make_snap(&snap, true);
    char *t = render(&snap, &o, GS_PROM_TEXT);
    assert_non_null(strstr(t, "DCGM_FI_DEV_GPU_TEMP{" DCGM_L0 ",container=\"pytorch\",namespace=\"ml-team\","
                              "pod=\"trainer-0\"} 45\n"));
    assert_non_null(strstr(t, "gpuscope_process_memory_bytes{gpu=\"0\",pid=\"4242\",comm=\"python\",user=\"alice\","
                              "container=\"pytorch\",pod=\"trainer-0\",namespace=\"ml-team\","
                              "cmdline=\"python train.py --token=\\\"x\\\"\"} 4294967296\n"));
    free(t);
    gs_snapshot_release(&snap);
    gs_podmap_free(pm);
    rm_pod_tree(root);
}

/* ---- Xid events ---------------------------------------------------------------------------- */

static void add_event(struct gs_snapshot *snap, uint32_t gpu, uint32_t kind, uint64_t data)
{
    assert_true(snap->nevents < GS_MAX_EVENTS);
    snap->events[snap->nevents++] = (struct gs_event){ .time_ms = 1700000000000, .gpu = gpu, .kind = kind,
                                                       .data = data };
}

static void test_xid_tally(void **state)
{
    struct gs_prom_xid_tally t;
    struct gs_snapshot snap;
    (void)state;
    gs_prom_xid_tally_init(&t);
    gs_snapshot_init(&snap);
    add_event(&snap, 1, GS_EV_XID, 79);
    add_event(&snap, 0, GS_EV_XID, 13);
    add_event(&snap, 0, GS_EV_ECC_DBE, 0); /* not an Xid: not counted */
    add_event(&snap, 0, GS_EV_XID, 13);
    snap.events_dropped = 2;
    assert_int_equal(gs_prom_xid_tally_add(&t, &snap), 0);
    snap.nevents = 0;
    snap.events_dropped = 0;
    add_event(&snap, 0, GS_EV_XID, 48);
    assert_int_equal(gs_prom_xid_tally_add(&t, &snap), 0);
    /* sorted by (gpu, xid), counted, latest event last in seq */
    assert_int_equal(t.n, 3);
    assert_int_equal(t.v[0].gpu, 0);
    assert_int_equal(t.v[0].xid, 13);
    assert_int_equal(t.v[0].count, 2);
    assert_int_equal(t.v[1].xid, 48);
    assert_int_equal(t.v[1].count, 1);
    assert_int_equal(t.v[2].gpu, 1);
    assert_int_equal(t.v[2].xid, 79);
    assert_true(t.v[1].seq > t.v[0].seq);
    assert_int_equal(t.dropped, 2);
    /* dcgm-exporter's texts (internal/pkg/collector/xid_errors.go) */
    assert_string_equal(gs_prom_xid_text(79), "GPU has fallen off the bus");
    assert_string_equal(gs_prom_xid_text(0), "No Error");
    assert_string_equal(gs_prom_xid_text(48), "Double Bit ECC Error");
    assert_string_equal(gs_prom_xid_text(13), "Graphics Engine Exception");
    assert_string_equal(gs_prom_xid_text(172), "Uncorrectable SRAM Error");
    assert_string_equal(gs_prom_xid_text(173), "Unknown Error");
    assert_string_equal(gs_prom_xid_text(12345), "Unknown Error");
    gs_prom_xid_tally_free(&t);
}

/* DCGM_FI_DEV_XID_ERRORS: the last code per GPU with err_code/err_msg in DCGM's label order
 * (between container and namespace), 0 "No Error" on a watched GPU without events, the tally's
 * last code on a lost GPU; gpuscope_xid_errors_total per code. */
static void test_render_xid(void **state)
{
    struct gs_snapshot snap;
    struct gs_prom_xid_tally t;
    (void)state;
    char *root = make_pod_tree();
    struct gs_podmap *pm = gs_podmap_new(root);
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1", .podmap = pm };
    gs_podmap_tick(pm, 1);
    make_snap(&snap, true);
    gs_sample_mark(&snap.gpus[0].s, GS_F_XID, GS_ST_OK);
    gs_prom_xid_tally_init(&t);
    add_event(&snap, 1, GS_EV_XID, 79);
    add_event(&snap, 0, GS_EV_XID, 13);
    add_event(&snap, 0, GS_EV_XID, 13);
    assert_int_equal(gs_prom_xid_tally_add(&t, &snap), 0);
    snap.gpus[0].s.xid_count = 2;
    snap.gpus[0].s.xid_last = 13;

    struct gs_prom *r = gs_prom_new(&o);
    struct gs_prom_self self = { .xids = t.v, .nxids = t.n, .events_dropped_total = 3 };
    struct gs_pbuf b;
    gs_pbuf_init(&b);
    assert_int_equal(gs_prom_render(r, &b, &snap, &self, GS_PROM_TEXT), 0);
    const char *m = b.data;
    assert_non_null(strstr(m, "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
                              "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"));
    assert_non_null(strstr(m, "DCGM_FI_DEV_XID_ERRORS{" DCGM_L0 ",container=\"pytorch\",err_code=\"13\","
                              "err_msg=\"Graphics Engine Exception\",namespace=\"ml-team\",pod=\"trainer-0\"} 13\n"));
    assert_non_null(strstr(m, "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\","));
    assert_non_null(strstr(m, "err_code=\"79\",err_msg=\"GPU has fallen off the bus\"} 79\n"));
    assert_non_null(strstr(m, "# TYPE gpuscope_xid_errors_total counter\n"));
    assert_non_null(strstr(m, "gpuscope_xid_errors_total{" OWN_L0 ",xid=\"13\"} 2\n"));
    assert_non_null(strstr(m, "gpuscope_xid_errors_total{" OWN_L1 ",xid=\"79\"} 1\n"));
    assert_non_null(strstr(m, "gpuscope_exporter_events_dropped_total 3\n"));

    /* no events yet: 0 / "No Error" on the watched GPU, nothing on the lost one, no counters */
    struct gs_prom_self none = { 0 };
    snap.gpus[0].s.xid_count = 0;
    snap.gpus[0].s.xid_last = 0;
    gs_pbuf_reset(&b);
    assert_int_equal(gs_prom_render(r, &b, &snap, &none, GS_PROM_TEXT), 0);
    assert_non_null(strstr(b.data, ",err_code=\"0\",err_msg=\"No Error\",namespace=\"ml-team\",pod=\"trainer-0\"} 0\n"));
    assert_int_equal(count(b.data, "DCGM_FI_DEV_XID_ERRORS{"), 1);
    assert_null(strstr(b.data, "gpuscope_xid_errors_total"));

    /* OpenMetrics: a counter family without _total, samples with it */
    gs_pbuf_reset(&b);
    assert_int_equal(gs_prom_render(r, &b, &snap, &self, GS_PROM_OPENMETRICS), 0);
    assert_non_null(strstr(b.data, "# TYPE gpuscope_xid_errors counter\n"));
    assert_non_null(strstr(b.data, "gpuscope_xid_errors_total{" OWN_L1 ",xid=\"79\"} 1\n"));
    gs_pbuf_release(&b);
    gs_prom_free(r);
    gs_prom_xid_tally_free(&t);
    gs_snapshot_release(&snap);
    gs_podmap_free(pm);
    rm_pod_tree(root);
}

/* ---- web config ---------------------------------------------------------------------------- */

static int parse(const char *text, struct gs_webcfg **c, struct gs_err *err)
{
    memset(err, 0, sizeof(*err));
    return gs_webcfg_parse(c, text, strlen(text), "web.yml", "/etc/gs", err);
}

static void test_webcfg_ok(void **state)
{
    struct gs_webcfg *c = NULL;
    struct gs_err err;
    (void)state;
    assert_int_equal(parse("# comment\n---\ntls_server_config:\n  cert_file: server.crt\n"
                           "  key_file: \"/abs/server.key\"  # trailing\n  min_version: TLS13\n"
                           "http_server_config:\n  http2: false\n"
                           "basic_auth_users:\n  alice: " HASH_ALICE "\n  'bob': '" HASH_BOB "'\n",
                           &c, &err),
                     0);
    assert_true(gs_webcfg_has_tls(c));
    assert_true(gs_webcfg_has_auth(c));
    assert_string_equal(gs_webcfg_cert_file(c), "/etc/gs/server.crt");
    assert_string_equal(gs_webcfg_key_file(c), "/abs/server.key");
    /* by default forward-secret AEAD suites only, server order */
    assert_string_equal(gs_webcfg_tls_priorities(c),
                        "NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305"
                        ":-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:-GROUP-ALL:+GROUP-X25519"
                        ":+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1:%SERVER_PRECEDENCE");
    assert_int_equal(gs_webcfg_client_auth(c), GS_WC_NO_CLIENT_CERT);
    assert_int_equal(gs_webcfg_nusers(c), 2);
    assert_string_equal(gs_webcfg_user_hash(c, "bob"), HASH_BOB);
    gs_webcfg_free(c);
    /* auth alone, without TLS, is a usable config */
    assert_int_equal(parse("basic_auth_users:\n  alice: " HASH_ALICE "\n", &c, &err), 0);
    assert_false(gs_webcfg_has_tls(c));
    assert_true(gs_webcfg_has_auth(c));
    gs_webcfg_free(c);
}

/* exporter-toolkit's TLS keys: lists (block and flow), versions, client certificates. */
static void test_webcfg_tls_keys(void **state)
{
    struct gs_webcfg *c = NULL;
    struct gs_err err;
    unsigned n = 0;
    (void)state;
    assert_int_equal(parse("tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
                           "  min_version: TLS11\n  max_version: TLS12\n"
                           "  cipher_suites:\n    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
                           "    - \"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA\"  # old clients\n"
                           "    - TLS_AES_128_GCM_SHA256\n"
                           "  curve_preferences: [CurveP384, 'X25519']\n"
                           "  prefer_server_cipher_suites: false\n"
                           "  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: ca.crt\n"
                           "  client_allowed_sans:\n  - prometheus.example\n  - 10.0.0.1\n",
                           &c, &err),
                     0);
    assert_string_equal(gs_webcfg_tls_priorities(c),
                        "NORMAL:-VERS-ALL:+VERS-TLS1.2:+VERS-TLS1.1:-CIPHER-ALL:-MAC-ALL:-KX-ALL:+ECDHE-RSA"
                        ":+AES-128-GCM:+AEAD:+AES-256-CBC:+SHA1:-GROUP-ALL:+GROUP-SECP384R1:+GROUP-X25519");
    assert_non_null(gs_webcfg_suites(c, &n));
    assert_int_equal(n, 2); /* the TLS 1.3 name is accepted and has no effect, as in Go */
    assert_int_equal(gs_webcfg_client_auth(c), GS_WC_REQUIRE_AND_VERIFY);
    assert_string_equal(gs_webcfg_client_ca_file(c), "/etc/gs/ca.crt");
    assert_int_equal(gs_webcfg_nsans(c), 2);
    assert_string_equal(gs_webcfg_san(c, 1), "10.0.0.1");
    gs_webcfg_free(c);
    assert_int_equal(parse("tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n"
                           "  client_auth_type: RequireClientCert\n  cipher_suites: []\n",
                           &c, &err),
                     0);
    assert_int_equal(gs_webcfg_client_auth(c), GS_WC_REQUIRE_ANY_CLIENT_CERT);
    gs_webcfg_suites(c, &n);
    assert_int_equal(n, 0);
    gs_webcfg_free(c);
}

static void expect_error(const char *text, const char *msg)
{
    struct gs_webcfg *c = (struct gs_webcfg *)1;
    struct gs_err err;
    assert_true(parse(text, &c, &err) < 0);
    assert_null(c);
    if (!strstr(err.msg, msg))
        fail_msg("expected '%s' in '%s'", msg, err.msg);
}

static void test_webcfg_errors(void **state)
{
    (void)state;
    expect_error("tls_server_config:\n  cert_file: a\n\nfoo: 1\n", "web.yml:4: unknown key \"foo\"");
    expect_error("tls_server_config:\n  cert_file: a\n  bogus: 1\n",
                 "web.yml:3: unknown key \"bogus\" in tls_server_config");
    expect_error("basic_auth_users:\n  alice: plaintext\n", "web.yml:2: the password of user \"alice\" is not a bcrypt hash");
    expect_error("basic_auth_users:\n\talice: x\n", "web.yml:2: tab in indentation");
    expect_error("tls_server_config:\n  cert_file: a\n", "web.yml:2: tls_server_config needs both cert_file and key_file");
#define TLS_OK "tls_server_config:\n  cert_file: a\n  key_file: b\n"
    expect_error("tls_server_config:\n  client_ca_file: ca.pem\n", "web.yml:2: tls_server_config needs both");
    expect_error(TLS_OK "  client_ca_file: ca.pem\n", "web.yml:4: client_ca_file is set but client_auth_type is NoClientCert");
    expect_error(TLS_OK "  client_auth_type: RequireAndVerifyClientCert\n",
                 "web.yml:4: client_auth_type asks to verify client certificates: set client_ca_file");
    expect_error(TLS_OK "  client_auth_type: VerifyEverything\n", "web.yml:4: client_auth_type: unknown value");
    expect_error(TLS_OK "  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: [a]\n",
                 "client_allowed_sans needs client_auth_type RequireAndVerifyClientCert");
    expect_error(TLS_OK "  cipher_suites:\n    - TLS_RSA_WITH_RC4_128_SHA\n",
                 "web.yml:5: cipher_suites: unknown or insecure cipher suite \"TLS_RSA_WITH_RC4_128_SHA\"");
    expect_error(TLS_OK "  cipher_suites: TLS_RSA_WITH_AES_128_GCM_SHA256\n", "web.yml:4: cipher_suites must be a list");
    expect_error(TLS_OK "  cipher_suites: [TLS_RSA_WITH_AES_128_GCM_SHA256\n", "web.yml:4: cipher_suites: a flow list must end");
    expect_error(TLS_OK "  curve_preferences: [CurveP256, CurveX]\n", "web.yml:4: curve_preferences: unknown curve \"CurveX\"");
    expect_error(TLS_OK "  min_version: TLS09\n", "web.yml:4: min_version: unknown TLS version");
    expect_error(TLS_OK "  min_version: TLS13\n  max_version: TLS12\n", "web.yml: min_version is above max_version");
    expect_error(TLS_OK "  cert: |\n", "web.yml:4: tls_server_config.cert (inline PEM) is not supported by gpuscope: use cert_file");
    expect_error("basic_auth_users:\n  a: " HASH_ALICE "\n  a: " HASH_BOB "\n", "web.yml:3: user \"a\" is listed twice");
    expect_error("basic_auth_users:\n  a: $2y$15$KPcjA3tc7i.nTweMrZfew.UKB.FEs2hcmi5WPuB3Xjt2mSWrbUCbS\n",
                 "web.yml:2: the password hash of user \"a\" has bcrypt cost 15: gpuscope takes at most 14");
    expect_error("basic_auth_users:\n  a: $2y$31$KPcjA3tc7i.nTweMrZfew.UKB.FEs2hcmi5WPuB3Xjt2mSWrbUCbS\n",
                 "bcrypt cost 31");
    /* fail closed: a file that asks for nothing does not start an unprotected server */
    expect_error("", "web.yml: asks for neither TLS");
    expect_error("# only a comment\nhttp_server_config:\n  http2: false\n", "asks for neither TLS");
    expect_error("basic_auth_users:\n", "asks for neither TLS");
    expect_error("tls_server_config: {}\n", "asks for neither TLS");
    expect_error("rate_limit:\n  interval: 1s\n", "web.yml:1: rate_limit is not supported");
    expect_error("  cert_file: a\n", "web.yml:1: indented key \"cert_file\" outside a section");
    expect_error("tls_server_config:\n  cert_file: 'a\n", "web.yml:2: unterminated quoted string");
    expect_error("basic_auth_users: alice\n", "web.yml:1: basic_auth_users must be a mapping");
    expect_error("tls_server_config:\n  cert_file: a\n    key_file: b\n", "web.yml:3: unexpected indentation");
    expect_error("tls_server_config\n", "web.yml:1: expected \"key: value\"");
    expect_error("http_server_config:\n  headers:\n    X-Frame-Options: deny\n", "web.yml:2:");
}

static void test_webcfg_load_errors(void **state)
{
    struct gs_webcfg *c = NULL;
    struct gs_err err = { 0 };
    (void)state;
    assert_true(gs_webcfg_load(&c, "/nonexistent/web.yml", &err) < 0);
    assert_non_null(strstr(err.msg, "cannot read web config file /nonexistent/web.yml"));
    char path[] = "/tmp/gs-webcfg-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_true(gs_webcfg_load(&c, path, &err) < 0);
    assert_non_null(strstr(err.msg, ":2: cannot read cert_file /tmp/missing.crt"));
    unlink(path);
}

static void test_bcrypt(void **state)
{
    struct gs_webcfg *c = NULL;
    struct gs_err err;
    (void)state;
    assert_true(gs_bcrypt_hash_valid(HASH_ALICE));
    assert_false(gs_bcrypt_hash_valid("$1$abc"));
    assert_false(gs_bcrypt_hash_valid("$2y$99$KPcjA3tc7i.nTweMrZfew.UKB.FEs2hcmi5WPuB3Xjt2mSWrbUCbS"));
    assert_true(gs_bcrypt_verify("password", HASH_ALICE));
    assert_false(gs_bcrypt_verify("Password", HASH_ALICE));
    assert_false(gs_bcrypt_verify("", HASH_ALICE));
    assert_true(gs_bcrypt_verify("s3cret", HASH_BOB));
    assert_int_equal(gs_bcrypt_cost(HASH_BOB), 4);
    (void)c, (void)err;
}

/* ---- basic auth off the HTTP threads (webauth.c) ---- */

struct auth_wait {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
};

static void auth_done(void *arg)
{
    struct auth_wait *w = arg;
    pthread_mutex_lock(&w->m);
    w->done++;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct sockaddr_in addr_of(const char *ip)
{
    struct sockaddr_in in = { .sin_family = AF_INET };
    inet_pton(AF_INET, ip, &in.sin_addr);
    return in;
}

/* One check through lookup (and the verifier when needed); *ms: how long it took. */
static enum gs_auth_result auth_check(struct gs_webauth *a, const char *user, const char *pw, const char *ip,
                                      double *ms)
{
    struct auth_wait w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    struct gs_auth_job job;
    struct sockaddr_in in = addr_of(ip);
    double t0 = now_ms();
    enum gs_auth_result r = gs_webauth_lookup(a, user, pw, (struct sockaddr *)&in, &job);
    if (r == GS_AUTH_PENDING) {
        gs_webauth_enqueue(a, &job, auth_done, &w);
        pthread_mutex_lock(&w.m);
        while (!w.done)
            pthread_cond_wait(&w.c, &w.m);
        pthread_mutex_unlock(&w.m);
        r = job.result;
        assert_int_equal(job.password[0], 0); /* the password does not linger */
    }
    if (ms)
        *ms = now_ms() - t0;
    return r;
}

static char *hash_of(const char *pw, int cost, char *out, size_t cap)
{
    char salt[64];
    struct crypt_data cd;
    memset(&cd, 0, sizeof(cd));
    assert_non_null(crypt_gensalt_rn("$2b$", (unsigned long)cost, NULL, 0, salt, sizeof(salt)));
    snprintf(out, cap, "%s", crypt_rn(pw, salt, &cd, (int)sizeof(cd)));
    return out;
}

static void test_webauth(void **state)
{
    struct gs_webcfg *c = NULL;
    struct gs_webauth *a = NULL, *b = NULL;
    struct gs_webauth_stats st;
    struct gs_err err;
    char h8[128], text[512];
    double ms, slow;
    (void)state;
    /* alice's hash is cheap (cost 4), carol's costs 16 times more (cost 8) */
    snprintf(text, sizeof(text), "basic_auth_users:\n  alice: %s\n  carol: %s\n", HASH_ALICE,
             hash_of("carol-pw", 8, h8, sizeof(h8)));
    assert_int_equal(parse(text, &c, &err), 0);
    assert_int_equal(gs_webauth_new(&a, c, NULL, &err), 0);
    gs_webauth_stats(a, &st);
    assert_true(st.pad_ms > 0);
    assert_int_equal(auth_check(a, "alice", "password", "10.0.0.1", NULL), GS_AUTH_OK);
    gs_webauth_stats(a, &st);
    assert_int_equal(st.checks, 1);
    /* remembered: no bcrypt again */
    assert_int_equal(auth_check(a, "alice", "password", "10.0.0.1", &ms), GS_AUTH_OK);
    gs_webauth_stats(a, &st);
    assert_int_equal(st.checks, 1);
    assert_int_equal(st.cache_hits, 1);
    /* every failure takes at least the time of a check at the highest cost: a
     * wrong password of the cheap user, of the costly user, an unknown user */
    assert_int_equal(auth_check(a, "alice", "wrong-1", "10.0.0.2", &ms), GS_AUTH_FAIL);
    assert_true(ms >= st.pad_ms - 1);
    assert_int_equal(auth_check(a, "carol", "wrong-2", "10.0.0.3", &slow), GS_AUTH_FAIL);
    assert_true(slow >= st.pad_ms - 1);
    assert_int_equal(auth_check(a, "mallory", "wrong-3", "10.0.0.4", &ms), GS_AUTH_FAIL);
    assert_true(ms >= st.pad_ms - 1);
    gs_webauth_stats(a, &st);
    assert_int_equal(st.checks, 4);
    assert_int_equal(st.failures, 3);
    /* a failure seen is refused at once, without a check */
    assert_int_equal(auth_check(a, "mallory", "wrong-3", "10.0.0.4", NULL), GS_AUTH_FAIL);
    gs_webauth_stats(a, &st);
    assert_int_equal(st.checks, 4);
    assert_int_equal(auth_check(a, "carol", "carol-pw", "10.0.0.3", NULL), GS_AUTH_OK);
    /* a reload keeps what verified for users whose hash did not change */
    assert_int_equal(gs_webauth_new(&b, c, a, &err), 0);
    gs_webauth_free(a);
    assert_int_equal(auth_check(b, "alice", "password", "10.0.0.1", NULL), GS_AUTH_OK);
    gs_webauth_stats(b, &st);
    assert_int_equal(st.checks, 0);
    /* absurdly long passwords are refused without a check */
    memset(text, 'x', sizeof(text) - 1);
    text[sizeof(text) - 1] = '\0';
    assert_int_equal(auth_check(b, "alice", text, "10.0.0.1", NULL), GS_AUTH_FAIL);
    gs_webauth_free(b);
    gs_webcfg_free(c);
}

static enum gs_auth_result try_queue(struct gs_webauth *a, const char *ip, const char *pw, struct gs_auth_job *job,
                                     struct auth_wait *w)
{
    struct sockaddr_in in = addr_of(ip);
    enum gs_auth_result r = gs_webauth_lookup(a, "alice", pw, (struct sockaddr *)&in, job);
    if (r == GS_AUTH_PENDING)
        gs_webauth_enqueue(a, job, auth_done, w);
    return r;
}

/* Bounded work: one check waits per address, 8 in all; a client that keeps
 * trying gives its place to a new one; a stop finishes every job. */
static void test_webauth_limits(void **state)
{
    struct gs_webcfg *c = NULL;
    struct gs_webauth *a = NULL;
    struct gs_err err;
    struct gs_auth_job jobs[64];
    struct auth_wait w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
    char pw[32], ip[32];
    int queued = 0, k = 0;
    (void)state;
    /* cost 12: each check takes long enough that the queue stays full meanwhile */
    char h12[128], text[256];
    snprintf(text, sizeof(text), "basic_auth_users:\n  alice: %s\n", hash_of("pw", 12, h12, sizeof(h12)));
    assert_int_equal(parse(text, &c, &err), 0);
    assert_int_equal(gs_webauth_new(&a, c, NULL, &err), 0);
    /* one address: one check waits (the verifier may have taken the first one
     * already, then the second waits), a third is refused */
    assert_int_equal(try_queue(a, "192.0.2.1", "guess-a", &jobs[k++], &w), GS_AUTH_PENDING);
    queued++;
    enum gs_auth_result second = try_queue(a, "192.0.2.1", "guess-b", &jobs[k++], &w);
    queued += second == GS_AUTH_PENDING;
    if (second == GS_AUTH_PENDING)
        assert_int_equal(try_queue(a, "192.0.2.1", "guess-c", &jobs[k++], &w), GS_AUTH_BUSY);
    else
        assert_int_equal(second, GS_AUTH_BUSY);
    /* 20 more addresses, each trying 3 times: the queue holds at most 8 */
    int pending = 0, busy = 0;
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 20; i++) {
            snprintf(pw, sizeof(pw), "guess-%d-%d", round, i);
            snprintf(ip, sizeof(ip), "192.0.2.%d", 10 + i);
            enum gs_auth_result r = try_queue(a, ip, pw, &jobs[k++], &w);
            pending += r == GS_AUTH_PENDING;
            busy += r == GS_AUTH_BUSY;
        }
    queued += pending;
    assert_true(busy >= 60 - 9);
    /* a new client gets a place: the job of one that kept trying is dropped (BUSY) */
    assert_int_equal(try_queue(a, "198.51.100.7", "guess-new", &jobs[k++], &w), GS_AUTH_PENDING);
    queued++;
    gs_webauth_stop(a); /* every queued job is finished before stop returns */
    pthread_mutex_lock(&w.m);
    assert_int_equal(w.done, queued);
    pthread_mutex_unlock(&w.m);
    struct sockaddr_in one = addr_of("192.0.2.1");
    struct gs_auth_job late;
    assert_int_equal(gs_webauth_lookup(a, "alice", "late", (struct sockaddr *)&one, &late), GS_AUTH_BUSY);
    gs_webauth_free(a);
    gs_webcfg_free(c);
}

static void test_listen(void **state)
{
    char host[64];
    unsigned port;
    struct gs_err err;
    (void)state;
    assert_int_equal(gs_http_parse_listen(":9400", host, sizeof(host), &port, &err), 0);
    assert_string_equal(host, "");
    assert_int_equal(port, 9400);
    assert_int_equal(gs_http_parse_listen("127.0.0.1:0", host, sizeof(host), &port, &err), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(gs_http_parse_listen("[::1]:9400", host, sizeof(host), &port, &err), 0);
    assert_string_equal(host, "::1");
    assert_true(gs_http_parse_listen("9400", host, sizeof(host), &port, &err) < 0);
    assert_true(gs_http_parse_listen("localhost:99999", host, sizeof(host), &port, &err) < 0);
    assert_true(gs_http_parse_listen("::1:9400", host, sizeof(host), &port, &err) < 0);
    assert_true(gs_http_parse_listen("host:", host, sizeof(host), &port, &err) < 0);
}

/* Readings handed on from an earlier tick carry their age, per field group;
 * fresh ones 0; groups without a value and lost GPUs have no series. */
static void test_render_reading_ages(void **state)
{
    struct gs_snapshot snap;
    struct gs_prom_opts o = { .hostname_label = "Hostname", .hostname = "node1" };
    (void)state;
    make_snap(&snap, false);
    struct gs_sample *s = &snap.gpus[0].s;
    gs_sample_mark(s, GS_F_ECC_VOL_UNCORR, GS_ST_OK);
    gs_sample_mark(s, GS_F_ECC_AGG_UNCORR, GS_ST_OK);
    s->age_ms[GS_F_ECC_VOL_UNCORR] = 2500;
    s->age_ms[GS_F_ECC_AGG_UNCORR] = 4000; /* a group says its oldest */
    gs_sample_mark(s, GS_F_PCIE_TX, GS_ST_OK);
    gs_sample_mark(s, GS_F_PCIE_RX, GS_ST_OK);
    char *t = render(&snap, &o, GS_PROM_TEXT);
    assert_int_equal(count(t, "# TYPE gpuscope_reading_age_seconds gauge\n"), 1);
    assert_non_null(strstr(t, "gpuscope_reading_age_seconds{gpu=\"0\",uuid=\"GPU-00000000-0000-0000-0000-000000000000\","
                              "field_group=\"ecc\"} 4\n"));
    assert_non_null(strstr(t, "field_group=\"pcie_throughput\"} 0\n"));
    assert_null(strstr(t, "field_group=\"bar1\"")); /* no value, no series */
    assert_null(strstr(t, "gpuscope_reading_age_seconds{gpu=\"1\"")); /* lost */
    free(t);
    t = render(&snap, &o, GS_PROM_OPENMETRICS);
    assert_non_null(strstr(t, "# UNIT gpuscope_reading_age_seconds seconds\n"));
    free(t);
    gs_snapshot_release(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_reading_ages),
        cmocka_unit_test(test_escape_label),    cmocka_unit_test(test_escape_help),
        cmocka_unit_test(test_doubles),         cmocka_unit_test(test_accept),
        cmocka_unit_test(test_age),             cmocka_unit_test(test_render_text),
        cmocka_unit_test(test_render_openmetrics), cmocka_unit_test(test_render_no_gpus),
        cmocka_unit_test(test_podmap),          cmocka_unit_test(test_render_pods),
        cmocka_unit_test(test_webcfg_ok),       cmocka_unit_test(test_webcfg_errors),
        cmocka_unit_test(test_webcfg_tls_keys), cmocka_unit_test(test_webauth),
        cmocka_unit_test(test_webauth_limits),
        cmocka_unit_test(test_webcfg_load_errors), cmocka_unit_test(test_bcrypt),
        cmocka_unit_test(test_listen),          cmocka_unit_test(test_xid_tally),
        cmocka_unit_test(test_render_xid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
