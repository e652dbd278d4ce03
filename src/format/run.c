/* SPDX-License-Identifier: MIT */
/*
 * run.c - the query loop: open the sampler for exactly what the chosen output
 * needs, take snapshots, hand each to its formatter, flush, sleep to the next
 * absolute deadline. Stops cleanly on SIGINT/SIGTERM (exit 0) and on a closed
 * pipe (SIGPIPE ignored, EPIPE seen on flush: exit 0, quietly).
 *
 * Signals: when looping, SIGINT/SIGTERM are blocked before the sampler starts
 * any thread (so every thread inherits the mask) and the main thread waits for
 * them with sigtimedwait() until the next deadline. No handler, no flag races,
 * and a signal arriving mid-snapshot ends the loop right after that snapshot.
 */
#include "core/exit.h"
#include "core/hostproc.h"
#include "core/pyhook.h"
#include "core/sampler.h"
#include "format/format.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "lib/clock.h"

#define NS_PER_S 1000000000ull

static struct gs_fmask table_want(void)
{
    static const enum gs_field f[] = {GS_F_TEMP_GPU, GS_F_GPU_UTIL,    GS_F_MEM_USED,      GS_F_MEM_TOTAL,
                                      GS_F_POWER,    GS_F_POWER_LIMIT, GS_F_POWER_ENFORCED};
    struct gs_fmask want = GS_FMASK_NONE;

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        gs_fmask_set(&want, f[i]);
    return want;
}

/* The host fields JSON prints in a one-shot (docs/JSON.md "host"): all but CPU % (null
 * in a first snapshot) and the CPU time (not printed), so the CPU clock is not read. */
static uint32_t json_host_want(void)
{
    return (1u << GS_P_USER) | (1u << GS_P_COMM) | (1u << GS_P_RSS) | (1u << GS_P_START) | (1u << GS_P_PARENT) |
           (1u << GS_P_CONTAINER) | (1u << GS_P_POD) | (1u << GS_P_SLURM);
}

/* gpustat's readings (gpustat/core.py get_gpu_info) */
static struct gs_fmask gpustat_want(void)
{
    static const enum gs_field f[] = {GS_F_TEMP_GPU, GS_F_FAN_SPEED, GS_F_GPU_UTIL, GS_F_ENC_UTIL,
                                      GS_F_DEC_UTIL, GS_F_POWER,     GS_F_POWER_ENFORCED, GS_F_MEM_USED,
                                      GS_F_MEM_TOTAL};
    struct gs_fmask want = GS_FMASK_NONE;

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        gs_fmask_set(&want, f[i]);
    return want;
}

static bool is_gpustat(const struct gs_out_opts *o)
{
    return o->format == GS_OUT_GPUSTAT || o->format == GS_OUT_GPUSTAT_JSON;
}

/* gpuscope smi's summary table, -L and dmon/pmon read only what they print. */
static void gs_smi_sampler_want(const struct gs_out_opts *o, struct gs_sampler_opts *so)
{
    static const enum gs_field table[] = {
        GS_F_PERSISTENCE, GS_F_DISPLAY_ACTIVE, GS_F_ECC_MODE, GS_F_ECC_VOL_UNCORR, GS_F_MIG_MODE, GS_F_FAN_SPEED,
        GS_F_TEMP_GPU, GS_F_PSTATE, GS_F_POWER, GS_F_POWER_ENFORCED, GS_F_MEM_USED, GS_F_MEM_TOTAL,
        GS_F_GPU_UTIL, GS_F_COMPUTE_MODE,
    };
    so->want = GS_FMASK_NONE;
    so->want_host = false; /* nvidia-smi prints the driver's process names */
    so->want_procs = o->format != GS_OUT_SMI_LIST;
    if (o->format == GS_OUT_SMI_LIST)
        gs_fmask_set(&so->want, GS_F_MIG_DEVICES); /* a MIG GPU's "  MIG 1g.10gb  Device  0" lines */
    if (o->format == GS_OUT_SMI_TABLE)
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
            gs_fmask_set(&so->want, table[i]);
    else if (o->format == GS_OUT_SMI_MON)
        so->want = gs_smi_mon_want(&o->mon);
    if (o->format == GS_OUT_SMI_MON && o->mon.pmon)
        so->want_host = true; /* pmon's command: the short name /proc gives, when visible */
}

/* What the sampler must read for this output; see docs/QUERY.md "Cost". */
static void sampler_opts_for(const struct gs_out_opts *o, struct gs_sampler_opts *so)
{
    bool slow = false;

    so->nvml_lib = o->nvml_lib;
    so->only_ids = o->only_ids;
    so->want = GS_FMASK_NONE; /* everything (JSON, details) */
    so->want_none = false;
    so->want_procs = so->want_host = true;
    so->once = !o->interval_ns;
    if (o->format == GS_OUT_CSV && o->fields->kind == GS_QUERY_GPU) {
        so->want = gs_fieldlist_want(o->fields);
        so->want_procs = so->want_host = false;
        slow = gs_fieldlist_wants_slow(o->fields);
    } else if (o->format == GS_OUT_CSV) {
        so->want_none = true; /* compute apps: process lists only */
    } else if (o->format == GS_OUT_TABLE) {
        so->want = table_want();
        /* user:command/pid, and the JOB column where a process is in a Slurm job */
        so->host_want = (1u << GS_P_USER) | (1u << GS_P_COMM) | (1u << GS_P_SLURM) | GS_HOSTPROC_NO_CMDLINE;
    } else if (is_gpustat(o)) {
        so->want = gpustat_want();
    } else if (o->format == GS_OUT_SMI_TABLE || o->format == GS_OUT_SMI_LIST || o->format == GS_OUT_SMI_MON) {
        gs_smi_sampler_want(o, so);
        /* dmon -s t: PCIe from the counters or GPM in the tick where the GPU has them, else the
         * worker (a loop, never inline) */
        slow = o->format == GS_OUT_SMI_MON &&
               (gs_fmask_has(so->want, GS_F_PCIE_TX) || gs_fmask_has(so->want, GS_F_PCIE_RX));
    } else if (o->format == GS_OUT_SMI_QUERY || o->format == GS_OUT_SMI_XML) {
        so->want = gs_fmask_all(); /* every reading nvidia-smi -q prints */
        so->want_host = false;     /* the driver's process names are what it prints */
        slow = true;
    } else {
        /* JSON one-shot skips the ~20 ms/GPU PCIe counters (null, "not_sampled"). */
        slow = o->format == GS_OUT_DETAILS || o->interval_ns;
        /* PyTorch's figures from the processes' Python hooks: a one-shot waits for them
         * (250 ms at most), a loop takes what has arrived (docs/PYHOOK.md) */
        if (o->format == GS_OUT_JSON)
            so->pyhook = o->interval_ns ? GS_PYHOOK_ASYNC : GS_PYHOOK_INLINE;
        /* one-shot JSON: CPU % needs two readings (null in the first), CPU time is not printed */
        if (o->format == GS_OUT_JSON)
            so->host_want = json_host_want();
    }
    if (!gs_fmask_any(so->want) && (o->format == GS_OUT_CSV || o->format == GS_OUT_SMI_LIST))
        so->want_none = true;
    if (o->backend) { /* the fleet: nothing of this machine's /proc or processes' hooks */
        so->backend = o->backend;
        so->backend_arg = o->backend_arg;
        so->want_procs = so->want_host = false;
        so->pyhook = 0;
    }
    so->slow = !slow ? GS_SLOW_SKIP : o->interval_ns ? GS_SLOW_THREAD : GS_SLOW_INLINE;
}

static int emit(const struct gs_out_opts *o, const struct gs_snapshot *snap, uint64_t seq)
{
    switch (o->format) {
    case GS_OUT_CSV:
        if (seq == 0 && !(o->csv_flags & GS_CSV_NOHEADER) && gs_csv_write_header(stdout, o->fields, snap) < 0)
            return -GS_E_IO;
        return gs_csv_write_rows(stdout, snap, o->fields, o->csv_flags);
    case GS_OUT_JSON:
        return gs_json_write(stdout, snap, o->interval_ns != 0);
    case GS_OUT_DETAILS:
        if (seq > 0)
            fputc('\n', stdout);
        return gs_details_write(stdout, snap);
    case GS_OUT_GPUSTAT_JSON:
        return gs_gpustat_json_write(stdout, snap);
    case GS_OUT_GPUSTAT: {
        /* watch mode on a terminal: gpustat's blessed redraw (home, clear to
         * the end of each line, then of the screen); piped, frames follow */
        if (o->redraw)
            fputs("\033[1;1H", stdout);
        int rc = gs_gpustat_write(stdout, snap, o->gpustat);
        if (o->redraw)
            fputs("\033[J", stdout);
        return rc;
    }
    case GS_OUT_SMI_TABLE:
        return gs_smi_table_write(stdout, snap);
    case GS_OUT_SMI_LIST:
        return gs_smi_list_write(stdout, snap);
    case GS_OUT_SMI_QUERY:
        return gs_smi_query_write(stdout, snap, o->smi_display);
    case GS_OUT_SMI_XML:
        return o->smi_xml(stdout, snap, o->smi_dtd);
    case GS_OUT_SMI_MON:
        if (seq == 0 && gs_smi_mon_header(stdout, &o->mon, snap) < 0)
            return -GS_E_IO;
        return gs_smi_mon_write(stdout, &o->mon, snap);
    default:
        if (o->redraw)
            fputs("\033[H\033[J", stdout); /* home, clear: the table stays in place */
        else if (seq > 0)
            fputc('\n', stdout);
        return gs_table_write(stdout, snap, o->color);
    }
}

/* Sleep until the absolute deadline (CLOCK_MONOTONIC ns). Returns true when
 * SIGINT/SIGTERM arrived instead. */
static bool wait_until(uint64_t deadline, const sigset_t *stop)
{
    for (;;) {
        uint64_t now = gs_clock_mono_ns();
        if (now >= deadline)
            return false;
        struct timespec left = {(time_t)((deadline - now) / NS_PER_S), (long)((deadline - now) % NS_PER_S)};
        int sig = sigtimedwait(stop, NULL, &left);
        if (sig > 0)
            return true;
        if (sig < 0 && errno != EAGAIN && errno != EINTR)
            return false;
    }
}

static void describe_line(void *arg, const char *text)
{
    fprintf((FILE *)arg, "debug: %s\n", text);
}

/* Profiling metrics (GPM) are rates between two samples: a one-shot query that
 * asks for them by name (--query-gpu prof.*, --details) takes a first snapshot
 * and prints the second, GS_PROF_PRIME_MS later. One-shot JSON does not wait. */
#define GS_PROF_PRIME_MS 200

static bool prime_profiling(const struct gs_out_opts *o, const struct gs_sampler_opts *so)
{
    if (o->interval_ns || (o->format != GS_OUT_DETAILS && !(o->format == GS_OUT_CSV && !so->want_none)))
        return false;
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        if (!gs_fmask_any(so->want) || gs_fmask_has(so->want, GS_F_PROF_FIRST + k))
            return true;
    return false;
}

/* Take and print snapshots; returns an exit code. */
static int loop(struct gs_sampler *s, const struct gs_out_opts *o, const sigset_t *stop, bool prime)
{
    struct gs_snapshot snap;
    struct gs_err err = {0};
    uint64_t start = gs_clock_mono_ns(), printed = 0, tick = 0;
    int code = GS_EXIT_OK;

    gs_snapshot_init(&snap);
    if (prime) { /* its errors, if any, come again with the snapshot that is printed */
        struct timespec ts = {0, GS_PROF_PRIME_MS * 1000000L};
        gs_sampler_snapshot(s, &snap, &err);
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
    }
    for (;;) {
        int rc = gs_sampler_snapshot(s, &snap, &err);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND) {
            gs_err_print(&err);
            code = gs_exit_from_errc(rc);
            break;
        }
        if (rc < 0 && is_gpustat(o)) {
            /* gpustat shows a lost GPU as "((GPU is lost))" and exits 0 */
        } else if (rc < 0 && code == GS_EXIT_OK) { /* some GPU lost or failed: say so once */
            gs_err_print(&err);
            code = GS_EXIT_PARTIAL;
        }
        if (emit(o, &snap, printed++) < 0 || fflush(stdout) == EOF)
            break; /* closed pipe (EPIPE) or full disk: stop quietly */
        if (!o->interval_ns || (o->count && printed >= o->count))
            break;
        /* absolute deadlines start + k * interval: no drift; when late, skip
         * the missed ticks rather than firing them back to back */
        uint64_t now = gs_clock_mono_ns();
        tick++;
        if (start + tick * o->interval_ns < now)
            tick = (now - start) / o->interval_ns + 1;
        if (wait_until(start + tick * o->interval_ns, stop))
            break;
    }
    gs_snapshot_release(&snap);
    return code;
}

int gs_out_run(const struct gs_out_opts *o)
{
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s = NULL;
    struct gs_err err = {0};
    sigset_t stop;
    int code;

    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    if (o->interval_ns)
        pthread_sigmask(SIG_BLOCK, &stop, NULL);
    sampler_opts_for(o, &so);
    if (gs_sampler_open(&s, &so, &err) < 0) {
        if (is_gpustat(o))
            return gs_gpustat_open_failed(o->gpustat, o->format == GS_OUT_GPUSTAT_JSON, &err, o->only_ids);
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    if (o->debug)
        gs_sampler_describe(s, describe_line, stderr);
    bool alt = o->format == GS_OUT_GPUSTAT && o->redraw; /* gpustat's term.fullscreen() */
    if (alt)
        fputs("\033[?1049h", stdout);
    code = loop(s, o, &stop, prime_profiling(o, &so));
    if (alt) {
        fputs("\033[?1049l", stdout);
        fflush(stdout);
    }
    gs_sampler_close(s);
    return code;
}
