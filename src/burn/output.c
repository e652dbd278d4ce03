/* SPDX-License-Identifier: MIT */
/*
 * output.c - what burn prints: a live status line per GPU with a progress
 * bar (redrawn on a terminal, a line per GPU every 10 s otherwise), the final
 * report (per GPU: verdict, throughput per workload, errors, peaks, then the
 * findings grouped by severity as the doctor prints them), and the same as
 * JSON (jansson).
 */
#include "burn/burn_priv.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "health/report.h"

const char *gs_burn_rate_str(double rate, bool bytes, char *buf, size_t len)
{
    if (bytes)
        snprintf(buf, len, rate >= 1e9 ? "%.0f GB/s" : "%.1f MB/s", rate >= 1e9 ? rate / 1e9 : rate / 1e6);
    else if (rate >= 1e12)
        snprintf(buf, len, "%.2f TFLOP/s", rate / 1e12);
    else if (rate >= 1e9)
        snprintf(buf, len, "%.2f GFLOP/s", rate / 1e9);
    else
        snprintf(buf, len, "%.1f MFLOP/s", rate / 1e6);
    return buf;
}

static double wl_rate(const struct burn_wstat *w)
{
    return w->gpu_s > 0 ? w->work / w->gpu_s : 0;
}

static uint64_t gpu_errors(const struct burn_gpu *g)
{
    uint64_t n = 0;
    for (int wl = 0; wl < GS_BW__COUNT; wl++)
        n += g->w[wl].mismatches;
    return n;
}

static const struct gs_gpu *snap_gpu(const struct gs_snapshot *snap, const struct burn_gpu *g)
{
    return snap && g->slot >= 0 && (uint32_t)g->slot < snap->ngpus ? &snap->gpus[g->slot] : NULL;
}

/* "GPU 0  fp32 51.20 TFLOP/s | 71 C (slowdown 87) | 650/700 W | 1980 MHz | SW power cap | errors 0" */
static void status_line(FILE *out, struct burn_gpu *g, const struct gs_gpu *sg)
{
    char rate[32] = "starting", thr[96] = "";
    pthread_mutex_lock(&g->lock);
    int cur = g->current;
    uint64_t errs = gpu_errors(g);
    if (cur >= 0 && g->w[cur].last_rate > 0)
        gs_burn_rate_str(g->w[cur].last_rate, gs_burn_wl_is_memory(cur), rate, sizeof(rate));
    bool failed = g->cuda_error != 0;
    pthread_mutex_unlock(&g->lock);
    fprintf(out, "GPU %d  %-6s %-15s", g->index, cur >= 0 ? gs_burn_wl_name(cur) : "", failed ? "CUDA error" : rate);
    if (!sg || sg->state == GS_GPU_LOST) {
        fprintf(out, " | GPU lost");
    } else {
        const struct gs_sample *s = &sg->s;
        if (gs_sample_has(s, GS_F_TEMP_GPU))
            fprintf(out, " | %d C", s->temp_gpu_c);
        if (gs_sample_has(s, GS_F_TEMP_GPU) && gs_static_has(&sg->st, GS_S_TEMP_SLOWDOWN))
            fprintf(out, " (slowdown %d)", sg->st.temp_slowdown_c);
        if (gs_sample_has(s, GS_F_POWER))
            fprintf(out, " | %u/%u W", s->power_mw / 1000, s->power_enforced_limit_mw / 1000);
        if (gs_sample_has(s, GS_F_CLOCK_SM))
            fprintf(out, " | %u MHz", s->clock_sm_mhz);
        if (gs_sample_has(s, GS_F_THROTTLE) && (s->throttle_reasons & ~GS_THROTTLE_GPU_IDLE))
            fprintf(out, " | %s", gs_throttle_str(s->throttle_reasons & ~GS_THROTTLE_GPU_IDLE, thr, sizeof(thr)));
    }
    fprintf(out, " | errors %llu%s\n", (unsigned long long)errs, errs ? " (WARNING!)" : "");
}

void gs_burn_status(FILE *out, bool redraw, const struct burn_ctx *b, struct burn_gpu *gpus, int n,
                    const struct gs_snapshot *snap, double t_s, double total_s)
{
    (void)b;
    static bool drawn;
    double share = total_s > 0 ? fmin(t_s / total_s, 1.0) : 1.0;
    int filled = (int)(share * 30);
    if (redraw && drawn)
        fprintf(out, "\033[%dA", n + 1);
    for (int i = 0; i < n; i++) {
        if (redraw)
            fputs("\033[K", out);
        status_line(out, &gpus[i], snap_gpu(snap, &gpus[i]));
    }
    double left = total_s - t_s > 0 ? total_s - t_s : 0;
    fprintf(out, "%s[%.*s%.*s] %3.0f %%  %d:%02d left\n", redraw ? "\033[K" : "", filled,
            "##############################", 30 - filled, "..............................", share * 100,
            (int)left / 60, (int)left % 60);
    fflush(out);
    drawn = true;
}

/* ---- the final report --------------------------------------------------------------- */

static void text_gpu(FILE *out, struct burn_gpu *g, const struct gs_findings *f)
{
    char r[32], thr[160];
    const struct burn_mon *m = &g->mon;
    fprintf(out, "GPU %d  %s  %s  %s\n", g->index, g->name, g->pci, gs_burn_verdict_word(gs_burn_gpu_worst(f, g->index)));
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        const struct burn_wstat *w = &g->w[wl];
        if (!w->selected)
            continue;
        if (!w->supported) {
            fprintf(out, "  %-7s not run: %s\n", gs_burn_wl_name(wl), w->skip_why);
            continue;
        }
        fprintf(out, "  %-7s %14s  %llu iteration%s  %llu error%s", gs_burn_wl_name(wl),
                w->gpu_s > 0 ? gs_burn_rate_str(wl_rate(w), gs_burn_wl_is_memory(wl), r, sizeof(r)) : "-",
                (unsigned long long)w->iterations, w->iterations == 1 ? "" : "s",
                (unsigned long long)w->mismatches, w->mismatches == 1 ? "" : "s");
        if (gs_burn_wl_is_memory(wl))
            fprintf(out, "  over %.1f MiB", (double)g->mem_tested_bytes / 1048576.0);
        fputc('\n', out);
    }
    fprintf(out, "  peak");
    if (m->temp_ok)
        fprintf(out, " %d C (slowdown %d C),", m->temp_max_c, g->st.temp_slowdown_c);
    if (m->power_ok)
        fprintf(out, " %.0f W (limit %.0f W),", m->power_max_mw / 1000.0, m->power_limit_mw / 1000.0);
    if (m->clk_max_mhz)
        fprintf(out, " SM clock %u-%u MHz under load,", m->clk_min_mhz, m->clk_max_mhz);
    uint64_t mask = 0;
    for (int bit = 1; bit < 16; bit++)
        if (m->throttle_s[bit] > 0)
            mask |= 1ull << bit;
    fprintf(out, " throttled: %s\n", mask ? gs_throttle_str(mask, thr, sizeof(thr)) : "no");
}

void gs_burn_report_text(FILE *out, const struct burn_ctx *b, struct burn_gpu *gpus, int n,
                         const struct gs_findings *f, double elapsed_s, bool interrupted)
{
    int failed = 0, warned = 0;
    fprintf(out, "\ngpuscope burn: %d GPU%s, %.0f s of %.0f s%s\n\n", n, n == 1 ? "" : "s", elapsed_s,
            (double)b->o->duration_ms / 1000.0, interrupted ? " (interrupted: partial verdict)" : "");
    for (int i = 0; i < n; i++) {
        text_gpu(out, &gpus[i], f);
        enum gs_sev w = gs_burn_gpu_worst(f, gpus[i].index);
        failed += w >= GS_SEV_CRITICAL;
        warned += w == GS_SEV_WARNING;
    }
    fputc('\n', out);
    gs_findings_print(out, f, false);
    fprintf(out, "\nverdict: %s", failed ? "FAIL" : warned ? "WARN" : interrupted ? "INTERRUPTED" : "PASS");
    if (failed || warned)
        fprintf(out, " (%d of %d GPUs failed, %d warned)", failed, n, warned);
    fprintf(out, "%s\n", interrupted ? ", partial: the burn was stopped early" : "");
}

static json_t *json_rate(double v, double scale)
{
    return v > 0 ? json_real(round(v / scale * 1e6) / 1e6) : json_null();
}

static json_t *json_gpu(struct burn_gpu *g, const struct gs_findings *f)
{
    const struct burn_mon *m = &g->mon;
    json_t *o = json_object(), *wls = json_object(), *thr = json_object(), *fl = json_array(), *x = json_array();
    json_object_set_new(o, "index", json_integer(g->index));
    json_object_set_new(o, "uuid", json_string(g->uuid));
    json_object_set_new(o, "name", json_string(g->name));
    json_object_set_new(o, "pci_bus_id", json_string(g->pci));
    json_object_set_new(o, "verdict", json_string(gs_burn_verdict_word(gs_burn_gpu_worst(f, g->index))));
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        const struct burn_wstat *w = &g->w[wl];
        if (!w->selected)
            continue;
        json_t *j = json_object();
        bool mem = gs_burn_wl_is_memory(wl);
        json_object_set_new(j, "run", json_boolean(w->supported));
        json_object_set_new(j, "skipped", w->supported ? json_null() : json_string(w->skip_why));
        json_object_set_new(j, "iterations", json_integer((json_int_t)w->iterations));
        json_object_set_new(j, "errors", json_integer((json_int_t)w->mismatches));
        json_object_set_new(j, "errors_vs_cpu", json_integer((json_int_t)w->ref_mismatches));
        json_object_set_new(j, mem ? "gb_per_s" : "tflop_per_s", json_rate(wl_rate(w), mem ? 1e9 : 1e12));
        json_object_set_new(j, "gpu_s", json_real(round(w->gpu_s * 1000) / 1000));
        if (mem)
            json_object_set_new(j, "bytes_tested", json_integer((json_int_t)g->mem_tested_bytes));
        else
            json_object_set_new(j, "trips_per_launch", json_integer(w->iters_per_launch));
        json_object_set_new(wls, gs_burn_wl_name(wl), j);
    }
    json_object_set_new(o, "workloads", wls);
    json_object_set_new(o, "temp_max_c", m->temp_ok ? json_integer(m->temp_max_c) : json_null());
    json_object_set_new(o, "temp_slowdown_c", gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) ? json_integer(g->st.temp_slowdown_c) : json_null());
    json_object_set_new(o, "power_max_w", m->power_ok ? json_real(m->power_max_mw / 1000.0) : json_null());
    json_object_set_new(o, "power_limit_w", m->power_limit_mw ? json_real(m->power_limit_mw / 1000.0) : json_null());
    json_object_set_new(o, "sm_clock_min_mhz", m->clk_max_mhz ? json_integer(m->clk_min_mhz) : json_null());
    json_object_set_new(o, "sm_clock_max_mhz", m->clk_max_mhz ? json_integer(m->clk_max_mhz) : json_null());
    for (int bit = 1; bit < 16; bit++)
        if (m->throttle_s[bit] > 0) {
            char name[64];
            gs_throttle_str(1ull << bit, name, sizeof(name));
            json_object_set_new(thr, name, json_real(round(m->throttle_s[bit] * 10) / 10));
        }
    json_object_set_new(o, "throttled_s", thr);
    for (uint32_t i = 0; i < m->nxids; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "xid", json_integer(m->xid_code[i]));
        json_object_set_new(e, "count", json_integer(m->xid_count[i]));
        json_object_set_new(e, "first_s", json_real(m->xid_first_s[i]));
        json_array_append_new(x, e);
    }
    json_object_set_new(o, "xids", x);
    json_object_set_new(o, "lost", json_boolean(m->lost));
    json_object_set_new(o, "cuda_error", g->cuda_error ? json_string(g->cuda_errname) : json_null());
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i].gpu == g->index)
            json_array_append_new(fl, gs_finding_json(&f->v[i]));
    json_object_set_new(o, "findings", fl);
    return o;
}

void gs_burn_report_json(FILE *out, const struct burn_ctx *b, struct burn_gpu *gpus, int n,
                         const struct gs_findings *f, double elapsed_s, bool interrupted)
{
    json_t *root = json_object(), *arr = json_array(), *all = json_array(), *wl = json_array();
    int failed = 0, warned = 0;
    for (int w = 0; w < GS_BW__COUNT; w++)
        if (b->o->workloads & (1u << w))
            json_array_append_new(wl, json_string(gs_burn_wl_name(w)));
    json_object_set_new(root, "duration_s", json_real((double)b->o->duration_ms / 1000.0));
    json_object_set_new(root, "elapsed_s", json_real(round(elapsed_s * 1000) / 1000));
    json_object_set_new(root, "interrupted", json_boolean(interrupted));
    json_object_set_new(root, "workloads", wl);
    json_object_set_new(root, "simulated", json_boolean(b->cu.simulated));
    json_object_set_new(root, "cuda_driver_version", json_integer(b->cu.version));
    for (int i = 0; i < n; i++) {
        json_array_append_new(arr, json_gpu(&gpus[i], f));
        enum gs_sev w = gs_burn_gpu_worst(f, gpus[i].index);
        failed += w >= GS_SEV_CRITICAL;
        warned += w == GS_SEV_WARNING;
    }
    json_object_set_new(root, "gpus", arr);
    for (size_t i = 0; i < f->n; i++)
        json_array_append_new(all, gs_finding_json(&f->v[i]));
    json_object_set_new(root, "findings", all);
    json_object_set_new(root, "verdict", json_string(failed ? "FAIL" : warned ? "WARN" : interrupted ? "INTERRUPTED" : "PASS"));
    json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    fputc('\n', out);
    json_decref(root);
}
