/* SPDX-License-Identifier: MIT */
/*
 * sim_state.c - the simulator's lifecycle and call protocol: the one mutex,
 * refcounted init/shutdown, scenario loading (GPUSCOPE_SIM_SCENARIO, _DIR,
 * _FAULTS, _CLOCK), call counting and GPUSCOPE_SIM_STATS, fault injection, the
 * scenario clock, profile detection and the gssim* control functions.
 */
#include "sim.h"
#include "sim_stub.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

#define SIM_REAL_STEP_S 0.001 /* the real clock's resolution (scenario seconds) */

struct sim_state gs_sim = {.lock = PTHREAD_MUTEX_INITIALIZER, .v3_entry_bytes = 24};
unsigned long long gs_sim_calls[SIM_SYM__COUNT];

#define SIM_SYM_NAME(name, prof) #name,
const char *const gs_sim_sym_names[SIM_SYM__COUNT] = {SIM_SYMBOLS(SIM_SYM_NAME)};
#undef SIM_SYM_NAME

static pthread_once_t sim_profile_once = PTHREAD_ONCE_INIT;
static unsigned char sim_exported[SIM_SYM__COUNT];

/* ---- clock --------------------------------------------------------------------- */

static double sim_clock_read(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sim_clock_start(void)
{
    if (gs_sim.t0_set)
        return;
    gs_sim.t0_mono = sim_clock_read(CLOCK_MONOTONIC);
    gs_sim.t0_epoch = sim_clock_read(CLOCK_REALTIME);
    gs_sim.t0_set = 1;
}

static double sim_clock_file(void)
{
    char buf[64];
    FILE *f = fopen(gs_sim.clock_file, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *end;
        double v = strtod(buf, &end);
        if (end != buf && isfinite(v))
            gs_sim.clock_value = v;
    }
    return gs_sim.clock_value;
}

double gs_sim_now(void)
{
    switch (gs_sim.clock_mode) {
    case SIM_CLOCK_FIXED:
    case SIM_CLOCK_VIRTUAL:
        return gs_sim.clock_value;
    case SIM_CLOCK_FILE:
        return sim_clock_file();
    default:
        /* In steps of SIM_REAL_STEP_S, like a driver that refreshes its readings
         * periodically: the calls of one sampling pass mostly see the same t, so
         * what depends only on t is computed once (gs_sim_proc_mem's memo). */
        return gs_sim.t0_set ? floor((sim_clock_read(CLOCK_MONOTONIC) - gs_sim.t0_mono) / SIM_REAL_STEP_S) *
                                   SIM_REAL_STEP_S
                             : 0.0;
    }
}

unsigned long long gs_sim_epoch_us(double t)
{
    double base = gs_sim.t0_set ? gs_sim.t0_epoch : sim_clock_read(CLOCK_REALTIME);
    /* each part rounded on its own: two instants on the clock's 1 ms grid are exactly their
     * distance apart (a rate over two timestamps comes out exact, as over the driver's) */
    double us = round(base * 1e6) + round(t * 1e6);
    return us > 0 ? (unsigned long long)us : 0;
}

static int sim_clock_from_env(char *err, size_t errlen)
{
    const char *v = getenv("GPUSCOPE_SIM_CLOCK");
    if (gs_sim.clock_by_api)
        return 0;
    gs_sim.clock_mode = SIM_CLOCK_REAL;
    if (!v || !*v || strcmp(v, "real") == 0)
        return 0;
    if (strncmp(v, "fixed:", 6) == 0) {
        char *end;
        double x = strtod(v + 6, &end);
        if (end != v + 6 && !*end && isfinite(x)) {
            gs_sim.clock_mode = SIM_CLOCK_FIXED;
            gs_sim.clock_value = x;
            return 0;
        }
    } else if (strncmp(v, "file:", 5) == 0 && v[5] && strlen(v + 5) < sizeof(gs_sim.clock_file)) {
        snprintf(gs_sim.clock_file, sizeof(gs_sim.clock_file), "%s", v + 5);
        gs_sim.clock_mode = SIM_CLOCK_FILE;
        gs_sim.clock_value = 0;
        return 0;
    }
    snprintf(err, errlen, "GPUSCOPE_SIM_CLOCK=%s: expected real, fixed:SECONDS or file:PATH", v);
    return -1;
}

/* ---- profile ------------------------------------------------------------------- */

/* Which symbols does this very library export? (= which profile was linked) */
static void sim_profile_detect(void)
{
    Dl_info info;
    void *self = NULL;
    if (dladdr((void *)&nvmlInit_v2, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    for (int i = 0; i < SIM_SYM__COUNT; i++)
        sim_exported[i] = !self || dlsym(self, gs_sim_sym_names[i]) != NULL;
    if (self)
        dlclose(self);
    int cc = sim_exported[SIM_SYM_nvmlDeviceGetConfComputeMemSizeInfo];
    int detail = sim_exported[SIM_SYM_nvmlDeviceGetRunningProcessDetailList];
    gs_sim.v3_entry_bytes = cc && !detail ? 32 : 24;
    gs_sim.version_before_init = cc;
    /* the newest profile stands for R575+, whose field values include 269-271 */
    gs_sim.fields_r575 = sim_exported[SIM_SYM_nvmlDeviceGetTemperatureV];
    /* field 165 (NVLink state per link) came with the CUDA 11.8 header (R520): not on r470 */
    gs_sim.fields_r520 = sim_exported[SIM_SYM_nvmlDeviceGetNumFans];
}

static void sim_profile(void)
{
    pthread_once(&sim_profile_once, sim_profile_detect);
}

/* ---- counting and stats ---------------------------------------------------------- */

/* GPUSCOPE_SIM_COUNTERS=PATH: the call counters live in a file that another
 * process can read while this one runs (a benchmark counting NVML calls per
 * refresh of a program it does not control). The file is SIM_SYM__COUNT
 * records of struct sim_live_rec, in sim_syms.h order, mapped shared and
 * incremented in place; a reader takes two looks and subtracts. */
struct sim_live_rec {
    char name[48];               /* the NVML symbol, NUL-padded */
    unsigned long long count;    /* calls since the library was loaded */
    unsigned long long reserved;
};
_Static_assert(sizeof(struct sim_live_rec) == 64, "records are 64 bytes");
static struct sim_live_rec *sim_live;
static pthread_once_t sim_live_once = PTHREAD_ONCE_INIT;

static void sim_live_open(void)
{
    const char *path = getenv("GPUSCOPE_SIM_COUNTERS");
    size_t len = SIM_SYM__COUNT * sizeof(struct sim_live_rec);
    int fd;

    if (!path || !*path)
        return;
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
        fprintf(stderr, "gpuscope-sim: GPUSCOPE_SIM_COUNTERS=%s: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        fprintf(stderr, "gpuscope-sim: GPUSCOPE_SIM_COUNTERS=%s: %s\n", path, strerror(errno));
        return;
    }
    struct sim_live_rec *r = p;
    for (int i = 0; i < SIM_SYM__COUNT; i++)
        snprintf(r[i].name, sizeof(r[i].name), "%s", gs_sim_sym_names[i]);
    __atomic_store_n(&sim_live, r, __ATOMIC_RELEASE);
}

void gs_sim_count(enum sim_sym sym)
{
    __atomic_fetch_add(&gs_sim_calls[sym], 1, __ATOMIC_RELAXED);
    pthread_once(&sim_live_once, sim_live_open);
    if (sim_live)
        __atomic_fetch_add(&sim_live[sym].count, 1, __ATOMIC_RELAXED);
    gs_sim_cost_sym(sym);
}

static void sim_write_stats(void)
{
    const char *path = getenv("GPUSCOPE_SIM_STATS");
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpuscope-sim: GPUSCOPE_SIM_STATS=%s: %s\n", path, strerror(errno));
        return;
    }
    sim_profile();
    for (int i = 0; i < SIM_SYM__COUNT; i++)
        if (sim_exported[i])
            fprintf(f, "%s %llu\n", gs_sim_sym_names[i],
                    __atomic_load_n(&gs_sim_calls[i], __ATOMIC_RELAXED));
    gs_sim_stub_stats(f); /* the functions this library answers NOT_SUPPORTED for (sim_stub.c) */
    fclose(f);
}

/* ---- scenario loading ------------------------------------------------------------- */

static int sim_scenario_path(char *out, size_t len, char *err, size_t errlen)
{
    Dl_info info;
    const char *lib = dladdr((void *)&nvmlInit_v2, &info) && info.dli_fname ? info.dli_fname : NULL;
    return gs_scn_locate(lib, out, len, err, errlen);
}

static void sim_derive_ids(struct nvmlDevice_st *g, const struct gs_scn *s)
{
    gs_scn_gpu_ids(s, g->index, g->uuid, sizeof(g->uuid), g->serial, sizeof(g->serial));
}

static int sim_build_runtime(struct gs_scn *s, char *err, size_t errlen)
{
    gs_sim.procs = calloc((size_t)(s->nprocs ? s->nprocs : 1), sizeof(*gs_sim.procs));
    if (!gs_sim.procs) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    gs_sim.by_gpu = calloc((size_t)(s->nprocs ? s->nprocs : 1), sizeof(*gs_sim.by_gpu));
    if (!gs_sim.by_gpu) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int k = 0;
    for (int g = 0; g <= GS_SCN_MAX_GPUS; g++) {
        gs_sim.by_gpu_start[g] = k;
        for (int i = 0; g < GS_SCN_MAX_GPUS && i < s->nprocs; i++)
            if (s->procs[i].gpu == g)
                gs_sim.by_gpu[k++] = i;
    }
    memset(gs_sim.gpus, 0, sizeof(gs_sim.gpus));
    for (int i = 0; i < s->ngpus; i++) {
        struct nvmlDevice_st *g = &gs_sim.gpus[i];
        g->index = i;
        g->cfg = &s->gpus[i];
        sim_derive_ids(g, s);
    }
    memset(gs_sim.fault_hits, 0, sizeof(gs_sim.fault_hits));
    return 0;
}

static int sim_load(char *err, size_t errlen)
{
    char path[PATH_MAX + 64];
    struct gs_scn *s = gs_scn_new();
    const char *faults = getenv("GPUSCOPE_SIM_FAULTS");
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (sim_clock_from_env(err, errlen) < 0 || sim_scenario_path(path, sizeof(path), err, errlen) < 0 ||
        gs_scn_parse_file(s, path, err, errlen) < 0 ||
        (faults && gs_scn_parse_faults(s, faults, "GPUSCOPE_SIM_FAULTS", err, errlen) < 0)) {
        gs_scn_free(s);
        return -1;
    }
    gs_sim.scn = s;
    if (sim_build_runtime(s, err, errlen) < 0 || gs_sim_mig_build(s, path, err, errlen) < 0) {
        gs_sim_mig_free();
        free(gs_sim.procs);
        free(gs_sim.by_gpu);
        gs_sim.procs = NULL;
        gs_sim.by_gpu = NULL;
        gs_scn_free(s);
        gs_sim.scn = NULL;
        return -1;
    }
    gs_sim_resolve_pids();
    gs_sim.loaded = 1;
    gs_sim_sysfs_sync(gs_sim_now());
    return 0;
}

static void sim_unload(void)
{
    gs_sim_procs_stop();
    gs_sim_events_free_all();
    gs_sim_gpm_free_all();
    gs_sim_mig_free();
    free(gs_sim.procs);
    gs_sim.procs = NULL;
    free(gs_sim.by_gpu);
    gs_sim.by_gpu = NULL;
    gs_scn_free(gs_sim.scn);
    gs_sim.scn = NULL;
    gs_sim.loaded = 0;
    gs_sim.spawned = 0;
}

/* ---- faults -------------------------------------------------------------------------- */

/* Find the fault that fires for this call, counting matching calls. Returns
 * the error to inject (0: none); *delay_ms gets the delay to apply. */
static nvmlReturn_t sim_faults(enum sim_sym sym, int gpu, unsigned *delay_ms)
{
    nvmlReturn_t err = NVML_SUCCESS;
    *delay_ms = 0;
    if (!gs_sim.loaded)
        return NVML_SUCCESS;
    for (int i = 0; i < gs_sim.scn->nfaults; i++) {
        const struct gs_scn_fault *f = &gs_sim.scn->faults[i];
        if ((f->sym >= 0 && f->sym != (int)sym) || (f->gpu >= 0 && f->gpu != gpu))
            continue;
        if (f->sym < 0 && gpu < 0)
            continue; /* '*' means device functions */
        unsigned long n = ++gs_sim.fault_hits[i];
        if (n != f->call && !(f->persist && n > f->call))
            continue;
        *delay_ms += f->delay_ms;
        if (f->grow && gpu >= 0 && n == f->call)
            gs_sim.gpus[gpu].grow += f->grow;
        if (f->error && !err)
            err = (nvmlReturn_t)f->error;
    }
    return err;
}

nvmlReturn_t gs_sim_fault_as(const struct sim_call *c, enum sim_sym sym)
{
    unsigned delay;
    return c->gpu ? sim_faults(sym, c->gpu->index, &delay) : NVML_SUCCESS;
}

static void sim_sleep_unlocked(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    pthread_mutex_unlock(&gs_sim.lock);
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&gs_sim.lock);
}

/* ---- call protocol ------------------------------------------------------------------- */

struct nvmlDevice_st *gs_sim_handle(nvmlDevice_t dev)
{
    if (!gs_sim.loaded)
        return NULL;
    if (dev < &gs_sim.gpus[0] || dev >= &gs_sim.gpus[gs_sim.scn->ngpus])
        return gs_sim_mig_handle(dev); /* a MIG device handle, or nothing */
    if (((const char *)dev - (const char *)gs_sim.gpus) % sizeof(gs_sim.gpus[0]) != 0)
        return NULL;
    return dev;
}

/* Count, lock, check init, resolve the handle (is_dev), run faults. */
static nvmlReturn_t sim_begin_common(struct sim_call *c, enum sim_sym sym, int is_dev,
                                     nvmlDevice_t dev)
{
    unsigned delay;
    gs_sim_count(sym);
    pthread_mutex_lock(&gs_sim.lock);
    c->sym = sym;
    c->gpu = NULL;
    c->mig = NULL;
    if (gs_sim.refcount == 0) {
        pthread_mutex_unlock(&gs_sim.lock);
        return NVML_ERROR_UNINITIALIZED;
    }
    c->t = gs_sim_now();
    struct nvmlDevice_st *g = is_dev ? gs_sim_handle(dev) : NULL;
    nvmlReturn_t r = sim_faults(sym, g ? (g->parent ? g->parent : g)->index : -1, &delay);
    if (delay) {
        sim_sleep_unlocked(delay);
        if (gs_sim.refcount == 0)
            r = NVML_ERROR_UNINITIALIZED;
        c->t = gs_sim_now();
        g = is_dev ? gs_sim_handle(dev) : NULL;
    }
    if (r == NVML_SUCCESS && is_dev && !g)
        r = NVML_ERROR_INVALID_ARGUMENT;
    if (r != NVML_SUCCESS)
        pthread_mutex_unlock(&gs_sim.lock);
    if (g && g->parent) { /* a MIG device: the call reads its GPU, narrowed to the instance */
        c->mig = g;
        g = g->parent;
    }
    c->gpu = g;
    return r;
}

nvmlReturn_t gs_sim_begin(struct sim_call *c, enum sim_sym sym)
{
    return sim_begin_common(c, sym, 0, NULL);
}

/* The calls that newer drivers deprecate (docs/SIMULATOR.md, deprecated=). */
static int sim_sym_deprecated(const struct sim_call *c, enum sim_sym sym)
{
    switch (sym) {
    case SIM_SYM_nvmlDeviceGetDisplayMode:
        return gs_sim_deprecated(c, GS_SCN_D_DISPLAY_MODE);
    case SIM_SYM_nvmlDeviceGetPowerManagementMode:
        return gs_sim_deprecated(c, GS_SCN_D_POWER_MODE);
    case SIM_SYM_nvmlDeviceGetApplicationsClock:
    case SIM_SYM_nvmlDeviceGetDefaultApplicationsClock:
        return gs_sim_deprecated(c, GS_SCN_D_APP_CLOCKS);
    default:
        return 0;
    }
}

int gs_sim_lost_now(struct nvmlDevice_st *g, double t)
{
    if (!g->lost && t >= g->cfg->lost_at && t < g->cfg->back_at)
        g->lost = 1;
    if (g->lost && t >= g->cfg->back_at)
        g->lost = 0;
    return g->lost;
}

nvmlReturn_t gs_sim_begin_dev(struct sim_call *c, enum sim_sym sym, nvmlDevice_t dev, int feature)
{
    nvmlReturn_t r = sim_begin_common(c, sym, 1, dev);
    if (r != NVML_SUCCESS)
        return r;
    struct nvmlDevice_st *g = c->gpu;
    if (gs_sim_lost_now(g, c->t))
        return gs_sim_end(c, NVML_ERROR_GPU_IS_LOST);
    if (c->mig && !gs_sim_mig_on(c))
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT); /* the instance went with MIG mode */
    if (c->mig && !gs_sim_mig_sym_ok(sym))
        return gs_sim_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (feature >= 0 && gs_sim_unsupported(g, feature))
        return gs_sim_end(c, NVML_ERROR_NOT_SUPPORTED);
    if (sim_sym_deprecated(c, sym))
        return gs_sim_end(c, NVML_ERROR_DEPRECATED);
    return NVML_SUCCESS;
}

int gs_sim_deprecated(const struct sim_call *c, enum gs_scn_deprecated which)
{
    const struct gs_scn_gpu *cfg = c->gpu->cfg;
    unsigned major = 0;

    if (cfg->deprecated_set)
        return (cfg->deprecated >> which) & 1u;
    for (const char *p = gs_sim.scn->driver_version; *p >= '0' && *p <= '9' && major < 10000; p++)
        major = major * 10 + (unsigned)(*p - '0');
    if (which == GS_SCN_D_RESET_STATUS)
        return major >= 570; /* fields 226/227 answer DEPRECATED from R570 on (real -q -x captures) */
    if (which == GS_SCN_D_DISPLAY_MODE)
        return 0;            /* still answers; R580's nvidia-smi prints it as display_attached */
    return major >= 580;     /* power management mode, applications clocks: R580+ */
}

nvmlReturn_t gs_sim_end(struct sim_call *c, nvmlReturn_t r)
{
    (void)c;
    pthread_mutex_unlock(&gs_sim.lock);
    return r;
}

int gs_sim_unsupported(const struct nvmlDevice_st *g, int feature)
{
    return (g->cfg->unsupported >> feature) & 1u;
}

/* ---- init / shutdown ------------------------------------------------------------------- */

static nvmlReturn_t sim_init(enum sim_sym sym)
{
    char err[GS_SCN_ERR_LEN + 64];
    unsigned delay;
    gs_sim_count(sym);
    sim_profile();
    pthread_mutex_lock(&gs_sim.lock);
    sim_clock_start();
    if (!gs_sim.loaded && sim_load(err, sizeof(err)) < 0) {
        pthread_mutex_unlock(&gs_sim.lock);
        fprintf(stderr, "gpuscope-sim: %s\n", err);
        return NVML_ERROR_UNKNOWN;
    }
    nvmlReturn_t r = sim_faults(sym, -1, &delay);
    if (delay)
        sim_sleep_unlocked(delay);
    if (r == NVML_SUCCESS && gs_sim.scn->init_error) {
        r = (nvmlReturn_t)gs_sim.scn->init_error;
        if (gs_sim.refcount == 0)
            sim_unload();
    }
    if (r == NVML_SUCCESS && gs_sim.refcount++ == 0 && !gs_sim.spawned) {
        gs_sim_procs_start();
        gs_sim.spawned = 1;
    }
    pthread_mutex_unlock(&gs_sim.lock);
    return r;
}

nvmlReturn_t nvmlInit(void)
{
    return sim_init(SIM_SYM_nvmlInit);
}

nvmlReturn_t nvmlInit_v2(void)
{
    return sim_init(SIM_SYM_nvmlInit_v2);
}

nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags; /* NO_GPUS / NO_ATTACH: zero GPUs never fail init here */
    return sim_init(SIM_SYM_nvmlInitWithFlags);
}

nvmlReturn_t nvmlShutdown(void)
{
    gs_sim_count(SIM_SYM_nvmlShutdown);
    pthread_mutex_lock(&gs_sim.lock);
    if (gs_sim.refcount > 0 && --gs_sim.refcount == 0) {
        sim_write_stats();
        sim_unload();
    }
    pthread_mutex_unlock(&gs_sim.lock);
    return NVML_SUCCESS;
}

/* ---- gssim control functions ----------------------------------------------------------- */

const char *gssimVersion(void)
{
    return SIM_VERSION;
}

const char *gssimScenarioName(void)
{
    static char name[64];
    pthread_mutex_lock(&gs_sim.lock);
    snprintf(name, sizeof(name), "%s", gs_sim.loaded ? gs_sim.scn->name : "");
    pthread_mutex_unlock(&gs_sim.lock);
    return name;
}

void gssimClockSet(double t)
{
    pthread_mutex_lock(&gs_sim.lock);
    gs_sim.clock_by_api = 1;
    gs_sim.clock_mode = SIM_CLOCK_VIRTUAL;
    gs_sim.clock_value = isfinite(t) ? t : 0.0;
    if (gs_sim.loaded)
        gs_sim_sysfs_sync(gs_sim.clock_value);
    pthread_mutex_unlock(&gs_sim.lock);
}

void gssimClockStep(double dt)
{
    pthread_mutex_lock(&gs_sim.lock);
    double now = gs_sim_now();
    gs_sim.clock_by_api = 1;
    gs_sim.clock_mode = SIM_CLOCK_VIRTUAL;
    gs_sim.clock_value = now + (isfinite(dt) ? dt : 0.0);
    if (gs_sim.loaded)
        gs_sim_sysfs_sync(gs_sim.clock_value);
    pthread_mutex_unlock(&gs_sim.lock);
}

unsigned long long gssimCallCount(const char *symbol)
{
    int i = symbol ? gs_scn_sym_code(symbol) : -1;
    if (i < 0) {
        unsigned long long *stub = gs_sim_stub_counter(symbol);
        return stub ? __atomic_load_n(stub, __ATOMIC_RELAXED) : 0;
    }
    return __atomic_load_n(&gs_sim_calls[i], __ATOMIC_RELAXED);
}

/* A failed init keeps its scenario loaded so that "fail once, then retry"
 * works; free it when the client unloads the library (dlclose or exit). */
__attribute__((destructor)) static void sim_fini(void)
{
    pthread_mutex_lock(&gs_sim.lock);
    if (gs_sim.loaded)
        sim_unload();
    pthread_mutex_unlock(&gs_sim.lock);
}

/* Forget everything: back to the state of a freshly loaded library (tests). */
void gssimReset(void)
{
    pthread_mutex_lock(&gs_sim.lock);
    if (gs_sim.loaded)
        sim_unload();
    gs_sim.refcount = 0;
    gs_sim.clock_by_api = 0;
    gs_sim.clock_mode = SIM_CLOCK_REAL;
    gs_sim.t0_set = 0;
    for (int i = 0; i < SIM_SYM__COUNT; i++)
        __atomic_store_n(&gs_sim_calls[i], 0, __ATOMIC_RELAXED);
    gs_sim_stub_reset();
    pthread_mutex_unlock(&gs_sim.lock);
}
