/* SPDX-License-Identifier: MIT */
/*
 * prom_tables.c - the field-driven metric families (serve, remote write): dcgm-exporter's
 * default counters (names, types and HELP as it ships them) and gpuscope's
 * own gpuscope_* families, each read straight from a gs_sample or gs_static
 * field; plus the label names of throttle reasons and field statuses. Data
 * only: serve/prom_fams.c and record/rw_encode.c walk these tables.
 */
#include <stddef.h>

#include "format/prom_tables.h"

#define SOFF(f) ((uint16_t)offsetof(struct gs_sample, f))
#define TOFF(f) ((uint16_t)offsetof(struct gs_static, f))
#define MIB (1.0 / 1048576.0)

/* dcgm-exporter's default counters (etc/default-counters.csv, <= 4.8.x), HELP verbatim,
 * then opt-in rows it ships commented out that the sampler reads anyway. */
static const struct prom_desc dcgm_sample[] = {
    { { "DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", PT_GAUGE, true, NULL },
      GS_F_CLOCK_SM, SOFF(clock_sm_mhz), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", PT_GAUGE, true, NULL },
      GS_F_CLOCK_MEM, SOFF(clock_mem_mhz), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_MEMORY_TEMP", "Memory temperature (in C).", PT_GAUGE, true, NULL },
      GS_F_TEMP_MEM, SOFF(temp_mem_c), PN_I32, 1, PF_INT },
    { { "DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", PT_GAUGE, true, NULL },
      GS_F_TEMP_GPU, SOFF(temp_gpu_c), PN_I32, 1, PF_INT },
    { { "DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", PT_GAUGE, true, NULL },
      GS_F_POWER, SOFF(power_mw), PN_U32, 0.001, PF_F6 },
    { { "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ).",
        PT_COUNTER, true, NULL },
      GS_F_ENERGY, SOFF(energy_mj), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "Total number of PCIe retries.", PT_COUNTER, true, NULL },
      GS_F_PCIE_REPLAY, SOFF(pcie_replay_count), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", PT_GAUGE, true, NULL },
      GS_F_GPU_UTIL, SOFF(gpu_util_pct), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", PT_GAUGE, true, NULL },
      GS_F_MEM_UTIL, SOFF(mem_util_pct), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_ENC_UTIL", "Encoder utilization (in %).", PT_GAUGE, true, NULL },
      GS_F_ENC_UTIL, SOFF(enc_util_pct), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_DEC_UTIL", "Decoder utilization (in %).", PT_GAUGE, true, NULL },
      GS_F_DEC_UTIL, SOFF(dec_util_pct), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", PT_GAUGE, true, NULL },
      GS_F_MEM_FREE, SOFF(mem_free_bytes), PN_U64, MIB, PF_INT },
    { { "DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", PT_GAUGE, true, NULL },
      GS_F_MEM_USED, SOFF(mem_used_bytes), PN_U64, MIB, PF_INT },
    { { "DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB).", PT_GAUGE, true, NULL },
      GS_F_MEM_RESERVED, SOFF(mem_reserved_bytes), PN_U64, MIB, PF_INT },
    { { "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "Number of remapped rows for uncorrectable errors",
        PT_COUNTER, true, NULL },
      GS_F_REMAP_UNCORR, SOFF(remap_uncorr_rows), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "Number of remapped rows for correctable errors",
        PT_COUNTER, true, NULL },
      GS_F_REMAP_CORR, SOFF(remap_corr_rows), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_ROW_REMAP_FAILURE", "Whether remapping of rows has failed", PT_GAUGE, true, NULL },
      GS_F_REMAP_FAILED, SOFF(remap_failed), PN_U32, 1, PF_INT },
    /* opt-in rows in dcgm-exporter; on here because the sampler reads them anyway */
    { { "DCGM_FI_DEV_ROW_REMAP_PENDING", "Whether remapping of rows is pending", PT_GAUGE, true, NULL },
      GS_F_REMAP_PENDING, SOFF(remap_pending), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors.",
        PT_COUNTER, true, NULL },
      GS_F_ECC_VOL_CORR, SOFF(ecc_vol_corrected), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors.",
        PT_COUNTER, true, NULL },
      GS_F_ECC_VOL_UNCORR, SOFF(ecc_vol_uncorrected), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "Total number of single-bit persistent ECC errors.",
        PT_COUNTER, true, NULL },
      GS_F_ECC_AGG_CORR, SOFF(ecc_agg_corrected), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "Total number of double-bit persistent ECC errors.",
        PT_COUNTER, true, NULL },
      GS_F_ECC_AGG_UNCORR, SOFF(ecc_agg_uncorrected), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_RETIRED_SBE", "Total number of retired pages due to single-bit errors.",
        PT_COUNTER, true, NULL },
      GS_F_RETIRED_SBE, SOFF(retired_sbe_pages), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_RETIRED_DBE", "Total number of retired pages due to double-bit errors.",
        PT_COUNTER, true, NULL },
      GS_F_RETIRED_DBE, SOFF(retired_dbe_pages), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_RETIRED_PENDING", "Total number of pages pending retirement.", PT_COUNTER, true,
        NULL },
      GS_F_RETIRED_PENDING, SOFF(retired_pending), PN_U32, 1, PF_INT },
    { { "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "Current clock event reasons (bitmask).", PT_GAUGE, true,
        NULL },
      GS_F_THROTTLE, SOFF(throttle_reasons), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_POWER_MGMT_LIMIT", "Power management limit (in W).", PT_GAUGE, true, NULL },
      GS_F_POWER_LIMIT, SOFF(power_limit_mw), PN_U32, 0.001, PF_F6 },
    /* throttle time and NVLink errors (stream 12): NVML's violation counters, in ns as DCGM's fields */
    { { "DCGM_FI_DEV_POWER_VIOLATION", "Throttling duration due to power constraints (in ns).", PT_COUNTER, true,
        NULL },
      GS_F_VIOL_POWER, SOFF(violation_ns[GS_VIOL_POWER]), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_THERMAL_VIOLATION", "Throttling duration due to thermal constraints (in ns).", PT_COUNTER, true,
        NULL },
      GS_F_VIOL_THERMAL, SOFF(violation_ns[GS_VIOL_THERMAL]), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_SYNC_BOOST_VIOLATION", "Throttling duration due to sync-boost constraints (in ns).",
        PT_COUNTER, true, NULL },
      GS_F_VIOL_SYNC_BOOST, SOFF(violation_ns[GS_VIOL_SYNC_BOOST]), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "Throttling duration due to board limit constraints (in ns).",
        PT_COUNTER, true, NULL },
      GS_F_VIOL_BOARD_LIMIT, SOFF(violation_ns[GS_VIOL_BOARD_LIMIT]), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_LOW_UTIL_VIOLATION", "Throttling duration due to low utilization (in ns).", PT_COUNTER, true,
        NULL },
      GS_F_VIOL_LOW_UTIL, SOFF(violation_ns[GS_VIOL_LOW_UTIL]), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_RELIABILITY_VIOLATION", "Throttling duration due to reliability constraints (in ns).",
        PT_COUNTER, true, NULL },
      GS_F_VIOL_RELIABILITY, SOFF(violation_ns[GS_VIOL_RELIABILITY]), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL",
        "Total number of NVLink flow-control CRC errors.", PT_COUNTER, true, NULL },
      GS_F_NVLINK_ERRORS, SOFF(nvlink_crc_flit), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "Total number of NVLink data CRC errors.", PT_COUNTER,
        true, NULL },
      GS_F_NVLINK_ERRORS, SOFF(nvlink_crc_data), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "Total number of NVLink retries.", PT_COUNTER, true, NULL },
      GS_F_NVLINK_ERRORS, SOFF(nvlink_replay), PN_U64, 1, PF_INT },
    { { "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "Total number of NVLink recovery errors.", PT_COUNTER,
        true, NULL },
      GS_F_NVLINK_ERRORS, SOFF(nvlink_recovery), PN_U64, 1, PF_INT },
    /* more DCGM fields NVML gives (DCGM's field ids in comments; HELP from dcgm_fields.h) */
    { { "DCGM_FI_DEV_VIDEO_CLOCK", "Video encoder/decoder clock frequency (in MHz).", PT_GAUGE, true, NULL },
      GS_F_CLOCK_VIDEO, SOFF(clock_video_mhz), PN_U32, 1, PF_INT }, /* 102 */
    { { "DCGM_FI_DEV_ENFORCED_POWER_LIMIT",
        "Effective power limit that the driver enforces after taking into account all limiters (in W).", PT_GAUGE,
        true, NULL },
      GS_F_POWER_ENFORCED, SOFF(power_enforced_limit_mw), PN_U32, 0.001, PF_F6 }, /* 164 */
    { { "DCGM_FI_DEV_PSTATE", "Performance state (P-State) 0-15. 0=highest.", PT_GAUGE, true, NULL },
      GS_F_PSTATE, SOFF(pstate), PN_U32, 1, PF_INT }, /* 190 */
    { { "DCGM_FI_DEV_FAN_SPEED", "Fan speed for the device in percent 0-100.", PT_GAUGE, true, NULL },
      GS_F_FAN_SPEED, SOFF(fan_speed_pct), PN_U32, 1, PF_INT }, /* 191: the first fan, as DCGM */
    { { "DCGM_FI_DEV_PCIE_LINK_GEN", "PCIe current link generation.", PT_GAUGE, true, NULL },
      GS_F_PCIE_GEN, SOFF(pcie_gen), PN_U32, 1, PF_INT }, /* 237 */
    { { "DCGM_FI_DEV_PCIE_LINK_WIDTH", "PCIe current link width.", PT_GAUGE, true, NULL },
      GS_F_PCIE_WIDTH, SOFF(pcie_width), PN_U32, 1, PF_INT }, /* 238 */
    { { "DCGM_FI_DEV_FB_TOTAL", "Framebuffer memory total (in MiB).", PT_GAUGE, true, NULL },
      GS_F_MEM_TOTAL, SOFF(mem_total_bytes), PN_U64, MIB, PF_INT }, /* 250 */
    { { "DCGM_FI_DEV_BAR1_TOTAL", "Total BAR1 of the GPU (in MiB).", PT_GAUGE, true, NULL },
      GS_F_BAR1_TOTAL, SOFF(bar1_total_bytes), PN_U64, MIB, PF_INT }, /* 90 */
    { { "DCGM_FI_DEV_BAR1_USED", "Used BAR1 of the GPU (in MiB).", PT_GAUGE, true, NULL },
      GS_F_BAR1_USED, SOFF(bar1_used_bytes), PN_U64, MIB, PF_INT }, /* 92 */
    { { "DCGM_FI_DEV_BAR1_FREE", "Free BAR1 of the GPU (in MiB).", PT_GAUGE, true, NULL },
      GS_F_BAR1_FREE, SOFF(bar1_free_bytes), PN_U64, MIB, PF_INT }, /* 93 */
    { { "DCGM_FI_DEV_ECC_CURRENT", "Current ECC mode for the device (1 enabled).", PT_GAUGE, true, NULL },
      GS_F_ECC_MODE, SOFF(ecc_mode_current), PN_U32, 1, PF_INT }, /* 300 */
    { { "DCGM_FI_DEV_ECC_PENDING", "Pending ECC mode for the device (1 enabled).", PT_GAUGE, true, NULL },
      GS_F_ECC_MODE, SOFF(ecc_mode_pending), PN_U32, 1, PF_INT }, /* 301 */
};

static const struct prom_desc dcgm_static[] = {
    { { "DCGM_FI_DEV_SLOWDOWN_TEMP", "Slowdown temperature (in C).", PT_GAUGE, true, NULL },
      GS_S_TEMP_SLOWDOWN, TOFF(temp_slowdown_c), PN_I32, 1, PF_INT },
    /* more DCGM fields NVML gives (DCGM's field ids in comments; HELP from dcgm_fields.h) */
    { { "DCGM_FI_DEV_SHUTDOWN_TEMP", "Shutdown temperature (in C).", PT_GAUGE, true, NULL },
      GS_S_TEMP_SHUTDOWN, TOFF(temp_shutdown_c), PN_I32, 1, PF_INT }, /* 159 */
    { { "DCGM_FI_DEV_GPU_MAX_OP_TEMP", "Maximum operating temperature for this GPU (in C).", PT_GAUGE, true, NULL },
      GS_S_TEMP_GPU_MAX, TOFF(temp_gpu_max_c), PN_I32, 1, PF_INT }, /* 152 */
    { { "DCGM_FI_DEV_MEM_MAX_OP_TEMP", "Maximum operating temperature for the memory of this GPU (in C).",
        PT_GAUGE, true, NULL },
      GS_S_TEMP_MEM_MAX, TOFF(temp_mem_max_c), PN_I32, 1, PF_INT }, /* 151 */
    { { "DCGM_FI_DEV_MAX_SM_CLOCK", "Maximum supported SM clock for the device (in MHz).", PT_GAUGE, true, NULL },
      GS_S_CLOCK_MAX_SM, TOFF(clock_max_sm_mhz), PN_U32, 1, PF_INT }, /* 113 */
    { { "DCGM_FI_DEV_MAX_MEM_CLOCK", "Maximum supported Memory clock for the device (in MHz).", PT_GAUGE, true,
        NULL },
      GS_S_CLOCK_MAX_MEM, TOFF(clock_max_mem_mhz), PN_U32, 1, PF_INT }, /* 114 */
    { { "DCGM_FI_DEV_MAX_VIDEO_CLOCK", "Maximum supported Video encoder/decoder clock for the device (in MHz).",
        PT_GAUGE, true, NULL },
      GS_S_CLOCK_MAX_VIDEO, TOFF(clock_max_video_mhz), PN_U32, 1, PF_INT }, /* 115 */
    { { "DCGM_FI_DEV_POWER_MGMT_LIMIT_MIN", "Minimum power management limit for the device (in W).", PT_GAUGE,
        true, NULL },
      GS_S_POWER_MINMAX, TOFF(power_min_limit_mw), PN_U32, 0.001, PF_F6 }, /* 161 */
    { { "DCGM_FI_DEV_POWER_MGMT_LIMIT_MAX", "Maximum power management limit for the device (in W).", PT_GAUGE,
        true, NULL },
      GS_S_POWER_MINMAX, TOFF(power_max_limit_mw), PN_U32, 0.001, PF_F6 }, /* 162 */
    { { "DCGM_FI_DEV_POWER_MGMT_LIMIT_DEF", "Default power management limit for the device (in W).", PT_GAUGE,
        true, NULL },
      GS_S_POWER_DEFAULT, TOFF(power_default_limit_mw), PN_U32, 0.001, PF_F6 }, /* 163 */
    { { "DCGM_FI_DEV_PCIE_MAX_LINK_GEN", "PCIe maximum link generation.", PT_GAUGE, true, NULL },
      GS_S_PCIE_MAX_GEN, TOFF(pcie_max_gen), PN_U32, 1, PF_INT }, /* 235 */
    { { "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", "PCIe maximum link width.", PT_GAUGE, true, NULL },
      GS_S_PCIE_MAX_WIDTH, TOFF(pcie_max_width), PN_U32, 1, PF_INT }, /* 236 */
};

/* Every sampler field the DCGM families above do not carry, in base units. */
static const struct prom_desc own_sample[] = {
    { { "gpuscope_memory_total_bytes", "Total GPU memory.", PT_GAUGE, false, "bytes" },
      GS_F_MEM_TOTAL, SOFF(mem_total_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_bar1_total_bytes", "Total BAR1 (host-mapped) memory.", PT_GAUGE, false, "bytes" },
      GS_F_BAR1_TOTAL, SOFF(bar1_total_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_bar1_used_bytes", "Used BAR1 (host-mapped) memory.", PT_GAUGE, false, "bytes" },
      GS_F_BAR1_USED, SOFF(bar1_used_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_power_enforced_limit_watts", "Power limit the driver enforces (lowest of all limits).",
        PT_GAUGE, false, "watts" },
      GS_F_POWER_ENFORCED, SOFF(power_enforced_limit_mw), PN_U32, 0.001, PF_G },
    { { "gpuscope_clock_graphics_hertz", "Graphics clock frequency.", PT_GAUGE, false, "hertz" },
      GS_F_CLOCK_GRAPHICS, SOFF(clock_graphics_mhz), PN_U32, 1e6, PF_INT },
    { { "gpuscope_clock_video_hertz", "Video engine clock frequency.", PT_GAUGE, false, "hertz" },
      GS_F_CLOCK_VIDEO, SOFF(clock_video_mhz), PN_U32, 1e6, PF_INT },
    /* throttle time DCGM has no field for (NVML 270, 271: R575+) and NVLink state (stream 12) */
    { { "gpuscope_hw_thermal_slowdown_seconds_total", "Time the clocks were cut by HW thermal slowdown.",
        PT_COUNTER, false, "seconds" },
      GS_F_VIOL_HW_THERMAL, SOFF(violation_ns[GS_VIOL_HW_THERMAL]), PN_U64, 1e-9, PF_G },
    { { "gpuscope_hw_power_brake_seconds_total", "Time the clocks were cut by the HW power brake.", PT_COUNTER,
        false, "seconds" },
      GS_F_VIOL_HW_POWER_BRAKE, SOFF(violation_ns[GS_VIOL_HW_POWER_BRAKE]), PN_U64, 1e-9, PF_G },
    { { "gpuscope_nvlink_links", "NVLinks present on the GPU.", PT_GAUGE, false, NULL },
      GS_F_NVLINK_STATE, SOFF(nvlink_count), PN_U32, 1, PF_INT },
    { { "gpuscope_performance_state", "Performance state (0 = P0, maximum performance, to 15).",
        PT_GAUGE, false, NULL },
      GS_F_PSTATE, SOFF(pstate), PN_U32, 1, PF_INT },
    { { "gpuscope_pcie_link_generation", "Current PCIe link generation.", PT_GAUGE, false, NULL },
      GS_F_PCIE_GEN, SOFF(pcie_gen), PN_U32, 1, PF_INT },
    { { "gpuscope_pcie_link_width", "Current PCIe link width (lanes).", PT_GAUGE, false, NULL },
      GS_F_PCIE_WIDTH, SOFF(pcie_width), PN_U32, 1, PF_INT },
    { { "gpuscope_pcie_tx_bytes_per_second", "PCIe transmit throughput (NVML's KB/s * 1024: over the sample interval "
                                              "from its byte counters or GPM, else its 20 ms window).",
        PT_GAUGE, false, NULL },
      GS_F_PCIE_TX, SOFF(pcie_tx_kbps), PN_U32, 1024, PF_INT },
    { { "gpuscope_pcie_rx_bytes_per_second", "PCIe receive throughput (NVML's KB/s * 1024: over the sample interval "
                                              "from its byte counters or GPM, else its 20 ms window).",
        PT_GAUGE, false, NULL },
      GS_F_PCIE_RX, SOFF(pcie_rx_kbps), PN_U32, 1024, PF_INT },
    { { "gpuscope_ecc_enabled", "Whether ECC is enabled (1) or not (0).", PT_GAUGE, false, NULL },
      GS_F_ECC_MODE, SOFF(ecc_mode_current), PN_U32, 1, PF_INT },
    { { "gpuscope_ecc_pending_enabled", "ECC mode after the next reboot (1 enabled).", PT_GAUGE, false,
        NULL },
      GS_F_ECC_MODE, SOFF(ecc_mode_pending), PN_U32, 1, PF_INT },
    { { "gpuscope_persistence_mode_enabled", "Whether persistence mode is on.", PT_GAUGE, false, NULL },
      GS_F_PERSISTENCE, SOFF(persistence_mode), PN_U32, 1, PF_INT },
    { { "gpuscope_compute_mode", "Compute mode (0 default, 2 prohibited, 3 exclusive process).",
        PT_GAUGE, false, NULL },
      GS_F_COMPUTE_MODE, SOFF(compute_mode), PN_U32, 1, PF_INT },
    { { "gpuscope_mig_mode_enabled", "Whether MIG mode is on.", PT_GAUGE, false, NULL },
      GS_F_MIG_MODE, SOFF(mig_mode_current), PN_U32, 1, PF_INT },
    { { "gpuscope_mig_mode_pending_enabled", "MIG mode after the next GPU reset.", PT_GAUGE, false,
        NULL },
      GS_F_MIG_MODE, SOFF(mig_mode_pending), PN_U32, 1, PF_INT },
    { { "gpuscope_display_active", "Whether a display is initialized on the GPU.", PT_GAUGE, false,
        NULL },
      GS_F_DISPLAY_ACTIVE, SOFF(display_active), PN_U32, 1, PF_INT },
    { { "gpuscope_display_connected", "Whether a physical display is connected.", PT_GAUGE, false, NULL },
      GS_F_DISPLAY_MODE, SOFF(display_mode), PN_U32, 1, PF_INT },
};

static const struct prom_desc own_static[] = {
    { { "gpuscope_temperature_shutdown_celsius", "Temperature at which the GPU shuts down.", PT_GAUGE,
        false, "celsius" },
      GS_S_TEMP_SHUTDOWN, TOFF(temp_shutdown_c), PN_I32, 1, PF_INT },
    { { "gpuscope_temperature_gpu_max_celsius", "Maximum operating temperature of the GPU.", PT_GAUGE,
        false, "celsius" },
      GS_S_TEMP_GPU_MAX, TOFF(temp_gpu_max_c), PN_I32, 1, PF_INT },
    { { "gpuscope_temperature_memory_max_celsius", "Maximum operating temperature of the memory.",
        PT_GAUGE, false, "celsius" },
      GS_S_TEMP_MEM_MAX, TOFF(temp_mem_max_c), PN_I32, 1, PF_INT },
    { { "gpuscope_power_default_limit_watts", "Default power limit.", PT_GAUGE, false, "watts" },
      GS_S_POWER_DEFAULT, TOFF(power_default_limit_mw), PN_U32, 0.001, PF_G },
    { { "gpuscope_power_min_limit_watts", "Lowest settable power limit.", PT_GAUGE, false, "watts" },
      GS_S_POWER_MINMAX, TOFF(power_min_limit_mw), PN_U32, 0.001, PF_G },
    { { "gpuscope_power_max_limit_watts", "Highest settable power limit.", PT_GAUGE, false, "watts" },
      GS_S_POWER_MINMAX, TOFF(power_max_limit_mw), PN_U32, 0.001, PF_G },
    { { "gpuscope_clock_max_graphics_hertz", "Maximum graphics clock.", PT_GAUGE, false, "hertz" },
      GS_S_CLOCK_MAX_GRAPHICS, TOFF(clock_max_graphics_mhz), PN_U32, 1e6, PF_INT },
    { { "gpuscope_clock_max_sm_hertz", "Maximum SM clock.", PT_GAUGE, false, "hertz" },
      GS_S_CLOCK_MAX_SM, TOFF(clock_max_sm_mhz), PN_U32, 1e6, PF_INT },
    { { "gpuscope_clock_max_memory_hertz", "Maximum memory clock.", PT_GAUGE, false, "hertz" },
      GS_S_CLOCK_MAX_MEM, TOFF(clock_max_mem_mhz), PN_U32, 1e6, PF_INT },
    { { "gpuscope_clock_max_video_hertz", "Maximum video engine clock.", PT_GAUGE, false, "hertz" },
      GS_S_CLOCK_MAX_VIDEO, TOFF(clock_max_video_mhz), PN_U32, 1e6, PF_INT },
    { { "gpuscope_pcie_max_link_generation", "Maximum PCIe link generation of GPU and slot together.",
        PT_GAUGE, false, NULL },
      GS_S_PCIE_MAX_GEN, TOFF(pcie_max_gen), PN_U32, 1, PF_INT },
    { { "gpuscope_pcie_gpu_max_link_generation", "Maximum PCIe link generation the GPU supports.",
        PT_GAUGE, false, NULL },
      GS_S_PCIE_GPU_MAX_GEN, TOFF(pcie_gpu_max_gen), PN_U32, 1, PF_INT },
    { { "gpuscope_pcie_max_link_width", "Maximum PCIe link width (lanes).", PT_GAUGE, false, NULL },
      GS_S_PCIE_MAX_WIDTH, TOFF(pcie_max_width), PN_U32, 1, PF_INT },
};

/* AMD and Intel GPUs: the readings DCGM's names carry for NVIDIA's, under gpuscope_* names. */
static const struct prom_desc drm_dcgm_sample[] = {
    { { "gpuscope_gpu_utilization_ratio", "Fraction of time the GPU was busy (amdgpu gpu_busy_percent; Intel: "
        "the busier of the render and compute engines).", PT_GAUGE, false, "ratio" },
      GS_F_GPU_UTIL, SOFF(gpu_util_pct), PN_U32, 1, PF_PCT },
    { { "gpuscope_memory_utilization_ratio", "Fraction of time the memory controller was busy.", PT_GAUGE, false,
        "ratio" },
      GS_F_MEM_UTIL, SOFF(mem_util_pct), PN_U32, 1, PF_PCT },
    { { "gpuscope_memory_used_bytes", "Device memory used (VRAM, Intel local memory).", PT_GAUGE, false, "bytes" },
      GS_F_MEM_USED, SOFF(mem_used_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_memory_free_bytes", "Device memory free.", PT_GAUGE, false, "bytes" },
      GS_F_MEM_FREE, SOFF(mem_free_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_temperature_gpu_celsius", "GPU temperature (amdgpu: edge; xe: package).", PT_GAUGE, false,
        "celsius" },
      GS_F_TEMP_GPU, SOFF(temp_gpu_c), PN_I32, 1, PF_INT },
    { { "gpuscope_temperature_memory_celsius", "Memory temperature.", PT_GAUGE, false, "celsius" },
      GS_F_TEMP_MEM, SOFF(temp_mem_c), PN_I32, 1, PF_INT },
    { { "gpuscope_power_usage_watts", "Power draw (hwmon power1_average/input; i915/xe: from energy1_input).",
        PT_GAUGE, false, "watts" },
      GS_F_POWER, SOFF(power_mw), PN_U32, 0.001, PF_G },
    { { "gpuscope_power_limit_watts", "Power limit (amdgpu power1_cap; Intel: PL1, power1_max).", PT_GAUGE, false,
        "watts" },
      GS_F_POWER_LIMIT, SOFF(power_limit_mw), PN_U32, 0.001, PF_G },
    { { "gpuscope_energy_consumption_joules_total", "Energy since the counter started (hwmon energy1_input, "
        "amdgpu gpu_metrics).", PT_COUNTER, false, "joules" },
      GS_F_ENERGY, SOFF(energy_mj), PN_U64, 0.001, PF_G },
    { { "gpuscope_clock_memory_hertz", "Memory clock (amdgpu pp_dpm_mclk).", PT_GAUGE, false, "hertz" },
      GS_F_CLOCK_MEM, SOFF(clock_mem_mhz), PN_U32, 1e6, PF_INT },
};

static const struct prom_desc drm_dcgm_static[] = {
    { { "gpuscope_temperature_slowdown_celsius", "GPU temperature critical threshold (hwmon temp crit).",
        PT_GAUGE, false, "celsius" },
      GS_S_TEMP_SLOWDOWN, TOFF(temp_slowdown_c), PN_I32, 1, PF_INT },
};

/* What AMD and Intel GPUs tell that NVML's fields do not. */
static const struct prom_desc drm_sample[] = {
    { { "gpuscope_memory_gtt_total_bytes", "System memory the GPU can map (amdgpu GTT).", PT_GAUGE, false,
        "bytes" },
      GS_F_MEM_GTT, SOFF(gtt_total_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_memory_gtt_used_bytes", "System memory mapped for the GPU (amdgpu GTT).", PT_GAUGE, false,
        "bytes" },
      GS_F_MEM_GTT, SOFF(gtt_used_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_memory_visible_vram_total_bytes", "CPU-visible VRAM (the BAR, all of it with resizable BAR).",
        PT_GAUGE, false, "bytes" },
      GS_F_MEM_VIS, SOFF(vis_vram_total_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_memory_visible_vram_used_bytes", "CPU-visible VRAM in use.", PT_GAUGE, false, "bytes" },
      GS_F_MEM_VIS, SOFF(vis_vram_used_bytes), PN_U64, 1, PF_INT },
    { { "gpuscope_temperature_junction_celsius", "Hottest spot of the die (amdgpu junction).", PT_GAUGE, false,
        "celsius" },
      GS_F_TEMP_JUNCTION, SOFF(temp_junction_c), PN_I32, 1, PF_INT },
    { { "gpuscope_fan_speed_rpm", "Fan speed (hwmon fan1_input).", PT_GAUGE, false, NULL },
      GS_F_FAN_RPM, SOFF(fan_rpm), PN_U32, 1, PF_INT },
    { { "gpuscope_voltage_gfx_volts", "Graphics core voltage (hwmon in0).", PT_GAUGE, false, "volts" },
      GS_F_VOLTAGE_GFX, SOFF(voltage_gfx_mv), PN_U32, 0.001, PF_G },
    { { "gpuscope_clock_graphics_requested_hertz", "Graphics clock the driver requested (Intel cur_freq).",
        PT_GAUGE, false, "hertz" },
      GS_F_CLOCK_GRAPHICS_REQ, SOFF(clock_graphics_req_mhz), PN_U32, 1e6, PF_INT },
    { { "gpuscope_rc6_residency_ratio", "Fraction of the last interval the GT spent in RC6 (Intel idle).",
        PT_GAUGE, false, "ratio" },
      GS_F_RC6, SOFF(rc6_pct), PN_U32, 1, PF_PCT },
    { { "gpuscope_ras_uncorrectable_errors_total", "Uncorrectable RAS errors over all blocks since the driver "
        "loaded (amdgpu ras/*_err_count).", PT_COUNTER, false, NULL },
      GS_F_RAS, SOFF(ras_ue_count), PN_U64, 1, PF_INT },
    { { "gpuscope_ras_correctable_errors_total", "Correctable RAS errors over all blocks since the driver loaded.",
        PT_COUNTER, false, NULL },
      GS_F_RAS, SOFF(ras_ce_count), PN_U64, 1, PF_INT },
    { { "gpuscope_ras_bad_pages", "VRAM pages retired after uncorrectable errors (amdgpu gpu_vram_bad_pages).",
        PT_GAUGE, false, NULL },
      GS_F_RAS_BAD_PAGES, SOFF(ras_bad_pages), PN_U32, 1, PF_INT },
    { { "gpuscope_throttle_status_bits", "The driver's own throttle bits (amdgpu indep_throttle_status, Intel "
        "throttle reasons; names in docs/SERVE.md).", PT_GAUGE, false, NULL },
      GS_F_THROTTLE_VENDOR, SOFF(throttle_vendor), PN_U64, 1, PF_INT },
};

const struct prom_bit_name gs_prom_throttle_names[] = {
    { GS_THROTTLE_GPU_IDLE, "gpu_idle" },       { GS_THROTTLE_APP_CLOCKS, "clocks_setting" },
    { GS_THROTTLE_SW_POWER_CAP, "power_cap" },  { GS_THROTTLE_HW_SLOWDOWN, "hw_slowdown" },
    { GS_THROTTLE_SYNC_BOOST, "sync_boost" },   { GS_THROTTLE_SW_THERMAL, "sw_thermal" },
    { GS_THROTTLE_HW_THERMAL, "hw_thermal" },   { GS_THROTTLE_HW_POWER_BRAKE, "hw_power_brake" },
    { GS_THROTTLE_DISPLAY_CLOCK, "display_clocks" },
};

const struct prom_status_name gs_prom_status_names[] = {
    { GS_ST_NOT_SUPPORTED, "not_supported" }, { GS_ST_NO_PERMISSION, "no_permission" },
    { GS_ST_GPU_LOST, "gpu_lost" },           { GS_ST_NOT_AVAILABLE, "not_available" },
    { GS_ST_ERROR, "error" },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
const size_t gs_prom_nthrottle_names = NELEM(gs_prom_throttle_names);
const size_t gs_prom_nstatus_names = NELEM(gs_prom_status_names);

const struct prom_table gs_prom_tables[] = {
    { dcgm_sample, NELEM(dcgm_sample), false, false },
    { dcgm_static, NELEM(dcgm_static), true, false },
    { own_sample, NELEM(own_sample), false, false },
    { own_static, NELEM(own_static), true, false },
    { drm_dcgm_sample, NELEM(drm_dcgm_sample), false, true },
    { drm_dcgm_static, NELEM(drm_dcgm_static), true, true },
    { drm_sample, NELEM(drm_sample), false, false },
};
const size_t gs_prom_ntables = NELEM(gs_prom_tables);
