/* SPDX-License-Identifier: MIT */
/*
 * report_html.c - the HTML report: one self-contained file. The tables
 * (summary, processes, events) are plain HTML; the charts are drawn in the
 * browser by an inline script (report.js, embedded in the module) from the
 * chart data embedded as JSON, at the page's width, with a hover readout and
 * GPU toggles: lines per metric, GPU x time heatmaps, per-GPU small
 * multiples, per-process memory. Nothing is fetched at view time (a
 * Content-Security-Policy says so to the browser).
 */
#include "record/html_esc.h"
#include "record/report.h"

#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern const char gs_report_js[]; /* report_js.c: src/record/report.js */

/* ---- the embedded data --------------------------------------------------------------- */
static void jnum(FILE *out, double v, int dec)
{
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fprintf(out, "%.*f", dec, v);
}

static void jseries(FILE *out, const float *v, unsigned w, int dec)
{
    fputc('[', out);
    for (unsigned b = 0; b < w; b++) {
        if (b)
            fputc(',', out);
        jnum(out, v[b], dec);
    }
    fputc(']', out);
}

/* Runs of buckets [start, end) where the GPU was in a serious slowdown. */
static void jruns(FILE *out, const uint8_t *f, unsigned w)
{
    bool first = true;
    fputc('[', out);
    for (unsigned b = 0; b < w;) {
        if (!f[b]) {
            b++;
            continue;
        }
        unsigned e = b;
        while (e < w && f[e])
            e++;
        fprintf(out, "%s[%u,%u]", first ? "" : ",", b, e);
        first = false;
        b = e;
    }
    fputc(']', out);
}

/* The report zone's UTC offset from each time on: charts show the generating machine's
 * local time (as the tables do), whatever zone the browser is in. Zones change offset
 * on quarter-hour boundaries, so checking those finds every change. */
static void jzone(FILE *out, int64_t from, int64_t to)
{
    long last = LONG_MIN;
    bool first = true;
    fputc('[', out);
    for (int64_t t = from - ((from % 900000) + 900000) % 900000; t <= to; t += 900000) {
        time_t s = (time_t)(t / 1000);
        struct tm tm;
        localtime_r(&s, &tm);
        if (tm.tm_gmtoff != last) {
            fprintf(out, "%s[%lld,%ld]", first ? "" : ",", (long long)(first ? from : t), tm.tm_gmtoff);
            last = tm.tm_gmtoff;
            first = false;
        }
    }
    fputc(']', out);
}

static const struct { enum gs_metric m; const char *key, *title, *unit; int dec; } metrics[] = {
    { GS_M_UTIL, "util", "GPU utilization", "%", 1 },
    { GS_M_MEM, "mem", "Memory used", "MiB", 0 },
    { GS_M_TEMP, "temp", "Temperature", "\u00b0C", 1 },
    { GS_M_POWER, "power", "Power", "W", 1 },
    { GS_M_SM, "sm", "SM clock", "MHz", 0 },
    { GS_M_MEMCLK, "memclk", "Memory clock", "MHz", 0 },
    { GS_M_TX, "tx", "PCIe TX", "MB/s", 0 },
    { GS_M_RX, "rx", "PCIe RX", "MB/s", 0 },
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

static void data_json(FILE *out, const struct gs_chart *c)
{
    unsigned n = c->sum.ngpus;
    fprintf(out, "<script type=\"application/json\" id=\"gs-data\">{\"v\":1,\"from\":%lld,\"to\":%lld,\"w\":%u,"
            "\"interval_ms\":%u,\"maxgap\":%u,\"proc_maxgap\":%u,\"tz\":", (long long)c->from_ms, (long long)c->to_ms,
            c->w, c->sum.interval_ms, c->maxgap, c->proc_maxgap);
    jzone(out, c->from_ms, c->to_ms);
    fputs(",\n\"gpus\":[", out);
    for (unsigned g = 0; g < n; g++) {
        const struct gs_gpu_summary *s = &c->sum.g[g];
        fprintf(out, "%s{\"idx\":%d,\"name\":", g ? ",\n" : "", s->idx);
        gs_html_jstr(out, s->name);
        fputs(",\"uuid\":", out);
        gs_html_jstr(out, s->uuid);
        fputs(",\"mem_total\":", out);
        jnum(out, s->mem_total_mib, 0);
        fputs(",\"slowdown\":", out);
        jnum(out, s->temp_slowdown_c, 0);
        fputs(",\"limit\":", out);
        jnum(out, s->power_limit_w, 0);
        fputs(",\"serious\":", out);
        jruns(out, c->serious + (size_t)g * c->w, c->w);
        fputc('}', out);
    }
    fputs("],\n\"metrics\":[", out);
    for (size_t m = 0; m < NMETRICS; m++) {
        fprintf(out, "%s{\"key\":\"%s\",\"title\":\"%s\",\"unit\":", m ? ",\n" : "", metrics[m].key, metrics[m].title);
        gs_html_jstr(out, metrics[m].unit);
        fputs(",\"data\":[", out);
        for (unsigned g = 0; g < n; g++) {
            fputs(g ? ",\n" : "", out);
            jseries(out, c->v[metrics[m].m] + (size_t)g * c->w, c->w, metrics[m].dec);
        }
        fputs("]}", out);
    }
    fputs("],\n\"procs\":[", out);
    for (unsigned p = 0; p < c->nprocs; p++) {
        fputs(p ? ",\n{\"label\":" : "{\"label\":", out);
        gs_html_jstr(out, c->proc_label[p]);
        fputs(",\"data\":", out);
        jseries(out, c->pmem + (size_t)p * c->w, c->w, 0);
        fputc('}', out);
    }
    fputs("],\n\"marks\":[", out);
    for (unsigned i = 0; i < c->nmarks; i++) {
        const struct gs_mark *m = &c->marks[i];
        fprintf(out, "%s{\"t\":%lld,\"gpu\":%d,\"kind\":", i ? ",\n" : "", (long long)m->t, m->gpu);
        gs_html_jstr(out, m->kind);
        fprintf(out, ",\"code\":%lld,\"text\":", (long long)m->code);
        gs_html_jstr(out, m->text);
        fputc('}', out);
    }
    fputs("]}</script>\n", out);
}

/* ---- the tables ---------------------------------------------------------------------- */
static void summary_table(FILE *out, const struct gs_chart *c)
{
    char buf[32];
    bool approx = false;
    fputs("<h2>Summary</h2><table><tr><th>GPU</th><th>name</th><th>mean util</th><th>p95 util</th><th>peak memory</th>"
          "<th>peak temp (slowdown)</th><th>mean power (limit)</th><th>energy</th><th>idle GPU-hours</th>"
          "<th>throttled</th><th>Xids</th></tr>\n", out);
    for (unsigned i = 0; i < c->sum.ngpus; i++) {
        const struct gs_gpu_summary *g = &c->sum.g[i];
        approx |= g->util_p95_from_rollups;
        fprintf(out, "<tr><td>%d</td><td>", g->idx);
        gs_html_esc(out, g->name);
        fprintf(out, "</td><td>%.1f %%</td><td>%s%.0f %%</td><td>%.1f GiB</td><td>%.0f &deg;C (%.0f)</td>"
                "<td>%.0f W (%.0f)</td><td title=\"%.3f J\">%s%s</td><td>%.2f</td><td>", g->util_mean,
                g->util_p95_from_rollups ? "<span class=\"approx\" title=\"p95 of one-minute means where the samples "
                "are gone\">&asymp;</span> " : "", g->util_p95,
                g->mem_peak_mib / 1024, g->temp_peak_c, g->temp_slowdown_c, g->power_mean_w, g->power_limit_w,
                g->energy_j, gs_fmt_energy(g->energy_j, buf, sizeof(buf)), g->energy_estimated ? " (from power)" : "", g->idle_h);
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
    if (approx)
        fputs("<p class=\"note\">&asymp; p95: part of the range has only one-minute rollups (older than the "
              "full-resolution retention); there the p95 is that of the one-minute means.</p>\n", out);
}

static void proc_table(FILE *out, struct gs_store *st, const struct gs_chart *c)
{
    sqlite3_stmt *q;
    char a[48], b[48];
    char sql[2048];
    /* the peak: of every tick (proc.gpu_mem_peak_mib, schema 3) or of the process samples */
    snprintf(sql, sizeof(sql), "SELECT p.pid, coalesce(p.user,''), coalesce(p.name,''), coalesce(p.cmdline,''),"
             " p.first_t, coalesce(p.end_t, p.last_t), max(coalesce(m.peak, p.gpu_mem_peak_mib),"
             " coalesce(p.gpu_mem_peak_mib, m.peak)), m.gpus, coalesce(p.container_id, ''),"
             " t.alloc, t.res, t.retries, t.ooms FROM proc p"
             " LEFT JOIN (SELECT proc, max(mem) AS peak, group_concat(DISTINCT gpu) AS gpus FROM %s GROUP BY proc) m"
             " ON m.proc = p.id LEFT JOIN (SELECT proc, max(max_allocated_mib) AS alloc, max(reserved_mib) AS res,"
             " max(alloc_retries) AS retries, max(ooms) AS ooms FROM proc_torch WHERE t >= ?1 AND t < ?2 GROUP BY proc) t"
             " ON t.proc = p.id WHERE p.first_t < ?2 AND coalesce(p.end_t, p.last_t, p.first_t) >= ?1"
             " ORDER BY 7 DESC LIMIT 100", gs_chart_proc_src());
    if (sqlite3_prepare_v2(gs_store_db(st), sql, -1, &q, NULL) != SQLITE_OK)
        return;
    gs_chart_bind_src(q, c);
    fputs("<h2>Processes</h2><table><tr><th>PID</th><th>user</th><th>name</th><th>GPUs</th><th>peak GPU memory</th>"
          "<th>from</th><th>to</th><th>container</th><th>command</th></tr>\n", out);
    while (sqlite3_step(q) == SQLITE_ROW) {
        fprintf(out, "<tr><td>%d</td><td>", sqlite3_column_int(q, 0));
        gs_html_esc(out, (const char *)sqlite3_column_text(q, 1));
        fputs("</td><td>", out);
        gs_html_esc(out, (const char *)sqlite3_column_text(q, 2));
        fprintf(out, "</td><td>%s</td><td>", sqlite3_column_text(q, 7) ? (const char *)sqlite3_column_text(q, 7) : "");
        if (sqlite3_column_type(q, 6) != SQLITE_NULL)
            fprintf(out, "%.0f MiB", sqlite3_column_double(q, 6));
        if (sqlite3_column_type(q, 9) != SQLITE_NULL) /* PyTorch's view, from the Python hook */
            fprintf(out, "<br><small>PyTorch: max allocated %lld MiB, reserved up to %lld MiB, %lld retries, "
                    "%lld OOMs</small>", sqlite3_column_int64(q, 9), sqlite3_column_int64(q, 10),
                    sqlite3_column_int64(q, 11), sqlite3_column_int64(q, 12));
        fprintf(out, "</td><td>%s</td><td>%s</td><td>%.12s</td><td><code>", gs_rfc3339(sqlite3_column_int64(q, 4), a, sizeof(a)),
                gs_rfc3339(sqlite3_column_int64(q, 5), b, sizeof(b)), sqlite3_column_text(q, 8));
        gs_html_esc(out, (const char *)sqlite3_column_text(q, 3));
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
        fprintf(out, "<tr><td>%s</td><td>", gs_rfc3339(m->t, ts, sizeof(ts)));
        if (m->gpu < 0)
            fputs("all", out);
        else
            fprintf(out, "%d", m->gpu);
        fprintf(out, "</td><td>%s ", m->kind);
        if (!strcmp(m->kind, "xid"))
            fprintf(out, "%lld", (long long)m->code);
        gs_html_esc(out, m->text);
        fputs("</td></tr>\n", out);
    }
    if (!c->nmarks)
        fputs("<tr><td colspan=\"3\">none</td></tr>\n", out);
    fputs("</table>\n", out);
}

static const char css[] =
    "body{font-family:system-ui,sans-serif;margin:16px 24px;color:#222;background:#fff}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}"
    "th{background:#eee}.note{font-size:12px;color:#555}.approx{cursor:help}"
    ".chart,.heat{margin:4px 0 14px}.chart h3,.heat h3,.mult h3{font-size:14px;margin:6px 0 2px}"
    "#gs-toggles{font-size:13px;position:sticky;top:0;background:#fff;padding:4px 0;z-index:2;"
    "border-bottom:1px solid #eee}#gs-toggles label{margin-right:10px;white-space:nowrap;cursor:pointer}"
    "#gs-toggles button{font-size:12px;margin-right:6px}"
    "#gs-mult{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:6px 14px}"
    ".mult h3{font-weight:normal}.sw{display:inline-block;width:10px;height:10px;margin-right:3px}"
    "#gs-tip{position:fixed;pointer-events:none;background:rgba(255,255,255,.96);border:1px solid #999;"
    "padding:4px 6px;font-size:12px;display:none;z-index:5;white-space:nowrap;box-shadow:0 1px 4px rgba(0,0,0,.2)}"
    "svg text{font-size:11px;fill:#333}.legend{font-size:12px}";

void gs_report_html(FILE *out, struct gs_store *st, const struct gs_chart *c)
{
    char a[48], b[48];
    unsigned n = c->sum.ngpus;
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
            "style-src 'unsafe-inline'; img-src data:\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            "<title>gpuscope report</title>\n<style>%s</style></head><body>\n<h1>gpuscope report</h1>\n"
            "<p>%s &ndash; %s, %u GPU%s, sampled every %.3g s</p>\n"
            "<noscript><p class=\"note\">The charts are drawn by the script inside this file (nothing is fetched); "
            "with scripts off, the tables below hold the figures.</p></noscript>\n", css,
            gs_rfc3339(c->from_ms, a, sizeof(a)), gs_rfc3339(c->to_ms, b, sizeof(b)), n, n == 1 ? "" : "s",
            c->sum.interval_ms / 1000.0);
    summary_table(out, c);
    fputs("<h2>Charts</h2>\n<div id=\"gs-toggles\"></div>\n", out);
    for (size_t m = 0; m < NMETRICS; m++)
        fprintf(out, "<div class=\"chart\" data-metric=\"%s\"></div>\n", metrics[m].key);
    if (c->nprocs)
        fputs("<div class=\"chart\" data-metric=\"procs\"></div>\n", out);
    fputs("<h2>Heatmaps</h2>\n<div class=\"heat\" data-metric=\"util\"></div>\n<div class=\"heat\" data-metric=\"mem\">"
          "</div>\n<div class=\"heat\" data-metric=\"temp\"></div>\n<h2>Per GPU</h2>\n<p class=\"legend\"><span class=\"sw\" "
          "style=\"background:#1f77b4\"></span>utilization <span class=\"sw\" style=\"background:#ff7f0e\"></span>memory "
          "used, % of the GPU's total; red bands: that GPU's slowdowns</p>\n<div id=\"gs-mult\"></div>\n", out);
    proc_table(out, st, c);
    event_table(out, c);
    fputs("<p><small>Generated by gpuscope report. Times are local to the machine that made it (RFC 3339 with zone); "
          "red bands: HW/thermal slowdown or power brake; red lines: Xids, lost GPUs; blue dashed lines: annotations.</small></p>"
          "<div id=\"gs-tip\"></div>\n", out);
    data_json(out, c);
    fprintf(out, "<script>\n%s</script>\n</body></html>\n", gs_report_js);
}
