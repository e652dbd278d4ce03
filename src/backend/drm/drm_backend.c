/* SPDX-License-Identifier: MIT */
/*
 * drm_backend.c - the DRM backend's entry points (AMD through amdgpu, Intel
 * through i915 and xe): the context and its roots, discovery, static facts,
 * one tick per GPU dispatched to the driver's reader, processes from the
 * clients scanner, and the gs_backend table at the end.
 *
 * Roots: sysfs under $GPUSCOPE_SYS_ROOT (lib/roots.h), /proc under the
 * sampler's proc root. A tree written by gpuscope's DRM simulator (drmsim)
 * carries <sys>/class/drm/.gpuscope-sim: the run is then marked simulated,
 * and rates use the instant the tree describes (its virtual clock).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "backend/drm/drm_priv.h"
#include "backend/drm/sysval.h"
#include "lib/roots.h"

/* ---- the simulator's clock ------------------------------------------------------------- */

/* "name=...\nseq=N\nt_ns=T\n": N is odd while drmsim rewrites the tree. */
static bool drm_sim_read(struct drm_ctx *ctx, uint64_t *t_ns, char *name, size_t cap)
{
    char buf[256];

    for (int tries = 0; tries < 200; tries++) {
        ssize_t n = gs_sysval_pread(ctx->sim_fd, buf, sizeof(buf));
        const char *seq = n > 0 ? strstr(buf, "seq=") : NULL, *t = n > 0 ? strstr(buf, "t_ns=") : NULL;
        if (!seq || !t)
            return false;
        if (strtoull(seq + 4, NULL, 10) % 2) {
            sched_yield(); /* a rewrite is under way: its files are half new */
            continue;
        }
        *t_ns = strtoull(t + 5, NULL, 10);
        const char *iv = strstr(buf, "interval_ms=");
        ctx->sim_interval_ms = iv ? (uint32_t)strtoul(iv + 12, NULL, 10) : 0;
        const char *nm = name ? strstr(buf, "name=") : NULL;
        if (nm)
            gs_sysval_line(nm + 5, strlen(nm + 5), name, cap);
        return true;
    }
    return false;
}

/* Reads whose values go into a rate must see the instant the tree describes:
 * drmsim holds an exclusive lock on the marker while it rewrites the tree. */
void gs_drm_sim_hold(struct drm_ctx *ctx)
{
    uint64_t t;

    if (ctx->sim_fd < 0)
        return;
    while (flock(ctx->sim_fd, LOCK_SH) < 0 && errno == EINTR)
        ;
    if (drm_sim_read(ctx, &t, NULL, 0))
        ctx->now_ns = t;
}

void gs_drm_sim_release(struct drm_ctx *ctx)
{
    if (ctx->sim_fd >= 0)
        flock(ctx->sim_fd, LOCK_UN);
}

/* ---- context ---------------------------------------------------------------------------- */

static void drm_dev_close(struct drm_dev *d)
{
    for (int k = 0; k < DF__COUNT; k++)
        if (d->fd[k] >= 0)
            close(d->fd[k]);
    for (int k = 0; k < 3; k++)
        if (d->temp_fd[k] >= 0)
            close(d->temp_fd[k]);
    for (int k = 0; k < d->ras.nfd; k++)
        close(d->ras.fd[k]);
    if (d->ras.bad_pages_fd >= 0)
        close(d->ras.bad_pages_fd);
    int dirs[4] = { d->gt_fd, d->hwmon_fd, d->dev_fd, d->card_fd };
    for (int k = 0; k < 4; k++)
        if (dirs[k] >= 0)
            close(dirs[k]);
}

static void drm_fini(struct gs_bctx *bctx)
{
    struct drm_ctx *ctx = (struct drm_ctx *)bctx;

    if (!ctx)
        return;
    for (uint32_t i = 0; i < ctx->ndev; i++)
        drm_dev_close(&ctx->devs[i]);
    gs_drmc_close(ctx->clients);
    if (ctx->sim_fd >= 0)
        close(ctx->sim_fd);
    free(ctx);
}

static int drm_init(struct gs_bctx **out, const struct gs_backend_opts *opts, struct gs_err *err)
{
    struct drm_ctx *ctx = calloc(1, sizeof(*ctx));
    struct utsname u;
    char path[600];

    *out = NULL;
    if (!ctx)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (gs_sys_path(ctx->sys_class, sizeof(ctx->sys_class), "class/drm") < 0) {
        free(ctx);
        return gs_err_set(err, GS_E_USAGE, "GPUSCOPE_SYS_ROOT is too long");
    }
    const char *proc = gs_proc_root(opts ? opts->proc_root : NULL);
    if (gs_path(ctx->proc_root, sizeof(ctx->proc_root), "%s", proc) < 0) {
        free(ctx);
        return gs_err_set(err, GS_E_USAGE, "GPUSCOPE_PROC_ROOT is too long");
    }
    ctx->every_ns = gs_drm_every_ns();
    snprintf(path, sizeof(path), "%s/.gpuscope-sim", ctx->sys_class);
    ctx->sim_fd = open(path, O_RDONLY | O_CLOEXEC);
    if (ctx->sim_fd >= 0 && !drm_sim_read(ctx, &ctx->now_ns, ctx->sim_name, sizeof(ctx->sim_name)))
        snprintf(ctx->sim_name, sizeof(ctx->sim_name), "drmsim");
    if (uname(&u) == 0)
        snprintf(ctx->kernel, sizeof(ctx->kernel), "%s", u.release);
    *out = (struct gs_bctx *)ctx;
    return 0;
}

static void drm_system_info(struct gs_bctx *bctx, struct gs_sysinfo *sys)
{
    struct drm_ctx *ctx = (struct drm_ctx *)bctx;

    snprintf(sys->backend, sizeof(sys->backend), "drm");
    snprintf(sys->driver_version, sizeof(sys->driver_version), "%s", ctx->kernel);
    sys->simulated = ctx->sim_fd >= 0;
    snprintf(sys->sim_scenario, sizeof(sys->sim_scenario), "%s", sys->simulated ? ctx->sim_name : "");
}

static int drm_discover(struct gs_bctx *bctx, struct gs_bdev *const **devs, uint32_t *ndevs, struct gs_err *err)
{
    struct drm_ctx *ctx = (struct drm_ctx *)bctx;

    if (!ctx->discovered) {
        int rc = gs_drm_discover_cards(ctx, err);
        if (rc < 0)
            return rc;
        for (uint32_t i = 0; i < ctx->ndev; i++)
            ctx->devs[i].ops->open(&ctx->devs[i]);
        ctx->discovered = true;
    }
    *devs = ctx->bdevs;
    *ndevs = ctx->ndev;
    return 0;
}

/* ---- static facts ------------------------------------------------------------------------ */

static void drm_static_common(struct drm_dev *d, struct gs_static *st)
{
    const struct gs_fdinfo_keys *k = d->ops->keys;

    st->index = d->base.index;
    snprintf(st->pci_bus_id, sizeof(st->pci_bus_id), "%08X:%02X:%02X.%X", d->pci_domain, d->pci_bus, d->pci_dev,
             d->pci_fn);
    st->pci_domain = d->pci_domain;
    st->pci_bus = d->pci_bus;
    st->pci_device = d->pci_dev;
    st->pci_device_id = (d->device_id << 16) | d->vendor_id;
    st->pci_subsystem_id = (d->subsys_device << 16) | d->subsys_vendor;
    gs_static_mark(st, GS_S_PCI, GS_ST_OK);
    st->minor_number = d->card_minor >= 0 ? (uint32_t)d->card_minor : 0;
    gs_static_mark(st, GS_S_MINOR_NUMBER, d->card_minor >= 0 ? GS_ST_OK : GS_ST_NOT_SUPPORTED);
    snprintf(st->vendor, sizeof(st->vendor), "%s", d->ops->vendor);
    snprintf(st->driver, sizeof(st->driver), "%s", d->ops->driver);
    gs_static_mark(st, GS_S_VENDOR, GS_ST_OK);
    st->engine_count = k->nslots;
    for (uint32_t s = 0; s < k->nslots; s++)
        snprintf(st->engine_name[s], sizeof(st->engine_name[s]), "%s", k->slot_name[s]);
    gs_static_mark(st, GS_S_ENGINES, GS_ST_OK);
}

static int drm_read_static(struct gs_bdev *b, struct gs_gpu *g)
{
    struct drm_dev *d = drm_dev(b);

    memset(&g->st, 0, sizeof(g->st));
    drm_static_common(d, &g->st);
    d->ops->read_static(d, &g->st);
    d->st = g->st;
    return 0;
}

/* ---- one tick ------------------------------------------------------------------------------ */

static void drm_tick(struct gs_bctx *bctx, uint64_t now_ns)
{
    struct drm_ctx *ctx = (struct drm_ctx *)bctx;
    uint64_t t;

    ctx->mono_ns = now_ns;
    ctx->now_ns = ctx->sim_fd >= 0 && drm_sim_read(ctx, &t, NULL, 0) ? t : now_ns;
    if (ctx->clients)
        gs_drmc_tick(ctx->clients, ctx->now_ns);
}

/* Rates (engine busy, RC6, power from energy) need two readings. The first
 * snapshot that wants one takes a first reading of every counter, waits
 * DRM_PRIME_MS and goes on from there, so that a one-shot query shows them
 * too (as nvidia-smi shows NVML's own averages). Once per run. */
#define DRM_PRIME_MS 100

static bool drm_wants_rates(struct gs_fmask want)
{
    static const enum gs_field rates[] = { GS_F_ENGINE_UTIL, GS_F_GPU_UTIL, GS_F_RC6, GS_F_POWER };
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
        if (gs_fmask_has(want, rates[i]))
            return true;
    return false;
}

static void drm_prime(struct drm_ctx *ctx, bool procs)
{
    int err;
    uint64_t v, t;
    double per_s;
    struct timespec wait = { 0, DRM_PRIME_MS * 1000000L }, now;

    if (ctx->primed)
        return;
    ctx->primed = true;
    for (uint32_t i = 0; i < ctx->ndev; i++) {
        struct drm_dev *d = &ctx->devs[i];
        if (d->lost || d->asleep)
            continue;
        if (gs_drm_u64(d, DF_RC6, &v) == 0)
            gs_drm_rate(&d->rc6, v, ctx->now_ns, &per_s);
        if (d->fd[DF_POWER] < 0 && gs_drm_u64(d, DF_ENERGY, &v) == 0)
            gs_drm_rate(&d->energy, v, ctx->now_ns, &per_s);
        if (procs || d->ops != &gs_drm_amdgpu)
            gs_drm_clients(d, &err); /* one scan: the clients' first readings */
    }
    uint64_t before = ctx->now_ns;
    nanosleep(&wait, NULL);
    /* a moving drmsim tree: until it moved (its interval may be longer than the wait) */
    for (uint32_t waited = 0; ctx->sim_fd >= 0 && drm_sim_read(ctx, &t, NULL, 0) && t == before &&
                              waited < ctx->sim_interval_ms + 50; waited += 10) {
        struct timespec more = { 0, 10 * 1000000L };
        nanosleep(&more, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    ctx->mono_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    ctx->now_ns = ctx->sim_fd >= 0 && drm_sim_read(ctx, &t, NULL, 0) ? t : ctx->mono_ns;
    if (ctx->clients)
        gs_drmc_tick(ctx->clients, ctx->now_ns);
}

/* Runtime power management: a suspended GPU is not woken up to be read
 * (reading amdgpu's attributes resumes it; laptops' dGPUs sleep for hours).
 * A device whose sysfs directory went away has left the bus. */
static int drm_power_state(struct drm_dev *d)
{
    char buf[32];
    ssize_t n = -ENOENT; /* set on every path below; gcc -O1 cannot see it */

    if (d->fd[DF_RUNTIME_PM] < 0) {
        int fd = gs_sysval_open(d->dev_fd, "power/runtime_status");
        d->fd[DF_RUNTIME_PM] = fd >= 0 ? fd : -1;
        n = fd;
    }
    if (d->fd[DF_RUNTIME_PM] >= 0)
        n = gs_sysval_pread(d->fd[DF_RUNTIME_PM], buf, sizeof(buf)); /* kept: one pread a tick */
    /* sysfs answers ENODEV on a kept attribute of a removed device; a drmsim tree is
     * plain files, which read on once unlinked: there the directory itself is looked at */
    if (n == -ENODEV || ((n == -ENOENT || d->ctx->sim_fd >= 0) && faccessat(d->dev_fd, "vendor", F_OK, 0) != 0))
        return -ENODEV;
    d->asleep = n > 0 && !strncmp(buf, "suspended", 9);
    return 0;
}

static void drm_mark_rest(struct gs_gpu *g, struct gs_fmask want, enum gs_status in_want)
{
    for (unsigned f = 0; f < GS_F_COUNT; f++) {
        if (!gs_fmask_has(want, f))
            gs_sample_mark(&g->s, (enum gs_field)f, GS_ST_NOT_SAMPLED);
        else if (in_want != GS_ST_OK)
            gs_sample_mark(&g->s, (enum gs_field)f, in_want);
    }
}

static int drm_sample(struct gs_bdev *b, struct gs_fmask want, struct gs_gpu *g)
{
    struct drm_dev *d = drm_dev(b);
    struct drm_ctx *ctx = d->ctx;

    memset(&g->s, 0, sizeof(g->s));
    g->s.timestamp_ns = ctx->mono_ns;
    g->last_error[0] = '\0';
    if (!d->lost && drm_power_state(d) == -ENODEV) {
        d->lost = true;
        d->lost_since = (int64_t)time(NULL);
    }
    if (d->lost) {
        g->state = GS_GPU_LOST;
        g->lost_since = d->lost_since;
        snprintf(g->last_error, sizeof(g->last_error), "%s (%s) left the bus: its sysfs directory is gone",
                 d->card, d->bdf);
        drm_mark_rest(g, want, GS_ST_GPU_LOST);
        return -GS_E_GPU_LOST;
    }
    g->state = GS_GPU_OK;
    g->lost_since = 0;
    if (d->asleep) {
        snprintf(g->last_error, sizeof(g->last_error), "asleep (runtime-suspended): not woken up to be read");
        drm_mark_rest(g, want, GS_ST_NOT_AVAILABLE);
        return 0;
    }
    if (drm_wants_rates(want))
        drm_prime(ctx, false);
    d->ops->sample(d, want, g);
    drm_mark_rest(g, want, GS_ST_OK);
    if (d->lost) {
        g->state = GS_GPU_LOST;
        g->lost_since = d->lost_since;
        return -GS_E_GPU_LOST;
    }
    for (unsigned f = 0; f < GS_F_COUNT; f++)
        if (g->s.status[f] == GS_ST_ERROR)
            return -GS_E_BACKEND;
    return 0;
}

/* ---- processes ------------------------------------------------------------------------------ */

static int slot_named(const struct gs_fdinfo_keys *k, const char *name)
{
    for (uint32_t s = 0; s < k->nslots; s++)
        if (!strcmp(k->slot_name[s], name))
            return (int)s;
    return -1;
}

/* The engine slots a process's type and SM/codec figures come from (-1: none). */
struct drm_slots {
    int gfx, comp, dec, enc;
};

static struct drm_slots drm_slots_of(const struct drm_dev *d)
{
    const struct gs_fdinfo_keys *k = d->ops->keys;
    struct drm_slots sl = { slot_named(k, k == &gs_fdinfo_amdgpu ? "gfx" : "render"), slot_named(k, "compute"),
                            slot_named(k, "dec"), slot_named(k, "enc") };
    return sl;
}

static void drm_proc(const struct drm_dev *d, const struct drm_slots *sl, const struct gs_drmc_proc *cp,
                     struct gs_proc *p)
{
    int gfx = sl->gfx, comp = sl->comp, dec = sl->dec, enc = sl->enc;

    p->pid = cp->pid;
    /* what it ran on since the previous tick; neither (idle, or ROCm's KFD
     * queues, which fdinfo does not see): no type rather than a guess */
    p->type = comp >= 0 && (cp->engines_used & (1u << comp)) ? GS_PROC_COMPUTE : 0;
    if (gfx >= 0 && (cp->engines_used & (1u << gfx)))
        p->type |= GS_PROC_GRAPHICS;
    p->drm_clients = cp->clients;
    gs_proc_set(p, GS_P_DRM_CLIENTS);
    if (cp->has_mem) {
        p->gpu_mem_bytes = d->discrete ? cp->dev_mem_bytes : cp->sys_mem_bytes;
        p->gtt_mem_bytes = cp->sys_mem_bytes;
        gs_proc_set(p, GS_P_GPU_MEM);
        gs_proc_set(p, GS_P_GTT_MEM);
    }
    if (!cp->util_ok)
        return;
    memcpy(p->engine_util_pct, cp->engine_pct, sizeof(p->engine_util_pct));
    gs_proc_set(p, GS_P_ENGINE_UTIL);
    uint16_t sm = gfx >= 0 ? cp->engine_pct[gfx] : 0;
    if (comp >= 0 && cp->engine_pct[comp] > sm)
        sm = cp->engine_pct[comp];
    p->sm_util_pct = sm;
    gs_proc_set(p, GS_P_SM_UTIL);
    if (dec >= 0 && enc >= 0) {
        p->dec_util_pct = cp->engine_pct[dec];
        p->enc_util_pct = cp->engine_pct[enc];
        gs_proc_set(p, GS_P_DEC_UTIL);
        gs_proc_set(p, GS_P_ENC_UTIL);
    }
}

static int drm_processes(struct gs_bdev *b, struct gs_gpu *g)
{
    struct drm_dev *d = drm_dev(b);
    int err;
    const struct gs_drmc_gpu *cg;

    g->nprocs = 0;
    if (d->lost) {
        g->procs_status = GS_ST_GPU_LOST;
        return -GS_E_GPU_LOST;
    }
    drm_prime(d->ctx, true);
    if (!(cg = gs_drm_clients(d, &err))) {
        g->procs_status = err == -EACCES || err == -EPERM ? GS_ST_NO_PERMISSION : GS_ST_ERROR;
        snprintf(g->last_error, sizeof(g->last_error), "DRM clients in %.64s: %s", d->ctx->proc_root, strerror(-err));
        return -GS_E_BACKEND;
    }
    struct drm_slots sl = drm_slots_of(d); /* once per GPU, not per process */
    for (uint32_t i = 0; i < cg->nprocs; i++) {
        struct gs_proc *p = gs_gpu_add_proc(g);
        if (!p)
            return -GS_E_NOMEM;
        drm_proc(d, &sl, &cg->procs[i], p);
    }
    g->procs_status = GS_ST_OK;
    return 0;
}

/* ---- explanations -------------------------------------------------------------------------- */

static void drm_explain_gpu(struct gs_bdev *b, const struct gs_gpu *g, struct gs_err *err)
{
    struct drm_dev *d = drm_dev(b);

    if (d->lost) {
        gs_err_set(err, GS_E_GPU_LOST, "GPU %u (%s, %s %s) is gone: %s", g->st.index, d->bdf, d->ops->driver,
                   d->card, g->last_error);
        gs_err_hint(err, "look for '%s' and 'amdgpu'/'i915'/'xe' messages in 'sudo dmesg' (a GPU reset, a PCIe "
                    "error, a hot unplug); the GPU needs a reset or a reboot", d->bdf);
        return;
    }
    gs_err_set(err, GS_E_BACKEND, "GPU %u (%s, %s): %s", g->st.index, d->bdf, d->ops->driver,
               g->last_error[0] ? g->last_error : "some readings failed");
    gs_err_hint(err, "check 'sudo dmesg' for %s messages about %s", d->ops->driver, d->bdf);
}

static void drm_describe(struct gs_bctx *bctx, void (*line)(void *arg, const char *text), void *arg)
{
    struct drm_ctx *ctx = (struct drm_ctx *)bctx;
    char buf[700];

    snprintf(buf, sizeof(buf), "drm sysfs -> %s%s", ctx->sys_class, ctx->sim_fd >= 0 ? " (gpuscope drmsim tree)" : "");
    line(arg, buf);
    for (uint32_t i = 0; i < ctx->ndev; i++) {
        const struct drm_dev *d = &ctx->devs[i];
        snprintf(buf, sizeof(buf), "drm gpu %u -> %s %s %04x:%04x card%d renderD%d hwmon=%s", i, d->bdf,
                 d->ops->driver, d->vendor_id, d->device_id, d->card_minor, d->render_minor,
                 d->hwmon_fd >= 0 ? "yes" : "no");
        line(arg, buf);
    }
    if (ctx->clients) {
        struct gs_drmc_stats st;
        gs_drmc_stats(ctx->clients, &st);
        snprintf(buf, sizeof(buf),
                 "drm clients -> %s: %llu scans, %llu fd directories read, %llu fdinfo reads, %llu /proc listings%s",
                 ctx->proc_root, (unsigned long long)st.scans, (unsigned long long)st.fd_dirs_read,
                 (unsigned long long)st.fdinfo_read, (unsigned long long)st.listings,
                 gs_drmc_complete(ctx->clients) ? "" : " (some processes are another user's: not all clients seen)");
        line(arg, buf);
    }
}

const struct gs_backend gs_backend_drm = {
    .abi = GS_BACKEND_ABI,
    .name = "drm",
    .caps = GS_CAP_PROCESSES | GS_CAP_PROC_UTIL,
    .slow_fields = { { 0 } },
    .init = drm_init,
    .fini = drm_fini,
    .system_info = drm_system_info,
    .discover = drm_discover,
    .read_static = drm_read_static,
    .sample = drm_sample,
    .processes = drm_processes,
    .explain_gpu = drm_explain_gpu,
    .describe = drm_describe,
    .events = NULL,
    .tick = drm_tick,
    .vendor = NULL,
    .driver = NULL,
};
