/* SPDX-License-Identifier: MIT */
/*
 * serve.h - `gpuscope serve`, the Prometheus exporter. One background thread
 * samples the GPUs every interval and renders the exposition once per tick
 * into an immutable, reference-counted "generation"; HTTP requests (served by
 * libmicrohttpd's own threads) take a reference to the latest generation and
 * send its bytes, so a scrape never waits on NVML and costs the same whatever
 * the GPUs do. docs/SERVE.md is the user's guide.
 */
#ifndef GS_SERVE_SERVE_H
#define GS_SERVE_SERVE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include "core/err.h"
#include "core/model.h"
#include "serve/prom.h"

struct gs_serve_opts {
    const char *listen;          /* "[host]:port"; ":9400" = every address */
    uint32_t interval_ms;        /* sampling period (default 1000) */
    unsigned max_connections;    /* concurrent HTTP connections (default 64); beyond, the oldest idle one is closed */
    unsigned max_connections_per_ip; /* from one client address (default 8; 0: no limit) */
    unsigned timeout_s;          /* a request must arrive whole, and idle connections close, within (default 10) */
    unsigned threads;            /* HTTP threads (default 2) */
    const char *web_config;      /* exporter-toolkit YAML, or NULL */
    const char *hostname_label;  /* "Hostname", "hostname", or NULL for none */
    const char *hostname;        /* NULL: $NODE_NAME, else gethostname() */
    bool process_cmdline;        /* command lines on /metrics (label) and /api/v1/snapshot */
    bool openmetrics;            /* offer OpenMetrics when asked (default true) */
    const char *host_root;       /* prefix for /var/log/pods; NULL: $GPUSCOPE_ROOT or "" */
    const char *nvml_lib;        /* NULL: default search */
    /* Kubernetes pods from the kubelet's pod-resources socket (src/k8s/) */
    const char *kubelet_socket;  /* NULL: the kubelet's default path, used when present; "" or "none": off */
    uint32_t kubelet_interval_ms; /* between List calls (default 5000) */
    uint32_t kubelet_timeout_ms; /* for one call (default 3000) */
    const char *resource_names;  /* comma-separated extra resource names (--nvidia-resource-names) */
    bool virtual_gpus;           /* --kubernetes-virtual-gpus */
    bool gpu_id_device_name;     /* --kubernetes-gpu-id-type=device-name */
    const char *hpc_job_dir;     /* --hpc-job-mapping-dir: dcgm-exporter's GPU -> job files; NULL: jobs
                                  * from the processes' Slurm cgroups */
};

#define GS_SERVE_OPTS_INIT                                                                     \
    {                                                                                          \
        .listen = ":9400", .interval_ms = 1000, .max_connections = 64,                         \
        .max_connections_per_ip = 8, .timeout_s = 10,                                          \
        .threads = 2, .hostname_label = "Hostname", .openmetrics = true,                       \
        .kubelet_interval_ms = 5000, .kubelet_timeout_ms = 3000                                \
    }

/* Run until SIGINT/SIGTERM. Returns 0 after a clean stop, or a negative
 * enum gs_errc with err filled (bad listen address, web config, no NVML...). */
int gs_serve_run(const struct gs_serve_opts *o, struct gs_err *err);

/* ---- internal: between the sampler thread (serve.c) and HTTP (http.c) ---- */

struct gs_k8s_map;

/* One tick's facts; immutable once published except for the renderings, which
 * are made on the first request for each format after the tick (so an idle
 * exporter renders nothing, and a Prometheus that asks for OpenMetrics never
 * pays for text) and then kept. */
struct gs_gen {
    atomic_uint refs;
    struct gs_snapshot snap;     /* what the renderings show; released when retired */
    struct gs_prom_self self;    /* exporter facts; self.xids points at xids */
    struct gs_prom_xid *xids;    /* copy of the Xid tally at this tick (owned) */
    struct gs_prom_health *health; /* copy of the health findings at this tick (owned) */
    double good_unix_s;          /* wall time of the latest sample that read a GPU, 0: none yet */
    pthread_mutex_t lock;        /* guards retired, snap after publication and the renderings below */
    bool retired;                /* superseded by a newer generation: snap is gone, renderings stay */
    char *text;                  /* Prometheus text 0.0.4, complete; NULL until asked for */
    size_t text_len;
    char *om;                    /* OpenMetrics without "# EOF"; NULL until asked for */
    size_t om_len;
    char *json;                  /* /api/v1/snapshot; NULL until asked for */
    size_t json_len;
    struct gs_k8s_map *kube_map; /* the kubelet's pod map self.kube.map points at (a reference), or NULL */
    struct gs_jobmap *jobmap;    /* the job map self.jobs.map points at (a reference), or NULL */
};

struct gs_exporter;
/* A reference to the latest generation (never NULL once serving). */
struct gs_gen *gs_exporter_acquire(struct gs_exporter *ex);
void gs_gen_release(struct gs_gen *g);
/* The exposition of *g in fmt (rendered once, kept); NULL on OOM. If *g was
 * retired before it was rendered in fmt, *g becomes the latest generation (the
 * reference is swapped: the caller releases *g as before). */
const char *gs_gen_metrics(struct gs_exporter *ex, struct gs_gen **g, enum gs_prom_format fmt, size_t *len);
/* The JSON document of *g (rendered once, kept; command lines redacted
 * unless --process-cmdline); NULL on OOM. *g may be swapped as above. */
const char *gs_gen_json(struct gs_exporter *ex, struct gs_gen **g, size_t *len);
/* Seconds since the sampler thread last completed a tick (monotonic). */
double gs_exporter_tick_age(struct gs_exporter *ex);
/* Longest tick age still reported healthy. */
double gs_exporter_stale_after(const struct gs_exporter *ex);
double gs_exporter_start_unix(const struct gs_exporter *ex);
bool gs_exporter_openmetrics(const struct gs_exporter *ex);

struct gs_webcfg;
struct gs_http;
/* Start the HTTP server on o->listen with wc (taken over, freed by the server;
 * NULL: plain HTTP); *port gets the bound port. */
int gs_http_start(struct gs_http **out, struct gs_exporter *ex, const struct gs_serve_opts *o,
                  struct gs_webcfg *wc, unsigned *port, struct gs_err *err);
/* Serve with wc (taken over) from now on: a new daemon on the same listening
 * socket, then the old one drains (up to 2 s) and stops. On failure the old
 * web config stays in force. */
int gs_http_reload(struct gs_http *h, struct gs_webcfg *wc, struct gs_err *err);
void gs_http_stop(struct gs_http *h);
/* Parse "[host]:port" / "host:port" / ":port" into host (may be "") and port. */
int gs_http_parse_listen(const char *listen, char *host, unsigned hostlen, unsigned *port,
                         struct gs_err *err);

#endif /* GS_SERVE_SERVE_H */
