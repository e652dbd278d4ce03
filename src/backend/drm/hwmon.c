/* SPDX-License-Identifier: MIT */
/*
 * hwmon.c - a GPU's hwmon directory (device/hwmon/hwmonN), after the
 * kernel's Documentation/hwmon/sysfs-interface.rst (milli-degrees,
 * micro-watts, micro-joules, millivolts, RPM, PWM 0..255) and the drivers'
 * own pages: amdgpu (Documentation/gpu/amdgpu/thermal.rst: temp1 edge,
 * temp2 junction, temp3 mem, each with _crit and _emergency; power1_average
 * or power1_input, power1_cap with _min/_max/_default; fan1_input/_min/_max,
 * pwm1; in0 vddgfx), i915 and xe (Documentation/ABI/testing/sysfs-driver-
 * intel-{i915,xe}-hwmon: power1_max (PL1), power1_rated_max, energy1_input,
 * in0/in1 voltage, fan1_input, xe's temp2 "pkg" and temp3 "vram").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend/drm/drm_priv.h"
#include "backend/drm/sysval.h"

enum { ROLE_GPU, ROLE_JUNCTION, ROLE_MEM };

/* Which temperature a label names; -1 for others (amdgpu APUs' "soc"...). */
static int temp_role(const char *label, int n)
{
    static const struct {
        const char *label;
        int role;
    } roles[] = { { "edge", ROLE_GPU }, { "pkg", ROLE_GPU }, { "junction", ROLE_JUNCTION },
                  { "hotspot", ROLE_JUNCTION }, { "mem", ROLE_MEM }, { "vram", ROLE_MEM } };
    if (!label[0])
        return n == 1 ? ROLE_GPU : -1; /* an unlabelled temp1 is the GPU's */
    for (size_t i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
        if (!strcmp(label, roles[i].label))
            return roles[i].role;
    return -1;
}

static int hwmon_dir(int dev_fd)
{
    int dfd = openat(dev_fd, "hwmon", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    int fd = -1;

    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    while (fd < 0 && (e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, "hwmon", 5) && e->d_name[5] >= '0' && e->d_name[5] <= '9')
            fd = openat(dirfd(d), e->d_name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    closedir(d);
    return fd;
}

/* Which tempN is which role: temp_n[role] = N, 0 when absent. */
static void temp_map(int hfd, int temp_n[3])
{
    char rel[32], label[32];

    temp_n[0] = temp_n[1] = temp_n[2] = 0;
    for (int n = 1; n <= 8; n++) {
        snprintf(rel, sizeof(rel), "temp%d_input", n);
        if (faccessat(hfd, rel, F_OK, 0) != 0)
            continue;
        snprintf(rel, sizeof(rel), "temp%d_label", n);
        gs_sysval_at_line(hfd, rel, label, sizeof(label));
        int role = temp_role(label, n);
        if (role >= 0 && !temp_n[role])
            temp_n[role] = n;
    }
}

void gs_drm_hwmon_open(struct drm_dev *d)
{
    int temp_n[3];
    char rel[32];

    if ((d->hwmon_fd = hwmon_dir(d->dev_fd)) < 0)
        return;
    temp_map(d->hwmon_fd, temp_n);
    for (int r = 0; r < 3; r++) {
        if (!temp_n[r])
            continue;
        snprintf(rel, sizeof(rel), "temp%d_input", temp_n[r]);
        int fd = gs_sysval_open(d->hwmon_fd, rel);
        d->temp_fd[r] = fd >= 0 ? fd : -1;
    }
    gs_drm_keep(d, DF_POWER, d->hwmon_fd, "power1_average");
    if (d->fd[DF_POWER] < 0)
        gs_drm_keep(d, DF_POWER, d->hwmon_fd, "power1_input");
    gs_drm_keep(d, DF_POWER_CAP, d->hwmon_fd, "power1_cap");
    if (d->fd[DF_POWER_CAP] < 0)
        gs_drm_keep(d, DF_POWER_CAP, d->hwmon_fd, "power1_max"); /* i915/xe: PL1 */
    gs_drm_keep(d, DF_ENERGY, d->hwmon_fd, "energy1_input");
    gs_drm_keep(d, DF_FAN, d->hwmon_fd, "fan1_input");
    gs_drm_keep(d, DF_PWM, d->hwmon_fd, "pwm1");
    gs_drm_keep(d, DF_VOLT, d->hwmon_fd, "in0_input");
    if (d->fd[DF_VOLT] < 0)
        gs_drm_keep(d, DF_VOLT, d->hwmon_fd, "in1_input"); /* xe: in1 is the card's */
}

/* Milli-degrees at hwmon/rel, as degrees; false when absent or nonsense. */
static bool temp_limit(int hfd, const char *rel, int32_t *out)
{
    int64_t v;
    if (gs_sysval_at_i64(hfd, rel, &v) < 0 || v <= 0 || v > 200000)
        return false; /* amdgpu answers 0 or huge numbers for limits a board lacks */
    *out = (int32_t)((v + 500) / 1000);
    return true;
}

static void hwmon_temp_limits(struct drm_dev *d, struct gs_static *st)
{
    int temp_n[3];
    int32_t *crit[3] = { &st->temp_crit_c, &st->temp_junction_crit_c, &st->temp_mem_crit_c };
    int32_t *emerg[3] = { &st->temp_emerg_c, &st->temp_junction_emerg_c, &st->temp_mem_emerg_c };
    bool any_crit = false, any_emerg = false;
    char rel[32];

    temp_map(d->hwmon_fd, temp_n);
    for (int r = 0; r < 3; r++) {
        if (!temp_n[r])
            continue;
        snprintf(rel, sizeof(rel), "temp%d_crit", temp_n[r]);
        any_crit |= temp_limit(d->hwmon_fd, rel, crit[r]);
        snprintf(rel, sizeof(rel), "temp%d_emergency", temp_n[r]);
        any_emerg |= temp_limit(d->hwmon_fd, rel, emerg[r]);
    }
    if (any_crit)
        gs_static_mark(st, GS_S_TEMP_CRIT, GS_ST_OK);
    if (any_emerg)
        gs_static_mark(st, GS_S_TEMP_EMERG, GS_ST_OK);
    /* the GPU sensor's critical point is where it slows down, its emergency
     * point where the firmware shuts the GPU off: nvidia-smi's two limits */
    if (st->temp_crit_c) {
        st->temp_slowdown_c = st->temp_crit_c;
        gs_static_mark(st, GS_S_TEMP_SLOWDOWN, GS_ST_OK);
    }
    if (st->temp_emerg_c) {
        st->temp_shutdown_c = st->temp_emerg_c;
        gs_static_mark(st, GS_S_TEMP_SHUTDOWN, GS_ST_OK);
    }
}

static bool uw_at(int hfd, const char *rel, uint32_t *mw)
{
    uint64_t v;
    if (gs_sysval_at_u64(hfd, rel, &v) < 0)
        return false;
    *mw = (uint32_t)(v / 1000);
    return true;
}

void gs_drm_hwmon_static(struct drm_dev *d, struct gs_static *st)
{
    uint64_t lo, hi;

    if (d->hwmon_fd < 0)
        return;
    hwmon_temp_limits(d, st);
    if (uw_at(d->hwmon_fd, "power1_cap_default", &st->power_default_limit_mw) ||
        uw_at(d->hwmon_fd, "power1_rated_max", &st->power_default_limit_mw))
        gs_static_mark(st, GS_S_POWER_DEFAULT, GS_ST_OK);
    if (uw_at(d->hwmon_fd, "power1_cap_min", &st->power_min_limit_mw) &&
        uw_at(d->hwmon_fd, "power1_cap_max", &st->power_max_limit_mw))
        gs_static_mark(st, GS_S_POWER_MINMAX, GS_ST_OK);
    if (gs_sysval_at_u64(d->hwmon_fd, "fan1_min", &lo) == 0 && gs_sysval_at_u64(d->hwmon_fd, "fan1_max", &hi) == 0) {
        st->fan_min_rpm = (uint32_t)lo;
        st->fan_max_rpm = (uint32_t)hi;
        gs_static_mark(st, GS_S_FAN_RPM_RANGE, GS_ST_OK);
    }
    if (d->fd[DF_PWM] >= 0 || d->fd[DF_FAN] >= 0) {
        st->fan_count = 1;
        gs_static_mark(st, GS_S_FAN_COUNT, GS_ST_OK);
    }
}

static void hwmon_temps(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    static const enum gs_field fields[3] = { GS_F_TEMP_GPU, GS_F_TEMP_JUNCTION, GS_F_TEMP_MEM };
    int32_t *dst[3] = { &g->s.temp_gpu_c, &g->s.temp_junction_c, &g->s.temp_mem_c };

    for (int r = 0; r < 3; r++) {
        int64_t v;
        if (!gs_fmask_has(want, fields[r]) || d->temp_fd[r] < 0)
            continue;
        int rc = gs_sysval_fd_i64(d->temp_fd[r], &v);
        if (rc == 0)
            *dst[r] = (int32_t)(v >= 0 ? (v + 500) / 1000 : (v - 500) / 1000);
        gs_drm_mark(d, g, fields[r], rc, "temperature");
    }
}

/* Power from power1_average/input, else from the energy counter's rate
 * (i915 and xe have no power file); energy in mJ. */
static void hwmon_power(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    uint64_t v;
    int rc;

    if (d->fd[DF_ENERGY] < 0) {
        rc = -ENOENT; /* no counter (amdgpu: gpu_metrics has it): nothing to hold drmsim's lock for */
        if (gs_fmask_has(want, GS_F_ENERGY))
            gs_drm_mark(d, g, GS_F_ENERGY, rc, "energy1_input");
    } else if (gs_fmask_has(want, GS_F_ENERGY) || (gs_fmask_has(want, GS_F_POWER) && d->fd[DF_POWER] < 0)) {
        gs_drm_sim_hold(d->ctx);
        if ((rc = gs_drm_u64(d, DF_ENERGY, &v)) == 0) {
            double per_s;
            g->s.energy_mj = v / 1000;
            if (d->fd[DF_POWER] < 0 && gs_fmask_has(want, GS_F_POWER)) {
                bool ok = gs_drm_rate(&d->energy, v, d->ctx->now_ns, &per_s);
                g->s.power_mw = (uint32_t)(per_s / 1000.0 + 0.5); /* uJ/s -> mW */
                gs_sample_mark(&g->s, GS_F_POWER, ok ? GS_ST_OK : GS_ST_NOT_AVAILABLE);
            }
        }
        gs_drm_sim_release(d->ctx);
        if (gs_fmask_has(want, GS_F_ENERGY))
            gs_drm_mark(d, g, GS_F_ENERGY, rc, "energy1_input");
    }
    if (gs_fmask_has(want, GS_F_POWER) && d->fd[DF_POWER] >= 0) {
        if ((rc = gs_drm_u64(d, DF_POWER, &v)) == 0)
            g->s.power_mw = (uint32_t)(v / 1000);
        gs_drm_mark(d, g, GS_F_POWER, rc, "power1_average");
    }
    if (gs_fmask_has(want, GS_F_POWER_LIMIT) || gs_fmask_has(want, GS_F_POWER_ENFORCED)) {
        uint32_t age = 0; /* on the read schedule: a cap changes when someone sets it */
        if (gs_drm_kept_reuse(d, DK_POWER_CAP, &v, &age)) {
            rc = 0;
        } else {
            rc = gs_drm_u64(d, DF_POWER_CAP, &v);
            gs_drm_kept_store(d, DK_POWER_CAP, v, rc);
        }
        if (rc == 0)
            g->s.power_limit_mw = g->s.power_enforced_limit_mw = (uint32_t)(v / 1000);
        gs_drm_mark(d, g, GS_F_POWER_LIMIT, rc, "power1_cap");
        gs_drm_mark(d, g, GS_F_POWER_ENFORCED, rc, "power1_cap");
        g->s.age_ms[GS_F_POWER_LIMIT] = g->s.age_ms[GS_F_POWER_ENFORCED] = age;
    }
}

void gs_drm_hwmon_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g)
{
    uint64_t v;
    int rc;

    hwmon_temps(d, want, g);
    hwmon_power(d, want, g);
    if (gs_fmask_has(want, GS_F_FAN_SPEED)) {
        if ((rc = gs_drm_u64(d, DF_PWM, &v)) == 0) {
            g->s.fan_count = 1;
            g->s.fan_speed_pct[0] = (uint32_t)((v > 255 ? 255 : v) * 100 + 127) / 255;
        }
        gs_drm_mark(d, g, GS_F_FAN_SPEED, rc, "pwm1");
    }
    if (gs_fmask_has(want, GS_F_FAN_RPM)) {
        if ((rc = gs_drm_u64(d, DF_FAN, &v)) == 0)
            g->s.fan_rpm = (uint32_t)v;
        gs_drm_mark(d, g, GS_F_FAN_RPM, rc, "fan1_input");
    }
    if (gs_fmask_has(want, GS_F_VOLTAGE_GFX)) {
        if ((rc = gs_drm_u64(d, DF_VOLT, &v)) == 0)
            g->s.voltage_gfx_mv = (uint32_t)v;
        gs_drm_mark(d, g, GS_F_VOLTAGE_GFX, rc, "in0_input");
    }
}
