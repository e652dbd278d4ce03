/* SPDX-License-Identifier: MIT */
/*
 * test_roots.c - the /proc and /sys roots and path building (lib/roots.h):
 * the precedence of a proc_root option, $GPUSCOPE_PROC_ROOT and /proc, empty
 * variables counting as unset, the two /sys variables, and a path that does
 * not fit reported as ENAMETOOLONG with nothing cut left in the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/roots.h"

static int clear_env(void **state)
{
    (void)state;
    unsetenv("GPUSCOPE_PROC_ROOT");
    unsetenv("GPUSCOPE_SYS_ROOT");
    unsetenv("GPUSCOPE_SYSFS_ROOT");
    return 0;
}

static void test_proc_root_option(void **state)
{
    (void)state;
    setenv("GPUSCOPE_PROC_ROOT", "/env/proc", 1);
    /* a module handed its root never looks at the environment */
    assert_string_equal(gs_proc_root(NULL), "/proc");
    assert_string_equal(gs_proc_root(""), "/proc");
    assert_string_equal(gs_proc_root("/fixture/proc"), "/fixture/proc");
}

static void test_proc_root_env_precedence(void **state)
{
    (void)state;
    assert_string_equal(gs_proc_root_env(NULL), "/proc");
    setenv("GPUSCOPE_PROC_ROOT", "", 1);
    assert_string_equal(gs_proc_root_env(NULL), "/proc"); /* empty = unset */
    setenv("GPUSCOPE_PROC_ROOT", "/env/proc", 1);
    assert_string_equal(gs_proc_root_env(NULL), "/env/proc");
    assert_string_equal(gs_proc_root_env(""), "/env/proc");
    assert_string_equal(gs_proc_root_env("/opt/proc"), "/opt/proc"); /* the option wins */
}

static void test_sys_roots(void **state)
{
    char buf[64];
    (void)state;
    assert_string_equal(gs_sys_root(), "");
    assert_int_equal(gs_sys_path(buf, sizeof(buf), "class/drm"), 0);
    assert_string_equal(buf, "/sys/class/drm");
    setenv("GPUSCOPE_SYS_ROOT", "", 1);
    assert_string_equal(gs_sys_root(), "");
    setenv("GPUSCOPE_SYS_ROOT", "/t", 1);
    assert_string_equal(gs_sys_root(), "/t");
    assert_int_equal(gs_sys_path(buf, sizeof(buf), "class/drm"), 0);
    assert_string_equal(buf, "/t/sys/class/drm");
    /* the retired name that replaced /sys itself moves nothing any more */
    setenv("GPUSCOPE_SYSFS_ROOT", "/fixture/sysfs", 1);
    assert_string_equal(gs_sys_root(), "/t");
    assert_int_equal(gs_sys_path(buf, sizeof(buf), "bus/pci/devices"), 0);
    assert_string_equal(buf, "/t/sys/bus/pci/devices");
}

static void test_path_fits_or_fails(void **state)
{
    char buf[16];
    (void)state;
    assert_int_equal(gs_path(buf, sizeof(buf), "%s/%u/stat", "/proc", 1234u), 0);
    assert_string_equal(buf, "/proc/1234/stat");
    /* 15 bytes + NUL fit exactly; one more does not */
    assert_int_equal(gs_path(buf, sizeof(buf), "%s", "/123456789abcde"), 0);
    assert_string_equal(buf, "/123456789abcde");
    errno = 0;
    assert_int_equal(gs_path(buf, sizeof(buf), "%s", "/123456789abcdef"), -ENAMETOOLONG);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_string_equal(buf, ""); /* no cut path to open by mistake */
    setenv("GPUSCOPE_SYS_ROOT", "/a/very/long/root", 1);
    memset(buf, 'x', sizeof(buf));
    assert_int_equal(gs_sys_path(buf, sizeof(buf), "class/drm"), -ENAMETOOLONG);
    assert_string_equal(buf, "");
    assert_int_equal(gs_path(buf, 0, "%s", "x"), -ENAMETOOLONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_proc_root_option, clear_env),
        cmocka_unit_test_setup(test_proc_root_env_precedence, clear_env),
        cmocka_unit_test_setup(test_sys_roots, clear_env),
        cmocka_unit_test_setup(test_path_fits_or_fails, clear_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
