/* SPDX-License-Identifier: MIT */
/*
 * report_term.c - `gpuscope report --format term`: per GPU, one row of block
 * characters per metric over the range (scaled 0..max), then the summary.
 */
#include "record/report.h"

#include <math.h>
#include <string.h>

static void spark(FILE *out, const float *v, unsigned w, double ymax, bool utf8)
{
    static const char *const blocks[] = { " ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
    static const char ascii[] = " .:-=+*#@";
    for (unsigned b = 0; b < w; b++) {
        if (isnan(v[b])) {
            fputs(utf8 ? "\u00b7" : "?", out);
            continue;
        }
        int k = (int)lround(fmin(fmax(v[b] / (ymax > 0 ? ymax : 1), 0), 1) * 8);
        if (k == 0 && v[b] > 0)
            k = 1; /* a small value is not nothing: memory at 5 % of 80 GiB still shows */
        if (utf8)
            fputs(blocks[k], out);
        else
            fputc(ascii[k], out);
    }
    fputc('\n', out);
}

static double vmax(const float *v, unsigned w)
{
    double m = 0;
    for (unsigned b = 0; b < w; b++)
        if (!isnan(v[b]) && v[b] > m)
            m = v[b];
    return m;
}

void gs_report_term(FILE *out, const struct gs_chart *c, bool utf8)
{
    char a[48], b[48], buf[32];
    fprintf(out, "%s .. %s\n", gs_rfc3339(c->from_ms, a, sizeof(a)), gs_rfc3339(c->to_ms, b, sizeof(b)));
    for (unsigned g = 0; g < c->sum.ngpus; g++) {
        const struct gs_gpu_summary *s = &c->sum.g[g];
        fprintf(out, "\nGPU %d  %s\n", s->idx, s->name);
        struct { const char *label; enum gs_metric m; double max; const char *unit; } rows[] = {
            { "util", GS_M_UTIL, 100, "%" }, { "memory", GS_M_MEM, s->mem_total_mib, "MiB" },
            { "temp", GS_M_TEMP, fmax(s->temp_slowdown_c, 1), "C" }, { "power", GS_M_POWER, fmax(s->power_limit_w, 1), "W" },
            { "sm clock", GS_M_SM, 0, "MHz" },
        };
        for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
            const float *v = c->v[rows[r].m] + (size_t)g * c->w;
            double ymax = isnan(rows[r].max) || rows[r].max <= 0 ? vmax(v, c->w) : rows[r].max;
            fprintf(out, "  %-8s %6.0f%-3s ", rows[r].label, ymax, rows[r].unit);
            spark(out, v, c->w, ymax, utf8);
        }
        char ebuf[32];
        fprintf(out, "  mean util %.1f %%, p95 %s%.0f %%, peak memory %.0f MiB, peak temp %.0f C, energy %s%s, "
                "idle %.2f GPU-h, Xids %u\n", s->util_mean, s->util_p95_from_rollups ? (utf8 ? "\u2248" : "~") : "",
                s->util_p95, s->mem_peak_mib, s->temp_peak_c, gs_fmt_energy(s->energy_j, ebuf, sizeof(ebuf)),
                s->energy_estimated ? " (from power)" : "", s->idle_h, s->xids);
        if (s->util_p95_from_rollups)
            fprintf(out, "  (%s p95: where only one-minute rollups remain, the p95 of the minute means)\n",
                    utf8 ? "\u2248" : "~");
        for (int bit = 1; bit < 16; bit++) {
            if (s->throttled_s[bit] <= 0)
                continue;
            char name[64];
            gs_throttle_str(1ull << bit, name, sizeof(name));
            fprintf(out, "  throttled (%s): %s\n", name, gs_fmt_secs(s->throttled_s[bit], buf, sizeof(buf)));
        }
    }
    for (unsigned i = 0; i < c->nmarks; i++) {
        const struct gs_mark *m = &c->marks[i];
        fprintf(out, "%s  %s%s%lld %s\n", gs_rfc3339(m->t, a, sizeof(a)), m->kind, " ",
                (long long)m->code, m->text);
    }
}
