/* SPDX-License-Identifier: MIT */
/*
 * runsum.c - what `gpuscope run` prints when the command has ended: status and
 * wall time, CPU time and peak host RSS (as time -v), per GPU of its process
 * tree utilization, peak memory, energy (the counter's difference from before
 * the start to after the end, or integrated power where a GPU has no counter)
 * and throttling; per process its peak GPU memory over every tick; the
 * signals gpuscope run received; warnings (input-pipeline sawtooth, steady
 * memory climb). Text on stderr, or JSON (--json), or into -o FILE.
 */
#include "record/runjob.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x rounded to `dec` decimals, for JSON numbers that print as they read */
static json_t *jround(double x, int dec)
{
    double m = pow(10, dec);
    return isnan(x) ? json_null() : json_real(round(x * m) / m);
}

static json_t *jint(double x)
{
    return isnan(x) ? json_null() : json_integer((json_int_t)llround(x));
}

/* ---- warnings -------------------------------------------------------------------------- */
/* A sawtooth: utilization alternating between ~0 % and high, several times. */
static void warn_sawtooth(struct gs_store *st, int gpu, int idx, int64_t from, int64_t to, json_t *warnings, FILE *txt)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(gs_store_db(st), "SELECT util_pct FROM sample WHERE k >= " GS_SAMPLE_K("?2")
                           " AND k < " GS_SAMPLE_K("?3") " + 64 AND gpu = ?1 AND util_pct IS NOT NULL ORDER BY k",
                           -1, &q, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int(q, 1, gpu);
    sqlite3_bind_int64(q, 2, from);
    sqlite3_bind_int64(q, 3, to);
    unsigned n = 0, low = 0, high = 0, cycles = 0;
    int state = 0; /* 1 high, -1 low */
    while (sqlite3_step(q) == SQLITE_ROW) {
        int u = sqlite3_column_int(q, 0);
        n++;
        if (u <= 10) {
            low++;
            state = -1;
        } else if (u >= 60) {
            high++;
            if (state == -1)
                cycles++;
            state = 1;
        }
    }
    sqlite3_finalize(q);
    if (n >= 10 && cycles >= 3 && low * 100 >= n * 15 && high * 100 >= n * 30) {
        char msg[256];
        snprintf(msg, sizeof(msg), "GPU %d: utilization saw-tooths between ~0 %% and high (%u cycles, idle %.0f %% "
                 "of the time): an input-pipeline stall? (data loader workers, prefetching, storage)", idx, cycles,
                 100.0 * low / n);
        json_array_append_new(warnings, json_string(msg));
        fprintf(txt, "  warning: %s\n", msg);
    }
}

static void warn_climb(const struct run_result *r, json_t *warnings, FILE *txt)
{
    double elapsed_s = r->wall_s > 0 ? r->wall_s : 1;
    for (unsigned i = 0; i < r->nprocs; i++) {
        const struct run_proc *p = &r->procs[i];
        double grew = p->last_mib - p->first_mib;
        if (p->nsamples < 8 || grew < 256 || grew < 0.1 * p->first_mib || p->falls * 10 > p->rises)
            continue;
        char msg[256];
        snprintf(msg, sizeof(msg), "PID %u (%s): GPU memory climbed steadily from %.0f to %.0f MiB (%+.0f MiB/min): "
                 "a leak?", p->pid, p->name, p->first_mib, p->last_mib, grew / elapsed_s * 60);
        json_array_append_new(warnings, json_string(msg));
        fprintf(txt, "  warning: %s\n", msg);
    }
}

/* ---- pieces ------------------------------------------------------------------------------ */
bool gs_run_throttle(struct gs_store *st, const struct run_result *r, int idx, int gpu_id, int64_t from_ms,
                     int64_t to_ms, double out_s[16])
{
    /* counter -> reason bit, as the store's throttle_ns events map them */
    static const int bit_of[GS_VIOL_COUNT] = { 2, 5, 4, -1, -1, -1, 6, 7 };
    const struct run_energy *e = idx >= 0 && idx < RUN_MAX_GPUS ? &r->energy[idx] : NULL;
    bool any = false;
    gs_throttle_time(st, gpu_id, from_ms, to_ms, out_s);
    for (int v = 0; e && v < GS_VIOL_COUNT; v++) {
        uint32_t bit = 1u << v;
        if (bit_of[v] < 0 || !(e->viol_start & e->viol_end & bit) || e->viol_end_ns[v] < e->viol_start_ns[v])
            continue;
        out_s[bit_of[v]] = (double)(e->viol_end_ns[v] - e->viol_start_ns[v]) / 1e9;
        any = true;
    }
    return any;
}

static uint64_t ids_of_indexes(struct gs_store *st, uint64_t idx_mask)
{
    sqlite3_stmt *q;
    uint64_t ids = 0;
    if (sqlite3_prepare_v2(gs_store_db(st), "SELECT id, idx FROM gpu", -1, &q, NULL) != SQLITE_OK)
        return 0;
    while (sqlite3_step(q) == SQLITE_ROW)
        if (idx_mask & (1ull << (sqlite3_column_int(q, 1) & 63)))
            ids |= 1ull << (sqlite3_column_int(q, 0) & 63);
    sqlite3_finalize(q);
    return ids;
}

/* The job's energy on one GPU: the counter's difference when it was read at both ends. */
static double gpu_energy_j(const struct run_result *r, int idx, bool *from_counter)
{
    const struct run_energy *e = idx >= 0 && idx < RUN_MAX_GPUS ? &r->energy[idx] : NULL;
    *from_counter = e && e->have_start && e->have_end && e->end_mj >= e->start_mj;
    if (*from_counter)
        return (double)(e->end_mj - e->start_mj) / 1000.0;
    return e && e->have_last ? e->power_j : NAN;
}

static json_t *gpu_json(struct gs_store *st, const struct run_result *r, const struct gs_gpu_summary *g, double *total,
                        unsigned *n_counter, unsigned *n_power, FILE *txt)
{
    json_t *j = json_object(), *thr = json_object();
    bool counter;
    char ebuf[32];
    double energy = gpu_energy_j(r, g->idx, &counter);
    if (!isnan(energy)) {
        *total += energy;
        ++*(counter ? n_counter : n_power);
    }
    json_object_set_new(j, "index", json_integer(g->idx));
    json_object_set_new(j, "uuid", json_string(g->uuid));
    json_object_set_new(j, "name", json_string(g->name));
    json_object_set_new(j, "util_mean_pct", jround(g->util_mean, 1));
    json_object_set_new(j, "util_p95_pct", jint(g->util_p95));
    json_object_set_new(j, "mem_peak_mib", jint(g->mem_peak_mib));
    json_object_set_new(j, "energy_j", jround(energy, counter ? 3 : 1));
    json_object_set_new(j, "energy_from_power", json_boolean(!isnan(energy) && !counter));
    json_object_set_new(j, "energy_source", isnan(energy) ? json_null() : json_string(counter ? "counter" : "power"));
    fprintf(txt, "  GPU %d %s: util mean %.1f %%, p95 %.0f %%, peak memory %.0f MiB, energy %s%s\n", g->idx, g->name,
            g->util_mean, g->util_p95, g->mem_peak_mib, gs_fmt_energy(energy, ebuf, sizeof(ebuf)),
            isnan(energy) || counter ? "" : " (integrated from power)");
    double thr_s[16];
    bool from_counters = gs_run_throttle(st, r, g->idx, g->id, r->t0, r->t1 + 1, thr_s);
    for (int b = 1; b < 16; b++) {
        if (thr_s[b] <= 0)
            continue;
        char name[64];
        gs_throttle_str(1ull << b, name, sizeof(name));
        json_object_set_new(thr, name, jround(thr_s[b], 3));
        fprintf(txt, "    throttled %.1f s: %s\n", thr_s[b], name);
    }
    json_object_set_new(j, "throttled_s", thr);
    json_object_set_new(j, "throttle_source", json_string(from_counters ? "counters" : "events"));
    return j;
}

static const char *sig_name(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
    return buf;
}

static void status_line(const struct gs_run_opts *o, const struct run_result *r, FILE *txt, json_t *root)
{
    char sig[32];
    if (r->term_signal)
        fprintf(txt, "gpuscope run: %s was killed by %s (status %d) after %.2f s (wall)\n", o->argv[0],
                sig_name(r->term_signal, sig, sizeof(sig)), r->exit_status, r->wall_s);
    else
        fprintf(txt, "gpuscope run: %s exited with status %d after %.2f s (wall)\n", o->argv[0], r->exit_status,
                r->wall_s);
    json_object_set_new(root, "command", json_string(o->argv[0]));
    json_object_set_new(root, "exit_status", json_integer(r->exit_status));
    json_object_set_new(root, "signal", r->term_signal ? json_string(sig_name(r->term_signal, sig, sizeof(sig)))
                                                       : json_null());
    json_object_set_new(root, "wall_s", jround(r->wall_s, 3));
    char a[48];
    json_object_set_new(root, "start", json_string(gs_rfc3339(r->t0, a, sizeof(a))));
    json_object_set_new(root, "end", json_string(gs_rfc3339(r->t1, a, sizeof(a))));
    json_t *sigs = json_array();
    for (unsigned i = 0; i < r->nsignals; i++) {
        json_t *js = json_object();
        json_object_set_new(js, "signal", json_string(sig_name(r->signals[i].sig, sig, sizeof(sig))));
        json_object_set_new(js, "forwarded", json_boolean(r->signals[i].forwarded));
        json_object_set_new(js, "after_exit", json_boolean(r->signals[i].after_exit));
        json_array_append_new(sigs, js);
        fprintf(txt, "  %s %s\n", sig, r->signals[i].forwarded ? "reached gpuscope run alone: forwarded to the command"
                                        : r->signals[i].after_exit ? "reached gpuscope run as the command ended"
                                        : "reached the command too (process group or cgroup): not forwarded");
    }
    json_object_set_new(root, "signals_received", sigs);
}

/* CPU time and peak RSS of the command and the descendants it waited for, as time -v. */
static void host_line(const struct run_result *r, FILE *txt, json_t *root)
{
    if (!r->have_ru) {
        json_object_set_new(root, "cpu_user_s", json_null());
        json_object_set_new(root, "cpu_system_s", json_null());
        json_object_set_new(root, "cpu_pct", json_null());
        json_object_set_new(root, "host_rss_peak_kib", json_null());
        return;
    }
    double u = (double)r->ru.ru_utime.tv_sec + r->ru.ru_utime.tv_usec / 1e6;
    double s = (double)r->ru.ru_stime.tv_sec + r->ru.ru_stime.tv_usec / 1e6;
    double pct = r->real_s > 0 ? (u + s) / r->real_s * 100 : NAN;
    fprintf(txt, "  CPU %.2f s user + %.2f s system (%.0f %% of a core), peak RSS %.1f MiB\n", u, s, pct,
            r->ru.ru_maxrss / 1024.0);
    json_object_set_new(root, "cpu_user_s", jround(u, 3));
    json_object_set_new(root, "cpu_system_s", jround(s, 3));
    json_object_set_new(root, "cpu_pct", jround(pct, 1));
    json_object_set_new(root, "host_rss_peak_kib", json_integer(r->ru.ru_maxrss));
}

static json_t *procs_json(const struct run_result *r, FILE *txt)
{
    json_t *procs = json_array();
    for (unsigned i = 0; i < r->nprocs; i++) {
        const struct run_proc *p = &r->procs[i];
        json_t *jp = json_object(), *jg = json_array();
        json_object_set_new(jp, "pid", json_integer(p->pid));
        json_object_set_new(jp, "name", json_string(p->name));
        json_object_set_new(jp, "gpu_mem_peak_mib", jint(p->peak_mib));
        for (int b = 0; b < 64; b++)
            if (p->gpus & (1ull << b))
                json_array_append_new(jg, json_integer(b));
        json_object_set_new(jp, "gpus", jg);
        fprintf(txt, "  PID %u %s: peak GPU memory %.0f MiB\n", p->pid, p->name, p->peak_mib);
        if (p->torch) {
            json_t *jt = json_object();
            json_object_set_new(jt, "max_allocated_bytes", json_integer((json_int_t)p->torch_max_allocated));
            json_object_set_new(jt, "max_reserved_bytes", json_integer((json_int_t)p->torch_max_reserved));
            json_object_set_new(jt, "alloc_retries", json_integer((json_int_t)p->torch_retries));
            json_object_set_new(jt, "ooms", json_integer((json_int_t)p->torch_ooms));
            json_object_set_new(jt, "alloc_conf", p->alloc_conf[0] ? json_string(p->alloc_conf) : json_null());
            json_object_set_new(jp, "torch", jt);
            fprintf(txt, "    PyTorch: max allocated %.0f MiB, max reserved %.0f MiB, %llu allocation retries, %llu OOMs%s%s\n",
                    p->torch_max_allocated / 1048576.0, p->torch_max_reserved / 1048576.0,
                    (unsigned long long)p->torch_retries, (unsigned long long)p->torch_ooms,
                    p->alloc_conf[0] ? ", PYTORCH_CUDA_ALLOC_CONF=" : "", p->alloc_conf);
        } else {
            json_object_set_new(jp, "torch", json_null());
        }
        json_array_append_new(procs, jp);
    }
    return procs;
}

static void emit(const struct gs_run_opts *o, json_t *root, const char *txt)
{
    FILE *out = stderr;
    if (o->output && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "gpuscope run: cannot write %s (%s); the summary follows here\n", o->output, strerror(errno));
        out = stderr;
    }
    if (o->json) {
        json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
        fputc('\n', out);
    } else {
        fputs(txt, out);
    }
    if (out != stderr && fclose(out) != 0)
        fprintf(stderr, "gpuscope run: writing the summary to %s failed: %s\n", o->output, strerror(errno));
}

void gs_run_summary(struct gs_store *st, const struct gs_run_opts *o, const struct run_result *r)
{
    struct gs_summary *sum = calloc(1, sizeof(*sum));
    struct gs_err err = { 0 };
    char *txtbuf = NULL, ebuf[32];
    size_t txtlen = 0;
    FILE *txt = open_memstream(&txtbuf, &txtlen);
    json_t *root = json_object(), *gpus = json_array(), *warnings = json_array();
    double energy = 0;
    unsigned n_counter = 0, n_power = 0;
    if (!txt || !sum) { /* say so: the job ran, only its summary is lost */
        fprintf(stderr, "gpuscope run: no memory for the summary (%s exited)\n", o->argv[0]);
        if (txt)
            fclose(txt);
        free(txtbuf);
        free(sum);
        json_decref(root);
        json_decref(gpus);
        json_decref(warnings);
        return;
    }
    status_line(o, r, txt, root);
    host_line(r, txt, root);
    if (!r->gpus) {
        fprintf(txt, "  no GPU process in its process tree\n");
    } else if (gs_summarize(st, r->t0, r->t1 + 1, ids_of_indexes(st, r->gpus), -1, sum, &err) == 0) {
        for (unsigned i = 0; i < sum->ngpus; i++)
            json_array_append_new(gpus, gpu_json(st, r, &sum->g[i], &energy, &n_counter, &n_power, txt));
        fprintf(txt, "  energy: %s = %.1f J (whole GPUs, %s)\n", gs_fmt_energy(energy, ebuf, sizeof(ebuf)),
                energy, !n_power ? "from the energy counters"
                                : !n_counter ? "integrated from power samples: no energy counter"
                                             : "energy counters where the GPU has one, else integrated power");
        for (unsigned i = 0; i < sum->ngpus; i++)
            warn_sawtooth(st, sum->g[i].id, sum->g[i].idx, r->t0, r->t1, warnings, txt);
    } else { /* the samples were taken but cannot be summarized: say so, never an empty summary */
        fprintf(txt, "  GPU summary unavailable: %s\n", err.msg);
        json_object_set_new(root, "summary_error", json_string(err.msg));
    }
    json_t *procs = procs_json(r, txt);
    warn_climb(r, warnings, txt);
    fclose(txt);
    json_object_set_new(root, "gpus", gpus);
    json_object_set_new(root, "processes", procs);
    json_object_set_new(root, "energy_j", jround(energy, 3));
    json_object_set_new(root, "energy_kwh", jround(energy / 3.6e6, 9));
    json_object_set_new(root, "energy_source", !r->gpus ? json_null() : json_string(!n_power ? "counter"
                                                           : !n_counter ? "power" : "mixed"));
    json_object_set_new(root, "warnings", warnings);
    emit(o, root, txtbuf);
    free(txtbuf);
    free(sum);
    json_decref(root);
}
