/* SPDX-License-Identifier: MIT */
/*
 * cusim_state.c - the CUDA simulator's lifecycle and call protocol: cuInit
 * (scenario loading, the device table), the clock shared with the NVML
 * simulator, entering a call (init, current context, sticky errors, a lost
 * GPU), waiting for scenario time, error faults, and the control functions
 * (gscusimVersion, gscusimSettle). cusim.h says how time works.
 */
#include "cusim.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct cusim gs_cusim = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
static __thread struct CUctx_st *cusim_cur;

struct CUctx_st *gs_cusim_current(void)
{
    return cusim_cur;
}

void gs_cusim_set_current(struct CUctx_st *c)
{
    cusim_cur = c;
}

/* ---- clock ------------------------------------------------------------------------ */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The NVML simulator, when this process has loaded it: its clock and its load model. */
static void cusim_find_nvml(void)
{
    if (gs_cusim.nvml_now)
        return;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (!lib)
        return;
    void *now = dlsym(lib, "gssimClockNow"), *busy = dlsym(lib, "gssimLoadBusy");
    if (now && busy) {
        memcpy(&gs_cusim.nvml_now, &now, sizeof(now));
        memcpy(&gs_cusim.nvml_busy, &busy, sizeof(busy));
    }
    dlclose(lib); /* still loaded by whoever loaded it */
}

static void cusim_clock_from_env(void)
{
    const char *v = getenv("GPUSCOPE_SIM_CLOCK");
    gs_cusim.clock = CUSIM_CLOCK_REAL;
    gs_cusim.t0_mono = mono_s();
    gs_cusim.virtual_clock = 0;
    if (v && !strncmp(v, "fixed:", 6)) {
        gs_cusim.clock = CUSIM_CLOCK_FIXED;
        gs_cusim.clock_value = strtod(v + 6, NULL);
        gs_cusim.virtual_clock = 1;
    } else if (v && !strncmp(v, "file:", 5) && v[5]) {
        gs_cusim.clock = CUSIM_CLOCK_FILE;
        snprintf(gs_cusim.clock_file, sizeof(gs_cusim.clock_file), "%s", v + 5);
        gs_cusim.virtual_clock = 1;
    }
}

double gs_cusim_now(void)
{
    if (gs_cusim.nvml_now)
        return gs_cusim.nvml_now();
    switch (gs_cusim.clock) {
    case CUSIM_CLOCK_FIXED:
        return gs_cusim.clock_value;
    case CUSIM_CLOCK_FILE: {
        FILE *f = fopen(gs_cusim.clock_file, "r");
        if (f) {
            double x;
            if (fscanf(f, "%lf", &x) == 1 && isfinite(x))
                gs_cusim.clock_value = x;
            fclose(f);
        }
        return gs_cusim.clock_value;
    }
    default:
        return mono_s() - gs_cusim.t0_mono;
    }
}

/* ---- loading ---------------------------------------------------------------------- */

static void cusim_uuid_bytes(const char *uuid, unsigned char out[16])
{
    int n = 0;
    memset(out, 0, 16);
    for (const char *p = strncmp(uuid, "GPU-", 4) ? uuid : uuid + 4; *p && n < 32; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
        if (d < 0)
            continue;
        out[n / 2] = (unsigned char)(out[n / 2] | (n % 2 ? d : d << 4));
        n++;
    }
}

static double cusim_num(const struct gs_scn *s, int g, enum gs_scn_num n)
{
    struct gs_scn_env env = { .gpu = &s->gpus[g], .salt = (unsigned)g * 7919u, .depth = 0 };
    double v = gs_scn_eval(s->gpus[g].num[n], 0, &env);
    return isfinite(v) ? v : 0;
}

/* CUDA_VISIBLE_DEVICES, as the driver reads it: indices or UUID prefixes,
 * comma-separated, in the order given; the list ends at the first entry that
 * names no GPU; unset means every GPU. Returns the count. */
static int cusim_visible(const struct gs_scn *s, int *order)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    int n = 0;
    if (!env) {
        for (int g = 0; g < s->ngpus; g++)
            order[n++] = g;
        return n;
    }
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", env);
    for (char *tok = strtok(buf, ","); tok && n < s->ngpus; tok = strtok(NULL, ",")) {
        int g = -1;
        char *end;
        long v = strtol(tok, &end, 10);
        if (end != tok && !*end && v >= 0 && v < s->ngpus) {
            g = (int)v;
        } else if (!strncmp(tok, "GPU-", 4)) {
            for (int k = 0; k < s->ngpus && g < 0; k++) {
                char uuid[48];
                gs_scn_gpu_ids(s, k, uuid, sizeof(uuid), NULL, 0);
                if (!strncmp(uuid, tok, strlen(tok)))
                    g = k;
            }
        }
        if (g < 0)
            break;
        order[n++] = g;
    }
    return n;
}

static void cusim_devices(void)
{
    const struct gs_scn *s = gs_cusim.scn;
    int order[CUSIM_MAX_DEV];
    gs_cusim.ndev = cusim_visible(s, order);
    for (int i = 0; i < gs_cusim.ndev; i++) {
        int g = order[i];
        struct cusim_dev *d = &gs_cusim.dev[i];
        const struct gs_scn_cuda_gpu *cg = &gs_cusim.cuda->gpus[g];
        memset(d, 0, sizeof(*d));
        d->scn = g;
        d->cfg = cg;
        snprintf(d->name, sizeof(d->name), "%s",
                 s->gpus[g].str[GS_SCN_S_NAME] ? s->gpus[g].str[GS_SCN_S_NAME] : "NVIDIA Simulated GPU");
        gs_scn_gpu_ids(s, g, d->uuid, sizeof(d->uuid), NULL, 0);
        cusim_uuid_bytes(d->uuid, d->uuid_bytes);
        d->pci_domain = (unsigned)cusim_num(s, g, GS_SCN_N_DOMAIN);
        d->pci_bus = (unsigned)cusim_num(s, g, GS_SCN_N_BUS);
        d->pci_device = (unsigned)cusim_num(s, g, GS_SCN_N_DEVICE);
        d->cc_major = cg->cc_major >= 0 ? cg->cc_major : (int)cusim_num(s, g, GS_SCN_N_CC_MAJOR);
        d->cc_minor = cg->cc_major >= 0 ? cg->cc_minor : (int)cusim_num(s, g, GS_SCN_N_CC_MINOR);
        d->clock_mhz = cg->clock_mhz > 0 ? cg->clock_mhz : cusim_num(s, g, GS_SCN_N_CLK_MAX_SM);
        d->mem_clock_mhz = cusim_num(s, g, GS_SCN_N_CLK_MAX_MEM);
        d->lost_at = s->gpus[g].lost_at;
    }
}

static CUresult cusim_load(void)
{
    char path[PATH_MAX + 64], err[GS_SCN_ERR_LEN + 64];
    Dl_info info;
    const char *lib = dladdr((void *)&gs_cusim_now, &info) && info.dli_fname ? info.dli_fname : NULL;
    struct gs_scn *s = gs_scn_new();
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (gs_scn_locate(lib, path, sizeof(path), err, sizeof(err)) < 0 ||
        gs_scn_parse_file(s, path, err, sizeof(err)) < 0) {
        fprintf(stderr, "gpuscope-cudasim: %s\n", err);
        gs_scn_free(s);
        return CUDA_ERROR_UNKNOWN; /* what a broken driver installation answers */
    }
    gs_cusim.scn = s;
    gs_cusim.cuda = gs_scn_cuda_of(s);
    cusim_clock_from_env();
    cusim_find_nvml();
    cusim_devices();
    gs_cusim.loaded = 1;
    return gs_cusim.cuda->init_error ? (CUresult)gs_cusim.cuda->init_error : CUDA_SUCCESS;
}

CUresult cuInit(unsigned int flags)
{
    pthread_mutex_lock(&gs_cusim.lock);
    if (!gs_cusim.loaded)
        gs_cusim.init_rc = flags ? CUDA_ERROR_INVALID_VALUE : cusim_load();
    else
        cusim_find_nvml();
    CUresult r = gs_cusim.init_rc;
    pthread_mutex_unlock(&gs_cusim.lock);
    return r;
}

CUresult cuDriverGetVersion(int *version)
{
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&gs_cusim.lock);
    /* before cuInit the driver still knows its version: read the scenario then */
    if (!gs_cusim.loaded)
        gs_cusim.init_rc = cusim_load();
    *version = gs_cusim.cuda ? gs_cusim.cuda->driver_version : 12040;
    pthread_mutex_unlock(&gs_cusim.lock);
    return CUDA_SUCCESS;
}

static CUresult cusim_errtext(CUresult r, const char **out, int want_name)
{
    static const struct { CUresult r; const char *text; } texts[] = {
        { 0, "no error" }, { 1, "invalid argument" }, { 2, "out of memory" }, { 3, "initialization error" },
        { 34, "CUDA driver is a stub library" }, { 46, "CUDA-capable device(s) is/are busy or unavailable" },
        { 803, "system has unsupported display driver / cuda driver combination" },
        { 100, "no CUDA-capable device is detected" }, { 101, "invalid device ordinal" },
        { 201, "invalid device context" }, { 214, "uncorrectable ECC error encountered" },
        { 218, "a PTX JIT compilation failed" }, { 222, "the provided PTX was compiled with an unsupported toolchain." },
        { 400, "invalid resource handle" }, { 500, "named symbol not found" }, { 600, "device not ready" },
        { 700, "an illegal memory access was encountered" }, { 702, "the launch timed out and was terminated" },
        { 719, "unspecified launch failure" }, { 999, "unknown error" },
    };
    const char *name = gs_scn_cuda_error_name(r);
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    if (!name) {
        *out = NULL;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *out = name;
    if (!want_name)
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
            if (texts[i].r == r)
                *out = texts[i].text;
    return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult r, const char **name)
{
    return cusim_errtext(r, name, 1);
}

CUresult cuGetErrorString(CUresult r, const char **text)
{
    return cusim_errtext(r, text, 0);
}

/* ---- the call protocol ------------------------------------------------------------ */

CUresult gs_cusim_enter(void)
{
    pthread_mutex_lock(&gs_cusim.lock);
    if (!gs_cusim.loaded || gs_cusim.init_rc != CUDA_SUCCESS) {
        pthread_mutex_unlock(&gs_cusim.lock);
        return CUDA_ERROR_NOT_INITIALIZED;
    }
    return CUDA_SUCCESS;
}

CUresult gs_cusim_leave(CUresult r)
{
    pthread_mutex_unlock(&gs_cusim.lock);
    return r;
}

/* A GPU that fell off the bus ends its contexts: launches in flight and every
 * later call fail as "unspecified launch failure", as drivers report Xid 79. */
static void cusim_check_lost(struct CUctx_st *c, double now)
{
    if (!c->sticky && now >= gs_cusim.dev[c->dev].lost_at)
        c->sticky = CUDA_ERROR_LAUNCH_FAILED;
}

CUresult gs_cusim_enter_ctx(struct CUctx_st **out)
{
    CUresult r = gs_cusim_enter();
    if (r != CUDA_SUCCESS)
        return r;
    struct CUctx_st *c = cusim_cur;
    if (!c)
        return gs_cusim_leave(CUDA_ERROR_INVALID_CONTEXT);
    cusim_check_lost(c, gs_cusim_now());
    if (c->sticky)
        return gs_cusim_leave(c->sticky);
    *out = c;
    return CUDA_SUCCESS;
}

CUresult gs_cusim_wait(struct CUctx_st *c, double t)
{
    double last = gs_cusim_now(), since = mono_s();
    for (;;) {
        double now = gs_cusim_now();
        if (now >= gs_cusim.dev[c->dev].lost_at && t > gs_cusim.dev[c->dev].lost_at) {
            cusim_check_lost(c, now);
            break;
        }
        if (now >= t || c->sticky)
            break;
        if (now != last) {
            last = now;
            since = mono_s();
        } else if (gs_cusim.virtual_clock && mono_s() - since > 120) {
            fprintf(stderr, "gpuscope-cudasim: waited 120 s for scenario time %.3f (now %.3f), which nobody "
                    "advances: a fixed clock needs gssimClockStep\n", t, now);
            c->waiting_until = -1;
            return CUDA_ERROR_LAUNCH_TIMEOUT;
        }
        c->waiting_until = t;
        pthread_cond_broadcast(&gs_cusim.cond); /* gscusimSettle looks again */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        /* a virtual clock moves when someone steps it: gscusimSettle wakes us then */
        double pause = gs_cusim.virtual_clock ? 0.05 : fmin(t - now, 0.05);
        long ns = ts.tv_nsec + (long)(pause * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        pthread_cond_timedwait(&gs_cusim.cond, &gs_cusim.lock, &ts);
    }
    c->waiting_until = -1;
    return c->sticky ? c->sticky : CUDA_SUCCESS;
}

CUresult gs_cusim_fault(const char *fn, int dev)
{
    const struct gs_scn_cuda *cu = gs_cusim.cuda;
    CUresult r = CUDA_SUCCESS;
    for (int i = 0; cu && i < cu->nfaults; i++) {
        const struct gs_scn_cuda_fault *f = &cu->faults[i];
        if (f->kind != GS_SCN_CUDA_ERROR || strcmp(f->fn, fn) || (f->gpu >= 0 && f->gpu != gs_cusim.dev[dev].scn))
            continue;
        unsigned long n = ++gs_cusim.fault_hits[i];
        if ((n == f->n || (f->persist && n > f->n)) && !r)
            r = (CUresult)f->error;
    }
    return r;
}

struct cusim_alloc *gs_cusim_find(struct CUctx_st *c, CUdeviceptr p, size_t len)
{
    for (struct cusim_alloc *a = c->allocs; a; a = a->next)
        if (p >= a->base && len <= a->size && p - a->base <= a->size - len)
            return a;
    return NULL;
}

void gs_cusim_busy(int dev, double t0, double t1, double intensity)
{
    if (gs_cusim.nvml_busy)
        gs_cusim.nvml_busy((unsigned)gs_cusim.dev[dev].scn, t0, t1, intensity);
}

void gs_cusim_ctx_free(struct CUctx_st *c)
{
    for (struct CUctx_st **pp = &gs_cusim.ctxs; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    while (c->allocs) {
        struct cusim_alloc *a = c->allocs;
        c->allocs = a->next;
        free((void *)(uintptr_t)a->base);
        free(a);
    }
    while (c->mods) {
        struct CUmod_st *m = c->mods;
        c->mods = m->next;
        free(m);
    }
    while (c->events) {
        struct CUevent_st *e = c->events;
        c->events = e->next;
        free(e);
    }
    if (cusim_cur == c)
        cusim_cur = NULL;
    free(c);
}

/* When the program unloads the library (dlclose or exit): free everything. */
__attribute__((destructor)) static void cusim_fini(void)
{
    pthread_mutex_lock(&gs_cusim.lock);
    while (gs_cusim.ctxs)
        gs_cusim_ctx_free(gs_cusim.ctxs);
    for (int i = 0; i < gs_cusim.ndev; i++)
        gs_cusim.dev[i].primary = NULL;
    gs_cusim_memo_free();
    gs_scn_free(gs_cusim.scn);
    gs_cusim.scn = NULL;
    gs_cusim.cuda = NULL;
    gs_cusim.loaded = 0;
    pthread_mutex_unlock(&gs_cusim.lock);
}

/* ---- control functions -------------------------------------------------------------- */

const char *gscusimVersion(void)
{
    return CUSIM_VERSION;
}

/* Block until every live context has a thread parked on future scenario time
 * (or has ended in an error), so that stepping the clock next is fair to all
 * of them. A thread parked on a GPU that has fallen off the bus is not
 * settled: it wakes to its error, and the program must see that error at the
 * time it happened, not a step later. 0 when settled, -1 after timeout_ms. */
int gscusimSettle(int timeout_ms)
{
    double deadline = mono_s() + timeout_ms / 1000.0;
    pthread_mutex_lock(&gs_cusim.lock);
    pthread_cond_broadcast(&gs_cusim.cond); /* the clock may have moved: waiters look again */
    for (;;) {
        double now = gs_cusim_now();
        int busy = 0;
        for (struct CUctx_st *c = gs_cusim.ctxs; c && !busy; c = c->next)
            if (!c->sticky && !(c->primary && c->refs == 0) &&
                (!(c->waiting_until > now) || now >= gs_cusim.dev[c->dev].lost_at))
                busy = 1; /* running, or parked on a GPU that has fallen off: it wakes to fail */
        if (!busy || mono_s() > deadline) {
            pthread_mutex_unlock(&gs_cusim.lock);
            return busy ? -1 : 0;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&gs_cusim.cond, &gs_cusim.lock, &ts);
    }
}

/* The earliest scenario time a parked thread waits for (INFINITY: none), so a
 * program stepping a virtual clock can step straight to the next completion. */
double gscusimNextEvent(void)
{
    double next = INFINITY;
    pthread_mutex_lock(&gs_cusim.lock);
    for (struct CUctx_st *c = gs_cusim.ctxs; c; c = c->next)
        if (!c->sticky && c->waiting_until >= 0 && c->waiting_until < next)
            next = c->waiting_until;
    pthread_mutex_unlock(&gs_cusim.lock);
    return next;
}
