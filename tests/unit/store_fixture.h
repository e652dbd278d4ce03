/* SPDX-License-Identifier: MIT */
/*
 * store_fixture.h - what the history-store tests (test_record, test_record_prof)
 * share: a fixed start time, one-value queries, a writer store opened on a
 * path or ":memory:", and a scratch database path made and removed with its
 * side files. Include after cmocka.h.
 */
#ifndef GS_TEST_STORE_FIXTURE_H
#define GS_TEST_STORE_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "record/store.h"

#define T0 1714521600000LL /* 2024-05-01T00:00:00Z */

/* The first column of the first row of sql: -1 for NULL, -999 for no row. */
static inline int64_t q1(struct gs_store *st, const char *sql)
{
    sqlite3_stmt *q;
    int64_t v = -999;
    assert_int_equal(sqlite3_prepare_v2(gs_store_db(st), sql, -1, &q, NULL), SQLITE_OK);
    if (sqlite3_step(q) == SQLITE_ROW)
        v = sqlite3_column_type(q, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return v;
}

/* A writer store at 1 s samples with these retentions (0: the defaults); the test fails if it cannot open. */
static inline struct gs_store *open_store(const char *path, int64_t keep_full_ms, int64_t keep_rollup_ms)
{
    struct gs_store_opts o = { .path = path, .writer = true, .keep_full_ms = keep_full_ms,
                               .keep_rollup_ms = keep_rollup_ms, .interval_ms = 1000, .first_t_ms = T0 };
    struct gs_store *st = NULL;
    struct gs_err err = { 0 };
    int rc = gs_store_open(&st, &o, &err);
    if (rc < 0)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    return st;
}

/* Turn a mkstemp template ("/tmp/gs-test-XXXXXX") into a fresh path where no file is yet. */
static inline void store_tmp_path(char *path)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
}

/* Remove a database and its side files (-wal, -shm, .lock). */
static inline void store_remove(const char *path)
{
    static const char *const sfx[] = { "", "-wal", "-shm", ".lock" };
    char p[80];
    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
        snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
        unlink(p);
    }
}

/* The sample columns of every schema (t and gpu aside). */
#define COLS6 "util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw, power_limit_w, energy_mj," \
    " sm_mhz, mem_mhz, throttle, pstate, pcie_tx_mbs, pcie_rx_mbs, fan_pct, bad"

/* SQL turning a current store's `sample` (the view of schema 8) back into the table
 * of schema 6 (WITHOUT ROWID, keyed by (t, gpu)) with the same rows, and the meta and
 * schema_migration rows of the versions after 6 away; the caller sets user_version. */
#define STORE_SAMPLE_TO_V6 \
    "DROP VIEW series;" \
    "CREATE TABLE s6(t INTEGER NOT NULL, gpu INTEGER NOT NULL, util_pct, mem_util_pct, mem_used_mib, temp_c," \
    " mem_temp_c, power_dw, power_limit_w, energy_mj, sm_mhz, mem_mhz, throttle, pstate, pcie_tx_mbs," \
    " pcie_rx_mbs, fan_pct, bad INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(t, gpu)) WITHOUT ROWID;" \
    "INSERT INTO s6 SELECT t, gpu, " COLS6 " FROM sample;" \
    "DROP VIEW sample; DROP TABLE sample_data; DROP TABLE sample_state; ALTER TABLE s6 RENAME TO sample;" \
    "CREATE VIEW series AS SELECT t, gpu, 1 AS n, util_pct FROM sample;" \
    "DELETE FROM meta WHERE key = 'sample_base_ms'; DELETE FROM schema_migration WHERE version >= 7;"

#endif /* GS_TEST_STORE_FIXTURE_H */
