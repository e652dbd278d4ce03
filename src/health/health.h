/* SPDX-License-Identifier: MIT */
/*
 * health.h - the health engine behind `gpuscope doctor` and `gpuscope watch`
 * and the live view's badges (`top`) and the exporter's health metrics (`serve`).
 *
 * The engine owns a bounded window of history: per GPU a ring of compact
 * samples, per process (GPU, PID) a ring of memory/utilization points, plus the
 * Xid events seen (from NVML events in the snapshots and from the kernel log).
 * Callers feed snapshots with the time they belong to (real or simulated),
 * then ask for findings. Every check is pure logic over that window: no NVML,
 * no libcurl; the only I/O is the optional CUDA_VISIBLE_DEVICES check, which
 * reads /proc/PID/environ at most once per PID. docs/HEALTH.md lists the checks.
 *
 *   struct gs_health_cfg cfg; gs_health_cfg_default(&cfg);
 *   struct gs_health *h = gs_health_new(&cfg);
 *   gs_health_add(h, &snap, t_ms);              // per tick
 *   gs_health_add_kmsg(h, xids, n);              // kernel-log Xids (optional)
 *   struct gs_findings f = {0}; gs_health_eval(h, &f);
 *   ... gs_findings_free(&f); gs_health_free(h);
 */
#ifndef GS_HEALTH_H
#define GS_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/devholders.h"
#include "core/err.h"
#include "core/frameworks.h"
#include "core/model.h"
#include "core/sysfs.h"

enum gs_sev {
    GS_SEV_NONE = 0,
    GS_SEV_INFO = 1,
    GS_SEV_WARNING = 2,
    GS_SEV_CRITICAL = 3,
};
const char *gs_sev_name(enum gs_sev s);             /* "info", "warning", "critical" */
int gs_sev_parse(const char *s, enum gs_sev *out);  /* 0 or -1 */

#define GS_NO_GPU (-1)

/* One thing an operator should know, with its numbers and a next step. */
struct gs_finding {
    uint8_t severity;     /* enum gs_sev */
    int32_t gpu;          /* GPU index, GS_NO_GPU for machine-wide findings */
    uint32_t pid;         /* process, 0 if none */
    char code[32];        /* stable: "xid.79", "thermal.hw_slowdown", "proc.memory_leak" */
    char title[160];      /* one line */
    char evidence[400];   /* the numbers */
    char cause[300];      /* the likely cause */
    char action[400];     /* what to do */
    double value;         /* the headline number (for rules): Xid code, slope MiB/s, temp C ... */
};

struct gs_findings {
    struct gs_finding *v;
    size_t n, cap;
    size_t lost;          /* findings that did not fit (out of memory) since the last clear */
};
struct gs_finding *gs_findings_add(struct gs_findings *f);
void gs_findings_clear(struct gs_findings *f);
void gs_findings_free(struct gs_findings *f);
enum gs_sev gs_findings_worst(const struct gs_findings *f);

/* Thresholds; defaults (gs_health_cfg_default) and their sources in docs/HEALTH.md. */
struct gs_health_cfg {
    uint32_t ring_samples;           /* per-GPU and per-process history length (600) */
    uint32_t max_procs;              /* processes tracked at once (4096) */
    uint32_t proc_ring_samples;      /* per-process history length (300, at most 300) */
    int32_t expect_gpus;             /* --expect-gpus; 0 = no expectation */
    int32_t thermal_margin_c;        /* warn within this many C of slowdown (5) */
    int32_t fan_hot_margin_c;        /* "hot" for the stuck-fan check: within this many C of slowdown (8) */
    uint32_t fan_stuck_min_s;        /* a stuck fan: over at least this long (60) */
    uint32_t fan_rise_c;             /* ... or the temperature rose this much toward slowdown, fan flat (10) */
    uint32_t fan_flat_s;             /* ... or one fan reading this long while the temperature moved fan_rise_c (90) */
    uint32_t hw_throttle_min_ms;     /* HW slowdown / power brake time (violation counters) that is a finding (500) */
    double sbe_storm_per_min;        /* corrected ECC errors per minute that are a storm (60) */
    uint32_t sbe_storm_min;          /* ... at least this many in the window (10) */
    double nvlink_crc_per_s;         /* NVLink CRC errors per second that are critical (100) */
    double aer_cor_per_min;          /* correctable PCIe AER errors per minute (32: DCGM's 480 per 15 min) */
    double throttle_min_share;       /* share of the window a HW reason must be active (0.2) */
    double power_limit_min_ratio;    /* enforced limit below this share of default: warn (0.8) */
    uint32_t load_util_pct;          /* "under load" (50) */
    uint32_t idle_util_pct;          /* "idle" (2) */
    uint32_t idle_min_s;             /* memory held while idle this long (300) */
    uint64_t idle_min_mib;           /* ... at least this much held (256) */
    uint32_t busy_util_pct;          /* busy with no process (95) */
    uint32_t busy_min_s;             /* ... this long (10) */
    double leak_mib_per_s;           /* leak slope (10) */
    uint32_t leak_min_s;             /* over at least this span of samples (60) */
    double leak_min_r2;              /* goodness of fit (0.9) */
    uint32_t saw_low_pct, saw_high_pct; /* sawtooth levels (15, 70) */
    uint32_t saw_min_cycles;         /* full busy/idle cycles seen (2) */
    double saw_max_period_s;         /* a period of seconds, not checkpoints (60) */
    uint32_t lag_util_pts;           /* a job's GPU this far below its peers' median (25) */
    double lag_clock_ratio;          /* ... or SM clock below this share of peers' median (0.85) */
    uint32_t lag_min_s;              /* over at least this much history (10) */
    uint32_t recent_s;               /* throttle shares and job means over this recent span; 0 = whole ring (0) */
    uint32_t xid_hold_s;             /* an Xid stays a finding this long after its last line (300) */
    bool check_visible_devices;      /* read /proc/PID/environ (true) */
    const char *proc_root;           /* NULL: "/proc" */
    /* PyTorch's caching allocator, from gpuscope's Python hook (checks_torch.c) */
    uint64_t torch_frag_min_mib;     /* fragmentation: at least this much reserved (1024) */
    double torch_frag_cache_share;   /* ... of it cached, not allocated (0.5) */
    double torch_frag_split_share;   /* ... and this share of it in inactive split blocks (0.25) */
    double torch_growth_mib_per_s;   /* allocated (live tensors) grows this fast over leak_min_s (5) */
};
void gs_health_cfg_default(struct gs_health_cfg *cfg);

/* An Xid from the kernel log (kmsg.h parses them) or NVML's event API. */
struct gs_xid {
    uint32_t xid;
    int32_t gpu;          /* GPU index, or GS_NO_GPU when only the PCI location is known */
    uint32_t pci_domain, pci_bus, pci_device;
    bool has_pci;
    uint32_t pid;         /* 0 if unknown */
    char name[64];        /* process name, "" if unknown */
    char msg[160];        /* the payload text */
    double ts_s;          /* seconds since boot (kernel log), or -1 */
    int32_t gi, ci;       /* MIG GPU-I / GPU-CI, -1 if none */
    bool continued;       /* kernel log: a line of a multi-line message whose address came earlier */
};
/* Not an Xid: "RmInitAdapter failed" (the driver could not initialise the GPU
 * at that address); reported as driver.init_failed. */
#define GS_XID_INIT_FAILED 0u

struct gs_health;
struct gs_health *gs_health_new(const struct gs_health_cfg *cfg);
void gs_health_free(struct gs_health *h);
/* Add a snapshot taken at t_ms (monotonic or simulated milliseconds). */
int gs_health_add(struct gs_health *h, const struct gs_snapshot *snap, int64_t t_ms);
/* Add Xids from the kernel log read whole (since boot: they stay findings);
 * mapped to GPUs by PCI location, and counted once with the same Xid from
 * NVML's events (the count is the larger of the two, not their sum). */
void gs_health_add_kmsg(struct gs_health *h, const struct gs_xid *x, size_t n);
/* Add Xids from lines that just appeared in a followed kernel log (watch):
 * like NVML events, they fade xid_hold_s after the latest one. */
void gs_health_add_kmsg_live(struct gs_health *h, const struct gs_xid *x, size_t n);
/* Record that opening the sampler failed (the driver check explains it). */
void gs_health_set_open_error(struct gs_health *h, const struct gs_err *err);
/* What the recorder's database (gpuscope record) knows that a short window
 * cannot: the GPUs it has seen. Filled by the record module's
 * gs_record_history() (src/record/history_api.c, loaded with
 * gs_module_symbol only when a database exists: the core has no SQLite). */
#define GS_HISTORY_MAX_GPUS 64
struct gs_history_gpu {
    uint32_t index;           /* NVML index when recorded */
    char uuid[96];
    char name[96];
    char pci_bus_id[32];
    int64_t last_ms;          /* latest sample of this GPU, ms since the epoch */
};
struct gs_history {
    char path[256];           /* the database read */
    int64_t first_ms, last_ms; /* the recorder's first and latest sample */
    uint32_t ngpus;           /* GPUs seen within a day of the latest sample */
    struct gs_history_gpu gpus[GS_HISTORY_MAX_GPUS];
};
/* Read the recorder's history from the database at path, read-only (never
 * creates, migrates or locks it). 0, or a negative enum gs_errc with err filled. */
typedef int (*gs_record_history_fn)(const char *path, struct gs_history *out, struct gs_err *err);
#define GS_RECORD_HISTORY_SYMBOL "gs_record_history"
/* The recorder's recent ticks as snapshots (GPU readings and per-process
 * memory/SM), oldest first, for the checks that need a longer window than
 * doctor samples (leak, idle memory, stuck fan, busy with no process...): fn
 * gets each with its time in ms since the epoch. Only ticks from since_ms on;
 * the record module's gs_record_replay. Returns ticks replayed or a negative errc. */
typedef void (*gs_replay_tick_fn)(void *arg, const struct gs_snapshot *snap, int64_t t_ms);
typedef int (*gs_record_replay_fn)(const char *path, int64_t since_ms, gs_replay_tick_fn fn, void *arg,
                                   struct gs_err *err);
#define GS_RECORD_REPLAY_SYMBOL "gs_record_replay"
/* Compare the current GPUs with the history (the "fewer GPUs than the recorder
 * has seen" check); the engine keeps a copy. */
void gs_health_set_history(struct gs_health *h, const struct gs_history *hist);

/* The PCI bus as sysfs shows it (core/sysfs.h: NVIDIA display/3D devices and
 * their AER counters), read by the caller at the current engine time: GPUs on
 * the bus that NVML lacks, and AER errors (growth between the first and the
 * latest scan, plus fatal/non-fatal counts since boot). */
void gs_health_add_pci(struct gs_health *h, const struct gs_pci_dev *d, size_t n);
/* Processes holding /dev/nvidiaN open (core/devholders.h). The scan costs a
 * walk of /proc, so callers ask first: true (and the minor numbers in *minors,
 * bit N = /dev/nvidiaN) when some GPU is busy or holds memory while NVML lists
 * no process on it. */
bool gs_health_holders_wanted(const struct gs_health *h, uint64_t *minors);
void gs_health_add_holders(struct gs_health *h, const struct gs_dev_holder *v, size_t n);

/* ---- operators' routine checks (routine.c): doctor --daily/--weekly/--monthly ---- */
enum gs_routine { GS_ROUTINE_DAILY = 1, GS_ROUTINE_WEEKLY = 2, GS_ROUTINE_MONTHLY = 4 };
/* Load behaviour now and a month ago from the recorder's rollups (record
 * module's gs_record_trend): under load (utilization >= 80 %), per GPU. */
struct gs_trend_gpu {
    uint32_t index;
    char uuid[96];
    uint32_t then_min, now_min;         /* loaded minutes in each period */
    double then_sm_mhz, now_sm_mhz;
    double then_power_w, now_power_w;
    double then_temp_c, now_temp_c;
};
struct gs_trend {
    char path[256];
    char baseline[64];          /* "then" is this saved baseline (gpuscope baseline save), "now" the live window */
    int64_t then_from_ms, then_to_ms, now_from_ms, now_to_ms;
    uint32_t ngpus;
    struct gs_trend_gpu gpus[GS_HISTORY_MAX_GPUS];
};
typedef int (*gs_record_trend_fn)(const char *path, struct gs_trend *out, struct gs_err *err);
#define GS_RECORD_TREND_SYMBOL "gs_record_trend"
/* The same with "then" from a saved baseline (medians of SM clock, power and temperature; it must have been
 * taken under load: median utilization >= 80 %); "now" is then doctor's window. */
typedef int (*gs_record_baseline_trend_fn)(const char *path, const char *name, struct gs_trend *out,
                                           struct gs_err *err);
#define GS_RECORD_BASELINE_TREND_SYMBOL "gs_record_baseline_trend"
/* Which routines to add to the evaluation (their findings share the format). */
void gs_health_set_routines(struct gs_health *h, unsigned which);
void gs_health_set_frameworks(struct gs_health *h, const struct gs_framework *v, size_t n, const char *searched);
/* NULL: no history (the monthly comparison is then "not evaluated"). */
void gs_health_set_trend(struct gs_health *h, const struct gs_trend *t);

/* A check the window was too short for, whole or in part (doctor lists them,
 * --window gives them time). */
struct gs_unevaluated {
    char code[32];
    uint32_t need_s;      /* window the whole check needs */
    double have_s;        /* window there was */
    char judged[112];     /* what that window allowed, for checks with parts ("periods up to 6.7 s"); "" if none */
    double longest_s;     /* proc.input_stall: the longest period the window could judge (0: none); else 0 */
};
/* Ticks before t_ms came from the recorder (they lack PCIe replay and ECC
 * counters): the checks of those counters need their window from t_ms on. */
void gs_health_set_live_start(struct gs_health *h, int64_t t_ms);
/* Fill up to cap entries; returns how many. */
size_t gs_health_unevaluated(const struct gs_health *h, struct gs_unevaluated *out, size_t cap);

/* Evaluate every check over the window; findings sorted worst first. 0, or
 * -GS_E_NOMEM when out->lost findings could not be kept (out is then incomplete). */
int gs_health_eval(struct gs_health *h, struct gs_findings *out);
/* Bytes the engine holds (for the benchmark). */
size_t gs_health_mem_bytes(const struct gs_health *h);

/* A finding in a few plain words for a badge ("HW slowdown", "memory leak pid 1234",
 * "row remap pending", "Xid 79 fell off the bus"); returns buf (badge.c). */
const char *gs_finding_words(const struct gs_finding *f, char *buf, size_t len);

/* ---- helpers with unit tests (stats.c) ------------------------------------------- */
struct gs_linreg {
    double slope;  /* y per x */
    double r2;     /* coefficient of determination, 0..1 */
    double span;   /* x range covered */
};
/* Least squares over n points; false if n < 3 or no x spread. */
bool gs_linreg(const double *x, const double *y, size_t n, struct gs_linreg *out);

struct gs_saw {
    double period_s;      /* mean busy+idle cycle */
    double idle_share;    /* share of samples at the low level */
    double mean_pct;      /* mean utilization */
    uint32_t cycles;      /* complete cycles */
    uint32_t edges;       /* level changes seen (both ways) */
    bool short_window;    /* found on a cycle and a half: the window could not hold saw_min_cycles */
};
/* Detect a utilization square/sawtooth between <= low and >= high; true if found. */
bool gs_sawtooth(const double *t_s, const double *util, size_t n, const struct gs_health_cfg *cfg,
                 struct gs_saw *out);

/* ---- the Xid catalog (xid_catalog.c) ------------------------------------------- */
struct gs_xid_info {
    uint32_t xid;
    const char *mnemonic;
    const char *words;      /* a few words for badges and metric labels: "fell off the bus" */
    const char *meaning;
    const char *causes;     /* "HW DRV APP ..." */
    uint8_t severity;       /* enum gs_sev */
    const char *action;
};
/* The catalog entry, or NULL for an unknown code (callers default to warning). */
const struct gs_xid_info *gs_xid_lookup(uint32_t xid);
/* Print the catalog entry (or the "unknown" advice) as `--explain xid N` does. */
void gs_xid_explain(uint32_t xid, void *fp);

#endif /* GS_HEALTH_H */
