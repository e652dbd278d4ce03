/* SPDX-License-Identifier: MIT */
/*
 * test_nvml_pcie.c - PCIe TX/RX without the 20 ms sampling call (issue 24): the
 * rate of a byte counter (first reading, a wrap at 32 and 64 bits, a counter or
 * clock going back, the same timestamp twice); in a loop, the rates from fields
 * 197/198 in the tick (an average over the interval, not the function's instant)
 * or from GPM where the tick reads it anyway, with the worker retired; the
 * function on the worker where the driver has no counters (r535), decided once;
 * one-shot reads by the function. Tests needing a profile that is not built are
 * skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/nvidia/nvml_tick.h"
#include "core/sampler.h"
#include "sim_env.h"

/* ---- the counter arithmetic ---------------------------------------------------------------- */

static void test_step(void **state)
{
    struct nvml_pcie_ctr c;
    (void)state;
    memset(&c, 0, sizeof(c));
    assert_int_equal(nvml_pcie_step(&c, 1000000, 64, 1000000, 1), NVML_PCIE_NONE); /* the first reading */
    assert_int_equal(nvml_pcie_step(&c, 1000000, 64, 1000000, 2), NVML_PCIE_NONE); /* same time, no rate yet */
    assert_int_equal(nvml_pcie_step(&c, 1000000 + 400000000, 64, 2000000, 3), NVML_PCIE_NEW);
    assert_int_equal(c.rate_kbps, 400000);                                        /* 400 MB/s over 1 s */
    assert_int_equal(nvml_pcie_step(&c, 1000000 + 400000000, 64, 2000000, 4), NVML_PCIE_HELD); /* not refreshed */
    assert_int_equal(c.rate_kbps, 400000);
    assert_int_equal(c.rate_ns, 3); /* the age counts from the reading that gave it */
    /* half a second at 2 GB/s */
    assert_int_equal(nvml_pcie_step(&c, 1000000 + 400000000 + 1000000000, 64, 2500000, 5), NVML_PCIE_NEW);
    assert_int_equal(c.rate_kbps, 2000000);
    /* the counter went back (a GPU reset): a new baseline, no rate; then rates again */
    assert_int_equal(nvml_pcie_step(&c, 5000, 64, 3500000, 6), NVML_PCIE_NONE);
    assert_false(c.rate_ok);
    assert_int_equal(nvml_pcie_step(&c, 5000 + 3000000, 64, 4500000, 7), NVML_PCIE_NEW);
    assert_int_equal(c.rate_kbps, 3000);
    /* the clock went back: a new baseline */
    assert_int_equal(nvml_pcie_step(&c, 9000000, 64, 4000000, 8), NVML_PCIE_NONE);

    /* a wrap at 64 bits is a rate */
    memset(&c, 0, sizeof(c));
    nvml_pcie_step(&c, UINT64_MAX - 99999999, 64, 0, 1);
    assert_int_equal(nvml_pcie_step(&c, 100000000, 64, 1000000, 2), NVML_PCIE_NEW);
    assert_int_equal(c.rate_kbps, 200000);
    /* ... and at 32 bits (an entry typed unsigned int) */
    memset(&c, 0, sizeof(c));
    nvml_pcie_step(&c, 4294967295u - 999, 32, 0, 1);
    assert_int_equal(nvml_pcie_step(&c, 1000, 32, 1000, 2), NVML_PCIE_NEW); /* 2000 bytes in 1 ms */
    assert_int_equal(c.rate_kbps, 2000);
}

/* ---- in a loop, on the simulator --------------------------------------------------------------- */

static char clock_path[64];

static void set_clock(double t)
{
    FILE *f = fopen(clock_path, "w");
    assert_non_null(f);
    fprintf(f, "%.3f\n", t);
    fclose(f);
}

/* A sampler as a loop opens it (the worker, PCIe wanted, not profiling unless prof), at t = 10. */
static void open_loop(struct sim_fx *fx, const char *profile, const char *scn, bool prof)
{
    snprintf(clock_path, sizeof(clock_path), "/tmp/gs-test-pcie-clock-%d", (int)getpid());
    char env[96];
    snprintf(env, sizeof(env), "file:%s", clock_path);
    sim_setup(profile, sim_write_scenario(scn), NULL);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    set_clock(10);
    fx->o.want_host = false;
    fx->o.want_procs = false;
    fx->o.slow = GS_SLOW_THREAD;
    fx->o.slow_interval_ms = 10; /* it would call the function all the time if not retired */
    fx->o.want = gs_fmask_or(gs_fmask_of(GS_F_PCIE_TX), gs_fmask_of(GS_F_PCIE_RX));
    gs_fmask_set(&fx->o.want, GS_F_GPU_UTIL);
    gs_fmask_set(&fx->o.want, GS_F_TEMP_MEM); /* the tick makes a field-values call */
    if (prof)
        gs_fmask_set(&fx->o.want, GS_F_PROF_FIRST + GS_PROF_SM_ACTIVE);
    assert_int_equal(sim_fx_open(fx), 0);
}

/* The worker calls nvmlDeviceGetPcieThroughput no more (a pass under way may end first). */
static void assert_worker_retired(void)
{
    usleep(50000);
    unsigned long long fn = sim_calls("nvmlDeviceGetPcieThroughput");
    usleep(100000); /* ten of its periods */
    assert_int_equal(sim_calls("nvmlDeviceGetPcieThroughput"), fn);
}

static void close_loop(struct sim_fx *fx)
{
    sim_fx_close(fx);
    unlink(clock_path);
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

/* GPU 0 without GPM (A100): the counters in the tick's field-values call. The rate is the
 * average since the last tick (the function would answer the instant's 300000). */
static void test_counters_in_the_tick(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    open_loop(&fx, "current", "gpu count=1 arch=ampere pcie_tx=step(100000,300000,11) pcie_rx=50000\n", false);
    assert_int_equal(sim_fx_snap(&fx), 0); /* t = 10: no interval since the choice */
    unsigned long long fv = sim_calls("nvmlDeviceGetFieldValues");
    set_clock(13);
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_sample *s = &fx.snap.gpus[0].s;
    assert_true(gs_sample_has(s, GS_F_PCIE_TX) && gs_sample_has(s, GS_F_PCIE_RX));
    /* 10-11 at 100000 (the simulator's trapezoid: 200000 from 10 to 11), 11-13 at 300000 */
    assert_int_equal(s->pcie_tx_kbps, 266667);
    assert_int_equal(s->pcie_rx_kbps, 50000);
    assert_int_equal(s->age_ms[GS_F_PCIE_TX], 0);
    assert_int_equal(sim_calls("nvmlDeviceGetFieldValues") - fv, 1); /* in the tick's one call */
    /* the same instant again: the driver has not refreshed; the rate stands, with its age */
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].s.pcie_tx_kbps, 266667);
    /* the clock goes back (the counters restart): not available, never 0; then a rate again */
    set_clock(5);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_PCIE_TX], GS_ST_NOT_AVAILABLE);
    set_clock(7);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].s.pcie_tx_kbps, 100000);
    assert_worker_retired();
    close_loop(&fx);
}

/* A counter that wraps between two ticks still gives the rate. */
static void test_counters_wrap(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    /* at t = 10 the counter is 1e8 short of 2^64 */
    open_loop(&fx, "current", "gpu count=1 arch=ampere pcie_tx=100000 pcie_tx_start=18446744072609551616\n",
              false);
    set_clock(12);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_PCIE_TX));
    assert_int_equal(fx.snap.gpus[0].s.pcie_tx_kbps, 100000);
    close_loop(&fx);
}

/* An H100 whose tick reads GPM: PCIe from GPM's metrics, no counters, no function. */
static void test_gpm(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    open_loop(&fx, "current", "gpu count=1 arch=hopper pcie_tx=400000 pcie_rx=3000000\n", true);
    assert_int_equal(sim_fx_snap(&fx), 0); /* GPM's first sample: no interval */
    unsigned long long fv = sim_calls("nvmlDeviceGetFieldValues");
    set_clock(11);
    assert_int_equal(sim_fx_snap(&fx), 0);
    const struct gs_sample *s = &fx.snap.gpus[0].s;
    assert_true(gs_sample_has(s, GS_F_PCIE_TX) && gs_sample_has(s, GS_F_PCIE_RX));
    assert_int_equal(s->pcie_tx_kbps, 400000);
    assert_int_equal(s->pcie_rx_kbps, 3000000);
    assert_int_equal(s->status[GS_F_PROF_FIRST + GS_PROF_PCIE_TX], GS_ST_NOT_SAMPLED); /* not asked for */
    set_clock(12);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].s.pcie_tx_kbps, 400000);
    assert_int_equal(sim_calls("nvmlDeviceGetFieldValues") - fv, 2); /* memory temperature's, not more */
    assert_worker_retired();
    close_loop(&fx);
}

/* r535 does not know fields 197/198: asked once, then the function on the worker. */
static void test_no_counters(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("r535");
    open_loop(&fx, "r535", "gpu count=1 arch=ampere pcie_tx=400000\n", false);
    for (int tries = 0; tries < 400; tries++) { /* the worker's first pass */
        assert_int_equal(sim_fx_snap(&fx), 0);
        if (gs_sample_has(&fx.snap.gpus[0].s, GS_F_PCIE_TX))
            break;
        usleep(5000);
    }
    assert_int_equal(fx.snap.gpus[0].s.pcie_tx_kbps, 400000);
    unsigned long long fv = sim_calls("nvmlDeviceGetFieldValues"), fn = sim_calls("nvmlDeviceGetPcieThroughput");
    set_clock(11);
    assert_int_equal(sim_fx_snap(&fx), 0);
    set_clock(12);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetFieldValues") - fv, 2); /* one per tick: no retry of 197/198 */
    usleep(100000);
    assert_true(sim_calls("nvmlDeviceGetPcieThroughput") > fn); /* the worker, every period */
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_PCIE_TX)); /* its value, with its age */
    close_loop(&fx);
}

/* A one-shot read (GS_SLOW_INLINE) has no previous tick: the function. */
static void test_one_shot(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    sim_setup("current", sim_write_scenario("gpu count=1 arch=ampere pcie_tx=400000\n"), NULL);
    fx.o.want_host = false;
    fx.o.slow = GS_SLOW_INLINE;
    assert_int_equal(sim_fx_open(&fx), 0);
    unsigned long long fn = sim_calls("nvmlDeviceGetPcieThroughput");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(fx.snap.gpus[0].s.pcie_tx_kbps, 400000);
    assert_int_equal(sim_calls("nvmlDeviceGetPcieThroughput") - fn, 2);
    sim_fx_close(&fx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step),
        cmocka_unit_test(test_counters_in_the_tick),
        cmocka_unit_test(test_counters_wrap),
        cmocka_unit_test(test_gpm),
        cmocka_unit_test(test_no_counters),
        cmocka_unit_test(test_one_shot),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
