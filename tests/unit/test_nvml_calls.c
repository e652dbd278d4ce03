/* SPDX-License-Identifier: MIT */
/*
 * test_nvml_calls.c - readings that come with fewer NVML calls (issue 24), each
 * against its fallback: power usage from field 185 of the tick's field-values
 * call, the function where the GPU refuses the field (decided once), and the
 * fault lines of nvmlDeviceGetPowerUsage hitting the field's entry too; the
 * power limits from the slow batch (fields 192, 190) and their functions; the
 * P-state read when a P-state event says it changed, every tick on a GPU
 * without events or when nobody drains the event queue. Tests
 * needing a simulator profile that is not built are skipped.
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

#include "core/sampler.h"
#include "sim_env.h"

/* GPU 0 gives its 1 s average power as field 185; GPU 1 (GA100 and older) has none. */
static const char *const power_scn = "gpu count=2 power=250W power_instant=260W\n"
                                     "gpu 1 unsupported=power_average power=120W\n";

static void test_power_field(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:5", 1);
    assert_int_equal(sim_fx_open_on(&fx, "current", sim_write_scenario(power_scn), NULL), 0);
    unsigned long long fn0 = sim_calls("nvmlDeviceGetPowerUsage");
    for (int k = 0; k < 4; k++) {
        assert_int_equal(sim_fx_snap(&fx), 0);
        assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_POWER));
        assert_int_equal(fx.snap.gpus[0].s.power_mw, 250000); /* the average, not the instant */
        assert_true(gs_sample_has(&fx.snap.gpus[1].s, GS_F_POWER));
        assert_int_equal(fx.snap.gpus[1].s.power_mw, 120000);
    }
    /* GPU 0 never by its function; GPU 1 by its function at every tick */
    assert_int_equal(sim_calls("nvmlDeviceGetPowerUsage") - fn0, 4);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

/* Field values missing altogether: power by its function, as before. */
static void test_power_no_field_values(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:5", 1);
    assert_int_equal(sim_fx_open_on(&fx, "current",
                                    sim_write_scenario("gpu count=1 power=250W unsupported=field_values\n"), NULL),
                     0);
    unsigned long long fn0 = sim_calls("nvmlDeviceGetPowerUsage");
    for (int k = 0; k < 3; k++) {
        assert_int_equal(sim_fx_snap(&fx), 0);
        assert_int_equal(fx.snap.gpus[0].s.power_mw, 250000);
    }
    assert_int_equal(sim_calls("nvmlDeviceGetPowerUsage") - fn0, 3);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

/* A fault of nvmlDeviceGetPowerUsage hits the field's entry, counted as its calls: an error
 * at the second tick only (the field is not refused for it), a GPU lost at the third. */
static void test_power_field_faults(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    assert_int_equal(sim_fx_open_on(&fx, "current", sim_write_scenario(power_scn),
                                    "nvmlDeviceGetPowerUsage gpu=0 call=2 error=UNKNOWN"),
                     0);
    unsigned long long fn0 = sim_calls("nvmlDeviceGetPowerUsage");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), -GS_E_BACKEND);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_POWER], GS_ST_ERROR);
    assert_non_null(strstr(fx.snap.gpus[0].last_error, "power"));
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_TEMP_GPU));
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_POWER));
    assert_int_equal(sim_calls("nvmlDeviceGetPowerUsage") - fn0, 3); /* GPU 1's only */
    sim_fx_close(&fx);

    assert_int_equal(sim_fx_open_on(&fx, "current", sim_write_scenario(power_scn),
                                    "nvmlDeviceGetPowerUsage gpu=0 call=3 error=GPU_IS_LOST persist"),
                     0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), -GS_E_GPU_LOST);
    assert_int_equal(fx.snap.gpus[0].state, GS_GPU_LOST);
    assert_int_equal(fx.snap.gpus[0].s.status[GS_F_POWER], GS_ST_GPU_LOST);
    assert_int_equal(fx.snap.gpus[1].state, GS_GPU_OK);
    sim_fx_close(&fx);
}

/* The power limits from fields 192 and 190 of the slow batch; GPU 1 has none: the functions,
 * once (NOT_SUPPORTED is not asked again), as before. */
static void test_power_limit_fields(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    (void)state;
    NEED_SIM("current");
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 1); /* every reading at every tick */
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:5", 1);
    assert_int_equal(sim_fx_open_on(&fx, "current",
                                    sim_write_scenario("gpu count=2 power_limit=300W power_enforced=280W\n"
                                                       "gpu 1 unsupported=power_limit\n"),
                                    NULL),
                     0);
    unsigned long long l0 = sim_calls("nvmlDeviceGetPowerManagementLimit");
    unsigned long long e0 = sim_calls("nvmlDeviceGetEnforcedPowerLimit");
    for (int k = 0; k < 3; k++) {
        assert_int_equal(sim_fx_snap(&fx), 0);
        const struct gs_sample *s = &fx.snap.gpus[0].s;
        assert_true(gs_sample_has(s, GS_F_POWER_LIMIT) && gs_sample_has(s, GS_F_POWER_ENFORCED));
        assert_int_equal(s->power_limit_mw, 300000);
        assert_int_equal(s->power_enforced_limit_mw, 280000);
        assert_int_equal(fx.snap.gpus[1].s.status[GS_F_POWER_LIMIT], GS_ST_NOT_SUPPORTED);
        assert_int_equal(fx.snap.gpus[1].s.status[GS_F_POWER_ENFORCED], GS_ST_NOT_SUPPORTED);
    }
    assert_int_equal(sim_calls("nvmlDeviceGetPowerManagementLimit") - l0, 1); /* GPU 1, once */
    assert_int_equal(sim_calls("nvmlDeviceGetEnforcedPowerLimit") - e0, 1);
    sim_fx_close(&fx);
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

static void set_clock(const char *path, double t)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "%.3f\n", t);
    fclose(f);
}

/* GPU 0 sends P-state events, GPU 1 none: P8 until t = 20, then P0. */
static void test_pstate_events(void **state)
{
    struct sim_fx fx = SIM_FX_INIT;
    char clock[64], env[80];
    (void)state;
    NEED_SIM("current");
    const char *scn = sim_write_scenario("gpu count=2 pstate=step(8,0,20)\ngpu 1 unsupported=events\n");
    sim_setup("current", scn, NULL);
    snprintf(clock, sizeof(clock), "/tmp/gs-test-pclock-%d", (int)getpid());
    snprintf(env, sizeof(env), "file:%s", clock);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    set_clock(clock, 10);
    fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0); /* the first tick reads both */
    unsigned long long p0 = sim_calls("nvmlDeviceGetPerformanceState");
    set_clock(clock, 12);
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetPerformanceState") - p0, 1); /* GPU 1's only */
    assert_int_equal(fx.snap.gpus[0].s.pstate, 8);
    assert_true(gs_sample_has(&fx.snap.gpus[0].s, GS_F_PSTATE)); /* held, with its age */
    set_clock(clock, 21); /* P8 -> P0: the event says so, both read, neither passed on as an event */
    p0 = sim_calls("nvmlDeviceGetPerformanceState");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetPerformanceState") - p0, 2);
    assert_int_equal(fx.snap.gpus[0].s.pstate, 0);
    assert_int_equal(fx.snap.gpus[0].s.age_ms[GS_F_PSTATE], 0);
    assert_int_equal(fx.snap.gpus[1].s.pstate, 0);
    assert_int_equal(fx.snap.nevents, 0);
    p0 = sim_calls("nvmlDeviceGetPerformanceState");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetPerformanceState") - p0, 1); /* held again */
    sim_fx_close(&fx);

    /* Nobody drains the queue (no Xids wanted): read at every tick. */
    set_clock(clock, 10);
    fx.o.want = gs_fmask_of(GS_F_PSTATE);
    assert_int_equal(sim_fx_open(&fx), 0);
    assert_int_equal(sim_fx_snap(&fx), 0);
    p0 = sim_calls("nvmlDeviceGetPerformanceState");
    assert_int_equal(sim_fx_snap(&fx), 0);
    assert_int_equal(sim_calls("nvmlDeviceGetPerformanceState") - p0, 2);
    sim_fx_close(&fx);
    unlink(clock);
    unsetenv("GPUSCOPE_SIM_CLOCK");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_power_field),
        cmocka_unit_test(test_power_no_field_values),
        cmocka_unit_test(test_power_field_faults),
        cmocka_unit_test(test_power_limit_fields),
        cmocka_unit_test(test_pstate_events),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
