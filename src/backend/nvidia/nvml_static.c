/* SPDX-License-Identifier: MIT */
/*
 * nvml_static.c - the facts read once per GPU per run (struct gs_static):
 * identity, PCI, limits and thresholds, maximum clocks and link, fan count,
 * supported throttle reasons. Also primes the device state the per-tick code
 * needs (fan count, MIG mode). A zeroed gs_static means "nothing supported",
 * so a missing symbol simply leaves its field alone.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/roots.h"

struct nvml_sread {
    struct nvml_device *d;
    const struct nvml_fns *f;
    struct gs_gpu *g;
    struct gs_static *st;
};

/* Record the result of one call for static field sf; true when it has a value. */
static bool nvml_st(struct nvml_sread *t, enum gs_sfield sf, nvmlReturn_t r, const char *what)
{
    enum gs_status s = gs_nvml_status(t->d, t->g, r, GS_FMASK_NONE, what);

    gs_static_mark(t->st, sf, s);
    return s == GS_ST_OK;
}

static void nvml_static_identity(struct nvml_sread *t)
{
    const struct nvml_fns *f = t->f;
    nvmlDevice_t h = t->d->handle;
    struct gs_static *st = t->st;

    if (f->name)
        nvml_st(t, GS_S_NAME, f->name(h, st->name, sizeof(st->name)), "name");
    if (f->uuid && nvml_st(t, GS_S_UUID, f->uuid(h, st->uuid, sizeof(st->uuid)), "UUID"))
        snprintf(t->d->uuid, sizeof(t->d->uuid), "%s", st->uuid); /* to find it again after a loss */
    if (f->serial)
        nvml_st(t, GS_S_SERIAL, f->serial(h, st->serial, sizeof(st->serial)), "serial");
    if (f->board_id)
        nvml_st(t, GS_S_BOARD_ID, f->board_id(h, &st->board_id), "board id");
    if (f->vbios)
        nvml_st(t, GS_S_VBIOS, f->vbios(h, st->vbios, sizeof(st->vbios)), "VBIOS version");
    if (f->arch && nvml_st(t, GS_S_ARCH, f->arch(h, &st->arch), "architecture"))
        snprintf(st->arch_name, sizeof(st->arch_name), "%s", gs_arch_name(st->arch));
    if (f->cuda_cc)
        nvml_st(t, GS_S_CUDA_CC, f->cuda_cc(h, &st->cc_major, &st->cc_minor), "compute capability");
    if (f->brand)
        nvml_st(t, GS_S_BRAND, f->brand(h, &st->brand), "brand");
    if (f->minor_number)
        nvml_st(t, GS_S_MINOR_NUMBER, f->minor_number(h, &st->minor_number), "minor number");
}

static void nvml_static_pci(struct nvml_sread *t)
{
    struct gs_static *st = t->st;
    nvmlPciInfo_t pci;

    if (!t->f->pci_info)
        return;
    memset(&pci, 0, sizeof(pci));
    if (!nvml_st(t, GS_S_PCI, t->f->pci_info(t->d->handle, &pci), "PCI info"))
        return;
    pci.busId[sizeof(pci.busId) - 1] = '\0';
    pci.busIdLegacy[sizeof(pci.busIdLegacy) - 1] = '\0';
    if (pci.busId[0])
        snprintf(st->pci_bus_id, sizeof(st->pci_bus_id), "%s", pci.busId);
    else /* older variants may fill only the 4-digit-domain form */
        snprintf(st->pci_bus_id, sizeof(st->pci_bus_id), "%08X:%02X:%02X.0", pci.domain, pci.bus,
                 pci.device);
    st->pci_domain = pci.domain;
    st->pci_bus = pci.bus;
    st->pci_device = pci.device;
    st->pci_device_id = pci.pciDeviceId;
    st->pci_subsystem_id = pci.pciSubSystemId;
    snprintf(t->d->bus_id, sizeof(t->d->bus_id), "%s", st->pci_bus_id);
}

static void nvml_static_threshold(struct nvml_sread *t, enum gs_sfield sf,
                                  nvmlTemperatureThresholds_t which, int32_t *out)
{
    unsigned v = 0;

    if (t->f->temp_threshold &&
        nvml_st(t, sf, t->f->temp_threshold(t->d->handle, which, &v), "temperature threshold"))
        *out = (int32_t)v;
}

static void nvml_static_limits(struct nvml_sread *t)
{
    const struct nvml_fns *f = t->f;
    nvmlDevice_t h = t->d->handle;
    struct gs_static *st = t->st;

    nvml_static_threshold(t, GS_S_TEMP_SHUTDOWN, NVML_TEMPERATURE_THRESHOLD_SHUTDOWN,
                          &st->temp_shutdown_c);
    nvml_static_threshold(t, GS_S_TEMP_SLOWDOWN, NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
                          &st->temp_slowdown_c);
    nvml_static_threshold(t, GS_S_TEMP_GPU_MAX, NVML_TEMPERATURE_THRESHOLD_GPU_MAX,
                          &st->temp_gpu_max_c);
    nvml_static_threshold(t, GS_S_TEMP_MEM_MAX, NVML_TEMPERATURE_THRESHOLD_MEM_MAX,
                          &st->temp_mem_max_c);
    if (f->power_default_limit)
        nvml_st(t, GS_S_POWER_DEFAULT, f->power_default_limit(h, &st->power_default_limit_mw),
                "default power limit");
    if (f->power_constraints)
        nvml_st(t, GS_S_POWER_MINMAX,
                f->power_constraints(h, &st->power_min_limit_mw, &st->power_max_limit_mw),
                "power limit constraints");
}

static void nvml_static_max(struct nvml_sread *t)
{
    static const struct {
        enum gs_sfield sf;
        nvmlClockType_t type;
        size_t off;
    } clocks[] = {
        { GS_S_CLOCK_MAX_GRAPHICS, NVML_CLOCK_GRAPHICS, offsetof(struct gs_static, clock_max_graphics_mhz) },
        { GS_S_CLOCK_MAX_SM, NVML_CLOCK_SM, offsetof(struct gs_static, clock_max_sm_mhz) },
        { GS_S_CLOCK_MAX_MEM, NVML_CLOCK_MEM, offsetof(struct gs_static, clock_max_mem_mhz) },
        { GS_S_CLOCK_MAX_VIDEO, NVML_CLOCK_VIDEO, offsetof(struct gs_static, clock_max_video_mhz) },
    };
    const struct nvml_fns *f = t->f;
    nvmlDevice_t h = t->d->handle;
    struct gs_static *st = t->st;

    for (size_t i = 0; f->max_clock && i < sizeof(clocks) / sizeof(clocks[0]); i++) {
        unsigned v = 0;
        if (nvml_st(t, clocks[i].sf, f->max_clock(h, clocks[i].type, &v), "max clock"))
            memcpy((char *)st + clocks[i].off, &v, sizeof(v));
    }
    if (f->pcie_max_gen)
        nvml_st(t, GS_S_PCIE_MAX_GEN, f->pcie_max_gen(h, &st->pcie_max_gen), "max PCIe generation");
    if (f->pcie_gpu_max_gen)
        nvml_st(t, GS_S_PCIE_GPU_MAX_GEN, f->pcie_gpu_max_gen(h, &st->pcie_gpu_max_gen),
                "GPU max PCIe generation");
    if (f->pcie_max_width)
        nvml_st(t, GS_S_PCIE_MAX_WIDTH, f->pcie_max_width(h, &st->pcie_max_width),
                "max PCIe width");
}

static void nvml_static_misc(struct nvml_sread *t)
{
    const struct nvml_fns *f = t->f;
    struct nvml_device *d = t->d;
    struct gs_static *st = t->st;
    unsigned long long mask = 0;
    unsigned cur = 0, pend = 0;

    if (f->num_fans && nvml_st(t, GS_S_FAN_COUNT, f->num_fans(d->handle, &st->fan_count), "fans"))
        d->fan_count = st->fan_count < GS_MAX_FANS ? st->fan_count : GS_MAX_FANS;
    if (f->fan_minmax)
        nvml_st(t, GS_S_FAN_MINMAX, f->fan_minmax(d->handle, &st->fan_min_pct, &st->fan_max_pct), "fan speed range");
    if (f->supported_reasons &&
        nvml_st(t, GS_S_THROTTLE_SUPPORTED, f->supported_reasons(d->handle, &mask),
                "supported clock event reasons"))
        st->throttle_supported = mask;
    /* Not a gs_static field: the process code must know whether MIG is on
     * before the first tick that reads GS_F_MIG_MODE (if any does). */
    if (f->mig_mode && f->mig_mode(d->handle, &cur, &pend) == NVML_SUCCESS)
        d->mig_on = cur == NVML_DEVICE_MIG_ENABLE;
}

/* ---- query fidelity (9a): identity details nvidia-smi prints ------------------ */

static void nvml_static_inforom(struct nvml_sread *t)
{
    static const struct {
        enum gs_sfield sf;
        nvmlInforomObject_t obj;
        size_t off, len;
    } objs[] = {
        { GS_S_INFOROM_OEM, NVML_INFOROM_OEM, offsetof(struct gs_static, inforom_oem), sizeof(((struct gs_static *)0)->inforom_oem) },
        { GS_S_INFOROM_ECC, NVML_INFOROM_ECC, offsetof(struct gs_static, inforom_ecc), sizeof(((struct gs_static *)0)->inforom_ecc) },
        { GS_S_INFOROM_PWR, NVML_INFOROM_POWER, offsetof(struct gs_static, inforom_pwr), sizeof(((struct gs_static *)0)->inforom_pwr) },
    };
    const struct nvml_fns *f = t->f;
    nvmlDevice_t h = t->d->handle;
    struct gs_static *st = t->st;

    if (f->inforom_image)
        nvml_st(t, GS_S_INFOROM_IMG, f->inforom_image(h, st->inforom_img, sizeof(st->inforom_img)),
                "InfoROM image version");
    for (size_t i = 0; f->inforom_version && i < sizeof(objs) / sizeof(objs[0]); i++)
        nvml_st(t, objs[i].sf, f->inforom_version(h, objs[i].obj, (char *)st + objs[i].off, (unsigned)objs[i].len),
                "InfoROM version");
    if (f->validate_inforom) {
        nvmlReturn_t r = f->validate_inforom(h);
        st->inforom_valid = r == NVML_SUCCESS;
        if (r == NVML_ERROR_CORRUPTED_INFOROM)
            r = NVML_SUCCESS; /* a value: "invalid" */
        nvml_st(t, GS_S_INFOROM_VALID, r, "InfoROM validation");
    }
}

/* The slot's own maximum generation: the upstream bridge's max_link_speed in
 * sysfs (NVML has no call for it), under $GPUSCOPE_SYS_ROOT as every sysfs reader (lib/roots.h). */
static void nvml_static_host_max(struct nvml_sread *t)
{
    static const struct { const char *speed; unsigned gen; } gens[] = {
        { "2.5 GT/s", 1 }, { "5.0 GT/s", 2 }, { "8.0 GT/s", 3 }, { "16.0 GT/s", 4 },
        { "32.0 GT/s", 5 }, { "64.0 GT/s", 6 },
    };
    char rel[64], path[512], real[PATH_MAX], speed[64] = "";
    struct gs_static *st = t->st;
    FILE *fp;

    if (!gs_static_has(st, GS_S_PCI))
        return;
    snprintf(rel, sizeof(rel), "bus/pci/devices/%04x:%02x:%02x.0", st->pci_domain & 0xFFFFu,
             st->pci_bus & 0xFFu, st->pci_device & 0x1Fu);
    if (gs_sys_path(path, sizeof(path), rel) < 0 || !realpath(path, real))
        return;
    char *slash = strrchr(real, '/');
    if (!slash || gs_path(slash, sizeof(real) - (size_t)(slash - real), "/max_link_speed") < 0)
        return;
    fp = fopen(real, "re");
    if (!fp)
        return;
    if (!fgets(speed, sizeof(speed), fp))
        speed[0] = '\0';
    fclose(fp);
    for (size_t i = 0; i < sizeof(gens) / sizeof(gens[0]); i++) {
        if (!strncmp(speed, gens[i].speed, strlen(gens[i].speed))) {
            st->pcie_host_max_gen = gens[i].gen;
            gs_static_mark(st, GS_S_PCIE_HOST_MAX, GS_ST_OK);
        }
    }
}

static void nvml_static_fidelity(struct nvml_sread *t)
{
    const struct nvml_fns *f = t->f;
    nvmlDevice_t h = t->d->handle;
    struct gs_static *st = t->st;

    if (f->pci_info_ext) {
        nvmlPciInfoExt_v1_t ext;
        memset(&ext, 0, sizeof(ext));
        ext.version = nvmlPciInfoExt_v1;
        if (nvml_st(t, GS_S_PCI_CLASS, f->pci_info_ext(h, &ext), "PCI info (ext)")) {
            st->pci_base_class = ext.baseClass;
            st->pci_sub_class = ext.subClass;
        }
    }
    nvml_static_inforom(t);
    if (f->gsp_mode)
        nvml_st(t, GS_S_GSP_MODE, f->gsp_mode(h, &st->gsp_mode_current, &st->gsp_mode_default),
                "GSP firmware mode");
    if (f->addressing_mode) {
        nvmlDeviceAddressingMode_v1_t m = { nvmlDeviceAddressingMode_v1, 0 };
        if (nvml_st(t, GS_S_ADDRESSING, f->addressing_mode(h, &m), "addressing mode"))
            st->addressing_mode = m.value;
    }
    if (f->accounting_buffer)
        nvml_st(t, GS_S_ACCT_BUFFER, f->accounting_buffer(h, &st->acct_buffer_size), "accounting buffer size");
    if (f->board_part)
        nvml_st(t, GS_S_BOARD_PART, f->board_part(h, st->board_part, sizeof(st->board_part)),
                "board part number");
    if (f->virt_mode) {
        nvmlGpuVirtualizationMode_t m = NVML_GPU_VIRTUALIZATION_MODE_NONE;
        if (nvml_st(t, GS_S_VIRT_MODE, f->virt_mode(h, &m), "virtualization mode"))
            st->virt_mode = (uint32_t)m;
    }
    if (f->c2c_mode) {
        nvmlC2cModeInfo_v1_t c = { 0 };
        if (nvml_st(t, GS_S_C2C_MODE, f->c2c_mode(h, &c), "C2C mode"))
            st->c2c_enabled = c.isC2cEnabled != 0;
    }
    if (f->platform_info) {
        nvmlPlatformInfo_v2_t p;
        memset(&p, 0, sizeof(p));
        p.version = nvmlPlatformInfo_v2;
        if (nvml_st(t, GS_S_PLATFORM, f->platform_info(h, &p), "platform info")) {
            snprintf(st->platform_chassis_serial, sizeof(st->platform_chassis_serial), "%.16s",
                     (const char *)p.chassisSerialNumber);
            st->platform_slot = p.slotNumber;
            st->platform_tray = p.trayIndex;
            st->platform_host_id = p.hostId;
            st->platform_peer_type = p.peerType;
            st->platform_module_id = p.moduleId;
            st->platform_guid = 0;
            for (int i = 0; i < 8; i++)
                st->platform_guid = st->platform_guid << 8 | p.ibGuid[i];
        }
    }
    if (f->pdi) {
        nvmlPdi_v1_t p = { nvmlPdi_v1, 0 };
        if (nvml_st(t, GS_S_PDI, f->pdi(h, &p), "PDI"))
            st->pdi = p.value;
    }
    nvml_static_host_max(t);
}

/* A GPU that could not be opened or is lost: every field says why, except
 * what the driver's own list knows of it (PCI bus id, UUID, model). */
static int nvml_static_unreadable(struct nvml_device *d, struct gs_gpu *g)
{
    enum gs_status s = gs_nvml_status(d, g, d->open_rc, GS_FMASK_NONE, "open");

    if (atomic_load(&d->lost))
        s = GS_ST_GPU_LOST;
    for (int i = 0; i < GS_S_COUNT; i++)
        gs_static_mark(&g->st, (enum gs_sfield)i, s);
    if (d->bus_id[0]) {
        snprintf(g->st.pci_bus_id, sizeof(g->st.pci_bus_id), "%s", d->bus_id);
        gs_static_mark(&g->st, GS_S_PCI, GS_ST_OK);
    }
    const char *uuid = d->uuid[0] ? d->uuid : d->drv_uuid;
    if (uuid[0]) {
        snprintf(g->st.uuid, sizeof(g->st.uuid), "%s", uuid);
        gs_static_mark(&g->st, GS_S_UUID, GS_ST_OK);
    }
    if (d->drv_name[0]) {
        snprintf(g->st.name, sizeof(g->st.name), "%s", d->drv_name);
        gs_static_mark(&g->st, GS_S_NAME, GS_ST_OK);
    }
    gs_nvml_gpu_state(d, g);
    if (!g->last_error[0])
        snprintf(g->last_error, sizeof(g->last_error), "%s", gs_status_name(s));
    return s == GS_ST_GPU_LOST ? -GS_E_GPU_LOST : s == GS_ST_NO_PERMISSION ? -GS_E_PERMISSION
                                                                           : -GS_E_BACKEND;
}

int gs_nvml_read_static(struct gs_bdev *b, struct gs_gpu *g)
{
    struct nvml_device *d = nvml_dev(b);
    struct nvml_sread t = { d, &d->ctx->lib.f, g, &g->st };

    memset(&g->st, 0, sizeof(g->st));
    g->st.index = b->index;
    g->last_error[0] = '\0';
    if (d->open_rc != NVML_SUCCESS || atomic_load(&d->lost))
        return nvml_static_unreadable(d, g);
    nvml_static_identity(&t);
    nvml_static_pci(&t);
    nvml_static_limits(&t);
    nvml_static_max(&t);
    nvml_static_misc(&t);
    nvml_static_fidelity(&t);
    gs_nvml_gpu_state(d, g);
    if (atomic_load(&d->lost))
        return -GS_E_GPU_LOST;
    return 0;
}
