/* SPDX-License-Identifier: MIT */
/*
 * amdgpu_metrics_abi.h - our own declarations of the binary table amdgpu
 * publishes as device/gpu_metrics, shared by the decoder (amdgpu_metrics.c)
 * and the DRM simulator that writes it (sim/drm/), so the two cannot drift.
 *
 * Layout: the kernel's drivers/gpu/drm/amd/include/kgd_pp_interface.h
 * (struct metrics_table_header and struct gpu_metrics_vX_Y), read, not
 * copied: plain C structs with natural alignment, as the kernel compiles
 * them. A table starts with {structure_size, format_revision,
 * content_revision}; format 1 is a discrete GPU, 2 and 3 an APU. Later
 * content revisions of one format extend the earlier ones at the end
 * (1.1 -> 1.3, 2.1 -> 2.4), except 1.4/1.5/1.6 (MI300), which each change
 * the middle. A field the firmware does not fill reads 0xFFFF (all ones).
 */
#ifndef GS_AMDGPU_METRICS_ABI_H
#define GS_AMDGPU_METRICS_ABI_H

#include <stdint.h>

#define AMDM_HBM 4
#define AMDM_XGMI 8
#define AMDM_GFX_CLKS 8
#define AMDM_CLKS 4
#define AMDM_VCN 4
#define AMDM_JPEG 32

struct amdm_header {
    uint16_t structure_size;
    uint8_t format_revision;
    uint8_t content_revision;
};

/* 1.0: Vega12-era; not naturally aligned in the kernel's own words. */
struct amdm_v1_0 {
    struct amdm_header h;
    uint64_t system_clock_counter;
    uint16_t temperature_edge, temperature_hotspot, temperature_mem;
    uint16_t temperature_vrgfx, temperature_vrsoc, temperature_vrmem;
    uint16_t average_gfx_activity, average_umc_activity, average_mm_activity;
    uint16_t average_socket_power;  /* W */
    uint32_t energy_accumulator;
    uint16_t average_clk[7];        /* gfx, soc, uclk, vclk0, dclk0, vclk1, dclk1 */
    uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0;
    uint16_t current_vclk1, current_dclk1;
    uint32_t throttle_status;       /* ASIC dependent */
    uint16_t current_fan_speed;     /* RPM */
    uint8_t pcie_link_width;
    uint8_t pcie_link_speed;        /* 0.1 GT/s */
};

/* 1.1 .. 1.3 (Navi, Aldebaran): each revision appends to the previous. */
struct amdm_v1_3 {
    struct amdm_header h;
    uint16_t temperature_edge, temperature_hotspot, temperature_mem;   /* C */
    uint16_t temperature_vrgfx, temperature_vrsoc, temperature_vrmem;
    uint16_t average_gfx_activity, average_umc_activity, average_mm_activity; /* % */
    uint16_t average_socket_power;  /* W */
    uint64_t energy_accumulator;
    uint64_t system_clock_counter;
    uint16_t average_clk[7];
    uint16_t current_gfxclk, current_socclk, current_uclk, current_vclk0, current_dclk0;
    uint16_t current_vclk1, current_dclk1;
    uint32_t throttle_status;
    uint16_t current_fan_speed;
    uint16_t pcie_link_width;
    uint16_t pcie_link_speed;
    uint16_t padding;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint16_t temperature_hbm[AMDM_HBM];
    /* 1.2 */
    uint64_t firmware_timestamp;
    /* 1.3 */
    uint16_t voltage_soc, voltage_gfx, voltage_mem; /* mV */
    uint16_t padding1;
    uint64_t indep_throttle_status; /* ASIC independent: SMU_THROTTLER_* bits */
};

/* 1.4 (MI300). */
struct amdm_v1_4 {
    struct amdm_header h;
    uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc; /* C */
    uint16_t curr_socket_power;     /* W */
    uint16_t average_gfx_activity, average_umc_activity;
    uint16_t vcn_activity[AMDM_VCN];
    uint64_t energy_accumulator;    /* 15.259 uJ (2^-16 J) units */
    uint64_t system_clock_counter;
    uint32_t throttle_status;
    uint32_t gfxclk_lock_status;
    uint16_t pcie_link_width, pcie_link_speed;
    uint16_t xgmi_link_width, xgmi_link_speed;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst;
    uint64_t pcie_l0_to_recov_count_acc, pcie_replay_count_acc, pcie_replay_rover_count_acc;
    uint64_t xgmi_read_data_acc[AMDM_XGMI], xgmi_write_data_acc[AMDM_XGMI];
    uint64_t firmware_timestamp;
    uint16_t current_gfxclk[AMDM_GFX_CLKS];
    uint16_t current_socclk[AMDM_CLKS], current_vclk0[AMDM_CLKS], current_dclk0[AMDM_CLKS];
    uint16_t current_uclk;
    uint16_t padding;
};

/* 1.5 (MI300): 1.4 with JPEG activity in the middle and PCIe NAK counters. */
struct amdm_v1_5 {
    struct amdm_header h;
    uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
    uint16_t curr_socket_power;
    uint16_t average_gfx_activity, average_umc_activity;
    uint16_t vcn_activity[AMDM_VCN];
    uint16_t jpeg_activity[AMDM_JPEG];
    uint64_t energy_accumulator;
    uint64_t system_clock_counter;
    uint32_t throttle_status;
    uint32_t gfxclk_lock_status;
    uint16_t pcie_link_width, pcie_link_speed;
    uint16_t xgmi_link_width, xgmi_link_speed;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst;
    uint64_t pcie_l0_to_recov_count_acc, pcie_replay_count_acc, pcie_replay_rover_count_acc;
    uint32_t pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc;
    uint64_t xgmi_read_data_acc[AMDM_XGMI], xgmi_write_data_acc[AMDM_XGMI];
    uint64_t firmware_timestamp;
    uint16_t current_gfxclk[AMDM_GFX_CLKS];
    uint16_t current_socclk[AMDM_CLKS], current_vclk0[AMDM_CLKS], current_dclk0[AMDM_CLKS];
    uint16_t current_uclk;
    uint16_t padding;
};

/* 1.6 (MI300): 1.5 with throttle residencies before throttle_status. */
struct amdm_v1_6 {
    struct amdm_header h;
    uint16_t temperature_hotspot, temperature_mem, temperature_vrsoc;
    uint16_t curr_socket_power;
    uint16_t average_gfx_activity, average_umc_activity;
    uint16_t vcn_activity[AMDM_VCN];
    uint16_t jpeg_activity[AMDM_JPEG];
    uint64_t energy_accumulator;
    uint64_t system_clock_counter;
    uint32_t accumulation_counter;
    uint32_t prochot_residency_acc, ppt_residency_acc, socket_thm_residency_acc;
    uint32_t vr_thm_residency_acc, hbm_thm_residency_acc;
    uint32_t throttle_status;
    uint32_t gfxclk_lock_status;
    uint16_t pcie_link_width, pcie_link_speed;
    uint16_t xgmi_link_width, xgmi_link_speed;
    uint32_t gfx_activity_acc, mem_activity_acc;
    uint64_t pcie_bandwidth_acc, pcie_bandwidth_inst;
    uint64_t pcie_l0_to_recov_count_acc, pcie_replay_count_acc, pcie_replay_rover_count_acc;
    uint32_t pcie_nak_sent_count_acc, pcie_nak_rcvd_count_acc;
    uint64_t xgmi_read_data_acc[AMDM_XGMI], xgmi_write_data_acc[AMDM_XGMI];
    uint64_t firmware_timestamp;
    uint16_t current_gfxclk[AMDM_GFX_CLKS];
    uint16_t current_socclk[AMDM_CLKS], current_vclk0[AMDM_CLKS], current_dclk0[AMDM_CLKS];
    uint16_t current_uclk;
    uint16_t padding;
};

/* 2.0: Renoir; not naturally aligned. Temperatures in centi-degrees, power in mW. */
struct amdm_v2_0 {
    struct amdm_header h;
    uint64_t system_clock_counter;
    uint16_t temperature_gfx, temperature_soc, temperature_core[8], temperature_l3[2];
    uint16_t average_gfx_activity, average_mm_activity;
    uint16_t average_socket_power, average_cpu_power, average_soc_power, average_gfx_power;
    uint16_t average_core_power[8];
    uint16_t average_clk[6];        /* gfx, soc, uclk, fclk, vclk, dclk */
    uint16_t current_gfxclk, current_socclk, current_uclk, current_fclk, current_vclk, current_dclk;
    uint16_t current_coreclk[8], current_l3clk[2];
    uint32_t throttle_status;
    uint16_t fan_pwm;
    uint16_t padding;
};

/* 2.1 .. 2.4 (Vangogh, Rembrandt, Phoenix): each revision appends. */
struct amdm_v2_4 {
    struct amdm_header h;
    uint16_t temperature_gfx, temperature_soc, temperature_core[8], temperature_l3[2]; /* centi-C */
    uint16_t average_gfx_activity, average_mm_activity; /* % (2.4: centi-%) */
    uint64_t system_clock_counter;
    uint16_t average_socket_power, average_cpu_power, average_soc_power, average_gfx_power; /* mW */
    uint16_t average_core_power[8];
    uint16_t average_clk[6];
    uint16_t current_gfxclk, current_socclk, current_uclk, current_fclk, current_vclk, current_dclk;
    uint16_t current_coreclk[8], current_l3clk[2];
    uint32_t throttle_status;
    uint16_t fan_pwm;
    uint16_t padding[3];
    /* 2.2 */
    uint64_t indep_throttle_status;
    /* 2.3 */
    uint16_t average_temperature_gfx, average_temperature_soc;
    uint16_t average_temperature_core[8], average_temperature_l3[2];
    /* 2.4 */
    uint16_t average_cpu_voltage, average_soc_voltage, average_gfx_voltage; /* mV */
    uint16_t average_cpu_current, average_soc_current, average_gfx_current; /* mA */
};

/* 3.0 (Strix): temperatures in centi-degrees, activity in %, power in mW. */
struct amdm_v3_0 {
    struct amdm_header h;
    uint16_t temperature_gfx, temperature_soc, temperature_core[16], temperature_skin;
    uint16_t average_gfx_activity, average_vcn_activity;
    uint16_t average_ipu_activity[8], average_core_c0_activity[16];
    uint16_t average_dram_reads, average_dram_writes, average_ipu_reads, average_ipu_writes;
    uint64_t system_clock_counter;
    uint32_t average_socket_power;
    uint16_t average_ipu_power;
    uint32_t average_apu_power, average_gfx_power, average_dgpu_power, average_all_core_power;
    uint16_t average_core_power[16];
    uint16_t average_sys_power, stapm_power_limit, current_stapm_power_limit;
    uint16_t average_gfxclk_frequency, average_socclk_frequency, average_vpeclk_frequency;
    uint16_t average_ipuclk_frequency, average_fclk_frequency, average_vclk_frequency;
    uint16_t average_uclk_frequency, average_mpipu_frequency;
    uint16_t current_coreclk[16];
    uint16_t current_core_maxfreq, current_gfx_maxfreq;
    uint32_t throttle_residency_prochot, throttle_residency_spl, throttle_residency_fppt;
    uint32_t throttle_residency_sppt, throttle_residency_thm_core, throttle_residency_thm_gfx;
    uint32_t throttle_residency_thm_soc;
    uint32_t time_filter_alphavalue;
};

/* SMU_THROTTLER_* bit ranges of indep_throttle_status (amdgpu_smu.h). */
#define AMDM_THR_PPT_MASK 0x00000000000000ffull     /* 0-7: PPT0..3, SPL, FPPT, SPPT, SPPT_APU */
#define AMDM_THR_CURRENT_MASK 0x0000000000ff0000ull /* 16-23: TDC_GFX, TDC_SOC, TDC_MEM, TDC_VDD, ... */
#define AMDM_THR_TEMP_MASK 0x0000ffff00000000ull    /* 32-47: TEMP_GPU .. TEMP_LIQUID1, VRHOT0/1 */
#define AMDM_THR_VRHOT_MASK 0x0000300000000000ull   /* 44-45: VRHOT0, VRHOT1 */
#define AMDM_THR_PROCHOT_MASK 0x0300000000000000ull /* 56-57: PROCHOT_CPU, PROCHOT_GFX */
#define AMDM_THR_OTHER_MASK 0x0c00000000000000ull   /* 58-59: PPM, FIT */

#endif /* GS_AMDGPU_METRICS_ABI_H */
