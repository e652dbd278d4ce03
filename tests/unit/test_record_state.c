/* SPDX-License-Identifier: MIT */
/*
 * test_record_state.c - the readings stored only when they change (schema 8:
 * `sample` is a view of sample_data and sample_state): every row reads back
 * the power limit, memory clock, P-state, fan, energy and `bad` it was written with,
 * NULLs included; a state row only at a change; a row written into the past
 * (a clock stepped back) or replaced leaves the rows after it as they were;
 * retention keeps the state of the oldest sample left; INSERT and DELETE on
 * the view; the migration of a schema-7 database (every row identical).
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

#define NGPU 2
#define NTICK 600

/* Tick k of GPU i: the slow readings change now and then, some are NULL for a while
 * (fan absent, then present; power an error for ticks 100-102 on GPU 0). */
static void fill_gpu(struct gs_gpu *g, unsigned i, unsigned k)
{
    struct gs_sample *s = &g->s;
    memset(s, 0, sizeof(*s));
    g->st.index = i;
    snprintf(g->st.uuid, sizeof(g->st.uuid), "GPU-state-%u", i);
    s->gpu_util_pct = (k * 7 + i) % 101;
    s->temp_gpu_c = 50 + (int)(k % 9);
    s->power_mw = 300000 + (k * 997) % 90000;
    s->power_enforced_limit_mw = k < 200 || i ? 700000 : 600000;
    s->clock_mem_mhz = k < 400 ? 2619 : 1593;
    s->pstate = i == 1 && k >= 500 ? 2 : 0;
    s->fan_count = k >= 300 ? 1 : 0;
    s->fan_speed_pct[0] = 40 + (k / 100);
    s->energy_mj = 1000000000ull + k * 650000ull + (k % 2) * 40000;
    enum gs_field f[] = { GS_F_GPU_UTIL, GS_F_TEMP_GPU, GS_F_POWER, GS_F_POWER_ENFORCED, GS_F_CLOCK_MEM,
                          GS_F_PSTATE, GS_F_ENERGY };
    for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
        gs_sample_mark(s, f[j], GS_ST_OK);
    if (i == 1 && k >= 50 && k < 53) /* no power reading: the energy is stored as it is, not as a difference */
        gs_sample_mark(s, GS_F_POWER, GS_ST_NOT_SUPPORTED);
    if (s->fan_count)
        gs_sample_mark(s, GS_F_FAN_SPEED, GS_ST_OK);
    if (i == 0 && k >= 100 && k < 103)
        gs_sample_mark(s, GS_F_POWER_ENFORCED, GS_ST_ERROR);
}

/* Write ticks [from, to) at T0 + k s; the expected slow columns go into `expect`. */
static void write_ticks(struct gs_store *st, unsigned from, unsigned to)
{
    struct gs_gpu gpus[NGPU];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    memset(gpus, 0, sizeof(gpus));
    assert_int_equal(sqlite3_exec(gs_store_db(st), "CREATE TABLE IF NOT EXISTS expect(t, gpu, power_limit_w,"
                                  " mem_mhz, pstate, fan_pct, bad)", NULL, NULL, NULL), SQLITE_OK);
    for (unsigned k = from; k < to; k++) {
        memset(&snap, 0, sizeof(snap));
        snap.ngpus = NGPU;
        snap.gpus = gpus;
        for (unsigned i = 0; i < NGPU; i++)
            fill_gpu(&gpus[i], i, k);
        assert_int_equal(gs_store_write_tick(st, T0 + k * 1000LL, &snap, false, &err), 0);
        for (unsigned i = 0; i < NGPU; i++) {
            const struct gs_sample *s = &gpus[i].s;
            bool plim = gs_sample_has(s, GS_F_POWER_ENFORCED);
            char sql[256], fan[16];
            snprintf(fan, sizeof(fan), "%u", s->fan_speed_pct[0]);
            snprintf(sql, sizeof(sql), "INSERT INTO expect VALUES(%lld, %u, %s, %u, %u, %s, %d)",
                     T0 + k * 1000LL, i, plim ? (s->power_enforced_limit_mw == 700000 ? "700" : "600") : "NULL",
                     s->clock_mem_mhz, s->pstate, s->fan_count ? fan : "NULL", plim ? 0 : 1 << GS_COL_POWER_LIMIT);
            assert_int_equal(sqlite3_exec(gs_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
        }
    }
}

#define SLOW "t, gpu, power_limit_w, mem_mhz, pstate, fan_pct, bad"
/* Rows of `expect` and `sample` that differ, both ways. */
static int64_t differ(struct gs_store *st)
{
    return q1(st, "SELECT count(*) FROM (SELECT " SLOW " FROM expect EXCEPT SELECT " SLOW " FROM sample)") +
           q1(st, "SELECT count(*) FROM (SELECT " SLOW " FROM sample EXCEPT SELECT " SLOW " FROM expect)");
}

static void test_state_rows(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 0, 0);
    write_ticks(st, 0, NTICK);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample"), NGPU * NTICK);
    assert_int_equal(differ(st), 0);
    /* NULL stays NULL, with its error bit; an absent fan is NULL without one */
    assert_int_equal(q1(st, "SELECT count(*) FROM sample WHERE power_limit_w IS NULL AND bad = 64"), 3);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample WHERE fan_pct IS NULL AND bad = 0"), NGPU * 300 - 3);
    assert_int_equal(q1(st, "SELECT typeof(power_limit_w) = 'integer' FROM sample WHERE gpu = 1 LIMIT 1"), 1);
    /* the energy deltas read back exactly, with or without a power reading beside them */
    assert_int_equal(q1(st, "SELECT count(*) FROM sample WHERE energy_mj IS NULL"), NGPU);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample WHERE power_dw IS NULL"), 3);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample WHERE energy_mj = 650000 + CASE WHEN (t / 1000) % 2 = 1"
                            " THEN 40000 ELSE -40000 END"), NGPU * (NTICK - 1));
    assert_int_equal(q1(st, "SELECT sum(energy_mj) FROM sample WHERE gpu = 1"), (NTICK - 1) * 650000LL + 40000);
    /* a state row per change only (the fan is no state: sample_data has it): GPU 0 at ticks 0,
     * 100 (error), 103 (700 W again), 200 (600 W), 400 (1593 MHz); GPU 1 at 0, 400, 500 (P2) */
    assert_int_equal(q1(st, "SELECT count(*) FROM sample_state WHERE gpu = 0"), 5);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample_state WHERE gpu = 1"), 3);
    gs_store_close(st);
}

/* A tick written before others (the wall clock stepped back) and a tick written again. */
static void test_state_past(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 0, 0);
    write_ticks(st, 0, 20);
    sqlite3 *db = gs_store_db(st);
    /* by hand, as a sqlite3 user would: 5.5 s (between two ticks) and 12 s again, other states */
    assert_int_equal(sqlite3_exec(db,
        "INSERT INTO sample(k, util_pct, power_limit_w, mem_mhz, pstate, fan_pct)"
        " VALUES(5500 * 64, 1, 500, 2619, 0, NULL);"
        "INSERT OR REPLACE INTO sample(k, util_pct, power_limit_w, mem_mhz, pstate, fan_pct, bad)"
        " VALUES(12000 * 64 + 1, 2, 450, 810, 8, 30, 4);"
        "INSERT INTO expect VALUES(1714521605500, 0, 500, 2619, 0, NULL, 0);"
        "UPDATE expect SET power_limit_w = 450, mem_mhz = 810, pstate = 8, fan_pct = 30, bad = 4"
        " WHERE t = 1714521612000 AND gpu = 1;", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(differ(st), 0);
    assert_int_equal(q1(st, "SELECT util_pct FROM sample WHERE k = 12000 * 64 + 1"), 2);
    /* a plain INSERT on a row that exists is refused, as on a table, and changes nothing */
    assert_int_not_equal(sqlite3_exec(db, "INSERT INTO sample(k, power_limit_w) VALUES(3000 * 64, 1)", NULL, NULL,
                                      NULL), SQLITE_OK);
    assert_int_equal(differ(st), 0);
    /* DELETE on the view deletes samples */
    assert_int_equal(sqlite3_exec(db, "DELETE FROM sample WHERE t < 1714521603000; DELETE FROM expect WHERE"
                                  " t < 1714521603000", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample"), NGPU * 17 + 1);
    assert_int_equal(differ(st), 0);
    /* the next tick goes on after them */
    write_ticks(st, 20, 21);
    assert_int_equal(differ(st), 0);
    gs_store_close(st);
}

/* Retention deletes the state rows no sample needs, and keeps the one in effect at the oldest sample. */
static void test_state_retention(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 2 * 60000LL, 0);
    struct gs_err err = { 0 };
    write_ticks(st, 0, NTICK);
    assert_int_equal(gs_store_maintain(st, T0 + (NTICK - 1) * 1000LL, &err), 0);
    assert_int_equal(sqlite3_exec(gs_store_db(st), "DELETE FROM expect WHERE t < (SELECT min(t) FROM sample)",
                                  NULL, NULL, NULL), SQLITE_OK);
    assert_true(q1(st, "SELECT count(*) FROM sample") < NGPU * NTICK);
    assert_int_equal(differ(st), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample_state WHERE t <= (SELECT min(t) FROM sample)"), NGPU);
    /* the rollups read the state too: the power limit of GPU 0's minutes */
    assert_int_equal(q1(st, "SELECT count(*) FROM rollup WHERE gpu = 0 AND t >= 1714521840000 AND power_limit_w = 600"),
                     q1(st, "SELECT count(*) FROM rollup WHERE gpu = 0 AND t >= 1714521840000"));
    assert_true(q1(st, "SELECT count(*) FROM rollup WHERE gpu = 0 AND t >= 1714521840000") >= 5);
    gs_store_close(st);
}

/* A schema-7 database (one sample table with every column) is converted at open. */
static void test_migrate_from_7(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-state-XXXXXX";
    store_tmp_path(path);
    struct gs_store *st = open_store(path, 0, 0);
    write_ticks(st, 0, NTICK);
    char sql[2048];
    snprintf(sql, sizeof(sql),
             "DROP VIEW series;"
             "CREATE TABLE s7(k INTEGER PRIMARY KEY, util_pct INTEGER, mem_util_pct INTEGER, mem_used_mib INTEGER,"
             " temp_c INTEGER, mem_temp_c INTEGER, power_dw INTEGER, power_limit_w INTEGER, energy_mj INTEGER,"
             " sm_mhz INTEGER, mem_mhz INTEGER, throttle INTEGER, pstate INTEGER, pcie_tx_mbs INTEGER,"
             " pcie_rx_mbs INTEGER, fan_pct INTEGER, bad INTEGER NOT NULL DEFAULT 0,"
             " t INTEGER AS (%lld + (k >> 6)) VIRTUAL, gpu INTEGER AS (k & 63) VIRTUAL);"
             "INSERT INTO s7(k, " COLS6 ") SELECT k, " COLS6 " FROM sample ORDER BY k;"
             "CREATE TABLE before AS SELECT k, t, gpu, " COLS6 " FROM s7;"
             "DROP VIEW sample; DROP TABLE sample_data; DROP TABLE sample_state; ALTER TABLE s7 RENAME TO sample;"
             "CREATE VIEW series AS SELECT t, gpu, 1 AS n, util_pct FROM sample;"
             "DELETE FROM schema_migration WHERE version >= 8; PRAGMA user_version = 7;", (long long)T0);
    assert_int_equal(sqlite3_exec(gs_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(q1(st, "SELECT count(*) FROM before WHERE fan_pct IS NULL"), NGPU * 300);
    gs_store_close(st);
    st = open_store(path, 0, 0);
    assert_int_equal(q1(st, "PRAGMA user_version"), GS_STORE_SCHEMA_VERSION);
    assert_int_equal(q1(st, "SELECT count(*) FROM schema_migration WHERE version = 8"), 1);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample"), NGPU * NTICK);
    assert_int_equal(q1(st, "SELECT count(*) FROM (SELECT k, t, gpu, " COLS6 " FROM before EXCEPT SELECT k, t, gpu, "
                            COLS6 " FROM sample)"), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM (SELECT k, t, gpu, " COLS6 " FROM sample EXCEPT SELECT k, t, gpu, "
                            COLS6 " FROM before)"), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample_state"), 8);
    assert_int_equal(q1(st, "SELECT count(*) FROM series WHERE n = 1"), NGPU * NTICK);
    assert_int_equal(q1(st, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
    write_ticks(st, NTICK, NTICK + 1);
    assert_int_equal(differ(st), 0);
    assert_int_equal(q1(st, "SELECT t FROM sample ORDER BY k DESC LIMIT 1"), T0 + NTICK * 1000LL);
    gs_store_close(st);
    store_remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_rows),
        cmocka_unit_test(test_state_past),
        cmocka_unit_test(test_state_retention),
        cmocka_unit_test(test_migrate_from_7),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
