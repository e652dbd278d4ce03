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
 * that is set exactly when the status is GS_ST_OK. A zeroed struct therefore
 * means "nothing supported", which is what a missing NVML symbol should give.
 * Units live in the field names (_mib, _mw, _mhz, _pct, _c, _bytes, _kbps).
 */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stdbool.h>
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
    GS_F_COUNT
};
_Static_assert(GS_F_COUNT <= 64, "sample fields must fit the 64-bit valid mask");

#define GS_MAX_FANS 8

struct gs_sample {
    uint64_t valid;                      /* bit (1 << GS_F_x) set iff status[x] == GS_ST_OK */
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
};

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
    GS_P_COUNT
};

/* Can we see the process in our /proc? */
enum gs_host_vis {
    GS_HOST_VISIBLE = 0,   /* /proc/PID read fine */
    GS_HOST_NOT_VISIBLE,   /* no such PID here: another PID namespace, or hidepid */
    GS_HOST_EXITED,        /* was visible, vanished during the read */
    GS_HOST_NO_PERMISSION, /* /proc/PID exists but could not be read */
};

#define GS_CMDLINE_MAX 512

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
    char cmdline[GS_CMDLINE_MAX];  /* NUL-separated args joined with spaces, truncated */
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
    uint8_t state;              /* enum gs_gpu_state */
    int64_t lost_since;         /* epoch seconds when first seen lost, else 0 */
    char last_error[160];       /* latest error on this GPU, "" if none */
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
    return s->valid & (UINT64_C(1) << f);
}

static inline void gs_sample_mark(struct gs_sample *s, enum gs_field f, enum gs_status st)
{
    s->status[f] = (uint8_t)st;
    if (st == GS_ST_OK)
        s->valid |= UINT64_C(1) << f;
    else
        s->valid &= ~(UINT64_C(1) << f);
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

/* Names for people: "Hopper", "P0", "SW power cap", ... */
const char *gs_arch_name(uint32_t nvml_arch);
/* Comma-separated human names of the set throttle bits into buf ("" if none). */
const char *gs_throttle_str(uint64_t mask, char *buf, unsigned len);

#endif /* GS_MODEL_H */
