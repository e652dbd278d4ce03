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

/* ---- field values that stand for functions: the same answer both ways ------------------------ */

static nvmlReturn_t one_field(void *h, nvmlDevice_t d, unsigned id, unsigned scope, unsigned long long *v)
{
    nvmlFieldValue_t fv;
    memset(&fv, 0, sizeof(fv));
    fv.fieldId = id;
    fv.scopeId = scope;
    assert_int_equal(F(h, nvmlDeviceGetFieldValues)(d, 1, &fv), NVML_SUCCESS);
    *v = fv.valueType == NVML_VALUE_TYPE_UNSIGNED_INT ? fv.value.uiVal : fv.value.ullVal;
    return fv.nvmlReturn;
}

/* Fields 197/198 (PCIe bytes, the 12.5 header's: R555+) integrate pcie_tx/pcie_rx (KB/s of
 * 1000 bytes) from pcie_tx_start/pcie_rx_start, wrapping at 64 bits; older profiles answer the
 * ids NOT_SUPPORTED in their entry, as a driver that does not know an id. */
static void test_pcie_byte_fields(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "pcieb",
                                    "gpu count=1 pcie_tx=100000 pcie_rx=400000 "
                                    "pcie_tx_start=18446744072609551616\n"); /* 2^64 - 1.1e9 */
    void *h = start("current", p, "fixed:10");
    nvmlDevice_t d = dev(h, 0);
    nvmlFieldValue_t a[2], b[2];
    memset(a, 0, sizeof(a));
    a[0].fieldId = 197;
    a[1].fieldId = 198;
    memcpy(b, a, sizeof(b));
    assert_int_equal(F(h, nvmlDeviceGetFieldValues)(d, 2, a), NVML_SUCCESS);
    F(h, gssimClockSet)(12);
    assert_int_equal(F(h, nvmlDeviceGetFieldValues)(d, 2, b), NVML_SUCCESS);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(a[k].nvmlReturn, NVML_SUCCESS);
        assert_int_equal(a[k].valueType, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
        assert_int_equal(b[k].timestamp - a[k].timestamp, 2000000); /* us */
    }
    assert_true(b[0].value.ullVal < a[0].value.ullVal); /* wrapped ... */
    unsigned long long dtx = b[0].value.ullVal - a[0].value.ullVal, drx = b[1].value.ullVal - a[1].value.ullVal;
    assert_true(dtx > 199999000ull && dtx < 200001000ull); /* ... between 2 s at 100 MB/s */
    assert_true(drx > 799999000ull && drx < 800001000ull);
    stop(h);

    h = start("r535", p, "fixed:10");
    unsigned long long v = 0;
    assert_int_equal(one_field(h, dev(h, 0), 197, 0, &v), NVML_ERROR_NOT_SUPPORTED);
    assert_int_equal(one_field(h, dev(h, 0), 198, 0, &v), NVML_ERROR_NOT_SUPPORTED);
    stop(h);
}

/* Field 165 (NVLink state, scopeId = link) answers per entry as nvmlDeviceGetNvLinkState does,
 * on R520+ profiles; r470 (CUDA 11.4 header) does not know it. */
static void test_nvlink_state_field(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "nvl", "gpu count=2 nvlinks=18 nvlink_down=0x20080\ngpu 1 nvlinks=0\n");
    void *h = start("current", p, "fixed:5");
    nvmlDevice_t d = dev(h, 0);
    unsigned long long v = 0;
    for (unsigned lk = 0; lk < 18; lk++) {
        nvmlEnableState_t on = NVML_FEATURE_DISABLED;
        assert_int_equal(F(h, nvmlDeviceGetNvLinkState)(d, lk, &on), NVML_SUCCESS);
        assert_int_equal(one_field(h, d, 165, lk, &v), NVML_SUCCESS);
        assert_int_equal(v, on);
        assert_int_equal(v, lk == 7 || lk == 17 ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED);
    }
    assert_int_equal(one_field(h, d, 165, 18, &v), NVML_ERROR_INVALID_ARGUMENT); /* past the last link */
    assert_int_equal(one_field(h, dev(h, 1), 165, 0, &v), NVML_ERROR_NOT_SUPPORTED); /* no links */
    stop(h);
    h = start("r470", p, "fixed:5");
    assert_int_equal(one_field(h, dev(h, 0), 165, 0, &v), NVML_ERROR_NOT_SUPPORTED);
    stop(h);
}

/* The slow counters gpuscope reads as fields (1-6, 29-31, 94, 142-145) against their functions. */
static void test_slow_counter_fields_match(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "slow", "gpu count=2 ecc_sbe_volatile=5 ecc_dbe_volatile=2 "
                                    "ecc_sbe_aggregate=9 pcie_replay=7 retired_sbe=4 retired_pending=1 "
                                    "remapped_cor=3 remap_pending=1\ngpu 1 ecc=off\n");
    void *h = start("current", p, "fixed:5");
    for (unsigned g = 0; g < 2; g++) {
        nvmlDevice_t d = dev(h, g);
        unsigned long long v = 0, n = 0;
        for (unsigned k = 0; k < 4; k++) { /* 3-6: SBE/DBE volatile, SBE/DBE aggregate */
            nvmlReturn_t r = F(h, nvmlDeviceGetTotalEccErrors)(d, (nvmlMemoryErrorType_t)(k & 1),
                                                             (nvmlEccCounterType_t)(k >> 1), &n);
            assert_int_equal(one_field(h, d, 3 + k, 0, &v), r);
            if (r == NVML_SUCCESS)
                assert_int_equal(v, n);
        }
        unsigned u = 0, cor = 0, unc = 0, pend = 0, fail = 0;
        assert_int_equal(F(h, nvmlDeviceGetPcieReplayCounter)(d, &u), NVML_SUCCESS);
        assert_int_equal(one_field(h, d, 94, 0, &v), NVML_SUCCESS);
        assert_int_equal(v, u);
        unsigned cnt = 0;
        assert_true(F(h, nvmlDeviceGetRetiredPages)(d, NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                                                     &cnt, NULL) <= NVML_ERROR_INSUFFICIENT_SIZE);
        assert_int_equal(one_field(h, d, 29, 0, &v), NVML_SUCCESS);
        assert_int_equal(v, cnt);
        nvmlEnableState_t st = NVML_FEATURE_DISABLED;
        assert_int_equal(F(h, nvmlDeviceGetRetiredPagesPendingStatus)(d, &st), NVML_SUCCESS);
        assert_int_equal(one_field(h, d, 31, 0, &v), NVML_SUCCESS);
        assert_int_equal(v != 0, st == NVML_FEATURE_ENABLED);
        assert_int_equal(F(h, nvmlDeviceGetRemappedRows)(d, &cor, &unc, &pend, &fail), NVML_SUCCESS);
        assert_int_equal(one_field(h, d, 142, 0, &v), NVML_SUCCESS);
        assert_int_equal(v, cor);
        assert_int_equal(one_field(h, d, 144, 0, &v), NVML_SUCCESS);
        assert_int_equal(v, pend);
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

/* Field 185 (scope GPU) is nvmlDeviceGetPowerUsage's reading where the GPU has a 1 s average. */
static void test_power_field_matches(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "pw", "gpu count=2 power=add(250W,mul(t,3)) power_instant=300W\n"
                                    "gpu 1 unsupported=power_average\n");
    void *h = start("current", p, "fixed:7");
    unsigned fn = 0;
    unsigned long long v = 0;
    assert_int_equal(F(h, nvmlDeviceGetPowerUsage)(dev(h, 0), &fn), NVML_SUCCESS);
    assert_int_equal(one_field(h, dev(h, 0), 185, 0, &v), NVML_SUCCESS);
    assert_int_equal(v, fn);
    assert_int_equal(one_field(h, dev(h, 1), 185, 0, &v), NVML_ERROR_NOT_SUPPORTED); /* GA100 and older */
    stop(h);
}

/* P-state events: one per change, after registration only; the clock event only on Kepler. */
static void test_pstate_events(void **state)
{
    (void)state;
    const char *p = sim_dl_scenario(tmpdir, "pst", "gpu count=2 arch=ampere pstate=step(8,0,20)\n"
                                    "gpu 1 arch=kepler\n");
    void *h = start("current", p, "fixed:10");
    nvmlDevice_t d0 = dev(h, 0), d1 = dev(h, 1);
    unsigned long long types = 0;
    assert_int_equal(F(h, nvmlDeviceGetSupportedEventTypes)(d0, &types), NVML_SUCCESS);
    assert_true(types & NVML_EVENT_TYPE_PSTATE);
    assert_false(types & NVML_EVENT_TYPE_CLOCK);
    assert_int_equal(F(h, nvmlDeviceGetSupportedEventTypes)(d1, &types), NVML_SUCCESS);
    assert_true(types & NVML_EVENT_TYPE_CLOCK);
    nvmlEventSet_t set = NULL;
    nvmlEventData_t e;
    assert_int_equal(F(h, nvmlEventSetCreate)(&set), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceRegisterEvents)(d0, NVML_EVENT_TYPE_PSTATE, set), NVML_SUCCESS);
    assert_int_equal(F(h, nvmlDeviceRegisterEvents)(d0, NVML_EVENT_TYPE_CLOCK, set), NVML_ERROR_NOT_SUPPORTED);
    F(h, gssimClockSet)(19.9);
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &e, 0), NVML_ERROR_TIMEOUT); /* no change yet */
    F(h, gssimClockSet)(20.35);
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &e, 0), NVML_SUCCESS);
    assert_ptr_equal(e.device, d0);
    assert_int_equal(e.eventType, NVML_EVENT_TYPE_PSTATE);
    assert_int_equal(e.eventData, 0);
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &e, 0), NVML_ERROR_TIMEOUT); /* one per change */
    nvmlPstates_t ps = NVML_PSTATE_UNKNOWN;
    assert_int_equal(F(h, nvmlDeviceGetPerformanceState)(d0, &ps), NVML_SUCCESS);
    assert_int_equal(ps, NVML_PSTATE_0);
    F(h, gssimClockSet)(400); /* a clock that jumps far: still no change, no event */
    assert_int_equal(F(h, nvmlEventSetWait_v2)(set, &e, 0), NVML_ERROR_TIMEOUT);
    assert_int_equal(F(h, nvmlEventSetFree)(set), NVML_SUCCESS);
    stop(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_temperature_v_matches_legacy),
        cmocka_unit_test(test_nvlink_state_field),
        cmocka_unit_test(test_slow_counter_fields_match),
        cmocka_unit_test(test_power_field_matches),
        cmocka_unit_test(test_pstate_events),
        cmocka_unit_test(test_pcie_byte_fields),
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
