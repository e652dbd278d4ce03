/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - `gpuscope top --prometheus`: the fleet as one row per node, read
 * from Prometheus (docs/FLEET.md). fleet_data.c turns a fixed set of
 * PromQL queries (aggregated `by (Hostname)`: the count per refresh does not
 * grow with the fleet) into a snapshot; fleet_feed.c runs them on their own
 * thread; fleet_view.c draws and handles keys; fleet_text.c the shared row
 * formatting and the --batch text output.
 */
#ifndef GS_UI_FLEET_H
#define GS_UI_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/prom_api.h"
#include "core/err.h"
#include "core/fleetq.h"

#define GS_FLEET_NAME 256 /* node names longer than this are cut (and cannot be drilled into) */
#define GS_FLEET_HIST 60  /* points of a GPU's utilization chart */

/* Per-node figures, NaN when the fleet's series do not carry them. */
enum gs_fleet_val {
    GS_FV_GPUS, GS_FV_UTIL, GS_FV_UTIL_MAX, GS_FV_MEM_USED, GS_FV_MEM_TOTAL, GS_FV_TEMP_MAX,
    GS_FV_HOT_GPU, GS_FV_POWER, GS_FV_THROTTLED, GS_FV_XID_1H, GS_FV_TOP_MIB, GS_FV_CRIT,
    GS_FV_WARN, GS_FV_INFO, GS_FV_COUNT
};

struct gs_fleet_node {
    char host[GS_FLEET_NAME];
    bool host_cut;             /* the label was longer than host[] */
    double v[GS_FV_COUNT];
    char finding[64];          /* the worst active finding's code (gpuscope serve), "" none */
    char top[160];             /* biggest GPU memory user: "ns/pod", "job 42", "python (alice)" */
    bool lost;                 /* was in the fleet, no series now */
    double last_seen;          /* Unix s: the last refresh that had it */
    double lost_since;         /* Unix s: the first refresh without it */
};

/* Per-GPU figures of one node (Enter on a node). */
enum gs_fleet_gval {
    GS_FG_UTIL, GS_FG_MEMUTIL, GS_FG_FB_USED, GS_FG_FB_FREE, GS_FG_TEMP, GS_FG_POWER,
    GS_FG_SM_CLK, GS_FG_MEM_CLK, GS_FG_ENC, GS_FG_DEC, GS_FG_XID, GS_FG_COUNT
};

struct gs_fleet_gpu {
    int index;
    char uuid[80], model[80], pod[160];
    double v[GS_FG_COUNT];
    char finding[64];          /* worst active finding on this GPU */
    char throttle[64];         /* active throttle reasons, comma-separated ("" none, "-" not reported) */
    bool throttle_known;
    float hist[GS_FLEET_HIST]; /* utilization %, oldest first, NaN = no sample */
};

struct gs_fleet_proc {
    long pid;
    char comm[64], user[48], pod[160];
    double mem_mib, sm_pct;    /* NaN when not reported */
};

struct gs_fleet_snap {
    struct gs_fleet_node *nodes;
    size_t n, cap;
    double t;                  /* Unix s of the refresh */
    double query_ms;           /* Prometheus' part: the HTTP requests' wall time */
    unsigned requests;         /* HTTP requests of this refresh */
    unsigned failed;           /* queries of this refresh that failed (err holds the first) */
    struct gs_err err;
    /* the focused node's GPUs (focus_host set) and the focused GPU's processes */
    char focus_host[GS_FLEET_NAME];
    int focus_gpu;             /* -1: none */
    struct gs_fleet_gpu *gpus;
    size_t ngpus;
    struct gs_fleet_proc *procs;
    size_t nprocs;
    bool procs_known;          /* the node exports process series at all */
};

/* One refresh into out (emptied first): the node queries, and, when
 * focus_host is not "", that node's GPUs (and focus_gpu's processes).
 * prev (may be NULL) is the previous refresh: its nodes missing now come
 * back marked lost. Returns 0, or a negative gs_errc when no node query
 * worked (err says why); a failed query among working ones only counts in
 * out->failed / out->err. */
int gs_fleet_fetch(struct gs_fleet_src *s, const struct gs_fleet_snap *prev, const char *focus_host,
                   int focus_gpu, struct gs_fleet_snap *out, struct gs_err *err);
/* The node queries of one refresh (for make bench and the docs). */
unsigned gs_fleet_node_queries(void);
void gs_fleet_snap_free(struct gs_fleet_snap *s);
int gs_fleet_snap_copy(struct gs_fleet_snap *dst, const struct gs_fleet_snap *src);

/* ---- fleet_text.c: columns, sorting, filtering, the text rows ---------------- */
enum gs_fleet_col {
    GS_FC_HOST, GS_FC_GPUS, GS_FC_UTIL, GS_FC_UTIL_MAX, GS_FC_MEM, GS_FC_TEMP, GS_FC_POWER,
    GS_FC_THROT, GS_FC_XID, GS_FC_HEALTH, GS_FC_TOP, GS_FC_COUNT
};
struct gs_fleet_colinfo { const char *title; int w; bool right, desc_first; };
extern const struct gs_fleet_colinfo gs_fleet_cols[GS_FC_COUNT];

/* Indexes into s->nodes of the nodes matching filter (substring of host,
 * top user or finding; "" all), sorted by col. Returns the count. */
size_t gs_fleet_order(const struct gs_fleet_snap *s, const char *filter, enum gs_fleet_col col,
                      bool desc, size_t *idx);
/* One cell's text. */
const char *gs_fleet_cell(const struct gs_fleet_node *n, enum gs_fleet_col c, char *buf, size_t len);
/* A header or node line of width w (cells cut/padded), for --batch and curses. */
void gs_fleet_header_line(char *buf, size_t len, int w, enum gs_fleet_col sorted, bool desc);
void gs_fleet_node_line(const struct gs_fleet_node *n, char *buf, size_t len, int w);
/* A GPU line of the node view and a process line. */
void gs_fleet_gpu_header(char *buf, size_t len);
void gs_fleet_gpu_line(const struct gs_fleet_gpu *g, char *buf, size_t len, bool utf8);
void gs_fleet_proc_header(char *buf, size_t len);
void gs_fleet_proc_line(const struct gs_fleet_proc *p, char *buf, size_t len);
/* The status line: nodes, lost, requests, query time. */
void gs_fleet_status_line(const struct gs_fleet_snap *s, char *buf, size_t len);

/* ---- fleet_feed.c: the query thread ----------------------------------------- */
struct gs_fleet_feed;
/* Takes over src; first (the start-up refresh, left to the caller) is where lost
 * nodes are counted from; refreshes every period_s. */
int gs_fleet_feed_start(struct gs_fleet_feed **out, struct gs_fleet_src *src, const struct gs_fleet_snap *first,
                        double period_s, struct gs_err *err);
int gs_fleet_feed_fd(const struct gs_fleet_feed *f);
/* Move a newer refresh into view (the old view freed); 1 when there was one. */
int gs_fleet_feed_take(struct gs_fleet_feed *f, struct gs_fleet_snap *view);
/* What the next refresh also reads: node host's GPUs ("" none), gpu's processes (-1 none). */
void gs_fleet_feed_focus(struct gs_fleet_feed *f, const char *host, int gpu);
void gs_fleet_feed_pause(struct gs_fleet_feed *f, bool paused);
void gs_fleet_feed_stop(struct gs_fleet_feed *f);

/* ---- fleet_view.c: the entry point from top.c -------------------------------- */
struct gs_top_opts;
int gs_fleet_top_run(const struct gs_top_opts *o, struct gs_err *err);

#endif /* GS_UI_FLEET_H */
