/* SPDX-License-Identifier: MIT */
/*
 * replay_api.c - the recorder's recent ticks replayed as snapshots, so that
 * doctor (core binary, no SQLite: found with gs_module_symbol("record",
 * GS_RECORD_REPLAY_SYMBOL)) can evaluate the checks that need minutes of
 * history at once: per tick, each GPU's utilization, memory, temperature, fan,
 * power, SM clock and clock event reasons, and its processes (PID, name,
 * memory, SM). Read-only; reads only the range asked for, through the
 * (t, gpu) keys of sample and proc_sample. NULL columns are "not a value".
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/model.h"
#include "health/health.h"
#include "record/store.h"

int gs_record_replay(const char *path, int64_t since_ms, gs_replay_tick_fn fn, void *arg, struct gs_err *err);
int gs_record_open_ro(const char *path, sqlite3 **db); /* history_api.c */

#define RP_MAX_GPUS 64

struct rp {
    sqlite3 *db;
    struct gs_snapshot snap;
    int id_to_slot[RP_MAX_GPUS + 1]; /* gpu.id -> slot, -1 */
    sqlite3_stmt *procs;             /* proc rows of one tick */
};

static int load_gpus(struct rp *r)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(r->db, "SELECT id, idx, uuid, mem_total_mib, temp_slowdown_c FROM gpu ORDER BY idx",
                                -1, &q, NULL);
    if (rc != SQLITE_OK)
        return rc;
    for (int i = 0; i <= RP_MAX_GPUS; i++)
        r->id_to_slot[i] = -1;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW && r->snap.ngpus < RP_MAX_GPUS) {
        int id = sqlite3_column_int(q, 0);
        if (id < 0 || id > RP_MAX_GPUS)
            continue;
        struct gs_gpu *g = &r->snap.gpus[r->snap.ngpus];
        memset(g, 0, sizeof(*g));
        g->st.index = (uint32_t)sqlite3_column_int(q, 1);
        snprintf(g->st.uuid, sizeof(g->st.uuid), "%s", (const char *)sqlite3_column_text(q, 2));
        gs_static_mark(&g->st, GS_S_UUID, GS_ST_OK);
        if (sqlite3_column_type(q, 4) != SQLITE_NULL) {
            g->st.temp_slowdown_c = sqlite3_column_int(q, 4);
            gs_static_mark(&g->st, GS_S_TEMP_SLOWDOWN, GS_ST_OK);
        }
        g->s.mem_total_bytes = (uint64_t)sqlite3_column_int64(q, 3) << 20;
        r->id_to_slot[id] = (int)r->snap.ngpus++;
    }
    sqlite3_finalize(q);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

/* Column c of q into a field: a value, or "not supported" when NULL. */
static bool col(sqlite3_stmt *q, int c, struct gs_sample *s, enum gs_field f)
{
    bool ok = sqlite3_column_type(q, c) != SQLITE_NULL;
    gs_sample_mark(s, f, ok ? GS_ST_OK : GS_ST_NOT_SUPPORTED);
    return ok;
}

static void fill_gpu(sqlite3_stmt *q, struct gs_gpu *g)
{
    struct gs_sample *s = &g->s;
    uint64_t total = s->mem_total_bytes;
    int bad = sqlite3_column_int(q, 10);
    memset(s, 0, sizeof(*s));
    s->mem_total_bytes = total;
    gs_sample_mark(s, GS_F_MEM_TOTAL, total ? GS_ST_OK : GS_ST_NOT_SUPPORTED);
    g->state = bad & GS_BAD_LOST ? GS_GPU_LOST : GS_GPU_OK;
    if (col(q, 2, s, GS_F_GPU_UTIL))
        s->gpu_util_pct = (uint32_t)sqlite3_column_int(q, 2);
    if (col(q, 3, s, GS_F_MEM_USED))
        s->mem_used_bytes = (uint64_t)sqlite3_column_int64(q, 3) << 20;
    if (col(q, 4, s, GS_F_TEMP_GPU))
        s->temp_gpu_c = sqlite3_column_int(q, 4);
    if (col(q, 5, s, GS_F_POWER))
        s->power_mw = (uint32_t)(sqlite3_column_int64(q, 5) * 100);
    if (col(q, 6, s, GS_F_CLOCK_SM))
        s->clock_sm_mhz = (uint32_t)sqlite3_column_int(q, 6);
    if (col(q, 7, s, GS_F_THROTTLE))
        s->throttle_reasons = (uint64_t)sqlite3_column_int64(q, 7);
    if (col(q, 8, s, GS_F_FAN_SPEED)) {
        s->fan_speed_pct[0] = (uint32_t)sqlite3_column_int(q, 8);
        s->fan_count = 1;
    }
    if (col(q, 9, s, GS_F_POWER_ENFORCED))
        s->power_enforced_limit_mw = (uint32_t)sqlite3_column_int(q, 9) * 1000;
    g->nprocs = 0;
    g->procs_status = GS_ST_OK;
}

/* The processes of the tick at t (proc_sample joined with proc). */
static int fill_procs(struct rp *r, int64_t t)
{
    sqlite3_stmt *q = r->procs;
    sqlite3_reset(q);
    sqlite3_bind_int64(q, 1, t);
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int id = sqlite3_column_int(q, 0);
        if (id < 0 || id > RP_MAX_GPUS || r->id_to_slot[id] < 0)
            continue;
        struct gs_proc *p = gs_gpu_add_proc(&r->snap.gpus[r->id_to_slot[id]]);
        if (!p)
            return SQLITE_NOMEM;
        p->pid = (uint32_t)sqlite3_column_int(q, 1);
        p->host_vis = GS_HOST_NOT_VISIBLE; /* then: no /proc reads about it now */
        const unsigned char *name = sqlite3_column_text(q, 2);
        snprintf(p->name, sizeof(p->name), "%s", name ? (const char *)name : "");
        gs_proc_set(p, GS_P_NAME);
        if (sqlite3_column_type(q, 3) != SQLITE_NULL) {
            p->gpu_mem_bytes = (uint64_t)sqlite3_column_int64(q, 3) << 20;
            gs_proc_set(p, GS_P_GPU_MEM);
        }
        if (sqlite3_column_type(q, 4) != SQLITE_NULL) {
            p->sm_util_pct = (uint32_t)sqlite3_column_int(q, 4);
            gs_proc_set(p, GS_P_SM_UTIL);
        }
    }
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int replay(struct rp *r, int64_t since_ms, gs_replay_tick_fn fn, void *arg, int *ticks)
{
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(r->db, "SELECT t, gpu, util_pct, mem_used_mib, temp_c, power_dw, sm_mhz, throttle,"
                                " fan_pct, power_limit_w, bad FROM sample WHERE k >= " GS_SAMPLE_K("?1") " ORDER BY k", -1, &q, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(r->db, "SELECT ps.gpu, p.pid, p.name, ps.gpu_mem_mib, ps.sm_pct FROM proc_sample ps"
                                " JOIN proc p ON p.id = ps.proc WHERE ps.t = ?1", -1, &r->procs, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(q);
        return rc;
    }
    sqlite3_bind_int64(q, 1, since_ms);
    int64_t cur = INT64_MIN;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        int64_t t = sqlite3_column_int64(q, 0);
        if (t != cur) {
            if (cur != INT64_MIN && (rc = fill_procs(r, cur)) == SQLITE_OK) {
                fn(arg, &r->snap, cur);
                ++*ticks;
            }
            for (uint32_t i = 0; i < r->snap.ngpus; i++)
                r->snap.gpus[i].state = GS_GPU_ERROR; /* until this tick's row says otherwise */
            cur = t;
        }
        int id = sqlite3_column_int(q, 1);
        if (id >= 0 && id <= RP_MAX_GPUS && r->id_to_slot[id] >= 0)
            fill_gpu(q, &r->snap.gpus[r->id_to_slot[id]]);
    }
    if (rc == SQLITE_DONE && cur != INT64_MIN && (rc = fill_procs(r, cur)) == SQLITE_OK) {
        fn(arg, &r->snap, cur);
        ++*ticks;
    }
    sqlite3_finalize(q);
    sqlite3_finalize(r->procs);
    return rc == SQLITE_DONE || rc == SQLITE_OK ? SQLITE_OK : rc;
}

int gs_record_replay(const char *path, int64_t since_ms, gs_replay_tick_fn fn, void *arg, struct gs_err *err)
{
    struct rp r;
    int ticks = 0;
    memset(&r, 0, sizeof(r));
    gs_snapshot_init(&r.snap);
    r.snap.gpus = calloc(RP_MAX_GPUS, sizeof(*r.snap.gpus));
    if (!r.snap.gpus)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    int rc = gs_record_open_ro(path, &r.db);
    if (rc == SQLITE_OK)
        rc = load_gpus(&r);
    if (rc == SQLITE_OK)
        rc = replay(&r, since_ms, fn, arg, &ticks);
    if (rc != SQLITE_OK)
        gs_err_set(err, GS_E_IO, "%s: %s", path, r.db ? sqlite3_errmsg(r.db) : sqlite3_errstr(rc));
    sqlite3_close(r.db);
    gs_snapshot_release(&r.snap);
    return rc == SQLITE_OK ? ticks : -GS_E_IO;
}
