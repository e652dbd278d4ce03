/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the two numeric detectors the process checks use: least-squares
 * regression (memory leaks) and a busy/idle cycle detector (input-pipeline
 * stalls: utilization alternating between ~0 % and high with a period of
 * seconds). Pure functions over arrays, unit-tested on synthetic series.
 */
#include "health/health.h"

#include <math.h>
#include <string.h>

bool gs_linreg(const double *x, const double *y, size_t n, struct gs_linreg *out)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;

    if (n < 3)
        return false;
    double x0 = x[0], y0 = y[0]; /* shift for precision */
    for (size_t i = 0; i < n; i++) {
        double a = x[i] - x0, b = y[i] - y0;
        sx += a;
        sy += b;
        sxx += a * a;
        sxy += a * b;
        syy += b * b;
    }
    double dn = (double)n;
    double vx = sxx - sx * sx / dn, vy = syy - sy * sy / dn, cxy = sxy - sx * sy / dn;
    if (vx <= 0)
        return false;
    out->slope = cxy / vx;
    out->r2 = vy > 0 ? (cxy * cxy) / (vx * vy) : 1.0;
    out->span = x[n - 1] - x[0];
    return true;
}

/* Levels: 0 low, 2 high, 1 in between (ignored for edges). A cycle is the
 * time from one low->high edge to the next. */
/* A window too short for saw_min_cycles cycles of the period it shows: judged on
 * a cycle and a half (three level changes: a whole busy and a whole idle phase
 * between edges), phases of one kind alike when there are two. */
static bool saw_short(const double *edge, size_t k, double span, const struct gs_health_cfg *cfg, struct gs_saw *out)
{
    if (k < 3)
        return false;
    double p = (edge[k - 1] - edge[0]) * 2.0 / (double)(k - 1); /* two level changes a cycle */
    if (span >= (cfg->saw_min_cycles + 0.5) * p)
        return false; /* room for the full count: the usual rule decides */
    for (size_t j = 0; j + 3 < k; j++) { /* phase j and the next of its kind, j + 2 */
        double a = edge[j + 1] - edge[j], b = edge[j + 3] - edge[j + 2];
        if (fmax(a, b) > 1.5 * fmin(a, b))
            return false;
    }
    out->period_s = p;
    out->short_window = true;
    return true;
}

bool gs_sawtooth(const double *t, const double *u, size_t n, const struct gs_health_cfg *cfg,
                 struct gs_saw *out)
{
    size_t low = 0, high = 0, edges = 0, k = 0;
    double first_edge = 0, last_edge = 0, sum = 0, edge[8];
    double min_cycle = INFINITY, max_cycle = 0;
    int state = -1;

    memset(out, 0, sizeof(*out));
    if (n < 8)
        return false;
    for (size_t i = 0; i < n; i++) {
        sum += u[i];
        int lv = u[i] <= cfg->saw_low_pct ? 0 : u[i] >= cfg->saw_high_pct ? 2 : 1;
        low += lv == 0;
        high += lv == 2;
        if (lv == 1)
            continue;
        if (state >= 0 && state != lv && k < sizeof(edge) / sizeof(edge[0]))
            edge[k++] = t[i];
        if (state == 0 && lv == 2) {
            if (edges > 0) {
                double c = t[i] - last_edge;
                min_cycle = fmin(min_cycle, c);
                max_cycle = fmax(max_cycle, c);
            } else {
                first_edge = t[i];
            }
            last_edge = t[i];
            edges++;
        }
        state = lv;
    }
    double dn = (double)n;
    out->idle_share = (double)low / dn;
    out->mean_pct = sum / dn;
    out->edges = (uint32_t)k;
    out->cycles = edges > 0 ? (uint32_t)(edges - 1) : 0;
    out->period_s = out->cycles ? (last_edge - first_edge) / out->cycles : 0;
    /* bimodal (few samples in between), both levels held, regular, seconds-long */
    if ((double)(low + high) < 0.8 * dn || out->idle_share < 0.1 || out->idle_share > 0.7)
        return false;
    if (out->cycles < cfg->saw_min_cycles && !saw_short(edge, k, t[n - 1] - t[0], cfg, out))
        return false;
    /* an edge is seen at the first sample past it: a period may read one interval short */
    double dt = (t[n - 1] - t[0]) / (dn - 1);
    if (out->period_s + dt < 2.0 || out->period_s > cfg->saw_max_period_s)
        return false;
    return out->short_window || max_cycle <= 1.5 * min_cycle;
}
