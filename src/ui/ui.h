/* SPDX-License-Identifier: MIT */
/*
 * ui.h - state shared by the curses files of `gpuscope top` (top.c: loop and
 * keys; meter.c: GPU panel and charts; table.c: process table; panels.c:
 * help, detail and signal dialog; theme.c: colours). Data comes from the feed
 * (sampler thread); these files only draw it and handle keys.
 */
#ifndef GS_UI_UI_H
#define GS_UI_UI_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"
#include "ui/ancestry.h"
#include "ui/chart.h"
#include "ui/conf.h"
#include "ui/feed.h"
#include "ui/fmt.h"
#include "ui/hbadge.h"
#include "ui/hist.h"
#include "ui/rows.h"
#include "ui/top.h"
#include "ui/xid.h"

enum gs_mode { GS_MODE_MAIN, GS_MODE_HELP, GS_MODE_DETAIL, GS_MODE_SIGNAL, GS_MODE_FILTER, GS_MODE_HEALTH };

/* What a piece of screen is; theme.c maps roles to curses attributes. */
enum gs_role {
    GS_R_NORMAL, GS_R_TITLE, GS_R_LABEL, GS_R_OK, GS_R_WARN, GS_R_BAD, GS_R_DIM,
    GS_R_HEADER, GS_R_SORTED, GS_R_SELECT, GS_R_SIM, GS_R_CHART, GS_R_COUNT
};

struct gs_detail {
    uint32_t pid, gpu;
    char cmdline[4096];         /* full, NULs turned into spaces */
    char env[8192];             /* interesting variables first, one per line */
    char cgroup[1024];
    int scroll;
};

struct gs_ui {
    struct gs_top_opts opts;
    struct gs_top_conf conf;
    char conf_path[512];
    struct gs_feed *feed;
    struct gs_snapshot view;
    int snap_rc;
    struct gs_err snap_err;
    bool have_snap;
    struct gs_sample *last_good; /* per GPU: the latest sample taken while it was OK */
    uint32_t nlast;
    struct gs_hist hist;
    struct gs_xid_track xids;   /* Xids per GPU since top started (badges) */
    struct gs_findings findings; /* the health engine's, evaluated on the sampler thread */
    struct gs_hbadges hb;       /* per GPU: its worst finding in words (badges) */
    int health_top;             /* first line shown in the findings list (H) */
    struct gs_ancestry anc;     /* non-GPU parents for the tree view */
    uint64_t anc_snap_ns;       /* mono_ns of the snapshot anc was updated for */
    struct gs_pmem pmem;
    struct gs_rows rows;
    struct gs_layout lay;
    struct gs_grid grid;        /* chart scratch */
    long sel, top;              /* selected row, first row shown */
    uint32_t sel_pid, sel_gpu;
    char filter[64];
    enum gs_mode mode;
    int sig_choice;             /* 0 TERM, 1 KILL, 2 INT */
    bool sig_group;
    uint32_t sig_pid, sig_pgid;   /* target fixed when the dialog opens */
    char sig_comm[17];
    char msg[200];
    uint64_t msg_until_ns;
    int col_x[GS_COL_COUNT], col_w[GS_COL_COUNT]; /* header cells (mouse), w 0 = hidden */
    chtype attr[GS_R_COUNT];
    bool utf8, color_ok, force_mono;
    enum gs_glyphs glyphs;
    bool quit, paused;
    int help_top;               /* first help line shown (short terminals page it) */
    bool full;                  /* the next frame erases and redraws everything */
    bool table_dirty;           /* the process table must be redrawn */
    bool rows_valid;            /* rows were built from the current view */
    uint64_t procs_fp;          /* gs_rows_fingerprint of the rows' snapshot */
    struct gs_sample *drawn;    /* per GPU: the sample last drawn (timestamp zeroed) */
    uint8_t *drawn_state;       /* per GPU: its state then, 0xff = never drawn */
    uint32_t ndrawn;
    char (*chart_cache)[GS_CELL_BYTES]; /* per GPU: the chart cells last sent to curses */
    uint32_t chart_cache_gpus;
    size_t chart_cache_per;     /* cells per GPU in chart_cache */
    struct gs_detail det;
    uint64_t focus_hash;        /* the PIDs on screen last handed to the feed (0: none yet) */
    struct gs_pystack *pystack;   /* the detail view's Python stacks (pytorch.c), NULL until fetched */
};

/* theme.c */
void gs_theme_apply(struct gs_ui *ui);
/* meter.c */
void gs_draw_title(struct gs_ui *ui);
/* full: draw every GPU; else only GPUs whose readings changed since last drawn (charts always). */
void gs_draw_gpus(struct gs_ui *ui, bool full);
/* table.c */
void gs_draw_table(struct gs_ui *ui);
void gs_draw_footer(struct gs_ui *ui);
void gs_table_click(struct gs_ui *ui, int y, int x);
/* panels.c */
void gs_draw_help(struct gs_ui *ui);
int gs_help_scroll_max(void);   /* lines the help can scroll at this terminal size */
void gs_detail_open(struct gs_ui *ui);
void gs_draw_detail(struct gs_ui *ui);
void gs_draw_signal(struct gs_ui *ui);
/* The findings list (H): every current finding with its evidence and action. */
void gs_draw_health(struct gs_ui *ui);
int gs_health_scroll_max(const struct gs_ui *ui);
int gs_signal_send(struct gs_ui *ui);
/* pytorch.c: the detail view's Python block */
struct gs_pystack;
/* p with its command line from the snapshot (the row's cmd) */
int gs_detail_pytorch(struct gs_ui *ui, const struct gs_proc *p, const char *cmdline, int y);
void gs_detail_fetch_stacks(struct gs_ui *ui, const struct gs_proc *p);
bool gs_detail_stacks(struct gs_ui *ui, uint32_t pid, int y);
/* top.c */
void gs_ui_message(struct gs_ui *ui, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gs_ui_rebuild_rows(struct gs_ui *ui);
const struct gs_row *gs_ui_selected(const struct gs_ui *ui);

/* put.c: put at most w cells of s at (y, x) with a role; returns the cells used. */
int gs_put(struct gs_ui *ui, int y, int x, int w, enum gs_role r, const char *s);
/* Put s at column 0 of line y and blank the rest of the line (same role). */
void gs_put_line(struct gs_ui *ui, int y, enum gs_role r, const char *s);
/* Put a UTF-8 string whose width the caller knows fits (chart rows, glyphs) at (y, x). */
void gs_put_cell(struct gs_ui *ui, int y, int x, enum gs_role r, const char *cell);

#endif /* GS_UI_UI_H */
