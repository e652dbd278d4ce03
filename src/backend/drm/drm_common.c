/* SPDX-License-Identifier: MIT */
/*
 * drm_common.c - what every DRM driver's reader uses: kept files, turning
 * read errors into field statuses, counters into rates, the PCIe link, and
 * engine busy from the clients scanner.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/drm/drm_priv.h"
#include "backend/drm/sysval.h"

void gs_drm_keep(struct drm_dev *d, enum drm_file k, int dirfd, const char *rel)
{
    if (d->fd[k] >= 0 || dirfd < 0)
        return;
    int fd = gs_sysval_open(dirfd, rel);
    d->fd[k] = fd >= 0 ? fd : -1;
}

int gs_drm_u64(struct drm_dev *d, enum drm_file k, uint64_t *v)
{
    return d->fd[k] < 0 ? -ENOENT : gs_sysval_fd_u64(d->fd[k], v);
}

int gs_drm_i64(struct drm_dev *d, enum drm_file k, int64_t *v)
{
    return d->fd[k] < 0 ? -ENOENT : gs_sysval_fd_i64(d->fd[k], v);
}

/* ---- the read schedule (see drm_priv.h) ---- */

uint64_t gs_drm_every_ns(void)
{
    const uint64_t dflt = UINT64_C(5000) * 1000000u; /* the NVML backend's GS_NVML_SCHED_PERIOD_MS */
    const char *v = getenv("GPUSCOPE_READ_PERIOD_MS");
    char *end;
    unsigned long ms;

    if (!v || !*v)
        return dflt;
    ms = strtoul(v, &end, 10);
    if (*end || ms > 3600000ul)
        return dflt;
    return ms * UINT64_C(1000000);
}

bool gs_drm_kept_reuse(struct drm_dev *d, enum drm_kept_id k, uint64_t *v, uint32_t *age_ms)
{
    const struct drm_kept *kp = &d->kept[k];
    uint64_t now = d->ctx->now_ns;

    if (!kp->have || !d->ctx->every_ns || now < kp->read_ns || now - kp->read_ns >= d->ctx->every_ns)
        return false; /* never read, every tick, a clock that went back, or due */
    *v = kp->value;
    *age_ms = (uint32_t)((now - kp->read_ns) / 1000000u);
    return true;
}

void gs_drm_kept_store(struct drm_dev *d, enum drm_kept_id k, uint64_t v, int rc)
{
    struct drm_kept *kp = &d->kept[k];

    kp->have = rc == 0;
    kp->value = v;
    kp->read_ns = d->ctx->now_ns;
}

static void drm_lost(struct drm_dev *d)
{
    if (d->lost)
        return;
    d->lost = true;
    d->lost_since = (int64_t)time(NULL);
}

void gs_drm_mark(struct drm_dev *d, struct gs_gpu *g, enum gs_field f, int rc, const char *what)
{
    enum gs_status st;

    switch (rc) {
    case 0:
        st = GS_ST_OK;
        break;
    case -ENOENT:
    case -EOPNOTSUPP:
    case -ENODATA:
    case -ENXIO:
        st = GS_ST_NOT_SUPPORTED;
        break;
    case -EACCES:
    case -EPERM:
        st = GS_ST_NO_PERMISSION;
        break;
    case -EBUSY:
    case -EAGAIN:
        st = GS_ST_NOT_AVAILABLE;
        break;
    case -ENODEV:
        drm_lost(d);
        st = GS_ST_GPU_LOST;
        break;
    default:
        st = GS_ST_ERROR;
        snprintf(g->last_error, sizeof(g->last_error), "%s: %s", what,
                 rc == -EINVAL ? "unexpected contents" : strerror(-rc));
        break;
    }
    gs_sample_mark(&g->s, f, st);
}

bool gs_drm_rate(struct drm_rate *r, uint64_t value, uint64_t now_ns, double *per_s)
{
    if (r->have && now_ns == r->at_ns) {
        *per_s = r->last; /* the same instant again (a simulator clock that stood still) */
        return r->have_rate;
    }
    bool ok = r->have && value >= r->value && now_ns > r->at_ns;
    *per_s = ok ? (double)(value - r->value) * 1e9 / (double)(now_ns - r->at_ns) : 0;
    r->have = true;
    r->have_rate = ok;
    r->last = *per_s;
    r->value = value;
    r->at_ns = now_ns;
    return ok;
}

void gs_drm_pcie_static(struct drm_dev *d, struct gs_static *st)
{
    char buf[64];
    uint64_t w;
    ssize_t n = gs_sysval_read_at(d->dev_fd, "max_link_speed", buf, sizeof(buf));

    if (n > 0 && gs_sysval_link_gen(buf, (size_t)n, &st->pcie_max_gen) == 0) {
        st->pcie_gpu_max_gen = st->pcie_max_gen;
        gs_static_mark(st, GS_S_PCIE_MAX_GEN, GS_ST_OK);
        gs_static_mark(st, GS_S_PCIE_GPU_MAX_GEN, GS_ST_OK);
    }
    if (gs_sysval_at_u64(d->dev_fd, "max_link_width", &w) == 0 && w > 0 && w <= 32) {
        st->pcie_max_width = (uint32_t)w;
        gs_static_mark(st, GS_S_PCIE_MAX_WIDTH, GS_ST_OK);
    }
}

void gs_drm_pcie_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    char buf[64];
    uint64_t v = 0;
    int rc;

    /* the generation every tick: amdgpu and ASPM train the link up under load and down at idle
     * (the doctor's pcie.gen_degraded looks at fresh ones); the width on the read schedule */
    if (gs_fmask_has(want, GS_F_PCIE_GEN)) {
        uint32_t gen = 0;
        ssize_t n = d->fd[DF_LINK_SPEED] < 0 ? -ENOENT : gs_sysval_pread(d->fd[DF_LINK_SPEED], buf, sizeof(buf));
        rc = n < 0 ? (int)n : gs_sysval_link_gen(buf, (size_t)n, &gen) == 0 ? 0 : -ENODATA;
        if (rc == 0)
            g->s.pcie_gen = gen;
        gs_drm_mark(d, g, GS_F_PCIE_GEN, rc, "current_link_speed"); /* "Unknown": not supported */
    }
    if (gs_fmask_has(want, GS_F_PCIE_WIDTH)) {
        if (gs_drm_kept_reuse(d, DK_LINK_WIDTH, &v, &g->s.age_ms[GS_F_PCIE_WIDTH])) {
            rc = 0;
        } else {
            rc = gs_drm_u64(d, DF_LINK_WIDTH, &v);
            if (rc == 0 && (v == 0 || v > 32))
                rc = -ENODATA; /* an integrated GPU answers 0 or 255 */
            gs_drm_kept_store(d, DK_LINK_WIDTH, v, rc);
        }
        if (rc == 0)
            g->s.pcie_width = (uint32_t)v;
        gs_drm_mark(d, g, GS_F_PCIE_WIDTH, rc, "current_link_width");
    }
}

/* The scanner, opened at first use with every card of the context. */
static struct gs_drmc *drm_scanner(struct drm_ctx *ctx)
{
    if (ctx->clients || ctx->clients_err)
        return ctx->clients;
    ctx->clients_err = gs_drmc_open(&ctx->clients, ctx->proc_root);
    if (ctx->clients_err == 0 && !ctx->clients)
        ctx->clients_err = -ENOMEM;
    for (uint32_t i = 0; ctx->clients && i < ctx->ndev; i++) {
        struct drm_dev *d = &ctx->devs[i];
        struct gs_drmc_gpu_id id = { .card_minor = d->card_minor, .render_minor = d->render_minor,
                                     .keys = d->ops->keys, .discrete = d->discrete };
        snprintf(id.bdf, sizeof(id.bdf), "%s", d->bdf);
        d->drmc_slot = gs_drmc_add_gpu(ctx->clients, &id);
    }
    if (ctx->clients)
        gs_drmc_tick(ctx->clients, ctx->now_ns);
    return ctx->clients;
}

const struct gs_drmc_gpu *gs_drm_clients(struct drm_dev *d, int *err)
{
    struct gs_drmc *c = drm_scanner(d->ctx);

    *err = 0;
    if (!c) {
        *err = d->ctx->clients_err;
        return NULL;
    }
    if (!gs_drmc_scanned(c)) {
        /* on drmsim's tree: the scan and the instant it describes, together */
        gs_drm_sim_hold(d->ctx);
        gs_drmc_tick(c, d->ctx->now_ns);
        *err = gs_drmc_scan(c);
        gs_drm_sim_release(d->ctx);
        if (*err < 0)
            return NULL;
    }
    return gs_drmc_gpu(c, d->drmc_slot);
}

void gs_drm_engines_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    int err;
    const struct gs_drmc_gpu *cg;

    if (!gs_fmask_has(want, GS_F_ENGINE_UTIL))
        return;
    if (!(cg = gs_drm_clients(d, &err))) {
        gs_drm_mark(d, g, GS_F_ENGINE_UTIL, err ? err : -EIO, "DRM clients in /proc");
        return;
    }
    if (!cg->util_ok) {
        gs_sample_mark(&g->s, GS_F_ENGINE_UTIL, GS_ST_NOT_AVAILABLE); /* the first tick: no interval yet */
        return;
    }
    for (uint32_t s = 0; s < GS_MAX_ENGINES; s++)
        g->s.engine_util_pct[s] = s < d->st.engine_count ? cg->engine_pct[s] : 0;
    gs_sample_mark(&g->s, GS_F_ENGINE_UTIL, GS_ST_OK);
}
