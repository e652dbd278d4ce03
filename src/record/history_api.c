/* SPDX-License-Identifier: MIT */
/*
 * history_api.c - what `gpuscope doctor` (in the core binary, which has no
 * SQLite by design: core/module.h) asks of the recorder's database. doctor
 * finds this function with gs_module_symbol("record", GS_RECORD_HISTORY_SYMBOL)
 * only when a database exists. Read-only: never creates, migrates or locks the
 * file, so it is safe while `gpuscope record` writes it (WAL readers do not
 * block the writer). The declaration is in health/health.h.
 *
 * The GPUs "seen" are those readable (not marked lost) in the last 10 minutes
 * of samples, or in the one-minute rollups of the last day of recording; both
 * ranges are read through the tables' (t, gpu) primary keys, so the cost does
 * not grow with the database.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "health/health.h"
#include "record/store.h"

int gs_record_history(const char *path, struct gs_history *out, struct gs_err *err);
/* The read-only open every history reader uses (trend_api.c, replay_api.c too): an SQLite
 * result code; *db may be set on failure too (sqlite3_close it). */
int gs_record_open_ro(const char *path, sqlite3 **db);

static const char history_sql[] =
    "WITH last AS (SELECT " GS_SAMPLE_LAST_T " AS t)"
    " SELECT g.idx, g.uuid, g.name, g.pci_bus_id, s.t FROM gpu g JOIN ("
    "  SELECT gpu, max(t) AS t FROM ("
    "   SELECT gpu, t FROM sample WHERE k >= " GS_SAMPLE_K("(SELECT t FROM last) - 600000") " AND (bad & ?1) = 0"
    "   UNION ALL SELECT gpu, t FROM rollup WHERE t >= (SELECT t FROM last) - 86400000)"
    "  GROUP BY gpu) s ON s.gpu = g.id ORDER BY g.idx";

static void col_text(sqlite3_stmt *q, int col, char *dst, size_t cap)
{
    const unsigned char *t = sqlite3_column_text(q, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

static int history_gpus(sqlite3 *db, struct gs_history *out)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, history_sql, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_int(q, 1, GS_BAD_LOST);
    while ((rc = sqlite3_step(q)) == SQLITE_ROW && out->ngpus < GS_HISTORY_MAX_GPUS) {
        struct gs_history_gpu *g = &out->gpus[out->ngpus++];
        g->index = (uint32_t)sqlite3_column_int(q, 0);
        col_text(q, 1, g->uuid, sizeof(g->uuid));
        col_text(q, 2, g->name, sizeof(g->name));
        col_text(q, 3, g->pci_bus_id, sizeof(g->pci_bus_id));
        g->last_ms = sqlite3_column_int64(q, 4);
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

static int history_span(sqlite3 *db, struct gs_history *out)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(db, "SELECT " GS_SAMPLE_FIRST_T ", " GS_SAMPLE_LAST_T, -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        out->first_ms = sqlite3_column_int64(q, 0);
        out->last_ms = sqlite3_column_int64(q, 1);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(q);
    return rc;
}

/* "file:PATH?mode=ro" with the URI's special characters in PATH escaped. */
static void ro_uri(char *dst, size_t cap, const char *path)
{
    size_t n = (size_t)snprintf(dst, cap, "file:");
    for (const char *p = path; *p && n + 4 < cap; p++) {
        if (*p == '?' || *p == '#' || *p == '%')
            n += (size_t)snprintf(dst + n, cap - n, "%%%02X", (unsigned char)*p);
        else
            dst[n++] = *p;
    }
    snprintf(dst + n, cap - n, "?mode=ro");
}

/* A URI, so that mode=ro holds even when the file is missing: a reader never creates one. */
int gs_record_open_ro(const char *path, sqlite3 **db)
{
    char uri[4200];
    ro_uri(uri, sizeof(uri), path);
    int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc == SQLITE_OK)
        sqlite3_busy_timeout(*db, 500);
    return rc;
}

int gs_record_history(const char *path, struct gs_history *out, struct gs_err *err)
{
    sqlite3 *db = NULL;

    memset(out, 0, sizeof(*out));
    snprintf(out->path, sizeof(out->path), "%s", path);
    int rc = gs_record_open_ro(path, &db);
    if (rc == SQLITE_OK)
        rc = history_span(db, out);
    if (rc == SQLITE_OK)
        rc = history_gpus(db, out);
    if (rc != SQLITE_OK) {
        gs_err_set(err, GS_E_IO, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        gs_err_hint(err, "check that it is a gpuscope record database (gpuscope report --db %s), or pass --no-history",
                    path);
    }
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -GS_E_IO;
}
