/* SPDX-License-Identifier: MIT */
/*
 * model_static.h - struct gs_static, the facts read once per GPU (identity,
 * limits, thresholds), with enum gs_sfield and its validity helpers. Included
 * through core/model.h.
 */
#ifndef GS_MODEL_STATIC_H
#define GS_MODEL_STATIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model_sample.h" /* enum gs_status, GS_MAX_ENGINES */


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

/* Names for people: "Hopper", "P0", "SW power cap", ... */
const char *gs_arch_name(uint32_t nvml_arch);

#endif /* GS_MODEL_STATIC_H */
