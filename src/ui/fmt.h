/* SPDX-License-Identifier: MIT */
/*
 * fmt.h - pure helpers of `gpuscope top`: short number formats, the layout
 * chosen for a terminal size and GPU count, bar fill. No curses here.
 */
#ifndef GS_UI_FMT_H
#define GS_UI_FMT_H

#include <stdbool.h>
#include <stdint.h>

/* Append helpers for row buffers: write at p, NUL-terminate, return the new end. */
char *gs_put_u(char *p, uint64_t v);                          /* decimal */
char *gs_put_pad(char *p, const char *s, int w, bool right);  /* s cut/padded to w */

/* "512M", "35.2G", "1.50T" (binary units), or "0". */
const char *gs_fmt_bytes(uint64_t bytes, char *buf, unsigned len);
/* Running time: "59s", "12:34", "3:04:05", "12d04h". */
const char *gs_fmt_age(uint64_t s, char *buf, unsigned len);
/* PCIe throughput from KB/s: "850K", "1.2G" (per second implied). */
const char *gs_fmt_kbps(uint32_t kbps, char *buf, unsigned len);
/* Cells of a bar of width w filled for pct (0..100, clamped). */
int gs_bar_fill(int w, double pct);

enum gs_layout_pref { GS_LAYOUT_AUTO, GS_LAYOUT_FULL, GS_LAYOUT_COMPACT, GS_LAYOUT_LINE,
                      GS_LAYOUT_PREF_COUNT };
extern const char *const gs_layout_names[GS_LAYOUT_PREF_COUNT];

#define GS_CHART_RIGHT_MIN_COLS 120 /* from this width charts sit right of each GPU, or in a grid */
#define GS_TWO_PANE_MIN_COLS 160    /* from this width the full layout puts two GPUs per row */
#define GS_CHART_BOX_MIN_W 40       /* a chart of the grid: at least this wide ... */
#define GS_CHART_BOX_MIN_H 6        /* ... and this high (title, 4 plot rows, time axis) */
#define GS_CHART_BOX_MAX_H 12
#define GS_CHART_AXIS_W 5           /* "100%" and the axis line left of a grid chart's plot */

struct gs_layout {
    enum gs_layout_pref kind;   /* FULL, COMPACT or LINE (never AUTO) */
    int gpu_h;                  /* lines per GPU block */
    int gpus_shown;             /* GPUs that fit (the rest are summarised on one line) */
    int gpu_cols, pane_w;       /* GPU panes per row (2 from GS_TWO_PANE_MIN_COLS) and their width */
    int chart_x, chart_w, chart_h; /* chart plot: position inside a GPU block (inline charts) or
                                    * size inside a grid box; chart_w 0 = no charts */
    /* The chart grid (wide and tall enough terminals, full layout): one boxed
     * chart per GPU, with a title, a scale and a time axis, below the GPUs. */
    int cgrid_y, cgrid_cols, cgrid_rows; /* cgrid_cols 0 = inline charts (or none) */
    int cbox_w, cbox_h;
    int table_y, table_h;       /* process table: header line at table_y, then table_h-1 rows */
};

/* Choose a layout for a terminal of rows x cols showing ngpus GPUs. */
void gs_layout_pick(struct gs_layout *l, int rows, int cols, uint32_t ngpus,
                    enum gs_layout_pref pref, int want_chart);

#endif /* GS_UI_FMT_H */
