/* SPDX-License-Identifier: MIT */
/*
 * fmt.c - number formats, bar fill and the layout choice of `gpuscope top`.
 */
#include <stdio.h>

#include "ui/fmt.h"

const char *const gs_layout_names[GS_LAYOUT_PREF_COUNT] = { "auto", "full", "compact", "line" };

const char *gs_fmt_bytes(uint64_t bytes, char *buf, unsigned len)
{
    static const char units[] = "KMGTP";
    double v = (double)bytes;
    int u = -1;

    if (bytes < 1024) {
        snprintf(buf, len, "%uB", (unsigned)bytes);
        return buf;
    }
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (v >= 100 || u == 1 || u == 0)
        snprintf(buf, len, "%.0f%c", v, units[u]);
    else if (v >= 10)
        snprintf(buf, len, "%.1f%c", v, units[u]);
    else
        snprintf(buf, len, "%.2f%c", v, units[u]);
    return buf;
}

const char *gs_fmt_age(uint64_t s, char *buf, unsigned len)
{
    if (s < 60)
        snprintf(buf, len, "%us", (unsigned)s);
    else if (s < 3600)
        snprintf(buf, len, "%u:%02u", (unsigned)(s / 60), (unsigned)(s % 60));
    else if (s < 86400)
        snprintf(buf, len, "%u:%02u:%02u", (unsigned)(s / 3600), (unsigned)(s / 60 % 60),
                 (unsigned)(s % 60));
    else
        snprintf(buf, len, "%ud%02uh", (unsigned)(s / 86400), (unsigned)(s / 3600 % 24));
    return buf;
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

void gs_layout_pick(struct gs_layout *l, int rows, int cols, uint32_t ngpus,
                    enum gs_layout_pref pref, int want_chart)
{
    int fixed = 3; /* title line, table header, footer */
    int table_min = rows / 3 > 5 ? rows / 3 : 5;
    int room = rows - fixed - table_min;
    enum gs_layout_pref k = pref;

    if (k == GS_LAYOUT_AUTO) {
        k = GS_LAYOUT_LINE;
        if ((int)ngpus * block_h(GS_LAYOUT_FULL, cols, want_chart) <= room && cols >= 80)
            k = GS_LAYOUT_FULL;
        else if ((int)ngpus * block_h(GS_LAYOUT_COMPACT, cols, 0) <= room && cols >= 60)
            k = GS_LAYOUT_COMPACT;
    }
    l->kind = k;
    l->gpu_h = block_h(k, cols, want_chart);
    int maxg = (rows - fixed - 2) / l->gpu_h; /* always leave two process rows */
    if (maxg < 1)
        maxg = 1;
    l->gpus_shown = (int)ngpus < maxg ? (int)ngpus : maxg;
    place_chart(l, cols, want_chart);
    l->table_y = 1 + l->gpus_shown * l->gpu_h + ((int)ngpus > l->gpus_shown);
    l->table_h = rows - l->table_y - 1;
    if (l->table_h < 0)
        l->table_h = 0;
}
