/* SPDX-License-Identifier: MIT */
/*
 * fmt.c - number formats, bar fill and the layout choice of `gpuscope top`.
 */
#include <stdio.h>
#include <string.h>

#include "ui/fmt.h"

const char *const gs_layout_names[GS_LAYOUT_PREF_COUNT] = { "auto", "full", "compact", "line" };

/* ---- small formatters without printf (the table formats ~10 cells per row per frame) -- */

char *gs_put_u(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    *p = '\0';
    return p;
}

/* v / 10^dec with dec decimals ("12.5" for v=125, dec=1). */
static char *put_fixed(char *p, uint64_t v, int dec)
{
    uint64_t scale = dec == 2 ? 100 : dec == 1 ? 10 : 1;
    p = gs_put_u(p, v / scale);
    if (dec) {
        uint64_t frac = v % scale;
        *p++ = '.';
        if (dec == 2)
            *p++ = (char)('0' + frac / 10);
        *p++ = (char)('0' + frac % 10);
        *p = '\0';
    }
    return p;
}

static char *put_2(char *p, unsigned v)
{
    *p++ = (char)('0' + v / 10 % 10);
    *p++ = (char)('0' + v % 10);
    *p = '\0';
    return p;
}

char *gs_put_pad(char *p, const char *s, int w, bool right)
{
    int n = (int)strnlen(s, (size_t)(w > 0 ? w : 0));
    int pad = w - n;

    if (right)
        for (; pad > 0; pad--)
            *p++ = ' ';
    memcpy(p, s, (size_t)n);
    p += n;
    if (!right)
        for (; pad > 0; pad--)
            *p++ = ' ';
    *p = '\0';
    return p;
}

static const char *copy_out(char *buf, unsigned len, const char *tmp, const char *end)
{
    size_t n = (size_t)(end - tmp);

    if (!len)
        return buf;
    if (n >= len)
        n = len - 1;
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return buf;
}

const char *gs_fmt_bytes(uint64_t bytes, char *buf, unsigned len)
{
    static const char units[] = "KMGTP";
    char tmp[32], *p = tmp;

    if (bytes < 1024) {
        p = gs_put_u(p, bytes);
        *p++ = 'B';
    } else {
        int u = 0;
        unsigned __int128 div = 1024;
        while (bytes / div >= 1024 && u < 4) {
            div *= 1024;
            u++;
        }
        uint64_t whole = (uint64_t)(bytes / div);
        int dec = (whole >= 100 || u <= 1) ? 0 : whole >= 10 ? 1 : 2;
        unsigned __int128 scale = dec == 2 ? 100 : dec == 1 ? 10 : 1;
        p = put_fixed(p, (uint64_t)(((unsigned __int128)bytes * scale + div / 2) / div), dec);
        *p++ = units[u];
    }
    return copy_out(buf, len, tmp, p);
}

const char *gs_fmt_age(uint64_t s, char *buf, unsigned len)
{
    char tmp[40], *p = tmp;

    if (s < 60) {
        p = gs_put_u(p, s);
        *p++ = 's';
    } else if (s < 3600) {
        p = gs_put_u(p, s / 60);
        *p++ = ':';
        p = put_2(p, (unsigned)(s % 60));
    } else if (s < 86400) {
        p = gs_put_u(p, s / 3600);
        *p++ = ':';
        p = put_2(p, (unsigned)(s / 60 % 60));
        *p++ = ':';
        p = put_2(p, (unsigned)(s % 60));
    } else {
        p = gs_put_u(p, s / 86400);
        *p++ = 'd';
        p = put_2(p, (unsigned)(s / 3600 % 24));
        *p++ = 'h';
    }
    return copy_out(buf, len, tmp, p);
}

const char *gs_fmt_kbps(uint32_t kbps, char *buf, unsigned len)
{
    return gs_fmt_bytes((uint64_t)kbps * 1024, buf, len);
}

int gs_bar_fill(int w, double pct)
{
    if (w <= 0 || !(pct > 0))
        return 0;
    if (pct >= 100)
        return w;
    int n = (int)(pct * w / 100 + 0.5);
    return n > w ? w : n;
}

static int block_h(enum gs_layout_pref k, int cols, int want_chart)
{
    if (k == GS_LAYOUT_LINE)
        return 1;
    if (k == GS_LAYOUT_COMPACT)
        return 2;
    return (want_chart && cols < GS_CHART_RIGHT_MIN_COLS) ? 5 : 3;
}

static void place_chart(struct gs_layout *l, int cols, int want_chart)
{
    l->chart_x = l->chart_w = l->chart_h = 0;
    if (!want_chart || l->kind != GS_LAYOUT_FULL)
        return;
    if (cols >= GS_CHART_RIGHT_MIN_COLS) {
        l->chart_x = 88;
        l->chart_w = cols - l->chart_x - 1;
        l->chart_h = 3;
    } else if (cols >= 20) {
        l->chart_x = 2;
        l->chart_w = cols - 4;
        l->chart_h = 2;
    }
}

/* The chart grid, when `free` rows below the GPUs hold one box row per
 * ceil(n / per-row) GPUs: boxes as wide as the terminal allows, as many
 * per row as divides the GPUs evenly, as high as the rows allow. */
static bool place_chart_grid(struct gs_layout *l, int cols, int free, int n)
{
    int maxc = cols / GS_CHART_BOX_MIN_W;

    if (n < 1 || maxc < 1)
        return false;
    int grows = (n + maxc - 1) / maxc;
    int gcols = (n + grows - 1) / grows;
    int h = free / grows;
    if (h < GS_CHART_BOX_MIN_H)
        return false;
    l->cgrid_cols = gcols;
    l->cgrid_rows = grows;
    l->cbox_w = cols / gcols;
    l->cbox_h = h > GS_CHART_BOX_MAX_H ? GS_CHART_BOX_MAX_H : h;
    l->chart_x = 0;
    l->chart_w = l->cbox_w - GS_CHART_AXIS_W - 1;
    l->chart_h = l->cbox_h - 2;
    return true;
}

static int pane_rows(int n, int gpu_cols)
{
    return (n + gpu_cols - 1) / gpu_cols;
}

void gs_layout_pick(struct gs_layout *l, int rows, int cols, uint32_t ngpus,
                    enum gs_layout_pref pref, int want_chart)
{
    int fixed = 3; /* title line, table header, footer */
    int table_min = rows / 3 > 5 ? rows / 3 : 5;
    int room = rows - fixed - table_min;
    int two = cols >= GS_TWO_PANE_MIN_COLS ? 2 : 1;
    enum gs_layout_pref k = pref;

    memset(l, 0, sizeof(*l));
    if (k == GS_LAYOUT_AUTO) {
        k = GS_LAYOUT_LINE;
        if (pane_rows((int)ngpus, two) * block_h(GS_LAYOUT_FULL, cols, want_chart) <= room && cols >= 80)
            k = GS_LAYOUT_FULL;
        else if ((int)ngpus * block_h(GS_LAYOUT_COMPACT, cols, 0) <= room && cols >= 60)
            k = GS_LAYOUT_COMPACT;
    }
    l->kind = k;
    l->gpu_h = block_h(k, cols, want_chart);
    l->gpu_cols = k == GS_LAYOUT_FULL ? two : 1;
    l->pane_w = cols / l->gpu_cols;
    int maxg = (rows - fixed - 2) / l->gpu_h * l->gpu_cols; /* always leave two process rows */
    if (maxg < 1)
        maxg = 1;
    l->gpus_shown = (int)ngpus < maxg ? (int)ngpus : maxg;
    int gpu_rows = pane_rows(l->gpus_shown, l->gpu_cols) * l->gpu_h;
    bool grid = k == GS_LAYOUT_FULL && want_chart && cols >= GS_CHART_RIGHT_MIN_COLS &&
                place_chart_grid(l, cols, room - gpu_rows, l->gpus_shown);
    if (!grid && l->gpu_cols == 2) { /* no room for the grid: one GPU per row, charts beside */
        l->gpu_cols = 1;
        l->pane_w = cols;
        l->gpus_shown = (int)ngpus < maxg / 2 ? (int)ngpus : (maxg / 2 ? maxg / 2 : 1);
        gpu_rows = l->gpus_shown * l->gpu_h;
    }
    if (!grid)
        place_chart(l, cols, want_chart);
    l->cgrid_y = 1 + gpu_rows;
    l->table_y = l->cgrid_y + l->cgrid_rows * l->cbox_h + ((int)ngpus > l->gpus_shown);
    l->table_h = rows - l->table_y - 1;
    if (l->table_h < 0)
        l->table_h = 0;
}
