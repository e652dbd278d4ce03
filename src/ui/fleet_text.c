/* SPDX-License-Identifier: MIT */
/*
 * fleet_text.c - the fleet view's columns as text: cells, the order of the
 * rows (sort and filter, the keys of today's top), node, GPU and process
 * lines. Shared by the curses view and --batch; no curses here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ui/fleet.h"

const struct gs_fleet_colinfo gs_fleet_cols[GS_FC_COUNT] = {
    [GS_FC_HOST] = { "NODE", 20, false, false },   [GS_FC_GPUS] = { "GPUS", 5, true, true },
    [GS_FC_UTIL] = { "UTIL", 5, true, true },      [GS_FC_UTIL_MAX] = { "MAX", 4, true, true },
    [GS_FC_MEM] = { "MEMORY", 15, true, true },    [GS_FC_TEMP] = { "HOT", 8, true, true },
    [GS_FC_POWER] = { "POWER", 7, true, true },    [GS_FC_THROT] = { "THR", 4, true, true },
    [GS_FC_XID] = { "XID1H", 6, true, true },      [GS_FC_HEALTH] = { "HEALTH", 22, false, true },
    [GS_FC_TOP] = { "TOP USER", 24, false, false },
};

/* v rounded with its unit, or "-" for no reading */
static const char *num(double v, const char *unit, char *buf, size_t len)
{
    if (isnan(v))
        return "-";
    snprintf(buf, len, "%.0f%s", v, unit);
    return buf;
}

static const char *health_cell(const struct gs_fleet_node *n, char *buf, size_t len)
{
    double c = n->v[GS_FV_CRIT], w = n->v[GS_FV_WARN], i = n->v[GS_FV_INFO];
    const char *code = n->finding[0] && n->finding[1] == ':' ? n->finding + 2 : n->finding;
    if (isnan(c) && isnan(w) && !n->finding[0])
        return "-"; /* dcgm-exporter only: no health series */
    if (c > 0)
        snprintf(buf, len, "C%.0f %s", c, code);
    else if (w > 0)
        snprintf(buf, len, "W%.0f %s", w, code);
    else if (i > 0 || n->finding[0])
        snprintf(buf, len, "i %s", code);
    else
        return "ok";
    return buf;
}

const char *gs_fleet_cell(const struct gs_fleet_node *n, enum gs_fleet_col c, char *buf, size_t len)
{
    switch (c) {
    case GS_FC_HOST: return n->host;
    case GS_FC_GPUS: return num(n->v[GS_FV_GPUS], "", buf, len);
    case GS_FC_UTIL: return num(n->v[GS_FV_UTIL], "%", buf, len);
    case GS_FC_UTIL_MAX: return num(n->v[GS_FV_UTIL_MAX], "%", buf, len);
    case GS_FC_MEM:
        if (isnan(n->v[GS_FV_MEM_USED]))
            return "-";
        snprintf(buf, len, "%.0f/%.0fG", n->v[GS_FV_MEM_USED] / 1024, n->v[GS_FV_MEM_TOTAL] / 1024);
        return buf;
    case GS_FC_TEMP:
        if (isnan(n->v[GS_FV_TEMP_MAX]))
            return "-";
        snprintf(buf, len, "%.0fC #%.0f", n->v[GS_FV_TEMP_MAX], isnan(n->v[GS_FV_HOT_GPU]) ? -1 : n->v[GS_FV_HOT_GPU]);
        return buf;
    case GS_FC_POWER: return num(n->v[GS_FV_POWER], "W", buf, len);
    case GS_FC_THROT: return num(n->v[GS_FV_THROTTLED], "", buf, len);
    case GS_FC_XID: return num(n->v[GS_FV_XID_1H], "", buf, len);
    case GS_FC_HEALTH: return health_cell(n, buf, len);
    case GS_FC_TOP:
        if (!n->top[0])
            return "-";
        snprintf(buf, len, "%s %.1fG", n->top, n->v[GS_FV_TOP_MIB] / 1024);
        return buf;
    default: return "";
    }
}

/* ---- order ---------------------------------------------------------------- */

struct order_ctx { const struct gs_fleet_snap *s; enum gs_fleet_col col; bool desc; };

static double sort_num(const struct gs_fleet_node *n, enum gs_fleet_col c)
{
    switch (c) {
    case GS_FC_GPUS: return n->v[GS_FV_GPUS];
    case GS_FC_UTIL: return n->v[GS_FV_UTIL];
    case GS_FC_UTIL_MAX: return n->v[GS_FV_UTIL_MAX];
    case GS_FC_MEM: return n->v[GS_FV_MEM_USED];
    case GS_FC_TEMP: return n->v[GS_FV_TEMP_MAX];
    case GS_FC_POWER: return n->v[GS_FV_POWER];
    case GS_FC_THROT: return n->v[GS_FV_THROTTLED];
    case GS_FC_XID: return n->v[GS_FV_XID_1H];
    case GS_FC_HEALTH: {
        double cr = n->v[GS_FV_CRIT], w = n->v[GS_FV_WARN];
        return (isnan(cr) ? 0 : cr) * 1000 + (isnan(w) ? 0 : w);
    }
    case GS_FC_TOP: return n->v[GS_FV_TOP_MIB];
    default: return NAN;
    }
}

static int node_cmp(const void *a, const void *b, void *arg)
{
    const struct order_ctx *o = arg;
    const struct gs_fleet_node *x = &o->s->nodes[*(const size_t *)a];
    const struct gs_fleet_node *y = &o->s->nodes[*(const size_t *)b];
    int r;
    if (x->lost != y->lost)
        return x->lost ? 1 : -1; /* lost nodes last, whatever the order */
    if (o->col == GS_FC_HOST) {
        r = strcmp(x->host, y->host);
    } else {
        double u = sort_num(x, o->col), v = sort_num(y, o->col);
        if (isnan(u) || isnan(v)) /* no reading: always below the readings */
            return isnan(u) && isnan(v) ? strcmp(x->host, y->host) : isnan(u) ? 1 : -1;
        r = u < v ? -1 : u > v ? 1 : 0;
        if (!r)
            return strcmp(x->host, y->host);
    }
    return o->desc ? -r : r;
}

size_t gs_fleet_order(const struct gs_fleet_snap *s, const char *filter, enum gs_fleet_col col,
                      bool desc, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct gs_fleet_node *x = &s->nodes[i];
        if (filter && *filter && !strstr(x->host, filter) && !strstr(x->top, filter) &&
            !strstr(x->finding, filter))
            continue;
        idx[n++] = i;
    }
    struct order_ctx o = { s, col, desc };
    qsort_r(idx, n, sizeof(*idx), node_cmp, &o);
    return n;
}

/* ---- lines ----------------------------------------------------------------- */

/* Append s cut or padded to w cells (ASCII widths: labels are repaired UTF-8,
 * a cut inside a character is avoided by backing up to its lead byte). */
static size_t put_cell(char *buf, size_t len, size_t at, const char *s, int w, bool right)
{
    size_t sl = strlen(s);
    if (sl > (size_t)w) {
        sl = (size_t)w;
        while (sl && ((unsigned char)s[sl] & 0xC0) == 0x80)
            sl--;
    }
    int pad = w - (int)sl;
    if (at + (size_t)w + 2 >= len)
        return at;
    if (right)
        at += (size_t)snprintf(buf + at, len - at, "%*s", pad, "");
    memcpy(buf + at, s, sl);
    at += sl;
    if (!right)
        at += (size_t)snprintf(buf + at, len - at, "%*s", pad, "");
    buf[at++] = ' ';
    buf[at] = '\0';
    return at;
}

static int host_w(int w)
{
    int rest = 0;
    for (int c = 1; c < GS_FC_COUNT; c++)
        rest += gs_fleet_cols[c].w + 1;
    int hw = w - rest - 1;
    return hw < 12 ? 12 : hw > 40 ? 40 : hw;
}

void gs_fleet_header_line(char *buf, size_t len, int w, enum gs_fleet_col sorted, bool desc)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int c = 0; c < GS_FC_COUNT; c++) {
        char t[40];
        snprintf(t, sizeof(t), "%s%s", gs_fleet_cols[c].title, c == (int)sorted ? (desc ? "v" : "^") : "");
        at = put_cell(buf, len, at, t, c == GS_FC_HOST ? host_w(w) : gs_fleet_cols[c].w, gs_fleet_cols[c].right);
    }
}

void gs_fleet_node_line(const struct gs_fleet_node *n, char *buf, size_t len, int w)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int c = 0; c < GS_FC_COUNT; c++) {
        char cell[256];
        const char *s = gs_fleet_cell(n, (enum gs_fleet_col)c, cell, sizeof(cell));
        if (c == GS_FC_TOP && n->lost) {
            time_t t = (time_t)n->lost_since;
            struct tm tm;
            localtime_r(&t, &tm);
            strftime(cell, sizeof(cell), "LOST since %H:%M:%S", &tm);
            s = cell;
        }
        at = put_cell(buf, len, at, s, c == GS_FC_HOST ? host_w(w) : gs_fleet_cols[c].w, gs_fleet_cols[c].right);
    }
}

void gs_fleet_gpu_header(char *buf, size_t len)
{
    snprintf(buf, len, "%3s %-22s %5s %5s %13s %5s %6s %6s %6s %-14s %-20s %s", "GPU", "MODEL", "UTIL", "MEMIO",
             "MEMORY", "TEMP", "POWER", "SMCLK", "MEMCLK", "THROTTLE", "HEALTH/POD", "UTIL (10 min)");
}

static const char *mib_pair(const struct gs_fleet_gpu *g, char *buf, size_t len)
{
    double u = g->v[GS_FG_FB_USED], f = g->v[GS_FG_FB_FREE];
    if (isnan(u))
        return "-";
    snprintf(buf, len, "%.0f/%.0fM", u, isnan(f) ? NAN : u + f);
    return buf;
}

/* The utilization chart: eight block heights (UTF-8) or ASCII levels. */
static void spark(const struct gs_fleet_gpu *g, char *buf, size_t len, bool utf8)
{
    static const char lv[] = " .:-=+*#%@";
    static const char *const blk[] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
                                       "\u2587", "\u2588" };
    size_t k = 0;
    for (int i = 0; i < GS_FLEET_HIST && k + 4 < len; i++) {
        double h = g->hist[i];
        if (isnan(h)) {
            buf[k++] = ' ';
        } else if (utf8) {
            const char *b = blk[(int)fmin(7, fmax(0, h / 100.0 * 7.99))];
            memcpy(buf + k, b, 3);
            k += 3;
        } else {
            buf[k++] = lv[(int)fmin(9, fmax(0, h / 100.0 * 9.99))];
        }
    }
    buf[k] = '\0';
}

void gs_fleet_gpu_line(const struct gs_fleet_gpu *g, char *buf, size_t len, bool utf8)
{
    char a[8][32], mem[40], sp[GS_FLEET_HIST * 3 + 1];
    const char *hp = g->finding[0] ? g->finding : g->pod[0] ? g->pod : "-";
    spark(g, sp, sizeof(sp), utf8);
    snprintf(buf, len, "%3d %-22.22s %5s %5s %13s %5s %6s %6s %6s %-14.14s %-20.20s %s", g->index,
             g->model[0] ? g->model : "-", num(g->v[GS_FG_UTIL], "%", a[0], 32),
             num(g->v[GS_FG_MEMUTIL], "%", a[1], 32), mib_pair(g, mem, sizeof(mem)),
             num(g->v[GS_FG_TEMP], "C", a[2], 32), num(g->v[GS_FG_POWER], "W", a[3], 32),
             num(g->v[GS_FG_SM_CLK], "", a[4], 32), num(g->v[GS_FG_MEM_CLK], "", a[5], 32),
             !g->throttle_known ? "-" : g->throttle[0] ? g->throttle : "none", hp, sp);
}

void gs_fleet_proc_header(char *buf, size_t len)
{
    snprintf(buf, len, "%8s %-16s %-12s %10s %5s %s", "PID", "COMMAND", "USER", "GPU MEM", "SM", "POD");
}

void gs_fleet_proc_line(const struct gs_fleet_proc *p, char *buf, size_t len)
{
    char m[32], s[32];
    snprintf(buf, len, "%8ld %-16.16s %-12.12s %10s %5s %s", p->pid, p->comm[0] ? p->comm : "-",
             p->user[0] ? p->user : "-", num(p->mem_mib, "MiB", m, sizeof(m)),
             num(p->sm_pct, "%", s, sizeof(s)), p->pod[0] ? p->pod : "-");
}

void gs_fleet_status_line(const struct gs_fleet_snap *s, char *buf, size_t len)
{
    size_t lost = 0;
    double gpus = 0;
    for (size_t i = 0; i < s->n; i++) {
        lost += s->nodes[i].lost;
        if (!s->nodes[i].lost && !isnan(s->nodes[i].v[GS_FV_GPUS]))
            gpus += s->nodes[i].v[GS_FV_GPUS];
    }
    int n = snprintf(buf, len, "%zu nodes (%zu lost), %.0f GPUs; %u requests, Prometheus %.0f ms", s->n, lost,
                     gpus, s->requests, s->query_ms);
    if (s->failed && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "; %u queries failed: %s", s->failed, s->err.msg);
}
