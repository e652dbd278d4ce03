/* SPDX-License-Identifier: MIT */
/* test_smi.c - gpuscope smi's pieces: -d parsing, processes by PID, long names in the table,
 * dmon/pmon column sets by branch, and the simulator wall clock's parser (format/smi*.c, core/simwall.c). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "core/simwall.h"
#include "format/smi.h"
#include "snap_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_display_parse(void **state)
{
    unsigned m = 0;
    char bad[32];
    (void)state;
    assert_int_equal(gs_smi_display_parse("MEMORY,ecc", &m, bad, sizeof(bad)), 0);
    assert_int_equal(m, GS_SMI_D_MEMORY | GS_SMI_D_ECC);
    assert_int_equal(gs_smi_display_parse("MEMORY,BOGUS", &m, bad, sizeof(bad)), -1);
    assert_string_equal(bad, "BOGUS");
    assert_int_equal(gs_smi_display_parse(",", &m, bad, sizeof(bad)), -1);
}

static void test_procs_by_pid(void **state)
{
    struct gs_gpu g;
    uint32_t idx[8];
    const uint32_t pids[] = {300, 100, 200};
    (void)state;
    memset(&g, 0, sizeof(g));
    for (int i = 0; i < 3; i++)
        gs_gpu_add_proc(&g)->pid = pids[i];
    assert_int_equal(gs_smi_procs_by_pid(&g, idx, 8), 3);
    assert_int_equal(g.procs[idx[0]].pid, 100);
    assert_int_equal(g.procs[idx[1]].pid, 200);
    assert_int_equal(g.procs[idx[2]].pid, 300);
    free(g.procs);
}

/* A long driver name: kept whole in the arena, its end in the table. */
static void test_long_name(void **state)
{
    struct gs_snapshot snap;
    char *out = NULL, name[300];
    size_t len = 0;
    (void)state;
    fixture_snapshot(&snap);
    struct gs_gpu *g = &snap.gpus[0];
    struct gs_proc *p = &g->procs[0];
    memset(name, 'x', sizeof(name));
    memcpy(name, "/opt/conda/envs/", 16);
    memcpy(name + sizeof(name) - 9, "/train.py", 9);
    assert_int_equal(gs_proc_set_long_name(g, p, name, sizeof(name)), 0);
    gs_proc_set(p, GS_P_NAME);
    assert_int_equal(strlen(gs_proc_name(g, p)), sizeof(name));
    FILE *f = open_memstream(&out, &len);
    gs_smi_table_write(f, &snap);
    fclose(f);
    assert_non_null(strstr(out, "   ...xxxxxxxxxxxxxxxxxxxxxxxxx/train.py"));
    free(out);
    gs_snapshot_release(&snap);
}

static void test_mon_columns_by_branch(void **state)
{
    struct gs_snapshot snap;
    struct gs_smi_mon m = { NULL, false, false, false };
    char *out = NULL;
    size_t len = 0;
    (void)state;
    fixture_snapshot(&snap);
    snprintf(snap.sys.driver_version, sizeof(snap.sys.driver_version), "525.147.05");
    FILE *f = open_memstream(&out, &len);
    gs_smi_mon_header(f, &m, &snap);
    fclose(f);
    assert_string_equal(out, "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk \n"
                             "# Idx      W      C      C      %      %      %      %    MHz    MHz \n");
    free(out);
    assert_true(gs_smi_mon_groups_ok(&m, "pucvmet"));
    assert_false(gs_smi_mon_groups_ok(&m, "px"));
    m.pmon = true;
    assert_true(gs_smi_mon_groups_ok(&m, "um"));
    assert_false(gs_smi_mon_groups_ok(&m, "p"));
    gs_snapshot_release(&snap);
}

static void test_simwall_parse(void **state)
{
    struct timespec ts;
    (void)state;
    assert_true(gs_simwall_parse("2026-07-14T08:12:38.696Z", &ts));
    assert_int_equal(ts.tv_sec, 1784016758);
    assert_int_equal(ts.tv_nsec, 696000000);
    assert_true(gs_simwall_parse("1784016758.5", &ts));
    assert_int_equal(ts.tv_nsec, 500000000);
    assert_false(gs_simwall_parse("2026-07-14 08:12", &ts));
    assert_false(gs_simwall_parse("", &ts));
    assert_false(gs_simwall_parse("12x", &ts));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_display_parse),     cmocka_unit_test(test_procs_by_pid),
        cmocka_unit_test(test_long_name),         cmocka_unit_test(test_mon_columns_by_branch),
        cmocka_unit_test(test_simwall_parse),
    };
    setenv("TZ", "UTC", 1);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
