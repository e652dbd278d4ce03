/* SPDX-License-Identifier: MIT */
/*
 * report.c - findings as text and JSON, thresholds by name, durations, and the
 * simulator's virtual-clock stepper (see report.h).
 */
#include "health/report.h"

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

json_t *gs_finding_json(const struct gs_finding *f)
{
    json_t *o = json_object();
    json_object_set_new(o, "severity", json_string(gs_sev_name((enum gs_sev)f->severity)));
    json_object_set_new(o, "code", json_string(f->code));
    json_object_set_new(o, "gpu", f->gpu == GS_NO_GPU ? json_null() : json_integer(f->gpu));
    json_object_set_new(o, "pid", f->pid ? json_integer(f->pid) : json_null());
    json_object_set_new(o, "title", json_string(f->title));
    json_object_set_new(o, "evidence", json_string(f->evidence));
    json_object_set_new(o, "cause", json_string(f->cause));
    json_object_set_new(o, "action", json_string(f->action));
    json_object_set_new(o, "value", json_real(isfinite(f->value) ? f->value : 0));
    return o;
}

void gs_findings_print(FILE *out, const struct gs_findings *f, bool color)
{
    static const char *const head[] = { "", "INFO", "WARNING", "CRITICAL" };
    static const char *const col[] = { "", "\033[36m", "\033[33m", "\033[31;1m" };
    size_t count[4] = { 0 };
    for (int sev = GS_SEV_CRITICAL; sev >= GS_SEV_INFO; sev--) {
        bool first = true;
        for (size_t i = 0; i < f->n; i++) {
            const struct gs_finding *x = &f->v[i];
            if (x->severity != sev)
                continue;
            if (first)
                fprintf(out, "%s%s%s\n", color ? col[sev] : "", head[sev], color ? "\033[0m" : "");
            first = false;
            count[sev]++;
            fprintf(out, "  [%s] %s\n      evidence: %s\n      cause:    %s\n      action:   %s\n\n", x->code,
                    x->title, x->evidence, x->cause, x->action);
        }
    }
    if (!f->n)
        fprintf(out, "no problems found\n");
    else
        fprintf(out, "%zu critical, %zu warning%s, %zu info\n", count[3], count[2], count[2] == 1 ? "" : "s",
                count[1]);
}

int64_t gs_health_duration_ms(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return -1;
    double scale = 1000;
    if (!strcmp(end, "ms"))
        scale = 1;
    else if (!strcmp(end, "") || !strcmp(end, "s"))
        scale = 1000;
    else if (!strcmp(end, "m") || !strcmp(end, "min"))
        scale = 60000;
    else if (!strcmp(end, "h"))
        scale = 3600000;
    else
        return -1;
    if (v * scale > 1e12)
        return -1;
    return (int64_t)llround(v * scale);
}

/* ---- thresholds by name ----------------------------------------------------------------- */

enum ctype { C_U32, C_I32, C_DBL, C_U64, C_BOOL };
struct cfield {
    const char *name;
    enum ctype type;
    size_t off;
};
#define F(n, t) { #n, t, offsetof(struct gs_health_cfg, n) }
static const struct cfield cfields[] = {
    F(thermal_margin_c, C_I32), F(fan_hot_margin_c, C_I32), F(fan_stuck_min_s, C_U32), F(throttle_min_share, C_DBL), F(power_limit_min_ratio, C_DBL),
    F(load_util_pct, C_U32), F(idle_util_pct, C_U32), F(idle_min_s, C_U32), F(idle_min_mib, C_U64),
    F(busy_util_pct, C_U32), F(busy_min_s, C_U32), F(leak_mib_per_s, C_DBL), F(leak_min_s, C_U32),
    F(leak_min_r2, C_DBL), F(saw_low_pct, C_U32), F(saw_high_pct, C_U32), F(saw_min_cycles, C_U32),
    F(saw_max_period_s, C_DBL), F(lag_util_pts, C_U32), F(lag_clock_ratio, C_DBL), F(lag_min_s, C_U32),
    F(xid_hold_s, C_U32), F(recent_s, C_U32), F(check_visible_devices, C_BOOL), F(ring_samples, C_U32),
    F(fan_rise_c, C_U32), F(fan_flat_s, C_U32), F(hw_throttle_min_ms, C_U32), F(sbe_storm_per_min, C_DBL), F(sbe_storm_min, C_U32),
    F(nvlink_crc_per_s, C_DBL), F(aer_cor_per_min, C_DBL),
    F(torch_frag_min_mib, C_U64), F(torch_frag_cache_share, C_DBL), F(torch_frag_split_share, C_DBL),
    F(torch_growth_mib_per_s, C_DBL),
};
#undef F

int gs_health_cfg_set(struct gs_health_cfg *cfg, const char *a, struct gs_err *err)
{
    const char *eq = strchr(a, '=');
    if (!eq)
        return gs_err_set(err, GS_E_USAGE, "--threshold: '%s' is not NAME=VALUE", a);
    for (size_t i = 0; i < sizeof(cfields) / sizeof(cfields[0]); i++) {
        const struct cfield *c = &cfields[i];
        if (strlen(c->name) != (size_t)(eq - a) || strncmp(c->name, a, (size_t)(eq - a)))
            continue;
        char *end;
        double v = strtod(eq + 1, &end);
        if (end == eq + 1 || *end || !isfinite(v) || v < (c->type == C_I32 ? -1000 : 0) || v > 1e9)
            return gs_err_set(err, GS_E_USAGE, "--threshold: bad value for %s: '%s'", c->name, eq + 1);
        char *p = (char *)cfg + c->off;
        switch (c->type) {
        case C_U32: *(uint32_t *)p = (uint32_t)v; break;
        case C_I32: *(int32_t *)p = (int32_t)v; break;
        case C_U64: *(uint64_t *)p = (uint64_t)v; break;
        case C_DBL: *(double *)p = v; break;
        case C_BOOL: *(bool *)p = v != 0; break;
        }
        return 0;
    }
    return gs_err_set(err, GS_E_USAGE, "--threshold: unknown name '%.*s' (see --list-thresholds)",
                      (int)(eq - a), a);
}

void gs_health_cfg_list(FILE *out, const struct gs_health_cfg *cfg)
{
    for (size_t i = 0; i < sizeof(cfields) / sizeof(cfields[0]); i++) {
        const struct cfield *c = &cfields[i];
        const char *p = (const char *)cfg + c->off;
        switch (c->type) {
        case C_U32: fprintf(out, "%s=%u\n", c->name, *(const uint32_t *)p); break;
        case C_I32: fprintf(out, "%s=%d\n", c->name, *(const int32_t *)p); break;
        case C_U64: fprintf(out, "%s=%llu\n", c->name, (unsigned long long)*(const uint64_t *)p); break;
        case C_DBL: fprintf(out, "%s=%g\n", c->name, *(const double *)p); break;
        case C_BOOL: fprintf(out, "%s=%d\n", c->name, *(const bool *)p); break;
        }
    }
}

void gs_sim_stepping_prepare(void)
{
    const char *clk = getenv("GPUSCOPE_SIM_CLOCK");
    if (clk && !strncmp(clk, "fixed:", 6))
        setenv("GPUSCOPE_READ_PERIOD_MS", "0", 0); /* an explicit setting wins */
}

gs_sim_step_fn gs_sim_clock_stepper(const struct gs_sysinfo *sys)
{
    const char *clk = getenv("GPUSCOPE_SIM_CLOCK");
    /* fixed:T only: a file: clock is driven by the test that writes it, in real time */
    if (!sys->simulated || !clk || strncmp(clk, "fixed:", 6))
        return NULL;
    void *lib = dlopen(sys->lib_path, RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
        return NULL;
    void *sym = dlsym(lib, "gssimClockStep");
    dlclose(lib); /* still loaded by the backend */
    gs_sim_step_fn fn = NULL;
    memcpy(&fn, &sym, sizeof(fn));
    return fn;
}
