/* SPDX-License-Identifier: MIT */
/*
 * amdgpu.c - AMD GPUs through amdgpu's sysfs attributes, after the kernel's
 * Documentation/gpu/amdgpu/driver-misc.rst and thermal.rst: product_name,
 * serial_number, unique_id, vbios_version; gpu_busy_percent and
 * mem_busy_percent; mem_info_{vram,vis_vram,gtt}_{total,used} (bytes);
 * pp_dpm_sclk/mclk (levels, '*' the current); gpu_metrics (the binary
 * table, amdgpu_metrics.c); ras/<block>_err_count and ras/gpu_vram_bad_pages
 * (amdgpu_ras.c). hwmon and the PCIe link are shared with Intel (hwmon.c,
 * drm_common.c). The product name, when the board has no product_name, is
 * libdrm's table (<root>/usr/share/libdrm/amdgpu.ids), as nvtop and Mesa
 * name the cards. Each tick reads gpu_metrics first and takes from it what
 * it has a value for (activity, temperatures, clocks, fan, voltage: one
 * read); the files are read for the rest (docs/DRM.md, "gpu_metrics first").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/drm/amdgpu_metrics.h"
#include "backend/drm/amdgpu_metrics_abi.h"
#include "backend/drm/drm_priv.h"
#include "backend/drm/sysval.h"
#include "lib/roots.h"

#define AMD_RAS_PERIOD_NS UINT64_C(5000000000)

/* ---- opening ---------------------------------------------------------------------- */

static void amdgpu_ras_open(struct drm_dev *d)
{
    int dfd = openat(d->dev_fd, "ras", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;

    d->ras.bad_pages_fd = -1;
    if (!dir) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    while ((e = readdir(dir)) != NULL && d->ras.nfd < DRM_MAX_RAS) {
        size_t n = strlen(e->d_name);
        if (n <= 10 || strcmp(e->d_name + n - 10, "_err_count") != 0)
            continue;
        int fd = gs_sysval_open(dirfd(dir), e->d_name);
        if (fd >= 0)
            d->ras.fd[d->ras.nfd++] = fd;
    }
    int fd = gs_sysval_open(dirfd(dir), "gpu_vram_bad_pages");
    d->ras.bad_pages_fd = fd >= 0 ? fd : -1;
    closedir(dir);
}

static void amdgpu_open(struct drm_dev *d)
{
    static const struct {
        enum drm_file k;
        const char *rel;
    } files[] = {
        { DF_BUSY, "gpu_busy_percent" },        { DF_MEM_BUSY, "mem_busy_percent" },
        { DF_VRAM_USED, "mem_info_vram_used" }, { DF_VIS_USED, "mem_info_vis_vram_used" },
        { DF_GTT_USED, "mem_info_gtt_used" },   { DF_SCLK, "pp_dpm_sclk" },
        { DF_MCLK, "pp_dpm_mclk" },             { DF_METRICS, "gpu_metrics" },
        { DF_LINK_SPEED, "current_link_speed" }, { DF_LINK_WIDTH, "current_link_width" },
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        gs_drm_keep(d, files[i].k, d->dev_fd, files[i].rel);
    gs_drm_hwmon_open(d);
    amdgpu_ras_open(d);
}

/* ---- identity --------------------------------------------------------------------- */

/* libdrm's amdgpu.ids: "DEVICE,\tREVISION,\tName" lines (hex ids). */
static bool amdgpu_ids_name(uint32_t device, uint32_t revision, char *out, size_t cap)
{
    char path[512], line[256];
    bool found = false;

    if (gs_path(path, sizeof(path), "%s/usr/share/libdrm/amdgpu.ids", gs_sys_root()) < 0)
        return false;
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned dev, rev;
        int at = 0;
        if (line[0] == '#' || sscanf(line, "%x , %x ,%n", &dev, &rev, &at) != 2 || !at)
            continue;
        if (dev != device || rev != revision)
            continue;
        const char *name = line + at;
        while (*name == ' ' || *name == '\t')
            name++;
        found = gs_sysval_line(name, strlen(name), out, cap) == 0;
    }
    fclose(f);
    return found;
}

static void amdgpu_identity(struct drm_dev *d, struct gs_static *st)
{
    char buf[64];

    if (gs_sysval_at_line(d->dev_fd, "product_name", st->name, sizeof(st->name)) != 0 &&
        !amdgpu_ids_name(d->device_id, d->revision, st->name, sizeof(st->name)))
        snprintf(st->name, sizeof(st->name), "AMD Radeon Graphics [1002:%04x]", d->device_id);
    gs_static_mark(st, GS_S_NAME, GS_ST_OK);
    if (gs_sysval_at_line(d->dev_fd, "unique_id", buf, sizeof(buf)) == 0) {
        snprintf(st->uuid, sizeof(st->uuid), "%s%s", strncmp(buf, "0x", 2) ? "0x" : "", buf);
    } else {
        snprintf(st->uuid, sizeof(st->uuid), "drm-%s", d->bdf);
    }
    gs_static_mark(st, GS_S_UUID, GS_ST_OK);
    if (gs_sysval_at_line(d->dev_fd, "serial_number", st->serial, sizeof(st->serial)) == 0)
        gs_static_mark(st, GS_S_SERIAL, GS_ST_OK);
    if (gs_sysval_at_line(d->dev_fd, "vbios_version", st->vbios, sizeof(st->vbios)) == 0)
        gs_static_mark(st, GS_S_VBIOS, GS_ST_OK);
}

static void amdgpu_static_mem(struct drm_dev *d)
{
    d->has_vram_total = gs_sysval_at_u64(d->dev_fd, "mem_info_vram_total", &d->vram_total) == 0;
    d->has_vis_total = gs_sysval_at_u64(d->dev_fd, "mem_info_vis_vram_total", &d->vis_total) == 0;
    d->has_gtt_total = gs_sysval_at_u64(d->dev_fd, "mem_info_gtt_total", &d->gtt_total) == 0;
}

static void amdgpu_static_clocks(struct drm_dev *d, struct gs_static *st)
{
    char buf[1024];
    struct gs_dpm dpm;
    ssize_t n = gs_sysval_read_at(d->dev_fd, "pp_dpm_sclk", buf, sizeof(buf));

    if (n > 0 && gs_sysval_dpm(buf, (size_t)n, &dpm) == 0) {
        st->clock_max_graphics_mhz = st->clock_max_sm_mhz = dpm.max_mhz;
        st->clock_min_graphics_mhz = dpm.min_mhz;
        gs_static_mark(st, GS_S_CLOCK_MAX_GRAPHICS, GS_ST_OK);
        gs_static_mark(st, GS_S_CLOCK_MAX_SM, GS_ST_OK);
        gs_static_mark(st, GS_S_CLOCK_MIN_GRAPHICS, GS_ST_OK);
    }
    n = gs_sysval_read_at(d->dev_fd, "pp_dpm_mclk", buf, sizeof(buf));
    if (n > 0 && gs_sysval_dpm(buf, (size_t)n, &dpm) == 0) {
        st->clock_max_mem_mhz = dpm.max_mhz;
        gs_static_mark(st, GS_S_CLOCK_MAX_MEM, GS_ST_OK);
    }
}

/* An APU's gpu_metrics is format 2 or 3 (kgd_pp_interface.h). */
static void amdgpu_static_kind(struct drm_dev *d, struct gs_static *st)
{
    char buf[1024];
    struct gs_amd_metrics m;
    ssize_t n = d->fd[DF_METRICS] >= 0 ? gs_sysval_pread(d->fd[DF_METRICS], buf, sizeof(buf)) : -1;

    if (n > 0 && gs_amd_metrics_decode(buf, (size_t)n, &m) == 0) {
        st->integrated = m.format >= 2;
        gs_static_mark(st, GS_S_INTEGRATED, GS_ST_OK);
        if (m.valid & GS_AMDM_THROTTLE) {
            st->throttle_supported = GS_THROTTLE_SW_POWER_CAP | GS_THROTTLE_SW_THERMAL | GS_THROTTLE_HW_SLOWDOWN;
            gs_static_mark(st, GS_S_THROTTLE_SUPPORTED, GS_ST_OK);
        }
    }
    d->discrete = !(gs_static_has(st, GS_S_INTEGRATED) && st->integrated);
}

static void amdgpu_read_static(struct drm_dev *d, struct gs_static *st)
{
    amdgpu_identity(d, st);
    amdgpu_static_mem(d);
    amdgpu_static_clocks(d, st);
    amdgpu_static_kind(d, st);
    gs_drm_hwmon_static(d, st);
    gs_drm_pcie_static(d, st);
}

/* ---- one tick --------------------------------------------------------------------- */

static void amdgpu_pct(struct drm_dev *d, struct gs_gpu *g, struct gs_fmask want, enum gs_field f,
                       enum drm_file k, uint32_t *dst, const char *what)
{
    uint64_t v;
    int rc;

    if (!gs_fmask_has(want, f))
        return;
    if ((rc = gs_drm_u64(d, k, &v)) == 0 && v > 100)
        rc = -EINVAL;
    if (rc == 0)
        *dst = (uint32_t)v;
    gs_drm_mark(d, g, f, rc, what);
}

static void amdgpu_memory(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    struct gs_sample *s = &g->s;
    uint64_t v;
    int rc;

    if (gs_fmask_has(want, GS_F_MEM_TOTAL))
        gs_drm_mark(d, g, GS_F_MEM_TOTAL, d->has_vram_total ? 0 : -ENOENT, "mem_info_vram_total");
    s->mem_total_bytes = d->vram_total;
    if (gs_fmask_has(want, GS_F_MEM_USED) || gs_fmask_has(want, GS_F_MEM_FREE)) {
        if ((rc = gs_drm_u64(d, DF_VRAM_USED, &v)) == 0) {
            s->mem_used_bytes = v;
            s->mem_free_bytes = d->vram_total > v ? d->vram_total - v : 0;
        }
        gs_drm_mark(d, g, GS_F_MEM_USED, rc, "mem_info_vram_used");
        gs_drm_mark(d, g, GS_F_MEM_FREE, rc == 0 && !d->has_vram_total ? -ENOENT : rc, "mem_info_vram_used");
    }
    if (gs_fmask_has(want, GS_F_MEM_VIS)) {
        rc = d->has_vis_total ? gs_drm_u64(d, DF_VIS_USED, &s->vis_vram_used_bytes) : -ENOENT;
        s->vis_vram_total_bytes = d->vis_total;
        gs_drm_mark(d, g, GS_F_MEM_VIS, rc, "mem_info_vis_vram_used");
    }
    if (gs_fmask_has(want, GS_F_MEM_GTT)) {
        rc = d->has_gtt_total ? gs_drm_u64(d, DF_GTT_USED, &s->gtt_used_bytes) : -ENOENT;
        s->gtt_total_bytes = d->gtt_total;
        gs_drm_mark(d, g, GS_F_MEM_GTT, rc, "mem_info_gtt_used");
    }
}

static void amdgpu_clock(struct drm_dev *d, struct gs_gpu *g, struct gs_fmask want, enum drm_file k,
                         enum gs_field f1, uint32_t *dst1, enum gs_field f2, uint32_t *dst2, const char *what)
{
    char buf[1024];
    struct gs_dpm dpm;
    ssize_t n;
    int rc;

    if (!gs_fmask_has(want, f1) && !(f2 < GS_F_COUNT && gs_fmask_has(want, f2)))
        return;
    n = d->fd[k] < 0 ? -ENOENT : gs_sysval_pread(d->fd[k], buf, sizeof(buf));
    rc = n < 0 ? (int)n : gs_sysval_dpm(buf, (size_t)n, &dpm) < 0 ? -EINVAL : dpm.has_cur ? 0 : -EBUSY;
    if (rc == 0)
        *dst1 = dpm.cur_mhz;
    gs_drm_mark(d, g, f1, rc, what);
    if (f2 < GS_F_COUNT) {
        *dst2 = *dst1;
        gs_drm_mark(d, g, f2, rc, what);
    }
}

/* RAS counters every AMD_RAS_PERIOD_NS; in between, handed on with their age. */
static void amdgpu_ras(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    struct drm_ras *r = &d->ras;
    uint64_t now = d->ctx->now_ns;
    char buf[4096];

    if (!gs_fmask_has(want, GS_F_RAS) && !gs_fmask_has(want, GS_F_RAS_BAD_PAGES))
        return;
    if (!r->read_ns || now >= r->next_ns || now < r->read_ns) {
        r->ue = r->ce = 0;
        r->rc = r->nfd ? 0 : -ENOENT;
        for (int i = 0; i < r->nfd && r->rc == 0; i++) {
            uint64_t ue = 0, ce = 0;
            ssize_t n = gs_sysval_pread(r->fd[i], buf, sizeof(buf));
            r->rc = n < 0 ? (int)n : gs_sysval_ras_count(buf, (size_t)n, &ue, &ce) < 0 ? -EINVAL : 0;
            r->ue += ue;
            r->ce += ce;
        }
        ssize_t n = r->bad_pages_fd < 0 ? -ENOENT : gs_sysval_pread(r->bad_pages_fd, buf, sizeof(buf));
        r->bad_rc = n < 0 ? (int)n : gs_sysval_bad_pages(buf, (size_t)n, &r->bad_pages) < 0 ? -EINVAL : 0;
        r->read_ns = now;
        r->next_ns = now + AMD_RAS_PERIOD_NS;
    }
    uint32_t age = (uint32_t)((now - r->read_ns) / 1000000u);
    g->s.ras_ue_count = r->ue;
    g->s.ras_ce_count = r->ce;
    g->s.ras_bad_pages = r->bad_pages;
    gs_drm_mark(d, g, GS_F_RAS, r->rc, "ras/*_err_count");
    gs_drm_mark(d, g, GS_F_RAS_BAD_PAGES, r->bad_rc, "ras/gpu_vram_bad_pages");
    g->s.age_ms[GS_F_RAS] = g->s.age_ms[GS_F_RAS_BAD_PAGES] = age;
}

/* The throttle reasons of the firmware's bits. RDNA 3 boards report
 * TEMP_HOTSPOT almost all the time (MangoHud masks it: flightlessmango/
 * MangoHud src/amdgpu.cpp): alone, it counts as thermal throttling only
 * when the junction is within 10 C of its critical limit. */
static uint64_t amdgpu_reasons(const struct drm_dev *d, const struct gs_sample *s, uint64_t indep)
{
    const uint64_t hotspot = 1ull << 36;
    uint64_t r = gs_amd_throttle_reasons(indep);

    if ((indep & AMDM_THR_TEMP_MASK) == hotspot && gs_sample_has(s, GS_F_TEMP_JUNCTION) &&
        d->st.temp_junction_crit_c > 0 && s->temp_junction_c < d->st.temp_junction_crit_c - 10)
        r &= ~GS_THROTTLE_SW_THERMAL;
    return r;
}

/* This tick's gpu_metrics table into m; its GS_AMDM_* valid bits (0: no table,
 * or one that did not decode: every reading then comes from its own file). */
static uint32_t amdgpu_metrics_read(struct drm_dev *d, struct gs_amd_metrics *m)
{
    char buf[1024];
    ssize_t n = d->fd[DF_METRICS] < 0 ? -1 : gs_sysval_pread(d->fd[DF_METRICS], buf, sizeof(buf));

    if (n <= 0 || gs_amd_metrics_decode(buf, (size_t)n, m) < 0)
        return 0;
    return m->valid;
}

/* The readings gpu_metrics holds, from that one read instead of a file each
 * (docs/DRM.md says which come from where): each one it has a value for (not
 * 0xFFFF) is set in g and taken out of *want, so that the files are read only
 * for the rest. Power stays hwmon's (micro-watts; the table has whole watts),
 * the PCIe link the PCI core's (as its maximum, which the table lacks). */
static void amdgpu_metrics_first(const struct gs_amd_metrics *m, uint32_t valid, struct gs_fmask *want,
                                 struct gs_gpu *g)
{
    struct gs_sample *s = &g->s;
#define TAKE(field, bit, dst, val)                                             \
    if (gs_fmask_has(*want, field) && (valid & (bit))) {                       \
        dst = val;                                                             \
        gs_sample_mark(s, field, GS_ST_OK);                                    \
        gs_fmask_clear(want, field);                                           \
    }
    TAKE(GS_F_GPU_UTIL, GS_AMDM_GFX_ACTIVITY, s->gpu_util_pct, m->gfx_activity_pct > 100 ? 100 : m->gfx_activity_pct);
    TAKE(GS_F_MEM_UTIL, GS_AMDM_UMC_ACTIVITY, s->mem_util_pct, m->umc_activity_pct > 100 ? 100 : m->umc_activity_pct);
    TAKE(GS_F_TEMP_GPU, GS_AMDM_TEMP_EDGE, s->temp_gpu_c, m->temp_edge_c);
    TAKE(GS_F_TEMP_JUNCTION, GS_AMDM_TEMP_HOTSPOT, s->temp_junction_c, m->temp_hotspot_c);
    TAKE(GS_F_TEMP_MEM, GS_AMDM_TEMP_MEM, s->temp_mem_c, m->temp_mem_c);
    TAKE(GS_F_FAN_RPM, GS_AMDM_FAN_RPM, s->fan_rpm, m->fan_rpm);
    TAKE(GS_F_VOLTAGE_GFX, GS_AMDM_VOLTAGE_GFX, s->voltage_gfx_mv, m->voltage_gfx_mv);
    TAKE(GS_F_CLOCK_GRAPHICS, GS_AMDM_GFXCLK, s->clock_graphics_mhz, m->gfxclk_mhz);
    TAKE(GS_F_CLOCK_SM, GS_AMDM_GFXCLK, s->clock_sm_mhz, m->gfxclk_mhz);
    TAKE(GS_F_CLOCK_MEM, GS_AMDM_UCLK, s->clock_mem_mhz, m->uclk_mhz);
#undef TAKE
}

/* gpu_metrics' own readings (throttle status, energy), and what neither it
 * nor the files gave (an APU has little hwmon: its power). */
static void amdgpu_metrics_rest(const struct drm_dev *d, const struct gs_amd_metrics *m, uint32_t valid,
                                struct gs_fmask want, struct gs_gpu *g)
{
    struct gs_sample *s = &g->s;

#define FILL(field, bit, dst, val)                                                                  \
    if (gs_fmask_has(want, field) && s->status[field] == GS_ST_NOT_SUPPORTED && (valid & (bit))) { \
        dst = val;                                                                                  \
        gs_sample_mark(s, field, GS_ST_OK);                                                         \
    }
    FILL(GS_F_THROTTLE, GS_AMDM_THROTTLE, s->throttle_reasons, amdgpu_reasons(d, s, m->indep_throttle));
    FILL(GS_F_THROTTLE_VENDOR, GS_AMDM_THROTTLE, s->throttle_vendor, m->indep_throttle);
    FILL(GS_F_ENERGY, GS_AMDM_ENERGY, s->energy_mj, m->energy_uj / 1000);
    FILL(GS_F_POWER, GS_AMDM_POWER, s->power_mw, m->socket_power_mw);
#undef FILL
}

static void amdgpu_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    struct gs_sample *s = &g->s;
    struct gs_amd_metrics m;
    struct gs_fmask files = want; /* what the files are read for */
    uint32_t valid = amdgpu_metrics_read(d, &m);

    amdgpu_metrics_first(&m, valid, &files, g);
    amdgpu_pct(d, g, files, GS_F_GPU_UTIL, DF_BUSY, &s->gpu_util_pct, "gpu_busy_percent");
    amdgpu_pct(d, g, files, GS_F_MEM_UTIL, DF_MEM_BUSY, &s->mem_util_pct, "mem_busy_percent");
    amdgpu_memory(d, files, g);
    amdgpu_clock(d, g, files, DF_SCLK, GS_F_CLOCK_GRAPHICS, &s->clock_graphics_mhz, GS_F_CLOCK_SM,
                 &s->clock_sm_mhz, "pp_dpm_sclk");
    amdgpu_clock(d, g, files, DF_MCLK, GS_F_CLOCK_MEM, &s->clock_mem_mhz, GS_F_COUNT, NULL, "pp_dpm_mclk");
    gs_drm_hwmon_sample(d, files, g);
    gs_drm_pcie_sample(d, files, g);
    amdgpu_ras(d, files, g);
    amdgpu_metrics_rest(d, &m, valid, want, g);
    gs_drm_engines_sample(d, files, g);
}

const struct drm_ops gs_drm_amdgpu = {
    .driver = "amdgpu",
    .vendor = "AMD",
    .keys = &gs_fdinfo_amdgpu,
    .open = amdgpu_open,
    .read_static = amdgpu_read_static,
    .sample = amdgpu_sample,
};
