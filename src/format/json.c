/* SPDX-License-Identifier: MIT */
/*
 * json.c - a snapshot as JSON, schema "gpuscope.snapshot/1" (docs/JSON.md).
 *
 * Numbers are numbers, units live in key names, and a reading that is not a
 * value is null with its reason in the enclosing object's "unavailable" map
 * ({"power.draw_w": "not_supported"}). Written value by value with the
 * streaming writer (format/jsonw.c: jansson's layout, jansson's escaping and
 * number format; no tree: 8 GPUs x 64 processes used to cost ~50M
 * instructions in the tree alone). Each object's "unavailable" map comes
 * last, from the reasons gathered while its keys were written.
 * Changing a key's meaning or removing a key needs a new schema version;
 * adding keys does not.
 */
#include "format/format.h"
#include "format/jsonw.h"

#include "core/pyhook.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/json_int.h"
#include "lib/vec.h"



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

static void junav_add(struct jgrp *g, const char *key, size_t nkey, const char *why)
{
    struct jlist *l = g->unavail;

    if (l->n == l->cap) {
        struct junav *nv = gs_vec_grow(l->v, &l->cap, l->n + 1, sizeof(*nv));
        if (!nv) {
            l->failed = true;
            return;
        }
        l->v = nv;
    }
    l->v[l->n++] = (struct junav){g->path, key, why, (uint8_t)g->npath, (uint8_t)nkey};
}

/* The "unavailable" map of the list's entries from index from on; drops them. */
void gs_json_unav_write(struct gs_jw *w, struct jlist *l, size_t from)
{
    GS_JW_KEY(w, "unavailable");
    gs_jw_obj(w);
    for (size_t i = from; i < l->n; i++) {
        gs_jw_keyn(w, l->v[i].prefix, l->v[i].nprefix, l->v[i].key, l->v[i].nkey);
        gs_jw_str(w, l->v[i].why);
    }
    gs_jw_end(w);
    l->n = from;
}


/* Write v; -1 when the writer refused it (a string not valid UTF-8) and wrote null. */
static int jval_write(struct gs_jw *w, struct jval v)
{
    char buf[16];

    switch (v.kind) {
    case J_INT:
        gs_jw_int(w, v.i);
        return 0;
    case J_REAL:
        return gs_jw_real(w, v.r);
    case J_BOOL:
        gs_jw_bool(w, v.i != 0);
        return 0;
    case J_STR:
        return gs_jw_str(w, v.s);
    case J_STR_OR_NULL:
        return gs_jw_str_or_null(w, v.s);
    case J_HEX:
        snprintf(buf, sizeof(buf), "0x%08X", (uint32_t)v.i);
        return gs_jw_str(w, buf);
    case J_NONE:
        break;
    }
    gs_jw_null(w);
    return 0;
}

/* Key with v when st is OK, else null with the reason (why, else the status's).
 * A string the encoder refuses (not valid UTF-8) is null with "invalid_utf8".
 * Keys are literals (jput_why and jput pass their lengths along). */
void gs_json_putn(struct jgrp *g, const char *key, size_t nkey, enum gs_status st, const char *why,
                  struct jval v)
{
    gs_jw_keyn(g->w, "", 0, key, nkey);
    if (st == GS_ST_OK && v.kind != J_NONE) {
        if (jval_write(g->w, v) < 0)
            junav_add(g, key, nkey, "invalid_utf8");
        return;
    }
    gs_jw_null(g->w);
    junav_add(g, key, nkey, why ? why : reason_code(st));
}


/* A member object that reports into the same list; close it with gs_jw_end. */
struct jgrp gs_json_groupn(struct jgrp *top, const char *name, size_t n)
{
    struct jgrp g = {top->w, top->unavail, name, n};

    gs_jw_keyn(top->w, "", 0, name, n);
    gs_jw_obj(top->w);
    return g;
}


/* For json_drm.c (json_int.h): keys and paths are literals. */
void gs_json_int(struct jgrp *g, const char *key, enum gs_status st, int64_t v)
{
    gs_json_putn(g, key, strlen(key), st, NULL, JI(v));
}

void gs_json_bool(struct jgrp *g, const char *key, enum gs_status st, bool v)
{
    gs_json_putn(g, key, strlen(key), st, NULL, JB(v));
}

bool gs_json_key_ok(struct jgrp *g, const char *key, enum gs_status st)
{
    if (st == GS_ST_OK) {
        gs_jw_key(g->w, key);
        return true;
    }
    gs_json_putn(g, key, strlen(key), st, NULL, JNONE);
    return false;
}

struct jgrp gs_json_group(struct jgrp *top, const char *key, const char *path)
{
    struct jgrp g = {top->w, top->unavail, path, strlen(path)};

    gs_jw_key(top->w, key);
    gs_jw_obj(top->w);
    return g;
}

/* ---- the GPU's static facts and sample, grouped -------------------------------------------- */

#define SST(f) ((enum gs_status)s->status[f])
#define TST(f) ((enum gs_status)st->status[f])

static void json_identity(struct jgrp *top, const struct gs_static *st)
{
    struct jgrp g = jgroup(top, "identity");
    char cc[24];

    snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
    jput(&g, "serial", TST(GS_S_SERIAL), JS(st->serial));
    jput(&g, "pci_bus_id", TST(GS_S_PCI), JS(st->pci_bus_id));
    jput(&g, "pci_device_id", TST(GS_S_PCI), JHEX(st->pci_device_id));
    jput(&g, "pci_subsystem_id", TST(GS_S_PCI), JHEX(st->pci_subsystem_id));
    jput(&g, "board_id", TST(GS_S_BOARD_ID), JI(st->board_id));
    jput(&g, "vbios", TST(GS_S_VBIOS), JS(st->vbios));
    jput(&g, "architecture", TST(GS_S_ARCH), JS(st->arch_name[0] ? st->arch_name : gs_arch_name(st->arch)));
    jput(&g, "compute_capability", TST(GS_S_CUDA_CC), JS(cc));
    jput(&g, "brand", TST(GS_S_BRAND), JI(st->brand));
    jput(&g, "minor_number", TST(GS_S_MINOR_NUMBER), JI(st->minor_number));
    gs_jw_end(g.w);
}

static void json_memory(struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp g = jgroup(top, "memory");

    jput(&g, "total_bytes", SST(GS_F_MEM_TOTAL), JI(s->mem_total_bytes));
    jput(&g, "used_bytes", SST(GS_F_MEM_USED), JI(s->mem_used_bytes));
    jput(&g, "free_bytes", SST(GS_F_MEM_FREE), JI(s->mem_free_bytes));
    jput(&g, "reserved_bytes", SST(GS_F_MEM_RESERVED), JI(s->mem_reserved_bytes));
    jput(&g, "bar1_total_bytes", SST(GS_F_BAR1_TOTAL), JI(s->bar1_total_bytes));
    jput(&g, "bar1_used_bytes", SST(GS_F_BAR1_USED), JI(s->bar1_used_bytes));
    jput(&g, "bar1_free_bytes", SST(GS_F_BAR1_FREE), JI(s->bar1_free_bytes));
    gs_jw_end(g.w);
}

static void json_util_temp(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp u = jgroup(top, "utilization");

    jput(&u, "gpu_pct", SST(GS_F_GPU_UTIL), JI(s->gpu_util_pct));
    jput(&u, "memory_pct", SST(GS_F_MEM_UTIL), JI(s->mem_util_pct));
    jput(&u, "encoder_pct", SST(GS_F_ENC_UTIL), JI(s->enc_util_pct));
    jput(&u, "decoder_pct", SST(GS_F_DEC_UTIL), JI(s->dec_util_pct));
    gs_jw_end(u.w);

    struct jgrp t = jgroup(top, "temperature");
    jput(&t, "gpu_c", SST(GS_F_TEMP_GPU), JI(s->temp_gpu_c));
    jput(&t, "memory_c", SST(GS_F_TEMP_MEM), JI(s->temp_mem_c));
    jput(&t, "slowdown_c", TST(GS_S_TEMP_SLOWDOWN), JI(st->temp_slowdown_c));
    jput(&t, "shutdown_c", TST(GS_S_TEMP_SHUTDOWN), JI(st->temp_shutdown_c));
    jput(&t, "gpu_max_c", TST(GS_S_TEMP_GPU_MAX), JI(st->temp_gpu_max_c));
    jput(&t, "memory_max_c", TST(GS_S_TEMP_MEM_MAX), JI(st->temp_mem_max_c));
    gs_jw_end(t.w);
}

static void json_fans(struct jgrp *top, const struct gs_sample *s)
{
    enum gs_status stat = SST(GS_F_FAN_SPEED);

    if (stat == GS_ST_OK && !s->fan_count)
        stat = GS_ST_NOT_AVAILABLE;
    if (stat != GS_ST_OK) {
        jput(top, "fans_pct", stat, JNONE);
        return;
    }
    GS_JW_KEY(top->w, "fans_pct");
    gs_jw_arr(top->w);
    for (uint32_t i = 0; i < s->fan_count && i < GS_MAX_FANS; i++)
        gs_jw_int(top->w, s->fan_speed_pct[i]);
    gs_jw_end(top->w);
}

static void json_power_clocks(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp p = jgroup(top, "power");

    jput(&p, "draw_w", SST(GS_F_POWER), JWATTS(s->power_mw));
    jput(&p, "limit_w", SST(GS_F_POWER_LIMIT), JWATTS(s->power_limit_mw));
    jput(&p, "enforced_limit_w", SST(GS_F_POWER_ENFORCED), JWATTS(s->power_enforced_limit_mw));
    jput(&p, "default_limit_w", TST(GS_S_POWER_DEFAULT), JWATTS(st->power_default_limit_mw));
    jput(&p, "min_limit_w", TST(GS_S_POWER_MINMAX), JWATTS(st->power_min_limit_mw));
    jput(&p, "max_limit_w", TST(GS_S_POWER_MINMAX), JWATTS(st->power_max_limit_mw));
    jput(&p, "energy_mj", SST(GS_F_ENERGY), JI(s->energy_mj));
    gs_jw_end(p.w);

    struct jgrp c = jgroup(top, "clocks");
    jput(&c, "graphics_mhz", SST(GS_F_CLOCK_GRAPHICS), JI(s->clock_graphics_mhz));
    jput(&c, "sm_mhz", SST(GS_F_CLOCK_SM), JI(s->clock_sm_mhz));
    jput(&c, "memory_mhz", SST(GS_F_CLOCK_MEM), JI(s->clock_mem_mhz));
    jput(&c, "video_mhz", SST(GS_F_CLOCK_VIDEO), JI(s->clock_video_mhz));
    jput(&c, "max_graphics_mhz", TST(GS_S_CLOCK_MAX_GRAPHICS), JI(st->clock_max_graphics_mhz));
    jput(&c, "max_sm_mhz", TST(GS_S_CLOCK_MAX_SM), JI(st->clock_max_sm_mhz));
    jput(&c, "max_memory_mhz", TST(GS_S_CLOCK_MAX_MEM), JI(st->clock_max_mem_mhz));
    jput(&c, "max_video_mhz", TST(GS_S_CLOCK_MAX_VIDEO), JI(st->clock_max_video_mhz));
    gs_jw_end(c.w);
    jput(top, "pstate", SST(GS_F_PSTATE), JI(s->pstate));
}

/* nvidia-smi's clocks_event_reasons.* names for the mask bits, as an array. */
static void event_names(struct gs_jw *w, uint64_t mask)
{
    gs_jw_arr(w);
    for (size_t i = 0; i < GS_THROTTLE_NAMES; i++)
        if (mask & gs_throttle_names[i].bit)
            gs_jw_str(w, gs_throttle_names[i].smi);
    gs_jw_end(w);
}

static void json_events_pcie(struct jgrp *top, const struct gs_gpu *d)
{
    const struct gs_sample *s = &d->s;
    const struct gs_static *st = &d->st;
    struct jgrp e = jgroup(top, "clock_event_reasons");

    jput(&e, "active_mask", SST(GS_F_THROTTLE), JI(s->throttle_reasons));
    if (SST(GS_F_THROTTLE) == GS_ST_OK) {
        GS_JW_KEY(e.w, "active");
        event_names(e.w, s->throttle_reasons);
    } else {
        jput(&e, "active", SST(GS_F_THROTTLE), JNONE);
    }
    jput(&e, "supported_mask", TST(GS_S_THROTTLE_SUPPORTED), JI(st->throttle_supported));
    gs_jw_end(e.w);

    struct jgrp p = jgroup(top, "pcie");
    jput(&p, "gen", SST(GS_F_PCIE_GEN), JI(s->pcie_gen));
    jput(&p, "width", SST(GS_F_PCIE_WIDTH), JI(s->pcie_width));
    jput(&p, "max_gen", TST(GS_S_PCIE_MAX_GEN), JI(st->pcie_max_gen));
    jput(&p, "gpu_max_gen", TST(GS_S_PCIE_GPU_MAX_GEN), JI(st->pcie_gpu_max_gen));
    jput(&p, "max_width", TST(GS_S_PCIE_MAX_WIDTH), JI(st->pcie_max_width));
    jput(&p, "tx_kbytes_per_s", SST(GS_F_PCIE_TX), JI(s->pcie_tx_kbps));
    jput(&p, "rx_kbytes_per_s", SST(GS_F_PCIE_RX), JI(s->pcie_rx_kbps));
    jput(&p, "replay_count", SST(GS_F_PCIE_REPLAY), JI(s->pcie_replay_count));
    gs_jw_end(p.w);
}

static void json_ecc(struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp e = jgroup(top, "ecc");

    jput(&e, "mode_current", SST(GS_F_ECC_MODE), JB(s->ecc_mode_current));
    jput(&e, "mode_pending", SST(GS_F_ECC_MODE), JB(s->ecc_mode_pending));
    jput(&e, "volatile_corrected", SST(GS_F_ECC_VOL_CORR), JI(s->ecc_vol_corrected));
    jput(&e, "volatile_uncorrected", SST(GS_F_ECC_VOL_UNCORR), JI(s->ecc_vol_uncorrected));
    jput(&e, "aggregate_corrected", SST(GS_F_ECC_AGG_CORR), JI(s->ecc_agg_corrected));
    jput(&e, "aggregate_uncorrected", SST(GS_F_ECC_AGG_UNCORR), JI(s->ecc_agg_uncorrected));
    gs_jw_end(e.w);

    struct jgrp r = jgroup(top, "retired_pages");
    jput(&r, "single_bit", SST(GS_F_RETIRED_SBE), JI(s->retired_sbe_pages));
    jput(&r, "double_bit", SST(GS_F_RETIRED_DBE), JI(s->retired_dbe_pages));
    jput(&r, "pending", SST(GS_F_RETIRED_PENDING), JB(s->retired_pending));
    gs_jw_end(r.w);

    struct jgrp m = jgroup(top, "remapped_rows");
    jput(&m, "correctable", SST(GS_F_REMAP_CORR), JI(s->remap_corr_rows));
    jput(&m, "uncorrectable", SST(GS_F_REMAP_UNCORR), JI(s->remap_uncorr_rows));
    jput(&m, "pending", SST(GS_F_REMAP_PENDING), JB(s->remap_pending));
    jput(&m, "failure", SST(GS_F_REMAP_FAILED), JB(s->remap_failed));
    gs_jw_end(m.w);
}

/* Xid events through NVML's event API since sampling began (one-shot: none yet). */
static void json_xid(struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp x = jgroup(top, "xid");

    /* No Xid yet: "last" is null with reason not_available (nothing to report, not an error). */
    enum gs_status last = SST(GS_F_XID) == GS_ST_OK && !s->xid_count ? GS_ST_NOT_AVAILABLE : SST(GS_F_XID);

    jput(&x, "count_since_start", SST(GS_F_XID), JI(s->xid_count));
    jput(&x, "last", last, JI(s->xid_last));
    jput(&x, "last_time_unix_ms", last, JI(s->xid_last_ms));
    gs_jw_end(x.w);
}

static const char *compute_mode_name(uint32_t mode)
{
    static const char *const names[] = {"default", "exclusive_thread", "prohibited", "exclusive_process"};
    return mode < sizeof(names) / sizeof(names[0]) ? names[mode] : "unknown";
}

static void json_modes(struct jgrp *top, const struct gs_sample *s)
{
    struct jgrp m = jgroup(top, "modes");

    jput(&m, "persistence", SST(GS_F_PERSISTENCE), JB(s->persistence_mode));
    jput(&m, "compute", SST(GS_F_COMPUTE_MODE), JS(compute_mode_name(s->compute_mode)));
    jput(&m, "mig_current", SST(GS_F_MIG_MODE), JB(s->mig_mode_current));
    jput(&m, "mig_pending", SST(GS_F_MIG_MODE), JB(s->mig_mode_pending));
    jput(&m, "display_active", SST(GS_F_DISPLAY_ACTIVE), JB(s->display_active));
    jput(&m, "display_attached", SST(GS_F_DISPLAY_MODE), JB(s->display_mode));
    gs_jw_end(m.w);
}

/* ---- GPU and snapshot --------------------------------------------------------------------- */

static const char *state_code(uint8_t state)
{
    return state == GS_GPU_LOST ? "lost" : state == GS_GPU_ERROR ? "error" : "ok";
}

static void json_gpu_head(struct jgrp *g, const struct gs_gpu *d)
{
    struct gs_jw *w = g->w;

    GS_JW_KEY(w, "index"); /* a GPU of the fleet: its index on its node, with "host" */
    gs_jw_int(w, gs_static_has(&d->st, GS_S_HOST) ? d->st.host_index : d->st.index);
    if (gs_static_has(&d->st, GS_S_HOST)) {
        GS_JW_KEY(w, "host");
        gs_jw_str(w, d->st.host);
    }
    jput(g, "name", (enum gs_status)d->st.status[GS_S_NAME], JS(d->st.name));
    jput(g, "uuid", (enum gs_status)d->st.status[GS_S_UUID], JS(d->st.uuid));
    jput(g, "vendor", (enum gs_status)d->st.status[GS_S_VENDOR], JS(d->st.vendor));
    jput(g, "driver", (enum gs_status)d->st.status[GS_S_VENDOR], JS(d->st.driver));
    GS_JW_KEY(w, "state");
    gs_jw_str(w, state_code(d->state));
    GS_JW_KEY(w, "error");
    gs_jw_str_or_null(w, d->last_error);
    GS_JW_KEY(w, "lost_since_unix");
    if (d->lost_since)
        gs_jw_int(w, d->lost_since);
    else
        gs_jw_null(w);
}

/* Readings that may be handed on from an earlier tick (the backend's read
 * schedule, the PCIe worker), with their paths in this object. */
static const struct {
    uint8_t field;
    const char *path;
} json_aged[] = {
    { GS_F_BAR1_TOTAL, "memory.bar1_total_bytes" }, { GS_F_BAR1_USED, "memory.bar1_used_bytes" },
    { GS_F_BAR1_FREE, "memory.bar1_free_bytes" }, { GS_F_FAN_SPEED, "fans_pct" },
    { GS_F_POWER_LIMIT, "power.limit_w" }, { GS_F_POWER_ENFORCED, "power.enforced_limit_w" },
    { GS_F_PCIE_GEN, "pcie.gen" }, { GS_F_PCIE_WIDTH, "pcie.width" },
    { GS_F_PCIE_TX, "pcie.tx_kbytes_per_s" }, { GS_F_PCIE_RX, "pcie.rx_kbytes_per_s" },
    { GS_F_PCIE_REPLAY, "pcie.replay_count" }, { GS_F_ECC_MODE, "ecc.mode_current" },
    { GS_F_ECC_VOL_CORR, "ecc.volatile_corrected" }, { GS_F_ECC_VOL_UNCORR, "ecc.volatile_uncorrected" },
    { GS_F_ECC_AGG_CORR, "ecc.aggregate_corrected" }, { GS_F_ECC_AGG_UNCORR, "ecc.aggregate_uncorrected" },
    { GS_F_RETIRED_SBE, "retired_pages.single_bit" }, { GS_F_RETIRED_DBE, "retired_pages.double_bit" },
    { GS_F_RETIRED_PENDING, "retired_pages.pending" }, { GS_F_REMAP_CORR, "remapped_rows.correctable" },
    { GS_F_REMAP_UNCORR, "remapped_rows.uncorrectable" }, { GS_F_REMAP_PENDING, "remapped_rows.pending" },
    { GS_F_REMAP_FAILED, "remapped_rows.failure" }, { GS_F_PERSISTENCE, "modes.persistence" },
    { GS_F_COMPUTE_MODE, "modes.compute" }, { GS_F_MIG_MODE, "modes.mig_current" },
    { GS_F_DISPLAY_ACTIVE, "modes.display_active" }, { GS_F_DISPLAY_MODE, "modes.display_attached" },
    /* AMD: RAS counters are read every few seconds */
    { GS_F_RAS, "drm.ras.uncorrectable" }, { GS_F_RAS_BAD_PAGES, "drm.ras.bad_pages" },
    /* the fleet: every reading comes from the latest scrape, as old as it is */
    { GS_F_GPU_UTIL, "utilization.gpu_pct" }, { GS_F_MEM_UTIL, "utilization.memory_pct" },
    { GS_F_MEM_USED, "memory.used_bytes" }, { GS_F_MEM_FREE, "memory.free_bytes" },
    { GS_F_MEM_TOTAL, "memory.total_bytes" }, { GS_F_TEMP_GPU, "temperature.gpu_c" },
    { GS_F_POWER, "power.draw_w" }, { GS_F_CLOCK_SM, "clocks.sm_mhz" }, { GS_F_THROTTLE, "clock_event_reasons.active_mask" },
};

/* "age_ms": how old each value read before this snapshot is (absent: read in it). */
static void json_ages(struct gs_jw *w, const struct gs_sample *s)
{
    GS_JW_KEY(w, "age_ms");
    gs_jw_obj(w);
    for (size_t i = 0; i < sizeof(json_aged) / sizeof(json_aged[0]); i++) {
        enum gs_field f = (enum gs_field)json_aged[i].field;
        if (gs_sample_has(s, f) && gs_sample_age_ms(s, f)) {
            gs_jw_key(w, json_aged[i].path);
            gs_jw_int(w, gs_sample_age_ms(s, f));
        }
    }
    gs_jw_end(w);
}

static void json_gpu(struct gs_jw *w, struct jlist *l, const struct gs_gpu *d, unsigned flags)
{
    struct jgrp g = {w, l, "", 0};

    l->n = 0;
    gs_jw_obj(w);
    json_gpu_head(&g, d);
    json_identity(&g, &d->st);
    json_memory(&g, &d->s);
    json_util_temp(&g, d);
    json_fans(&g, &d->s);
    json_power_clocks(&g, d);
    json_events_pcie(&g, d);
    json_ecc(&g, &d->s);
    json_xid(&g, &d->s);
    json_modes(&g, &d->s);
    gs_json_profiling(&g, &d->s);
    gs_json_mig_devices(&g, d);
    gs_json_gpu_drm(&g, d);
    if (d->procs_status == GS_ST_OK) {
        GS_JW_KEY(w, "processes");
        gs_jw_arr(w);
        for (uint32_t i = 0; i < d->nprocs; i++)
            gs_json_proc(w, l, d, &d->procs[i], flags);
        gs_jw_end(w);
    } else {
        jput(&g, "processes", (enum gs_status)d->procs_status, JNONE);
    }
    gs_json_unav_write(w, l, 0);
    json_ages(w, &d->s);
    gs_jw_end(w);
}

static void jkey_str_or_null(struct gs_jw *w, const char *key, const char *s)
{
    gs_jw_key(w, key);
    gs_jw_str_or_null(w, s);
}

static void json_system(struct gs_jw *w, const struct gs_sysinfo *sys)
{
    char cuda[24] = "";

    if (sys->cuda_driver_version > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", sys->cuda_driver_version / 1000,
                 sys->cuda_driver_version % 1000 / 10);
    GS_JW_KEY(w, "system");
    gs_jw_obj(w);
    jkey_str_or_null(w, "hostname", sys->hostname);
    jkey_str_or_null(w, "backend", sys->backend);
    jkey_str_or_null(w, "driver_version", sys->driver_version);
    jkey_str_or_null(w, "nvml_version", sys->nvml_version);
    jkey_str_or_null(w, "cuda_driver_version", cuda);
    jkey_str_or_null(w, "library", sys->lib_path);
    GS_JW_KEY(w, "simulated");
    gs_jw_bool(w, sys->simulated);
    jkey_str_or_null(w, "sim_scenario", sys->simulated ? sys->sim_scenario : NULL);
    if (sys->warning[0]) { /* only then: a backend that failed while others found GPUs */
        GS_JW_KEY(w, "warning");
        gs_jw_str(w, sys->warning);
    }
    gs_jw_end(w);
}

/* ISO 8601 UTC with milliseconds: 2026-07-03T22:11:09.763Z */
static void json_time(struct gs_jw *w, const struct timespec *ts)
{
    struct tm tm;
    time_t sec = ts->tv_sec;
    char date[32], buf[48];

    if (!gmtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
        gs_jw_null(w);
        return;
    }
    snprintf(buf, sizeof(buf), "%s.%03ldZ", date, (long)(ts->tv_nsec / 1000000));
    gs_jw_str(w, buf);
}

static void json_events(struct gs_jw *w, const struct gs_snapshot *snap)
{
    static const char *const kinds[] = { [GS_EV_XID] = "xid", [GS_EV_ECC_SBE] = "ecc_corrected",
                                         [GS_EV_ECC_DBE] = "ecc_uncorrected", [GS_EV_OTHER] = "other" };

    GS_JW_KEY(w, "events");
    gs_jw_arr(w);
    for (uint32_t i = 0; i < snap->nevents; i++) {
        const struct gs_event *e = &snap->events[i];
        const char *kind = e->kind < sizeof(kinds) / sizeof(kinds[0]) && kinds[e->kind] ? kinds[e->kind] : "other";
        gs_jw_obj(w);
        GS_JW_KEY(w, "time_unix_ms");
        gs_jw_int(w, (int64_t)e->time_ms);
        GS_JW_KEY(w, "gpu");
        gs_jw_int(w, e->gpu);
        GS_JW_KEY(w, "kind");
        gs_jw_str(w, kind);
        GS_JW_KEY(w, "xid");
        if (e->kind == GS_EV_XID)
            gs_jw_int(w, (int64_t)e->data);
        else
            gs_jw_null(w);
        gs_jw_end(w);
    }
    gs_jw_end(w);
}

/* The whole snapshot object, one value after the other: no tree, so memory
 * stays flat however many processes there are. 0, or -1 (out of memory). */
static int json_snapshot(struct gs_jw *w, const struct gs_snapshot *snap, unsigned flags)
{
    struct jlist l = {0};

    gs_jw_obj(w);
    GS_JW_KEY(w, "schema");
    gs_jw_str(w, GS_JSON_SCHEMA);
    GS_JW_KEY(w, "time");
    json_time(w, &snap->wall);
    GS_JW_KEY(w, "time_unix_ms");
    gs_jw_int(w, (int64_t)snap->wall.tv_sec * 1000 + snap->wall.tv_nsec / 1000000);
    GS_JW_KEY(w, "sample_duration_us");
    gs_jw_int(w, (int64_t)(snap->duration_ns / 1000));
    json_system(w, &snap->sys);
    json_events(w, snap);
    GS_JW_KEY(w, "events_dropped");
    gs_jw_int(w, snap->events_dropped);
    GS_JW_KEY(w, "gpu_count");
    gs_jw_int(w, snap->ngpus);
    GS_JW_KEY(w, "gpus");
    gs_jw_arr(w);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        json_gpu(w, &l, &snap->gpus[i], flags);
    gs_jw_end(w);
    gs_jw_end(w);
    free(l.v);
    return l.failed ? -1 : 0;
}

int gs_json_write(FILE *out, const struct gs_snapshot *snap, bool compact)
{
    struct gs_jw w;
    int rc;

    if (gs_jw_init_file(&w, out, compact) < 0) {
        gs_jw_finish(&w);
        return -GS_E_NOMEM;
    }
    rc = json_snapshot(&w, snap, 0);
    gs_jw_newline(&w);
    if (gs_jw_finish(&w) < 0 || rc < 0 || ferror(out))
        return rc < 0 ? -GS_E_NOMEM : -GS_E_IO;
    return 0;
}

char *gs_json_text(const struct gs_snapshot *snap, bool compact, size_t *len)
{
    return gs_json_text_ex(snap, compact, 0, len);
}

char *gs_json_text_ex(const struct gs_snapshot *snap, bool compact, unsigned flags, size_t *len)
{
    struct gs_jw w;

    if (gs_jw_init_mem(&w, compact) < 0 || json_snapshot(&w, snap, flags) < 0) {
        gs_jw_finish(&w);
        return NULL;
    }
    return gs_jw_take(&w, len);
}
