/* SPDX-License-Identifier: MIT */
/*
 * test_record.c - the history store: schema and migrations, NULL (never 0)
 * for readings that are not values, bytes per GPU-sample on disk, the
 * migration of a schema-6 sample table (values identical after), rollup
 * boundaries and retention, throttle events, time and size parsing.
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

/* A snapshot of n H100-like GPUs with every recorded field valid, varying with tick k. */
static void fill_snap(struct gs_snapshot *snap, struct gs_gpu *gpus, unsigned n, unsigned k)
{
    memset(snap, 0, sizeof(*snap));
    snap->ngpus = n;
    snap->gpus = gpus;
    for (unsigned i = 0; i < n; i++) {
        struct gs_gpu *g = &gpus[i];
        struct gs_sample *s = &g->s;
        memset(s, 0, sizeof(*s));
        g->st.index = i;
        snprintf(g->st.uuid, sizeof(g->st.uuid), "GPU-test-%u", i);
        snprintf(g->st.name, sizeof(g->st.name), "NVIDIA H100 80GB HBM3");
        s->gpu_util_pct = 80 + (k * 7 + i) % 20;
        s->mem_util_pct = 40 + k % 17;
        s->mem_used_bytes = (60000ull + k % 3000) << 20;
        s->mem_total_bytes = 81559ull << 20;
        s->temp_gpu_c = 60 + (int)(k % 9);
        s->temp_mem_c = 70 + (int)(k % 5);
        s->power_mw = 600000 + (k * 997) % 90000;
        s->power_enforced_limit_mw = 700000;
        s->energy_mj = 1000000000ull + (uint64_t)k * 650000;
        s->clock_sm_mhz = 1900 + k % 80;
        s->clock_mem_mhz = 2619;
        s->throttle_reasons = (k / 30) % 2 ? GS_THROTTLE_SW_POWER_CAP : 0;
        s->pstate = 0;
        s->pcie_tx_kbps = 500000 + (k * 1311) % 100000;
        s->pcie_rx_kbps = 4000000 + (k * 7919) % 800000;
        enum gs_field f[] = { GS_F_GPU_UTIL, GS_F_MEM_UTIL, GS_F_MEM_USED, GS_F_MEM_TOTAL, GS_F_TEMP_GPU,
                              GS_F_TEMP_MEM, GS_F_POWER, GS_F_POWER_ENFORCED, GS_F_ENERGY, GS_F_CLOCK_SM,
                              GS_F_CLOCK_MEM, GS_F_THROTTLE, GS_F_PSTATE, GS_F_PCIE_TX, GS_F_PCIE_RX };
        for (size_t j = 0; j < sizeof(f) / sizeof(f[0]); j++)
            gs_sample_mark(s, f[j], GS_ST_OK);
    }
}

static void test_schema(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 0, 0);
    assert_int_equal(q1(st, "PRAGMA user_version"), GS_STORE_SCHEMA_VERSION);
    assert_int_equal(q1(st, "SELECT max(version) FROM schema_migration"), GS_STORE_SCHEMA_VERSION);
    assert_int_equal(q1(st, "SELECT count(*) FROM sqlite_master WHERE name IN ('gpu','sample','rollup','proc',"
                            "'proc_sample','event','baseline','series','meta')"), 9);
    gs_store_close(st);
}

static void test_null_not_zero(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 0, 0);
    struct gs_gpu gpus[2];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    memset(gpus, 0, sizeof(gpus));
    fill_snap(&snap, gpus, 2, 0);
    gs_sample_mark(&gpus[0].s, GS_F_TEMP_GPU, GS_ST_NOT_SUPPORTED);
    gs_sample_mark(&gpus[1].s, GS_F_POWER, GS_ST_ERROR);
    assert_int_equal(gs_store_write_tick(st, T0, &snap, true, &err), 0);
    assert_int_equal(q1(st, "SELECT temp_c FROM sample WHERE gpu = 0"), -1);
    assert_int_equal(q1(st, "SELECT bad FROM sample WHERE gpu = 0"), 0);
    assert_int_equal(q1(st, "SELECT power_dw FROM sample WHERE gpu = 1"), -1);
    assert_int_equal(q1(st, "SELECT bad FROM sample WHERE gpu = 1"), 1 << GS_COL_POWER);
    /* the first tick has no energy delta: NULL, not 0; the second has one */
    assert_int_equal(q1(st, "SELECT energy_mj FROM sample WHERE gpu = 0"), -1);
    fill_snap(&snap, gpus, 2, 1);
    assert_int_equal(gs_store_write_tick(st, T0 + 1000, &snap, true, &err), 0);
    assert_int_equal(q1(st, "SELECT energy_mj FROM sample WHERE gpu = 0 AND t = 1714521601000"), 650000);
    /* a lost GPU: its row is kept with the lost bit, and an event says when */
    gpus[1].state = GS_GPU_LOST;
    memset(&gpus[1].s, 0, sizeof(gpus[1].s));
    assert_int_equal(gs_store_write_tick(st, T0 + 2000, &snap, true, &err), 0);
    assert_int_equal(q1(st, "SELECT bad & 32768 FROM sample WHERE gpu = 1 AND t = 1714521602000"), GS_BAD_LOST);
    assert_int_equal(q1(st, "SELECT t FROM event WHERE kind = 'gpu_lost' AND gpu = 1"), T0 + 2000);
    gs_store_close(st);
}

/* An hour of 8 GPUs at 1 s: bytes on disk per GPU-sample (48.1 B measured, schema 7; 58 B before). */
static void test_bytes_per_sample(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-record-XXXXXX";
    store_tmp_path(path);
    struct gs_store *st = open_store(path, 0, 0);
    struct gs_gpu gpus[8];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    memset(gpus, 0, sizeof(gpus));
    for (unsigned k = 0; k < 3600; k++) {
        fill_snap(&snap, gpus, 8, k);
        assert_int_equal(gs_store_write_tick(st, T0 + k * 1000LL, &snap, false, &err), 0);
    }
    int64_t rows = q1(st, "SELECT count(*) FROM sample");
    int64_t bytes = q1(st, "SELECT sum(pgsize) FROM dbstat WHERE name IN ('sample_data', 'sample_state')");
    if (bytes < 0) /* no dbstat in this SQLite: the whole file is an upper bound */
        bytes = (int64_t)gs_store_bytes_used(st);
    assert_int_equal(rows, 8 * 3600);
    printf("bytes per GPU-sample: %.1f\n", (double)bytes / (double)rows);
    assert_true(bytes <= 40 * rows); /* issue 22: <= 40 B (39.4 B with schema 8) */
    /* throttle on/off transitions became events: 3600 / 30 = 120 per GPU minus the first off */
    assert_int_equal(q1(st, "SELECT count(*) FROM event WHERE gpu = 0 AND kind LIKE 'throttle_%'"), 119);
    gs_store_close(st);
    store_remove(path);
}


/* A schema-6 database (the sample table turned back to its WITHOUT ROWID (t, gpu) form, with
 * NULLs and error bits in it) is converted at open: every row identical, NULLs still NULL. */
static void test_migrate_from_6(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-record-XXXXXX";
    store_tmp_path(path);
    struct gs_store *st = open_store(path, 0, 0);
    struct gs_gpu gpus[3];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    memset(gpus, 0, sizeof(gpus));
    for (unsigned k = 0; k < 300; k++) {
        fill_snap(&snap, gpus, 3, k);
        assert_int_equal(gs_store_write_tick(st, T0 + k * 1000LL + k % 7, &snap, false, &err), 0);
    }
    assert_int_equal(sqlite3_exec(gs_store_db(st),
        STORE_SAMPLE_TO_V6
        "UPDATE sample SET temp_c = NULL, bad = 8 WHERE gpu = 2 AND (t / 1000) % 7 = 3;"
        "CREATE TABLE before AS SELECT t, gpu, " COLS6 " FROM sample;"
        "PRAGMA user_version = 6;", NULL, NULL, NULL), SQLITE_OK);
    gs_store_close(st);
    st = open_store(path, 0, 0);
    assert_int_equal(q1(st, "PRAGMA user_version"), GS_STORE_SCHEMA_VERSION);
    assert_int_equal(q1(st, "SELECT value FROM meta WHERE key = 'sample_base_ms'"), T0);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample"), 900);
    int64_t nulls = q1(st, "SELECT count(*) FROM before WHERE temp_c IS NULL AND bad = 8");
    assert_true(nulls > 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM sample WHERE temp_c IS NULL AND bad = 8"), nulls);
    assert_int_equal(q1(st, "SELECT count(*) FROM (SELECT t, gpu, " COLS6 " FROM before EXCEPT SELECT t, gpu, "
                            COLS6 " FROM sample)"), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM (SELECT t, gpu, " COLS6 " FROM sample EXCEPT SELECT t, gpu, "
                            COLS6 " FROM before)"), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM series WHERE n = 1"), 900);
    /* the key orders rows as (t, gpu) did, and the next tick goes on after them */
    assert_int_equal(q1(st, "SELECT count(*) FROM sample a JOIN sample b ON b.k > a.k AND (b.t, b.gpu) < (a.t, a.gpu)"), 0);
    fill_snap(&snap, gpus, 3, 300);
    assert_int_equal(gs_store_write_tick(st, T0 + 300000, &snap, false, &err), 0);
    assert_int_equal(q1(st, "SELECT t FROM sample ORDER BY k DESC LIMIT 1"), T0 + 300000);
    gs_store_close(st);
    store_remove(path);
}

/* Retention: samples older than keep_full roll up into whole minutes; rollups
 * older than keep_rollup go. */
static void test_rollup_boundaries(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 10 * 60000LL, 30 * 60000LL);
    struct gs_gpu gpus[2];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    memset(gpus, 0, sizeof(gpus));
    /* 45 minutes plus 30 s, starting 20 s into a minute */
    int64_t start = T0 + 20000;
    for (unsigned k = 0; k < 45 * 60 + 30; k++) {
        fill_snap(&snap, gpus, 2, k);
        assert_int_equal(gs_store_write_tick(st, start + k * 1000LL, &snap, false, &err), 0);
    }
    int64_t now = start + (45 * 60 + 29) * 1000LL;
    assert_int_equal(gs_store_maintain(st, now, &err), 0);
    int64_t cutoff = ((now - 10 * 60000LL) / 60000) * 60000;
    assert_int_equal(q1(st, "SELECT count(*) FROM rollup WHERE t % 60000 != 0"), 0);
    char sql[256];
    snprintf(sql, sizeof(sql), "SELECT min(t) = %lld FROM sample", (long long)cutoff);
    assert_int_equal(q1(st, sql), 1);
    /* rollups are written as each minute completes: every complete minute has one, the
     * current (partial) minute none; `series` takes a rollup only where samples are gone */
    snprintf(sql, sizeof(sql), "SELECT max(t) = %lld FROM rollup", (long long)((now / 60000) * 60000 - 60000));
    assert_int_equal(q1(st, sql), 1);
    snprintf(sql, sizeof(sql), "SELECT max(t) < %lld FROM series WHERE n > 1", (long long)cutoff);
    assert_int_equal(q1(st, sql), 1);
    assert_int_equal(q1(st, "SELECT (SELECT sum(n) FROM series WHERE gpu = 0) = (SELECT count(*) FROM sample WHERE gpu = 0)"
                            " + (SELECT sum(n) FROM rollup WHERE gpu = 0 AND t < (SELECT min(t) FROM sample))"), 1);
    /* the first minute was partial (40 samples), the others whole; older than 30 min: gone */
    snprintf(sql, sizeof(sql), "SELECT min(t) >= %lld FROM rollup", (long long)(now - 30 * 60000LL - 60000));
    assert_int_equal(q1(st, sql), 1);
    assert_int_equal(q1(st, "SELECT count(*) FROM rollup WHERE n != 60"), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM rollup WHERE util_min > util_avg OR util_avg > util_max"), 0);
    /* energy is conserved by the rollup: every minute sums 60 deltas of 650000 mJ */
    assert_int_equal(q1(st, "SELECT count(*) FROM rollup WHERE energy_mj != 60 * 650000"), 0);
    /* the throttle mask is OR'ed: minutes that saw SW power cap say so */
    assert_true(q1(st, "SELECT count(*) FROM rollup WHERE throttle_or = 4") > 0);
    gs_store_close(st);
}

/* A tick that fails to write (the database is full) keeps the process table:
 * a process alive across the failure keeps one lifetime row; one that started
 * during the failed tick is inserted once afterwards; one that ended during
 * it is closed afterwards. */
static void test_procs_survive_failed_tick(void **state)
{
    (void)state;
    char path[] = "/tmp/gs-test-record-XXXXXX";
    store_tmp_path(path);
    struct gs_store *st = open_store(path, 0, 0);
    struct gs_gpu gpus[1];
    struct gs_proc procs[3];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    memset(gpus, 0, sizeof(gpus));
    memset(procs, 0, sizeof(procs));
    for (unsigned i = 0; i < 3; i++) {
        procs[i].pid = 1000 + i;
        procs[i].start_time = 1714500000 + i;
        procs[i].gpu_mem_bytes = (1000ull + i) << 20;
        procs[i].valid = (1u << GS_P_START) | (1u << GS_P_GPU_MEM);
        snprintf(procs[i].name, sizeof(procs[i].name), "p%u", i);
    }
    /* ticks 0-1: procs 0 and 1 */
    for (unsigned k = 0; k < 2; k++) {
        fill_snap(&snap, gpus, 1, k);
        gpus[0].procs = procs;
        gpus[0].nprocs = 2;
        assert_int_equal(gs_store_write_tick(st, T0 + k * 1000LL, &snap, true, &err), 0);
    }
    /* tick 2 fails: proc 1 ended, proc 2 started (procs 0 and 2 listed) */
    procs[1] = procs[2];
    fill_snap(&snap, gpus, 1, 2);
    gpus[0].procs = procs;
    gpus[0].nprocs = 2;
    gs_store_debug_full(st, true);
    assert_true(gs_store_write_tick(st, T0 + 2000, &snap, true, &err) < 0);
    assert_int_equal(err.code, GS_E_IO);
    gs_store_debug_full(st, false);
    /* ticks 3-4 work again */
    for (unsigned k = 3; k < 5; k++) {
        fill_snap(&snap, gpus, 1, k);
        gpus[0].procs = procs;
        gpus[0].nprocs = 2;
        assert_int_equal(gs_store_write_tick(st, T0 + k * 1000LL, &snap, true, &err), 0);
    }
    assert_int_equal(gs_store_finish(st, T0 + 5000, &err), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM proc"), 3);
    assert_int_equal(q1(st, "SELECT count(*) FROM proc WHERE pid = 1000"), 1);
    assert_int_equal(q1(st, "SELECT first_t FROM proc WHERE pid = 1000"), T0);
    assert_int_equal(q1(st, "SELECT end_t FROM proc WHERE pid = 1000"), T0 + 5000);
    /* proc 1 was last listed at tick 1; its end is noticed by the first tick written after */
    assert_int_equal(q1(st, "SELECT last_t FROM proc WHERE pid = 1001"), T0 + 1000);
    assert_int_equal(q1(st, "SELECT end_t FROM proc WHERE pid = 1001"), T0 + 3000);
    assert_int_equal(q1(st, "SELECT count(*) FROM proc WHERE pid = 1002"), 1);
    assert_int_equal(q1(st, "SELECT first_t FROM proc WHERE pid = 1002"), T0 + 3000);
    /* every process sample points at a lifetime row */
    assert_int_equal(q1(st, "SELECT count(*) FROM proc_sample WHERE proc NOT IN (SELECT id FROM proc)"), 0);
    assert_int_equal(q1(st, "SELECT count(*) FROM proc_sample"), 8);
    gs_store_close(st);
    store_remove(path);
}

/* A process's peak GPU memory is that of every tick (the process samples are every 5 s),
 * summed over its GPUs; PyTorch's figures from the Python hook go with the process samples. */
static void test_proc_peak_and_torch(void **state)
{
    (void)state;
    struct gs_store *st = open_store(":memory:", 0, 0);
    struct gs_gpu gpus[2];
    struct gs_snapshot snap;
    struct gs_err err = { 0 };
    static const unsigned mib[] = { 1000, 1500, 4000, 1200, 1100 }; /* on each of 2 GPUs */
    memset(gpus, 0, sizeof(gpus));
    for (unsigned k = 0; k < 5; k++) {
        fill_snap(&snap, gpus, 2, k);
        for (unsigned i = 0; i < 2; i++) {
            gpus[i].nprocs = 0;
            struct gs_proc *p = gs_gpu_add_proc(&gpus[i]);
            p->pid = 4242;
            p->gpu_mem_bytes = (uint64_t)mib[k] << 20;
            gs_proc_set(p, GS_P_GPU_MEM);
            if (i == 0) {
                p->torch_allocated_bytes = 512ull << 20;
                p->torch_reserved_bytes = 768ull << 20;
                p->torch_max_allocated_bytes = 600ull << 20;
                p->torch_alloc_retries = k;
                gs_proc_set(p, GS_P_TORCH);
            }
        }
        assert_int_equal(gs_store_write_tick(st, T0 + k * 1000, &snap, k == 0 || k == 4, &err), 0);
    }
    assert_int_equal(q1(st, "SELECT max(gpu_mem_mib) FROM proc_sample"), 1100);   /* the 5 s samples missed it */
    assert_int_equal(q1(st, "SELECT gpu_mem_peak_mib FROM proc"), 8000);          /* every tick did: 2 x 4000 */
    assert_int_equal(q1(st, "SELECT count(*) FROM proc_torch"), 2);
    assert_int_equal(q1(st, "SELECT reserved_mib FROM proc_torch WHERE t = 1714521604000 AND gpu = 0"), 768);
    assert_int_equal(q1(st, "SELECT alloc_retries FROM proc_torch WHERE t = 1714521604000"), 4);
    for (unsigned i = 0; i < 2; i++)
        free(gpus[i].procs);
    gs_store_close(st);
}

static void test_parsing(void **state)
{
    (void)state;
    int64_t ms;
    uint64_t b;
    char buf[48];
    assert_int_equal(gs_parse_duration_ms("2h", &ms), 0);
    assert_int_equal(ms, 7200000);
    assert_int_equal(gs_parse_duration_ms("90", &ms), 0);
    assert_int_equal(ms, 90000);
    assert_int_equal(gs_parse_duration_ms("3x", &ms), -1);
    /* out of range, NaN and infinity are refused, not converted (UB; fuzz_rw_config found it) */
    assert_int_equal(gs_parse_duration_ms("3e54", &ms), -1);
    assert_int_equal(gs_parse_duration_ms("1e16h", &ms), -1);
    assert_int_equal(gs_parse_duration_ms("nan", &ms), -1);
    assert_int_equal(gs_parse_duration_ms("inf", &ms), -1);
    assert_int_equal(gs_parse_duration_ms("100000000d", &ms), 0);
    assert_int_equal(ms, 8640000000000000LL);
    assert_int_equal(gs_parse_size("1e30G", &b), -1);
    assert_int_equal(gs_parse_size("nan", &b), -1);
    assert_int_equal(gs_parse_size("2G", &b), 0);
    assert_int_equal(b, 2147483648ULL);
    assert_int_equal(gs_parse_time_ms("2024-05-01T02:00:00+02:00", 0, &ms), 0);
    assert_int_equal(ms, T0);
    assert_int_equal(gs_parse_time_ms("-1h", T0, &ms), 0);
    assert_int_equal(ms, T0 - 3600000);
    /* out-of-range fields and junk are refused, with the reason */
    char why[256];
    static const struct { const char *in, *why; } bad[] = {
        { "2024-13-01", "month 13" }, { "2024-02-30", "has 29 days" }, { "2023-02-29", "has 28 days" },
        { "2024-05-01T00:00:00+25:00", "offset +25:00" }, { "2024-05-01 24:00", "hour 24" },
        { "2024-05-01 12:60", "minute 60" }, { "2024-05-01 12:00:61", "second 61" }, { "2024-05-01x", "unexpected 'x'" },
        { "2024-05-01T10:00:00+02:00junk", "unexpected 'junk'" }, { "24-05-01", "YYYY-MM-DD" }, { "", "empty" },
        { "-2x", "not a duration" }, { "@x", "seconds since 1970" }, { "1969-12-31", "before 1970" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(gs_parse_time_why(bad[i].in, T0, &ms, why, sizeof(why)), -1);
        if (!strstr(why, bad[i].why))
            fail_msg("'%s': '%s' does not say '%s'", bad[i].in, why, bad[i].why);
    }
    assert_int_equal(gs_parse_time_why("2024-02-29T12:00:00.250Z", 0, &ms, why, sizeof(why)), 0);
    assert_int_equal(ms, 1709208000250LL);
    assert_int_equal(gs_parse_time_why("2024-05-01T02:00+0200", 0, &ms, why, sizeof(why)), 0);
    assert_int_equal(ms, T0);
    /* local times: a daylight-saving gap is refused, a repeated hour is its first occurrence */
    setenv("TZ", "Europe/Berlin", 1);
    tzset();
    assert_int_equal(gs_parse_time_why("2024-03-31 02:30", 0, &ms, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "does not exist in the local time zone"));
    assert_int_equal(gs_parse_time_why("2024-03-31 03:30", 0, &ms, why, sizeof(why)), 0);
    assert_int_equal(ms, 1711848600000LL); /* 01:30Z */
    assert_int_equal(gs_parse_time_why("2024-10-27 02:30", 0, &ms, why, sizeof(why)), 0);
    assert_int_equal(ms, 1729989000000LL); /* 00:30Z, CEST: the first 02:30 */
    assert_int_equal(gs_parse_time_why("2024-05-01", 0, &ms, why, sizeof(why)), 0);
    assert_int_equal(ms, T0 - 2 * 3600000);
    assert_int_equal(gs_parse_size("2G", &b), 0);
    assert_int_equal(b, 2ull << 30);
    setenv("TZ", "UTC", 1);
    tzset();
    assert_string_equal(gs_rfc3339(T0 + 5, buf, sizeof(buf)), "2024-05-01T00:00:00.005+00:00");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schema),
        cmocka_unit_test(test_null_not_zero),
        cmocka_unit_test(test_bytes_per_sample),
        cmocka_unit_test(test_migrate_from_6),
        cmocka_unit_test(test_rollup_boundaries),
        cmocka_unit_test(test_procs_survive_failed_tick),
        cmocka_unit_test(test_proc_peak_and_torch),
        cmocka_unit_test(test_parsing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
