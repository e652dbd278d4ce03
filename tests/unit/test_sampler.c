/* SPDX-License-Identifier: MIT */
/*
 * test_sampler.c - the sampler end to end on the NVML simulator: opening,
 * snapshots, the -i selection, slow-field modes, call counts per snapshot,
 * a GPU lost mid-loop, host facts. Tests needing a simulator profile that is
 * not built are skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/gpusel.h"
#include "core/sampler.h"
#include "sim_env.h"

/* ---- -i selection, on hand-made static facts ---------------------------------------- */
static void fake_gpus(struct gs_gpu *g, uint32_t n)
{
    memset(g, 0, n * sizeof(*g));
    for (uint32_t i = 0; i < n; i++) {
        g[i].st.index = i;
        snprintf(g[i].st.uuid, sizeof(g[i].st.uuid), "GPU-0000000%u-aaaa-bbbb-cccc-dddddddddddd", i);
        g[i].st.pci_domain = 0;
        g[i].st.pci_bus = 0x18 + 0x10 * i;
        g[i].st.pci_device = 0;
        gs_static_mark(&g[i].st, GS_S_UUID, GS_ST_OK);
        gs_static_mark(&g[i].st, GS_S_PCI, GS_ST_OK);
    }
}

static void test_gpusel_forms(void **state)
{
    struct gs_gpu g[4];
    uint32_t sel[4], n = 0;
    struct gs_err err = { 0 };
    (void)state;
    fake_gpus(g, 4);
    assert_int_equal(gs_gpusel(NULL, g, 4, sel, &n, &err), 0);
    assert_int_equal(n, 4);
    assert_int_equal(gs_gpusel("2", g, 4, sel, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(sel[0], 2);
    /* UUID in another case, 4-digit lower-case bus id, 8-digit upper, no domain; dup ignored */
    assert_int_equal(gs_gpusel("gpu-00000003-AAAA-bbbb-cccc-dddddddddddd, 0000:28:00.0,"
                               "00000000:18:00.0,38:00.0,1",
                               g, 4, sel, &n, &err),
                     0);
    assert_int_equal(n, 4);
    assert_int_equal(sel[0], 0);
    assert_int_equal(sel[3], 3);
}

static void test_gpusel_unknown_names_it(void **state)
{
    struct gs_gpu g[2];
    uint32_t sel[2], n = 0;
    struct gs_err err = { 0 };
    (void)state;
    fake_gpus(g, 2);
    assert_int_equal(gs_gpusel("0,7", g, 2, sel, &n, &err), -GS_E_NO_DEVICE);
    assert_int_equal(err.code, GS_E_NO_DEVICE);
    assert_non_null(strstr(err.msg, "'7'"));
    assert_int_equal(gs_gpusel("0000:99:00.0", g, 2, sel, &n, &err), -GS_E_NO_DEVICE);
    assert_non_null(strstr(err.msg, "0000:99:00.0"));
}

/* ---- opening ----------------------------------------------------------------------------- */
static void test_no_library(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    unsetenv("GPUSCOPE_NVML_LIB");
    fx.o.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
    assert_int_equal(sim_fx_open(&fx), -GS_E_NO_LIBRARY);
    assert_null(fx.s);
    assert_int_equal(fx.err.code, GS_E_NO_LIBRARY);
    assert_non_null(strstr(fx.err.msg, "/nonexistent/libnvidia-ml.so.1"));
    assert_non_null(strstr(fx.err.hint, "GPUSCOPE_NVML_LIB"));
    assert_non_null(strstr(fx.err.hint, "--demo"));
}

static void test_no_library_env(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    setenv("GPUSCOPE_NVML_LIB", "/nonexistent/env/libnvidia-ml.so.1", 1);
    assert_int_equal(sim_fx_open(&fx), -GS_E_NO_LIBRARY);
    assert_non_null(strstr(fx.err.msg, "/nonexistent/env/"));
    unsetenv("GPUSCOPE_NVML_LIB");
}

static void test_backend_filter(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    sim_setup("current", "demo", NULL);
    setenv("GPUSCOPE_BACKENDS", "amdgpu", 1);
    assert_true(sim_fx_open(&fx) < 0);
    assert_non_null(strstr(fx.err.msg, "GPUSCOPE_BACKENDS"));
    unsetenv("GPUSCOPE_BACKENDS");
}

static void test_demo_snapshot(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo", NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.ngpus, 8);
    assert_true(fx.snap.sys.simulated);
    assert_string_equal(fx.snap.sys.sim_scenario, "demo");
    assert_string_equal(fx.snap.sys.backend, "nvml");
    assert_true(fx.snap.sys.driver_version[0] != '\0');
    assert_true(fx.snap.sys.cuda_driver_version > 0);
    assert_true(fx.snap.mono_ns > 0 && fx.snap.wall.tv_sec > 0);
    for (uint32_t i = 0; i < fx.snap.ngpus; i++) {
        const struct gs_gpu *g = &fx.snap.gpus[i];
        assert_int_equal(g->st.index, i);
        assert_true(gs_static_has(&g->st, GS_S_NAME));
        assert_true(gs_static_has(&g->st, GS_S_UUID));
        assert_true(gs_static_has(&g->st, GS_S_PCI));
        assert_true(gs_sample_has(&g->s, GS_F_MEM_USED));
        assert_true(gs_sample_has(&g->s, GS_F_MEM_RESERVED)); /* memory info v2 bound */
        assert_true(gs_sample_has(&g->s, GS_F_GPU_UTIL));
        assert_true(gs_sample_has(&g->s, GS_F_POWER));
        assert_true(gs_sample_has(&g->s, GS_F_TEMP_GPU));
        assert_true(gs_sample_has(&g->s, GS_F_CLOCK_SM));
        assert_true(gs_sample_has(&g->s, GS_F_PCIE_TX)); /* GS_SLOW_INLINE by default */
        assert_int_equal(g->state, GS_GPU_OK);
        assert_true(g->s.mem_total_bytes > 70ull << 30);
        assert_int_equal(g->procs_status, GS_ST_OK);
    }
    /* The same snapshot again reuses its arrays. */
    struct gs_gpu *before = fx.snap.gpus;
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_ptr_equal(before, fx.snap.gpus);
    sim_fx_close(&fx);
}

static void test_select_ids(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    fx.o.only_ids = "3,1";
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo", NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.ngpus, 2);
    assert_int_equal(fx.snap.gpus[0].st.index, 1);
    assert_int_equal(fx.snap.gpus[1].st.index, 3);
    /* Select GPU 3 again by its UUID in lower case and GPU 1 by its bus id. */
    char ids[256], uuid[96];
    snprintf(uuid, sizeof(uuid), "%s", fx.snap.gpus[1].st.uuid);
    for (char *p = uuid; *p; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    snprintf(ids, sizeof(ids), "%s,%s", uuid, fx.snap.gpus[0].st.pci_bus_id + 4);
    sim_fx_close(&fx);
    fx.o.only_ids = ids;
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.ngpus, 2);
    assert_int_equal(fx.snap.gpus[0].st.index, 1);
    assert_int_equal(fx.snap.gpus[1].st.index, 3);
    sim_fx_close(&fx);
    fx.o.only_ids = "GPU-does-not-exist";
    assert_int_equal(sim_fx_open(&fx), -GS_E_NO_DEVICE);
    assert_non_null(strstr(fx.err.msg, "GPU-does-not-exist"));
}

/* ---- NVLink state of every link in one field-values call (field 165, scopeId = link); where the
 * driver refuses the field (r470's header has none) the per-link calls, decided at the first read */
static void nvlink_ticks(struct sim_fx *fx, unsigned long long fv[3], unsigned long long st[3])
{
    for (int k = 0; k < 3; k++) {
        unsigned long long f0 = sim_calls("nvmlDeviceGetFieldValues"), s0 = sim_calls("nvmlDeviceGetNvLinkState");
        assert_int_equal(sim_fx_snap(fx), 0);
        fv[k] = sim_calls("nvmlDeviceGetFieldValues") - f0;
        st[k] = sim_calls("nvmlDeviceGetNvLinkState") - s0;
        assert_true(gs_sample_has(&fx->snap.gpus[0].s, GS_F_NVLINK_STATE));
        assert_int_equal(fx->snap.gpus[0].s.nvlink_count, 18);
        assert_int_equal(fx->snap.gpus[0].s.nvlink_down_mask, UINT64_C(1) << 7 | UINT64_C(1) << 17);
    }
}

static void test_nvlink_state_fields(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    unsigned long long fv[3], st[3];
    (void)state;
    NEED_SIM("current");
    NEED_SIM("r470");
    const char *scn = sim_write_scenario("gpu count=1 name=\"Test GPU\" nvlinks=18 nvlink_down=0x20080\n");
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 1); /* every reading at every tick */
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:5", 1);
    sim_setup("current", scn, NULL);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    nvlink_ticks(&fx, fv, st);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(st[k], 0);     /* no per-link call */
        assert_int_equal(fv[k], 3);     /* the tick's field values, the slow counters, the 18 link states */
    }
    sim_fx_close(&fx);
    sim_setup("r470", scn, NULL);
    assert_int_equal(sim_fx_open(&fx), 0);
    nvlink_ticks(&fx, fv, st);
    assert_int_equal(fv[0], fv[1] + 1); /* field 165 asked once, refused ... */
    for (int k = 0; k < 3; k++)
        assert_int_equal(st[k], 18);    /* ... so one call per link, every time */
    assert_int_equal(fv[1], fv[2]);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

/* ---- the slow counters (ECC mode and totals, retired pages, PCIe replays, remapped rows) in one
 * field-values call; a driver refusing field values gets the ten calls, decided at once */
static const char *const slow_fns[] = { "nvmlDeviceGetTotalEccErrors", "nvmlDeviceGetEccMode",
                                        "nvmlDeviceGetPcieReplayCounter", "nvmlDeviceGetRemappedRows",
                                        "nvmlDeviceGetRetiredPages", "nvmlDeviceGetRetiredPagesPendingStatus" };

static unsigned long long slow_calls(void)
{
    unsigned long long n = 0;
    for (size_t i = 0; i < sizeof(slow_fns) / sizeof(slow_fns[0]); i++)
        n += sim_calls(slow_fns[i]);
    return n;
}

static void slow_ticks(struct sim_fx *fx, unsigned long long fn[3], unsigned long long fv[3])
{
    for (int k = 0; k < 3; k++) {
        unsigned long long f0 = sim_calls("nvmlDeviceGetFieldValues"), n0 = slow_calls();
        assert_int_equal(sim_fx_snap(fx), 0);
        fv[k] = sim_calls("nvmlDeviceGetFieldValues") - f0;
        fn[k] = slow_calls() - n0;
        const struct gs_sample *s = &fx->snap.gpus[0].s;
        assert_true(gs_sample_has(s, GS_F_ECC_VOL_CORR) && gs_sample_has(s, GS_F_REMAP_CORR));
        assert_int_equal(s->ecc_vol_corrected, 5);
        assert_int_equal(s->ecc_vol_uncorrected, 2);
        assert_int_equal(s->ecc_agg_corrected, 9);
        assert_int_equal(s->ecc_mode_current, 1);
        assert_int_equal(s->pcie_replay_count, 7);
        assert_int_equal(s->retired_sbe_pages, 4);
        assert_int_equal(s->remap_corr_rows, 3);
        assert_int_equal(s->remap_pending, 1);
    }
}

static void test_slow_counter_fields(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    unsigned long long fn[3], fv[3];
    (void)state;
    NEED_SIM("current");
    const char *scn = "gpu count=1 name=\"Test GPU\" ecc_sbe_volatile=5 ecc_dbe_volatile=2 ecc_sbe_aggregate=9 "
                      "pcie_replay=7 retired_sbe=4 remapped_cor=3 remap_pending=1\n";
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 1); /* every reading at every tick */
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:5", 1);
    sim_setup("current", sim_write_scenario(scn), NULL);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    slow_ticks(&fx, fn, fv);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(fn[k], 0); /* none of the ten calls */
        assert_int_equal(fv[k], 2); /* the tick's field values and the slow counters' */
    }
    sim_fx_close(&fx);
    char *two = malloc(strlen(scn) + 64);
    assert_non_null(two);
    snprintf(two, strlen(scn) + 64, "%sgpu 0 unsupported=field_values\n", scn);
    sim_setup("current", sim_write_scenario(two), NULL);
    free(two);
    assert_int_equal(sim_fx_open(&fx), 0);
    slow_ticks(&fx, fn, fv);
    assert_int_equal(fn[0], 10);        /* refused: the functions, at once ... */
    assert_int_equal(fn[1], 10);
    assert_int_equal(fv[1], fv[2]);     /* ... and field values not asked again for them */
    assert_true(fv[0] > fv[1]);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

/* ---- call counts: each per-GPU (function, argument) at most once per tick --------------- */
static void test_call_counts(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    static const struct {
        const char *sym;
        unsigned per_gpu; /* calls per GPU per tick at most (distinct arguments) */
    } per_tick[] = {
        { "nvmlDeviceGetMemoryInfo_v2", 1 },   { "nvmlDeviceGetUtilizationRates", 1 },
        { "nvmlDeviceGetPowerUsage", 1 },      { "nvmlDeviceGetTemperatureV", 1 },
        { "nvmlDeviceGetClockInfo", 4 },       { "nvmlDeviceGetTotalEccErrors", 4 },
        { "nvmlDeviceGetPcieThroughput", 2 },  { "nvmlDeviceGetFieldValues", 1 },
        { "nvmlDeviceGetComputeRunningProcesses_v3", 1 },
        { "nvmlDeviceGetGraphicsRunningProcesses_v3", 1 },
        { "nvmlDeviceGetProcessesUtilizationInfo", 1 },
    };
    static const char *const once[] = { "nvmlDeviceGetName", "nvmlDeviceGetUUID",
                                        "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetMaxClockInfo",
                                        "nvmlDeviceGetHandleByIndex_v2" };
    unsigned long long before[16], once_before[8];
    const int ticks = 5;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "bench-8x8", NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), 0); /* first tick sizes buffers */
    for (size_t i = 0; i < sizeof(per_tick) / sizeof(per_tick[0]); i++)
        before[i] = sim_calls(per_tick[i].sym);
    for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
        once_before[i] = sim_calls(once[i]);
    for (int t = 0; t < ticks; t++)
        assert_int_equal(sim_fx_snap(&fx), 0);
    for (size_t i = 0; i < sizeof(per_tick) / sizeof(per_tick[0]); i++) {
        unsigned long long n = sim_calls(per_tick[i].sym) - before[i];
        if (n > (unsigned long long)ticks * fx.snap.ngpus * per_tick[i].per_gpu)
            fail_msg("%s: %llu calls in %d ticks of %u GPUs", per_tick[i].sym, n, ticks,
                     fx.snap.ngpus);
    }
    for (size_t i = 0; i < sizeof(once) / sizeof(once[0]); i++)
        assert_int_equal(sim_calls(once[i]), once_before[i]);
    sim_fx_close(&fx);
}

/* ---- slow fields ---------------------------------------------------------------------- */
static void test_slow_skip_and_thread(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    fx.o.slow = GS_SLOW_SKIP;
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo", NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_PCIE_TX], GS_ST_NOT_SAMPLED);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_PCIE_RX], GS_ST_NOT_SAMPLED);
    assert_int_equal(sim_calls("nvmlDeviceGetPcieThroughput"), 0);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_POWER));
    sim_close(fx.s);

    fx.o.slow = GS_SLOW_THREAD;
    fx.o.slow_interval_ms = 10;
    assert_int_equal(sim_fx_open(&fx), 0);
    for (int tries = 0; tries < 200; tries++) {
        assert_int_equal(sim_fx_snap(&fx), 0);
        if (gs_sample_has(&fx.snap.gpus[7].s, GS_F_PCIE_RX))
            break;
        usleep(5000);
    }
    assert_true(gs_sample_has(&fx.snap.gpus[7].s, GS_F_PCIE_TX));
    assert_true(gs_sample_has(&fx.snap.gpus[7].s, GS_F_PCIE_RX));
    assert_true(fx.snap.gpus[7].s.pcie_rate_age_ns < 5000000000ull);
    sim_fx_close(&fx);
}

/* ---- a GPU lost mid-loop: it is marked, the others keep updating --------------------- */
static void test_gpu_lost_mid_loop(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo",
                                    "nvmlDeviceGetPowerUsage gpu=2 call=3 error=GPU_IS_LOST persist"),
                     0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), -GS_E_GPU_LOST);
    assert_int_equal(fx.err.code, GS_E_GPU_LOST);
    assert_non_null(strstr(fx.err.msg, "GPU 2"));
    assert_non_null(strstr(fx.err.hint, "Xid 79"));
    assert_non_null(strstr(fx.err.hint, "dmesg"));
    const struct gs_gpu *lost = &fx.snap.gpus[2];
    assert_int_equal(lost->state, GS_GPU_LOST);
    assert_true(lost->lost_since > 0);
    assert_int_equal(lost->s.status[GS_F_POWER], GS_ST_GPU_LOST);
    assert_int_equal(lost->s.status[GS_F_TEMP_GPU], GS_ST_GPU_LOST);
    assert_true(gs_static_has(&lost->st, GS_S_NAME)); /* static facts are kept */
    assert_int_equal(lost->nprocs, 0);
    /* Later ticks: still lost, never called again; the others fine. */
    unsigned long long temp_calls = sim_calls("nvmlDeviceGetTemperatureV");
    assert_int_equal(sim_fx_snap(&fx), -GS_E_GPU_LOST);
    assert_int_equal(sim_calls("nvmlDeviceGetTemperatureV") - temp_calls, 7);
    for (uint32_t i = 0; i < fx.snap.ngpus; i++) {
        if (i == 2)
            continue;
        assert_int_equal(fx.snap.gpus[i].state, GS_GPU_OK);
        assert_true(gs_sample_has(&fx.snap.gpus[i].s, GS_F_POWER));
    }
    sim_fx_close(&fx);
}

/* ---- Xid events: drained once per tick, tallied per GPU, listed per snapshot ---------- */
static void set_clock(const char *path, double t)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.3f\n", t);
    fclose(f);
}

/* ---- a PID on several GPUs is named by the driver once; a GPU dropping it drops its share ---- */
static const char *proc_name(const struct gs_gpu *g, uint32_t pid)
{
    for (uint32_t i = 0; i < g->nprocs; i++)
        if (g->procs[i].pid == pid)
            return g->procs[i].name;
    return NULL;
}

static void test_names_across_gpus(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clock[64], env[80];
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("gpu count=3 name=\"Test GPU\"\n"
                                         "proc 0 pid=4242 name=trainer mem=1GiB exit=10\n"
                                         "proc 0 pid=4242 name=trainer mem=1GiB start=30\n"
                                         "proc 1-2 pid=4242 name=trainer mem=1GiB\n"
                                         "proc 2 pid=4343 name=other mem=1GiB\n");
    sim_setup("current", scn, NULL);
    snprintf(clock, sizeof(clock), "/tmp/gs-test-names-%d", (int)getpid());
    snprintf(env, sizeof(env), "file:%s", clock);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    set_clock(clock, 1);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    unsigned long long n0 = sim_calls("nvmlSystemGetProcessName");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlSystemGetProcessName") - n0, 2); /* 4242 once for three GPUs, 4343 */
    for (unsigned g = 0; g < 3; g++)
        assert_string_equal(proc_name(&fx.snap.gpus[g], 4242), "trainer");
    assert_string_equal(proc_name(&fx.snap.gpus[2], 4343), "other");
    set_clock(clock, 20); /* 4242 leaves GPU 0, whose name the others' copies came from */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_null(proc_name(&fx.snap.gpus[0], 4242));
    assert_string_equal(proc_name(&fx.snap.gpus[1], 4242), "trainer");
    set_clock(clock, 40); /* and comes back: asked again, as a new PID on that GPU is */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_string_equal(proc_name(&fx.snap.gpus[0], 4242), "trainer");
    assert_string_equal(proc_name(&fx.snap.gpus[2], 4242), "trainer");
    assert_int_equal(sim_calls("nvmlSystemGetProcessName") - n0, 3);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_SIM_CLOCK");
    unlink(clock);
}

static void test_xid_events(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clock[64], env[80];
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario(
        "gpu count=3 name=\"Test GPU\"\n"
        "gpu 2 unsupported=events\n"
        "at 0.5 gpu=1 xid 31\n" /* before we register: never seen */
        "at 2 gpu=1 xid 48\n"
        "at 2.5 gpu=0 xid 13\n"
        "at 3 gpu=1 xid 79\n");
    sim_setup("current", scn, NULL);
    snprintf(clock, sizeof(clock), "/tmp/gs-test-clock-%d", (int)getpid());
    snprintf(env, sizeof(env), "file:%s", clock);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    set_clock(clock, 1);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.nevents, 0);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_XID));
    assert_int_equal(fx.snap.gpus[1].s.xid_count, 0);
    assert_int_equal(fx.snap.gpus[2].s.status[GS_F_XID], GS_ST_NOT_SUPPORTED);

    set_clock(clock, 2.6);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.nevents, 2);
    assert_int_equal(fx.snap.events[0].kind, GS_EV_XID);
    assert_int_equal(fx.snap.gpus[1].s.xid_count, 1);
    assert_int_equal(fx.snap.gpus[1].s.xid_last, 48);
    assert_true(fx.snap.gpus[1].s.xid_last_ms > 0);
    assert_int_equal(fx.snap.gpus[0].s.xid_last, 13);

    set_clock(clock, 3.5);
    unsigned long long waits = sim_calls("nvmlEventSetWait_v2");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.nevents, 1);
    assert_int_equal(fx.snap.gpus[1].s.xid_count, 2);
    assert_int_equal(fx.snap.gpus[1].s.xid_last, 79);
    assert_int_equal(sim_calls("nvmlEventSetWait_v2") - waits, 2); /* the event, then TIMEOUT */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.nevents, 0); /* events are per snapshot; tallies stay */
    assert_int_equal(fx.snap.gpus[1].s.xid_count, 2);
    sim_fx_close(&fx);
    unlink(clock);
}

/* ---- the read schedule: NVLink link state (a call per link) every 6 periods, at once after an Xid
 * (on r470, whose header has no field 165: there the state is one call per link, which this counts) */
static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void test_nvlink_schedule(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clock[64], env[80];
    (void)state;
    NEED_SIM("r470");
    const char *scn = sim_write_scenario("gpu count=2 name=\"Test GPU\" nvlinks=18\n"
                                         "at 2 gpu=1 xid 74\n");
    sim_setup("r470", scn, NULL);
    snprintf(clock, sizeof(clock), "/tmp/gs-test-clock-%d", (int)getpid());
    snprintf(env, sizeof(env), "file:%s", clock);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    set_clock(clock, 1);
    setenv("GPUSCOPE_READ_PERIOD_MS", "40", 1);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    unsigned long long n0 = sim_calls("nvmlDeviceGetNvLinkState");
    uint64_t tb = mono_ms();
    assert_int_equal(sim_fx_snap(&fx), 0);
    uint64_t t0 = mono_ms();
    assert_int_equal(sim_calls("nvmlDeviceGetNvLinkState") - n0, 2 * 18); /* the first tick reads */
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_NVLINK_STATE));
    assert_int_equal(fx.snap.gpus[0].s.nvlink_count, 18);
    /* other slow readings come every 40 ms; link state not before 5 periods have passed */
    unsigned long long n1 = sim_calls("nvmlDeviceGetNvLinkState");
    unsigned long long lim = sim_calls("nvmlDeviceGetCurrPcieLinkGeneration");
    while (sim_calls("nvmlDeviceGetNvLinkState") == n1 && mono_ms() - t0 < 20000) {
        usleep(10000);
        uint64_t before = mono_ms();
        assert_int_equal(sim_fx_snap(&fx), 0);
        uint64_t after = mono_ms();
        if (sim_calls("nvmlDeviceGetNvLinkState") == n1) { /* handed on, with its age */
            uint32_t age = fx.snap.gpus[0].s.age_ms[GS_F_NVLINK_STATE];
            assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_NVLINK_STATE));
            assert_true(age + 1 >= before - t0 && age <= after - tb + 1);
        } else {
            assert_true(before - t0 >= 200 - 1);
        }
    }
    /* each GPU's period runs from its own last reading: on a slow (sanitizer) build the
     * second GPU may fall due one tick after the first, never read twice meanwhile */
    for (int k = 0; k < 50 && sim_calls("nvmlDeviceGetNvLinkState") - n1 == 18; k++) {
        usleep(10000);
        assert_int_equal(sim_fx_snap(&fx), 0);
    }
    assert_int_equal(sim_calls("nvmlDeviceGetNvLinkState") - n1, 2 * 18);
    assert_true(sim_calls("nvmlDeviceGetCurrPcieLinkGeneration") > lim);
    sim_close(fx.s);

    /* a long period: only the Xid brings GPU 1's link state back, in the tick that drains it */
    setenv("GPUSCOPE_READ_PERIOD_MS", "600000", 1);
    set_clock(clock, 1);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    n1 = sim_calls("nvmlDeviceGetNvLinkState");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetNvLinkState"), n1);
    set_clock(clock, 3);
    assert_int_equal(sim_fx_snap(&fx), 0); /* drains the Xid, then samples */
    assert_int_equal(fx.snap.gpus[1].s.xid_last, 74);
    assert_int_equal(sim_calls("nvmlDeviceGetNvLinkState") - n1, 18);
    assert_int_equal(fx.snap.gpus[1].s.age_ms[GS_F_NVLINK_STATE], 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetNvLinkState") - n1, 18); /* and then not again */
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
    unsetenv("GPUSCOPE_SIM_CLOCK");
    unlink(clock);
}

/* ---- held while nothing says they changed: enc/dec while 0, the memory clock while the
 * P-state and reasons stay; each with its age, the busy one read every tick */
static void test_held_while(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    struct timespec ms2 = { 0, 2000000 };
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("gpu 0 name=\"Test GPU\" enc=0 dec=25 pstate=2\n");
    assert_int_equal(sim_fx_open_on(&fx, "current", scn, NULL), 0);
    unsigned long long e0 = sim_calls("nvmlDeviceGetEncoderUtilization");
    unsigned long long d0 = sim_calls("nvmlDeviceGetDecoderUtilization");
    unsigned long long c0 = sim_calls("nvmlDeviceGetClockInfo");
    assert_int_equal(sim_fx_snap(&fx), 0);
    unsigned long long c1 = sim_calls("nvmlDeviceGetClockInfo");
    assert_int_equal(sim_calls("nvmlDeviceGetEncoderUtilization") - e0, 1);
    assert_int_equal(sim_calls("nvmlDeviceGetDecoderUtilization") - d0, 1);
    nanosleep(&ms2, NULL);
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_sample *s = &fx.snap.gpus[0].s;
    assert_int_equal(sim_calls("nvmlDeviceGetEncoderUtilization") - e0, 1); /* idle: held */
    assert_true(gs_sample_has(s, GS_F_ENC_UTIL) && s->enc_util_pct == 0 && s->age_ms[GS_F_ENC_UTIL] >= 2);
    assert_int_equal(sim_calls("nvmlDeviceGetDecoderUtilization") - d0, 2); /* busy: read */
    assert_true(s->dec_util_pct == 25 && s->age_ms[GS_F_DEC_UTIL] == 0);
    /* the memory clock, alone of the clocks, was held (same P-state and reasons) */
    assert_int_equal(sim_calls("nvmlDeviceGetClockInfo") - c1, (c1 - c0) - 1);
    assert_true(gs_sample_has(s, GS_F_CLOCK_MEM) && s->age_ms[GS_F_CLOCK_MEM] >= 2);
    assert_int_equal(s->age_ms[GS_F_CLOCK_SM], 0);
    sim_fx_close(&fx);
}

/* ... and read again at the tick the P-state (or the reasons) changed; enc once it is busy */
static void test_held_until_changed(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clock[64], env[80];
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("gpu 0 name=\"Test GPU\" pstate=step(0,2,20) "
                                         "clock_mem=step(1215,810,20) throttle=step(0,4,30) "
                                         "enc=step(0,40,30)\n");
    sim_setup("current", scn, NULL);
    snprintf(clock, sizeof(clock), "/tmp/gs-test-clock-%d", (int)getpid());
    snprintf(env, sizeof(env), "file:%s", clock);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    set_clock(clock, 10);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_sample *s = &fx.snap.gpus[0].s;
    uint32_t m0 = s->clock_mem_mhz;
    unsigned long long c0 = sim_calls("nvmlDeviceGetClockInfo"), e0 = sim_calls("nvmlDeviceGetEncoderUtilization");
    assert_int_equal(sim_fx_snap(&fx), 0);
    unsigned long long per_tick = sim_calls("nvmlDeviceGetClockInfo") - c0; /* the memory clock held */
    set_clock(clock, 25); /* P0 -> P2: the memory clock is read at once */
    c0 = sim_calls("nvmlDeviceGetClockInfo");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetClockInfo") - c0, per_tick + 1);
    assert_int_equal(s->pstate, 2);
    assert_true(s->clock_mem_mhz != m0); /* the new P-state's, not the held one */
    assert_int_equal(s->age_ms[GS_F_CLOCK_MEM], 0);
    assert_int_equal(sim_calls("nvmlDeviceGetEncoderUtilization"), e0); /* still 0: held */
    c0 = sim_calls("nvmlDeviceGetClockInfo");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetClockInfo") - c0, per_tick); /* held again */
    set_clock(clock, 35); /* a slowdown reason appears: read again; enc busy: no longer held */
    c0 = sim_calls("nvmlDeviceGetClockInfo");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetClockInfo") - c0, per_tick + 1);
    /* enc read 0 at its last read: held until the period, so 40 % shows within 5 s; once read
     * busy it is read every tick */
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 1);
    sim_close(fx.s);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    e0 = sim_calls("nvmlDeviceGetEncoderUtilization");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetEncoderUtilization") - e0, 1);
    assert_int_equal(fx.snap.gpus[0].s.enc_util_pct, 40);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_SIM_CLOCK");
    unlink(clock);
}

/* ---- host facts: our own PID is visible, a synthetic one is not ----------------------- */
/* every_tick: the PCIe link is read at every snapshot (doctor judges it under load), the
 * other slow-changing readings stay on the schedule (ECC handed on with its age) */
static void test_every_tick(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    setenv("GPUSCOPE_READ_PERIOD_MS", "600000", 1);
    sim_setup("current", "demo", NULL);
    fx.o.want_host = false;
    gs_fmask_set(&fx.o.every_tick, GS_F_PCIE_GEN);
    gs_fmask_set(&fx.o.every_tick, GS_F_PCIE_WIDTH);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    unsigned long long gen = sim_calls("nvmlDeviceGetCurrPcieLinkGeneration");
    unsigned long long ecc = sim_calls("nvmlDeviceGetEccMode");
    for (int k = 0; k < 3; k++) {
        usleep(20000);
        assert_int_equal(sim_fx_snap(&fx), 0);
        assert_int_equal(fx.snap.gpus[0].s.age_ms[GS_F_PCIE_GEN], 0);
        assert_int_equal(fx.snap.gpus[0].s.age_ms[GS_F_PCIE_WIDTH], 0);
        assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_PCIE_GEN));
    }
    assert_int_equal(sim_calls("nvmlDeviceGetCurrPcieLinkGeneration") - gen, 3 * fx.snap.ngpus);
    assert_int_equal(sim_calls("nvmlDeviceGetEccMode"), ecc);
    assert_true(fx.snap.gpus[0].s.age_ms[GS_F_ECC_MODE] >= 20);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
}

static void test_host_facts(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char scn[512], pids[32];
    (void)state;
    NEED_SIM("current");
    snprintf(pids, sizeof(pids), "%d", (int)getpid());
    snprintf(scn, sizeof(scn),
             "name hostfacts\n"
             "gpu 0 name=\"Test GPU\"\n"
             "proc 0 pid=env type=compute mem=1GiB\n"
             "proc 0 pid=3999999 type=compute mem=2GiB\n");
    sim_setup("current", sim_write_scenario(scn), NULL);
    setenv("GPUSCOPE_SIM_PIDS", pids, 1);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].nprocs, 2);
    for (uint32_t i = 0; i < fx.snap.gpus[0].nprocs; i++) {
        const struct gs_proc *p = &fx.snap.gpus[0].procs[i];
        if (p->pid == (uint32_t)getpid()) {
            assert_int_equal(p->host_vis, GS_HOST_VISIBLE);
            assert_true(gs_proc_has(p, GS_P_COMM));
        } else {
            assert_int_equal(p->pid, 3999999);
            assert_int_not_equal(p->host_vis, GS_HOST_VISIBLE);
        }
    }
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_SIM_PIDS");
}

/* A PID NVML keeps listing after the process died: shown, marked, not dropped. */
static void test_pid_vanishes(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clock[64];
    FILE *f;
    (void)state;
    NEED_SIM("current");
    snprintf(clock, sizeof(clock), "/tmp/gs-test-clock-%d", (int)getpid());
    f = fopen(clock, "w");
    fputs("1\n", f);
    fclose(f);
    sim_setup("current", "vanish", NULL);
    char env[96];
    snprintf(env, sizeof(env), "file:%s", clock);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].nprocs, 3);
    const struct gs_proc *worker = NULL;
    for (uint32_t i = 0; i < 3; i++) {
        const struct gs_proc *p = &fx.snap.gpus[0].procs[i];
        if (p->pid == (uint32_t)getpid())
            assert_int_equal(p->host_vis, GS_HOST_VISIBLE);
        else if (p->pid == 3999999)
            assert_int_equal(p->host_vis, GS_HOST_NOT_VISIBLE);
        else
            worker = p;
    }
    assert_non_null(worker);
    uint32_t worker_pid = worker->pid;
    assert_int_equal(worker->host_vis, GS_HOST_VISIBLE);
    f = fopen(clock, "w");
    fputs("5\n", f);
    fclose(f);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].nprocs, 3); /* still listed by NVML */
    for (uint32_t i = 0; i < 3; i++)
        if (fx.snap.gpus[0].procs[i].pid == worker_pid)
            assert_int_not_equal(fx.snap.gpus[0].procs[i].host_vis, GS_HOST_VISIBLE);
    sim_fx_close(&fx);
    unlink(clock);
}

static void collect_line(void *arg, const char *text)
{
    size_t *n = arg;
    (void)text;
    (*n)++;
}

static void test_describe(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    size_t n = 0;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo", NULL), 0);
    gs_sampler_describe(fx.s, collect_line, &n);
    assert_true(n > 40);
    sim_close(fx.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpusel_forms),
        cmocka_unit_test(test_gpusel_unknown_names_it),
        cmocka_unit_test(test_no_library),
        cmocka_unit_test(test_no_library_env),
        cmocka_unit_test(test_backend_filter),
        cmocka_unit_test(test_demo_snapshot),
        cmocka_unit_test(test_select_ids),
        cmocka_unit_test(test_call_counts),
        cmocka_unit_test(test_slow_skip_and_thread),
        cmocka_unit_test(test_gpu_lost_mid_loop),
        cmocka_unit_test(test_xid_events),
        cmocka_unit_test(test_nvlink_schedule),
        cmocka_unit_test(test_held_while),
        cmocka_unit_test(test_held_until_changed),
        cmocka_unit_test(test_nvlink_state_fields),
        cmocka_unit_test(test_slow_counter_fields),
        cmocka_unit_test(test_names_across_gpus),
        cmocka_unit_test(test_every_tick),
        cmocka_unit_test(test_host_facts),
        cmocka_unit_test(test_pid_vanishes),
        cmocka_unit_test(test_describe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
