/* SPDX-License-Identifier: MIT */
/*
 * model_sample.h - a reading's status (enum gs_status), the per-tick fields
 * (enum gs_field, profiling metrics, the field mask) and struct gs_sample, one
 * flat value per GPU per tick. Included through core/model.h.
 */
#ifndef GS_MODEL_SAMPLE_H
#define GS_MODEL_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>


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

/* A profiling metric's names: JSON key ("gr_engine_active_ratio"), dcgm-exporter's
 * name ("DCGM_FI_PROF_GR_ENGINE_ACTIVE") and HELP, and whether it is a rate in bytes/s. */
struct gs_prof_info {
    const char *key;
    const char *dcgm;
    const char *help;
    bool bytes_per_s;
};
const struct gs_prof_info *gs_prof_info(enum gs_prof k);
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

#endif /* GS_MODEL_SAMPLE_H */
