/* SPDX-License-Identifier: MIT */
/*
 * test_nvml.c - the NVML backend on the simulator: every error path of
 * issue 2 section 2 (driver not loaded, version mismatch, no permission, no
 * devices, a GPU refusing its handle), absent symbols per driver profile
 * (r470, r525, r535early with its 32-byte _v3 records, r535, current),
 * process lists (dedup, growth between calls, N/A memory), per-field "not
 * supported" and its cache, and the explanations' wording.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/nvidia/nvml_explain.h"
#include "core/sampler.h"
#include "sim_env.h"

static const struct gs_proc *find_pid(const struct gs_gpu *g, uint32_t pid)
{
    for (uint32_t i = 0; i < g->nprocs; i++)
        if (g->procs[i].pid == pid)
            return &g->procs[i];
    return NULL;
}

/* ---- initialisation failures -------------------------------------------------------- */
static void test_driver_not_loaded(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo", "nvmlInit_v2 error=DRIVER_NOT_LOADED persist"),
                                    -GS_E_NO_DRIVER);
    assert_null(fx.s);
    assert_non_null(strstr(fx.err.msg, "not loaded"));
    assert_non_null(strstr(fx.err.hint, "modprobe nvidia"));
    assert_non_null(strstr(fx.err.hint, "Secure Boot"));
    assert_non_null(strstr(fx.err.hint, "dkms"));
}

static void test_version_mismatch(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo",
                                    "nvmlInit_v2 error=LIB_RM_VERSION_MISMATCH persist"),
                     -GS_E_NO_DRIVER);
    assert_non_null(strstr(fx.err.msg, "version mismatch"));
    assert_non_null(strstr(fx.err.hint, "reboot"));
}

static void test_init_no_permission(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo", "nvmlInit_v2 error=NO_PERMISSION persist"),
                                    -GS_E_PERMISSION);
    assert_non_null(strstr(fx.err.hint, "/dev/nvidia"));
    assert_non_null(strstr(fx.err.hint, "cgroup"));
}

static void test_no_devices(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", sim_write_scenario("name nogpu\n"), NULL),
                                    -GS_E_NO_DEVICE);
    assert_non_null(strstr(fx.err.msg, "no GPU"));
}

static void test_init_error_from_scenario(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("name nodrv\nsystem init_error=DRIVER_NOT_LOADED\ngpu 0\n");
    assert_int_equal(sim_fx_open_on(&fx, "current", scn, NULL), -GS_E_NO_DRIVER);
}

/* A GPU refusing its handle stays in the list as an error entry. */
static void test_handle_refused(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("name hidden\ngpu 0-2\ngpu 1 handle_error=NO_PERMISSION\n");
    assert_int_equal(sim_fx_open_on(&fx, "current", scn, NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), -GS_E_BACKEND);
    assert_int_equal(fx.snap.ngpus, 3);
    assert_int_equal(fx.snap.gpus[1].state, GS_GPU_ERROR);
    assert_int_equal(fx.snap.gpus[1].s.status[GS_F_POWER], GS_ST_NO_PERMISSION);
    assert_non_null(strstr(fx.err.msg, "GPU 1"));
    assert_non_null(strstr(fx.err.hint, "/dev/nvidia"));
    assert_int_equal(fx.snap.gpus[0].state, GS_GPU_OK);
    assert_int_equal(fx.snap.gpus[2].state, GS_GPU_OK);
    assert_true(gs_sample_has(&fx.snap.gpus[2].s, GS_F_POWER));
    sim_fx_close(&fx);
}

/* A GPU that is already lost when we start. */
static void test_handle_lost(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("name gone\ngpu 0-1\ngpu 0 handle_error=GPU_IS_LOST\n");
    assert_int_equal(sim_fx_open_on(&fx, "current", scn, NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), -GS_E_GPU_LOST);
    assert_int_equal(fx.snap.gpus[0].state, GS_GPU_LOST);
    assert_true(fx.snap.gpus[0].lost_since > 0);
    assert_int_equal(fx.snap.gpus[1].state, GS_GPU_OK);
    sim_fx_close(&fx);
}

/* ---- driver profiles: absent symbols give the same values ------------------------------ */
static const char *const procs_scn =
    "name procs\n"
    "gpu 0-1 fans=2\n"
    "proc 0 pid=4001 type=compute mem=1GiB\n"
    "proc 0 pid=4002 type=compute+graphics mem=2GiB\n"
    "proc 0 pid=4003 type=graphics mem=300MiB\n"
    "proc 1 pid=4004 type=compute mem=na name=nvidia-cuda-mps-server\n" /* the MPS server */
    "proc 1 pid=4005 type=mps mem=512MiB\n";

static void check_procs(const struct gs_snapshot *snap, const char *profile)
{
    const struct gs_gpu *g0 = &snap->gpus[0], *g1 = &snap->gpus[1];
    const struct gs_proc *p;

    if (g0->nprocs != 3 || g1->nprocs != 2)
        fail_msg("%s: %u and %u processes", profile, g0->nprocs, g1->nprocs);
    assert_non_null(p = find_pid(g0, 4001));
    assert_int_equal(p->type, GS_PROC_COMPUTE);
    assert_true(gs_proc_has(p, GS_P_GPU_MEM));
    assert_int_equal(p->gpu_mem_bytes, 1ull << 30);
    assert_non_null(p = find_pid(g0, 4002)); /* in both lists: one entry, both bits */
    assert_int_equal(p->type, GS_PROC_COMPUTE | GS_PROC_GRAPHICS);
    assert_int_equal(p->gpu_mem_bytes, 2ull << 30);
    assert_non_null(p = find_pid(g0, 4003));
    assert_int_equal(p->type, GS_PROC_GRAPHICS);
    assert_int_equal(p->gpu_mem_bytes, 300ull << 20);
    assert_non_null(p = find_pid(g1, 4004));
    assert_false(gs_proc_has(p, GS_P_GPU_MEM)); /* usedGpuMemory N/A */
    assert_non_null(p = find_pid(g1, 4005));
    assert_int_equal(p->type, GS_PROC_MPS);
    assert_int_equal(p->gpu_mem_bytes, 512ull << 20);
}

static void run_profile(const char *profile, bool has_reserved, bool has_fan_count)
{
    struct sim_fx fx = SIM_FX_INIT;

    if (!sim_available(profile))
        skip();
    assert_int_equal(sim_fx_open_on(&fx, profile, sim_write_scenario(procs_scn), NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    check_procs(&fx.snap, profile);
    const struct gs_gpu *g = &fx.snap.gpus[0];
    assert_true(gs_sample_has(&g->s, GS_F_MEM_USED));
    assert_true(gs_sample_has(&g->s, GS_F_TEMP_GPU));
    assert_true(gs_sample_has(&g->s, GS_F_THROTTLE));
    assert_int_equal(gs_sample_has(&g->s, GS_F_MEM_RESERVED), has_reserved);
    assert_int_equal(gs_static_has(&g->st, GS_S_FAN_COUNT), has_fan_count);
    sim_fx_close(&fx);
}

static void test_profile_current(void **state)
{
    (void)state;
    run_profile("current", true, true);
}

static void test_profile_r535(void **state)
{
    (void)state;
    run_profile("r535", true, true);
}

static void test_profile_r535early(void **state)
{
    (void)state;
    run_profile("r535early", true, true); /* 32-byte _v3 entries read right */
}

static void test_profile_r525(void **state)
{
    (void)state;
    run_profile("r525", true, true);
}

static void test_profile_r470(void **state)
{
    (void)state;
    run_profile("r470", false, false);
}

struct lines {
    char text[8192];
};

static void add_line(void *arg, const char *text)
{
    struct lines *l = arg;
    size_t n = strlen(l->text);
    snprintf(l->text + n, sizeof(l->text) - n, "%s\n", text);
}

static void test_bound_names_recorded(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    static struct lines l;
    (void)state;
    NEED_SIM("r535early");
    assert_int_equal(sim_fx_open_on(&fx, "r535early", "demo", NULL), 0);
    l.text[0] = '\0';
    gs_sampler_describe(fx.s, add_line, &l);
    assert_non_null(strstr(l.text, "nvmlDeviceGetComputeRunningProcesses -> "
                                   "nvmlDeviceGetComputeRunningProcesses_v3"));
    assert_non_null(strstr(l.text, "compute process entry -> 32 bytes"));
    assert_non_null(strstr(l.text, "nvmlDeviceGetTemperatureV -> (absent)"));
    sim_close(fx.s);
    if (!sim_available("r470"))
        return;
    assert_int_equal(sim_fx_open_on(&fx, "r470", "demo", NULL), 0);
    l.text[0] = '\0';
    gs_sampler_describe(fx.s, add_line, &l);
    assert_non_null(strstr(l.text, "-> nvmlDeviceGetComputeRunningProcesses_v2"));
    assert_non_null(strstr(l.text, "compute process entry -> 24 bytes"));
    assert_non_null(strstr(l.text, "nvmlDeviceGetMemoryInfo_v2 -> (absent)"));
    sim_close(fx.s);
}

/* ---- process lists ------------------------------------------------------------------------ */
/* The list grows between the size query and the read: negotiation retries. */
static void test_list_grows(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("name grow\ngpu 0\nproc 0 pid=5000 count=60 mem=1GiB\n");
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 1); /* the lists at every tick, not held */
    assert_int_equal(sim_fx_open_on(&fx, "current", scn,
                                    "nvmlDeviceGetComputeRunningProcesses_v3 call=1 grow=40"),
                     0);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].procs_status, GS_ST_OK);
    assert_int_equal(fx.snap.gpus[0].nprocs, 100);
    /* INSUFFICIENT_SIZE on the first call, then one retry with a grown buffer */
    assert_int_equal(sim_calls("nvmlDeviceGetComputeRunningProcesses_v3"), 2);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetComputeRunningProcesses_v3"), 3);
    assert_int_equal(fx.snap.gpus[0].nprocs, 100);
    for (uint32_t i = 0; i < fx.snap.gpus[0].nprocs; i++)
        assert_int_equal(fx.snap.gpus[0].procs[i].type & GS_PROC_COMPUTE, GS_PROC_COMPUTE);
    sim_fx_close(&fx);
}

static void set_clock(const char *path, const char *t)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(t, f);
    fclose(f);
}

/* The lists are held while the GPU's used memory stays (a new context
 * allocates some), with their age, and read again once it changed. */
static void test_lists_held(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clk[] = "/tmp/gs-test-clock-XXXXXX", env[64];
    struct timespec ms2 = { 0, 2000000 };
    (void)state;
    NEED_SIM("current");
    int fd = mkstemp(clk);
    assert_true(fd >= 0);
    close(fd);
    set_clock(clk, "10");
    const char *scn = sim_write_scenario("name held\ngpu 0 util=50\nproc 0 pid=5000 mem=1GiB\n"
                                         "proc 0 pid=5001 mem=2GiB start=20\n");
    sim_setup("current", scn, NULL);
    snprintf(env, sizeof(env), "file:%s", clk);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].nprocs, 1);
    assert_int_equal(fx.snap.gpus[0].procs_age_ms, 0);
    assert_int_equal(sim_calls("nvmlDeviceGetComputeRunningProcesses_v3"), 1);
    nanosleep(&ms2, NULL);
    assert_int_equal(sim_fx_snap(&fx), 0); /* same memory: the list held, with its age */
    assert_int_equal(sim_calls("nvmlDeviceGetComputeRunningProcesses_v3"), 1);
    assert_int_equal(fx.snap.gpus[0].procs_status, GS_ST_OK);
    assert_int_equal(fx.snap.gpus[0].nprocs, 1);
    assert_int_equal(fx.snap.gpus[0].procs[0].pid, 5000);
    assert_true(fx.snap.gpus[0].procs[0].gpu_mem_bytes == 1ull << 30);
    assert_true(fx.snap.gpus[0].procs_age_ms >= 2);
    set_clock(clk, "25"); /* 5001 started: more memory used, so listed at once */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetComputeRunningProcesses_v3"), 2);
    assert_int_equal(fx.snap.gpus[0].nprocs, 2);
    assert_int_equal(fx.snap.gpus[0].procs_age_ms, 0);
    sim_fx_close(&fx);
    unlink(clk);
}

static void test_bench_64_procs(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "bench-8x64", NULL), 0);
    for (int t = 0; t < 3; t++)
        assert_int_equal(sim_fx_snap(&fx), 0);
    for (uint32_t i = 0; i < fx.snap.ngpus; i++)
        assert_int_equal(fx.snap.gpus[i].nprocs, 64);
    sim_fx_close(&fx);
}

/* Per-process utilization: values over 100 % dropped, processes idle get 0. */
static void test_process_utilization(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    const char *profiles[] = { "current", "r535" }; /* Info API, then the legacy one */
    (void)state;
    for (size_t k = 0; k < 2; k++) {
        if (!sim_available(profiles[k]))
            continue;
        const char *scn = sim_write_scenario("name putil\ngpu 0\n"
                                             "proc 0 pid=6001 sm=40 mem_util=20 mem=1GiB\n"
                                             "proc 0 pid=6002 sm=150 mem=1GiB\n");
        assert_int_equal(sim_fx_open_on(&fx, profiles[k], scn, NULL), 0);
            assert_int_equal(sim_fx_snap(&fx), 0);
        const struct gs_proc *p = find_pid(&fx.snap.gpus[0], 6001);
        assert_non_null(p);
        assert_true(gs_proc_has(p, GS_P_SM_UTIL));
        assert_int_equal(p->sm_util_pct, 40);
        assert_int_equal(p->mem_util_pct, 20);
        p = find_pid(&fx.snap.gpus[0], 6002);
        assert_non_null(p);
        assert_true(p->sm_util_pct <= 100);
        sim_fx_close(&fx);
    }
}

/* ---- per-field "not supported", asked once --------------------------------------------- */
static void test_minimal_not_supported(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "minimal", NULL), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_gpu *g = &fx.snap.gpus[0];
    int unsupported = 0;
    for (int f = 0; f < GS_F_COUNT; f++) {
        assert_int_not_equal(g->s.status[f], GS_ST_ERROR);
        unsupported += g->s.status[f] == GS_ST_NOT_SUPPORTED;
        assert_int_equal(gs_sample_has(&g->s, f), g->s.status[f] == GS_ST_OK);
    }
    assert_true(unsupported > GS_F_COUNT / 2);
    assert_int_equal(g->s.status[GS_F_FAN_SPEED], GS_ST_NOT_SUPPORTED);
    /* Not asked again: a second tick does not call what said NOT_SUPPORTED. */
    unsigned long long fan = sim_calls("nvmlDeviceGetFanSpeed_v2") + sim_calls("nvmlDeviceGetFanSpeed");
    unsigned long long ecc = sim_calls("nvmlDeviceGetTotalEccErrors");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetFanSpeed_v2") + sim_calls("nvmlDeviceGetFanSpeed"), fan);
    if (g->s.status[GS_F_ECC_VOL_CORR] == GS_ST_NOT_SUPPORTED)
        assert_int_equal(sim_calls("nvmlDeviceGetTotalEccErrors"), ecc);
    sim_fx_close(&fx);
}

/* A field failing with an unexpected error: GS_ST_ERROR with the reason, others fine. */
static void test_field_error(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo",
                                    "nvmlDeviceGetPowerUsage gpu=0 call=1 error=UNKNOWN"),
                     0);
    assert_int_equal(sim_fx_snap(&fx), -GS_E_BACKEND);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_POWER], GS_ST_ERROR);
    assert_non_null(strstr(fx.snap.gpus[0].last_error, "power"));
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_TEMP_GPU));
    /* transient: the next tick reads it again */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_POWER));
    sim_fx_close(&fx);
}

/* Memory info v2 refusing our version falls back to v1 (and stays there). */
static void test_memory_v2_fallback(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", "demo",
                                    "nvmlDeviceGetMemoryInfo_v2 error=ARGUMENT_VERSION_MISMATCH persist"),
                     0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_MEM_USED));
    assert_false(gs_sample_has(&fx.snap.gpus[0].s, GS_F_MEM_RESERVED));
    sim_fx_close(&fx);
}

/* ---- explanations ------------------------------------------------------------------------ */
static void test_explain_texts(void **state)
{
    struct gs_err err = { 0 };
    (void)state;
    assert_int_equal(gs_nvml_explain_no_library(NULL, "not found", &err), -GS_E_NO_LIBRARY);
    assert_non_null(strstr(err.msg, "libnvidia-ml.so.1"));
    assert_non_null(strstr(err.hint, "--gpus"));
    assert_non_null(strstr(err.hint, "GPUSCOPE_NVML_LIB"));
    assert_non_null(strstr(err.hint, "--demo"));
    assert_int_equal(gs_nvml_explain_lost(3, "00000000:3B:00.0", &err), -GS_E_GPU_LOST);
    assert_non_null(strstr(err.msg, "00000000:3B:00.0"));
    assert_non_null(strstr(err.hint, "Xid 79"));
    assert_int_equal(gs_nvml_explain_init(NVML_ERROR_UNKNOWN, "Unknown Error", &err), -GS_E_BACKEND);
    assert_string_equal(gs_nvml_errstr(NULL, NVML_ERROR_GPU_IS_LOST), "GPU is lost");
    assert_string_equal(gs_nvml_errstr(NULL, (nvmlReturn_t)77), "Unknown Error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_explain_texts),
        cmocka_unit_test(test_driver_not_loaded),
        cmocka_unit_test(test_version_mismatch),
        cmocka_unit_test(test_init_no_permission),
        cmocka_unit_test(test_no_devices),
        cmocka_unit_test(test_init_error_from_scenario),
        cmocka_unit_test(test_handle_refused),
        cmocka_unit_test(test_handle_lost),
        cmocka_unit_test(test_profile_current),
        cmocka_unit_test(test_profile_r535),
        cmocka_unit_test(test_profile_r535early),
        cmocka_unit_test(test_profile_r525),
        cmocka_unit_test(test_profile_r470),
        cmocka_unit_test(test_bound_names_recorded),
        cmocka_unit_test(test_list_grows),
        cmocka_unit_test(test_lists_held),
        cmocka_unit_test(test_bench_64_procs),
        cmocka_unit_test(test_process_utilization),
        cmocka_unit_test(test_minimal_not_supported),
        cmocka_unit_test(test_field_error),
        cmocka_unit_test(test_memory_v2_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
