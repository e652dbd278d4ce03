/* SPDX-License-Identifier: MIT */
/*
 * prom.h - renders a gs_snapshot as Prometheus text exposition 0.0.4 or
 * OpenMetrics 1.0.0: dcgm-exporter-compatible DCGM_FI_* families plus
 * gpuscope's own gpuscope_* families (docs/SERVE.md lists every one).
 *
 * A renderer (struct gs_prom) is created once and reused tick after tick by
 * one thread (the exporter's sampler thread): it keeps scratch label strings
 * so a steady-state rendering does not allocate. Nothing here does I/O except
 * the optional pod lookup (serve/podmap.h), which reads a directory listing at
 * most every few seconds.
 */
#ifndef GS_SERVE_PROM_H
#define GS_SERVE_PROM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"
#include "serve/pbuf.h"

struct gs_podmap;
struct gs_k8s_map;
struct gs_jobmap;

enum gs_prom_format {
    GS_PROM_TEXT = 0,        /* text/plain; version=0.0.4 */
    GS_PROM_OPENMETRICS = 1, /* application/openmetrics-text; version=1.0.0 */
};

#define GS_PROM_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define GS_PROM_CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define GS_PROM_EOF "# EOF\n"

struct gs_prom_opts {
    const char *hostname_label;  /* "Hostname" (dcgm-exporter <= 4.8.2), "hostname" (>= 4.8.3), NULL: none */
    const char *hostname;        /* its value (NODE_NAME or the host name); borrowed */
    bool process_cmdline;        /* add the full command line as label `cmdline` (may hold secrets) */
    struct gs_podmap *podmap;    /* pod UID -> namespace/name, container id -> name; NULL: none */
    /* pods from the kubelet (gs_prom_self.kube.map), as dcgm-exporter's options: */
    bool virtual_gpus;           /* --kubernetes-virtual-gpus: a series per pod sharing a GPU, vgpu label */
    bool gpu_id_device_name;     /* --kubernetes-gpu-id-type=device-name: devices are "nvidia<index>" */
};

/* Xid events on one GPU with one code, accumulated by the exporter (serve/xid.c). */
struct gs_prom_xid {
    uint32_t gpu;   /* the GPU's index (gs_static.index) */
    uint32_t xid;   /* Xid code */
    uint64_t count; /* events since the exporter started */
    uint64_t seq;   /* order of its latest event among all (higher = later) */
};

/* The exporter's Xid tally: entries sorted by (gpu, xid). Single-threaded. */
struct gs_prom_xid_tally {
    struct gs_prom_xid *v;
    uint32_t n;
    size_t cap;
    uint64_t seq;     /* events counted so far */
    uint64_t dropped; /* events lost (the snapshot's list overflowed, or out of memory) */
};

void gs_prom_xid_tally_init(struct gs_prom_xid_tally *t);
void gs_prom_xid_tally_free(struct gs_prom_xid_tally *t);
/* Count snap's Xid events. Returns 0, or -GS_E_NOMEM (those events count as dropped). */
int gs_prom_xid_tally_add(struct gs_prom_xid_tally *t, const struct gs_snapshot *snap);
/* A short description of an Xid code (err_msg label); never NULL. */
const char *gs_prom_xid_text(uint32_t xid);

/* One active health finding, as metric labels carry it (serve/health.c). */
struct gs_prom_health {
    int32_t gpu;        /* GPU index, -1 for machine-wide findings */
    uint32_t pid;       /* process, 0 if none */
    uint8_t severity;   /* enum gs_sev: 1 info, 2 warning, 3 critical */
    char code[32];      /* the engine's stable code ("thermal.hw_slowdown") */
};

/* The health engine run by the exporter's sampler thread (single-threaded). */
struct gs_prom_health_run;
struct gs_prom_health_run *gs_prom_health_new(void);
void gs_prom_health_free(struct gs_prom_health_run *r);
/* Feed one tick's snapshot (rc: the sampler's result) and evaluate. 0 or -GS_E_NOMEM. */
int gs_prom_health_tick(struct gs_prom_health_run *r, const struct gs_snapshot *snap, int rc);
/* The latest evaluation's findings, worst first; valid until the next tick. */
const struct gs_prom_health *gs_prom_health_list(const struct gs_prom_health_run *r, uint32_t *n);

/* The exporter's own facts, rendered after the snapshot's families. */
struct gs_prom_self {
    double sample_duration_s;     /* how long the latest tick took */
    uint64_t samples_total;       /* ticks taken since start */
    uint64_t sample_errors_total; /* ticks where the sampler reported an error (GPU lost, NVML failing) */
    bool backend_up;              /* the latest tick read at least one GPU */
    double last_sample_unix_s;    /* wall-clock time of the latest tick that read a GPU, 0: never */
    const struct gs_prom_xid *xids; /* Xid tally, sorted by (gpu, xid); may be NULL */
    uint32_t nxids;
    uint64_t events_dropped_total; /* driver events that could not be counted */
    bool health_on;                /* the health engine runs: render its families */
    const struct gs_prom_health *health; /* active findings, worst first; may be NULL */
    uint32_t nhealth;
    struct gs_prom_kube {               /* the kubelet's pod-resources as this tick saw them */
        bool on;                        /* the lookup runs: render the gpuscope_kubelet_* families */
        const struct gs_k8s_map *map;   /* the pod map in use (the last good one), NULL: pods from processes */
        double map_age_s;               /* seconds since the List call that produced map */
        bool up;                        /* the latest List call succeeded */
        uint64_t refreshes, errors;     /* List calls made, and failed */
        double duration_s;              /* wall time of the latest call */
        double cpu_s;                   /* CPU time of the refresher thread, in total */
    } kube;
    struct gs_prom_jobs {               /* HPC jobs for the hpc_job label (docs/SLURM.md) */
        bool dir_on;                    /* --hpc-job-mapping-dir given: jobs from map only */
        const struct gs_jobmap *map;    /* its files at this tick, NULL: none (missing, empty) */
    } jobs;
};

struct gs_prom;

/* opts is copied (its strings are borrowed and must outlive the renderer). NULL on OOM. */
struct gs_prom *gs_prom_new(const struct gs_prom_opts *opts);
void gs_prom_free(struct gs_prom *r);

/* Render snap + self into out (appended). OpenMetrics output does NOT end with
 * "# EOF": the server appends the per-scrape age family and then GS_PROM_EOF.
 * Returns 0, or -GS_E_NOMEM when out ran out of memory. */
int gs_prom_render(struct gs_prom *r, struct gs_pbuf *out, const struct gs_snapshot *snap,
                   const struct gs_prom_self *self, enum gs_prom_format fmt);

/* The per-scrape family gpuscope_exporter_last_sample_age_seconds, written into
 * dst (NUL-terminated); returns its length (0 if cap is too small). */
int gs_prom_format_age(char *dst, unsigned cap, double age_s, enum gs_prom_format fmt);

/* The HTTP side's own figures, rendered per scrape after the age line. */
struct gs_prom_http {
    uint32_t open;             /* connections open now */
    uint64_t deadline_closed;  /* closed: the request did not arrive whole within --timeout */
    uint64_t evicted;          /* closed to make room at --max-connections */
    uint64_t auth_failed;      /* answered 401 */
    uint64_t auth_throttled;   /* answered 429: password checks over their budget */
    uint64_t auth_checks;      /* bcrypt checks done (the rest answered from memory) */
};

/* gpuscope_exporter_http_* families into dst (NUL-terminated); returns the
 * length (0 if cap is too small). */
int gs_prom_format_http(char *dst, unsigned cap, const struct gs_prom_http *h, enum gs_prom_format fmt);

/* Append s as the inside of a quoted label value: \ -> \\, " -> \", newline ->
 * \n, and every byte that is not part of valid UTF-8 -> U+FFFD (Prometheus
 * rejects label values that are not UTF-8). */
void gs_prom_escape_label(struct gs_pbuf *b, const char *s);
/* Append s as HELP text: \ -> \\, newline -> \n, and in OpenMetrics " -> \". */
void gs_prom_escape_help(struct gs_pbuf *b, const char *s, enum gs_prom_format fmt);
/* Append v the way Prometheus reads it back exactly: shortest %.{15,16,17}g
 * that round-trips; NaN and +Inf/-Inf spelled as the formats require. */
void gs_prom_add_double(struct gs_pbuf *b, double v);
/* True when Accept asks for OpenMetrics (application/openmetrics-text, q > 0). */
bool gs_prom_wants_openmetrics(const char *accept);

#endif /* GS_SERVE_PROM_H */
