/* SPDX-License-Identifier: MIT */
/*
 * fields.c - the nvidia-smi field table and its value formatters (see fields.h).
 *
 * Contents: 1. the table (every --query-gpu name of the captured drivers, from
 * docs/QUERY.md's source list, plus three gpuscope extensions, then the
 * --query-compute-apps names); 2. parsing a field list, with suggestions for
 * unknown names; 3. formatting a value the way nvidia-smi spells it.
 */
#include "out/fields.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* How a value is spelled. */
enum fk {
    FK_NONE,         /* known to nvidia-smi, not read by gpuscope: [N/A] */
    FK_STR,          /* char array */
    FK_U32,          /* uint32_t, unit appended */
    FK_U64,          /* uint64_t */
    FK_I32,          /* int32_t (temperatures: no unit, as nvidia-smi) */
    FK_MIB,          /* uint64_t bytes -> whole MiB */
    FK_WATTS,        /* uint32_t mW -> W with two decimals */
    FK_PSTATE,       /* P0..P15 */
    FK_ENABLED,      /* Enabled / Disabled */
    FK_YESNO,        /* Yes / No */
    FK_EVENT,        /* Active / Not Active: bit `arg` of the clock-event mask */
    FK_HEX64,        /* 0x0000000000000004 */
    FK_HEX8,         /* 0x233010DE */
    FK_HEX4,         /* 0x0000 */
    FK_HEX2,         /* 0x3B */
    FK_CC,           /* compute capability "9.0" */
    FK_COMPUTE_MODE, /* Default, Exclusive_Process, ... */
    FK_FAN,          /* first fan, % */
    FK_TIMESTAMP,    /* snapshot wall clock */
    FK_DRIVER,       /* driver version (sysinfo) */
    FK_COUNT,        /* GPUs in the snapshot */
    FK_INDEX,        /* gs_static.index */
    FK_PID,          /* process fields */
    FK_PNAME,
    FK_PMEM,
};

/* Where the value lives. */
enum src { SRC_NONE, SRC_SNAP, SRC_SAMPLE, SRC_STATIC, SRC_PROC };

enum def_flags {
    DEF_EXT = 1 << 0, /* a gpuscope extension, not an nvidia-smi name */
};

struct gs_field_def {
    const char *name;  /* canonical: printed in the header */
    const char *alias; /* accepted on input, or NULL */
    const char *unit;  /* header tag and value suffix ("MiB"), or NULL */
    uint8_t kind;      /* enum fk */
    uint8_t src;       /* enum src */
    uint8_t idx;       /* enum gs_field (SRC_SAMPLE) or gs_sfield (SRC_STATIC) */
    uint8_t flags;     /* enum def_flags */
    uint16_t off;      /* offset of the member in gs_sample / gs_static */
    uint64_t arg;      /* FK_EVENT: the reason bit */
};

/* clang-format off */
#define S(nm, al, u, k, f, m)  { nm, al, u, k, SRC_SAMPLE, f, 0, offsetof(struct gs_sample, m), 0 }
#define ST(nm, al, u, k, f, m) { nm, al, u, k, SRC_STATIC, f, 0, offsetof(struct gs_static, m), 0 }
#define SNAP(nm, al, u, k)     { nm, al, u, k, SRC_SNAP, 0, 0, 0, 0 }
#define NA(nm, al, u)          { nm, al, u, FK_NONE, SRC_NONE, 0, 0, 0, 0 }
#define P(nm, al, u, k)        { nm, al, u, k, SRC_PROC, 0, 0, 0, 0 }
#define EXT(nm, u, f, m)       { nm, NULL, u, FK_U32, SRC_SAMPLE, f, DEF_EXT, offsetof(struct gs_sample, m), 0 }
#define EVENT(reason, bit)                                                                    \
    { "clocks_event_reasons." reason, "clocks_throttle_reasons." reason, NULL, FK_EVENT,      \
      SRC_SAMPLE, GS_F_THROTTLE, 0, offsetof(struct gs_sample, throttle_reasons), bit }
/* clang-format on */

/* ---- 1. the tables ------------------------------------------------------------------------ */

/* Order and names follow nvidia-smi --help-query-gpu (union of drivers 590-610). */
static const struct gs_field_def gpu_fields[] = {
    /* --- Identity and system */
    SNAP("timestamp", NULL, NULL, FK_TIMESTAMP),
    SNAP("driver_version", NULL, NULL, FK_DRIVER),
    NA("kmd_version", NULL, NULL),
    SNAP("count", NULL, NULL, FK_COUNT),
    ST("name", "gpu_name", NULL, FK_STR, GS_S_NAME, name),
    ST("serial", "gpu_serial", NULL, FK_STR, GS_S_SERIAL, serial),
    ST("uuid", "gpu_uuid", NULL, FK_STR, GS_S_UUID, uuid),
    SNAP("index", NULL, NULL, FK_INDEX),
    ST("vbios_version", NULL, NULL, FK_STR, GS_S_VBIOS, vbios),
    ST("compute_cap", NULL, NULL, FK_CC, GS_S_CUDA_CC, cc_major),
    NA("hostname", NULL, NULL),
    NA("bbx.time_run", NULL, "seconds"),
    /* --- PCI / PCIe link */
    ST("pci.bus_id", "gpu_bus_id", NULL, FK_STR, GS_S_PCI, pci_bus_id),
    ST("pci.domain", NULL, NULL, FK_HEX4, GS_S_PCI, pci_domain),
    ST("pci.bus", NULL, NULL, FK_HEX2, GS_S_PCI, pci_bus),
    ST("pci.device", NULL, NULL, FK_HEX2, GS_S_PCI, pci_device),
    NA("pci.baseClass", NULL, NULL),
    NA("pci.subClass", NULL, NULL),
    ST("pci.device_id", NULL, NULL, FK_HEX8, GS_S_PCI, pci_device_id),
    ST("pci.sub_device_id", NULL, NULL, FK_HEX8, GS_S_PCI, pci_subsystem_id),
    S("pcie.link.gen.current", NULL, NULL, FK_U32, GS_F_PCIE_GEN, pcie_gen),
    S("pcie.link.gen.gpucurrent", NULL, NULL, FK_U32, GS_F_PCIE_GEN, pcie_gen),
    ST("pcie.link.gen.max", NULL, NULL, FK_U32, GS_S_PCIE_MAX_GEN, pcie_max_gen),
    ST("pcie.link.gen.gpumax", NULL, NULL, FK_U32, GS_S_PCIE_GPU_MAX_GEN, pcie_gpu_max_gen),
    NA("pcie.link.gen.hostmax", NULL, NULL),
    S("pcie.link.width.current", NULL, NULL, FK_U32, GS_F_PCIE_WIDTH, pcie_width),
    ST("pcie.link.width.max", NULL, NULL, FK_U32, GS_S_PCIE_MAX_WIDTH, pcie_max_width),
    /* --- vGPU capability flags */
    NA("vgpu_driver_capability.heterogenous_multivGPU", NULL, NULL),
    NA("vgpu_device_capability.fractional_multiVgpu", NULL, NULL),
    NA("vgpu_device_capability.heterogeneous_timeSlice_profile", NULL, NULL),
    NA("vgpu_device_capability.heterogeneous_timeSlice_sizes", NULL, NULL),
    NA("vgpu_device_capability.homogeneous_placements", NULL, NULL),
    NA("vgpu_device_capability.mig_timeSlicing", NULL, NULL),
    NA("vgpu_device_capability.mig_timeSlicing_mode", NULL, NULL),
    /* --- Modes and state flags */
    S("display_mode", NULL, NULL, FK_ENABLED, GS_F_DISPLAY_MODE, display_mode),
    S("display_attached", NULL, NULL, FK_YESNO, GS_F_DISPLAY_MODE, display_mode),
    S("display_active", NULL, NULL, FK_ENABLED, GS_F_DISPLAY_ACTIVE, display_active),
    S("persistence_mode", NULL, NULL, FK_ENABLED, GS_F_PERSISTENCE, persistence_mode),
    NA("addressing_mode", NULL, NULL),
    NA("accounting.mode", NULL, NULL),
    NA("accounting.buffer_size", NULL, NULL),
    NA("driver_model.current", NULL, NULL),
    NA("driver_model.pending", NULL, NULL),
    NA("gpu_recovery_action", NULL, NULL),
    NA("gom.current", "gpu_operation_mode.current", NULL),
    NA("gom.pending", "gpu_operation_mode.pending", NULL),
    S("compute_mode", NULL, NULL, FK_COMPUTE_MODE, GS_F_COMPUTE_MODE, compute_mode),
    NA("dramEncryption.mode.current", NULL, NULL),
    NA("dramEncryption.mode.pending", NULL, NULL),
    S("ecc.mode.current", NULL, NULL, FK_ENABLED, GS_F_ECC_MODE, ecc_mode_current),
    S("ecc.mode.pending", NULL, NULL, FK_ENABLED, GS_F_ECC_MODE, ecc_mode_pending),
    S("mig.mode.current", NULL, NULL, FK_ENABLED, GS_F_MIG_MODE, mig_mode_current),
    S("mig.mode.pending", NULL, NULL, FK_ENABLED, GS_F_MIG_MODE, mig_mode_pending),
    NA("gsp.mode.current", NULL, NULL),
    NA("gsp.mode.default", NULL, NULL),
    NA("c2c.mode", NULL, NULL),
    /* --- InfoROM versions */
    NA("inforom.img", "inforom.image", NULL),
    NA("inforom.oem", NULL, NULL),
    NA("inforom.ecc", NULL, NULL),
    NA("inforom.pwr", "inforom.power", NULL),
    NA("inforom.checksum_validation", NULL, NULL),
    /* --- Fan, P-state, temperatures */
    S("fan.speed", NULL, "%", FK_FAN, GS_F_FAN_SPEED, fan_speed_pct),
    S("pstate", NULL, NULL, FK_PSTATE, GS_F_PSTATE, pstate),
    S("temperature.gpu", NULL, NULL, FK_I32, GS_F_TEMP_GPU, temp_gpu_c),
    NA("temperature.gpu.tlimit", NULL, NULL),
    S("temperature.memory", NULL, NULL, FK_I32, GS_F_TEMP_MEM, temp_mem_c),
    /* --- Clock-event (throttle) reasons */
    ST("clocks_event_reasons.supported", "clocks_throttle_reasons.supported", NULL, FK_HEX64,
       GS_S_THROTTLE_SUPPORTED, throttle_supported),
    S("clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL, FK_HEX64, GS_F_THROTTLE,
      throttle_reasons),
    EVENT("gpu_idle", GS_THROTTLE_GPU_IDLE),
    EVENT("applications_clocks_setting", GS_THROTTLE_APP_CLOCKS),
    EVENT("sw_power_cap", GS_THROTTLE_SW_POWER_CAP),
    EVENT("hw_slowdown", GS_THROTTLE_HW_SLOWDOWN),
    EVENT("hw_thermal_slowdown", GS_THROTTLE_HW_THERMAL),
    EVENT("hw_power_brake_slowdown", GS_THROTTLE_HW_POWER_BRAKE),
    EVENT("sw_thermal_slowdown", GS_THROTTLE_SW_THERMAL),
    EVENT("sync_boost", GS_THROTTLE_SYNC_BOOST),
    NA("clocks_event_reasons_counters.sw_power_cap", NULL, "us"),
    NA("clocks_event_reasons_counters.sync_boost", NULL, "us"),
    NA("clocks_event_reasons_counters.sw_thermal_slowdown", NULL, "us"),
    NA("clocks_event_reasons_counters.hw_thermal_slowdown", NULL, "us"),
    NA("clocks_event_reasons_counters.hw_power_brake_slowdown", NULL, "us"),
    /* --- Clocks */
    S("clocks.current.graphics", "clocks.gr", "MHz", FK_U32, GS_F_CLOCK_GRAPHICS, clock_graphics_mhz),
    S("clocks.current.sm", "clocks.sm", "MHz", FK_U32, GS_F_CLOCK_SM, clock_sm_mhz),
    S("clocks.current.memory", "clocks.mem", "MHz", FK_U32, GS_F_CLOCK_MEM, clock_mem_mhz),
    S("clocks.current.video", "clocks.video", "MHz", FK_U32, GS_F_CLOCK_VIDEO, clock_video_mhz),
    NA("clocks.applications.graphics", "clocks.applications.gr", "MHz"),
    NA("clocks.applications.memory", "clocks.applications.mem", "MHz"),
    NA("clocks.default_applications.graphics", "clocks.default_applications.gr", "MHz"),
    NA("clocks.default_applications.memory", "clocks.default_applications.mem", "MHz"),
    ST("clocks.max.graphics", "clocks.max.gr", "MHz", FK_U32, GS_S_CLOCK_MAX_GRAPHICS,
       clock_max_graphics_mhz),
    ST("clocks.max.sm", NULL, "MHz", FK_U32, GS_S_CLOCK_MAX_SM, clock_max_sm_mhz),
    ST("clocks.max.memory", "clocks.max.mem", "MHz", FK_U32, GS_S_CLOCK_MAX_MEM, clock_max_mem_mhz),
    /* --- Memory */
    S("memory.total", NULL, "MiB", FK_MIB, GS_F_MEM_TOTAL, mem_total_bytes),
    S("memory.reserved", NULL, "MiB", FK_MIB, GS_F_MEM_RESERVED, mem_reserved_bytes),
    S("memory.used", NULL, "MiB", FK_MIB, GS_F_MEM_USED, mem_used_bytes),
    S("memory.free", NULL, "MiB", FK_MIB, GS_F_MEM_FREE, mem_free_bytes),
    NA("protected_memory.total", NULL, "MiB"),
    NA("protected_memory.used", NULL, "MiB"),
    NA("protected_memory.free", NULL, "MiB"),
    /* --- Utilization and encoder stats */
    S("utilization.gpu", NULL, "%", FK_U32, GS_F_GPU_UTIL, gpu_util_pct),
    S("utilization.memory", NULL, "%", FK_U32, GS_F_MEM_UTIL, mem_util_pct),
    S("utilization.encoder", NULL, "%", FK_U32, GS_F_ENC_UTIL, enc_util_pct),
    S("utilization.decoder", NULL, "%", FK_U32, GS_F_DEC_UTIL, dec_util_pct),
    NA("utilization.jpeg", NULL, "%"),
    NA("utilization.ofa", NULL, "%"),
    NA("encoder.stats.sessionCount", NULL, NULL),
    NA("encoder.stats.averageFps", NULL, NULL),
    NA("encoder.stats.averageLatency", NULL, NULL),
    /* --- Power and limits */
    NA("power.management", NULL, NULL),
    S("power.draw", NULL, "W", FK_WATTS, GS_F_POWER, power_mw),
    NA("power.draw.average", "gpu.power.draw.average", "W"),
    NA("power.draw.instant", "gpu.power.draw.instant", "W"),
    S("power.limit", "gpu.power.requested_limit", "W", FK_WATTS, GS_F_POWER_LIMIT, power_limit_mw),
    S("enforced.power.limit", "gpu.power.current_limit", "W", FK_WATTS, GS_F_POWER_ENFORCED,
      power_enforced_limit_mw),
    ST("power.default_limit", "gpu.power.default_limit", "W", FK_WATTS, GS_S_POWER_DEFAULT,
       power_default_limit_mw),
    ST("power.min_limit", "gpu.power.min_limit", "W", FK_WATTS, GS_S_POWER_MINMAX, power_min_limit_mw),
    ST("power.max_limit", "gpu.power.max_limit", "W", FK_WATTS, GS_S_POWER_MINMAX, power_max_limit_mw),
    NA("module.power.draw.average", NULL, "W"),
    NA("module.power.draw.instant", NULL, "W"),
    NA("module.power.limit", "module.power.requested_limit", "W"),
    NA("module.enforced.power.limit", "module.power.current_limit", "W"),
    NA("module.power.default_limit", NULL, "W"),
    NA("module.power.min_limit", NULL, "W"),
    NA("module.power.max_limit", NULL, "W"),
    NA("gpu.base.current", NULL, "W"),
    NA("gpu.base.requested", NULL, "W"),
    NA("gpu.base.default", NULL, "W"),
    NA("gpu.base.min", NULL, "W"),
    NA("gpu.base.max", NULL, "W"),
    NA("edpp_multiplier", NULL, "%"),
    /* --- Power smoothing (datacenter parts; set varies by driver branch) */
    NA("power_smoothing.tmp_floor", NULL, "W"),
    NA("power_smoothing.tmp_ceil", NULL, "W"),
    NA("power_smoothing.hw_lifetime_remaining_percent", NULL, "%"),
    NA("power_smoothing.enabled", NULL, NULL),
    NA("power_smoothing.delayed_power_smoothing_supported", NULL, NULL),
    NA("power_smoothing.soc_power_smoothing_enabled", NULL, NULL),
    NA("power_smoothing.priv_level", NULL, NULL),
    NA("power_smoothing.imm_ramp_down", NULL, NULL),
    NA("power_smoothing.max_percent_tmp_floor", NULL, "%"),
    NA("power_smoothing.min_percent_tmp_floor", NULL, "%"),
    NA("power_smoothing.primary_power_floor", NULL, "W"),
    NA("power_smoothing.secondary_power_floor", NULL, "W"),
    NA("power_smoothing.min_primary_floor_activation_offset", NULL, "W"),
    NA("power_smoothing.min_primary_floor_activation_point", NULL, "W"),
    NA("power_smoothing.window_multiplier", NULL, "ms"),
    NA("power_smoothing.num_preset_profiles", NULL, NULL),
    NA("power_smoothing.curr_profile.percent_tmp_floor", NULL, "%"),
    NA("power_smoothing.curr_profile.ramp_up_rate", NULL, "W/s"),
    NA("power_smoothing.curr_profile.ramp_down_rate", NULL, "W/s"),
    NA("power_smoothing.curr_profile.ramp_down_hysteresis", NULL, "ms"),
    NA("power_smoothing.curr_profile.secondary_power_floor", NULL, "W"),
    NA("power_smoothing.curr_profile.primary_floor_act_window_multiplier", NULL, NULL),
    NA("power_smoothing.curr_profile.primary_floor_tar_window_multiplier", NULL, NULL),
    NA("power_smoothing.curr_profile.primary_floor_act_offset", NULL, "W"),
    NA("power_smoothing.active_profile", NULL, NULL),
    NA("power_smoothing.admin_override.percent_tmp_floor", NULL, "%"),
    NA("power_smoothing.admin_override.ramp_up_rate", NULL, "W/s"),
    NA("power_smoothing.admin_override.ramp_down_rate", NULL, "W/s"),
    NA("power_smoothing.admin_override.ramp_down_hysteresis", NULL, "ms"),
    NA("power_smoothing.admin_override.secondary_power_floor", NULL, "W"),
    NA("power_smoothing.admin_override.primary_floor_act_window_multiplier", NULL, NULL),
    NA("power_smoothing.admin_override.primary_floor_tar_window_multiplier", NULL, NULL),
    NA("power_smoothing.admin_override.primary_floor_act_offset", NULL, "W"),
    /* --- ECC error counters */
    NA("ecc.errors.corrected.volatile.device_memory", NULL, NULL),
    NA("ecc.errors.corrected.volatile.dram", NULL, NULL),
    NA("ecc.errors.corrected.volatile.register_file", NULL, NULL),
    NA("ecc.errors.corrected.volatile.l1_cache", NULL, NULL),
    NA("ecc.errors.corrected.volatile.l2_cache", NULL, NULL),
    NA("ecc.errors.corrected.volatile.texture_memory", NULL, NULL),
    NA("ecc.errors.corrected.volatile.cbu", NULL, NULL),
    NA("ecc.errors.corrected.volatile.sram", NULL, NULL),
    S("ecc.errors.corrected.volatile.total", NULL, NULL, FK_U64, GS_F_ECC_VOL_CORR, ecc_vol_corrected),
    NA("ecc.errors.corrected.aggregate.device_memory", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.dram", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.register_file", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.l1_cache", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.l2_cache", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.texture_memory", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.cbu", NULL, NULL),
    NA("ecc.errors.corrected.aggregate.sram", NULL, NULL),
    S("ecc.errors.corrected.aggregate.total", NULL, NULL, FK_U64, GS_F_ECC_AGG_CORR, ecc_agg_corrected),
    NA("ecc.errors.uncorrected.volatile.device_memory", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.dram", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.register_file", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.l1_cache", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.l2_cache", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.texture_memory", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.cbu", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.sram", NULL, NULL),
    S("ecc.errors.uncorrected.volatile.total", NULL, NULL, FK_U64, GS_F_ECC_VOL_UNCORR, ecc_vol_uncorrected),
    NA("ecc.errors.uncorrected.aggregate.device_memory", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.dram", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.register_file", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.l1_cache", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.l2_cache", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.texture_memory", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.cbu", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram", NULL, NULL),
    S("ecc.errors.uncorrected.aggregate.total", NULL, NULL, FK_U64, GS_F_ECC_AGG_UNCORR, ecc_agg_uncorrected),
    NA("ecc.errors.uncorrected.volatile.sram.parity", NULL, NULL),
    NA("ecc.errors.uncorrected.volatile.sram.secded", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.parity", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.secded", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.thresholdExceeded", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.l2", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.sm", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.mcu", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.pcie", NULL, NULL),
    NA("ecc.errors.uncorrected.aggregate.sram.other", NULL, NULL),
    /* --- Retired pages and row remapping */
    S("retired_pages.single_bit_ecc.count", "retired_pages.sbe", NULL, FK_U32, GS_F_RETIRED_SBE,
      retired_sbe_pages),
    S("retired_pages.double_bit.count", "retired_pages.dbe", NULL, FK_U32, GS_F_RETIRED_DBE,
      retired_dbe_pages),
    S("retired_pages.pending", NULL, NULL, FK_YESNO, GS_F_RETIRED_PENDING, retired_pending),
    S("remapped_rows.correctable", "remapped_rows.sbe", NULL, FK_U32, GS_F_REMAP_CORR, remap_corr_rows),
    NA("remapped_rows.correctable_inactive", NULL, NULL),
    S("remapped_rows.uncorrectable", "remapped_rows.dbe", NULL, FK_U32, GS_F_REMAP_UNCORR, remap_uncorr_rows),
    NA("remapped_rows.uncorrectable_inactive", NULL, NULL),
    S("remapped_rows.pending", NULL, NULL, FK_YESNO, GS_F_REMAP_PENDING, remap_pending),
    S("remapped_rows.failure", NULL, NULL, FK_YESNO, GS_F_REMAP_FAILED, remap_failed),
    NA("remapped_rows.histogram.max", NULL, NULL),
    NA("remapped_rows.histogram.high", NULL, NULL),
    NA("remapped_rows.histogram.partial", NULL, NULL),
    NA("remapped_rows.histogram.low", NULL, NULL),
    NA("remapped_rows.histogram.none", NULL, NULL),
    /* --- NVLink fabric and platform (rack systems) */
    NA("fabric.state", NULL, NULL),
    NA("fabric.status", NULL, NULL),
    NA("fabric.cliqueId", NULL, NULL),
    NA("fabric.clusterUuid", NULL, NULL),
    NA("fabric.health.summary", NULL, NULL),
    NA("fabric.health.bandwidth", NULL, NULL),
    NA("fabric.health.route_recovery_in_progress", NULL, NULL),
    NA("fabric.health.route_unhealthy", NULL, NULL),
    NA("fabric.health.access_timeout_recovery", NULL, NULL),
    NA("fabric.health.incorrect_configuration", NULL, NULL),
    NA("fabric.health.partition_assigned", NULL, NULL),
    NA("platform.chassis_serial_number", NULL, NULL),
    NA("platform.slot_number", NULL, NULL),
    NA("platform.tray_index", NULL, NULL),
    NA("platform.host_id", NULL, NULL),
    NA("platform.peer_type", NULL, NULL),
    NA("platform.module_id", NULL, NULL),
    NA("platform.gpu_fabric_guid", NULL, NULL),
    /* --- gpuscope extensions (not nvidia-smi names; see docs/QUERY.md) */
    EXT("pcie.throughput.tx", "KB/s", GS_F_PCIE_TX, pcie_tx_kbps),
    EXT("pcie.throughput.rx", "KB/s", GS_F_PCIE_RX, pcie_rx_kbps),
    EXT("pcie.replay_counter", NULL, GS_F_PCIE_REPLAY, pcie_replay_count),
};

static const struct gs_field_def app_fields[] = {
    SNAP("timestamp", NULL, NULL, FK_TIMESTAMP),
    ST("gpu_name", NULL, NULL, FK_STR, GS_S_NAME, name),
    ST("gpu_bus_id", NULL, NULL, FK_STR, GS_S_PCI, pci_bus_id),
    ST("gpu_serial", NULL, NULL, FK_STR, GS_S_SERIAL, serial),
    ST("gpu_uuid", NULL, NULL, FK_STR, GS_S_UUID, uuid),
    P("pid", NULL, NULL, FK_PID),
    P("process_name", "name", NULL, FK_PNAME),
    P("used_gpu_memory", "used_memory", "MiB", FK_PMEM),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct gs_field_def *table_of(enum gs_query_kind kind, size_t *n)
{
    if (kind == GS_QUERY_COMPUTE_APPS) {
        *n = NELEM(app_fields);
        return app_fields;
    }
    *n = NELEM(gpu_fields);
    return gpu_fields;
}

static const char *query_option(enum gs_query_kind kind)
{
    return kind == GS_QUERY_COMPUTE_APPS ? "--query-compute-apps" : "--query-gpu";
}

/* ---- 2. field lists ----------------------------------------------------------------------- */

unsigned gs_edit_distance(const char *a, const char *b, unsigned cap)
{
    unsigned row[129];
    size_t la = strlen(a), lb = strlen(b);

    if (lb > 128 || (la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0], best;
        row[0] = best = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned sub = diag + (a[i - 1] != b[j - 1]);
            unsigned v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = v < sub ? v : sub;
            diag = up;
            if (row[j] < best)
                best = row[j];
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb] <= cap ? row[lb] : cap + 1;
}

static const struct gs_field_def *lookup(const struct gs_field_def *tab, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tab[i].name, name) || (tab[i].alias && !strcmp(tab[i].alias, name)))
            return &tab[i];
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(tab[i].name, name) || (tab[i].alias && !strcasecmp(tab[i].alias, name)))
            return &tab[i];
    return NULL;
}

/* Does every segment of name ("mem", "used" in "mem.used") occur in cand? */
static bool segments_in(const char *name, const char *cand)
{
    char buf[128];
    char *save = NULL;
    unsigned n = 0;

    if (!cand || snprintf(buf, sizeof(buf), "%s", name) >= (int)sizeof(buf))
        return false;
    for (char *t = strtok_r(buf, "._", &save); t; t = strtok_r(NULL, "._", &save)) {
        if (strlen(t) < 2 || !strcasestr(cand, t))
            return false;
        n++;
    }
    return n > 0;
}

/* How close cand is to name, in half steps: twice the edit distance; 1 for a
 * group under name ("memory" -> memory.used); 2 for names that contain all of
 * name's segments ("gpu_util" -> utilization.gpu). */
static unsigned closeness(const char *name, const struct gs_field_def *cand, unsigned cap)
{
    size_t len = strlen(name);
    unsigned d = gs_edit_distance(name, cand->name, cap);

    if (cand->alias) {
        unsigned da = gs_edit_distance(name, cand->alias, cap);
        d = da < d ? da : d;
    }
    d *= 2;
    if (len >= 3 && !strncasecmp(cand->name, name, len) && cand->name[len] == '.')
        return 1;
    if (d > 2 && (segments_in(name, cand->name) || segments_in(name, cand->alias)))
        return 2;
    return d;
}

/* The closest names, best first (ties keep table order). */
#define MAX_SUGGEST 3
static unsigned suggest(const struct gs_field_def *tab, size_t n, const char *name,
                        const char *out[MAX_SUGGEST])
{
    unsigned dist[MAX_SUGGEST], count = 0;
    size_t len = strlen(name);
    unsigned cap = len / 4 > 2 ? (unsigned)(len / 4) : 2;

    for (size_t i = 0; i < n; i++) {
        unsigned d = closeness(name, &tab[i], cap);
        if (d > 2 * cap)
            continue;
        unsigned k = count < MAX_SUGGEST ? count++ : MAX_SUGGEST;
        while (k > 0 && dist[k - 1] > d) {
            if (k < MAX_SUGGEST) {
                dist[k] = dist[k - 1];
                out[k] = out[k - 1];
            }
            k--;
        }
        if (k < MAX_SUGGEST) {
            dist[k] = d;
            out[k] = tab[i].name;
        }
    }
    return count;
}

static int unknown_field(enum gs_query_kind kind, const char *name, struct gs_err *err)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);
    const char *best[MAX_SUGGEST];
    unsigned nb = suggest(tab, n, name, best);
    char list[256] = "";
    size_t used = 0;

    gs_err_set(err, GS_E_USAGE, "unknown field '%s' in %s", name, query_option(kind));
    for (unsigned i = 0; i < nb && used < sizeof(list); i++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s'%s'",
                         i == 0        ? ""
                         : i + 1 == nb ? " or "
                                       : ", ",
                         best[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (nb)
        gs_err_hint(err, "did you mean %s? 'gpuscope query --help-%s' lists every field", list,
                    query_option(kind) + 2);
    else
        gs_err_hint(err, "'gpuscope query --help-%s' lists every field", query_option(kind) + 2);
    return -GS_E_USAGE;
}

int gs_fieldlist_parse(struct gs_fieldlist *fl, enum gs_query_kind kind, const char *spec, struct gs_err *err)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);
    const char *p = spec ? spec : "";

    fl->kind = kind;
    fl->n = 0;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *s = p, *e = p + len;
        char name[128];

        p = end ? end + 1 : e;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (s == e)
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(e - s), s);
        const struct gs_field_def *f = (size_t)(e - s) < sizeof(name) ? lookup(tab, n, name) : NULL;
        if (!f)
            return unknown_field(kind, name, err);
        if (fl->n == GS_FIELDLIST_MAX)
            return gs_err_set(err, GS_E_USAGE, "%s: more than %d fields", query_option(kind),
                              GS_FIELDLIST_MAX);
        fl->defs[fl->n++] = f;
    }
    if (!fl->n)
        return gs_err_set(err, GS_E_USAGE, "%s needs at least one field name", query_option(kind));
    return 0;
}

uint64_t gs_fieldlist_want(const struct gs_fieldlist *fl)
{
    uint64_t want = 0;

    for (unsigned i = 0; i < fl->n; i++)
        if (fl->defs[i]->src == SRC_SAMPLE)
            want |= UINT64_C(1) << fl->defs[i]->idx;
    return want;
}

bool gs_fieldlist_wants_slow(const struct gs_fieldlist *fl)
{
    uint64_t slow = (UINT64_C(1) << GS_F_PCIE_TX) | (UINT64_C(1) << GS_F_PCIE_RX);
    return (gs_fieldlist_want(fl) & slow) != 0;
}

unsigned gs_fieldlist_unread(const struct gs_fieldlist *fl, void (*cb)(void *arg, const char *name),
                             void *arg)
{
    unsigned count = 0;

    for (unsigned i = 0; i < fl->n; i++) {
        if (fl->defs[i]->kind != FK_NONE)
            continue;
        count++;
        if (cb)
            cb(arg, fl->defs[i]->name);
    }
    return count;
}

const char *gs_field_name(const struct gs_field_def *f)
{
    return f->name;
}

void gs_field_header(const struct gs_field_def *f, char *buf, size_t len)
{
    if (f->unit)
        snprintf(buf, len, "%s [%s]", f->name, f->unit);
    else
        snprintf(buf, len, "%s", f->name);
}

void gs_fields_help(enum gs_query_kind kind, void (*line)(void *arg, const char *text), void *arg)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);
    char buf[256];

    for (size_t i = 0; i < n; i++) {
        const struct gs_field_def *f = &tab[i];
        snprintf(buf, sizeof(buf), "%-52s%s%s%s%s%s%s", f->name, f->alias ? " alias " : "",
                 f->alias ? f->alias : "", f->unit ? " [" : "", f->unit ? f->unit : "", f->unit ? "]" : "",
                 f->kind == FK_NONE   ? "  (not read by gpuscope: [N/A])"
                 : f->flags & DEF_EXT ? "  (gpuscope extension)"
                                      : "");
        line(arg, buf);
    }
}

/* ---- 3. values ---------------------------------------------------------------------------- */

const char *gs_field_status_str(enum gs_status st)
{
    switch (st) {
    case GS_ST_NOT_SUPPORTED:
        return "[Not Supported]";
    case GS_ST_NO_PERMISSION:
        return "[Insufficient Permissions]";
    case GS_ST_GPU_LOST:
        return "[GPU is lost]";
    case GS_ST_ERROR:
        return "[Unknown Error]";
    case GS_ST_NOT_AVAILABLE:
    case GS_ST_NOT_SAMPLED:
    default:
        return "[N/A]";
    }
}

size_t gs_field_timestamp(const struct timespec *ts, char *buf, size_t len)
{
    struct tm tm;
    time_t sec = ts->tv_sec;
    char date[32];

    if (!localtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y/%m/%d %H:%M:%S", &tm))
        date[0] = '\0';
    int w = snprintf(buf, len, "%s.%03ld", date, (long)(ts->tv_nsec / 1000000));
    return w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
}

static enum gs_status proc_status(const struct gs_field_def *f, const struct gs_proc *p)
{
    if (!p)
        return GS_ST_NOT_AVAILABLE;
    if (f->kind == FK_PMEM)
        return gs_proc_has(p, GS_P_GPU_MEM) ? GS_ST_OK : GS_ST_NOT_AVAILABLE;
    if (f->kind == FK_PNAME && !gs_proc_has(p, GS_P_COMM))
        return p->host_vis == GS_HOST_NO_PERMISSION ? GS_ST_NO_PERMISSION : GS_ST_NOT_AVAILABLE;
    return GS_ST_OK;
}

static enum gs_status field_status(const struct gs_field_def *f, const struct gs_field_ctx *c)
{
    switch (f->src) {
    case SRC_SAMPLE:
        if (f->kind == FK_FAN && c->gpu->s.status[f->idx] == GS_ST_OK && !c->gpu->s.fan_count)
            return GS_ST_NOT_AVAILABLE;
        return (enum gs_status)c->gpu->s.status[f->idx];
    case SRC_STATIC:
        return (enum gs_status)c->gpu->st.status[f->idx];
    case SRC_SNAP:
        if (f->kind == FK_DRIVER && !c->snap->sys.driver_version[0])
            return GS_ST_NOT_AVAILABLE;
        return GS_ST_OK;
    case SRC_PROC:
        return proc_status(f, c->proc);
    default:
        return GS_ST_NOT_AVAILABLE;
    }
}

static size_t put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static size_t put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int w;

    va_start(ap, fmt);
    w = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (w < 0) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)w < len ? (size_t)w : len - 1;
}

/* A number followed by " unit" unless nounits. */
static size_t put_num(char *buf, size_t len, const char *num, const char *unit, unsigned flags)
{
    if (unit && !(flags & GS_FIELD_NOUNITS))
        return put(buf, len, "%s %s", num, unit);
    return put(buf, len, "%s", num);
}

static uint32_t rd_u32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t rd_u64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static const char *compute_mode_str(uint32_t mode)
{
    static const char *const names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    return mode < NELEM(names) ? names[mode] : "Unknown";
}

/* Values that are numbers with a unit. */
static size_t format_number(const struct gs_field_def *f, const void *p, unsigned flags, char *buf,
                            size_t len)
{
    char num[48];

    switch (f->kind) {
    case FK_U32:
        snprintf(num, sizeof(num), "%u", rd_u32(p));
        break;
    case FK_U64:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)rd_u64(p));
        break;
    case FK_MIB:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)(rd_u64(p) >> 20));
        break;
    case FK_WATTS: {
        /* two decimals, rounded half up in integers (no binary-float surprises) */
        uint64_t centiw = ((uint64_t)rd_u32(p) + 5) / 10;
        snprintf(num, sizeof(num), "%llu.%02u", (unsigned long long)(centiw / 100), (unsigned)(centiw % 100));
        break;
    }
    case FK_FAN:
        snprintf(num, sizeof(num), "%u", rd_u32(p)); /* fan_speed_pct[0] */
        break;
    default:
        num[0] = '\0';
    }
    return put_num(buf, len, num, f->unit, flags);
}

static size_t format_member(const struct gs_field_def *f, const void *p, unsigned flags, char *buf,
                            size_t len)
{
    switch (f->kind) {
    case FK_STR:
        return put(buf, len, "%s", (const char *)p);
    case FK_I32:
        return put(buf, len, "%d", (int)rd_u32(p));
    case FK_PSTATE:
        return rd_u32(p) <= 15 ? put(buf, len, "P%u", rd_u32(p)) : put(buf, len, "[Unknown]");
    case FK_ENABLED:
        return put(buf, len, "%s", rd_u32(p) ? "Enabled" : "Disabled");
    case FK_YESNO:
        return put(buf, len, "%s", rd_u32(p) ? "Yes" : "No");
    case FK_EVENT:
        return put(buf, len, "%s", rd_u64(p) & f->arg ? "Active" : "Not Active");
    case FK_HEX64:
        return put(buf, len, "0x%016llX", (unsigned long long)rd_u64(p));
    case FK_HEX8:
        return put(buf, len, "0x%08X", rd_u32(p));
    case FK_HEX4:
        return put(buf, len, "0x%04X", rd_u32(p));
    case FK_HEX2:
        return put(buf, len, "0x%02X", rd_u32(p));
    case FK_COMPUTE_MODE:
        return put(buf, len, "%s", compute_mode_str(rd_u32(p)));
    default:
        return format_number(f, p, flags, buf, len);
    }
}

/* argv[0] as nvidia-smi shows it: the command line up to the first space. */
static size_t format_pname(const struct gs_proc *p, char *buf, size_t len)
{
    if (p->cmdline[0])
        return put(buf, len, "%.*s", (int)strcspn(p->cmdline, " "), p->cmdline);
    return put(buf, len, "%s", p->comm);
}

static size_t format_other(const struct gs_field_def *f, const struct gs_field_ctx *c, unsigned flags,
                           char *buf, size_t len)
{
    char num[32];

    switch (f->kind) {
    case FK_TIMESTAMP:
        return gs_field_timestamp(&c->snap->wall, buf, len);
    case FK_DRIVER:
        return put(buf, len, "%s", c->snap->sys.driver_version);
    case FK_COUNT:
        return put(buf, len, "%u", c->snap->ngpus);
    case FK_INDEX:
        return put(buf, len, "%u", c->gpu->st.index);
    case FK_CC:
        return put(buf, len, "%d.%d", c->gpu->st.cc_major, c->gpu->st.cc_minor);
    case FK_PID:
        return put(buf, len, "%u", c->proc->pid);
    case FK_PNAME:
        return format_pname(c->proc, buf, len);
    case FK_PMEM:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)(c->proc->gpu_mem_bytes >> 20));
        return put_num(buf, len, num, f->unit, flags);
    default:
        return put(buf, len, "[N/A]");
    }
}

size_t gs_field_format(const struct gs_field_def *f, const struct gs_field_ctx *ctx, unsigned flags,
                       char *buf, size_t len)
{
    enum gs_status st;

    if (!len)
        return 0;
    st = field_status(f, ctx);
    if (st != GS_ST_OK)
        return put(buf, len, "%s", gs_field_status_str(st));
    if (f->src == SRC_SAMPLE)
        return format_member(f, (const char *)&ctx->gpu->s + f->off, flags, buf, len);
    if (f->src == SRC_STATIC && f->kind != FK_CC)
        return format_member(f, (const char *)&ctx->gpu->st + f->off, flags, buf, len);
    return format_other(f, ctx, flags, buf, len);
}
