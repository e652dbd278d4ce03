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
#include "cmd/cmd.h"
#include "core/sampler.h"
#include "out/out.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#define NS_PER_S 1000000000ull

/* A want mask bit no field uses: "read no per-tick field" (0 would mean "all"). */
#define WANT_NOTHING (UINT64_C(1) << GS_F_COUNT)

static uint64_t table_want(void)
{
    static const enum gs_field f[] = {GS_F_TEMP_GPU, GS_F_GPU_UTIL,    GS_F_MEM_USED,      GS_F_MEM_TOTAL,
                                      GS_F_POWER,    GS_F_POWER_LIMIT, GS_F_POWER_ENFORCED};
    uint64_t want = 0;

    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        want |= UINT64_C(1) << f[i];
    return want;
}

/* What the sampler must read for this output; see docs/QUERY.md "Cost". */
static void sampler_opts_for(const struct gs_out_opts *o, struct gs_sampler_opts *so)
{
    bool slow = false;

    so->nvml_lib = o->nvml_lib;
    so->only_ids = o->only_ids;
    so->want = 0; /* everything (JSON, details) */
    so->want_procs = so->want_host = true;
    if (o->format == GS_OUT_CSV && o->fields->kind == GS_QUERY_GPU) {
        so->want = gs_fieldlist_want(o->fields);
        so->want_procs = so->want_host = false;
        slow = gs_fieldlist_wants_slow(o->fields);
    } else if (o->format == GS_OUT_CSV) {
        so->want = WANT_NOTHING; /* compute apps: process lists only */
    } else if (o->format == GS_OUT_TABLE) {
        so->want = table_want();
    } else {
        /* JSON one-shot skips the ~20 ms/GPU PCIe counters (null, "not_sampled"). */
        slow = o->format == GS_OUT_DETAILS || o->interval_ns;
    }
    if (!so->want)
        so->want = o->format == GS_OUT_CSV ? WANT_NOTHING : 0;
    so->slow = !slow ? GS_SLOW_SKIP : o->interval_ns ? GS_SLOW_THREAD : GS_SLOW_INLINE;
}

static int emit(const struct gs_out_opts *o, const struct gs_snapshot *snap, uint64_t seq)
{
    switch (o->format) {
    case GS_OUT_CSV:
        if (seq == 0 && !(o->csv_flags & GS_CSV_NOHEADER) && gs_csv_write_header(stdout, o->fields) < 0)
            return -GS_E_IO;
        return gs_csv_write_rows(stdout, snap, o->fields, o->csv_flags);
    case GS_OUT_JSON:
        return gs_json_write(stdout, snap, o->interval_ns != 0);
    case GS_OUT_DETAILS:
        if (seq > 0)
            fputc('\n', stdout);
        return gs_details_write(stdout, snap);
    default:
        if (o->redraw)
            fputs("\033[H\033[J", stdout); /* home, clear: the table stays in place */
        else if (seq > 0)
            fputc('\n', stdout);
        return gs_table_write(stdout, snap, o->color);
    }
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Sleep until the absolute deadline (CLOCK_MONOTONIC ns). Returns true when
 * SIGINT/SIGTERM arrived instead. */
static bool wait_until(uint64_t deadline, const sigset_t *stop)
{
    for (;;) {
        uint64_t now = mono_ns();
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

/* Take and print snapshots; returns an exit code. */
static int loop(struct gs_sampler *s, const struct gs_out_opts *o, const sigset_t *stop)
{
    struct gs_snapshot snap;
    struct gs_err err = {0};
    uint64_t start = mono_ns(), printed = 0, tick = 0;
    int code = GS_EXIT_OK;

    gs_snapshot_init(&snap);
    for (;;) {
        int rc = gs_sampler_snapshot(s, &snap, &err);
        if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND) {
            gs_err_print(&err);
            code = gs_exit_from_errc(rc);
            break;
        }
        if (rc < 0 && code == GS_EXIT_OK) { /* some GPU lost or failed: say so once */
            gs_err_print(&err);
            code = GS_EXIT_PARTIAL;
        }
        if (emit(o, &snap, printed++) < 0 || fflush(stdout) == EOF)
            break; /* closed pipe (EPIPE) or full disk: stop quietly */
        if (!o->interval_ns || (o->count && printed >= o->count))
            break;
        /* absolute deadlines start + k * interval: no drift; when late, skip
         * the missed ticks rather than firing them back to back */
        uint64_t now = mono_ns();
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
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    if (o->debug)
        gs_sampler_describe(s, describe_line, stderr);
    code = loop(s, o, &stop);
    gs_sampler_close(s);
    return code;
}
