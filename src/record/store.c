/* SPDX-License-Identifier: MIT */
/*
 * store.c - opening the history database: default path (made 0600 in 0700
 * directories), the recorder lock (one writer per file, by its identity),
 * pragmas (WAL, synchronous=NORMAL), the versioned schema and its migrations,
 * and SQLite errors turned into sentences that name the file and what to do.
 */
#include "record/store_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/paths.h"

/* ---- schema: migrations[i] brings a database from version i to i + 1 ---------- */
/* The series view's body: raw samples, then minute rollups in the same columns
 * (the first schema's view, and migration 7's, which bounds the rollups by the
 * first raw sample; one text so that the two cannot drift). */
#define SERIES_VIEW_BODY                                                                                \
    " SELECT t, gpu, 1 AS n, util_pct, util_pct AS util_max, mem_util_pct, mem_used_mib," \
    " mem_used_mib AS mem_used_max_mib, temp_c, temp_c AS temp_max_c, mem_temp_c, pstate, power_dw," \
    " power_dw AS power_max_dw, power_limit_w, energy_mj, sm_mhz, mem_mhz, throttle," \
    " pcie_tx_mbs, pcie_rx_mbs, fan_pct, bad FROM sample" \
    " UNION ALL SELECT t, gpu, n, util_avg, util_max, mem_util_avg, mem_used_avg_mib," \
    " mem_used_max_mib, temp_avg_c, temp_max_c, mem_temp_max_c, NULL, power_avg_dw, power_max_dw, power_limit_w," \
    " energy_mj, sm_avg_mhz, mem_avg_mhz, throttle_or, pcie_tx_avg_mbs, pcie_rx_avg_mbs," \
    " fan_avg_pct, 0 FROM rollup"

static const char *const migrations[] = {
    /* 0 -> 1: the first schema */
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
    "CREATE TABLE gpu(id INTEGER PRIMARY KEY, uuid TEXT UNIQUE NOT NULL, idx INTEGER, name TEXT,"
    " pci_bus_id TEXT, serial TEXT, mem_total_mib INTEGER, power_limit_default_w INTEGER,"
    " power_limit_max_w INTEGER, temp_slowdown_c INTEGER, temp_shutdown_c INTEGER,"
    " clock_max_sm_mhz INTEGER, clock_max_mem_mhz INTEGER, pcie_max_gen INTEGER,"
    " pcie_max_width INTEGER, first_t INTEGER, last_t INTEGER);"
    "CREATE TABLE sample(t INTEGER NOT NULL, gpu INTEGER NOT NULL, util_pct, mem_util_pct,"
    " mem_used_mib, temp_c, mem_temp_c, power_dw, power_limit_w, energy_mj, sm_mhz, mem_mhz,"
    " throttle, pstate, pcie_tx_mbs, pcie_rx_mbs, fan_pct, bad INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY(t, gpu)) WITHOUT ROWID;"
    "CREATE TABLE rollup(t INTEGER NOT NULL, gpu INTEGER NOT NULL, n INTEGER NOT NULL,"
    " util_min, util_avg, util_max, mem_util_avg, mem_used_min_mib, mem_used_avg_mib,"
    " mem_used_max_mib, temp_min_c, temp_avg_c, temp_max_c, mem_temp_max_c, power_min_dw,"
    " power_avg_dw, power_max_dw, power_limit_w, energy_mj, sm_min_mhz, sm_avg_mhz, sm_max_mhz,"
    " mem_avg_mhz, throttle_or, throttled_n, pcie_tx_avg_mbs, pcie_rx_avg_mbs, fan_avg_pct,"
    " PRIMARY KEY(t, gpu)) WITHOUT ROWID;"
    "CREATE TABLE proc(id INTEGER PRIMARY KEY, pid INTEGER NOT NULL, start_s INTEGER,"
    " first_t INTEGER NOT NULL, last_t INTEGER, end_t INTEGER, gpus INTEGER, uid INTEGER,"
    " user TEXT, name TEXT, cmdline TEXT, container_id TEXT, pod_uid TEXT, ppid INTEGER);"
    "CREATE INDEX proc_time ON proc(first_t);"
    "CREATE TABLE proc_sample(t INTEGER NOT NULL, proc INTEGER NOT NULL, gpu INTEGER NOT NULL,"
    " gpu_mem_mib, sm_pct, mem_util_pct, cpu_dpct, rss_mib, PRIMARY KEY(t, proc, gpu)) WITHOUT ROWID;"
    "CREATE TABLE event(id INTEGER PRIMARY KEY, t INTEGER NOT NULL, gpu INTEGER, kind TEXT NOT NULL,"
    " code INTEGER, value INTEGER, text TEXT);"
    "CREATE INDEX event_time ON event(t);"
    "CREATE TABLE baseline(name TEXT NOT NULL, gpu INTEGER NOT NULL, metric TEXT NOT NULL,"
    " n INTEGER, mean REAL, p5 REAL, p50 REAL, p95 REAL, min REAL, max REAL, created_t INTEGER,"
    " from_t INTEGER, to_t INTEGER, PRIMARY KEY(name, gpu, metric)) WITHOUT ROWID;"
    "CREATE VIEW series AS"
    SERIES_VIEW_BODY ";",
    /* 1 -> 2: rollups of every complete minute, written as the recorder goes (not only
     * when samples age out), so reports over long ranges read minutes; `series` takes a
     * rollup only where its samples are gone. Per-process rollups. Per-GPU event lookups. */
    "CREATE TABLE proc_rollup(t INTEGER NOT NULL, proc INTEGER NOT NULL, gpu INTEGER NOT NULL,"
    " n INTEGER NOT NULL, gpu_mem_min_mib, gpu_mem_avg_mib, gpu_mem_max_mib, sm_min_pct, sm_avg_pct,"
    " sm_max_pct, mem_util_avg_pct, cpu_min_dpct, cpu_avg_dpct, cpu_max_dpct, rss_min_mib, rss_avg_mib,"
    " rss_max_mib, PRIMARY KEY(t, proc, gpu)) WITHOUT ROWID;"
    "CREATE INDEX event_gpu ON event(gpu, kind, t);"
    "INSERT OR REPLACE INTO rollup " GS_ROLLUP_SELECT GS_ROLLUP_GROUP ";"
    "INSERT OR REPLACE INTO proc_rollup " GS_PROC_ROLLUP_SELECT GS_PROC_ROLLUP_GROUP ";"
    "DROP VIEW series;"
    "CREATE VIEW series AS"
    " SELECT t, gpu, 1 AS n, util_pct, util_pct AS util_max, mem_util_pct, mem_used_mib,"
    " mem_used_mib AS mem_used_max_mib, temp_c, temp_c AS temp_max_c, mem_temp_c, pstate, power_dw,"
    " power_dw AS power_max_dw, power_limit_w, energy_mj, sm_mhz, mem_mhz, throttle,"
    " pcie_tx_mbs, pcie_rx_mbs, fan_pct, bad FROM sample"
    " UNION ALL SELECT t, gpu, n, util_avg, util_max, mem_util_avg, mem_used_avg_mib,"
    " mem_used_max_mib, temp_avg_c, temp_max_c, mem_temp_max_c, NULL, power_avg_dw, power_max_dw, power_limit_w,"
    " energy_mj, sm_avg_mhz, mem_avg_mhz, throttle_or, pcie_tx_avg_mbs, pcie_rx_avg_mbs,"
    " fan_avg_pct, 0 FROM rollup WHERE t <= (SELECT coalesce(min(t), 9223372036854000000) FROM sample) - 60000;"
    "CREATE VIEW proc_series AS"
    " SELECT t, proc, gpu, 1 AS n, gpu_mem_mib, gpu_mem_mib AS gpu_mem_max_mib, sm_pct, mem_util_pct, cpu_dpct,"
    " rss_mib FROM proc_sample"
    " UNION ALL SELECT t, proc, gpu, n, gpu_mem_avg_mib, gpu_mem_max_mib, sm_avg_pct, mem_util_avg_pct,"
    " cpu_avg_dpct, rss_avg_mib FROM proc_rollup"
    " WHERE t <= (SELECT coalesce(min(t), 9223372036854000000) FROM proc_sample) - 60000;",
    /* 2 -> 3: PyTorch's caching allocator per process and GPU, from gpuscope's Python hook
     * (written with the process samples, kept as long as the rollups); each process's peak
     * GPU memory over every tick (the process samples are every 5 s) */
    "CREATE TABLE proc_torch(t INTEGER NOT NULL, proc INTEGER NOT NULL, gpu INTEGER NOT NULL,"
    " allocated_mib, reserved_mib, inactive_split_mib, max_allocated_mib, alloc_retries, ooms,"
    " PRIMARY KEY(t, proc, gpu)) WITHOUT ROWID;"
    "ALTER TABLE proc ADD COLUMN gpu_mem_peak_mib INTEGER;",
    /* 3 -> 4: profiling metrics (NVML GPM): per GPU (gi -1) and per MIG GPU instance, activity in
     * per mille (0-1000) and throughput in kB/s, NULL = no value; rows only where a value exists */
    "CREATE TABLE prof_sample(t INTEGER NOT NULL, gpu INTEGER NOT NULL, gi INTEGER NOT NULL,"
    " gr_pm, sm_pm, occupancy_pm, tensor_pm, dram_pm, fp64_pm, fp32_pm, fp16_pm, pcie_tx_kbs, pcie_rx_kbs,"
    " nvlink_tx_kbs, nvlink_rx_kbs, PRIMARY KEY(t, gpu, gi)) WITHOUT ROWID;",
    /* 4 -> 5: HPC jobs (docs/SLURM.md): each process's Slurm job (from its cgroup, for its
     * lifetime: a process never changes job), and the jobs the Slurm prolog announced, with
     * their GPUs (indexes, comma-separated), span, and the summary the epilog wrote */
    "ALTER TABLE proc ADD COLUMN slurm_job INTEGER;"
    "CREATE INDEX proc_job ON proc(slurm_job) WHERE slurm_job IS NOT NULL;"
    "CREATE TABLE job(id TEXT PRIMARY KEY, scheduler TEXT NOT NULL, user TEXT, uid INTEGER, gpus TEXT,"
    " start_t INTEGER NOT NULL, end_t INTEGER, summary TEXT) WITHOUT ROWID;"
    "CREATE INDEX job_time ON job(start_t);",
    /* 5 -> 6: remote write (record --remote-write): per URL, the last sample the receiver
     * acknowledged or refused for good, (sent_t, sent_gpu) in the sample table's key order,
     * and the last success and error, for `record --status` */
    "CREATE TABLE remote_write(url TEXT PRIMARY KEY, sent_t INTEGER NOT NULL, sent_gpu INTEGER NOT NULL,"
    " ok_t INTEGER, err_t INTEGER, err TEXT, sent_n INTEGER NOT NULL DEFAULT 0,"
    " dropped_n INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;",
    /* 6 -> 7: the sample table keyed by one integer (store_migrate_sample below) */
    NULL,
    /* 7 -> 8: the readings that rarely change stored only when they change (store_migrate_state below) */
    NULL,
};
#define NMIGRATIONS (int)(sizeof(migrations) / sizeof(migrations[0]))
_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == GS_STORE_SCHEMA_VERSION,
               "one migration per schema version");

#define SAMPLE_COLS "util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw, power_limit_w," \
    " energy_mj, sm_mhz, mem_mhz, throttle, pstate, pcie_tx_mbs, pcie_rx_mbs, fan_pct, bad"

/* 6 -> 7: the sample table as a rowid table keyed by k = (t - base) * 64 + gpu,
 * with t and gpu virtual columns (computed from k, no space on disk). The key
 * is a 5-byte varint while t - base < 6.2 days, 6 bytes up to 795 days, then 7
 * (t and gpu took 7 to 9 bytes); rows are appended in key order, so leaf pages
 * are filled (the WITHOUT ROWID table's splits left 12 % unused). Values, NULLs
 * and the `bad` mask are copied as they are. base: the oldest sample, else the
 * first sample to come (the recorder's start). */
static int store_migrate_sample(struct gs_store *st, struct gs_err *err)
{
    int64_t base = gs_store_scalar(st->db, "SELECT min(t) FROM sample", INT64_MIN);
    int64_t hint = st->o.first_t_ms ? st->o.first_t_ms : gs_now_ms();
    if (base == INT64_MIN || hint < base)
        base = hint;
    char *sql = sqlite3_mprintf(
        "DROP VIEW series;"
        "CREATE TABLE sample_v7(k INTEGER PRIMARY KEY, util_pct INTEGER, mem_util_pct INTEGER, mem_used_mib INTEGER,"
        " temp_c INTEGER, mem_temp_c INTEGER, power_dw INTEGER, power_limit_w INTEGER, energy_mj INTEGER,"
        " sm_mhz INTEGER, mem_mhz INTEGER, throttle INTEGER, pstate INTEGER, pcie_tx_mbs INTEGER,"
        " pcie_rx_mbs INTEGER, fan_pct INTEGER, bad INTEGER NOT NULL DEFAULT 0,"
        " t INTEGER AS (%lld + (k >> 6)) VIRTUAL, gpu INTEGER AS (k & 63) VIRTUAL);"
        "INSERT INTO sample_v7(k, " SAMPLE_COLS ") SELECT (t - %lld) * 64 + gpu, " SAMPLE_COLS
        " FROM sample ORDER BY t, gpu;"
        "DROP TABLE sample; ALTER TABLE sample_v7 RENAME TO sample;"
        "INSERT OR REPLACE INTO meta VALUES('sample_base_ms', %lld);"
        "CREATE VIEW series AS"
        SERIES_VIEW_BODY " WHERE t <= coalesce(" GS_SAMPLE_FIRST_T ", 9223372036854000000) - 60000;",
        (long long)base, (long long)base, (long long)base);
    if (!sql)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    int rc = gs_store_exec(st, sql, err);
    sqlite3_free(sql);
    return rc;
}

/* 7 -> 8 (docs/RECORD.md): `sample` becomes a view of two tables. sample_data
 * holds the readings that change from tick to tick, keyed as before (the
 * energy as its difference from power x 1 s, GS_SAMPLE_ENERGY in store.h);
 * sample_state holds power_limit_w, mem_mhz, pstate and bad per GPU
 * from the tick they took their values on (a row only when one of them
 * changes). The view joins each sample to the state in effect at its time
 * (the latest state row at or before it: a primary-key search), so readers
 * and `sqlite3` users select the same columns, values and NULLs as before.
 * INSERT and DELETE on the view go through its triggers (the recorder's
 * INSERT OR REPLACE among them); a row written before later rows of its GPU
 * (a clock stepped back) leaves their state as it was: the state in effect
 * there is repeated 1 ms after the new row. */
#define DATA_COLS "util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw, energy_dev_mj, sm_mhz," \
    " throttle, pcie_tx_mbs, pcie_rx_mbs, fan_pct"
#define STATE_COLS "power_limit_w, mem_mhz, pstate, bad"
/* energy_dev_mj from a row's energy_mj and power_dw (GS_SAMPLE_ENERGY reads it back) */
#define ENERGY_DEV(e, p) "(CASE WHEN " p " IS NULL THEN " e " ELSE " e " - " p " * 100 END)"
#define STATE_AT(col) "(SELECT " col " FROM sample_state s WHERE s.gpu = d.gpu AND s.t <= d.t" \
    " ORDER BY s.t DESC LIMIT 1)"
#define TRG_T "(SELECT t FROM sample_data WHERE k = NEW.k)"
#define TRG_G "(NEW.k & 63)"
#define TRG_STATE_BEFORE "(SELECT * FROM sample_state WHERE gpu = " TRG_G " AND t <= " TRG_T " ORDER BY t DESC LIMIT 1)"
#define TRG_SAME "power_limit_w IS NEW.power_limit_w AND mem_mhz IS NEW.mem_mhz AND pstate IS NEW.pstate" \
    " AND bad IS coalesce(NEW.bad, 0)"
static const char sample_view_v8[] =
    "CREATE VIEW sample AS SELECT k, util_pct, mem_util_pct, mem_used_mib, temp_c, mem_temp_c, power_dw,"
    " " STATE_AT("power_limit_w") " AS power_limit_w, " GS_SAMPLE_ENERGY " AS energy_mj, sm_mhz,"
    " " STATE_AT("mem_mhz") " AS mem_mhz, throttle, " STATE_AT("pstate") " AS pstate, pcie_tx_mbs, pcie_rx_mbs,"
    " fan_pct, " STATE_AT("bad") " AS bad, t, gpu FROM sample_data d;"
    "CREATE TRIGGER sample_insert INSTEAD OF INSERT ON sample BEGIN"
    " INSERT INTO sample_data(k, " DATA_COLS ") VALUES(NEW.k, NEW.util_pct, NEW.mem_util_pct, NEW.mem_used_mib,"
    " NEW.temp_c, NEW.mem_temp_c, NEW.power_dw, " ENERGY_DEV("NEW.energy_mj", "NEW.power_dw") ", NEW.sm_mhz,"
    " NEW.throttle, NEW.pcie_tx_mbs, NEW.pcie_rx_mbs, NEW.fan_pct);"
    " INSERT INTO sample_state SELECT gpu, " TRG_T " + 1, " STATE_COLS " FROM " TRG_STATE_BEFORE
    " WHERE NOT (" TRG_SAME ") AND EXISTS (SELECT 1 FROM sample_data WHERE k > NEW.k AND (k & 63) = " TRG_G ")"
    " AND NOT EXISTS (SELECT 1 FROM sample_state WHERE gpu = " TRG_G " AND t = " TRG_T " + 1);"
    " DELETE FROM sample_state WHERE gpu = " TRG_G " AND t = " TRG_T " AND NOT (" TRG_SAME ");"
    " INSERT INTO sample_state SELECT " TRG_G ", " TRG_T ", NEW.power_limit_w, NEW.mem_mhz, NEW.pstate,"
    " coalesce(NEW.bad, 0) WHERE NOT EXISTS (SELECT 1 FROM " TRG_STATE_BEFORE " WHERE " TRG_SAME ");"
    " END;"
    "CREATE TRIGGER sample_delete INSTEAD OF DELETE ON sample BEGIN"
    " DELETE FROM sample_data WHERE k = OLD.k; END;";

static int store_migrate_state(struct gs_store *st, struct gs_err *err)
{
    int64_t base = gs_store_scalar(st->db, "SELECT value FROM meta WHERE key = 'sample_base_ms'", INT64_MIN);
    if (base == INT64_MIN)
        return gs_err_set(err, GS_E_IO, "history database %s: no sample_base_ms in meta", st->path);
    char *sql = sqlite3_mprintf(
        "DROP VIEW series;"
        "CREATE TABLE sample_data(k INTEGER PRIMARY KEY, util_pct INTEGER, mem_util_pct INTEGER,"
        " mem_used_mib INTEGER, temp_c INTEGER, mem_temp_c INTEGER, power_dw INTEGER, energy_dev_mj INTEGER,"
        " sm_mhz INTEGER, throttle INTEGER, pcie_tx_mbs INTEGER, pcie_rx_mbs INTEGER, fan_pct INTEGER,"
        " t INTEGER AS (%lld + (k >> 6)) VIRTUAL, gpu INTEGER AS (k & 63) VIRTUAL);"
        "CREATE TABLE sample_state(gpu INTEGER NOT NULL, t INTEGER NOT NULL, power_limit_w INTEGER,"
        " mem_mhz INTEGER, pstate INTEGER, bad INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(gpu, t)) WITHOUT ROWID;"
        "INSERT INTO sample_data(k, " DATA_COLS ") SELECT k, util_pct, mem_util_pct, mem_used_mib, temp_c,"
        " mem_temp_c, power_dw, " ENERGY_DEV("energy_mj", "power_dw") ", sm_mhz, throttle, pcie_tx_mbs, pcie_rx_mbs,"
        " fan_pct FROM sample ORDER BY k;"
        "INSERT INTO sample_state SELECT gpu, t, " STATE_COLS " FROM (SELECT gpu, t, " STATE_COLS ","
        " lag(k) OVER w AS pk, lag(power_limit_w) OVER w AS a, lag(mem_mhz) OVER w AS b, lag(pstate) OVER w AS c,"
        " lag(bad) OVER w AS e FROM sample WINDOW w AS (PARTITION BY gpu ORDER BY k))"
        " WHERE pk IS NULL OR a IS NOT power_limit_w OR b IS NOT mem_mhz OR c IS NOT pstate OR e IS NOT bad"
        " ORDER BY gpu, t;"
        "DROP TABLE sample;"
        "%s"
        "CREATE VIEW series AS"
        SERIES_VIEW_BODY " WHERE t <= coalesce(" GS_SAMPLE_FIRST_T ", 9223372036854000000) - 60000;",
        (long long)base, sample_view_v8);
    if (!sql)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    int rc = gs_store_exec(st, sql, err);
    sqlite3_free(sql);
    return rc;
}

int64_t gs_store_scalar(sqlite3 *db, const char *sql, int64_t none)
{
    sqlite3_stmt *q;
    int64_t v = none;
    if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_type(q, 0) == SQLITE_INTEGER)
            v = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    return v;
}

int gs_store_sqlerr(struct gs_err *err, int rc, const char *path, const char *doing)
{
    int prim = rc & 0xff;
    const char *what = sqlite3_errstr(rc);
    gs_err_set(err, prim == SQLITE_READONLY || prim == SQLITE_PERM || prim == SQLITE_CANTOPEN
                        ? GS_E_PERMISSION : GS_E_IO,
               "history database %s: %s: %s", path, doing, what);
    switch (prim) {
    case SQLITE_FULL:
        gs_err_hint(err, "The disk (or the size cap) is full. Free space on that filesystem, or lower "
                         "--retention / --max-size; recording resumes by itself.");
        break;
    case SQLITE_READONLY: case SQLITE_PERM: case SQLITE_CANTOPEN:
        gs_err_hint(err, "Make the file and its directory writable by this user (the -wal and -shm "
                         "files too), or choose another file with --db.");
        break;
    case SQLITE_BUSY: case SQLITE_LOCKED:
        gs_err_hint(err, "Another program holds a write lock on it (a long `sqlite3` session?); "
                         "close it. gpuscope retries.");
        break;
    case SQLITE_CORRUPT: case SQLITE_NOTADB:
        gs_err_hint(err, "The file is damaged or not a gpuscope database. Move it aside "
                         "(mv %s %s.bad) and gpuscope starts a new one.", path, path);
        break;
    default:
        gs_err_hint(err, "Check the filesystem holding the file (dmesg, df).");
    }
    return -err->code;
}

int gs_store_exec(struct gs_store *st, const char *sql, struct gs_err *err)
{
    int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        gs_store_sqlerr(err, rc, st->path, "writing");
        snprintf(err->msg + strlen(err->msg), sizeof(err->msg) - strlen(err->msg), " (%s)",
                 sqlite3_errmsg(st->db));
        return -err->code;
    }
    return 0;
}

int gs_store_default_path(char *buf, size_t len)
{
    return gs_path_history_db(buf, len); /* one decision for every reader (core/paths.h) */
}

/* mkdir -p of the directory holding path; directories it makes are 0700
 * (the database holds command lines). */
static void mkdir_parents(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    }
    mkdir(dir, 0700);
}

/* Who holds a flock on the file (dev, ino): its PID from /proc/locks
 * ("1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"), 0 when unknown. */
static long store_lock_holder(dev_t dev, ino_t ino)
{
    FILE *f = fopen("/proc/locks", "re");
    char line[256];
    long pid = 0;
    if (!f)
        return 0;
    while (!pid && fgets(line, sizeof(line), f)) {
        char type[16];
        long p;
        unsigned maj, min;
        unsigned long long i;
        if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%llu", type, &p, &maj, &min, &i) == 5 &&
            !strcmp(type, "FLOCK") && maj == major(dev) && min == minor(dev) && i == (unsigned long long)ino)
            pid = p;
    }
    fclose(f);
    return pid;
}

/* A database others can read holds their command lines too: say so (the mode
 * of a file the operator made is theirs to choose; gpuscope makes it 0600). */
static void store_warn_mode(const struct gs_store *st, const struct stat *sb)
{
    if (sb->st_mode & S_IROTH)
        fprintf(stderr, "gpuscope record: warning: %s is readable by every user, and it holds the command lines "
                        "of GPU processes: chmod o-r %s (and its -wal and -shm files)\n",
                st->path, st->path);
}

/* The recorder lock: flock(2) on the database file itself, so that every name
 * it has (symlinks, hard links, relative paths) shares the one lock; it dies
 * with the process. The file is created 0600 when absent (SQLite gives its
 * -wal and -shm files the same mode). The descriptor stays open until after
 * SQLite closes the database: closing another descriptor of the file would
 * drop SQLite's own POSIX locks. */
static int store_lock(struct gs_store *st, struct gs_err *err)
{
    struct stat sb;
    int fd = open(st->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || fstat(fd, &sb) < 0) {
        gs_err_set(err, GS_E_PERMISSION, "history database %s: cannot open it: %s", st->path, strerror(errno));
        gs_err_hint(err, "Make the file and its directory writable by this user (the -wal and -shm "
                         "files too), or choose another file with --db.");
        if (fd >= 0)
            close(fd);
        return -GS_E_PERMISSION;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return gs_err_set(err, GS_E_USAGE, "history database %s is not a regular file", st->path);
    }
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        long pid = store_lock_holder(sb.st_dev, sb.st_ino);
        close(fd);
        if (pid > 0)
            gs_err_set(err, GS_E_USAGE, "another gpuscope record (PID %ld) is already recording into %s", pid,
                       st->path);
        else
            gs_err_set(err, GS_E_USAGE, "another gpuscope record is already recording into %s", st->path);
        gs_err_hint(err, "Stop it first, or record into another file with --db (a symlink or hard link to the "
                         "same file is the same database).");
        return -GS_E_USAGE;
    }
    store_warn_mode(st, &sb);
    st->lock_fd = fd;
    return 0;
}

static int user_version(struct gs_store *st)
{
    sqlite3_stmt *q;
    int v = -1;
    if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW)
            v = sqlite3_column_int(q, 0);
        sqlite3_finalize(q);
    }
    return v;
}

/* Bring the schema to GS_STORE_SCHEMA_VERSION, one transaction per step. */
int gs_store_schema(struct gs_store *st, struct gs_err *err)
{
    int v = user_version(st);
    char sql[256];
    if (v < 0)
        return gs_store_sqlerr(err, sqlite3_errcode(st->db), st->path, "reading the schema version");
    if (v > GS_STORE_SCHEMA_VERSION)
        return gs_err_set(err, GS_E_USAGE, "history database %s has schema %d, newer than this "
                          "gpuscope knows (%d): upgrade gpuscope", st->path, v, GS_STORE_SCHEMA_VERSION);
    if (v == GS_STORE_SCHEMA_VERSION)
        return 0;
    if (st->o.readonly)
        return gs_err_set(err, GS_E_IO, "history database %s is empty or old (schema %d); run "
                          "`gpuscope record --db %s` first", st->path, v, st->path);
    for (; v < NMIGRATIONS; v++) {
        if (gs_store_exec(st, "BEGIN IMMEDIATE", err) < 0)
            return -err->code;
        snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS schema_migration(version INTEGER PRIMARY KEY,"
                 " applied_t INTEGER); INSERT INTO schema_migration VALUES(%d, %lld); PRAGMA user_version=%d;",
                 v + 1, (long long)gs_now_ms(), v + 1);
        int rc = migrations[v] ? gs_store_exec(st, migrations[v], err)
                 : v == 6 ? store_migrate_sample(st, err) : store_migrate_state(st, err);
        if (rc < 0 ||
            gs_store_exec(st, sql, err) < 0) {
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            return -err->code;
        }
        if (gs_store_exec(st, "COMMIT", err) < 0)
            return -err->code;
    }
    return 0;
}

static int store_pragmas(struct gs_store *st, struct gs_err *err)
{
    sqlite3_busy_timeout(st->db, st->o.writer ? 200 : 2000);
    if (st->o.readonly)
        return 0;
    /* auto_vacuum must precede the first table; harmless afterwards. */
    if (gs_store_exec(st, "PRAGMA auto_vacuum=INCREMENTAL", err) < 0)
        return -err->code;
    return gs_store_exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                             "PRAGMA journal_size_limit=8388608; PRAGMA wal_autocheckpoint=1000;"
                             "PRAGMA cache_size=-2000; PRAGMA foreign_keys=OFF", err);
}

int gs_store_open(struct gs_store **out, const struct gs_store_opts *o, struct gs_err *err)
{
    struct gs_store *st = calloc(1, sizeof(*st));
    if (!st)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    st->o = *o;
    st->lock_fd = -1;
    if (!st->o.keep_full_ms)
        st->o.keep_full_ms = GS_STORE_KEEP_FULL_MS;
    if (!st->o.keep_rollup_ms)
        st->o.keep_rollup_ms = GS_STORE_KEEP_ROLLUP_MS;
    snprintf(st->path, sizeof(st->path), "%s", o->path);
    bool mem = !strcmp(o->path, ":memory:");
    if (!mem && !o->readonly)
        mkdir_parents(st->path);
    if (!mem && o->readonly && access(st->path, F_OK) != 0) {
        gs_err_set(err, GS_E_IO, "no history database at %s", st->path);
        gs_err_hint(err, "Start `gpuscope record` (or pass --db FILE where it records).");
        goto fail;
    }
    if (!mem && o->writer && store_lock(st, err) < 0)
        goto fail;
    int flags = o->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(st->path, &st->db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        gs_store_sqlerr(err, rc, st->path, "opening");
        goto fail;
    }
    gs_store_register_functions(st->db);
    if (store_pragmas(st, err) < 0 || gs_store_schema(st, err) < 0)
        goto fail;
    if (o->writer && gs_store_prepare_writer(st, err) < 0)
        goto fail;
    *out = st;
    return 0;
fail:
    gs_store_close(st);
    return -err->code;
}

sqlite3 *gs_store_db(struct gs_store *st) { return st->db; }
const char *gs_store_path(const struct gs_store *st) { return st->path; }

uint64_t gs_store_bytes_used(struct gs_store *st)
{
    sqlite3_stmt *q;
    int64_t v[3] = { 0, 0, 0 };
    const char *pr[3] = { "PRAGMA page_count", "PRAGMA freelist_count", "PRAGMA page_size" };
    for (int i = 0; i < 3; i++) {
        if (sqlite3_prepare_v2(st->db, pr[i], -1, &q, NULL) != SQLITE_OK)
            return 0;
        if (sqlite3_step(q) == SQLITE_ROW)
            v[i] = sqlite3_column_int64(q, 0);
        sqlite3_finalize(q);
    }
    return (uint64_t)((v[0] - v[1]) * v[2]);
}

#ifdef GS_TESTING
void gs_store_debug_full(struct gs_store *st, bool on)
{
    char sql[64];
    if (on == st->debug_full)
        return;
    st->debug_full = on;
    snprintf(sql, sizeof(sql), "PRAGMA max_page_count=%s", on ? "1" : "4294967294");
    /* max_page_count never goes below the current page count: "1" caps it there. */
    sqlite3_exec(st->db, sql, NULL, NULL, NULL);
}
#endif

void gs_store_close(struct gs_store *st)
{
    if (!st)
        return;
    sqlite3_stmt *stmts[] = { st->ins_sample, st->ins_psample, st->ins_event, st->ins_proc,
                              st->end_proc, st->upd_proc_gpus, st->ins_torch, st->upd_proc_peak,
                              st->ins_prof, st->ins_data };
    for (size_t i = 0; i < sizeof(stmts) / sizeof(stmts[0]); i++)
        sqlite3_finalize(stmts[i]);
    if (st->db)
        sqlite3_close(st->db);
    if (st->lock_fd >= 0)
        close(st->lock_fd); /* releases the flock */
    free(st->procs);
    free(st->procs_saved);
    free(st);
}
