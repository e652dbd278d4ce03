/* SPDX-License-Identifier: MIT */
/*
 * test_nvml_mig.c - the NVML backend's MIG devices and GPM profiling metrics,
 * through the sampler against the simulator: instances listed with their IDs,
 * profiles and memory, processes tied to them; profiling "not available" on
 * the first snapshot and values after an interval, per GPU and per GPU
 * instance; "not supported" (and asked once) before Hopper and on R470; NVML
 * calls per tick. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>

#include "core/sampler.h"
#include "sim_env.h"

/* Advance the simulator's clock by dt seconds. */
static void step(double dt)
{
    void *h = dlopen(getenv("GPUSCOPE_NVML_LIB"), RTLD_NOW | RTLD_NOLOAD);
    void (*fn)(double) = NULL;
    assert_non_null(h);
    void *p = dlsym(h, "gssimClockStep");
    memcpy(&fn, &p, sizeof(p));
    assert_non_null(fn);
    fn(dt);
    dlclose(h);
}

/* The fixture opened on profile + scenario, slow fields skipped; the test fails if it cannot open. */
static void open_on(struct sim_fx *fx, const char *profile, const char *scenario)
{
    fx->o.slow = GS_SLOW_SKIP;
    if (sim_fx_open_on(fx, profile, scenario, NULL) != 0)
        fail_msg("sampler: %s", fx->err.msg);
}

static void test_mig_devices_and_processes(void **state)
{
    (void)state;
    NEED_SIM("current");
    struct sim_fx fx = SIM_FX_INIT;
    open_on(&fx, "current", "mig-h100");
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_gpu *g0 = &fx.snap.gpus[0], *g1 = &fx.snap.gpus[1];
    assert_int_equal(g0->s.status[GS_F_MIG_DEVICES], GS_ST_OK);
    assert_int_equal(g0->nmig, 4);
    assert_int_equal(g1->s.status[GS_F_MIG_DEVICES], GS_ST_OK);
    assert_int_equal(g1->nmig, 0); /* MIG off */
    assert_string_equal(g0->mig[0].profile, "3g.40gb");
    assert_int_equal(g0->mig[0].gpu_instance_id, 2);
    assert_int_equal(g0->mig[0].sm_count, 60);
    assert_int_equal(g0->mig[0].mem_status, GS_ST_OK);
    assert_int_equal(g0->mig[0].mem_total_bytes, 40448ull << 20);
    assert_int_equal(strncmp(g0->mig[0].uuid, "MIG-", 4), 0);
    assert_string_equal(g0->mig[3].profile, "1g.10gb");
    assert_int_equal(g0->mig[3].gpu_instance_id, 10);
    assert_int_equal(g0->mig[3].nprocs, 0);
    /* the whole GPU in MIG mode has no utilization */
    assert_int_equal(g0->s.status[GS_F_GPU_UTIL], GS_ST_NOT_SUPPORTED);
    /* processes: each in its instance */
    assert_int_equal(g0->nprocs, 3);
    for (uint32_t i = 0; i < g0->nprocs; i++) {
        const struct gs_proc *p = &g0->procs[i];
        assert_true(gs_proc_has(p, GS_P_MIG));
        assert_true(p->mig_index < g0->nmig);
        assert_int_equal(g0->mig[p->mig_index].gpu_instance_id, p->gpu_instance_id);
        assert_int_equal(g0->mig[p->mig_index].nprocs, 1);
    }
    assert_false(gs_proc_has(&g1->procs[0], GS_P_MIG));
    sim_fx_close(&fx);
}

static void test_profiling_after_an_interval(void **state)
{
    (void)state;
    NEED_SIM("current");
    struct sim_fx fx = SIM_FX_INIT;
    open_on(&fx, "current", "mig-h100");
    assert_int_equal(sim_fx_snap(&fx), 0);
    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        assert_int_equal(fx.snap.gpus[1].s.status[GS_F_PROF_FIRST + k], GS_ST_NOT_AVAILABLE); /* no interval yet */
        assert_false(gs_sample_has(&fx.snap.gpus[1].s, GS_F_PROF_FIRST + k));
    }
    /* the same instant again (within the driver's refresh): still no interval, baseline kept */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[1].s.status[GS_F_PROF_TENSOR], GS_ST_NOT_AVAILABLE);
    assert_int_equal(fx.snap.gpus[0].mig[0].prof_status[GS_PROF_TENSOR], GS_ST_NOT_AVAILABLE);
    step(1.0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_gpu *g0 = &fx.snap.gpus[0], *g1 = &fx.snap.gpus[1];
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        assert_true(gs_sample_has(&g1->s, GS_F_PROF_FIRST + k));
    /* GPU 1 trains: busy, tensor-heavy, NVLink traffic of ~45 GB/s; ratios 0..1 */
    assert_true(g1->s.prof[GS_PROF_GR_ENGINE] > 0.85 && g1->s.prof[GS_PROF_GR_ENGINE] <= 1.0);
    assert_true(g1->s.prof[GS_PROF_TENSOR] > 0.4 && g1->s.prof[GS_PROF_TENSOR] < 0.8);
    assert_true(g1->s.prof[GS_PROF_NVLINK_TX] > 30e9 && g1->s.prof[GS_PROF_NVLINK_TX] < 60e9);
    assert_true(g1->s.prof_interval_ns > 0);
    /* per GPU instance: the 3g is busy, the idle 1g is idle; PCIe is not an instance's */
    assert_int_equal(g0->mig[0].prof_status[GS_PROF_GR_ENGINE], GS_ST_OK);
    assert_true(g0->mig[0].prof[GS_PROF_GR_ENGINE] > 0.75);
    assert_int_equal(g0->mig[3].prof_status[GS_PROF_GR_ENGINE], GS_ST_OK);
    assert_true(g0->mig[3].prof[GS_PROF_GR_ENGINE] == 0);
    assert_int_equal(g0->mig[0].prof_status[GS_PROF_PCIE_TX], GS_ST_NOT_SUPPORTED);
    /* one sample and one metrics call per GPU and per GPU instance per tick */
    unsigned long long sg = sim_calls("nvmlGpmSampleGet"), mg = sim_calls("nvmlGpmMetricsGet"),
                       msg = sim_calls("nvmlGpmMigSampleGet"), q = sim_calls("nvmlGpmQueryDeviceSupport");
    step(1.0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlGpmSampleGet") - sg, 2);
    assert_int_equal(sim_calls("nvmlGpmMigSampleGet") - msg, 4);
    assert_int_equal(sim_calls("nvmlGpmMetricsGet") - mg, 2 + 4);
    assert_int_equal(sim_calls("nvmlGpmQueryDeviceSupport") - q, 0);
    assert_int_equal(sim_calls("nvmlGpmSampleAlloc"), 2 * (2 + 4)); /* buffers kept across ticks */
    sim_fx_close(&fx);
    assert_int_equal(sim_calls("nvmlGpmSampleFree"), ~0ull); /* library unloaded: nothing to ask */
}

/* Before Hopper, and with a library without GPM: "not supported", asked once. */
static void test_not_supported(void **state)
{
    (void)state;
    if (!sim_available("current") || !sim_available("r470"))
        skip();
    const char *scn = sim_write_scenario("gpu 0 arch=ampere util=50\ngpu 1 arch=hopper unsupported=gpm\n");
    struct sim_fx fx = SIM_FX_INIT;
    open_on(&fx, "current", scn);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(sim_fx_snap(&fx), 0);
        for (unsigned g = 0; g < 2; g++)
            for (unsigned k = 0; k < GS_PROF_COUNT; k++)
                assert_int_equal(fx.snap.gpus[g].s.status[GS_F_PROF_FIRST + k], GS_ST_NOT_SUPPORTED);
    }
    assert_int_equal(sim_calls("nvmlGpmQueryDeviceSupport"), 2);
    assert_int_equal(sim_calls("nvmlGpmSampleGet"), 0);
    assert_int_equal(sim_calls("nvmlGpmSampleAlloc"), 0);
    sim_close(fx.s);
    unlink(scn);
    open_on(&fx, "r470", "mig-h100");
    assert_int_equal(sim_fx_snap(&fx), 0);
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        assert_int_equal(fx.snap.gpus[1].s.status[GS_F_PROF_FIRST + k], GS_ST_NOT_SUPPORTED);
    assert_int_equal(fx.snap.gpus[0].nmig, 4); /* MIG handles exist on R470 */
    sim_fx_close(&fx);
}

/* A sampler that does not want profiling makes no GPM call at all. */
static void test_not_wanted(void **state)
{
    (void)state;
    NEED_SIM("current");
    struct sim_fx fx = SIM_FX_INIT;
    sim_setup("current", "mig-h100", NULL);
    fx.o.want = gs_fmask_of(GS_F_POWER);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].nmig, 0);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_PROF_TENSOR], GS_ST_NOT_SAMPLED);
    assert_int_equal(sim_calls("nvmlGpmQueryDeviceSupport"), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetMaxMigDeviceCount"), 0);
    sim_fx_close(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mig_devices_and_processes),
        cmocka_unit_test(test_profiling_after_an_interval),
        cmocka_unit_test(test_not_supported),
        cmocka_unit_test(test_not_wanted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
