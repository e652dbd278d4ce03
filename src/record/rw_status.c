/* SPDX-License-Identifier: MIT */
/*
 * rw_status.c - `gpuscope record --status`: for each remote-write URL the
 * database has queued for, the samples still to send, the age of the oldest
 * one, and the last success and error (table remote_write; read-only).
 */
#include "record/rw.h"
#include "record/record.h"

#include <stdio.h>
#include <string.h>

static void rw_ago(int64_t now, int64_t t, char *buf, size_t len)
{
    char when[48];
    double s = (double)(now - t) / 1000.0;
    gs_rfc3339(t, when, sizeof(when));
    if (s < 120)
        snprintf(buf, len, "%s (%.0f s ago)", when, s);
    else if (s < 7200)
        snprintf(buf, len, "%s (%.0f min ago)", when, s / 60);
    else
        snprintf(buf, len, "%s (%.1f h ago)", when, s / 3600);
}

static void rw_status_one(sqlite3 *db, sqlite3_stmt *q, FILE *out, int64_t now)
{
    const char *url = (const char *)sqlite3_column_text(q, 0);
    int64_t st = sqlite3_column_int64(q, 1), sg = sqlite3_column_int64(q, 2);
    char buf[128], sql[384];
    fprintf(out, "remote write to %s\n", url ? url : "?");
    /* sent_gpu past the last GPU (a new URL's start) is the key's last GPU, 63 */
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM sample WHERE k > " GS_SAMPLE_K("%lld") " + min(%lld, 63)",
             (long long)st,
             (long long)sg);
    int64_t rows = gs_store_scalar(db, sql, -1);
    snprintf(sql, sizeof(sql), "SELECT t FROM sample WHERE k > " GS_SAMPLE_K("%lld") " + min(%lld, 63)"
             " ORDER BY k LIMIT 1", (long long)st,
             (long long)sg);
    int64_t oldest = gs_store_scalar(db, sql, -1);
    fprintf(out, "  pending:      %lld GPU-samples (%d series each at most)\n", (long long)rows, GS_COL_COUNT - 1);
    if (rows > 0 && oldest >= 0) {
        rw_ago(now, oldest, buf, sizeof(buf));
        fprintf(out, "  oldest:       %s\n", buf);
    } else {
        fprintf(out, "  oldest:       nothing pending\n");
    }
    fprintf(out, "  sent:         %lld samples, %lld dropped (refused by the receiver)\n",
            (long long)sqlite3_column_int64(q, 6), (long long)sqlite3_column_int64(q, 7));
    if (sqlite3_column_type(q, 3) != SQLITE_NULL) {
        rw_ago(now, sqlite3_column_int64(q, 3), buf, sizeof(buf));
        fprintf(out, "  last success: %s\n", buf);
    } else {
        fprintf(out, "  last success: never\n");
    }
    if (sqlite3_column_type(q, 4) != SQLITE_NULL) {
        rw_ago(now, sqlite3_column_int64(q, 4), buf, sizeof(buf));
        fprintf(out, "  last error:   %s: %s\n", buf, (const char *)sqlite3_column_text(q, 5));
    } else {
        fprintf(out, "  last error:   none\n");
    }
}

int gs_rw_status(const char *db_path, FILE *out, struct gs_err *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        gs_store_sqlerr(err, rc, db_path, "open");
        sqlite3_close(db);
        return -err->code;
    }
    sqlite3_busy_timeout(db, 2000);
    if (gs_store_scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'remote_write'", 0) <= 0) {
        fprintf(out, "%s: no remote write has queued here (gpuscope record --remote-write URL)\n", db_path);
        sqlite3_close(db);
        return 0;
    }
    rc = sqlite3_prepare_v2(db, "SELECT url, sent_t, sent_gpu, ok_t, err_t, err, sent_n, dropped_n"
                            " FROM remote_write ORDER BY url", -1, &q, NULL);
    if (rc != SQLITE_OK) {
        gs_store_sqlerr(err, rc, db_path, "read the remote-write queue of");
        sqlite3_close(db);
        return -err->code;
    }
    int64_t now = gs_now_ms();
    int n = 0;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        rw_status_one(db, q, out, now);
        n++;
    }
    if (rc != SQLITE_DONE)
        gs_store_sqlerr(err, rc, db_path, "read the remote-write queue of");
    else if (!n)
        fprintf(out, "%s: no remote write has queued here (gpuscope record --remote-write URL)\n", db_path);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return err->code ? -err->code : 0;
}

int gs_record_status(const struct gs_record_opts *o, FILE *out, struct gs_err *err)
{
    char path[1024];
    if (o->db)
        snprintf(path, sizeof(path), "%s", o->db);
    else if (gs_store_default_path(path, sizeof(path)) < 0)
        return gs_err_set(err, GS_E_USAGE, "no default database location ($HOME unset): pass --db FILE");
    return gs_rw_status(path, out, err);
}
