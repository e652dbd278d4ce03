/* SPDX-License-Identifier: MIT */
/*
 * model.h - gpuscope's vendor-neutral picture of a machine's GPUs.
 *
 * Three kinds of facts, kept apart as nvtop does:
 *   struct gs_static  - read once per GPU (identity, limits, thresholds);
 *   struct gs_sample  - one flat value per GPU per tick;
 *   struct gs_proc    - one per process on a GPU per tick, with host facts.
 * A struct gs_snapshot holds all of them for one instant of the whole machine;
 * it is what every command (query, top, record, serve, doctor) reads.
 *
 * Every reading is a value, "not supported", or an error, never a silent 0:
 * each field has a status byte (enum gs_status), and a bit in a `valid` mask
 * (struct gs_fmask, one bit per GS_F_* field) that is set exactly when the
 * status is GS_ST_OK. A zeroed struct therefore means "nothing supported",
 * which is what a missing NVML symbol should give.
 * Units live in the field names (_mib, _mw, _mhz, _pct, _c, _bytes, _kbps).
 */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Why a field holds (or lacks) a value. Zero is "not supported" on purpose. */
enum gs_status {
    GS_ST_NOT_SUPPORTED = 0, /* the GPU, driver or library cannot give it */
    GS_ST_OK = 1,            /* value present */
    GS_ST_NO_PERMISSION = 2, /* needs privilege we lack */
    GS_ST_GPU_LOST = 3,      /* the GPU fell off the bus */
    GS_ST_NOT_AVAILABLE = 4, /* supported, but no value right now (N/A sentinel, no sample yet) */
    GS_ST_NOT_SAMPLED = 5,   /* deliberately skipped this tick (slow field not requested) */
    GS_ST_ERROR = 6,         /* any other error; see gs_gpu.last_error */
    GS_ST_DEPRECATED = 7,    /* the driver deprecated the call (NVML_ERROR_DEPRECATED) */
    GS_ST_COUNT
};
/* "Not Supported", "Insufficient Permissions", ... (nvidia-smi spellings). */
const char *gs_status_name(enum gs_status st);

/* ---- per-tick fields ------------------------------------------------------------ */
enum gs_field {
    GS_F_MEM_TOTAL,        /* mem_total_bytes */
    GS_F_MEM_USED,         /* mem_used_bytes (excludes reserved when memory info v2 is bound) */
    GS_F_MEM_FREE,         /* mem_free_bytes */
    GS_F_MEM_RESERVED,     /* mem_reserved_bytes (v2 only) */
    GS_F_BAR1_TOTAL,
    GS_F_BAR1_USED,
    GS_F_BAR1_FREE,
    GS_F_GPU_UTIL,         /* gpu_util_pct */
    GS_F_MEM_UTIL,         /* mem_util_pct (memory bandwidth busy) */
    GS_F_ENC_UTIL,
    GS_F_DEC_UTIL,
    GS_F_TEMP_GPU,         /* temp_gpu_c */
    GS_F_TEMP_MEM,         /* temp_mem_c (HBM) */
    GS_F_FAN_SPEED,        /* fan_speed_pct[0..fan_count) */
    GS_F_POWER,            /* power_mw */
    GS_F_POWER_LIMIT,      /* power_limit_mw (configured) */
    GS_F_POWER_ENFORCED,   /* power_enforced_limit_mw */
    GS_F_ENERGY,           /* energy_mj since driver load */
    GS_F_CLOCK_GRAPHICS,   /* clock_graphics_mhz */
    GS_F_CLOCK_SM,
    GS_F_CLOCK_MEM,
    GS_F_CLOCK_VIDEO,
    GS_F_PSTATE,           /* pstate: 0..15 */
    GS_F_THROTTLE,         /* throttle_reasons: NVML clock-event bit mask */
    GS_F_PCIE_GEN,         /* pcie_gen current */
    GS_F_PCIE_WIDTH,       /* pcie_width current */
    GS_F_PCIE_TX,          /* pcie_tx_kbps (slow: ~20 ms per call on hardware) */
    GS_F_PCIE_RX,          /* pcie_rx_kbps (slow) */
    GS_F_PCIE_REPLAY,      /* pcie_replay_count (cumulative) */
    GS_F_ECC_MODE,         /* ecc_mode_current, ecc_mode_pending (0/1) */
    GS_F_ECC_VOL_CORR,     /* ecc_vol_corrected */
    GS_F_ECC_VOL_UNCORR,
    GS_F_ECC_AGG_CORR,
    GS_F_ECC_AGG_UNCORR,
    GS_F_RETIRED_SBE,      /* retired_sbe_pages */
    GS_F_RETIRED_DBE,
    GS_F_RETIRED_PENDING,  /* retired_pending (0/1) */
    GS_F_REMAP_CORR,       /* remap_corr_rows */
    GS_F_REMAP_UNCORR,
    GS_F_REMAP_PENDING,    /* remap_pending (0/1) */
    GS_F_REMAP_FAILED,     /* remap_failed (0/1) */
    GS_F_PERSISTENCE,      /* persistence_mode (0/1) */
    GS_F_COMPUTE_MODE,     /* compute_mode: NVML's 0 default, 2 prohibited, 3 exclusive process */
    GS_F_MIG_MODE,         /* mig_mode_current, mig_mode_pending */
    GS_F_DISPLAY_ACTIVE,   /* display_active (0/1) */
    GS_F_DISPLAY_MODE,     /* display_mode (0/1): a display is connected */
    GS_F_XID,              /* xid_count, xid_last, xid_last_ms: Xid events since sampling began */
    /* New fields are added at the end of a group below (one group per area, so
     * that work on different areas does not touch the same lines). Nothing
     * stores these numbers: the recorder and the exporter map fields by name. */
    /* -- more NVML readings (query fidelity) -- */
    GS_F_POWER_AVG,        /* power_avg_mw: 1 s average (field 185; Ampere+ except GA100) */
    GS_F_POWER_INSTANT,    /* power_instant_mw (field 186) */
    GS_F_JPG_UTIL,         /* jpg_util_pct */
    GS_F_OFA_UTIL,         /* ofa_util_pct */
    GS_F_ENC_STATS,        /* enc_sessions, enc_avg_fps, enc_avg_latency_us */
    GS_F_TEMP_TLIMIT,      /* temp_tlimit_c: margin to the slowdown limit (nvmlDeviceGetMarginTemperature) */
    GS_F_ECC_DETAIL,       /* ecc_loc[][][], ecc_loc_ok: errors per memory location */
    GS_F_SRAM_ECC,         /* sram_*: SRAM error status (nvmlDeviceGetSramEccErrorStatus) */
    GS_F_REMAP_HIST,       /* remap_hist[5]: banks by remaining remap headroom */
    GS_F_ACCOUNTING,       /* accounting_mode (0/1) */
    GS_F_PROT_MEM,         /* prot_mem_{total,used,free}_bytes (confidential computing) */
    GS_F_RECOVERY,         /* recovery_action: NVML's gpu recovery action (field 230) */
    GS_F_EDPP,             /* edpp_pct: EDPp multiplier (field 274) */
    GS_F_APP_CLOCKS,       /* app_clock_{graphics,mem}_mhz */
    GS_F_DEF_APP_CLOCKS,   /* def_app_clock_{graphics,mem}_mhz */
    GS_F_POWER_MGMT,       /* power_mgmt (0/1): power management mode */
    GS_F_RESET_STATUS,     /* reset_required, drain_and_reset_recommended (fields 226, 227; R535-R570) */
    GS_F_FABRIC,           /* fabric_*: NVLink fabric registration (nvmlDeviceGetGpuFabricInfoV) */
    GS_F_PCIE_ROLLOVER,    /* pcie_replay_rollovers: PCIe replay counter rollovers (field 95) */
    GS_F_PCIE_ATOMICS_OUT, /* pcie_atomics_out: NVML_PCIE_ATOMICS_CAP_* mask, outbound (field 228, R580+) */
    GS_F_PCIE_ATOMICS_IN,  /* pcie_atomics_in: ... inbound (field 229) */
    GS_F_POWER_MEM_AVG,    /* power_mem_avg_mw: memory power, 1 s average (field 185, scope memory) */
    /* -- profiling (GPM) and MIG -- */
    GS_F_PROF_GR_ENGINE,   /* prof[GS_PROF_GR_ENGINE] ... : dcgm-exporter's DCGM_FI_PROF_* fields from */
    GS_F_PROF_SM_ACTIVE,   /* NVML GPM, one field per enum gs_prof in its order (ratios 0..1, then */
    GS_F_PROF_SM_OCCUPANCY, /* bytes/s); "not available" until two GPM samples span an interval */
    GS_F_PROF_TENSOR,
    GS_F_PROF_DRAM,
    GS_F_PROF_FP64,
    GS_F_PROF_FP32,
    GS_F_PROF_FP16,
    GS_F_PROF_PCIE_TX,
    GS_F_PROF_PCIE_RX,
    GS_F_PROF_NVLINK_TX,
    GS_F_PROF_NVLINK_RX,
    GS_F_MIG_DEVICES,      /* gs_gpu.mig[0..nmig): MIG devices with their memory and profiling */
    /* -- throttle time, NVLink and health counters -- */
    GS_F_VIOL_POWER,       /* violation_ns[GS_VIOL_POWER]: time held below app clocks by power (SW power cap) */
    GS_F_VIOL_THERMAL,     /* ... by SW thermal slowdown (NVML's THERMAL policy, field 269) */
    GS_F_VIOL_SYNC_BOOST,  /* ... by sync boost */
    GS_F_VIOL_BOARD_LIMIT, /* ... by the board limit */
    GS_F_VIOL_LOW_UTIL,    /* ... by low utilization */
    GS_F_VIOL_RELIABILITY, /* ... by the board reliability limit */
    GS_F_VIOL_HW_THERMAL,  /* ... by HW thermal slowdown (field 270, R575+) */
    GS_F_VIOL_HW_POWER_BRAKE, /* ... by HW power brake slowdown (field 271, R575+) */
    GS_F_NVLINK_STATE,     /* nvlink_count links present, nvlink_down_mask (bit per inactive link) */
    GS_F_NVLINK_ERRORS,    /* nvlink_crc_flit, nvlink_crc_data, nvlink_replay, nvlink_recovery: sums over links */
    /* -- other vendors (AMD, Intel) -- */
    GS_F_MEM_GTT,          /* gtt_total_bytes, gtt_used_bytes: system memory mapped for the GPU (AMD GTT) */
    GS_F_MEM_VIS,          /* vis_vram_total_bytes, vis_vram_used_bytes: CPU-visible VRAM (AMD) */
    GS_F_TEMP_JUNCTION,    /* temp_junction_c: the hottest spot of the die (AMD junction/hotspot) */
    GS_F_FAN_RPM,          /* fan_rpm */
    GS_F_VOLTAGE_GFX,      /* voltage_gfx_mv: graphics core voltage */
    GS_F_CLOCK_GRAPHICS_REQ, /* clock_graphics_req_mhz: the graphics clock the driver requested (Intel) */
    GS_F_RC6,              /* rc6_pct: share of the last interval the GT spent in RC6 (Intel idle) */
    GS_F_ENGINE_UTIL,      /* engine_util_pct[0..gs_static.engine_count): busy per engine class (DRM fdinfo) */
    GS_F_RAS,              /* ras_ue_count, ras_ce_count: RAS errors over all blocks since driver load (AMD) */
    GS_F_RAS_BAD_PAGES,    /* ras_bad_pages: VRAM pages retired after uncorrectable errors (AMD) */
    GS_F_THROTTLE_VENDOR,  /* throttle_vendor: the driver's own throttle bits (amdgpu indep_throttle_status,
                            * Intel throttle_reason_* as GS_INTEL_THROTTLE_*), mapped into throttle_reasons */
    GS_F_COUNT
};

/* Profiling metrics (NVML GPM, Hopper and later), as dcgm-exporter names them
 * (DCGM_FI_PROF_<name>): activity ratios 0..1 over the interval between two
 * samples, then throughputs in bytes per second. GS_F_PROF_FIRST + k is the
 * field of metric k. Names and units: gs_prof_info(). */
enum gs_prof {
    GS_PROF_GR_ENGINE,     /* GR_ENGINE_ACTIVE: a graphics or compute engine was busy */
    GS_PROF_SM_ACTIVE,     /* SM_ACTIVE: at least one warp resident on an SM, averaged over SMs */
    GS_PROF_SM_OCCUPANCY,  /* SM_OCCUPANCY: resident warps / maximum, averaged over SMs */
    GS_PROF_TENSOR,        /* PIPE_TENSOR_ACTIVE: a tensor pipe was busy */
    GS_PROF_DRAM,          /* DRAM_ACTIVE: the memory interface was sending or receiving */
    GS_PROF_FP64,          /* PIPE_FP64_ACTIVE */
    GS_PROF_FP32,          /* PIPE_FP32_ACTIVE */
    GS_PROF_FP16,          /* PIPE_FP16_ACTIVE */
    GS_PROF_PCIE_TX,       /* PCIE_TX_BYTES: bytes/s sent over PCIe (headers included) */
    GS_PROF_PCIE_RX,       /* PCIE_RX_BYTES */
    GS_PROF_NVLINK_TX,     /* NVLINK_TX_BYTES: bytes/s over all NVLinks */
    GS_PROF_NVLINK_RX,     /* NVLINK_RX_BYTES */
    GS_PROF_COUNT
};
#define GS_F_PROF_FIRST GS_F_PROF_GR_ENGINE
#define GS_PROF_FIRST_RATE GS_PROF_PCIE_TX /* metrics from here on are bytes/s, before it ratios */
_Static_assert(GS_F_PROF_NVLINK_RX - GS_F_PROF_FIRST + 1 == GS_PROF_COUNT, "one field per metric");

/* A set of GS_F_* fields: the `valid` mask of a sample, what a command wants
 * read, what a backend cannot read. Passed by value (16 bytes). */
#define GS_F_MAX 128
_Static_assert(GS_F_COUNT <= GS_F_MAX, "sample fields must fit struct gs_fmask");
struct gs_fmask {
    uint64_t w[GS_F_MAX / 64];
};
#define GS_FMASK_NONE ((struct gs_fmask){ { 0 } })

static inline bool gs_fmask_has(struct gs_fmask m, unsigned f)
{
    return f < GS_F_MAX && (m.w[f / 64] >> (f % 64)) & 1u;
}
static inline void gs_fmask_set(struct gs_fmask *m, unsigned f)
{
    if (f < GS_F_MAX)
        m->w[f / 64] |= UINT64_C(1) << (f % 64);
}
static inline void gs_fmask_clear(struct gs_fmask *m, unsigned f)
{
    if (f < GS_F_MAX)
        m->w[f / 64] &= ~(UINT64_C(1) << (f % 64));
}
static inline struct gs_fmask gs_fmask_of(unsigned f)
{
    struct gs_fmask m = GS_FMASK_NONE;
    gs_fmask_set(&m, f);
    return m;
}
/* Every field the model knows (bits 0 .. GS_F_COUNT-1). */
static inline struct gs_fmask gs_fmask_all(void)
{
    struct gs_fmask m = GS_FMASK_NONE;
    for (unsigned f = 0; f < GS_F_COUNT; f++)
        gs_fmask_set(&m, f);
    return m;
}
static inline struct gs_fmask gs_fmask_or(struct gs_fmask a, struct gs_fmask b)
{
    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        a.w[i] |= b.w[i];
    return a;
}
static inline struct gs_fmask gs_fmask_and(struct gs_fmask a, struct gs_fmask b)
{
    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        a.w[i] &= b.w[i];
    return a;
}
/* a without the fields of b */
static inline struct gs_fmask gs_fmask_minus(struct gs_fmask a, struct gs_fmask b)
{
    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        a.w[i] &= ~b.w[i];
    return a;
}
static inline bool gs_fmask_any(struct gs_fmask m)
{
    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        if (m.w[i])
            return true;
    return false;
}
static inline bool gs_fmask_eq(struct gs_fmask a, struct gs_fmask b)
{
    for (unsigned i = 0; i < GS_F_MAX / 64; i++)
        if (a.w[i] != b.w[i])
            return false;
    return true;
}
/* for (unsigned f = gs_fmask_next(m, 0); f < GS_F_MAX; f = gs_fmask_next(m, f + 1)) */
static inline unsigned gs_fmask_next(struct gs_fmask m, unsigned from)
{
    for (unsigned f = from; f < GS_F_MAX; f++) {
        uint64_t w = m.w[f / 64] >> (f % 64);
        if (w)
            return f + (unsigned)__builtin_ctzll(w);
        f |= 63; /* rest of this word is empty */
    }
    return GS_F_MAX;
}
/* The readings only nvidia-smi's outputs print (query fidelity group): a
 * command that wants "everything" (JSON, top, serve, record) gets
 * gs_fmask_default() and does not pay for them; CSV fields and `smi` ask. */
static inline struct gs_fmask gs_fmask_fidelity(void)
{
    struct gs_fmask m = GS_FMASK_NONE;
    for (unsigned f = GS_F_POWER_AVG; f <= GS_F_POWER_MEM_AVG; f++)
        gs_fmask_set(&m, f);
    return m;
}
static inline struct gs_fmask gs_fmask_default(void)
{
    return gs_fmask_minus(gs_fmask_all(), gs_fmask_fidelity());
}
#define GS_FMASK_FOREACH(f, m) for (unsigned f = gs_fmask_next((m), 0); f < GS_F_MAX; f = gs_fmask_next((m), f + 1))

#define GS_MAX_FANS 8
/* ECC memory locations, NVML's numbering: L1, L2, device memory, register
 * file, texture memory, texture shared memory, CBU, SRAM. */
#define GS_ECC_LOCS 8
#define GS_MAX_ENGINES 8     /* engine classes of one GPU (DRM fdinfo drm-engine-*) */
#define GS_ENGINE_NAME 16

struct gs_sample {
    struct gs_fmask valid;               /* bit GS_F_x set iff status[x] == GS_ST_OK */
    uint8_t status[GS_F_COUNT];          /* enum gs_status per field */
    uint64_t timestamp_ns;               /* CLOCK_MONOTONIC when this GPU was sampled */
    uint64_t mem_total_bytes;
    uint64_t mem_used_bytes;
    uint64_t mem_free_bytes;
    uint64_t mem_reserved_bytes;
    uint64_t bar1_total_bytes;
    uint64_t bar1_used_bytes;
    uint64_t bar1_free_bytes;
    uint32_t gpu_util_pct;
    uint32_t mem_util_pct;
    uint32_t enc_util_pct;
    uint32_t dec_util_pct;
    int32_t temp_gpu_c;
    int32_t temp_mem_c;
    uint32_t fan_count;                  /* entries of fan_speed_pct in use */
    uint32_t fan_speed_pct[GS_MAX_FANS]; /* may exceed 100 (intended speed) */
    uint32_t power_mw;
    uint32_t power_limit_mw;
    uint32_t power_enforced_limit_mw;
    uint64_t energy_mj;
    uint32_t clock_graphics_mhz;
    uint32_t clock_sm_mhz;
    uint32_t clock_mem_mhz;
    uint32_t clock_video_mhz;
    uint32_t pstate;
    uint64_t throttle_reasons;           /* GS_THROTTLE_* bits (same values as NVML's) */
    uint32_t pcie_gen;
    uint32_t pcie_width;
    uint32_t pcie_tx_kbps;
    uint32_t pcie_rx_kbps;
    uint64_t pcie_rate_age_ns;           /* how old the cached PCIe TX/RX values are */
    uint32_t pcie_replay_count;
    uint32_t ecc_mode_current;
    uint32_t ecc_mode_pending;
    uint64_t ecc_vol_corrected;
    uint64_t ecc_vol_uncorrected;
    uint64_t ecc_agg_corrected;
    uint64_t ecc_agg_uncorrected;
    uint32_t retired_sbe_pages;
    uint32_t retired_dbe_pages;
    uint32_t retired_pending;
    uint32_t remap_corr_rows;
    uint32_t remap_uncorr_rows;
    uint32_t remap_pending;
    uint32_t remap_failed;
    uint32_t persistence_mode;
    uint32_t compute_mode;
    uint32_t mig_mode_current;
    uint32_t mig_mode_pending;
    uint32_t display_active;
    uint32_t display_mode;
    uint64_t xid_count;                  /* Xid events seen on this GPU since the sampler opened */
    uint32_t xid_last;                   /* the latest Xid code (0 before the first) */
    int64_t xid_last_ms;                 /* when it arrived, ms since the epoch (0 before the first) */
    /* How old each value is at timestamp_ns, in ms: 0 when it was read in this
     * very tick, more when the backend's read schedule (slow-changing readings,
     * read every few seconds and at once on an ECC or Xid event) or the
     * slow-field worker (PCIe TX/RX) handed on the value it read earlier.
     * Meaningful only where status is GS_ST_OK. */
    uint32_t age_ms[GS_F_COUNT];
    /* New members go at the end of their area's group (see enum gs_field). */
    /* -- more NVML readings (query fidelity) -- */
    uint32_t power_avg_mw;
    uint32_t power_instant_mw;
    uint32_t jpg_util_pct;
    uint32_t ofa_util_pct;
    uint32_t enc_sessions;
    uint32_t enc_avg_fps;
    uint32_t enc_avg_latency_us;
    int32_t temp_tlimit_c;
    uint64_t ecc_loc[2][2][GS_ECC_LOCS]; /* [corrected, uncorrected][volatile, aggregate][location] */
    uint32_t ecc_loc_ok;                 /* bit (type*2 + counter)*GS_ECC_LOCS + loc: entry has a value */
    uint64_t sram_vol_parity, sram_vol_secded, sram_agg_parity, sram_agg_secded;
    uint64_t sram_l2, sram_sm, sram_mcu, sram_pcie, sram_other;
    uint32_t sram_threshold_exceeded;
    uint32_t remap_hist[5];              /* max, high, partial, low, none */
    uint32_t accounting_mode;
    uint64_t prot_mem_total_bytes, prot_mem_used_bytes, prot_mem_free_bytes;
    uint32_t recovery_action;            /* 0 none, 1 reset, 2 reboot, 3 drain P2P, 4 drain and reset */
    uint32_t edpp_pct;
    uint32_t app_clock_graphics_mhz, app_clock_mem_mhz;
    uint32_t def_app_clock_graphics_mhz, def_app_clock_mem_mhz;
    uint32_t power_mgmt;
    uint32_t reset_required, drain_and_reset_recommended;
    uint32_t fabric_state;               /* NVML_GPU_FABRIC_STATE_*: 1 not started, 2 in progress, 3 completed */
    int32_t fabric_status;               /* nvmlReturn_t of the probe */
    uint32_t fabric_clique;
    uint8_t fabric_cluster_uuid[16];
    uint32_t fabric_health_mask;
    uint32_t fabric_health_summary;      /* 0 not supported, 1 healthy, 2 unhealthy, 3 limited capacity */
    uint32_t pcie_replay_rollovers;
    uint32_t pcie_atomics_out, pcie_atomics_in; /* NVML_PCIE_ATOMICS_CAP_* bits */
    uint32_t power_mem_avg_mw;
    /* -- profiling (GPM) and MIG -- */
    double prof[GS_PROF_COUNT];          /* enum gs_prof: ratios 0..1, then bytes/s */
    uint64_t prof_interval_ns;           /* the span between the two GPM samples behind prof[] */
    /* -- throttle time, NVLink and health counters -- */
    uint64_t violation_ns[8];            /* cumulative ns held below clocks per enum gs_viol (GS_F_VIOL_*) */
    uint32_t nvlink_count;               /* NVLinks present (GS_F_NVLINK_STATE) */
    uint64_t nvlink_down_mask;           /* bit per link that is not active */
    uint64_t nvlink_crc_flit;            /* GS_F_NVLINK_ERRORS: data-link error counters, summed over links */
    uint64_t nvlink_crc_data;
    uint64_t nvlink_replay;
    uint64_t nvlink_recovery;
    /* -- other vendors (AMD, Intel) -- */
    uint64_t gtt_total_bytes;
    uint64_t gtt_used_bytes;
    uint64_t vis_vram_total_bytes;
    uint64_t vis_vram_used_bytes;
    int32_t temp_junction_c;
    uint32_t fan_rpm;
    uint32_t voltage_gfx_mv;
    uint32_t clock_graphics_req_mhz;
    uint32_t rc6_pct;
    uint32_t engine_util_pct[GS_MAX_ENGINES]; /* capacity-normalized: 100 = every engine of the class busy */
    uint64_t ras_ue_count;
    uint64_t ras_ce_count;
    uint32_t ras_bad_pages;
    uint64_t throttle_vendor;
};

/* Violation (throttle-time) counters: index into gs_sample.violation_ns; field GS_F_VIOL_POWER + i. */
enum gs_viol {
    GS_VIOL_POWER, GS_VIOL_THERMAL, GS_VIOL_SYNC_BOOST, GS_VIOL_BOARD_LIMIT, GS_VIOL_LOW_UTIL,
    GS_VIOL_RELIABILITY, GS_VIOL_HW_THERMAL, GS_VIOL_HW_POWER_BRAKE, GS_VIOL_COUNT
};
_Static_assert(GS_VIOL_COUNT == 8, "violation_ns has 8 entries");
_Static_assert(GS_F_VIOL_HW_POWER_BRAKE - GS_F_VIOL_POWER == GS_VIOL_HW_POWER_BRAKE, "GS_F_VIOL_* follow enum gs_viol");
/* "power", "thermal", "sync_boost", "board_limit", "low_util", "reliability", "hw_thermal", "hw_power_brake" */
const char *gs_viol_name(enum gs_viol v);

/* Throttle (clock event) reason bits: NVML's values, named for people. */
#define GS_THROTTLE_GPU_IDLE 0x1ull
#define GS_THROTTLE_APP_CLOCKS 0x2ull
#define GS_THROTTLE_SW_POWER_CAP 0x4ull
#define GS_THROTTLE_HW_SLOWDOWN 0x8ull
#define GS_THROTTLE_SYNC_BOOST 0x10ull
#define GS_THROTTLE_SW_THERMAL 0x20ull
#define GS_THROTTLE_HW_THERMAL 0x40ull
#define GS_THROTTLE_HW_POWER_BRAKE 0x80ull
#define GS_THROTTLE_DISPLAY_CLOCK 0x100ull

/* ---- static facts (read once) ------------------------------------------------- */
enum gs_sfield {
    GS_S_NAME,
    GS_S_UUID,
    GS_S_SERIAL,
    GS_S_PCI,            /* pci_bus_id, pci_device_id, pci_subsystem_id, pci domain/bus/device */
    GS_S_BOARD_ID,
    GS_S_VBIOS,
    GS_S_ARCH,           /* arch (NVML numbering), arch_name */
    GS_S_CUDA_CC,        /* cc_major, cc_minor */
    GS_S_BRAND,
    GS_S_MINOR_NUMBER,
    GS_S_TEMP_SHUTDOWN,  /* temp_shutdown_c */
    GS_S_TEMP_SLOWDOWN,  /* temp_slowdown_c */
    GS_S_TEMP_GPU_MAX,   /* temp_gpu_max_c */
    GS_S_TEMP_MEM_MAX,   /* temp_mem_max_c */
    GS_S_POWER_DEFAULT,  /* power_default_limit_mw */
    GS_S_POWER_MINMAX,   /* power_min_limit_mw, power_max_limit_mw */
    GS_S_CLOCK_MAX_GRAPHICS,
    GS_S_CLOCK_MAX_SM,
    GS_S_CLOCK_MAX_MEM,
    GS_S_CLOCK_MAX_VIDEO,
    GS_S_PCIE_MAX_GEN,   /* pcie_max_gen (device and slot) */
    GS_S_PCIE_GPU_MAX_GEN,
    GS_S_PCIE_MAX_WIDTH,
    GS_S_FAN_COUNT,
    GS_S_THROTTLE_SUPPORTED, /* throttle_supported mask */
    /* -- more NVML readings (query fidelity) -- */
    GS_S_PCI_CLASS,      /* pci_base_class, pci_sub_class (nvmlDeviceGetPciInfoExt) */
    GS_S_INFOROM_IMG,    /* inforom_img */
    GS_S_INFOROM_OEM,    /* inforom_oem */
    GS_S_INFOROM_ECC,    /* inforom_ecc */
    GS_S_INFOROM_PWR,    /* inforom_pwr */
    GS_S_INFOROM_VALID,  /* inforom_valid (0/1): checksum validation */
    GS_S_GSP_MODE,       /* gsp_mode_current, gsp_mode_default */
    GS_S_ADDRESSING,     /* addressing_mode: 0 none, 1 HMM, 2 ATS */
    GS_S_ACCT_BUFFER,    /* acct_buffer_size */
    GS_S_BOARD_PART,     /* board_part (board part number) */
    GS_S_VIRT_MODE,      /* virt_mode (NVML's nvmlGpuVirtualizationMode_t) */
    GS_S_PCIE_HOST_MAX,  /* pcie_host_max_gen: the slot's max generation (sysfs) */
    GS_S_C2C_MODE,       /* c2c_enabled */
    GS_S_PLATFORM,       /* platform_*: rack position (nvmlDeviceGetPlatformInfo) */
    GS_S_PDI,            /* pdi: per-device identifier (nvmlDeviceGetPdi, R580+) */
    /* -- profiling (GPM) and MIG -- */
    /* -- throttle time, NVLink and health counters -- */
    GS_S_FAN_MINMAX,     /* fan_min_pct, fan_max_pct: the range the fan controller may set */
    /* -- other vendors (AMD, Intel) -- */
    GS_S_VENDOR,         /* vendor ("NVIDIA", "AMD", "Intel"), driver ("nvidia", "amdgpu", "i915", "xe") */
    GS_S_INTEGRATED,     /* integrated (0/1): an iGPU sharing system memory */
    GS_S_ENGINES,        /* engine_count, engine_name[]: the engine classes engine_util_pct reports */
    GS_S_TEMP_CRIT,      /* temp_crit_c (edge; = temp_slowdown_c), temp_junction_crit_c, temp_mem_crit_c:
                          * hwmon's tempN_crit; 0 where that sensor has none */
    GS_S_TEMP_EMERG,     /* temp_emerg_c, temp_junction_emerg_c, temp_mem_emerg_c: tempN_emergency */
    GS_S_CLOCK_MIN_GRAPHICS, /* clock_min_graphics_mhz: lowest graphics clock (Intel RPn, AMD DPM level 0) */
    GS_S_FAN_RPM_RANGE,  /* fan_min_rpm, fan_max_rpm */
    /* -- the fleet (GPUs read from Prometheus, docs/FLEET.md) -- */
    GS_S_HOST,           /* host, host_index: the node the GPU is in, and its index there */
    GS_S_COUNT
};
_Static_assert(GS_S_COUNT <= 64, "static fields must fit the 64-bit valid mask");

struct gs_static {
    uint64_t valid;                 /* bit (1 << GS_S_x) set iff status[x] == GS_ST_OK */
    uint8_t status[GS_S_COUNT];
    uint32_t index;                 /* the backend's index (NVML index) */
    char name[96];
    char uuid[96];
    char serial[32];
    char pci_bus_id[32];            /* "00000000:3B:00.0", upper case as nvidia-smi prints */
    uint32_t pci_domain, pci_bus, pci_device;
    uint32_t pci_device_id;         /* (device << 16) | vendor */
    uint32_t pci_subsystem_id;
    uint32_t board_id;
    char vbios[32];
    uint32_t arch;                  /* NVML numbering: 7 Ampere, 9 Hopper, ... */
    char arch_name[16];             /* "Hopper" */
    int32_t cc_major, cc_minor;     /* CUDA compute capability */
    uint32_t brand;
    uint32_t minor_number;          /* N in /dev/nvidiaN */
    int32_t temp_shutdown_c;
    int32_t temp_slowdown_c;
    int32_t temp_gpu_max_c;
    int32_t temp_mem_max_c;
    uint32_t power_default_limit_mw;
    uint32_t power_min_limit_mw;
    uint32_t power_max_limit_mw;
    uint32_t clock_max_graphics_mhz;
    uint32_t clock_max_sm_mhz;
    uint32_t clock_max_mem_mhz;
    uint32_t clock_max_video_mhz;
    uint32_t pcie_max_gen;
    uint32_t pcie_gpu_max_gen;
    uint32_t pcie_max_width;
    uint32_t fan_count;
    uint64_t throttle_supported;
    /* -- more NVML readings (query fidelity) -- */
    uint32_t pci_base_class, pci_sub_class;
    char inforom_img[32];
    char inforom_oem[16];
    char inforom_ecc[16];
    char inforom_pwr[16];
    uint32_t inforom_valid;
    uint32_t gsp_mode_current, gsp_mode_default;
    uint32_t addressing_mode;
    uint32_t acct_buffer_size;
    char board_part[80];
    uint32_t virt_mode;
    uint32_t pcie_host_max_gen;
    uint32_t c2c_enabled;
    char platform_chassis_serial[17];
    uint32_t platform_slot, platform_tray, platform_host_id, platform_peer_type, platform_module_id;
    uint64_t platform_guid;              /* the first 8 bytes of the InfiniBand GUID, big-endian */
    uint64_t pdi;
    /* -- profiling (GPM) and MIG -- */
    /* -- throttle time, NVLink and health counters -- */
    uint32_t fan_min_pct, fan_max_pct;
    /* -- other vendors (AMD, Intel) -- */
    char vendor[16];
    char driver[16];
    uint32_t integrated;
    uint32_t engine_count;
    char engine_name[GS_MAX_ENGINES][GS_ENGINE_NAME]; /* "gfx", "compute", "render", "video", ... */
    int32_t temp_crit_c, temp_junction_crit_c, temp_mem_crit_c;
    int32_t temp_emerg_c, temp_junction_emerg_c, temp_mem_emerg_c;
    uint32_t clock_min_graphics_mhz;
    uint32_t fan_min_rpm, fan_max_rpm;
    /* -- the fleet (GPUs read from Prometheus) -- */
    char host[64];                  /* the node: its Hostname label, else the scrape target (instance) */
    uint32_t host_index;            /* the GPU's index on that node (the gpu label); index stays fleet-wide */
};

/* ---- processes ---------------------------------------------------------------- */
enum gs_proc_type {
    GS_PROC_COMPUTE = 1 << 0,
    GS_PROC_GRAPHICS = 1 << 1,
    GS_PROC_MPS = 1 << 2,
};

/* Process fields with a validity bit (the identity fields pid/type always are). */
enum gs_pfield {
    GS_P_GPU_MEM,      /* gpu_mem_bytes */
    GS_P_SM_UTIL,      /* sm_util_pct ... from per-process utilization samples */
    GS_P_MEM_UTIL,
    GS_P_ENC_UTIL,
    GS_P_DEC_UTIL,
    GS_P_USER,         /* uid, user */
    GS_P_COMM,         /* comm, cmdline */
    GS_P_CPU,          /* cpu_pct (needs two ticks) */
    GS_P_RSS,          /* rss_bytes */
    GS_P_START,        /* start_time (epoch s), age_s */
    GS_P_PARENT,       /* ppid, pgid */
    GS_P_CONTAINER,    /* container_id (and container_runtime) */
    GS_P_POD,          /* pod_uid */
    GS_P_NAME,         /* name: as the driver reports it */
    /* -- query fidelity -- */
    GS_P_CPU_TIME,     /* cpu_time_ns: CPU time used since the process started (ps's %CPU base) */
    /* -- MIG and pods -- */
    GS_P_MIG,          /* gpu_instance_id, compute_instance_id, mig_index: the MIG device it runs in */
    /* -- framework memory (PyTorch allocator) -- */
    GS_P_PYHOOK,       /* pyhook_state, pyhook_age_ms: the gpuscope Python hook answers (core/pyhook.h) */
    GS_P_TORCH,        /* torch_*: PyTorch's CUDA caching allocator on this GPU, from the hook */
    /* -- other vendors (DRM fdinfo) -- */
    GS_P_ENGINE_UTIL,  /* engine_util_pct[]: busy per engine class of the GPU (needs two ticks) */
    GS_P_GTT_MEM,      /* gtt_mem_bytes: buffers in system memory (GTT / system regions) */
    GS_P_DRM_CLIENTS,  /* drm_clients: open DRM files (clients, after merging duplicated fds) */
    /* -- HPC jobs -- */
    GS_P_SLURM,        /* slurm_job, slurm_step: from /proc/PID/cgroup (0 / "": not in a Slurm job) */
    GS_P_COUNT
};
_Static_assert(GS_P_COUNT <= 32, "process fields must fit the 32-bit valid mask");

/* Can we see the process in our /proc? */
enum gs_host_vis {
    GS_HOST_VISIBLE = 0,   /* /proc/PID read fine */
    GS_HOST_NOT_VISIBLE,   /* no such PID here: another PID namespace, or hidepid */
    GS_HOST_EXITED,        /* was visible, vanished during the read */
    GS_HOST_NO_PERMISSION, /* /proc/PID exists but could not be read */
};

#define GS_CMDLINE_MAX 512

/* The texts of one GPU's processes that vary in length (command lines, driver
 * names longer than gs_proc.name): one arena per GPU, emptied when its process
 * list is refilled, copied with the snapshot. A process names its texts by
 * offset, so a struct gs_proc stays small (a snapshot holds hundreds) and any
 * copy of one stays readable against the arena it came with. */
struct gs_text {
    char *buf;
    uint32_t len, cap;
};

struct gs_proc {
    uint32_t valid;                /* bit (1 << GS_P_x) */
    uint32_t pid;                  /* host PID as the driver reports it */
    uint32_t type;                 /* enum gs_proc_type bits (deduplicated across lists) */
    uint32_t gpu_instance_id;      /* MIG GI, or UINT32_MAX */
    uint32_t compute_instance_id;  /* MIG CI, or UINT32_MAX */
    uint64_t gpu_mem_bytes;
    uint32_t sm_util_pct, mem_util_pct, enc_util_pct, dec_util_pct;
    uint8_t host_vis;              /* enum gs_host_vis */
    uint32_t uid;
    char user[33];
    char comm[17];                 /* /proc/PID/comm */
    uint32_t cmd_off, cmd_len;     /* the command line (NUL-separated args joined with spaces,
                                    * truncated to GS_CMDLINE_MAX - 1 bytes) in the GPU's text
                                    * arena; cmd_len 0: none. Read it with gs_proc_cmdline(). */
    double cpu_pct;                /* 100 = one full core */
    uint64_t rss_bytes;
    int64_t start_time;            /* seconds since the epoch */
    uint64_t age_s;
    uint32_t ppid, pgid;
    char container_id[72];         /* 64-hex docker/containerd/cri-o id, or "" */
    char container_runtime[16];    /* "docker", "containerd", "cri-o", "podman", "" */
    char pod_uid[40];              /* Kubernetes pod UID (dashes), or "" */
    char name[96];                 /* process name as the driver sees it (nvmlSystemGetProcessName):
                                    * nvidia-smi's process_name; known even when /proc cannot see the PID */
    /* New members go at the end of their area's group (see enum gs_pfield). */
    /* -- query fidelity -- */
    uint64_t cpu_time_ns;          /* user + system CPU time since start */
    uint32_t cmd_sep_bytes;        /* bytes of argv-boundary bits after the command line's NUL in
                                    * the arena (gs_proc_cmdline_sep(); the rest read as 0) */
    uint32_t name_off, name_len;   /* the whole driver name, when longer than name[]: in the GPU's
                                    * text arena (gs_proc_name() picks the right one) */
    /* -- MIG and pods -- */
    uint32_t mig_index;            /* with GS_P_MIG: position in gs_gpu.mig[], UINT32_MAX if not listed */
    /* -- framework memory (PyTorch allocator) -- */
    uint8_t pyhook_state;          /* enum gs_pyhook_state (core/pyhook.h): why torch_* are there or not */
    uint32_t pyhook_age_ms;        /* how old the hook's answer is (it is cached between ticks) */
    uint64_t torch_allocated_bytes;      /* live tensors */
    uint64_t torch_reserved_bytes;       /* held by the caching allocator: allocated + its cache */
    uint64_t torch_inactive_split_bytes; /* cache in split blocks that large requests cannot use */
    uint64_t torch_max_allocated_bytes;  /* peak of allocated (since start or reset_peak_memory_stats) */
    uint64_t torch_max_reserved_bytes;
    uint64_t torch_alloc_retries;        /* cudaMalloc failed, the cache was freed, and retried */
    uint64_t torch_ooms;                 /* out-of-memory errors the allocator raised */
    char torch_alloc_conf[96];           /* PYTORCH_CUDA_ALLOC_CONF in the process ("" unset) */
    /* -- other vendors (DRM fdinfo) -- */
    uint16_t engine_util_pct[GS_MAX_ENGINES];
    uint64_t gtt_mem_bytes;
    uint32_t drm_clients;
    /* -- HPC jobs -- */
    uint32_t slurm_job;            /* Slurm job ID from the cgroup path, 0: none */
    char slurm_step[24];           /* its step: "0", "batch", "extern", "interactive", or "" */
};

/* ---- MIG devices ------------------------------------------------------------------ */
#define GS_MAX_MIG 8   /* MIG devices per GPU: 7 on A100/H100 */

/* One MIG device (a compute instance, as NVML's MIG device handles), with the
 * GPU instance it belongs to. Memory and profiling belong to the GPU instance:
 * the compute instances of one GPU instance show the same values. */
struct gs_mig {
    uint32_t index;                /* MIG device index under its GPU (nvidia-smi -L's "Device N") */
    uint32_t gpu_instance_id;      /* NVML GPU instance ID (dcgm-exporter's GPU_I_ID) */
    uint32_t compute_instance_id;
    char uuid[96];                 /* "MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char name[96];                 /* "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
    char profile[32];              /* the GPU instance's profile, "1g.10gb" (GPU_I_PROFILE) */
    char ci_profile[32];           /* the compute instance's: "1g.10gb", or "1c.3g.40gb" for part of one */
    uint8_t attr_status;           /* enum gs_status of the counts below (nvmlDeviceGetAttributes) */
    uint32_t sm_count, gi_slices, ci_slices;
    uint32_t copy_engines, decoders, encoders, jpeg_engines, ofa_engines;
    uint8_t mem_status;            /* enum gs_status of mem_* */
    uint64_t mem_total_bytes, mem_used_bytes, mem_free_bytes;
    uint8_t prof_status[GS_PROF_COUNT]; /* enum gs_status per metric (the GPU instance's) */
    double prof[GS_PROF_COUNT];
    uint32_t nprocs;               /* processes of this snapshot running in it */
};

/* ---- one GPU in a snapshot ------------------------------------------------------ */
enum gs_gpu_state {
    GS_GPU_OK = 0,
    GS_GPU_LOST,    /* fell off the bus: static facts kept, sample marked GS_ST_GPU_LOST */
    GS_GPU_ERROR,   /* could not be opened or read at all this tick */
};

struct gs_gpu {
    struct gs_static st;
    struct gs_sample s;
    struct gs_proc *procs;      /* nprocs entries, owned by the snapshot */
    uint32_t nprocs;
    uint32_t procs_cap;
    uint8_t procs_status;       /* enum gs_status of the process list itself */
    uint32_t procs_age_ms;      /* how old the list is (0: read in this tick); see nvml_procs.c */
    uint8_t state;              /* enum gs_gpu_state */
    int64_t lost_since;         /* epoch seconds when first seen lost, else 0 */
    char last_error[160];       /* latest error on this GPU, "" if none */
    struct gs_text text;        /* its processes' long names and command lines (owned, reused) */
    /* -- MIG (area 10c): valid when s.status[GS_F_MIG_DEVICES] is GS_ST_OK -- */
    struct gs_mig *mig;         /* nmig entries by MIG device index, owned by the snapshot like
                                 * procs; NULL on a GPU without MIG devices */
    uint32_t nmig;              /* at most GS_MAX_MIG */
    uint32_t mig_cap;
};

/* ---- events (NVML's event API: Xid, ECC) ----------------------------------------------- */
enum gs_event_kind {
    GS_EV_XID = 1,      /* data: the Xid number (999 = unknown Xid) */
    GS_EV_ECC_SBE = 2,  /* a corrected (single-bit) ECC error */
    GS_EV_ECC_DBE = 3,  /* an uncorrected (double-bit) ECC error */
    GS_EV_OTHER = 4,    /* data: the vendor's event type bit */
};

/* One event the driver delivered since the previous snapshot. */
struct gs_event {
    int64_t time_ms;    /* wall clock when gpuscope received it, ms since the epoch */
    uint32_t gpu;       /* the GPU's index (gs_static.index) */
    uint32_t kind;      /* enum gs_event_kind */
    uint64_t data;      /* Xid number for GS_EV_XID, else 0 */
};

#define GS_MAX_EVENTS 64

/* ---- the machine ------------------------------------------------------------------ */
struct gs_sysinfo {
    char backend[16];           /* "nvml" */
    char driver_version[80];    /* "" if unknown */
    char nvml_version[80];
    int32_t cuda_driver_version;  /* 12020 for 12.2, 0 if unknown */
    char hostname[64];
    bool simulated;             /* running on gpuscope's NVML simulator */
    char sim_scenario[64];      /* scenario name when simulated */
    char lib_path[256];         /* library actually loaded */
    char kmd_version[80];       /* kernel module version (/proc/driver/nvidia/version), "" if unknown */
    /* -- other vendors (several backends) -- */
    char warning[200];          /* a backend that failed while others found GPUs ("" if none) */
};

struct gs_snapshot {
    uint64_t mono_ns;           /* CLOCK_MONOTONIC at the start of the snapshot */
    struct timespec wall;       /* CLOCK_REALTIME at the same instant */
    uint64_t duration_ns;       /* how long taking it took */
    struct gs_sysinfo sys;
    uint32_t ngpus;
    struct gs_gpu *gpus;        /* ngpus entries */
    uint32_t nevents;           /* events received since the previous snapshot ... */
    uint32_t events_dropped;    /* ... and how many more did not fit in events[] */
    struct gs_event events[GS_MAX_EVENTS];
};

/* ---- helpers ---------------------------------------------------------------------- */
static inline bool gs_sample_has(const struct gs_sample *s, enum gs_field f)
{
    return gs_fmask_has(s->valid, f);
}

/* The age of f's value in ms (0: read in this tick), see gs_sample.age_ms. */
static inline uint32_t gs_sample_age_ms(const struct gs_sample *s, enum gs_field f)
{
    return (unsigned)f < GS_F_COUNT ? s->age_ms[f] : 0;
}

static inline void gs_sample_mark(struct gs_sample *s, enum gs_field f, enum gs_status st)
{
    s->status[f] = (uint8_t)st;
    if (st == GS_ST_OK)
        gs_fmask_set(&s->valid, f);
    else
        gs_fmask_clear(&s->valid, f);
}

static inline bool gs_static_has(const struct gs_static *st, enum gs_sfield f)
{
    return st->valid & (UINT64_C(1) << f);
}

static inline void gs_static_mark(struct gs_static *st, enum gs_sfield f, enum gs_status status)
{
    st->status[f] = (uint8_t)status;
    if (status == GS_ST_OK)
        st->valid |= UINT64_C(1) << f;
    else
        st->valid &= ~(UINT64_C(1) << f);
}

static inline bool gs_proc_has(const struct gs_proc *p, enum gs_pfield f)
{
    return p->valid & (UINT32_C(1) << f);
}

static inline void gs_proc_set(struct gs_proc *p, enum gs_pfield f)
{
    p->valid |= UINT32_C(1) << f;
}

/* Snapshot lifetime: gs_snapshot_init() zeroes; gs_snapshot_release() frees the
 * process arrays and GPU array; a snapshot may be reused tick after tick
 * (arrays are kept and grown, never shrunk, to keep the hot path allocation-free). */
void gs_snapshot_init(struct gs_snapshot *snap);
void gs_snapshot_release(struct gs_snapshot *snap);
/* Copy src into dst (deep: process arrays duplicated). Returns 0 or -GS_E_NOMEM. */
int gs_snapshot_copy(struct gs_snapshot *dst, const struct gs_snapshot *src);
/* Append a zeroed process to gpu, growing its array; NULL on out of memory. */
struct gs_proc *gs_gpu_add_proc(struct gs_gpu *gpu);
/* Room for n processes in gpu's array in one growth (a backend that knows its
 * count asks first); 0, or -1 when out of memory (the array is unchanged). */
int gs_gpu_reserve_procs(struct gs_gpu *gpu, size_t n);
/* Room for n MIG devices in gpu->mig (n <= GS_MAX_MIG); 0, or -1 when out of memory. */
int gs_gpu_mig_reserve(struct gs_gpu *gpu, uint32_t n);

/* The driver's name of a process, whole (gs_proc.name holds the first 95 bytes). */
const char *gs_proc_name(const struct gs_gpu *gpu, const struct gs_proc *p);
/* Keep a long name for p in gpu's arena; 0 or -GS_E_NOMEM (p keeps the short name). */
int gs_proc_set_long_name(struct gs_gpu *gpu, struct gs_proc *p, const char *name, size_t len);
/* p's command line from arena t (the one of the GPU p is listed on), "" when it has none. */
const char *gs_proc_cmdline(const struct gs_text *t, const struct gs_proc *p);
/* Is byte i of p's command line the space that joined two arguments? */
bool gs_proc_cmdline_sep(const struct gs_text *t, const struct gs_proc *p, size_t i);
/* Keep cmd (len bytes, len < GS_CMDLINE_MAX, no NUL) and its nsep bytes of argv-boundary
 * bits as p's command line in t; len 0 clears it. 0, or -1 when out of memory: p then has
 * none, and GS_P_COMM (which the command line's validity goes with) is cleared, so that
 * no output shows an empty command line as a reading. */
int gs_proc_set_cmdline(struct gs_text *t, struct gs_proc *p, const char *cmd, size_t len,
                        const uint8_t *sep, size_t nsep);
/* Free t's buffer. */
void gs_text_release(struct gs_text *t);
/* A profiling metric's names: JSON key ("gr_engine_active_ratio"), dcgm-exporter's
 * name ("DCGM_FI_PROF_GR_ENGINE_ACTIVE") and HELP, and whether it is a rate in bytes/s. */
struct gs_prof_info {
    const char *key;
    const char *dcgm;
    const char *help;
    bool bytes_per_s;
};
const struct gs_prof_info *gs_prof_info(enum gs_prof k);
/* The MIG device of g holding GPU instance gi and compute instance ci (ci UINT32_MAX:
 * any of gi's), or NULL. */
const struct gs_mig *gs_gpu_find_mig(const struct gs_gpu *g, uint32_t gi, uint32_t ci);
/* The distinct GPU instances of g, as dcgm-exporter exports them: the MIG device
 * index of each one's first compute instance into out (at most GS_MAX_MIG); returns the count. */
unsigned gs_gpu_gpu_instances(const struct gs_gpu *g, uint32_t *out);

/* Names for people: "Hopper", "P0", "SW power cap", ... */
const char *gs_arch_name(uint32_t nvml_arch);
/* The clock-event (throttle) reason bits, in bit order, with the words of our
 * own lines (human) and nvidia-smi's clocks_event_reasons.* names (smi). */
#define GS_THROTTLE_NAMES 9
struct gs_throttle_name {
    uint64_t bit;
    const char *human, *smi;
};
extern const struct gs_throttle_name gs_throttle_names[GS_THROTTLE_NAMES];
/* Comma-separated human names of the set throttle bits into buf ("" if none). */
const char *gs_throttle_str(uint64_t mask, char *buf, unsigned len);

#endif /* GS_MODEL_H */
