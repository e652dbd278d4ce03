/* SPDX-License-Identifier: MIT */
/*
 * json.c - a snapshot as JSON, schema "gpuscope.snapshot/1" (docs/JSON.md).
 *
 * Numbers are numbers, units live in key names, and a reading that is not a
 * value is null with its reason in the enclosing object's "unavailable" map
 * ({"power.draw_w": "not_supported"}). Built with jansson (no hand escaping).
 * Changing a key's meaning or removing a key needs a new schema version;
 * adding keys does not.
 */
#include "out/out.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One object being filled, with the "unavailable" map it reports into. */
struct jgrp {
    json_t *obj;
    json_t *unavail;
    const char *path; /* "power" -> keys "power.draw_w"; "" at the top */
};

static const char *reason_code(enum gs_status st)
{
    static const char *const codes[GS_ST_COUNT] = {
        [GS_ST_NOT_SUPPORTED] = "not_supported",
        [GS_ST_OK] = "ok",
        [GS_ST_NO_PERMISSION] = "no_permission",
        [GS_ST_GPU_LOST] = "gpu_lost",
        [GS_ST_NOT_AVAILABLE] = "not_available",
        [GS_ST_NOT_SAMPLED] = "not_sampled",
        [GS_ST_ERROR] = "error",
    };
    return (unsigned)st < GS_ST_COUNT ? codes[st] : "error";
}

/* Set key to v when st is OK, else to null with the reason recorded. Takes v. */
static void jput_why(struct jgrp *g, const char *key, enum gs_status st, const char *why, json_t *v)
{
    char path[128];

    if (st == GS_ST_OK && v) {
        json_object_set_new(g->obj, key, v);
        return;
    }
    json_decref(v);
    json_object_set_new(g->obj, key, json_null());
    snprintf(path, sizeof(path), "%s%s%s", g->path, g->path[0] ? "." : "", key);
    json_object_set_new(g->unavail, path, json_string(why ? why : reason_code(st)));
}

static void jput(struct jgrp *g, const char *key, enum gs_status st, json_t *v)
{
    jput_why(g, key, st, NULL, v);
}

static struct jgrp jgroup(json_t *parent, struct jgrp *top, const char *name)
{
    struct jgrp g = {json_object(), top->unavail, name};
    json_object_set_new(parent, name, g.obj);
    return g;
}

static json_t *jstr_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

static json_t *jwatts(uint32_t mw)
{
    return json_real(mw / 1000.0);
}

static json_t *jhex(uint32_t v)
{
    char buf[16];
    snprintf(buf, sizeof(buf), "0x%08X", v);
    return json_string(buf);
}

/* ---- the GPU's static facts and sample, grouped -------------------------------------------- */

#define SST(f) ((enum gs_status)s->status[f])
#define TST(f) ((enum gs_status)st->status[f])

static void json_identity(json_t *gpu, struct jgrp *top, const struct gs_static *st)
{
    struct jgrp g = jgroup(gpu, top, "identity");
    char cc[24];

    snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
    jput(&g, "serial", TST(GS_S_SERIAL), json_string(st->serial));
    jput(&g, "pci_bus_id", TST(GS_S_PCI), json_string(st->pci_bus_id));
    jput(&g, "pci_device_id", TST(GS_S_PCI), jhex(st->pci_device_id));
    jput(&g, "pci_subsystem_id", TST(GS_S_PCI), jhex(st->pci_subsystem_id));
    jput(&g, "board_id", TST(GS_S_BOARD_ID), json_integer(st->board_id));
    jput(&g, "vbios", TST(GS_S_VBIOS), json_string(st->vbios));
    jput(&g, "architecture", TST(GS_S_ARCH),
         json_string(st->arch_name[0] ? st->arch_name : gs_arch_name(st->arch)));
    jput(&g, "compute_capability", TST(GS_S_CUDA_CC), json_string(cc));
    jput(&g, "brand", TST(GS_S_BRAND), json_integer(st->brand));
    jput(&g, "minor_number", TST(GS_S_MINOR_NUMBER), json_integer(st->minor_number));
}

static void json_memory(json_t *gpu, struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp g = jgroup(gpu, top, "memory");

    jput(&g, "total_bytes", SST(GS_F_MEM_TOTAL), json_integer((json_int_t)s->mem_total_bytes));
    jput(&g, "used_bytes", SST(GS_F_MEM_USED), json_integer((json_int_t)s->mem_used_bytes));
    jput(&g, "free_bytes", SST(GS_F_MEM_FREE), json_integer((json_int_t)s->mem_free_bytes));
    jput(&g, "reserved_bytes", SST(GS_F_MEM_RESERVED), json_integer((json_int_t)s->mem_reserved_bytes));
    jput(&g, "bar1_total_bytes", SST(GS_F_BAR1_TOTAL), json_integer((json_int_t)s->bar1_total_bytes));
    jput(&g, "bar1_used_bytes", SST(GS_F_BAR1_USED), json_integer((json_int_t)s->bar1_used_bytes));
    jput(&g, "bar1_free_bytes", SST(GS_F_BAR1_FREE), json_integer((json_int_t)s->bar1_free_bytes));
}

static void json_util_temp(json_t *gpu, struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp u = jgroup(gpu, top, "utilization");
    struct jgrp t = jgroup(gpu, top, "temperature");

    jput(&u, "gpu_pct", SST(GS_F_GPU_UTIL), json_integer(s->gpu_util_pct));
    jput(&u, "memory_pct", SST(GS_F_MEM_UTIL), json_integer(s->mem_util_pct));
    jput(&u, "encoder_pct", SST(GS_F_ENC_UTIL), json_integer(s->enc_util_pct));
    jput(&u, "decoder_pct", SST(GS_F_DEC_UTIL), json_integer(s->dec_util_pct));
    jput(&t, "gpu_c", SST(GS_F_TEMP_GPU), json_integer(s->temp_gpu_c));
    jput(&t, "memory_c", SST(GS_F_TEMP_MEM), json_integer(s->temp_mem_c));
    jput(&t, "slowdown_c", TST(GS_S_TEMP_SLOWDOWN), json_integer(st->temp_slowdown_c));
    jput(&t, "shutdown_c", TST(GS_S_TEMP_SHUTDOWN), json_integer(st->temp_shutdown_c));
    jput(&t, "gpu_max_c", TST(GS_S_TEMP_GPU_MAX), json_integer(st->temp_gpu_max_c));
    jput(&t, "memory_max_c", TST(GS_S_TEMP_MEM_MAX), json_integer(st->temp_mem_max_c));
}

static void json_fans(struct jgrp *top, const struct gs_sample *s)
{
    json_t *fans = json_array();
    enum gs_status stat = SST(GS_F_FAN_SPEED);

    for (uint32_t i = 0; i < s->fan_count && i < GS_MAX_FANS; i++)
        json_array_append_new(fans, json_integer(s->fan_speed_pct[i]));
    if (stat == GS_ST_OK && !s->fan_count)
        stat = GS_ST_NOT_AVAILABLE;
    jput(top, "fans_pct", stat, fans);
}

static void json_power_clocks(json_t *gpu, struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp p = jgroup(gpu, top, "power");
    struct jgrp c = jgroup(gpu, top, "clocks");

    jput(&p, "draw_w", SST(GS_F_POWER), jwatts(s->power_mw));
    jput(&p, "limit_w", SST(GS_F_POWER_LIMIT), jwatts(s->power_limit_mw));
    jput(&p, "enforced_limit_w", SST(GS_F_POWER_ENFORCED), jwatts(s->power_enforced_limit_mw));
    jput(&p, "default_limit_w", TST(GS_S_POWER_DEFAULT), jwatts(st->power_default_limit_mw));
    jput(&p, "min_limit_w", TST(GS_S_POWER_MINMAX), jwatts(st->power_min_limit_mw));
    jput(&p, "max_limit_w", TST(GS_S_POWER_MINMAX), jwatts(st->power_max_limit_mw));
    jput(&p, "energy_mj", SST(GS_F_ENERGY), json_integer((json_int_t)s->energy_mj));
    jput(&c, "graphics_mhz", SST(GS_F_CLOCK_GRAPHICS), json_integer(s->clock_graphics_mhz));
    jput(&c, "sm_mhz", SST(GS_F_CLOCK_SM), json_integer(s->clock_sm_mhz));
    jput(&c, "memory_mhz", SST(GS_F_CLOCK_MEM), json_integer(s->clock_mem_mhz));
    jput(&c, "video_mhz", SST(GS_F_CLOCK_VIDEO), json_integer(s->clock_video_mhz));
    jput(&c, "max_graphics_mhz", TST(GS_S_CLOCK_MAX_GRAPHICS), json_integer(st->clock_max_graphics_mhz));
    jput(&c, "max_sm_mhz", TST(GS_S_CLOCK_MAX_SM), json_integer(st->clock_max_sm_mhz));
    jput(&c, "max_memory_mhz", TST(GS_S_CLOCK_MAX_MEM), json_integer(st->clock_max_mem_mhz));
    jput(&c, "max_video_mhz", TST(GS_S_CLOCK_MAX_VIDEO), json_integer(st->clock_max_video_mhz));
    jput(top, "pstate", SST(GS_F_PSTATE), json_integer(s->pstate));
}

/* nvidia-smi's clocks_event_reasons.* names for the mask bits. */
static json_t *event_names(uint64_t mask)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {
        {GS_THROTTLE_GPU_IDLE, "gpu_idle"},
        {GS_THROTTLE_APP_CLOCKS, "applications_clocks_setting"},
        {GS_THROTTLE_SW_POWER_CAP, "sw_power_cap"},
        {GS_THROTTLE_HW_SLOWDOWN, "hw_slowdown"},
        {GS_THROTTLE_SYNC_BOOST, "sync_boost"},
        {GS_THROTTLE_SW_THERMAL, "sw_thermal_slowdown"},
        {GS_THROTTLE_HW_THERMAL, "hw_thermal_slowdown"},
        {GS_THROTTLE_HW_POWER_BRAKE, "hw_power_brake_slowdown"},
        {GS_THROTTLE_DISPLAY_CLOCK, "display_clock_setting"},
    };
    json_t *a = json_array();

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (mask & names[i].bit)
            json_array_append_new(a, json_string(names[i].name));
    return a;
}

static void json_events_pcie(json_t *gpu, struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp e = jgroup(gpu, top, "clock_event_reasons");
    struct jgrp p = jgroup(gpu, top, "pcie");

    jput(&e, "active_mask", SST(GS_F_THROTTLE), json_integer((json_int_t)s->throttle_reasons));
    jput(&e, "active", SST(GS_F_THROTTLE), event_names(s->throttle_reasons));
    jput(&e, "supported_mask", TST(GS_S_THROTTLE_SUPPORTED),
         json_integer((json_int_t)st->throttle_supported));
    jput(&p, "gen", SST(GS_F_PCIE_GEN), json_integer(s->pcie_gen));
    jput(&p, "width", SST(GS_F_PCIE_WIDTH), json_integer(s->pcie_width));
    jput(&p, "max_gen", TST(GS_S_PCIE_MAX_GEN), json_integer(st->pcie_max_gen));
    jput(&p, "gpu_max_gen", TST(GS_S_PCIE_GPU_MAX_GEN), json_integer(st->pcie_gpu_max_gen));
    jput(&p, "max_width", TST(GS_S_PCIE_MAX_WIDTH), json_integer(st->pcie_max_width));
    jput(&p, "tx_kbytes_per_s", SST(GS_F_PCIE_TX), json_integer(s->pcie_tx_kbps));
    jput(&p, "rx_kbytes_per_s", SST(GS_F_PCIE_RX), json_integer(s->pcie_rx_kbps));
    jput(&p, "replay_count", SST(GS_F_PCIE_REPLAY), json_integer(s->pcie_replay_count));
}

static void json_ecc(json_t *gpu, struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp e = jgroup(gpu, top, "ecc");
    struct jgrp r = jgroup(gpu, top, "retired_pages");
    struct jgrp m = jgroup(gpu, top, "remapped_rows");

    jput(&e, "mode_current", SST(GS_F_ECC_MODE), json_boolean(s->ecc_mode_current));
    jput(&e, "mode_pending", SST(GS_F_ECC_MODE), json_boolean(s->ecc_mode_pending));
    jput(&e, "volatile_corrected", SST(GS_F_ECC_VOL_CORR), json_integer((json_int_t)s->ecc_vol_corrected));
    jput(&e, "volatile_uncorrected", SST(GS_F_ECC_VOL_UNCORR),
         json_integer((json_int_t)s->ecc_vol_uncorrected));
    jput(&e, "aggregate_corrected", SST(GS_F_ECC_AGG_CORR), json_integer((json_int_t)s->ecc_agg_corrected));
    jput(&e, "aggregate_uncorrected", SST(GS_F_ECC_AGG_UNCORR),
         json_integer((json_int_t)s->ecc_agg_uncorrected));
    jput(&r, "single_bit", SST(GS_F_RETIRED_SBE), json_integer(s->retired_sbe_pages));
    jput(&r, "double_bit", SST(GS_F_RETIRED_DBE), json_integer(s->retired_dbe_pages));
    jput(&r, "pending", SST(GS_F_RETIRED_PENDING), json_boolean(s->retired_pending));
    jput(&m, "correctable", SST(GS_F_REMAP_CORR), json_integer(s->remap_corr_rows));
    jput(&m, "uncorrectable", SST(GS_F_REMAP_UNCORR), json_integer(s->remap_uncorr_rows));
    jput(&m, "pending", SST(GS_F_REMAP_PENDING), json_boolean(s->remap_pending));
    jput(&m, "failure", SST(GS_F_REMAP_FAILED), json_boolean(s->remap_failed));
}

/* Xid events through NVML's event API since sampling began (one-shot: none yet). */
static void json_xid(json_t *gpu, struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp x = jgroup(gpu, top, "xid");

    /* No Xid yet: "last" is null with reason not_available (nothing to report, not an error). */
    enum gs_status last = SST(GS_F_XID) == GS_ST_OK && !s->xid_count ? GS_ST_NOT_AVAILABLE : SST(GS_F_XID);

    jput(&x, "count_since_start", SST(GS_F_XID), json_integer((json_int_t)s->xid_count));
    jput(&x, "last", last, json_integer(s->xid_last));
    jput(&x, "last_time_unix_ms", last, json_integer((json_int_t)s->xid_last_ms));
}

static const char *compute_mode_name(uint32_t mode)
{
    static const char *const names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
    return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "unknown";
}

static void json_modes(json_t *gpu, struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp m = jgroup(gpu, top, "modes");

    jput(&m, "persistence", SST(GS_F_PERSISTENCE), json_boolean(s->persistence_mode));
    jput(&m, "compute", SST(GS_F_COMPUTE_MODE), json_string(compute_mode_name(s->compute_mode)));
    jput(&m, "mig_current", SST(GS_F_MIG_MODE), json_boolean(s->mig_mode_current));
    jput(&m, "mig_pending", SST(GS_F_MIG_MODE), json_boolean(s->mig_mode_pending));
    jput(&m, "display_active", SST(GS_F_DISPLAY_ACTIVE), json_boolean(s->display_active));
    jput(&m, "display_attached", SST(GS_F_DISPLAY_MODE), json_boolean(s->display_mode));
}

/* ---- processes ---------------------------------------------------------------------------- */

static const char *visibility_code(uint8_t vis)
{
    switch (vis) {
    case GS_HOST_VISIBLE:
        return "visible";
    case GS_HOST_NOT_VISIBLE:
        return "not_visible";
    case GS_HOST_EXITED:
        return "exited";
    case GS_HOST_NO_PERMISSION:
        return "no_permission";
    default:
        return "unknown";
    }
}

static json_t *proc_types(uint32_t type)
{
    json_t *a = json_array();
    if (type & GS_PROC_COMPUTE)
        json_array_append_new(a, json_string("compute"));
    if (type & GS_PROC_GRAPHICS)
        json_array_append_new(a, json_string("graphics"));
    if (type & GS_PROC_MPS)
        json_array_append_new(a, json_string("mps"));
    return a;
}

#define PST(f) (gs_proc_has(p, f) ? GS_ST_OK : GS_ST_NOT_AVAILABLE)

static void json_proc_host(json_t *obj, struct jgrp *top, const struct gs_proc *p)
{
    struct jgrp h = jgroup(obj, top, "host");
    /* host facts missing because /proc could not show the process say why */
    const char *why = p->host_vis == GS_HOST_VISIBLE ? NULL : visibility_code(p->host_vis);

    json_object_set_new(h.obj, "visibility", json_string(visibility_code(p->host_vis)));
    jput_why(&h, "user", PST(GS_P_USER), why, json_string(p->user));
    jput_why(&h, "uid", PST(GS_P_USER), why, json_integer(p->uid));
    jput_why(&h, "command", PST(GS_P_COMM), why, json_string(p->comm));
    jput_why(&h, "cmdline", PST(GS_P_COMM), why, json_string(p->cmdline));
    jput_why(&h, "cpu_pct", PST(GS_P_CPU), why, json_real(p->cpu_pct));
    jput_why(&h, "rss_bytes", PST(GS_P_RSS), why, json_integer((json_int_t)p->rss_bytes));
    jput_why(&h, "start_time_unix", PST(GS_P_START), why, json_integer(p->start_time));
    jput_why(&h, "age_s", PST(GS_P_START), why, json_integer((json_int_t)p->age_s));
    jput_why(&h, "ppid", PST(GS_P_PARENT), why, json_integer(p->ppid));
    jput_why(&h, "pgid", PST(GS_P_PARENT), why, json_integer(p->pgid));
    /* valid but empty: not in a container / pod -> null without a reason */
    jput_why(&h, "container_id", PST(GS_P_CONTAINER), why, jstr_or_null(p->container_id));
    jput_why(&h, "container_runtime", PST(GS_P_CONTAINER), why, jstr_or_null(p->container_runtime));
    jput_why(&h, "pod_uid", PST(GS_P_POD), why, jstr_or_null(p->pod_uid));
}

static json_t *json_proc(const struct gs_proc *p)
{
    json_t *o = json_object();
    struct jgrp g = {o, json_object(), ""};

    json_object_set_new(o, "pid", json_integer(p->pid));
    json_object_set_new(o, "type", proc_types(p->type));
    jput(&g, "name", PST(GS_P_NAME), json_string(p->name));
    jput(&g, "gpu_memory_bytes", PST(GS_P_GPU_MEM), json_integer((json_int_t)p->gpu_mem_bytes));
    jput(&g, "sm_util_pct", PST(GS_P_SM_UTIL), json_integer(p->sm_util_pct));
    jput(&g, "memory_util_pct", PST(GS_P_MEM_UTIL), json_integer(p->mem_util_pct));
    jput(&g, "encoder_util_pct", PST(GS_P_ENC_UTIL), json_integer(p->enc_util_pct));
    jput(&g, "decoder_util_pct", PST(GS_P_DEC_UTIL), json_integer(p->dec_util_pct));
    if (p->gpu_instance_id != UINT32_MAX) {
        json_t *mig = json_object();
        json_object_set_new(mig, "gpu_instance_id", json_integer(p->gpu_instance_id));
        json_object_set_new(mig, "compute_instance_id", json_integer(p->compute_instance_id));
        json_object_set_new(o, "mig", mig);
    } else {
        json_object_set_new(o, "mig", json_null());
    }
    json_proc_host(o, &g, p);
    json_object_set_new(o, "unavailable", g.unavail);
    return o;
}

/* ---- GPU and snapshot --------------------------------------------------------------------- */

static const char *state_code(uint8_t state)
{
    return state == GS_GPU_LOST ? "lost" : state == GS_GPU_ERROR ? "error" : "ok";
}

static void json_gpu_head(json_t *o, struct jgrp *g, const struct gs_gpu *d)
{
    json_object_set_new(o, "index", json_integer(d->st.index));
    jput(g, "name", (enum gs_status)d->st.status[GS_S_NAME], json_string(d->st.name));
    jput(g, "uuid", (enum gs_status)d->st.status[GS_S_UUID], json_string(d->st.uuid));
    json_object_set_new(o, "state", json_string(state_code(d->state)));
    json_object_set_new(o, "error", jstr_or_null(d->last_error));
    json_object_set_new(o, "lost_since_unix", d->lost_since ? json_integer(d->lost_since) : json_null());
}

static json_t *json_gpu(const struct gs_gpu *d)
{
    json_t *o = json_object();
    struct jgrp g = {o, json_object(), ""};

    json_gpu_head(o, &g, d);
    json_identity(o, &g, &d->st);
    json_memory(o, &g, &d->s);
    json_util_temp(o, &g, d);
    json_fans(&g, &d->s);
    json_power_clocks(o, &g, d);
    json_events_pcie(o, &g, d);
    json_ecc(o, &g, &d->s);
    json_xid(o, &g, &d->s);
    json_modes(o, &g, &d->s);
    if (d->procs_status == GS_ST_OK) {
        json_t *a = json_array();
        for (uint32_t i = 0; i < d->nprocs; i++)
            json_array_append_new(a, json_proc(&d->procs[i]));
        json_object_set_new(o, "processes", a);
    } else {
        jput(&g, "processes", (enum gs_status)d->procs_status, NULL);
    }
    json_object_set_new(o, "unavailable", g.unavail);
    return o;
}

static json_t *json_system(const struct gs_sysinfo *sys)
{
    json_t *o = json_object();
    char cuda[24] = "";

    if (sys->cuda_driver_version > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", sys->cuda_driver_version / 1000,
                 sys->cuda_driver_version % 1000 / 10);
    json_object_set_new(o, "hostname", jstr_or_null(sys->hostname));
    json_object_set_new(o, "backend", jstr_or_null(sys->backend));
    json_object_set_new(o, "driver_version", jstr_or_null(sys->driver_version));
    json_object_set_new(o, "nvml_version", jstr_or_null(sys->nvml_version));
    json_object_set_new(o, "cuda_driver_version", jstr_or_null(cuda));
    json_object_set_new(o, "library", jstr_or_null(sys->lib_path));
    json_object_set_new(o, "simulated", json_boolean(sys->simulated));
    json_object_set_new(o, "sim_scenario", sys->simulated ? jstr_or_null(sys->sim_scenario) : json_null());
    return o;
}

/* ISO 8601 UTC with milliseconds: 2026-07-03T22:11:09.763Z */
static json_t *json_time(const struct timespec *ts)
{
    struct tm tm;
    time_t sec = ts->tv_sec;
    char date[32], buf[48];

    if (!gmtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm))
        return json_null();
    snprintf(buf, sizeof(buf), "%s.%03ldZ", date, (long)(ts->tv_nsec / 1000000));
    return json_string(buf);
}

static json_t *json_events(const struct gs_snapshot *snap)
{
    static const char *const kinds[] = { [GS_EV_XID] = "xid", [GS_EV_ECC_SBE] = "ecc_corrected",
                                         [GS_EV_ECC_DBE] = "ecc_uncorrected", [GS_EV_OTHER] = "other" };
    json_t *a = json_array();

    for (uint32_t i = 0; i < snap->nevents; i++) {
        const struct gs_event *e = &snap->events[i];
        json_t *o = json_object();
        const char *kind = e->kind < sizeof(kinds) / sizeof(kinds[0]) && kinds[e->kind] ? kinds[e->kind] : "other";
        json_object_set_new(o, "time_unix_ms", json_integer((json_int_t)e->time_ms));
        json_object_set_new(o, "gpu", json_integer(e->gpu));
        json_object_set_new(o, "kind", json_string(kind));
        json_object_set_new(o, "xid", e->kind == GS_EV_XID ? json_integer((json_int_t)e->data) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

/* The snapshot object without its "gpus" (the last key). */
static json_t *json_snapshot_head(const struct gs_snapshot *snap)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    json_object_set_new(o, "schema", json_string(GS_JSON_SCHEMA));
    json_object_set_new(o, "time", json_time(&snap->wall));
    json_object_set_new(o, "time_unix_ms",
                        json_integer((json_int_t)snap->wall.tv_sec * 1000 + snap->wall.tv_nsec / 1000000));
    json_object_set_new(o, "sample_duration_us", json_integer((json_int_t)(snap->duration_ns / 1000)));
    json_object_set_new(o, "system", json_system(&snap->sys));
    json_object_set_new(o, "events", json_events(snap));
    json_object_set_new(o, "events_dropped", json_integer(snap->events_dropped));
    json_object_set_new(o, "gpu_count", json_integer(snap->ngpus));
    return o;
}

struct json_t *gs_json_snapshot(const struct gs_snapshot *snap)
{
    json_t *o = json_snapshot_head(snap);
    json_t *gpus = json_array();

    if (!o || !gpus) {
        json_decref(o);
        json_decref(gpus);
        return NULL;
    }
    for (uint32_t i = 0; i < snap->ngpus; i++)
        json_array_append_new(gpus, json_gpu(&snap->gpus[i]));
    json_object_set_new(o, "gpus", gpus);
    return o;
}

/* jansson hands its output over token by token (thousands per snapshot);
 * gathering them here makes that a memcpy each and one fwrite per 64 KiB
 * instead of a locked stdio call per token. */
#define JOUT_BYTES 65536

struct jout {
    FILE *out;
    size_t len;
    bool failed;
    char buf[JOUT_BYTES];
};

static void jout_flush(struct jout *j)
{
    if (j->len && fwrite(j->buf, 1, j->len, j->out) != j->len)
        j->failed = true;
    j->len = 0;
}

static int jout_put(const char *text, size_t size, void *data)
{
    struct jout *j = data;

    if (size > sizeof(j->buf) - j->len)
        jout_flush(j);
    if (size > sizeof(j->buf)) {
        if (fwrite(text, 1, size, j->out) != size)
            j->failed = true;
    } else {
        memcpy(j->buf + j->len, text, size);
        j->len += size;
    }
    return j->failed ? -1 : 0;
}

/* jansson's indented output of a value dumped on its own, placed at nesting
 * depth 2 (an element of the top object's "gpus"): every line break gains
 * the indentation of that depth. */
#define JOUT_GPU_INDENT "\n    "

static int jout_put_nested(const char *text, size_t size, void *data)
{
    const char *nl;

    while (size && (nl = memchr(text, '\n', size))) {
        size_t head = (size_t)(nl - text);
        if (jout_put(text, head, data) < 0 || jout_put(JOUT_GPU_INDENT, sizeof(JOUT_GPU_INDENT) - 1, data) < 0)
            return -1;
        text += head + 1;
        size -= head + 1;
    }
    return size ? jout_put(text, size, data) : 0;
}

/* The head object's text without its closing brace (and the line break before it). */
static int jout_head(struct jout *j, const struct gs_snapshot *snap, size_t flags)
{
    json_t *head = json_snapshot_head(snap);
    char *text = head ? json_dumps(head, flags) : NULL;
    size_t n = text ? strlen(text) : 0;
    int rc = -1;

    json_decref(head);
    if (n >= 2 && text[n - 1] == '}') {
        for (n--; n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '); n--)
            ;
        rc = jout_put(text, n, j);
    }
    free(text);
    return rc;
}

/* The snapshot as gs_json_snapshot would dump it, written one GPU at a time:
 * only one GPU's tree (with its processes) exists at once, so memory stays
 * flat however many processes there are. */
static int jout_snapshot(struct jout *j, const struct gs_snapshot *snap, bool compact)
{
    size_t flags = JSON_REAL_PRECISION(12) | JSON_PRESERVE_ORDER | (compact ? JSON_COMPACT : JSON_INDENT(2));
    json_dump_callback_t put = compact ? jout_put : jout_put_nested;
    const char *sep = compact ? "," : ",\n    ";
    int rc = jout_head(j, snap, flags);

    const char *key = compact ? ",\"gpus\":[" : ",\n  \"gpus\": [";
    if (rc == 0)
        rc = jout_put(key, strlen(key), j);
    for (uint32_t i = 0; rc == 0 && i < snap->ngpus; i++) {
        json_t *g = json_gpu(&snap->gpus[i]);
        if (!g)
            return -1;
        rc = jout_put(sep + (i == 0), strlen(sep) - (i == 0), j);
        if (rc == 0)
            rc = json_dump_callback(g, put, j, flags);
        json_decref(g);
    }
    const char *end = compact ? "]}" : snap->ngpus ? "\n  ]\n}" : "]\n}";
    if (rc == 0)
        rc = jout_put(end, strlen(end), j);
    return rc;
}

int gs_json_write(FILE *out, const struct gs_snapshot *snap, bool compact)
{
    struct jout *j = malloc(sizeof(*j));
    int rc;

    if (!j)
        return -GS_E_NOMEM;
    j->out = out;
    j->len = 0;
    j->failed = false;
    rc = jout_snapshot(j, snap, compact);
    if (rc == 0 && jout_put("\n", 1, j) == 0)
        jout_flush(j);
    rc = rc < 0 || j->failed || ferror(out) ? -GS_E_IO : 0;
    free(j);
    return rc;
}
