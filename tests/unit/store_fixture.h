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

#endif /* GS_TEST_STORE_FIXTURE_H */
