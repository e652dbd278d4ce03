/* SPDX-License-Identifier: MIT */
/*
 * nvml_backend.c - the NVML backend's entry points: load and initialise the
 * library, report system facts, discover GPUs, map NVML return codes to field
 * statuses, and the gs_backend table itself (at the end, as curl does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/nvidia/nvml_explain.h"
#include "backend/nvidia/nvml_priv.h"
#include "lib/roots.h"

static const char *nvml_errstr(const struct nvml_device *d, nvmlReturn_t r)
{
    return gs_nvml_errstr(d->ctx->lib.f.error_string, r);
}

void gs_nvml_mark_lost(struct nvml_device *d)
{
    long long zero = 0;

    atomic_store(&d->lost, true);
    atomic_compare_exchange_strong(&d->lost_since, &zero, (long long)time(NULL));
}

void gs_nvml_gpu_state(struct nvml_device *d, struct gs_gpu *g)
{
    if (atomic_load(&d->lost)) {
        g->state = GS_GPU_LOST;
        g->lost_since = atomic_load(&d->lost_since);
        snprintf(g->last_error, sizeof(g->last_error),
                 "fell off the bus (see 'dmesg' for Xid 79)");
    } else {
        g->state = d->open_rc == NVML_SUCCESS ? GS_GPU_OK : GS_GPU_ERROR;
        g->lost_since = 0;
    }
}

enum gs_status gs_nvml_status(struct nvml_device *d, struct gs_gpu *g, nvmlReturn_t r,
                              struct gs_fmask fields, const char *what)
{
    switch (r) {
    case NVML_SUCCESS:
        return GS_ST_OK;
    case NVML_ERROR_DEPRECATED:
        for (unsigned i = 0; i < GS_F_MAX / 64; i++)
            if (fields.w[i]) {
                atomic_fetch_or(&d->unsup[i], fields.w[i]);
                atomic_fetch_or(&d->depr[i], fields.w[i]);
            }
        return GS_ST_DEPRECATED;
    case NVML_ERROR_NOT_SUPPORTED:
    case NVML_ERROR_NO_DATA:
    case NVML_ERROR_FUNCTION_NOT_FOUND:
        for (unsigned i = 0; i < GS_F_MAX / 64; i++)
            if (fields.w[i])
                atomic_fetch_or(&d->unsup[i], fields.w[i]);
        return GS_ST_NOT_SUPPORTED;
    case NVML_ERROR_NO_PERMISSION:
        return GS_ST_NO_PERMISSION;
    case NVML_ERROR_NOT_FOUND:
        return GS_ST_NOT_AVAILABLE;
    case NVML_ERROR_GPU_IS_LOST:
        gs_nvml_mark_lost(d);
        return GS_ST_GPU_LOST;
    default:
        snprintf(g->last_error, sizeof(g->last_error), "%s: %s", what, nvml_errstr(d, r));
        return GS_ST_ERROR;
    }
}

struct gs_fmask gs_nvml_unsup(struct nvml_device *d)
{
    struct gs_fmask m;

    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        m.w[i] = atomic_load(&d->unsup[i]);
    return m;
}

struct gs_fmask gs_nvml_deprecated(struct nvml_device *d)
{
    struct gs_fmask m;

    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        m.w[i] = atomic_load(&d->depr[i]);
    return m;
}

static void nvml_fini(struct gs_bctx *bctx)
{
    struct nvml_ctx *ctx = (struct nvml_ctx *)bctx;

    if (!ctx)
        return;
    gs_nvml_events_close(ctx);
    for (uint32_t i = 0; i < ctx->ndev; i++) {
        gs_nvml_procs_free(&ctx->devs[i]);
        gs_nvml_gpm_free(&ctx->devs[i]); /* before nvmlShutdown: the sample buffers are NVML's */
        gs_nvml_mig_free(&ctx->devs[i]);
    }
    free(ctx->gpm_get);
    free(ctx->devs);
    free(ctx->bdevs);
    if (ctx->inited)
        ctx->lib.f.shutdown(); /* errors ignored: nothing to do about them */
    gs_nvml_lib_close(&ctx->lib);
    free(ctx);
}

static int nvml_init(struct gs_bctx **out, const struct gs_backend_opts *opts, struct gs_err *err)
{
    struct nvml_ctx *ctx = calloc(1, sizeof(*ctx));
    int rc;

    *out = NULL;
    if (!ctx)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    if (opts && opts->proc_root && gs_path(ctx->proc_root, sizeof(ctx->proc_root), "%s", opts->proc_root) < 0) {
        free(ctx);
        return gs_err_set(err, GS_E_USAGE, "GPUSCOPE_PROC_ROOT is too long");
    }
    rc = gs_nvml_lib_open(&ctx->lib, opts ? opts->lib_path : NULL, err);
    if (rc < 0) {
        free(ctx);
        return rc;
    }
    nvmlReturn_t r = ctx->lib.f.init();
    if (r != NVML_SUCCESS) {
        rc = gs_nvml_explain_init(r, gs_nvml_errstr(ctx->lib.f.error_string, r), err);
        nvml_fini((struct gs_bctx *)ctx);
        return rc;
    }
    ctx->inited = true;
    ctx->sched_period_ns = gs_nvml_sched_period_ns();
    if (opts)
        ctx->sched_every_tick = opts->every_tick;
    *out = (struct gs_bctx *)ctx;
    return 0;
}

/* The kernel module's version, as nvidia-smi's kmd_version: the version
 * number on the "NVRM version: ... Kernel Module ... 610.57.04 ..." line of
 * $GPUSCOPE_PROC_ROOT (or /proc)/driver/nvidia/version. */
static void nvml_kmd_version(char *out, size_t len)
{
    char path[512], line[512];
    FILE *fp;

    out[0] = '\0';
    if (gs_path(path, sizeof(path), "%s/driver/nvidia/version", gs_proc_root_env(NULL)) < 0)
        return;
    fp = fopen(path, "re");
    if (!fp)
        return;
    while (fgets(line, sizeof(line), fp)) {
        char *m = strstr(line, "Kernel Module");
        if (strncmp(line, "NVRM version:", 13) || !m)
            continue;
        for (char *p = m; *p; p++) {
            size_t n = strspn(p, "0123456789.");
            if (n >= 3 && p[-1] == ' ' && strchr(p, '.') && memchr(p, '.', n)) {
                snprintf(out, len, "%.*s", (int)n, p);
                break;
            }
        }
        break;
    }
    fclose(fp);
}

static void nvml_system_info(struct gs_bctx *bctx, struct gs_sysinfo *sys)
{
    struct nvml_ctx *ctx = (struct nvml_ctx *)bctx;
    const struct nvml_fns *f = &ctx->lib.f;
    int cuda = 0;

    snprintf(sys->backend, sizeof(sys->backend), "nvml");
    snprintf(sys->lib_path, sizeof(sys->lib_path), "%s", ctx->lib.path);
    sys->driver_version[0] = sys->nvml_version[0] = '\0';
    if (f->driver_version &&
        f->driver_version(sys->driver_version, sizeof(sys->driver_version)) != NVML_SUCCESS)
        sys->driver_version[0] = '\0';
    if (f->nvml_version &&
        f->nvml_version(sys->nvml_version, sizeof(sys->nvml_version)) != NVML_SUCCESS)
        sys->nvml_version[0] = '\0';
    sys->cuda_driver_version = 0;
    if (f->cuda_version && f->cuda_version(&cuda) == NVML_SUCCESS)
        sys->cuda_driver_version = cuda;
    nvml_kmd_version(sys->kmd_version, sizeof(sys->kmd_version));
    sys->simulated = f->sim_version != NULL;
    sys->sim_scenario[0] = '\0';
    if (f->sim_scenario) {
        const char *name = f->sim_scenario();
        snprintf(sys->sim_scenario, sizeof(sys->sim_scenario), "%s", name ? name : "");
    }
}

/* Open GPU i. A GPU that refuses (NO_PERMISSION, GPU_IS_LOST, ...) stays in
 * the list as an error or lost entry so that indexes keep NVML's meaning. */
static void nvml_open_device(struct nvml_ctx *ctx, struct nvml_device *d, uint32_t i)
{
    d->base.index = i;
    d->ctx = ctx;
    atomic_init(&d->lost, false);
    atomic_init(&d->lost_since, 0);
    struct gs_fmask missing = gs_nvml_missing_fields(&ctx->lib.f);
    for (unsigned k = 0; k < GS_F_MAX / 64; k++)
        atomic_init(&d->unsup[k], missing.w[k]);
    d->open_rc = ctx->lib.f.handle_by_index(i, &d->handle);
    if (d->open_rc != NVML_SUCCESS)
        d->handle = NULL;
    if (d->open_rc == NVML_ERROR_GPU_IS_LOST)
        gs_nvml_mark_lost(d);
}

static int nvml_discover(struct gs_bctx *bctx, struct gs_bdev *const **devs, uint32_t *ndevs,
                         struct gs_err *err)
{
    struct nvml_ctx *ctx = (struct nvml_ctx *)bctx;
    unsigned count = 0;

    if (!ctx->devs) {
        nvmlReturn_t r = ctx->lib.f.count(&count);
        if (r != NVML_SUCCESS)
            return gs_nvml_explain_init(r, gs_nvml_errstr(ctx->lib.f.error_string, r), err);
        if (count == 0)
            return gs_nvml_explain_no_devices(err);
        ctx->devs = calloc(count, sizeof(*ctx->devs));
        ctx->bdevs = calloc(count, sizeof(*ctx->bdevs));
        if (!ctx->devs || !ctx->bdevs)
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        for (uint32_t i = 0; i < count; i++, ctx->ndev++) {
            nvml_open_device(ctx, &ctx->devs[i], i);
            ctx->bdevs[i] = &ctx->devs[i].base;
            if (gs_nvml_procs_alloc(&ctx->devs[i]) < 0)
                return gs_err_set(err, GS_E_NOMEM, "out of memory");
        }
        gs_nvml_place_unopened(ctx); /* a GPU lost before start: its bus id from the driver */
    }
    *devs = ctx->bdevs;
    *ndevs = ctx->ndev;
    return 0;
}

static void nvml_explain_gpu(struct gs_bdev *b, const struct gs_gpu *g, struct gs_err *err)
{
    struct nvml_device *d = nvml_dev(b);

    if (atomic_load(&d->lost)) {
        gs_nvml_explain_lost(b->index, g->st.pci_bus_id, err);
    } else if (d->open_rc != NVML_SUCCESS) {
        gs_nvml_explain_gpu(b->index, d->open_rc, nvml_errstr(d, d->open_rc), err);
    } else {
        gs_err_set(err, GS_E_BACKEND, "GPU %u: %s", b->index,
                   g->last_error[0] ? g->last_error : "some readings failed");
        gs_err_hint(err, "run 'nvidia-smi -q -i %u' and check 'dmesg' for NVRM/Xid messages",
                    b->index);
    }
}

static void nvml_describe(struct gs_bctx *bctx, void (*line)(void *arg, const char *text), void *arg)
{
    gs_nvml_lib_describe(&((struct nvml_ctx *)bctx)->lib, line, arg);
}

const struct gs_backend gs_backend_nvml = {
    .abi = GS_BACKEND_ABI,
    .name = "nvml",
    .caps = GS_CAP_PROCESSES | GS_CAP_PROC_UTIL | GS_CAP_ECC | GS_CAP_SLOW_FIELDS,
    .slow_fields = { { (UINT64_C(1) << GS_F_PCIE_TX) | (UINT64_C(1) << GS_F_PCIE_RX) } },
    .init = nvml_init,
    .fini = nvml_fini,
    .system_info = nvml_system_info,
    .discover = nvml_discover,
    .read_static = gs_nvml_read_static,
    .sample = gs_nvml_sample,
    .processes = gs_nvml_processes,
    .explain_gpu = nvml_explain_gpu,
    .describe = nvml_describe,
    .events = gs_nvml_events,
    .vendor = "NVIDIA",
    .driver = "nvidia",
    .revive = gs_nvml_revive,
    .slow_free = gs_nvml_pcie_choose,
    .sample_slow = gs_nvml_sample_slow,
};
