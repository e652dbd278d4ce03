/* SPDX-License-Identifier: MIT */
/*
 * burn.c - the run: open the sampler (NVML) and the CUDA driver, match each
 * selected GPU to its CUDA device (PCI bus id, then UUID), start one worker
 * per GPU (worker.c), then every interval take a snapshot, add it to each
 * GPU's record (monitor.c), draw the status and write the database; at the
 * end (duration, Ctrl-C, or every worker gone) stop the workers, judge
 * (verdict.c) and report (output.c).
 *
 * On gpuscope's simulators with a virtual clock (GPUSCOPE_SIM_CLOCK fixed: or
 * file:), time is stepped instead of slept, and before each step the CUDA
 * simulator is asked to settle (every worker parked on simulated time), so
 * a ten-minute burn runs in seconds and gives the same result every time.
 */
#include "burn/burn_priv.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "burn/burn_store.h"
#include "burn/kernels.h"
#include "core/exit.h"
#include "core/module.h"
#include "core/sampler.h"
#include "health/report.h"
#include "lib/clock.h"

#define BURN_EXIT_WARN 6
#define BURN_EXIT_FAIL 7
#define BURN_EXIT_INTERRUPTED 130
#define BURN_STOP_WAIT_S 60

static volatile sig_atomic_t burn_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    burn_interrupted = 1;
}

static double burn_now_s(const struct burn_ctx *b)
{
    if (b->virtual_time)
        return (double)__atomic_load_n(&b->t_ms, __ATOMIC_RELAXED) / 1000.0;
    return (double)(gs_clock_mono_ms() - b->mono0_ms) / 1000.0;
}

/* ---- GPUs and their CUDA devices --------------------------------------------------- */

static bool pci_parse(const char *s, unsigned v[3])
{
    unsigned fn;
    return sscanf(s, "%x:%x:%x.%x", &v[0], &v[1], &v[2], &fn) == 4;
}

static int match_cuda(const struct gs_cuda *cu, const struct burn_gpu *g, int ndev)
{
    unsigned want[3], got[3];
    bool have_pci = pci_parse(g->pci, want);
    for (int d = 0; d < ndev; d++) {
        char bus[64];
        CUuuid u;
        if (have_pci && cu->f.device_pci_bus_id && cu->f.device_pci_bus_id(bus, sizeof(bus), d) == CUDA_SUCCESS &&
            pci_parse(bus, got) && !memcmp(want, got, sizeof(want)))
            return d;
        if (cu->f.device_uuid && cu->f.device_uuid(&u, d) == CUDA_SUCCESS) {
            char s[64];
            const unsigned char *b = (const unsigned char *)u.bytes;
            snprintf(s, sizeof(s), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                     b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
            if (!strcasecmp(s, g->uuid))
                return d;
        }
    }
    return -1;
}

static void cuda_facts(const struct gs_cuda *cu, struct burn_gpu *g)
{
    int v;
    if (g->ordinal < 0)
        return;
    if (cu->f.device_attribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g->ordinal) == CUDA_SUCCESS)
        g->cc_major = v;
    if (cu->f.device_attribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, g->ordinal) == CUDA_SUCCESS)
        g->cc_minor = v;
    g->sms = cu->f.device_attribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g->ordinal) == CUDA_SUCCESS ? v : 1;
    g->threads_per_sm = cu->f.device_attribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, g->ordinal) ==
                                CUDA_SUCCESS && v >= GS_BURN_BLOCK ? v : 1024;
}

static struct burn_gpu *make_gpus(const struct gs_burn_opts *o, const struct gs_snapshot *snap, const struct gs_cuda *cu,
                                  int *n)
{
    int ndev = 0;
    struct burn_gpu *gpus = calloc(snap->ngpus ? snap->ngpus : 1, sizeof(*gpus));
    if (!gpus)
        return NULL;
    if (cu->f.device_count(&ndev) != CUDA_SUCCESS)
        ndev = 0;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        struct burn_gpu *g = &gpus[i];
        const struct gs_gpu *sg = &snap->gpus[i];
        g->index = (int)sg->st.index;
        g->slot = (int)i;
        g->st = sg->st;
        snprintf(g->name, sizeof(g->name), "%s", sg->st.name);
        snprintf(g->uuid, sizeof(g->uuid), "%s", sg->st.uuid);
        snprintf(g->pci, sizeof(g->pci), "%s", sg->st.pci_bus_id);
        g->ordinal = sg->state == GS_GPU_OK ? match_cuda(cu, g, ndev) : -1;
        g->current = -1;
        pthread_mutex_init(&g->lock, NULL);
        for (int wl = 0; wl < GS_BW__COUNT; wl++) {
            g->w[wl].selected = (o->workloads >> wl) & 1u;
            g->w[wl].supported = true;
        }
        cuda_facts(cu, g);
    }
    *n = (int)snap->ngpus;
    return gpus;
}

/* ---- the simulators' clock ---------------------------------------------------------- */

typedef int (*settle_fn)(int timeout_ms);
typedef double (*clock_now_fn)(void);

/* The NVML simulator's gssimClockNow, to keep stepped time exact. */
static clock_now_fn sim_clock_now(const struct gs_sysinfo *sys)
{
    void *lib = dlopen(sys->lib_path, RTLD_NOW | RTLD_NOLOAD);
    void *p = lib ? dlsym(lib, "gssimClockNow") : NULL;
    clock_now_fn fn = NULL;
    if (lib)
        dlclose(lib); /* still loaded by the sampler */
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

static settle_fn cuda_settler(const struct gs_cuda *cu)
{
    void *p = cu->simulated ? dlsym(cu->handle, "gscusimSettle") : NULL;
    settle_fn fn = NULL;
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

static double (*cuda_next_event(const struct gs_cuda *cu))(void)
{
    void *p = cu->simulated ? dlsym(cu->handle, "gscusimNextEvent") : NULL;
    double (*fn)(void) = NULL;
    memcpy(&fn, &p, sizeof(fn));
    return fn;
}

/* ---- the database (record module) ---------------------------------------------------- */

struct burn_db {
    const struct gs_burn_store_api *api;
    void *h;
    const char *path;
    int64_t wall0_ms;
    bool warned;
};

static int db_open(struct burn_db *db, const struct gs_burn_opts *o, bool virtual_time, struct gs_err *err)
{
    if (!o->db)
        return 0;
    db->path = o->db;
    db->api = gs_module_symbol("record", GS_RECORD_BURN_API_SYMBOL, err);
    if (!db->api)
        return -err->code;
    return db->api->open(&db->h, o->db, (uint32_t)o->interval_ms, virtual_time, err);
}

static void db_mark(struct burn_db *db, int64_t t_ms, int gpu, const char *text)
{
    struct gs_err err = { 0 };
    if (db->h && db->api->mark(db->h, db->wall0_ms + t_ms, gpu, text, &err) < 0 && !db->warned) {
        gs_err_print(&err);
        db->warned = true;
    }
}

static void db_tick(struct burn_db *db, int64_t t_ms, const struct gs_snapshot *snap)
{
    struct gs_err err = { 0 };
    if (db->h && db->api->tick(db->h, db->wall0_ms + t_ms, snap, &err) < 0 && !db->warned) {
        gs_err_print(&err);
        fprintf(stderr, "gpuscope: burn goes on; samples that could not be written are missing from %s\n",
                db->path);
        db->warned = true;
    }
}

static void db_marks_end(struct burn_db *db, int64_t t_ms, struct burn_gpu *gpus, int n, const struct gs_findings *f,
                         bool interrupted)
{
    char text[512];
    for (int i = 0; i < n; i++) {
        enum gs_sev w = gs_burn_gpu_worst(f, gpus[i].index);
        size_t k = (size_t)snprintf(text, sizeof(text), "burn verdict GPU %d: %s%s", gpus[i].index,
                                    gs_burn_verdict_word(w), interrupted ? " (partial)" : "");
        for (size_t j = 0; j < f->n && k < sizeof(text); j++)
            if (f->v[j].gpu == gpus[i].index && f->v[j].severity >= GS_SEV_WARNING)
                k += (size_t)snprintf(text + k, sizeof(text) - k, "; %s: %s", f->v[j].code, f->v[j].title);
        db_mark(db, t_ms, gpus[i].index, text);
    }
    db_mark(db, t_ms, -1, interrupted ? "burn interrupted" : "burn end");
}

/* ---- the run ---------------------------------------------------------------------------- */

struct burn_run {
    struct burn_ctx b;
    struct gs_sampler *s;
    struct gs_snapshot snap;
    struct burn_gpu *gpus;
    int n;
    gs_sim_step_fn step;
    settle_fn settle;
    clock_now_fn clock_now;
    double (*next_event)(void);  /* the CUDA simulator's earliest wait */
    double clock0;               /* simulated time when the burn's clock started */
    uint64_t steps;              /* simulated clock steps taken (--debug) */
    struct burn_db db;
    FILE *status_out;
    bool redraw;
    int64_t last_status_ms;
    int64_t end_ms;              /* the burn's end: where its last marks go (stopping may step the clock on) */
};

static int open_all(struct burn_run *r, struct gs_err *err)
{
    const struct gs_burn_opts *o = r->b.o;
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    so.slow = GS_SLOW_SKIP;
    so.want_procs = false;
    so.want_host = false;
    so.only_ids = o->only_ids;
    /* every counter at every tick (ECC, remaps, PCIe link): the verdict must not
     * miss the last seconds, and a stress test can afford the few calls */
    setenv("GPUSCOPE_READ_PERIOD_MS", "0", 0);
    int rc = gs_sampler_open(&r->s, &so, err);
    if (rc < 0)
        return rc;
    rc = gs_sampler_snapshot(r->s, &r->snap, err);
    if (rc < 0 && rc != -GS_E_GPU_LOST && rc != -GS_E_BACKEND)
        return rc;
    r->step = gs_sim_clock_stepper(&r->snap.sys);
    if ((rc = gs_cuda_open(&r->b.cu, NULL, err)) < 0)
        return rc;
    r->settle = r->step ? cuda_settler(&r->b.cu) : NULL;
    r->clock_now = r->step ? sim_clock_now(&r->snap.sys) : NULL;
    r->next_event = r->step ? cuda_next_event(&r->b.cu) : NULL;
    r->b.virtual_time = r->step != NULL;
    r->gpus = make_gpus(o, &r->snap, &r->b.cu, &r->n);
    if (!r->gpus)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    /* on the virtual clock the burn's samples end about now, so reports find them */
    r->db.wall0_ms = gs_clock_wall_ms() - (r->b.virtual_time ? o->duration_ms : 0);
    return db_open(&r->db, o, r->b.virtual_time, err);
}

static int start_workers(struct burn_run *r, struct gs_err *err)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* signals go to the main thread */
    for (int i = 0; i < r->n; i++) {
        struct burn_gpu *g = &r->gpus[i];
        if (g->ordinal < 0) {
            atomic_store(&g->exited, 1);
            continue;
        }
        struct burn_worker_arg *a = malloc(sizeof(*a));
        if (a) {
            a->b = &r->b;
            a->g = g;
        }
        if (!a || pthread_create(&g->thread, NULL, gs_burn_worker, a) != 0) {
            free(a);
            atomic_store(&g->exited, 1);
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            return gs_err_set(err, GS_E_INTERNAL, "cannot start the worker thread for GPU %d", g->index);
        }
        g->started = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 0;
}

/* Wait until every worker has its context, modules and buffers (the JIT can
 * take seconds on a real GPU), so the burn's clock starts when they do. */
static void wait_ready(const struct burn_run *r)
{
    int64_t until = gs_clock_mono_ms() + 300000;
    for (;;) {
        bool all = true;
        for (int i = 0; i < r->n; i++)
            if (!atomic_load(&r->gpus[i].ready) && !atomic_load(&r->gpus[i].exited))
                all = false;
        if (all || burn_interrupted || gs_clock_mono_ms() > until)
            return;
        struct timespec ts = { 0, 2000000L };
        nanosleep(&ts, NULL);
    }
}

static bool all_exited(const struct burn_run *r)
{
    for (int i = 0; i < r->n; i++)
        if (!atomic_load(&r->gpus[i].exited))
            return false;
    return true;
}

/* Simulated time moves from one completion to the next (the earliest time a
 * parked worker waits for; at most a launch's length without the simulator's
 * help), each step followed by a settle (every worker parked on later
 * simulated time again): the simulated GPUs are as busy as real ones, and a
 * sample sees every launch up to its time. */
static void sim_advance(struct burn_run *r, int64_t ms)
{
    int64_t end = r->b.t_ms + ms;
    while (r->b.t_ms < end) {
        int64_t to = r->b.t_ms + (r->b.o->launch_ms > 0 ? r->b.o->launch_ms : 50);
        if (r->next_event) {
            double next = r->next_event();
            if (next < INFINITY)
                to = (int64_t)ceil((next - r->clock0) * 1000.0 - 1e-6);
        }
        to = to <= r->b.t_ms ? r->b.t_ms + 1 : to > end ? end : to;
        double want = r->clock0 + (double)to / 1000.0;
        r->step(r->clock_now ? want - r->clock_now() : (double)(to - r->b.t_ms) / 1000.0); /* no drift */
        __atomic_store_n(&r->b.t_ms, to, __ATOMIC_RELAXED);
        r->steps++;
        if (r->settle)
            r->settle(30000);
    }
}

/* Let time pass: step the simulated clock, or sleep until the next tick. */
static void pass_time(struct burn_run *r, int64_t next_ms)
{
    const struct gs_burn_opts *o = r->b.o;
    if (r->step) {
        sim_advance(r, o->interval_ms);
        return;
    }
    int64_t wait = next_ms - (gs_clock_mono_ms() - r->b.mono0_ms);
    if (wait > 0) {
        struct timespec ts = { (time_t)(wait / 1000), (long)(wait % 1000) * 1000000L };
        nanosleep(&ts, NULL); /* a signal cuts it short: the loop looks at the flag */
    }
    __atomic_store_n(&r->b.t_ms, gs_clock_mono_ms() - r->b.mono0_ms, __ATOMIC_RELAXED);
}

static void observe(struct burn_run *r, double dt_s)
{
    struct gs_err err = { 0 };
    gs_sampler_snapshot(r->s, &r->snap, &err);
    double t_s = (double)r->b.t_ms / 1000.0;
    for (int i = 0; i < r->n; i++)
        if ((uint32_t)r->gpus[i].slot < r->snap.ngpus)
            gs_burn_monitor_tick(r->b.o, &r->gpus[i], &r->snap.gpus[r->gpus[i].slot], &r->snap, t_s, dt_s);
    db_tick(&r->db, r->b.t_ms, &r->snap);
    if (r->status_out && (r->redraw || r->b.t_ms - r->last_status_ms >= 10000)) {
        gs_burn_status(r->status_out, r->redraw, &r->b, r->gpus, r->n, &r->snap, t_s,
                       (double)r->b.o->duration_ms / 1000.0);
        r->last_status_ms = r->b.t_ms;
    }
}

static void burn_loop(struct burn_run *r)
{
    const struct gs_burn_opts *o = r->b.o;
    int64_t next = 0;
    if (r->settle)
        r->settle(30000); /* the workers' first launches are in before the first sample */
    observe(r, 0);
    while (r->b.t_ms < o->duration_ms && !burn_interrupted && !all_exited(r)) {
        next += o->interval_ms;
        int64_t before = r->b.t_ms;
        pass_time(r, next);
        if (burn_interrupted)
            break;
        observe(r, (double)(r->b.t_ms - before) / 1000.0);
    }
    if (r->status_out && !r->redraw && r->last_status_ms != r->b.t_ms) /* a log ends with the last state */
        gs_burn_status(r->status_out, false, &r->b, r->gpus, r->n, &r->snap, (double)r->b.t_ms / 1000.0,
                       (double)o->duration_ms / 1000.0);
}

/* Stop the workers: they finish the iteration they are in. Returns false when
 * one did not stop within BURN_STOP_WAIT_S (a hung GPU: its thread is left). */
static bool stop_workers(struct burn_run *r)
{
    atomic_store(&r->b.stop, 1);
    int64_t until = gs_clock_mono_ms() + BURN_STOP_WAIT_S * 1000;
    for (int k = 0; !all_exited(r) && gs_clock_mono_ms() < until && k < 100000; k++) {
        if (r->step) {
            sim_advance(r, r->b.o->launch_ms > 0 ? r->b.o->launch_ms : 50);
        } else {
            struct timespec ts = { 0, 20000000L };
            nanosleep(&ts, NULL);
        }
    }
    bool all = true;
    for (int i = 0; i < r->n; i++) {
        struct burn_gpu *g = &r->gpus[i];
        if (!g->started)
            continue;
        if (atomic_load(&g->exited)) {
            pthread_join(g->thread, NULL);
            continue;
        }
        all = false;
        pthread_detach(g->thread);
        pthread_mutex_lock(&g->lock);
        if (!g->cuda_error) {
            g->cuda_error = CUDA_ERROR_LAUNCH_TIMEOUT;
            snprintf(g->cuda_call, sizeof(g->cuda_call), "(the GPU's work)");
            snprintf(g->cuda_errname, sizeof(g->cuda_errname), "did not finish");
            snprintf(g->cuda_errtext, sizeof(g->cuda_errtext), "no kernel completed for %d s after the stop",
                     BURN_STOP_WAIT_S);
            g->error_s = burn_now_s(&r->b);
        }
        pthread_mutex_unlock(&g->lock);
    }
    return all;
}

static void debug_line(void *arg, const char *text)
{
    fprintf(arg, "  %s\n", text);
}

static void debug_dump(const struct burn_run *r)
{
    fprintf(stderr, "burn --debug: CUDA library%s\n", r->step ? "" : " (real time)");
    if (r->step)
        fprintf(stderr, "  simulated clock: %llu steps\n", (unsigned long long)r->steps);
    gs_cuda_describe(&r->b.cu, debug_line, stderr);
    for (int i = 0; i < r->n; i++) {
        const struct burn_gpu *g = &r->gpus[i];
        fprintf(stderr, "GPU %d: CUDA device %d, cc %d.%d, %d SMs x %d threads, trips per launch fp32 %u fp64 %u "
                "tensor %u, memory %.1f MiB\n", g->index, g->ordinal, g->cc_major, g->cc_minor, g->sms,
                g->threads_per_sm, g->w[GS_BW_FP32].iters_per_launch, g->w[GS_BW_FP64].iters_per_launch,
                g->w[GS_BW_TENSOR].iters_per_launch, (double)g->mem_tested_bytes / 1048576.0);
    }
}

static int exit_code(const struct gs_findings *f, bool interrupted)
{
    if (f->lost) { /* a verdict missing findings is no pass */
        fprintf(stderr, "gpuscope burn: out of memory: %zu finding%s of the verdict could not be kept, so "
                        "the verdict above is incomplete\n", f->lost, f->lost == 1 ? "" : "s");
        return BURN_EXIT_FAIL;
    }
    enum gs_sev w = gs_findings_worst(f);
    return w >= GS_SEV_CRITICAL ? BURN_EXIT_FAIL : interrupted ? BURN_EXIT_INTERRUPTED
                                                : w == GS_SEV_WARNING ? BURN_EXIT_WARN : 0;
}

static void setup_output(struct burn_run *r)
{
    const struct gs_burn_opts *o = r->b.o;
    r->status_out = NULL;
    if (o->status && !strcmp(o->status, "off"))
        return;
    r->status_out = o->json ? (isatty(STDERR_FILENO) ? stderr : NULL) : stdout;
    r->redraw = r->status_out && isatty(fileno(r->status_out)) && !getenv("NO_COLOR");
    r->last_status_ms = -10000;
}

static void announce(struct burn_run *r)
{
    char wls[64] = "", text[160];
    size_t k = 0;
    for (int wl = 0; wl < GS_BW__COUNT; wl++)
        if (r->b.o->workloads & (1u << wl))
            k += (size_t)snprintf(wls + k, k < sizeof(wls) ? sizeof(wls) - k : 0, "%s%s", k ? "," : "",
                                  gs_burn_wl_name(wl));
    snprintf(text, sizeof(text), "burn start: %s for %.0f s", wls, (double)r->b.o->duration_ms / 1000.0);
    db_mark(&r->db, 0, -1, text);
    if (!r->b.o->json)
        printf("gpuscope burn: %d GPU%s, %s for %.0f s%s\n", r->n, r->n == 1 ? "" : "s", wls,
               (double)r->b.o->duration_ms / 1000.0, r->b.cu.simulated ? " (simulated GPUs)" : "");
    fflush(stdout); /* a log file sees the burn start */
}

static void close_all(struct burn_run *r, bool joined)
{
    if (r->db.h)
        r->db.api->close(r->db.h, r->db.wall0_ms + r->end_ms);
    if (joined && r->b.cu.handle)
        gs_cuda_close(&r->b.cu); /* never under a thread that may still call it */
    gs_snapshot_release(&r->snap);
    if (r->s)
        gs_sampler_close(r->s);
    if (joined)
        free(r->gpus);
}

int gs_burn_run(const struct gs_burn_opts *o, struct gs_err *err)
{
    static struct burn_run r; /* the workers point into it */
    memset(&r, 0, sizeof(r));
    r.b.o = o;
    r.b.now_s = burn_now_s;
    gs_snapshot_init(&r.snap);
    int rc = open_all(&r, err);
    if (rc < 0) {
        close_all(&r, true);
        return gs_exit_from_errc(-rc);
    }
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    setup_output(&r);
    announce(&r);
    r.b.mono0_ms = gs_clock_mono_ms();
    if ((rc = start_workers(&r, err)) < 0) {
        gs_err_print(err);
    } else {
        wait_ready(&r);
        r.b.mono0_ms = gs_clock_mono_ms();
        r.clock0 = r.clock_now ? r.clock_now() : 0;
        burn_loop(&r);
    }
    bool interrupted = burn_interrupted;
    double elapsed = (double)r.b.t_ms / 1000.0;
    r.end_ms = r.b.t_ms; /* on a virtual clock, stop_workers steps it past the last sample */
    bool joined = stop_workers(&r);
    struct gs_findings f = { 0 };
    gs_burn_verdict(o, r.gpus, r.n, interrupted, &f);
    if (o->json)
        gs_burn_report_json(stdout, &r.b, r.gpus, r.n, &f, elapsed, interrupted);
    else
        gs_burn_report_text(stdout, &r.b, r.gpus, r.n, &f, elapsed, interrupted);
    if (o->debug)
        debug_dump(&r);
    db_marks_end(&r.db, r.end_ms, r.gpus, r.n, &f, interrupted);
    int code = exit_code(&f, interrupted);
    gs_findings_free(&f);
    close_all(&r, joined);
    return code;
}
