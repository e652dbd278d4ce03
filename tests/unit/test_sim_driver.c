/* SPDX-License-Identifier: MIT */
/*
 * test_sim_driver.c - the NVML simulator answers as a driver does where a
 * client can tell the difference: one temperature through both temperature
 * APIs at the same instant, and every function of nvml.h present in every
 * profile that should export it (sim/nvml_functions.txt), the ones the
 * simulator does not model answering like a driver without the feature:
 * UNINITIALIZED before init, INVALID_ARGUMENT for a foreign handle or a NULL
 * output, GPU_IS_LOST on a lost GPU, NOT_SUPPORTED otherwise, each call
 * counted. Run from the repository root (dlopen of $GS_BUILD_DIR/sim/...).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_dl.h"

static char tmpdir[] = "/tmp/gs-sim-driver-XXXXXX";

static void *start(const char *profile, const char *scenario, const char *clock)
{
    void *h = lib(profile);
    F(h, gssimReset)();
    setenv("GPUSCOPE_SIM_SCENARIO", scenario, 1);
    setenv("GPUSCOPE_SIM_CLOCK", clock, 1);
    unsetenv("GPUSCOPE_SIM_FAULTS");
    assert_int_equal(F(h, nvmlInit_v2)(), NVML_SUCCESS);
    return h;
}

static void stop(void *h)
{
    for (int i = 0; i < 4; i++)
        F(h, nvmlShutdown)();
    F(h, gssimReset)();
}

/* ---- one temperature through both APIs ----------------------------------------------------- */

/* A temperature that is never a whole number: truncating and rounding differ
 * at almost every instant (they disagreed by 1 degree before). */
static void test_temperature_v_matches_legacy(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "temp", "gpu count=1 temp=add(52.5,mul(t,0.013))\n");
    void *h = start("current", p, "fixed:0");
    nvmlDevice_t d = dev(h, 0);

    for (int k = 0; k < 200; k++) {
        unsigned legacy = 0;
        nvmlTemperature_v1_t v = {.version = nvmlTemperature_v1, .sensorType = NVML_TEMPERATURE_GPU};
        F(h, gssimClockSet)(k * 0.37);
        assert_int_equal(F(h, nvmlDeviceGetTemperature)(d, NVML_TEMPERATURE_GPU, &legacy), NVML_SUCCESS);
        assert_int_equal(F(h, nvmlDeviceGetTemperatureV)(d, &v), NVML_SUCCESS);
        if ((int)legacy != v.temperature)
            fail_msg("t=%.2f: GetTemperature %u, GetTemperatureV %d", k * 0.37, legacy, v.temperature);
    }
    stop(h);
}

/* ---- functions the simulator does not model ------------------------------------------------ */

typedef nvmlReturn_t (*board_fn)(nvmlDevice_t, unsigned *);
typedef nvmlReturn_t (*count_fn)(unsigned *);
typedef unsigned long long (*calls_fn)(const char *);

static void test_stub_protocol(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "lost", "gpu count=2\ngpu 1 lost_at=5\n");
    void *h = lib("current");
    board_fn board = (board_fn)sym(h, "nvmlDeviceGetMultiGpuBoard");
    calls_fn calls = (calls_fn)sym(h, "gssimCallCount");
    unsigned buf[8];

    F(h, gssimReset)();
    assert_int_equal(board(NULL, buf), NVML_ERROR_UNINITIALIZED);
    h = start("current", p, "fixed:1");
    nvmlDevice_t d0 = dev(h, 0), d1 = dev(h, 1);
    assert_int_equal(board(d0, buf), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(board(d0, NULL), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(board((nvmlDevice_t)(void *)buf, buf), NVML_ERROR_INVALID_ARGUMENT);
    assert_int_equal(board(d1, buf), NVML_ERROR_NOT_SUPPORTED);
    F(h, gssimClockSet)(6);
    assert_int_equal(board(d1, buf), NVML_ERROR_GPU_IS_LOST);
    F(h, gssimClockSet)(1); /* lost is sticky, as on a driver */
    assert_int_equal(board(d1, buf), NVML_ERROR_GPU_IS_LOST);
    assert_int_equal(calls("nvmlDeviceGetMultiGpuBoard"), 6); /* the one before init counts too */
    assert_int_equal(calls("nvmlDeviceGetTemperature"), 0);
    assert_int_equal(calls("nvmlNoSuchFunction"), 0);
    unsigned n = 7;
    assert_int_equal(((count_fn)sym(h, "nvmlUnitGetCount"))(&n), NVML_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(((count_fn)sym(h, "nvmlUnitGetCount"))(NULL), NVML_ERROR_INVALID_ARGUMENT);
    stop(h);
    assert_int_equal(calls("nvmlDeviceGetMultiGpuBoard"), 0); /* gssimReset forgets them */
}

/* GPUSCOPE_SIM_STATS lists the stubs a profile exports, with their counts,
 * and none it does not export. */
static void test_stub_stats(void **state)
{
    (void)state;
    char path[PATH_MAX], line[256];
    int inforom = 0, handle_uuidv = 0;

    snprintf(path, sizeof(path), "%s/stats", tmpdir);
    setenv("GPUSCOPE_SIM_STATS", path, 1);
    void *h = start("r470", "demo", "fixed:1");
    board_fn fn = (board_fn)sym(h, "nvmlDeviceGetMultiGpuBoard");
    unsigned buf[4];
    assert_int_equal(fn(dev(h, 0), buf), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(fn(dev(h, 0), buf), NVML_ERROR_NOT_SUPPORTED);
    assert_null(dlsym(h, "nvmlDeviceGetHandleByUUIDV")); /* a 13.x function: not in R470 */
    F(h, nvmlShutdown)();
    unsetenv("GPUSCOPE_SIM_STATS");
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    while (fgets(line, sizeof(line), f)) {
        inforom += strcmp(line, "nvmlDeviceGetMultiGpuBoard 2\n") == 0;
        handle_uuidv += strncmp(line, "nvmlDeviceGetHandleByUUIDV ", 27) == 0;
    }
    fclose(f);
    assert_int_equal(inforom, 1);
    assert_int_equal(handle_uuidv, 0);
    stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_temperature_v_matches_legacy),
        cmocka_unit_test(test_stub_protocol),
        cmocka_unit_test(test_stub_stats),
    };
    if (!mkdtemp(tmpdir))
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
