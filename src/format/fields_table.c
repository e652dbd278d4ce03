/* SPDX-License-Identifier: MIT */
/*
 * fields_table.c - the data: every --query-gpu name of the captured nvidia-smi
 * drivers (590 to 610; list in docs/QUERY.md) with its alias, header unit tag
 * and the gs_sample/gs_static member it reads (or NA: accepted, prints [N/A]),
 * three gpuscope extensions, and the --query-compute-apps names.
 * To add a field: one line here; a new spelling also needs fields.c.
 */
#include "format/fields_int.h"

/* clang-format off */
#define S(nm, al, u, k, f, m)  { nm, al, u, k, SRC_SAMPLE, f, 0, offsetof(struct gs_sample, m), 0 }
#define ST(nm, al, u, k, f, m) { nm, al, u, k, SRC_STATIC, f, 0, offsetof(struct gs_static, m), 0 }
#define SNAP(nm, al, u, k)     { nm, al, u, k, SRC_SNAP, 0, 0, 0, 0 }
#define NA(nm, al, u)          { nm, al, u, FK_NONE, SRC_NONE, 0, 0, 0, 0 }
#define P(nm, al, u, k)        { nm, al, u, k, SRC_PROC, 0, 0, 0, 0 }
#define EXT(nm, u, f, m)       { nm, NULL, u, FK_U32, SRC_SAMPLE, f, DEF_EXT, offsetof(struct gs_sample, m), 0 }
#define SFL(nm, al, u, k, f, m, fl) { nm, al, u, k, SRC_SAMPLE, f, fl, offsetof(struct gs_sample, m), 0 }
#define NAB(nm)                { nm, NULL, NULL, FK_NONE, SRC_NONE, 0, DEF_BARE_NA, 0, 0 }
#define FABRIC(nm, k, m, a) { nm, NULL, NULL, k, SRC_SAMPLE, GS_F_FABRIC, DEF_BARE_NA, offsetof(struct gs_sample, m), a }
#define PROF(nm, u, k, i)      { nm, NULL, u, k, SRC_SAMPLE, GS_F_PROF_FIRST + (i), DEF_EXT, \
                                 offsetof(struct gs_sample, prof) + (i) * sizeof(double), 0 }
#define PEXT(nm, k)            { nm, NULL, NULL, k, SRC_PROC, 0, DEF_EXT, 0, 0 }
#define EVENT(reason, bit)                                                                    \
    { "clocks_event_reasons." reason, "clocks_throttle_reasons." reason, NULL, FK_EVENT,      \
      SRC_SAMPLE, GS_F_THROTTLE, DEF_THROTTLE, offsetof(struct gs_sample, throttle_reasons), bit }
/* ecc.errors.<type>.<counter>.<location>: entry (type * 2 + counter) * GS_ECC_LOCS + location */
#define ECCL(nm, type, counter, loc)                                                          \
    { nm, NULL, NULL, FK_ECCLOC, SRC_SAMPLE, GS_F_ECC_DETAIL, 0, offsetof(struct gs_sample, ecc_loc), \
      ((type) * 2 + (counter)) * GS_ECC_LOCS + (loc) }
#define ECC_GROUP(type, counter, tname, cname)                                                \
    ECCL("ecc.errors." tname "." cname ".device_memory", type, counter, 2),                   \
    ECCL("ecc.errors." tname "." cname ".dram", type, counter, 2),                            \
    ECCL("ecc.errors." tname "." cname ".register_file", type, counter, 3),                   \
    ECCL("ecc.errors." tname "." cname ".l1_cache", type, counter, 0),                        \
    ECCL("ecc.errors." tname "." cname ".l2_cache", type, counter, 1),                        \
    ECCL("ecc.errors." tname "." cname ".texture_memory", type, counter, 4),                  \
    ECCL("ecc.errors." tname "." cname ".cbu", type, counter, 6),                             \
    ECCL("ecc.errors." tname "." cname ".sram", type, counter, 7)
/* clang-format on */

/* ---- 1. the tables ------------------------------------------------------------------------ */

/* Order and names follow nvidia-smi --help-query-gpu (union of drivers 590-610). */
const struct gs_field_def gs_gpu_fields[] = {
    /* --- Identity and system */
    SNAP("timestamp", NULL, NULL, FK_TIMESTAMP),
    SNAP("driver_version", NULL, NULL, FK_DRIVER),
    SNAP("kmd_version", NULL, NULL, FK_KMD),
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
    ST("pci.baseClass", NULL, NULL, FK_HEX1, GS_S_PCI_CLASS, pci_base_class),
    ST("pci.subClass", NULL, NULL, FK_HEX1, GS_S_PCI_CLASS, pci_sub_class),
    ST("pci.device_id", NULL, NULL, FK_HEX8, GS_S_PCI, pci_device_id),
    ST("pci.sub_device_id", NULL, NULL, FK_HEX8, GS_S_PCI, pci_subsystem_id),
    S("pcie.link.gen.current", NULL, NULL, FK_U32, GS_F_PCIE_GEN, pcie_gen),
    S("pcie.link.gen.gpucurrent", NULL, NULL, FK_U32, GS_F_PCIE_GEN, pcie_gen),
    ST("pcie.link.gen.max", NULL, NULL, FK_U32, GS_S_PCIE_MAX_GEN, pcie_max_gen),
    ST("pcie.link.gen.gpumax", NULL, NULL, FK_U32, GS_S_PCIE_GPU_MAX_GEN, pcie_gpu_max_gen),
    ST("pcie.link.gen.hostmax", NULL, NULL, FK_U32, GS_S_PCIE_HOST_MAX, pcie_host_max_gen),
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
    SFL("display_mode", NULL, NULL, FK_ENABLED, GS_F_DISPLAY_MODE, display_mode, DEF_GONE580),
    S("display_attached", NULL, NULL, FK_YESNO, GS_F_DISPLAY_MODE, display_mode),
    S("display_active", NULL, NULL, FK_ENABLED, GS_F_DISPLAY_ACTIVE, display_active),
    S("persistence_mode", NULL, NULL, FK_ENABLED, GS_F_PERSISTENCE, persistence_mode),
    ST("addressing_mode", NULL, NULL, FK_ADDRMODE, GS_S_ADDRESSING, addressing_mode),
    S("accounting.mode", NULL, NULL, FK_ENABLED, GS_F_ACCOUNTING, accounting_mode),
    ST("accounting.buffer_size", NULL, NULL, FK_U32, GS_S_ACCT_BUFFER, acct_buffer_size),
    NA("driver_model.current", NULL, NULL),
    NA("driver_model.pending", NULL, NULL),
    S("gpu_recovery_action", NULL, NULL, FK_RECOVERY, GS_F_RECOVERY, recovery_action),
    S("reset_status.reset_required", NULL, NULL, FK_YESNO, GS_F_RESET_STATUS, reset_required),
    S("reset_status.drain_and_reset_recommended", NULL, NULL, FK_YESNO, GS_F_RESET_STATUS,
      drain_and_reset_recommended),
    NA("gom.current", "gpu_operation_mode.current", NULL),
    NA("gom.pending", "gpu_operation_mode.pending", NULL),
    S("compute_mode", NULL, NULL, FK_COMPUTE_MODE, GS_F_COMPUTE_MODE, compute_mode),
    NA("dramEncryption.mode.current", NULL, NULL),
    NA("dramEncryption.mode.pending", NULL, NULL),
    S("ecc.mode.current", NULL, NULL, FK_ENABLED, GS_F_ECC_MODE, ecc_mode_current),
    S("ecc.mode.pending", NULL, NULL, FK_ENABLED, GS_F_ECC_MODE, ecc_mode_pending),
    S("mig.mode.current", NULL, NULL, FK_ENABLED, GS_F_MIG_MODE, mig_mode_current),
    S("mig.mode.pending", NULL, NULL, FK_ENABLED, GS_F_MIG_MODE, mig_mode_pending),
    ST("gsp.mode.current", NULL, NULL, FK_ENABLED, GS_S_GSP_MODE, gsp_mode_current),
    ST("gsp.mode.default", NULL, NULL, FK_ENABLED, GS_S_GSP_MODE, gsp_mode_default),
    ST("c2c.mode", NULL, NULL, FK_ENABLED, GS_S_C2C_MODE, c2c_enabled),
    /* --- InfoROM versions */
    ST("inforom.img", "inforom.image", NULL, FK_STR, GS_S_INFOROM_IMG, inforom_img),
    ST("inforom.oem", NULL, NULL, FK_STR, GS_S_INFOROM_OEM, inforom_oem),
    ST("inforom.ecc", NULL, NULL, FK_STR, GS_S_INFOROM_ECC, inforom_ecc),
    ST("inforom.pwr", "inforom.power", NULL, FK_STR, GS_S_INFOROM_PWR, inforom_pwr),
    ST("inforom.checksum_validation", NULL, NULL, FK_VALID, GS_S_INFOROM_VALID, inforom_valid),
    /* --- Fan, P-state, temperatures */
    S("fan.speed", NULL, "%", FK_FAN, GS_F_FAN_SPEED, fan_speed_pct),
    S("pstate", NULL, NULL, FK_PSTATE, GS_F_PSTATE, pstate),
    S("temperature.gpu", NULL, NULL, FK_I32, GS_F_TEMP_GPU, temp_gpu_c),
    S("temperature.gpu.tlimit", NULL, NULL, FK_I32, GS_F_TEMP_TLIMIT, temp_tlimit_c),
    SFL("temperature.memory", NULL, NULL, FK_I32, GS_F_TEMP_MEM, temp_mem_c, DEF_BARE_NA),
    /* --- Clock-event (throttle) reasons */
    { "clocks_event_reasons.supported", "clocks_throttle_reasons.supported", NULL, FK_HEX64, SRC_STATIC,
      GS_S_THROTTLE_SUPPORTED, DEF_THROTTLE, offsetof(struct gs_static, throttle_supported), 0 },
    SFL("clocks_event_reasons.active", "clocks_throttle_reasons.active", NULL, FK_HEX64, GS_F_THROTTLE,
        throttle_reasons, DEF_THROTTLE),
    EVENT("gpu_idle", GS_THROTTLE_GPU_IDLE),
    EVENT("applications_clocks_setting", GS_THROTTLE_APP_CLOCKS),
    EVENT("sw_power_cap", GS_THROTTLE_SW_POWER_CAP),
    EVENT("hw_slowdown", GS_THROTTLE_HW_SLOWDOWN),
    EVENT("hw_thermal_slowdown", GS_THROTTLE_HW_THERMAL),
    EVENT("hw_power_brake_slowdown", GS_THROTTLE_HW_POWER_BRAKE),
    EVENT("sw_thermal_slowdown", GS_THROTTLE_SW_THERMAL),
    EVENT("sync_boost", GS_THROTTLE_SYNC_BOOST),
    /* throttle time (stream 12): NVML's violation counters, ns, printed in us as nvidia-smi does */
    S("clocks_event_reasons_counters.sw_power_cap", NULL, "us", FK_NS_US, GS_F_VIOL_POWER,
      violation_ns[GS_VIOL_POWER]),
    S("clocks_event_reasons_counters.sync_boost", NULL, "us", FK_NS_US, GS_F_VIOL_SYNC_BOOST,
      violation_ns[GS_VIOL_SYNC_BOOST]),
    S("clocks_event_reasons_counters.sw_thermal_slowdown", NULL, "us", FK_NS_US, GS_F_VIOL_THERMAL,
      violation_ns[GS_VIOL_THERMAL]),
    S("clocks_event_reasons_counters.hw_thermal_slowdown", NULL, "us", FK_NS_US, GS_F_VIOL_HW_THERMAL,
      violation_ns[GS_VIOL_HW_THERMAL]),
    S("clocks_event_reasons_counters.hw_power_brake_slowdown", NULL, "us", FK_NS_US, GS_F_VIOL_HW_POWER_BRAKE,
      violation_ns[GS_VIOL_HW_POWER_BRAKE]),
    /* --- Clocks */
    S("clocks.current.graphics", "clocks.gr", "MHz", FK_U32, GS_F_CLOCK_GRAPHICS, clock_graphics_mhz),
    S("clocks.current.sm", "clocks.sm", "MHz", FK_U32, GS_F_CLOCK_SM, clock_sm_mhz),
    S("clocks.current.memory", "clocks.mem", "MHz", FK_U32, GS_F_CLOCK_MEM, clock_mem_mhz),
    S("clocks.current.video", "clocks.video", "MHz", FK_U32, GS_F_CLOCK_VIDEO, clock_video_mhz),
    S("clocks.applications.graphics", "clocks.applications.gr", "MHz", FK_U32, GS_F_APP_CLOCKS, app_clock_graphics_mhz),
    S("clocks.applications.memory", "clocks.applications.mem", "MHz", FK_U32, GS_F_APP_CLOCKS, app_clock_mem_mhz),
    S("clocks.default_applications.graphics", "clocks.default_applications.gr", "MHz", FK_U32, GS_F_DEF_APP_CLOCKS, def_app_clock_graphics_mhz),
    S("clocks.default_applications.memory", "clocks.default_applications.mem", "MHz", FK_U32, GS_F_DEF_APP_CLOCKS, def_app_clock_mem_mhz),
    ST("clocks.max.graphics", "clocks.max.gr", "MHz", FK_U32, GS_S_CLOCK_MAX_GRAPHICS,
       clock_max_graphics_mhz),
    ST("clocks.max.sm", NULL, "MHz", FK_U32, GS_S_CLOCK_MAX_SM, clock_max_sm_mhz),
    ST("clocks.max.memory", "clocks.max.mem", "MHz", FK_U32, GS_S_CLOCK_MAX_MEM, clock_max_mem_mhz),
    /* --- Memory */
    S("memory.total", NULL, "MiB", FK_MIB, GS_F_MEM_TOTAL, mem_total_bytes),
    S("memory.reserved", NULL, "MiB", FK_MIB, GS_F_MEM_RESERVED, mem_reserved_bytes),
    S("memory.used", NULL, "MiB", FK_MIB, GS_F_MEM_USED, mem_used_bytes),
    S("memory.free", NULL, "MiB", FK_MIB, GS_F_MEM_FREE, mem_free_bytes),
    S("protected_memory.total", NULL, "MiB", FK_MIB, GS_F_PROT_MEM, prot_mem_total_bytes),
    S("protected_memory.used", NULL, "MiB", FK_MIB, GS_F_PROT_MEM, prot_mem_used_bytes),
    S("protected_memory.free", NULL, "MiB", FK_MIB, GS_F_PROT_MEM, prot_mem_free_bytes),
    /* --- Utilization and encoder stats */
    S("utilization.gpu", NULL, "%", FK_U32, GS_F_GPU_UTIL, gpu_util_pct),
    S("utilization.memory", NULL, "%", FK_U32, GS_F_MEM_UTIL, mem_util_pct),
    S("utilization.encoder", NULL, "%", FK_U32, GS_F_ENC_UTIL, enc_util_pct),
    S("utilization.decoder", NULL, "%", FK_U32, GS_F_DEC_UTIL, dec_util_pct),
    S("utilization.jpeg", NULL, "%", FK_U32, GS_F_JPG_UTIL, jpg_util_pct),
    S("utilization.ofa", NULL, "%", FK_U32, GS_F_OFA_UTIL, ofa_util_pct),
    S("encoder.stats.sessionCount", NULL, NULL, FK_U32, GS_F_ENC_STATS, enc_sessions),
    S("encoder.stats.averageFps", NULL, NULL, FK_U32, GS_F_ENC_STATS, enc_avg_fps),
    S("encoder.stats.averageLatency", NULL, NULL, FK_U32, GS_F_ENC_STATS, enc_avg_latency_us),
    /* --- Power and limits */
    S("power.management", NULL, NULL, FK_ENABLED, GS_F_POWER_MGMT, power_mgmt),
    S("power.draw", NULL, "W", FK_WATTS, GS_F_POWER, power_mw),
    S("power.draw.average", "gpu.power.draw.average", "W", FK_WATTS, GS_F_POWER_AVG, power_avg_mw),
    S("power.draw.instant", "gpu.power.draw.instant", "W", FK_WATTS, GS_F_POWER_INSTANT, power_instant_mw),
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
    S("edpp_multiplier", NULL, "%", FK_PCT2, GS_F_EDPP, edpp_pct),
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
    ECC_GROUP(0, 0, "corrected", "volatile"),
    S("ecc.errors.corrected.volatile.total", NULL, NULL, FK_U64, GS_F_ECC_VOL_CORR, ecc_vol_corrected),
    ECC_GROUP(0, 1, "corrected", "aggregate"),
    S("ecc.errors.corrected.aggregate.total", NULL, NULL, FK_U64, GS_F_ECC_AGG_CORR, ecc_agg_corrected),
    ECC_GROUP(1, 0, "uncorrected", "volatile"),
    S("ecc.errors.uncorrected.volatile.total", NULL, NULL, FK_U64, GS_F_ECC_VOL_UNCORR, ecc_vol_uncorrected),
    ECC_GROUP(1, 1, "uncorrected", "aggregate"),
    S("ecc.errors.uncorrected.aggregate.total", NULL, NULL, FK_U64, GS_F_ECC_AGG_UNCORR, ecc_agg_uncorrected),
    S("ecc.errors.uncorrected.volatile.sram.parity", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_vol_parity),
    S("ecc.errors.uncorrected.volatile.sram.secded", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_vol_secded),
    S("ecc.errors.uncorrected.aggregate.sram.parity", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_agg_parity),
    S("ecc.errors.uncorrected.aggregate.sram.secded", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_agg_secded),
    S("ecc.errors.uncorrected.aggregate.sram.thresholdExceeded", NULL, NULL, FK_YESNO, GS_F_SRAM_ECC, sram_threshold_exceeded),
    S("ecc.errors.uncorrected.aggregate.sram.l2", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_l2),
    S("ecc.errors.uncorrected.aggregate.sram.sm", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_sm),
    S("ecc.errors.uncorrected.aggregate.sram.mcu", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_mcu),
    S("ecc.errors.uncorrected.aggregate.sram.pcie", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_pcie),
    S("ecc.errors.uncorrected.aggregate.sram.other", NULL, NULL, FK_U64, GS_F_SRAM_ECC, sram_other),
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
    S("remapped_rows.histogram.max", NULL, NULL, FK_U32, GS_F_REMAP_HIST, remap_hist[0]),
    S("remapped_rows.histogram.high", NULL, NULL, FK_U32, GS_F_REMAP_HIST, remap_hist[1]),
    S("remapped_rows.histogram.partial", NULL, NULL, FK_U32, GS_F_REMAP_HIST, remap_hist[2]),
    S("remapped_rows.histogram.low", NULL, NULL, FK_U32, GS_F_REMAP_HIST, remap_hist[3]),
    S("remapped_rows.histogram.none", NULL, NULL, FK_U32, GS_F_REMAP_HIST, remap_hist[4]),
    /* --- NVLink fabric and platform (rack systems) */
    FABRIC("fabric.state", FK_FABRIC_STATE, fabric_state, 0),
    FABRIC("fabric.status", FK_FABRIC_STATUS, fabric_status, 0),
    FABRIC("fabric.cliqueId", FK_U32, fabric_clique, 0),
    FABRIC("fabric.clusterUuid", FK_UUID16, fabric_cluster_uuid, 0),
    FABRIC("fabric.health.summary", FK_FABRIC_HEALTH, fabric_health_mask, 99),
    FABRIC("fabric.health.bandwidth", FK_FABRIC_HEALTH, fabric_health_mask, 0),
    FABRIC("fabric.health.route_recovery_in_progress", FK_FABRIC_HEALTH, fabric_health_mask, 2),
    FABRIC("fabric.health.route_unhealthy", FK_FABRIC_HEALTH, fabric_health_mask, 4),
    FABRIC("fabric.health.access_timeout_recovery", FK_FABRIC_HEALTH, fabric_health_mask, 6),
    FABRIC("fabric.health.incorrect_configuration", FK_FABRIC_HEALTH, fabric_health_mask, 8),
    FABRIC("fabric.health.partition_assigned", FK_FABRIC_HEALTH, fabric_health_mask, 12),
    ST("platform.chassis_serial_number", NULL, NULL, FK_STR, GS_S_PLATFORM, platform_chassis_serial),
    ST("platform.slot_number", NULL, NULL, FK_U32, GS_S_PLATFORM, platform_slot),
    ST("platform.tray_index", NULL, NULL, FK_U32, GS_S_PLATFORM, platform_tray),
    ST("platform.host_id", NULL, NULL, FK_U32, GS_S_PLATFORM, platform_host_id),
    ST("platform.peer_type", NULL, NULL, FK_PEER_TYPE, GS_S_PLATFORM, platform_peer_type),
    ST("platform.module_id", NULL, NULL, FK_U32, GS_S_PLATFORM, platform_module_id),
    ST("platform.gpu_fabric_guid", NULL, NULL, FK_HEX64, GS_S_PLATFORM, platform_guid),
    /* --- gpuscope extensions (not nvidia-smi names; see docs/QUERY.md) */
    SNAP("host", NULL, NULL, FK_HOST), /* the fleet: the GPU's node (docs/FLEET.md) */
    EXT("pcie.throughput.tx", "KB/s", GS_F_PCIE_TX, pcie_tx_kbps),
    EXT("pcie.throughput.rx", "KB/s", GS_F_PCIE_RX, pcie_rx_kbps),
    EXT("pcie.replay_counter", NULL, GS_F_PCIE_REPLAY, pcie_replay_count),
    /* profiling metrics (NVML GPM, Hopper+): dcgm-exporter's DCGM_FI_PROF_* over the loop's interval */
    PROF("prof.gr_engine_active", "%", FK_PROF_PCT, GS_PROF_GR_ENGINE),
    PROF("prof.sm_active", "%", FK_PROF_PCT, GS_PROF_SM_ACTIVE),
    PROF("prof.sm_occupancy", "%", FK_PROF_PCT, GS_PROF_SM_OCCUPANCY),
    PROF("prof.pipe_tensor_active", "%", FK_PROF_PCT, GS_PROF_TENSOR),
    PROF("prof.dram_active", "%", FK_PROF_PCT, GS_PROF_DRAM),
    PROF("prof.pipe_fp64_active", "%", FK_PROF_PCT, GS_PROF_FP64),
    PROF("prof.pipe_fp32_active", "%", FK_PROF_PCT, GS_PROF_FP32),
    PROF("prof.pipe_fp16_active", "%", FK_PROF_PCT, GS_PROF_FP16),
    PROF("prof.pcie_tx_bytes", "B/s", FK_PROF_BPS, GS_PROF_PCIE_TX),
    PROF("prof.pcie_rx_bytes", "B/s", FK_PROF_BPS, GS_PROF_PCIE_RX),
    PROF("prof.nvlink_tx_bytes", "B/s", FK_PROF_BPS, GS_PROF_NVLINK_TX),
    PROF("prof.nvlink_rx_bytes", "B/s", FK_PROF_BPS, GS_PROF_NVLINK_RX),
};

const struct gs_field_def gs_app_fields[] = {
    SNAP("timestamp", NULL, NULL, FK_TIMESTAMP),
    ST("gpu_name", NULL, NULL, FK_STR, GS_S_NAME, name),
    ST("gpu_bus_id", NULL, NULL, FK_STR, GS_S_PCI, pci_bus_id),
    ST("gpu_serial", NULL, NULL, FK_STR, GS_S_SERIAL, serial),
    ST("gpu_uuid", NULL, NULL, FK_STR, GS_S_UUID, uuid),
    P("pid", NULL, NULL, FK_PID),
    P("process_name", "name", NULL, FK_PNAME),
    P("used_gpu_memory", "used_memory", "MiB", FK_PMEM),
    PEXT("gpu_instance_id", FK_PGI),      /* MIG: the process's instances (gpuscope extensions) */
    PEXT("compute_instance_id", FK_PCI),
};

const size_t gs_gpu_fields_count = sizeof(gs_gpu_fields) / sizeof(gs_gpu_fields[0]);
const size_t gs_app_fields_count = sizeof(gs_app_fields) / sizeof(gs_app_fields[0]);
