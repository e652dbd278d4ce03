/* SPDX-License-Identifier: MIT */
/*
 * store_write.c - one tick into the database: a sample row per GPU (NULL for
 * every reading that is not a value), events derived from what changed since
 * the previous tick (throttle reasons on/off, GPU lost/back, ECC, row remaps,
 * retired pages, Xids from the snapshot's events), process lifetimes and
 * per-process samples. All in one transaction: a tick is stored whole or not.
 */
#include "record/store_priv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gs_store_prepare_writer(struct gs_store *st, struct gs_err *err)
{
    static const struct { size_t off; const char *sql; } stmts[] = {
        { offsetof(struct gs_store, ins_sample),
          "INSERT OR REPLACE INTO sample(k, util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw,"
          " power_limit_w, energy_mj, sm_mhz, mem_mhz, throttle, pstate, pcie_tx_mbs, pcie_rx_mbs, fan_pct, bad)"
          " VALUES(" GS_SAMPLE_K("?1") " + ?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)" },
        { offsetof(struct gs_store, ins_data),
          "INSERT INTO sample_data(k, util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw, energy_dev_mj,"
          " sm_mhz, throttle, pcie_tx_mbs, pcie_rx_mbs, fan_pct) VALUES(" GS_SAMPLE_K("?1") " + ?2,?3,?4,?5,?6,?7,?8,"
          "?9,?10,?11,?12,?13,?14)" },
        { offsetof(struct gs_store, ins_psample),
          "INSERT OR REPLACE INTO proc_sample VALUES(?,?,?,?,?,?,?,?)" },
        { offsetof(struct gs_store, ins_event),
          "INSERT INTO event(t, gpu, kind, code, value, text) VALUES(?,?,?,?,?,?)" },
        { offsetof(struct gs_store, ins_proc),
          "INSERT INTO proc(pid, start_s, first_t, last_t, gpus, uid, user, name, cmdline,"
          " container_id, pod_uid, ppid, slurm_job) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)" },
        { offsetof(struct gs_store, end_proc), "UPDATE proc SET last_t = ?2, end_t = ?3 WHERE id = ?1" },
        { offsetof(struct gs_store, upd_proc_gpus), "UPDATE proc SET gpus = ?2, last_t = ?3 WHERE id = ?1" },
        { offsetof(struct gs_store, ins_torch), "INSERT OR REPLACE INTO proc_torch VALUES(?,?,?,?,?,?,?,?,?)" },
        { offsetof(struct gs_store, upd_proc_peak), "UPDATE proc SET gpu_mem_peak_mib = ?2 WHERE id = ?1" },
        { offsetof(struct gs_store, ins_prof),
          "INSERT OR REPLACE INTO prof_sample VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)" },
    };
    char sql[160];
    for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++) {
        sqlite3_stmt **slot = (sqlite3_stmt **)((char *)st + stmts[i].off);
        int rc = sqlite3_prepare_v3(st->db, stmts[i].sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL);
        if (rc != SQLITE_OK)
            return gs_store_sqlerr(err, rc, st->path, "preparing statements");
    }
    /* Processes left open by a recorder that was killed: they ended by its last sample. */
    snprintf(sql, sizeof(sql), "UPDATE proc SET end_t = coalesce(last_t, first_t) WHERE end_t IS NULL");
    if (gs_store_exec(st, sql, err) < 0)
        return -err->code;
    snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO meta VALUES('interval_ms', %u)",
             st->o.interval_ms ? st->o.interval_ms : 1000);
    if (gs_store_exec(st, sql, err) < 0)
        return -err->code;
    st->max_t = gs_store_scalar(st->db, "SELECT " GS_SAMPLE_LAST_T, INT64_MIN);
    /* Samples a killed recorder left without their minute's rollup. */
    sqlite3_stmt *q;
    st->roll_from = INT64_MAX;
    if (sqlite3_prepare_v2(st->db, "SELECT t FROM sample WHERE k >= " GS_SAMPLE_K("coalesce((SELECT max(t) FROM rollup)"
                           " + 60000, -140737488355328)") " ORDER BY k LIMIT 1", -1, &q, NULL) != SQLITE_OK)
        return gs_store_sqlerr(err, sqlite3_errcode(st->db), st->path, "reading");
    if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER)
        st->roll_from = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
    return 0;
}

/* ---- binding helpers ------------------------------------------------------------ */
static void bind_opt(sqlite3_stmt *q, int col, bool ok, int64_t v)
{
    if (ok)
        sqlite3_bind_int64(q, col, v);
    else
        sqlite3_bind_null(q, col);
}

static void bind_text(sqlite3_stmt *q, int col, const char *s)
{
    if (s && s[0])
        sqlite3_bind_text(q, col, s, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(q, col);
}

static int step_reset(struct gs_store *st, sqlite3_stmt *q, struct gs_err *err)
{
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return gs_store_sqlerr(err, rc, st->path, "writing");
    return 0;
}

int gs_store_event(struct gs_store *st, int64_t t_ms, int gpu, const char *kind, int64_t code,
                   int64_t value, const char *text, struct gs_err *err)
{
    sqlite3_stmt *q = st->ins_event;
    bool own = !q;
    if (own && sqlite3_prepare_v2(st->db, "INSERT INTO event(t, gpu, kind, code, value, text)"
                                  " VALUES(?,?,?,?,?,?)", -1, &q, NULL) != SQLITE_OK)
        return gs_store_sqlerr(err, sqlite3_errcode(st->db), st->path, "writing an event");
    sqlite3_bind_int64(q, 1, t_ms);
    bind_opt(q, 2, gpu >= 0, gpu);
    sqlite3_bind_text(q, 3, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 4, code);
    sqlite3_bind_int64(q, 5, value);
    bind_text(q, 6, text);
    int rc = step_reset(st, q, err);
    if (own)
        sqlite3_finalize(q);
    return rc;
}

/* ---- GPUs: ids and static facts -------------------------------------------------- */
static int gpu_id(struct gs_store *st, const struct gs_gpu *g, int64_t t_ms, struct gs_err *err)
{
    const struct gs_static *s = &g->st;
    char key[96];
    if (s->uuid[0])
        snprintf(key, sizeof(key), "%s", s->uuid);
    else
        snprintf(key, sizeof(key), "index-%u", s->index);
    for (unsigned i = 0; i < st->ngpus; i++)
        if (!strcmp(st->gpus[i].uuid, key))
            return (int)i;
    if (st->ngpus >= GS_STORE_MAX_GPUS)
        return gs_err_set(err, GS_E_INTERNAL, "more than %d GPUs", GS_STORE_MAX_GPUS);
    sqlite3_stmt *q;
    int rc = sqlite3_prepare_v2(st->db,
        "INSERT INTO gpu(id, uuid, idx, name, pci_bus_id, serial, mem_total_mib, power_limit_default_w,"
        " power_limit_max_w, temp_slowdown_c, temp_shutdown_c, clock_max_sm_mhz, clock_max_mem_mhz,"
        " pcie_max_gen, pcie_max_width, first_t, last_t) VALUES((SELECT CASE WHEN count(*) THEN NULL ELSE ?2 END"
        " FROM gpu WHERE id = ?2), ?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
        "?13,?14,?15,?15) ON CONFLICT(uuid) DO UPDATE SET idx=?2, name=?3, pci_bus_id=?4, last_t=?15,"
        " mem_total_mib=coalesce(?6, mem_total_mib), temp_slowdown_c=coalesce(?9, temp_slowdown_c)"
        " RETURNING id", -1, &q, NULL);
    if (rc != SQLITE_OK)
        return gs_store_sqlerr(err, rc, st->path, "writing GPU facts");
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int(q, 2, (int)s->index);
    bind_text(q, 3, s->name);
    bind_text(q, 4, s->pci_bus_id);
    bind_text(q, 5, s->serial);
    bind_opt(q, 6, gs_sample_has(&g->s, GS_F_MEM_TOTAL), (int64_t)(g->s.mem_total_bytes >> 20));
    bind_opt(q, 7, gs_static_has(s, GS_S_POWER_DEFAULT), s->power_default_limit_mw / 1000);
    bind_opt(q, 8, gs_static_has(s, GS_S_POWER_MINMAX), s->power_max_limit_mw / 1000);
    bind_opt(q, 9, gs_static_has(s, GS_S_TEMP_SLOWDOWN), s->temp_slowdown_c);
    bind_opt(q, 10, gs_static_has(s, GS_S_TEMP_SHUTDOWN), s->temp_shutdown_c);
    bind_opt(q, 11, gs_static_has(s, GS_S_CLOCK_MAX_SM), s->clock_max_sm_mhz);
    bind_opt(q, 12, gs_static_has(s, GS_S_CLOCK_MAX_MEM), s->clock_max_mem_mhz);
    bind_opt(q, 13, gs_static_has(s, GS_S_PCIE_MAX_GEN), s->pcie_max_gen);
    bind_opt(q, 14, gs_static_has(s, GS_S_PCIE_MAX_WIDTH), s->pcie_max_width);
    sqlite3_bind_int64(q, 15, t_ms);
    rc = sqlite3_step(q);
    int id = rc == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
    sqlite3_finalize(q);
    if (id < 0)
        return gs_store_sqlerr(err, rc, st->path, "writing GPU facts");
    if (id >= GS_STORE_MAX_GPUS) { /* the sample key holds the id in 6 bits */
        gs_err_set(err, GS_E_USAGE, "history database %s: GPU %s would be its GPU number %d; a database holds "
                   "%d GPUs at most", st->path, key, id + 1, GS_STORE_MAX_GPUS);
        gs_err_hint(err, "Record into a new file with --db (the GPUs of this one were replaced many times).");
        return -GS_E_USAGE;
    }
    struct gs_store_gpu *sg = &st->gpus[st->ngpus];
    memset(sg, 0, sizeof(*sg));
    snprintf(sg->uuid, sizeof(sg->uuid), "%s", key);
    sg->id = id;
    return (int)st->ngpus++;
}

/* ---- one sample row -------------------------------------------------------------- */
struct colmap { int col; enum gs_field f; };

static int write_sample(struct gs_store *st, int64_t t_ms, const struct gs_gpu *g, struct gs_store_gpu *sg,
                        struct gs_err *err)
{
    const struct gs_sample *s = &g->s;
    sqlite3_stmt *q = st->ins_sample;
    static const struct colmap cols[GS_COL_COUNT] = {
        { GS_COL_UTIL, GS_F_GPU_UTIL }, { GS_COL_MEM_UTIL, GS_F_MEM_UTIL }, { GS_COL_MEM_USED, GS_F_MEM_USED },
        { GS_COL_TEMP, GS_F_TEMP_GPU }, { GS_COL_MEM_TEMP, GS_F_TEMP_MEM }, { GS_COL_POWER, GS_F_POWER },
        { GS_COL_POWER_LIMIT, GS_F_POWER_ENFORCED }, { GS_COL_ENERGY, GS_F_ENERGY },
        { GS_COL_SM_MHZ, GS_F_CLOCK_SM }, { GS_COL_MEM_MHZ, GS_F_CLOCK_MEM }, { GS_COL_THROTTLE, GS_F_THROTTLE },
        { GS_COL_PSTATE, GS_F_PSTATE }, { GS_COL_PCIE_TX, GS_F_PCIE_TX }, { GS_COL_PCIE_RX, GS_F_PCIE_RX },
        { GS_COL_FAN, GS_F_FAN_SPEED },
    };
    int64_t v[GS_COL_COUNT] = {
        s->gpu_util_pct, s->mem_util_pct, (int64_t)(s->mem_used_bytes >> 20), s->temp_gpu_c, s->temp_mem_c,
        (s->power_mw + 50) / 100, (s->power_enforced_limit_mw + 500) / 1000, 0, s->clock_sm_mhz,
        s->clock_mem_mhz, (int64_t)s->throttle_reasons, s->pstate, s->pcie_tx_kbps / 1000,
        s->pcie_rx_kbps / 1000, s->fan_count ? s->fan_speed_pct[0] : 0,
    };
    uint32_t bad = g->state == GS_GPU_LOST ? GS_BAD_LOST : 0;
    bool energy_ok = gs_sample_has(s, GS_F_ENERGY) && sg->energy_known && s->energy_mj >= sg->energy_mj;
    v[GS_COL_ENERGY] = energy_ok ? (int64_t)(s->energy_mj - sg->energy_mj) : 0;
    bool ok[GS_COL_COUNT];
    for (int i = 0; i < GS_COL_COUNT; i++) {
        enum gs_field f = cols[i].f;
        uint8_t status = s->status[f];
        ok[i] = gs_sample_has(s, f) && (i != GS_COL_ENERGY || energy_ok) && (i != GS_COL_FAN || s->fan_count);
        if (!ok[i] && status != GS_ST_OK && status != GS_ST_NOT_SUPPORTED && status != GS_ST_NOT_AVAILABLE &&
            status != GS_ST_NOT_SAMPLED)
            bad |= 1u << i;
    }
    /* The slow readings (sample_state): a new newest sample whose slow readings are those of its
     * GPU's previous one goes into sample_data alone; any other through the view, whose trigger
     * writes the state rows (a change, the first sample, a sample written before newer ones). */
    static const int slow_cols[3] = { GS_COL_POWER_LIMIT, GS_COL_MEM_MHZ, GS_COL_PSTATE };
    int64_t slow[4] = { v[GS_COL_POWER_LIMIT], v[GS_COL_MEM_MHZ], v[GS_COL_PSTATE], bad };
    uint32_t slow_ok = 1u << 3;
    for (int j = 0; j < 3; j++)
        slow_ok |= ok[slow_cols[j]] ? 1u << j : 0;
    bool append = t_ms > st->max_t, same = sg->slow_known && sg->slow_ok == slow_ok;
    for (int j = 0; j < 4 && same; j++)
        same = !(slow_ok & (1u << j)) || sg->slow[j] == slow[j];
    bool data_only = append && same;
    if (data_only)
        q = st->ins_data;
    sqlite3_bind_int64(q, 1, t_ms);
    sqlite3_bind_int(q, 2, sg->id);
    for (int i = 0, col = 3; i < GS_COL_COUNT; i++) {
        bool is_slow = i == GS_COL_POWER_LIMIT || i == GS_COL_MEM_MHZ || i == GS_COL_PSTATE;
        int64_t x = data_only && i == GS_COL_ENERGY && ok[GS_COL_POWER] ? v[i] - v[GS_COL_POWER] * 100 : v[i];
        if (!data_only || !is_slow)
            bind_opt(q, col++, ok[i], x); /* sample_data: the energy as its difference (GS_SAMPLE_ENERGY) */
    }
    if (!data_only)
        sqlite3_bind_int(q, 3 + GS_COL_COUNT, (int)bad);
    memcpy(sg->slow, slow, sizeof(slow));
    sg->slow_ok = slow_ok;
    sg->slow_known = append;
    if (gs_sample_has(s, GS_F_ENERGY)) {
        sg->energy_mj = s->energy_mj;
        sg->energy_known = true;
    }
    return step_reset(st, q, err);
}

/* ---- profiling metrics (GPM): one row per GPU and per MIG GPU instance with a value ---------- */

/* Activity ratios as per mille, rates as kB/s; NULL where there is no value. Nothing if none has one. */
static int write_prof_row(struct gs_store *st, int64_t t_ms, int gpu_id, int gi, const double *v,
                          const uint8_t *status, struct gs_err *err)
{
    sqlite3_stmt *q = st->ins_prof;
    bool any = false;
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        any |= status[k] == GS_ST_OK;
    if (!any)
        return 0;
    sqlite3_bind_int64(q, 1, t_ms);
    sqlite3_bind_int(q, 2, gpu_id);
    sqlite3_bind_int(q, 3, gi);
    for (unsigned k = 0; k < GS_PROF_COUNT; k++) {
        double x = k < GS_PROF_FIRST_RATE ? v[k] * 1000.0 : v[k] / 1000.0;
        bind_opt(q, 4 + (int)k, status[k] == GS_ST_OK, (int64_t)(x + 0.5));
    }
    return step_reset(st, q, err);
}

static int write_prof(struct gs_store *st, int64_t t_ms, const struct gs_gpu *g, struct gs_store_gpu *sg,
                      struct gs_err *err)
{
    uint8_t status[GS_PROF_COUNT];
    uint32_t first[GS_MAX_MIG];
    if (g->state == GS_GPU_LOST)
        return 0;
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        status[k] = g->s.status[GS_F_PROF_FIRST + k];
    if (write_prof_row(st, t_ms, sg->id, -1, g->s.prof, status, err) < 0)
        return -err->code;
    unsigned n = g->s.status[GS_F_MIG_DEVICES] == GS_ST_OK ? gs_gpu_gpu_instances(g, first) : 0;
    for (unsigned i = 0; i < n; i++) {
        const struct gs_mig *m = &g->mig[first[i]];
        if (write_prof_row(st, t_ms, sg->id, (int)m->gpu_instance_id, m->prof, m->prof_status, err) < 0)
            return -err->code;
    }
    return 0;
}

/* ---- events from what changed ----------------------------------------------------- */
static int diff_throttle(struct gs_store *st, int64_t t, const struct gs_sample *s, struct gs_store_gpu *sg,
                         struct gs_err *err)
{
    if (!gs_sample_has(s, GS_F_THROTTLE))
        return 0;
    uint64_t now = s->throttle_reasons, before = sg->throttle_known ? sg->throttle : 0;
    char name[128];
    for (int b = 0; b < 16; b++) {
        uint64_t bit = UINT64_C(1) << b;
        if ((now ^ before) & bit) {
            gs_throttle_str(bit, name, sizeof(name));
            if (gs_store_event(st, t, sg->id, now & bit ? "throttle_on" : "throttle_off", (int64_t)bit, 0,
                               name, err) < 0)
                return -err->code;
        }
    }
    sg->throttle = now;
    sg->throttle_known = true;
    return 0;
}

/* A counter that grew since the previous tick gives an event (kind, delta, new value). */
static int diff_counter(struct gs_store *st, int64_t t, struct gs_store_gpu *sg, int slot, bool has,
                        uint64_t now, uint64_t *prev, const char *kind, struct gs_err *err)
{
    if (!has)
        return 0;
    bool known = sg->health_known & (1u << slot);
    if (known && now != *prev &&
        gs_store_event(st, t, sg->id, kind, (int64_t)(now - *prev), (int64_t)now, NULL, err) < 0)
        return -err->code;
    *prev = now;
    sg->health_known |= 1u << slot;
    return 0;
}

/* Throttle time from the violation counters: "throttle_ns" events (code: enum
 * gs_viol, value: ns since the previous event of that counter, text: its name).
 * Written every 10 s, or at once when a HW limiter moved (rare and what matters),
 * so a power-capped job does not add an event per tick. */
static int diff_violations(struct gs_store *st, int64_t t, const struct gs_sample *s, struct gs_store_gpu *sg,
                           struct gs_err *err)
{
    bool hw = false, any = false;
    for (unsigned i = 0; i < GS_VIOL_COUNT; i++) {
        if (!gs_sample_has(s, GS_F_VIOL_POWER + i))
            continue;
        uint64_t now = s->violation_ns[i];
        if ((sg->viol_known >> i) & 1 && now > sg->viol_prev[i]) {
            sg->viol_acc[i] += now - sg->viol_prev[i];
            hw |= i == GS_VIOL_HW_THERMAL || i == GS_VIOL_HW_POWER_BRAKE;
        }
        any |= sg->viol_acc[i] > 0;
        sg->viol_prev[i] = now; /* a reset (driver reload) restarts from the new value */
        sg->viol_known |= 1u << i;
    }
    if (!any || (!hw && t - sg->viol_flush_t < 10000))
        return 0;
    for (unsigned i = 0; i < GS_VIOL_COUNT; i++) {
        if (!sg->viol_acc[i])
            continue;
        if (gs_store_event(st, t, sg->id, "throttle_ns", i, (int64_t)sg->viol_acc[i], gs_viol_name(i), err) < 0)
            return -err->code;
        sg->viol_acc[i] = 0;
    }
    sg->viol_flush_t = t;
    return 0;
}

static int diff_gpu(struct gs_store *st, int64_t t, const struct gs_gpu *g, struct gs_store_gpu *sg,
                    struct gs_err *err)
{
    const struct gs_sample *s = &g->s;
    if (sg->seen && g->state != sg->state) {
        const char *kind = g->state == GS_GPU_LOST ? "gpu_lost" : g->state == GS_GPU_OK ? "gpu_back" : "gpu_error";
        if (gs_store_event(st, t, sg->id, kind, 0, 0, g->last_error, err) < 0)
            return -err->code;
    } else if (!sg->seen && g->state != GS_GPU_OK) {
        if (gs_store_event(st, t, sg->id, g->state == GS_GPU_LOST ? "gpu_lost" : "gpu_error", 0, 0,
                           g->last_error, err) < 0)
            return -err->code;
    }
    sg->state = g->state;
    sg->seen = true;
    if (diff_throttle(st, t, s, sg, err) < 0 || diff_violations(st, t, s, sg, err) < 0 ||
        diff_counter(st, t, sg, 0, gs_sample_has(s, GS_F_ECC_VOL_CORR), s->ecc_vol_corrected, &sg->ecc_sbe,
                     "ecc_sbe", err) < 0 ||
        diff_counter(st, t, sg, 1, gs_sample_has(s, GS_F_ECC_VOL_UNCORR), s->ecc_vol_uncorrected,
                     &sg->ecc_dbe, "ecc_dbe", err) < 0 ||
        diff_counter(st, t, sg, 2, gs_sample_has(s, GS_F_REMAP_CORR), s->remap_corr_rows, &sg->remap_corr,
                     "remap_corr", err) < 0 ||
        diff_counter(st, t, sg, 3, gs_sample_has(s, GS_F_REMAP_UNCORR), s->remap_uncorr_rows, &sg->remap_unc,
                     "remap_unc", err) < 0 ||
        diff_counter(st, t, sg, 4, gs_sample_has(s, GS_F_RETIRED_SBE) || gs_sample_has(s, GS_F_RETIRED_DBE),
                     (uint64_t)s->retired_sbe_pages + s->retired_dbe_pages, &sg->retired, "retired_pages", err) < 0)
        return -err->code;
    return 0;
}

/* ---- processes -------------------------------------------------------------------- */
static struct gs_store_proc *proc_slot(struct gs_store *st, uint32_t pid, int64_t start_s)
{
    if (st->procs_used * 2 >= st->procs_cap) {
        unsigned ncap = st->procs_cap ? st->procs_cap * 2 : 256;
        struct gs_store_proc *n = calloc(ncap, sizeof(*n)), *old = st->procs;
        if (!n)
            return NULL;
        for (unsigned i = 0; i < st->procs_cap; i++) {
            if (!old[i].id)
                continue;
            unsigned h = (old[i].pid * 2654435761u) & (ncap - 1);
            while (n[h].id)
                h = (h + 1) & (ncap - 1);
            n[h] = old[i];
        }
        free(old);
        st->procs = n;
        st->procs_cap = ncap;
    }
    unsigned h = (pid * 2654435761u) & (st->procs_cap - 1);
    while (st->procs[h].id && !(st->procs[h].pid == pid && st->procs[h].start_s == start_s))
        h = (h + 1) & (st->procs_cap - 1);
    return &st->procs[h];
}

static int proc_new(struct gs_store *st, int64_t t, const char *cmdline, const struct gs_proc *p, int64_t start_s,
                    struct gs_store_proc *sp, struct gs_err *err)
{
    sqlite3_stmt *q = st->ins_proc;
    sqlite3_bind_int64(q, 1, p->pid);
    bind_opt(q, 2, start_s != 0, start_s);
    sqlite3_bind_int64(q, 3, t);
    sqlite3_bind_int64(q, 4, t);
    sqlite3_bind_int64(q, 5, 0);
    bind_opt(q, 6, gs_proc_has(p, GS_P_USER), p->uid);
    bind_text(q, 7, gs_proc_has(p, GS_P_USER) ? p->user : NULL);
    bind_text(q, 8, p->name[0] ? p->name : p->comm);
    bind_text(q, 9, gs_proc_has(p, GS_P_COMM) ? cmdline : NULL);
    bind_text(q, 10, p->container_id);
    bind_text(q, 11, p->pod_uid);
    bind_opt(q, 12, gs_proc_has(p, GS_P_PARENT), p->ppid);
    bind_opt(q, 13, gs_proc_has(p, GS_P_SLURM) && p->slurm_job, p->slurm_job);
    if (step_reset(st, q, err) < 0)
        return -err->code;
    sp->id = sqlite3_last_insert_rowid(st->db);
    sp->pid = p->pid;
    sp->start_s = start_s;
    sp->gpus = sp->gpus_written = 0;
    sp->peak_mib = sp->peak_written = sp->tick_mib = 0;
    st->procs_used++;
    return 0;
}

/* PyTorch's allocator figures (from the Python hook) with the process sample, in MiB. */
static int write_torch(struct gs_store *st, int64_t t, const struct gs_proc *p, int64_t proc_id, int gpuid,
                       struct gs_err *err)
{
    sqlite3_stmt *q = st->ins_torch;
    sqlite3_bind_int64(q, 1, t);
    sqlite3_bind_int64(q, 2, proc_id);
    sqlite3_bind_int(q, 3, gpuid);
    sqlite3_bind_int64(q, 4, (int64_t)(p->torch_allocated_bytes >> 20));
    sqlite3_bind_int64(q, 5, (int64_t)(p->torch_reserved_bytes >> 20));
    sqlite3_bind_int64(q, 6, (int64_t)(p->torch_inactive_split_bytes >> 20));
    sqlite3_bind_int64(q, 7, (int64_t)(p->torch_max_allocated_bytes >> 20));
    sqlite3_bind_int64(q, 8, (int64_t)p->torch_alloc_retries);
    sqlite3_bind_int64(q, 9, (int64_t)p->torch_ooms);
    return step_reset(st, q, err);
}

static int write_proc(struct gs_store *st, int64_t t, const struct gs_gpu *g, const struct gs_proc *p, int gpuid,
                      bool with_procs,
                      struct gs_err *err)
{
    int64_t start_s = gs_proc_has(p, GS_P_START) ? p->start_time : 0;
    struct gs_store_proc *sp = proc_slot(st, p->pid, start_s);
    if (!sp)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (!sp->id && proc_new(st, t, gs_proc_cmdline(&g->text, p), p, start_s, sp, err) < 0)
        return -err->code;
    sp->live = true;
    sp->last_t = t;
    sp->gpus |= 1u << (gpuid & 31);
    if (gs_proc_has(p, GS_P_GPU_MEM))
        sp->tick_mib += p->gpu_mem_bytes >> 20;
    if (!with_procs)
        return 0;
    if (gs_proc_has(p, GS_P_TORCH) && write_torch(st, t, p, sp->id, gpuid, err) < 0)
        return -err->code;
    sqlite3_stmt *q = st->ins_psample;
    sqlite3_bind_int64(q, 1, t);
    sqlite3_bind_int64(q, 2, sp->id);
    sqlite3_bind_int(q, 3, gpuid);
    bind_opt(q, 4, gs_proc_has(p, GS_P_GPU_MEM), (int64_t)(p->gpu_mem_bytes >> 20));
    bind_opt(q, 5, gs_proc_has(p, GS_P_SM_UTIL), p->sm_util_pct);
    bind_opt(q, 6, gs_proc_has(p, GS_P_MEM_UTIL), p->mem_util_pct);
    bind_opt(q, 7, gs_proc_has(p, GS_P_CPU), (int64_t)(p->cpu_pct * 10 + 0.5));
    bind_opt(q, 8, gs_proc_has(p, GS_P_RSS), (int64_t)(p->rss_bytes >> 20));
    return step_reset(st, q, err);
}

/* Processes not listed in this tick ended; GPU sets that grew are written. */
static int sweep_procs(struct gs_store *st, int64_t t, struct gs_err *err)
{
    for (unsigned i = 0; i < st->procs_cap; i++) {
        struct gs_store_proc *sp = &st->procs[i];
        if (!sp->id)
            continue;
        if (sp->live && sp->tick_mib > sp->peak_mib)
            sp->peak_mib = sp->tick_mib;
        sp->tick_mib = 0;
        if (sp->peak_mib > sp->peak_written) { /* the peak of every tick, not of the 5 s samples */
            sqlite3_bind_int64(st->upd_proc_peak, 1, sp->id);
            sqlite3_bind_int64(st->upd_proc_peak, 2, (int64_t)sp->peak_mib);
            if (step_reset(st, st->upd_proc_peak, err) < 0)
                return -err->code;
            sp->peak_written = sp->peak_mib;
        }
        if (sp->live && sp->gpus != sp->gpus_written) {
            sqlite3_bind_int64(st->upd_proc_gpus, 1, sp->id);
            sqlite3_bind_int64(st->upd_proc_gpus, 2, sp->gpus);
            sqlite3_bind_int64(st->upd_proc_gpus, 3, t);
            if (step_reset(st, st->upd_proc_gpus, err) < 0)
                return -err->code;
            sp->gpus_written = sp->gpus;
        }
        if (!sp->live) {
            sqlite3_bind_int64(st->end_proc, 1, sp->id);
            sqlite3_bind_int64(st->end_proc, 2, sp->last_t);
            sqlite3_bind_int64(st->end_proc, 3, t);
            if (step_reset(st, st->end_proc, err) < 0)
                return -err->code;
            sp->id = 0; /* tombstone-free delete: rebuild below keeps probing correct */
            st->procs_used--;
        }
        sp->live = false;
    }
    return 0;
}

/* Deleting from an open-addressing table breaks probe chains: rehash into a
 * new table. 0, or -1 out of memory (the table is then unusable: the tick
 * rolls back, and procs_restore() puts the one from before it back). */
static int procs_rehash(struct gs_store *st)
{
    unsigned cap = st->procs_cap;
    struct gs_store_proc *old = st->procs;
    if (!cap)
        return 0;
    struct gs_store_proc *n = calloc(cap, sizeof(*n));
    if (!n)
        return -1;
    for (unsigned i = 0; i < cap; i++) {
        if (!old[i].id)
            continue;
        unsigned h = (old[i].pid * 2654435761u) & (cap - 1);
        while (n[h].id)
            h = (h + 1) & (cap - 1);
        n[h] = old[i];
    }
    free(old);
    st->procs = n;
    return 0;
}

static int write_events(struct gs_store *st, int64_t t, const struct gs_snapshot *snap, struct gs_err *err)
{
    static const char *const kinds[] = { "event", "xid", "ecc_sbe_event", "ecc_dbe_event", "event" };
    for (uint32_t i = 0; i < snap->nevents && i < GS_MAX_EVENTS; i++) {
        const struct gs_event *e = &snap->events[i];
        int gid = -1;
        for (uint32_t k = 0; k < snap->ngpus; k++)
            if (snap->gpus[k].st.index == e->gpu)
                for (unsigned j = 0; j < st->ngpus; j++)
                    if (!strcmp(st->gpus[j].uuid, snap->gpus[k].st.uuid))
                        gid = st->gpus[j].id;
        const char *kind = e->kind < 5 ? kinds[e->kind] : "event";
        if (gs_store_event(st, st->o.virtual_time ? t : e->time_ms, gid, kind, (int64_t)e->data, 0, NULL, err) < 0)
            return -err->code;
    }
    if (snap->events_dropped &&
        gs_store_event(st, t, -1, "events_dropped", snap->events_dropped, 0, NULL, err) < 0)
        return -err->code;
    return 0;
}

static int write_tick_body(struct gs_store *st, int64_t t, const struct gs_snapshot *snap, bool with_procs,
                           struct gs_err *err)
{
    bool ended = false;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        int k = gpu_id(st, g, t, err);
        if (k < 0)
            return k;
        struct gs_store_gpu *sg = &st->gpus[k];
        if (diff_gpu(st, t, g, sg, err) < 0 || write_sample(st, t, g, sg, err) < 0 ||
            write_prof(st, t, g, sg, err) < 0)
            return -err->code;
        for (uint32_t p = 0; p < g->nprocs; p++)
            if (write_proc(st, t, g, &g->procs[p], sg->id, with_procs, err) < 0)
                return -err->code;
    }
    if (write_events(st, t, snap, err) < 0)
        return -err->code;
    unsigned before = st->procs_used;
    if (sweep_procs(st, t, err) < 0)
        return -err->code;
    ended = st->procs_used != before;
    if (ended && procs_rehash(st) < 0)
        return gs_err_set(err, GS_E_NOMEM, "out of memory for the process table");
    return 0;
}

/* Keep a copy of the process table before a tick: if the tick's transaction
 * rolls back, the rows it inserted are gone but those of earlier ticks are not. */
static int procs_save(struct gs_store *st, struct gs_err *err)
{
    if (st->saved_cap != st->procs_cap) {
        struct gs_store_proc *n = realloc(st->procs_saved, (st->procs_cap ? st->procs_cap : 1) * sizeof(*n));
        if (!n)
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        st->procs_saved = n;
        st->saved_cap = st->procs_cap;
    }
    if (st->procs_cap)
        memcpy(st->procs_saved, st->procs, st->procs_cap * sizeof(*st->procs));
    st->saved_used = st->procs_used;
    return 0;
}

/* The tick rolled back: processes it inserted are forgotten (the next tick
 * inserts them again), those it ended are open again, GPU sets unwritten. */
static void procs_restore(struct gs_store *st)
{
    struct gs_store_proc *t = st->procs;
    unsigned cap = st->procs_cap;
    st->procs = st->procs_saved;
    st->procs_cap = st->saved_cap;
    st->procs_used = st->saved_used;
    st->procs_saved = t;
    st->saved_cap = cap;
    if (!st->procs_cap) {
        free(st->procs);
        st->procs = NULL;
    }
}

/* Every minute that completed since the last roll becomes rollup rows, in a
 * transaction of its own (~1 ms for 8 GPUs x 64 processes); a failure is
 * retried at the next tick (the tick itself is stored). */
static void roll_minutes(struct gs_store *st, int64_t t_ms)
{
    int64_t minute = t_ms - ((t_ms % 60000) + 60000) % 60000;
    struct gs_err err = { 0 };
    if (st->roll_from > t_ms)
        st->roll_from = t_ms;
    if (st->roll_from >= minute)
        return;
    int64_t from = st->roll_from - ((st->roll_from % 60000) + 60000) % 60000;
    if (gs_store_exec(st, "BEGIN IMMEDIATE", &err) < 0)
        return;
    if (gs_store_rollup_range(st, from, minute, &err) < 0 || gs_store_exec(st, "COMMIT", &err) < 0) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return;
    }
    st->roll_from = t_ms;
}

/* Test builds only (gs_store_debug_full): a tick that needs pages the capped file cannot give. */
static int debug_fill(struct gs_store *st, struct gs_err *err)
{
#ifdef GS_TESTING
    if (st->debug_full)
        return gs_store_exec(st, "INSERT OR REPLACE INTO meta VALUES('fault', zeroblob(262144))", err);
#else
    (void)st;
    (void)err;
#endif
    return 0;
}

int gs_store_write_tick(struct gs_store *st, int64_t t_ms, const struct gs_snapshot *snap, bool with_procs,
                        struct gs_err *err)
{
    /* The in-memory diff state must not move on when the transaction fails. */
    struct gs_store_gpu saved[GS_STORE_MAX_GPUS];
    unsigned saved_n = st->ngpus;
    memcpy(saved, st->gpus, sizeof(saved));
    if (procs_save(st, err) < 0)
        return -err->code;
    if (gs_store_exec(st, "BEGIN IMMEDIATE", err) < 0)
        return -err->code;
    if (write_tick_body(st, t_ms, snap, with_procs, err) < 0 || debug_fill(st, err) < 0 ||
        gs_store_exec(st, "COMMIT", err) < 0) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        memcpy(st->gpus, saved, sizeof(saved));
        st->ngpus = saved_n;
        procs_restore(st);
        return -err->code;
    }
    st->last_t = t_ms;
    if (t_ms > st->max_t)
        st->max_t = t_ms;
    roll_minutes(st, t_ms);
    return 0;
}

int gs_store_note_gap(struct gs_store *st, int64_t t_ms, uint64_t ticks_lost, const char *why, struct gs_err *err)
{
    return gs_store_event(st, t_ms, -1, "gap", 0, (int64_t)ticks_lost, why, err);
}

int gs_store_finish(struct gs_store *st, int64_t t_ms, struct gs_err *err)
{
    if (gs_store_exec(st, "BEGIN IMMEDIATE", err) < 0)
        return -err->code;
    for (unsigned i = 0; i < st->procs_cap; i++) {
        struct gs_store_proc *sp = &st->procs[i];
        if (!sp->id)
            continue;
        sqlite3_bind_int64(st->end_proc, 1, sp->id);
        sqlite3_bind_int64(st->end_proc, 2, sp->last_t);
        sqlite3_bind_int64(st->end_proc, 3, t_ms);
        if (step_reset(st, st->end_proc, err) < 0)
            goto rollback;
    }
    if (gs_store_event(st, t_ms, -1, "recorder_stop", 0, 0, NULL, err) < 0)
        goto rollback;
    if (gs_store_exec(st, "COMMIT", err) < 0)
        goto rollback;
    sqlite3_exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
    return 0;
rollback:
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
    return -err->code;
}
