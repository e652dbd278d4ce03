/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - the HTML report: one self-contained file (inline CSS, SVG
 * charts, no scripts, nothing fetched), readable offline and printable.
 * Charts: one per metric, a line per GPU; HW/thermal slowdown shaded red,
 * Xids / lost GPUs red lines, annotations blue lines; then summary tables.
 */
#include "record/report.h"

#include <math.h>
#include <string.h>

#define CW 920   /* chart width, px */
#define CH 170   /* chart height */
#define PL 70    /* left margin */
#define PR 12
#define PT 10
#define PB 24

static const char *const colors[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                                      "#17becf", "#bcbd22" };

static void esc(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

static double xpos(const struct gs_chart *c, double b)
{
    return PL + b * (CW - PL - PR) / c->w;
}

static double xpos_t(const struct gs_chart *c, int64_t t)
{
    return xpos(c, (double)(t - c->from_ms) * c->w / (double)(c->to_ms - c->from_ms));
}

static void time_axis(FILE *out, const struct gs_chart *c)
{
    char buf[48];
    for (int i = 0; i <= 4; i++) {
        int64_t t = c->from_ms + (c->to_ms - c->from_ms) * i / 4;
        gs_rfc3339(t, buf, sizeof(buf));
        bool days = c->to_ms - c->from_ms > 86400000LL;
        fprintf(out, "<text x=\"%.0f\" y=\"%d\" font-size=\"10\" text-anchor=\"%s\">%.*s</text>", xpos_t(c, t),
                CH - 6, i == 0 ? "start" : i == 4 ? "end" : "middle", days ? 16 : 5, buf + (days ? 0 : 11));
    }
}

static void markers(FILE *out, const struct gs_chart *c)
{
    for (unsigned b = 0; b < c->w; b++)
        if (c->serious[b])
            fprintf(out, "<rect class=\"thr\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#d62728\" "
                    "fill-opacity=\"0.15\"/>", xpos(c, b), PT, xpos(c, 1) - PL + 0.5, CH - PT - PB);
    for (unsigned i = 0; i < c->nmarks; i++) {
        const struct gs_mark *m = &c->marks[i];
        bool mark = !strcmp(m->kind, "mark");
        double x = xpos_t(c, m->t);
        fprintf(out, "<line class=\"ev-%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
                "stroke-dasharray=\"%s\"><title>", m->kind, x, x, PT, CH - PB, mark ? "#1f4fd6" : "#d62728",
                mark ? "4 2" : "none");
        if (mark)
            esc(out, m->text);
        else
            fprintf(out, "%s %lld on GPU %d", m->kind, (long long)m->code, m->gpu);
        fputs("</title></line>", out);
        if (mark || !strcmp(m->kind, "xid")) {
            fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\" fill=\"%s\">", x + 2, PT + 9,
                    mark ? "#1f4fd6" : "#d62728");
            if (mark)
                esc(out, m->text);
            else
                fprintf(out, "Xid %lld", (long long)m->code);
            fputs("</text>", out);
        }
    }
}

static void polyline(FILE *out, const struct gs_chart *c, const float *v, double ymax, const char *color)
{
    bool open = false;
    for (unsigned b = 0; b < c->w; b++) {
        if (isnan(v[b])) {
            if (open)
                fputs("\"/>", out);
            open = false;
            continue;
        }
        double y = PT + (CH - PT - PB) * (1 - fmin(v[b] / ymax, 1.0));
        if (!open)
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\" points=\"", color);
        fprintf(out, "%.1f,%.1f ", xpos(c, b + 0.5), y);
        open = true;
    }
    if (open)
        fputs("\"/>", out);
}

static double series_max(const float *v, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]) && v[i] > m)
            m = v[i];
    return m;
}

/* One chart: a line per GPU for metric m, optional dashed threshold lines. */
static void chart(FILE *out, const struct gs_chart *c, const char *title, const char *unit, const float *data,
                  unsigned nlines, double ymax, double thresh, const char *thresh_label)
{
    if (ymax <= 0)
        ymax = 1;
    fprintf(out, "<figure><figcaption>%s</figcaption><svg width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
            "fill=\"#fafafa\" stroke=\"#ccc\"/>", title, CW, CH, CW, CH, PL, PT, CW - PL - PR, CH - PT - PB);
    for (int i = 0; i <= 2; i++)
        fprintf(out, "<text x=\"%d\" y=\"%.0f\" font-size=\"10\" text-anchor=\"end\">%.0f %s</text>", PL - 4,
                PT + (CH - PT - PB) * (1 - i / 2.0) + 3, ymax * i / 2, unit);
    markers(out, c);
    for (unsigned g = 0; g < nlines; g++)
        polyline(out, c, data + (size_t)g * c->w, ymax, colors[g % 8]);
    if (thresh > 0) {
        double y = PT + (CH - PT - PB) * (1 - fmin(thresh / ymax, 1.0));
        fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"6 3\"/>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" fill=\"#d62728\" text-anchor=\"end\">%s</text>",
                PL, CW - PR, y, y, CW - PR - 2, y - 3, thresh_label);
    }
    time_axis(out, c);
    fputs("</svg></figure>\n", out);
}

static void legend(FILE *out, const struct gs_chart *c)
{
    fputs("<p class=\"legend\">", out);
    for (unsigned g = 0; g < c->sum.ngpus; g++) {
        fprintf(out, "<span style=\"color:%s\">&#9632;</span> GPU %d ", colors[g % 8], c->sum.g[g].idx);
        esc(out, c->sum.g[g].name);
        fputs(" &nbsp; ", out);
    }
    fputs("<span style=\"color:#d62728\">&#9632;</span> HW/thermal slowdown, Xid "
          "<span style=\"color:#1f4fd6\">&#9474;</span> annotation</p>\n", out);
}

static void summary_table(FILE *out, const struct gs_chart *c)
{
    char buf[32];
    fputs("<h2>Summary</h2><table><tr><th>GPU</th><th>name</th><th>mean util</th><th>p95 util</th><th>peak memory</th>"
          "<th>peak temp (slowdown)</th><th>mean power (limit)</th><th>energy</th><th>idle GPU-hours</th>"
          "<th>throttled</th><th>Xids</th></tr>\n", out);
    for (unsigned i = 0; i < c->sum.ngpus; i++) {
        const struct gs_gpu_summary *g = &c->sum.g[i];
        fprintf(out, "<tr><td>%d</td><td>", g->idx);
        esc(out, g->name);
        fprintf(out, "</td><td>%.1f %%</td><td>%s%.0f %%</td><td>%.1f GiB</td><td>%.0f &deg;C (%.0f)</td>"
                "<td>%.0f W (%.0f)</td><td>%.3f kWh%s</td><td>%.2f</td><td>", g->util_mean,
                g->util_p95_from_rollups ? "<span title=\"p95 of one-minute means where the samples are gone\">"
                "&asymp;</span> " : "", g->util_p95,
                g->mem_peak_mib / 1024, g->temp_peak_c, g->temp_slowdown_c, g->power_mean_w, g->power_limit_w,
                g->energy_j / 3.6e6, g->energy_estimated ? " (from power)" : "", g->idle_h);
        bool any = false;
        for (int b = 1; b < 16; b++) {
            if (g->throttled_s[b] <= 0)
                continue;
            char name[64];
            gs_throttle_str(1ull << b, name, sizeof(name));
            fprintf(out, "%s%s: %s", any ? "<br>" : "", name, gs_fmt_secs(g->throttled_s[b], buf, sizeof(buf)));
            any = true;
        }
        fprintf(out, "%s</td><td>%u</td></tr>\n", any ? "" : "none", g->xids);
    }
    fputs("</table>\n", out);
}

static void proc_table(FILE *out, struct gs_store *st, const struct gs_chart *c)
{
    sqlite3_stmt *q;
    char a[48], b[48];
    char sql[1024];
    snprintf(sql, sizeof(sql), "SELECT p.pid, coalesce(p.user,''), coalesce(p.name,''), coalesce(p.cmdline,''),"
             " p.first_t, coalesce(p.end_t, p.last_t), m.peak, m.gpus, coalesce(p.container_id, '') FROM proc p"
             " LEFT JOIN (SELECT proc, max(mem) AS peak, group_concat(DISTINCT gpu) AS gpus FROM %s GROUP BY proc) m"
             " ON m.proc = p.id WHERE p.first_t < ?2 AND coalesce(p.end_t, p.last_t, p.first_t) >= ?1"
             " ORDER BY m.peak DESC LIMIT 100", gs_chart_proc_src());
    if (sqlite3_prepare_v2(gs_store_db(st), sql, -1, &q, NULL) != SQLITE_OK)
        return;
    gs_chart_bind_src(q, c);
    fputs("<h2>Processes</h2><table><tr><th>PID</th><th>user</th><th>name</th><th>GPUs</th><th>peak GPU memory</th>"
          "<th>from</th><th>to</th><th>container</th><th>command</th></tr>\n", out);
    while (sqlite3_step(q) == SQLITE_ROW) {
        fprintf(out, "<tr><td>%d</td><td>", sqlite3_column_int(q, 0));
        esc(out, (const char *)sqlite3_column_text(q, 1));
        fputs("</td><td>", out);
        esc(out, (const char *)sqlite3_column_text(q, 2));
        fprintf(out, "</td><td>%s</td><td>", sqlite3_column_text(q, 7) ? (const char *)sqlite3_column_text(q, 7) : "");
        if (sqlite3_column_type(q, 6) != SQLITE_NULL)
            fprintf(out, "%.0f MiB", sqlite3_column_double(q, 6));
        fprintf(out, "</td><td>%s</td><td>%s</td><td>%.12s</td><td><code>", gs_rfc3339(sqlite3_column_int64(q, 4), a, sizeof(a)),
                gs_rfc3339(sqlite3_column_int64(q, 5), b, sizeof(b)), sqlite3_column_text(q, 8));
        esc(out, (const char *)sqlite3_column_text(q, 3));
        fputs("</code></td></tr>\n", out);
    }
    fputs("</table>\n", out);
    sqlite3_finalize(q);
}

static void event_table(FILE *out, const struct gs_chart *c)
{
    char ts[48];
    fputs("<h2>Events</h2><table><tr><th>time</th><th>GPU</th><th>what</th></tr>\n", out);
    for (unsigned i = 0; i < c->nmarks; i++) {
        const struct gs_mark *m = &c->marks[i];
        fprintf(out, "<tr><td>%s</td><td>%s%d</td><td>%s ", gs_rfc3339(m->t, ts, sizeof(ts)), m->gpu < 0 ? "all" : "",
                m->gpu < 0 ? 0 : m->gpu, m->kind);
        if (!strcmp(m->kind, "xid"))
            fprintf(out, "%lld", (long long)m->code);
        esc(out, m->text);
        fputs("</td></tr>\n", out);
    }
    if (!c->nmarks)
        fputs("<tr><td colspan=\"3\">none</td></tr>\n", out);
    fputs("</table>\n", out);
}

void gs_report_html(FILE *out, struct gs_store *st, const struct gs_chart *c)
{
    char a[48], b[48], lbl[32];
    unsigned n = c->sum.ngpus;
    size_t all = (size_t)n * c->w;
    double slow = 0, limit = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!isnan(c->sum.g[i].temp_slowdown_c) && (slow == 0 || c->sum.g[i].temp_slowdown_c < slow))
            slow = c->sum.g[i].temp_slowdown_c;
        if (!isnan(c->sum.g[i].power_limit_w) && c->sum.g[i].power_limit_w > limit)
            limit = c->sum.g[i].power_limit_w;
    }
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuscope report</title>\n"
            "<style>body{font-family:sans-serif;margin:24px;color:#222;background:#fff}"
            "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
            "th{background:#eee}figure{margin:8px 0}figcaption{font-weight:bold;font-size:14px}"
            ".legend{font-size:13px}</style></head><body>\n<h1>gpuscope report</h1>\n<p>%s &ndash; %s, %u GPU%s, "
            "sampled every %.3g s</p>\n", gs_rfc3339(c->from_ms, a, sizeof(a)), gs_rfc3339(c->to_ms, b, sizeof(b)), n,
            n == 1 ? "" : "s", c->sum.interval_ms / 1000.0);
    summary_table(out, c);
    fputs("<h2>Charts</h2>\n", out);
    legend(out, c);
    chart(out, c, "GPU utilization", "%", c->v[GS_M_UTIL], n, 100, 0, NULL);
    chart(out, c, "Memory used", "MiB", c->v[GS_M_MEM], n, series_max(c->v[GS_M_MEM], all) * 1.1, 0, NULL);
    snprintf(lbl, sizeof(lbl), "slowdown %.0f &deg;C", slow);
    chart(out, c, "Temperature", "&deg;C", c->v[GS_M_TEMP], n, fmax(series_max(c->v[GS_M_TEMP], all), slow) * 1.1,
          slow, lbl);
    snprintf(lbl, sizeof(lbl), "limit %.0f W", limit);
    chart(out, c, "Power", "W", c->v[GS_M_POWER], n, fmax(series_max(c->v[GS_M_POWER], all), limit) * 1.1, limit, lbl);
    chart(out, c, "SM clock", "MHz", c->v[GS_M_SM], n, series_max(c->v[GS_M_SM], all) * 1.1, 0, NULL);
    chart(out, c, "Memory clock", "MHz", c->v[GS_M_MEMCLK], n, series_max(c->v[GS_M_MEMCLK], all) * 1.1, 0, NULL);
    chart(out, c, "PCIe TX", "MB/s", c->v[GS_M_TX], n, series_max(c->v[GS_M_TX], all) * 1.1, 0, NULL);
    chart(out, c, "PCIe RX", "MB/s", c->v[GS_M_RX], n, series_max(c->v[GS_M_RX], all) * 1.1, 0, NULL);
    if (c->nprocs) {
        fputs("<p class=\"legend\">", out);
        for (unsigned p = 0; p < c->nprocs; p++) {
            fprintf(out, "<span style=\"color:%s\">&#9632;</span> ", colors[p % 8]);
            esc(out, c->proc_label[p]);
            fputs(" &nbsp; ", out);
        }
        fputs("</p>\n", out);
        chart(out, c, "GPU memory per process", "MiB", c->pmem, c->nprocs,
              series_max(c->pmem, (size_t)c->nprocs * c->w) * 1.1, 0, NULL);
    }
    proc_table(out, st, c);
    event_table(out, c);
    fputs("<p><small>Generated by gpuscope report. Times are local (RFC 3339 with zone).</small></p></body></html>\n", out);
}
