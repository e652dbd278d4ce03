/* SPDX-License-Identifier: MIT */
/*
 * fleet_report_out.c - `report --prometheus` written out: one self-contained
 * HTML file (fleet totals, node x time heatmaps drawn by an inline script
 * from embedded JSON, the per-node and per-namespace/job tables) or
 * terminal text. Nothing is fetched at view time (Content-Security-Policy).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/fleet_report.h"
#include "record/html_esc.h"

/* dec < 0: four significant digits (hours and energy span 0.001 to 10^5) */
static void cell(FILE *out, double v, int dec)
{
    if (isnan(v))
        fputs("<td>-</td>", out);
    else if (dec < 0)
        fprintf(out, "<td>%.4g</td>", v);
    else
        fprintf(out, "<td>%.*f</td>", dec, v);
}

static const char *when(double t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    localtime_r(&tt, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
    return buf;
}

struct totals { double gpus, gpu_h, idle_h, kwh, util; };

static struct totals fleet_totals(const struct gs_frep *r)
{
    struct totals t = { 0 };
    double uw = 0;
    for (size_t i = 0; i < r->nnodes; i++) {
        const struct gs_frep_row *w = &r->nodes[i];
        t.gpus += w->gpus_max;
        t.gpu_h += w->gpu_h;
        t.idle_h += w->idle_gpu_h;
        if (!isnan(w->energy_kwh))
            t.kwh += w->energy_kwh;
        if (!isnan(w->util_mean)) {
            t.util += w->util_mean * w->gpu_h;
            uw += w->gpu_h;
        }
    }
    t.util = uw > 0 ? t.util / uw : NAN;
    return t;
}

/* The nodes: rows, or with a selection the distinct node parts of the
 * "node:gpu" rows (sorted, so a node's GPUs are together). */
static size_t node_count(const struct gs_frep *r)
{
    size_t n = 0;
    for (size_t i = 0; r->per_gpu && i < r->nnodes; i++) {
        const char *a = r->nodes[i].name, *ca = strrchr(a, ':');
        const char *b = i ? r->nodes[i - 1].name : NULL, *cb = b ? strrchr(b, ':') : NULL;
        size_t la = ca ? (size_t)(ca - a) : strlen(a), lb = cb ? (size_t)(cb - b) : (b ? strlen(b) : 0);
        n += !b || la != lb || memcmp(a, b, la);
    }
    return r->per_gpu ? n : r->nnodes;
}

/* ---- HTML ------------------------------------------------------------------ */

static void html_head(FILE *out, const struct gs_frep *r)
{
    char a[64], b[64];
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'\">\n<title>gpuscope fleet report</title>\n"
          "<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
          "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
          "text-align:right}td:first-child,th:first-child{text-align:left}th{cursor:pointer;background:#f3f3f3}"
          ".tot span{display:inline-block;margin-right:2em}.tot b{font-size:1.3em}canvas{border:1px solid #ccc}"
          ".note{color:#666;font-size:12px}</style></head><body>\n", out);
    if (r->per_gpu) {
        fputs("<h1>GPU report: ", out);
        gs_html_esc(out, r->sel);
        fputs("</h1>\n<p>", out);
    } else {
        fputs("<h1>GPU fleet report</h1>\n<p>", out);
    }
    gs_html_esc(out, r->url);
    if (r->match[0]) {
        fputs(" <code>", out);
        gs_html_esc(out, r->match);
        fputs("</code>", out);
    }
    fprintf(out, ": %s &ndash; %s, buckets of %.0f s</p>\n", when(r->from, a, sizeof(a)), when(r->to, b, sizeof(b)),
            r->step);
}

static void html_totals(FILE *out, const struct gs_frep *r)
{
    struct totals t = fleet_totals(r);
    fprintf(out, "<p class=\"tot\"><span>nodes <b>%zu</b></span><span>GPUs <b>%.0f</b></span>"
            "<span>GPU-hours <b>%.1f</b></span><span>idle GPU-hours <b>%.1f</b> (%.0f %%)</span>"
            "<span>energy <b>%.2f kWh</b></span><span>mean utilization <b>%.0f %%</b></span></p>\n",
            node_count(r), t.gpus, t.gpu_h, t.idle_h, t.gpu_h > 0 ? 100 * t.idle_h / t.gpu_h : 0, t.kwh,
            isnan(t.util) ? 0 : t.util);
}

static void html_row_table(FILE *out, const char *id, const struct gs_frep_row *v, size_t n, bool nodes,
                           bool per_gpu)
{
    fprintf(out, "<table id=\"%s\"><thead><tr><th>%s</th><th>GPUs</th><th>GPU-hours</th><th>mean util %%</th>"
            "<th>peak util %%</th><th>idle GPU-hours</th><th>idle %%</th><th>energy kWh</th><th>mean power W</th>%s"
            "</tr></thead><tbody>\n", id, !nodes ? "namespace / job" : per_gpu ? "node:GPU" : "node",
            nodes ? "<th>peak memory GiB</th><th>peak temp &deg;C</th>" : "");
    for (size_t i = 0; i < n; i++) {
        const struct gs_frep_row *w = &v[i];
        fputs("<tr><td>", out);
        gs_html_esc(out, w->name);
        fputs("</td>", out);
        cell(out, w->gpus_max, 0);
        cell(out, w->gpu_h, -1);
        cell(out, w->util_mean, 1);
        cell(out, w->util_peak, 0);
        cell(out, w->idle_gpu_h, -1);
        cell(out, w->gpu_h > 0 ? 100 * w->idle_gpu_h / w->gpu_h : NAN, 0);
        cell(out, w->energy_kwh, -1);
        cell(out, w->power_mean_w, 0);
        if (nodes) {
            cell(out, w->mem_peak_gib, 1);
            cell(out, w->temp_peak_c, 0);
        }
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

static void jvals(FILE *out, const float *v, unsigned nb)
{
    fputc('[', out);
    for (unsigned b = 0; b < nb; b++) {
        if (b)
            fputc(',', out);
        if (isnan(v[b]))
            fputs("null", out);
        else
            fprintf(out, "%.0f", v[b]);
    }
    fputc(']', out);
}

static void html_data(FILE *out, const struct gs_frep *r)
{
    fprintf(out, "<script id=\"data\" type=\"application/json\">{\"from\":%.0f,\"step\":%.0f,\"nodes\":[", r->from,
            r->step);
    for (size_t i = 0; i < r->nnodes; i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        gs_html_jstr(out, r->nodes[i].name);
        fputs(",\"util\":", out);
        jvals(out, r->nodes[i].util, r->nb);
        fputs(",\"power\":", out);
        jvals(out, r->nodes[i].power, r->nb);
        fputc('}', out);
    }
    fputs("]}</script>\n", out);
}

/* The heatmaps (node x time) and click-to-sort tables. */
static const char fleet_js[] =
    "(function(){var d=JSON.parse(document.getElementById('data').textContent);"
    "function heat(id,key,max,unit){var c=document.getElementById(id),n=d.nodes.length;if(!n)return;"
    "var nb=d.nodes[0][key].length,L=180,cw=Math.max(1,Math.floor((Math.min(1400,window.innerWidth-60)-L)/nb)),"
    "ch=n>60?Math.max(2,Math.floor(600/n)):14;c.width=L+cw*nb;c.height=ch*n+20;var g=c.getContext('2d');"
    "var m=max;if(!m){m=1;d.nodes.forEach(function(x){x[key].forEach(function(v){if(v>m)m=v;});});}"
    "g.font='11px sans-serif';d.nodes.forEach(function(x,i){if(ch>=10){g.fillStyle='#222';"
    "g.fillText(x.name.slice(0,28),2,i*ch+ch-3);}x[key].forEach(function(v,b){if(v===null){g.fillStyle='#eee';}"
    "else{var f=Math.min(1,v/m);g.fillStyle='hsl('+(240-240*f)+',80%,'+(85-40*f)+'%)';}"
    "g.fillRect(L+b*cw,i*ch,cw,ch-(ch>4?1:0));});});var t0=new Date(d.from*1000),t1=new Date((d.from+nb*d.step)*1000);"
    "g.fillStyle='#222';g.fillText(t0.toLocaleString(),L,n*ch+14);var s=t1.toLocaleString();"
    "g.fillText(s,c.width-g.measureText(s).width-2,n*ch+14);"
    "document.getElementById(id+'-scale').textContent='blue 0 '+unit+' .. red '+Math.round(m)+' '+unit+"
    "', grey: no data';}"
    "heat('hu','util',100,'%');heat('hp','power',0,'W');"
    "document.querySelectorAll('th').forEach(function(th){th.onclick=function(){var tb=th.closest('table').tBodies[0],"
    "i=th.cellIndex,rows=Array.prototype.slice.call(tb.rows),dir=th.dataset.d=th.dataset.d==='1'?'-1':'1';"
    "rows.sort(function(a,b){var x=a.cells[i].textContent,y=b.cells[i].textContent,p=parseFloat(x),q=parseFloat(y);"
    "if(!isNaN(p)&&!isNaN(q))return (p-q)*dir;return x.localeCompare(y)*dir;});"
    "rows.forEach(function(r){tb.appendChild(r);});};});})();";

void gs_frep_html(FILE *out, const struct gs_frep *r)
{
    html_head(out, r);
    html_totals(out, r);
    const char *rows = r->per_gpu ? "GPU" : "node";
    fprintf(out, "<h2>Utilization, %s &times; time</h2><canvas id=\"hu\"></canvas><p class=\"note\" id=\"hu-scale\">"
            "</p>\n<h2>Power, %s &times; time</h2><canvas id=\"hp\"></canvas><p class=\"note\" id=\"hp-scale\"></p>\n"
            "<h2>%s</h2>\n<p class=\"note\">Idle: a GPU's mean utilization under 1 %% over a bucket. Energy: the mean "
            "power of each bucket times its width. Click a heading to sort.</p>\n", rows, rows,
            r->per_gpu ? "GPUs" : "Nodes");
    html_row_table(out, "nodes", r->nodes, r->nnodes, true, r->per_gpu);
    fputs("<h2>Namespaces and jobs</h2>\n", out);
    if (r->ngroups)
        html_row_table(out, "groups", r->groups, r->ngroups, false, r->per_gpu);
    else
        fputs("<p class=\"note\">No GPU series carry a <code>namespace</code> (Kubernetes pod) or "
              "<code>hpc_job</code> (Slurm) label in this range.</p>\n", out);
    fprintf(out, "<p class=\"note\">%u PromQL requests, Prometheus %.0f ms; gpuscope report --prometheus</p>\n",
            r->requests, r->query_ms);
    html_data(out, r);
    fprintf(out, "<script>%s</script>\n</body></html>\n", fleet_js);
}

/* ---- terminal -------------------------------------------------------------- */

static void term_num(FILE *out, double v, int w, int dec)
{
    if (isnan(v))
        fprintf(out, " %*s", w, "-");
    else if (dec < 0)
        fprintf(out, " %*.4g", w, v);
    else
        fprintf(out, " %*.*f", w, dec, v);
}

static void term_rows(FILE *out, const struct gs_frep_row *v, size_t n, const char *title, bool nodes)
{
    fprintf(out, "%-28s %5s %9s %6s %6s %9s %6s %9s %7s%s\n", title, "GPUs", "GPU-h", "util%", "peak%", "idle GPU-h",
            "idle%", "kWh", "mean W", nodes ? " peakGiB peakC" : "");
    for (size_t i = 0; i < n; i++) {
        const struct gs_frep_row *w = &v[i];
        fprintf(out, "%-28.28s", w->name);
        term_num(out, w->gpus_max, 5, 0);
        term_num(out, w->gpu_h, 9, -1);
        term_num(out, w->util_mean, 6, 1);
        term_num(out, w->util_peak, 6, 0);
        term_num(out, w->idle_gpu_h, 9, -1);
        term_num(out, w->gpu_h > 0 ? 100 * w->idle_gpu_h / w->gpu_h : NAN, 6, 0);
        term_num(out, w->energy_kwh, 9, -1);
        term_num(out, w->power_mean_w, 7, 0);
        if (nodes) {
            term_num(out, w->mem_peak_gib, 7, 1);
            term_num(out, w->temp_peak_c, 5, 0);
        }
        fputc('\n', out);
    }
}

void gs_frep_term(FILE *out, const struct gs_frep *r)
{
    char a[64], b[64];
    struct totals t = fleet_totals(r);
    fprintf(out, "GPU %s%s: %s%s%s\n%s - %s, buckets of %.0f s\n", r->per_gpu ? "report of " : "fleet report",
            r->sel, r->url, r->match[0] ? " " : "", r->match,
            when(r->from, a, sizeof(a)), when(r->to, b, sizeof(b)), r->step);
    fprintf(out, "%zu nodes, %.0f GPUs, %.1f GPU-hours, %.1f idle (%.0f %%), %.2f kWh, mean utilization %.0f %%\n\n",
            node_count(r), t.gpus, t.gpu_h, t.idle_h, t.gpu_h > 0 ? 100 * t.idle_h / t.gpu_h : 0, t.kwh,
            isnan(t.util) ? 0 : t.util);
    term_rows(out, r->nodes, r->nnodes, r->per_gpu ? "node:GPU" : "node", true);
    if (r->ngroups) {
        fputc('\n', out);
        term_rows(out, r->groups, r->ngroups, "namespace / job", false);
    }
}
