/* SPDX-License-Identifier: MIT */
/*
 * test_drm_cost.c - the DRM cost model's figures (sim/drm/cost/drmcost_env.c):
 * off unless GPUSCOPE_SIM_DRM_COST_US is a number above 0; once on, each
 * class takes its own variable or its default (hwmon and gpu_metrics that of
 * the attribute); a figure that is not a number of microseconds in
 * 0-10000000 is refused with a line naming the variable and its value, and
 * keeps its default. What the preloaded library charges: tests/drm-cost.sh.
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

#include "drm/cost/drmcost.h"

static int clear_env(void **state)
{
    (void)state;
    for (int k = 0; k < GS_DRMCOST__N; k++)
        unsetenv(gs_drmcost_env_name((enum gs_drmcost_class)k));
    return 0;
}

/* gs_drmcost_figures with stderr caught into err (cap bytes). */
static int figures_err(double us[GS_DRMCOST__N], char *err, size_t cap)
{
    char path[] = "/tmp/gs-drmcost-XXXXXX";
    int fd = mkstemp(path), saved = dup(2);

    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    assert_int_equal(dup2(fd, 2), 2);
    int r = gs_drmcost_figures(us);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, err, cap - 1, 0);
    err[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return r;
}

static void test_off_by_default(void **state)
{
    double us[GS_DRMCOST__N];
    char err[512];

    (void)state;
    assert_int_equal(figures_err(us, err, sizeof(err)), 0);
    assert_true(us[GS_DRMCOST_SYSFS] == 0);
    assert_string_equal(err, "");
    setenv("GPUSCOPE_SIM_DRM_COST_US", "", 1); /* empty: unset */
    assert_int_equal(figures_err(us, err, sizeof(err)), 0);
    setenv("GPUSCOPE_SIM_DRM_COST_US", "0", 1);
    assert_int_equal(figures_err(us, err, sizeof(err)), 0);
    /* a class's figure alone does not turn the model on */
    setenv("GPUSCOPE_SIM_DRM_COST_US", "", 1);
    setenv("GPUSCOPE_SIM_DRM_COST_FDINFO_US", "50", 1);
    assert_int_equal(figures_err(us, err, sizeof(err)), 0);
    assert_string_equal(err, "");
}

static void test_on_defaults(void **state)
{
    double us[GS_DRMCOST__N];
    char err[512];

    (void)state;
    setenv("GPUSCOPE_SIM_DRM_COST_US", "12.5", 1);
    assert_int_equal(figures_err(us, err, sizeof(err)), 1);
    assert_string_equal(err, "");
    assert_true(us[GS_DRMCOST_SYSFS] == 12.5);
    /* hwmon and gpu_metrics are sysfs attributes too: the attribute's figure */
    assert_true(us[GS_DRMCOST_HWMON] == 12.5);
    assert_true(us[GS_DRMCOST_METRICS] == 12.5);
    /* the others: this kernel's file cost measured by bench_filecost (SIMULATOR.md) */
    for (int k = GS_DRMCOST_FDINFO; k < GS_DRMCOST__N; k++)
        assert_true(us[k] > 0 && us[k] < 10);
}

static void test_per_class(void **state)
{
    double us[GS_DRMCOST__N];
    char err[512];

    (void)state;
    setenv("GPUSCOPE_SIM_DRM_COST_US", "1", 1);
    setenv("GPUSCOPE_SIM_DRM_COST_HWMON_US", "300", 1);
    setenv("GPUSCOPE_SIM_DRM_COST_METRICS_US", "0", 1);
    setenv("GPUSCOPE_SIM_DRM_COST_FDINFO_US", "7.25", 1);
    setenv("GPUSCOPE_SIM_DRM_COST_LINK_US", "10000000", 1);
    assert_int_equal(figures_err(us, err, sizeof(err)), 1);
    assert_true(us[GS_DRMCOST_SYSFS] == 1);
    assert_true(us[GS_DRMCOST_HWMON] == 300);
    assert_true(us[GS_DRMCOST_METRICS] == 0);
    assert_true(us[GS_DRMCOST_FDINFO] == 7.25);
    assert_true(us[GS_DRMCOST_LINK] == 10e6);
}

static void test_bad_values_named(void **state)
{
    static const char *const bad[] = { "abc", "5x", "-1", "nan", "inf", "10000001", "1e300", " " };
    double us[GS_DRMCOST__N], dflt[GS_DRMCOST__N];
    char err[512], want[128];

    (void)state;
    setenv("GPUSCOPE_SIM_DRM_COST_US", "2", 1);
    assert_int_equal(figures_err(dflt, err, sizeof(err)), 1);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setenv("GPUSCOPE_SIM_DRM_COST_FDINFO_US", bad[i], 1);
        assert_int_equal(figures_err(us, err, sizeof(err)), -1);
        snprintf(want, sizeof(want), "GPUSCOPE_SIM_DRM_COST_FDINFO_US=%s: not a number of microseconds", bad[i]);
        assert_non_null(strstr(err, want));
        assert_true(us[GS_DRMCOST_FDINFO] == dflt[GS_DRMCOST_FDINFO]); /* the default kept */
        assert_true(us[GS_DRMCOST_SYSFS] == 2);                        /* the model stays on */
    }
    /* a bad figure that would turn the model on leaves it off, and says so */
    unsetenv("GPUSCOPE_SIM_DRM_COST_FDINFO_US");
    setenv("GPUSCOPE_SIM_DRM_COST_US", "twenty", 1);
    assert_int_equal(figures_err(us, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "GPUSCOPE_SIM_DRM_COST_US=twenty"));
    assert_true(us[GS_DRMCOST_SYSFS] == 0);
}

static void test_names(void **state)
{
    (void)state;
    for (int k = 0; k < GS_DRMCOST__N; k++) {
        const char *n = gs_drmcost_env_name((enum gs_drmcost_class)k);
        assert_non_null(n);
        assert_int_equal(strncmp(n, "GPUSCOPE_SIM_DRM_COST_", 22), 0);
        for (int j = 0; j < k; j++)
            assert_string_not_equal(n, gs_drmcost_env_name((enum gs_drmcost_class)j));
    }
    assert_string_equal(gs_drmcost_env_name(GS_DRMCOST_FDINFO), "GPUSCOPE_SIM_DRM_COST_FDINFO_US");
    assert_null(gs_drmcost_env_name(GS_DRMCOST_NONE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_off_by_default, clear_env),
        cmocka_unit_test_setup(test_on_defaults, clear_env),
        cmocka_unit_test_setup(test_per_class, clear_env),
        cmocka_unit_test_setup(test_bad_values_named, clear_env),
        cmocka_unit_test_setup(test_names, clear_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
