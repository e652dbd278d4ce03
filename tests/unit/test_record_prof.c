/* SPDX-License-Identifier: MIT */
/*
 * test_record_prof.c - profiling metrics (GPM) in the history store: one
 * prof_sample row per GPU and per MIG GPU instance that has a value, activity
 * in per mille and rates in kB/s, NULL (never 0) for a metric without a value,
 * no row at all for a GPU without GPM or before the first interval, and the
 * same retention as the samples; a version-3 file gains the table at open.
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

#include "record/store.h"
#include "store_fixture.h"

/* GPU 0: whole, with profiling (NVLink RX without a value); GPU 1: MIG with GPU instances 2
 * (two compute instances) and 9; GPU 2: no GPM. */
static void fill(struct gs_snapshot *snap, struct gs_gpu *g, bool first_tick)
{
    memset(snap, 0, sizeof(*snap));
    memset(g, 0, 3 * sizeof(*g));
    snap->ngpus = 3;
    snap->gpus = g;
    for (unsigned i = 0; i < 3; i++) {
        g[i].st.index = i;
        snprintf(g[i].st.uuid, sizeof(g[i].st.uuid), "GPU-prof-%u", i);
        gs_sample_mark(&g[i].s, GS_F_MIG_DEVICES, GS_ST_OK);
    }
    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        gs_sample_mark(&g[0].s, GS_F_PROF_FIRST + k, first_tick ? GS_ST_NOT_AVAILABLE : GS_ST_OK);
        g[0].s.prof[k] = k < GS_PROF_FIRST_RATE ? 0.1234 * (k + 1) : 1048576000.0;
    }
    gs_sample_mark(&g[0].s, GS_F_PROF_NVLINK_RX, GS_ST_NOT_SUPPORTED);
    static const uint32_t gis[3] = { 2, 2, 9 };
    static struct gs_mig migs[3];
    memset(migs, 0, sizeof(migs));
    g[1].mig = migs;
    g[1].nmig = 3;
    for (unsigned m = 0; m < 3; m++) {
        g[1].mig[m].index = m;
        g[1].mig[m].gpu_instance_id = gis[m];
        g[1].mig[m].compute_instance_id = m == 1;
        for (unsigned k = 0; k < GS_PROF_COUNT; k++)
            g[1].mig[m].prof_status[k] = k >= GS_PROF_FIRST_RATE ? GS_ST_NOT_SUPPORTED
                                         : first_tick             ? GS_ST_NOT_AVAILABLE
                                                                  : GS_ST_OK;
        g[1].mig[m].prof[GS_PROF_TENSOR] = gis[m] == 2 ? 0.6 : 0.0;
    }
    for (unsigned k = 0; k < GS_PROF_COUNT; k++) /* the MIG GPU as a whole: no GPM here */
        gs_sample_mark(&g[1].s, GS_F_PROF_FIRST + k, GS_ST_NOT_SUPPORTED);
}

static void test_prof_rows(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-prof-XXXXXX";
    store_tmp_path(path);
    struct gs_store *st = open_store(path, 10000, 86400000);
    struct gs_err err = { 0 };
    assert_int_equal(q1(st, "SELECT max(version) FROM schema_migration"), GS_STORE_SCHEMA_VERSION);
    struct gs_snapshot snap;
    struct gs_gpu gpus[3];
    fill(&snap, gpus, true);
    assert_int_equal(gs_store_write_tick(st, T0, &snap, false, &err), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM prof_sample"), 0); /* no interval yet: no row */
    for (int t = 1; t <= 20; t++) {
        fill(&snap, gpus, false);
        assert_int_equal(gs_store_write_tick(st, T0 + t * 1000, &snap, false, &err), 0);
    }
    /* per tick: GPU 0 (gi -1) and GPU 1's two GPU instances; GPU 2 nothing */
    assert_int_equal(q1(st, "SELECT count(*) FROM prof_sample WHERE t = 1714521601000"), 3);
    assert_int_equal(q1(st, "SELECT count(*) FROM prof_sample p JOIN gpu g ON g.id = p.gpu WHERE g.idx = 2"), 0);
    assert_int_equal(q1(st, "SELECT gr_pm FROM prof_sample WHERE gi = -1 LIMIT 1"), 123);
    assert_int_equal(q1(st, "SELECT fp16_pm FROM prof_sample WHERE gi = -1 LIMIT 1"), 987);
    assert_int_equal(q1(st, "SELECT pcie_tx_kbs FROM prof_sample WHERE gi = -1 LIMIT 1"), 1048576);
    assert_int_equal(q1(st, "SELECT nvlink_rx_kbs FROM prof_sample WHERE gi = -1 LIMIT 1"), -1); /* NULL */
    assert_int_equal(q1(st, "SELECT tensor_pm FROM prof_sample WHERE gi = 2 LIMIT 1"), 600);
    assert_int_equal(q1(st, "SELECT tensor_pm FROM prof_sample WHERE gi = 9 LIMIT 1"), 0);
    assert_int_equal(q1(st, "SELECT pcie_tx_kbs FROM prof_sample WHERE gi = 9 LIMIT 1"), -1);
    /* the samples' retention applies */
    assert_int_equal(gs_store_maintain(st, T0 + 200000, &err), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM prof_sample"), 0);
    gs_store_close(st);
    store_remove(path);
}

/* A version-3 database (this one turned back: later tables and columns dropped, version 3) is migrated at open. */
static void test_migrate_from_3(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-prof-XXXXXX";
    store_tmp_path(path);
    struct gs_store *st = open_store(path, 10000, 86400000);
    assert_int_equal(sqlite3_exec(gs_store_db(st), "DROP TABLE prof_sample; DROP TABLE job; DROP INDEX proc_job;"
                                  " ALTER TABLE proc DROP COLUMN slurm_job; DROP TABLE remote_write; " STORE_SAMPLE_TO_V6
                                  " DELETE FROM schema_migration WHERE version >= 4; PRAGMA user_version = 3;",
                                  NULL, NULL, NULL), SQLITE_OK);
    gs_store_close(st);
    st = open_store(path, 10000, 86400000);
    assert_int_equal(q1(st, "PRAGMA user_version"), GS_STORE_SCHEMA_VERSION);
    assert_int_equal(q1(st, "SELECT count(*) FROM sqlite_master WHERE name = 'prof_sample'"), 1);
    assert_int_equal(q1(st, "SELECT count(*) FROM schema_migration WHERE version = 4"), 1);
    gs_store_close(st);
    store_remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prof_rows),
        cmocka_unit_test(test_migrate_from_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
