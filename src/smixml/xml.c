/* SPDX-License-Identifier: MIT */
/*
 * xml.c - `gpuscope smi -q -x`: the nvsmi_log XML, written with libxml2's
 * xmlTextWriter (every value escaped by the library), tab-indented as
 * nvidia-smi indents it, with the DTD version of the driver branch NVML
 * reports (v11 R515, v12 R525-R570, v13 R580+, from real captures). Element
 * names follow the branch too: clocks_throttle_reasons and power_readings
 * before R535, clocks_event_reasons and gpu_power_readings from R535 on.
 * A module (smixml.so, core/module.h) so that the core binary does not link
 * libxml2 for the commands that never write XML.
 */
#include "core/exit.h"
#include "format/fields.h"
#include "format/smi.h"

#include <libxml/xmlwriter.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int gs_smi_xml_write(FILE *out, const struct gs_snapshot *snap, bool dtd);

struct x {
    xmlTextWriterPtr w;
    int depth;
    int rc;
    const struct gs_gpu *g;
    unsigned major;
};

static void indent(struct x *x)
{
    char tabs[32];
    int n = x->depth < 30 ? x->depth : 30;

    tabs[0] = '\n';
    memset(tabs + 1, '\t', (size_t)n);
    tabs[n + 1] = '\0';
    if (xmlTextWriterWriteRaw(x->w, BAD_CAST tabs) < 0)
        x->rc = -1;
}

static void open_el(struct x *x, const char *name)
{
    indent(x);
    if (xmlTextWriterStartElement(x->w, BAD_CAST name) < 0)
        x->rc = -1;
    x->depth++;
}

static void close_el(struct x *x)
{
    x->depth--;
    indent(x);
    if (xmlTextWriterEndElement(x->w) < 0)
        x->rc = -1;
}

static void el(struct x *x, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void el(struct x *x, const char *name, const char *fmt, ...)
{
    char buf[4200];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    indent(x);
    if (xmlTextWriterWriteElement(x->w, BAD_CAST name, BAD_CAST buf) < 0)
        x->rc = -1;
}

#define S (&x->g->s)
#define ST (&x->g->st)

static bool has(const struct x *x, enum gs_field f)
{
    return x->g->state == GS_GPU_OK && gs_sample_has(&x->g->s, f);
}

static bool shas(const struct x *x, enum gs_sfield f)
{
    return gs_static_has(&x->g->st, f);
}

static const char *na(const struct x *x, enum gs_field f)
{
    return x->g->s.status[f] == GS_ST_DEPRECATED ? "Requested functionality has been deprecated" : "N/A";
}

static void el_u(struct x *x, const char *name, enum gs_field f, unsigned long long v, const char *unit)
{
    if (has(x, f))
        el(x, name, "%llu%s%s", v, unit ? " " : "", unit ? unit : "");
    else
        el(x, name, "%s", na(x, f));
}

static void el_su(struct x *x, const char *name, enum gs_sfield f, unsigned long long v, const char *unit)
{
    if (shas(x, f))
        el(x, name, "%llu%s%s", v, unit ? " " : "", unit ? unit : "");
    else
        el(x, name, "N/A");
}

static void el_en(struct x *x, const char *name, enum gs_field f, uint32_t on)
{
    el(x, name, "%s", has(x, f) ? on ? "Enabled" : "Disabled" : na(x, f));
}

static void el_w(struct x *x, const char *name, bool ok, uint32_t mw)
{
    uint64_t cw = ((uint64_t)mw + 5) / 10;
    if (ok)
        el(x, name, "%llu.%02u W", (unsigned long long)(cw / 100), (unsigned)(cw % 100));
    else
        el(x, name, "N/A");
}

static void identity(struct x *x)
{
    static const char *const brands[] = {"Unknown", "Quadro", "Tesla", "NVS", "Grid", "GeForce", "Titan",
                                         "NVIDIA Virtual Applications", "NVIDIA Virtual PC", "NVIDIA Virtual Compute Server",
                                         "NVIDIA RTX Virtual Workstation", "NVIDIA Cloud Gaming", "Quadro RTX",
                                         "NVIDIA RTX", "NVIDIA", "GeForce RTX", "Titan RTX"};
    el(x, "product_name", "%s", shas(x, GS_S_NAME) ? ST->name : "N/A");
    el(x, "product_brand", "%s", shas(x, GS_S_BRAND) && ST->brand < 17 ? brands[ST->brand] : "N/A");
    el(x, "product_architecture", "%s", shas(x, GS_S_ARCH) ? gs_arch_name(ST->arch) : "N/A");
    if (x->major >= 580) {
        el(x, "display_mode", "Requested functionality has been deprecated");
        el(x, "display_attached", "%s", has(x, GS_F_DISPLAY_MODE) ? S->display_mode ? "Yes" : "No" : "N/A");
    } else {
        el_en(x, "display_mode", GS_F_DISPLAY_MODE, S->display_mode);
    }
    el_en(x, "display_active", GS_F_DISPLAY_ACTIVE, S->display_active);
    el_en(x, "persistence_mode", GS_F_PERSISTENCE, S->persistence_mode);
    open_el(x, "mig_mode");
    el_en(x, "current_mig", GS_F_MIG_MODE, S->mig_mode_current);
    el_en(x, "pending_mig", GS_F_MIG_MODE, S->mig_mode_pending);
    close_el(x);
    el_en(x, "accounting_mode", GS_F_ACCOUNTING, S->accounting_mode);
    el_su(x, "accounting_mode_buffer_size", GS_S_ACCT_BUFFER, ST->acct_buffer_size, NULL);
    open_el(x, "driver_model");
    el(x, "current_dm", "N/A");
    el(x, "pending_dm", "N/A");
    close_el(x);
    el(x, "serial", "%s", shas(x, GS_S_SERIAL) ? ST->serial : "N/A");
    el(x, "uuid", "%s", shas(x, GS_S_UUID) ? ST->uuid : "N/A");
    el_su(x, "minor_number", GS_S_MINOR_NUMBER, ST->minor_number, NULL);
    el(x, "vbios_version", "%s", shas(x, GS_S_VBIOS) ? ST->vbios : "N/A");
    el(x, "multigpu_board", "No");
    if (shas(x, GS_S_BOARD_ID))
        el(x, "board_id", "0x%x", ST->board_id);
    else
        el(x, "board_id", "N/A");
    el(x, "board_part_number", "%s", shas(x, GS_S_BOARD_PART) ? ST->board_part : "N/A");
    el(x, "gpu_part_number", "N/A");
    open_el(x, "inforom_version");
    el(x, "img_version", "%s", shas(x, GS_S_INFOROM_IMG) ? ST->inforom_img : "N/A");
    el(x, "oem_object", "%s", shas(x, GS_S_INFOROM_OEM) ? ST->inforom_oem : "N/A");
    el(x, "ecc_object", "%s", shas(x, GS_S_INFOROM_ECC) ? ST->inforom_ecc : "N/A");
    el(x, "pwr_object", "%s", shas(x, GS_S_INFOROM_PWR) ? ST->inforom_pwr : "N/A");
    close_el(x);
}

static void pci(struct x *x)
{
    open_el(x, "pci");
    el(x, "pci_bus", "%02X", ST->pci_bus);
    el(x, "pci_device", "%02X", ST->pci_device);
    el(x, "pci_domain", "%04X", ST->pci_domain);
    if (shas(x, GS_S_PCI_CLASS)) {
        el(x, "pci_base_class", "%X", ST->pci_base_class);
        el(x, "pci_sub_class", "%X", ST->pci_sub_class);
    }
    el(x, "pci_device_id", "%08X", ST->pci_device_id);
    el(x, "pci_bus_id", "%s", ST->pci_bus_id);
    el(x, "pci_sub_system_id", "%08X", ST->pci_subsystem_id);
    open_el(x, "pci_gpu_link_info");
    open_el(x, "pcie_gen");
    el_su(x, "max_link_gen", GS_S_PCIE_MAX_GEN, ST->pcie_max_gen, NULL);
    el_u(x, "current_link_gen", GS_F_PCIE_GEN, S->pcie_gen, NULL);
    el_u(x, "device_current_link_gen", GS_F_PCIE_GEN, S->pcie_gen, NULL);
    el_su(x, "max_device_link_gen", GS_S_PCIE_GPU_MAX_GEN, ST->pcie_gpu_max_gen, NULL);
    el_su(x, "max_host_link_gen", GS_S_PCIE_HOST_MAX, ST->pcie_host_max_gen, NULL);
    close_el(x);
    open_el(x, "link_widths");
    if (shas(x, GS_S_PCIE_MAX_WIDTH))
        el(x, "max_link_width", "%ux", ST->pcie_max_width);
    else
        el(x, "max_link_width", "N/A");
    if (has(x, GS_F_PCIE_WIDTH))
        el(x, "current_link_width", "%ux", S->pcie_width);
    else
        el(x, "current_link_width", "N/A");
    close_el(x);
    close_el(x);
    el_u(x, "replay_counter", GS_F_PCIE_REPLAY, S->pcie_replay_count, NULL);
    el_u(x, "replay_rollover_counter", GS_F_PCIE_ROLLOVER, S->pcie_replay_rollovers, NULL);
    el_u(x, "tx_util", GS_F_PCIE_TX, S->pcie_tx_kbps, "KB/s");
    el_u(x, "rx_util", GS_F_PCIE_RX, S->pcie_rx_kbps, "KB/s");
    close_el(x);
}

static void performance(struct x *x)
{
    static const struct {
        const char *name;
        uint64_t bit;
    } reasons[] = {
        {"gpu_idle", GS_THROTTLE_GPU_IDLE}, {"applications_clocks_setting", GS_THROTTLE_APP_CLOCKS},
        {"sw_power_cap", GS_THROTTLE_SW_POWER_CAP}, {"hw_slowdown", GS_THROTTLE_HW_SLOWDOWN},
        {"hw_thermal_slowdown", GS_THROTTLE_HW_THERMAL}, {"hw_power_brake_slowdown", GS_THROTTLE_HW_POWER_BRAKE},
        {"sync_boost", GS_THROTTLE_SYNC_BOOST}, {"sw_thermal_slowdown", GS_THROTTLE_SW_THERMAL},
        {"display_clocks_setting", GS_THROTTLE_DISPLAY_CLOCK},
    };
    bool old = x->major && x->major < 535;
    char name[96];

    if (has(x, GS_F_FAN_SPEED) && S->fan_count)
        el(x, "fan_speed", "%u %%", S->fan_speed_pct[0]);
    else
        el(x, "fan_speed", "N/A");
    if (has(x, GS_F_PSTATE))
        el(x, "performance_state", "P%u", S->pstate);
    else
        el(x, "performance_state", "N/A");
    open_el(x, old ? "clocks_throttle_reasons" : "clocks_event_reasons");
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
        snprintf(name, sizeof(name), "%s_%s", old ? "clocks_throttle_reason" : "clocks_event_reason", reasons[i].name);
        el(x, name, "%s", !has(x, GS_F_THROTTLE) ? "N/A" : S->throttle_reasons & reasons[i].bit ? "Active" : "Not Active");
    }
    close_el(x);
    if (old)
        return;
    open_el(x, "clocks_event_reasons_counters"); /* throttle time (stream 12's counters), whole microseconds */
    for (size_t i = 0; i < 5; i++)
        el_u(x, gs_smi_viol[i].xml, GS_F_VIOL_POWER + gs_smi_viol[i].viol, S->violation_ns[gs_smi_viol[i].viol] / 1000,
             "us");
    close_el(x);
}

static void memory(struct x *x)
{
    open_el(x, "fb_memory_usage");
    el_u(x, "total", GS_F_MEM_TOTAL, S->mem_total_bytes >> 20, "MiB");
    if (!x->major || x->major >= 510)
        el_u(x, "reserved", GS_F_MEM_RESERVED, S->mem_reserved_bytes >> 20, "MiB");
    el_u(x, "used", GS_F_MEM_USED, S->mem_used_bytes >> 20, "MiB");
    el_u(x, "free", GS_F_MEM_FREE, S->mem_free_bytes >> 20, "MiB");
    close_el(x);
    open_el(x, "bar1_memory_usage");
    el_u(x, "total", GS_F_BAR1_TOTAL, S->bar1_total_bytes >> 20, "MiB");
    el_u(x, "used", GS_F_BAR1_USED, S->bar1_used_bytes >> 20, "MiB");
    el_u(x, "free", GS_F_BAR1_FREE, S->bar1_free_bytes >> 20, "MiB");
    close_el(x);
    if (!x->major || x->major >= 535) {
        open_el(x, "cc_protected_memory_usage");
        el_u(x, "total", GS_F_PROT_MEM, S->prot_mem_total_bytes >> 20, "MiB");
        el_u(x, "used", GS_F_PROT_MEM, S->prot_mem_used_bytes >> 20, "MiB");
        el_u(x, "free", GS_F_PROT_MEM, S->prot_mem_free_bytes >> 20, "MiB");
        close_el(x);
    }
    static const char *const modes[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    el(x, "compute_mode", "%s", has(x, GS_F_COMPUTE_MODE) && S->compute_mode < 4 ? modes[S->compute_mode] : "N/A");
    open_el(x, "utilization");
    el_u(x, "gpu_util", GS_F_GPU_UTIL, S->gpu_util_pct, "%");
    el_u(x, "memory_util", GS_F_MEM_UTIL, S->mem_util_pct, "%");
    el_u(x, "encoder_util", GS_F_ENC_UTIL, S->enc_util_pct, "%");
    el_u(x, "decoder_util", GS_F_DEC_UTIL, S->dec_util_pct, "%");
    if (!x->major || x->major >= 535) {
        el_u(x, "jpeg_util", GS_F_JPG_UTIL, S->jpg_util_pct, "%");
        el_u(x, "ofa_util", GS_F_OFA_UTIL, S->ofa_util_pct, "%");
    }
    close_el(x);
    open_el(x, "encoder_stats");
    el_u(x, "session_count", GS_F_ENC_STATS, S->enc_sessions, NULL);
    el_u(x, "average_fps", GS_F_ENC_STATS, S->enc_avg_fps, NULL);
    el_u(x, "average_latency", GS_F_ENC_STATS, S->enc_avg_latency_us, NULL);
    close_el(x);
}

static void ecc(struct x *x)
{
    open_el(x, "ecc_mode");
    el_en(x, "current_ecc", GS_F_ECC_MODE, S->ecc_mode_current);
    el_en(x, "pending_ecc", GS_F_ECC_MODE, S->ecc_mode_pending);
    close_el(x);
    open_el(x, "ecc_errors");
    for (int c = 0; c < 2; c++) {
        bool loc = has(x, GS_F_ECC_DETAIL);
        open_el(x, c ? "aggregate" : "volatile");
        if (loc && (S->ecc_loc_ok >> (c * GS_ECC_LOCS + 7) & 1))
            el(x, "sram_correctable", "%llu", (unsigned long long)S->ecc_loc[0][c][7]);
        else
            el(x, "sram_correctable", "N/A");
        el_u(x, "sram_uncorrectable_parity", GS_F_SRAM_ECC, c ? S->sram_agg_parity : S->sram_vol_parity, NULL);
        el_u(x, "sram_uncorrectable_secded", GS_F_SRAM_ECC, c ? S->sram_agg_secded : S->sram_vol_secded, NULL);
        if (loc && (S->ecc_loc_ok >> (c * GS_ECC_LOCS + 2) & 1)) {
            el(x, "dram_correctable", "%llu", (unsigned long long)S->ecc_loc[0][c][2]);
            el(x, "dram_uncorrectable", "%llu", (unsigned long long)S->ecc_loc[1][c][2]);
        } else {
            el(x, "dram_correctable", "N/A");
            el(x, "dram_uncorrectable", "N/A");
        }
        close_el(x);
    }
    close_el(x);
    open_el(x, "retired_pages");
    open_el(x, "multiple_single_bit_retirement");
    el_u(x, "retired_count", GS_F_RETIRED_SBE, S->retired_sbe_pages, NULL);
    close_el(x);
    open_el(x, "double_bit_retirement");
    el_u(x, "retired_count", GS_F_RETIRED_DBE, S->retired_dbe_pages, NULL);
    close_el(x);
    el(x, "pending_blacklist", "%s", !has(x, GS_F_RETIRED_PENDING) ? "N/A" : S->retired_pending ? "Yes" : "No");
    close_el(x);
    if (!has(x, GS_F_REMAP_CORR)) {
        el(x, "remapped_rows", "N/A");
        return;
    }
    open_el(x, "remapped_rows");
    el(x, "remapped_row_corr", "%u", S->remap_corr_rows);
    el(x, "remapped_row_unc", "%u", S->remap_uncorr_rows);
    el(x, "remapped_row_pending", "%s", S->remap_pending ? "Yes" : "No");
    el(x, "remapped_row_failure", "%s", S->remap_failed ? "Yes" : "No");
    close_el(x);
}

static void thermal_power(struct x *x)
{
    open_el(x, "temperature");
    if (has(x, GS_F_TEMP_GPU))
        el(x, "gpu_temp", "%d C", S->temp_gpu_c);
    else
        el(x, "gpu_temp", "N/A");
    if (has(x, GS_F_TEMP_TLIMIT))
        el(x, "gpu_temp_tlimit", "%d C", S->temp_tlimit_c);
    else
        el(x, "gpu_temp_tlimit", "N/A");
    el_su(x, "gpu_temp_max_threshold", GS_S_TEMP_SHUTDOWN, (unsigned long long)ST->temp_shutdown_c, "C");
    el_su(x, "gpu_temp_slow_threshold", GS_S_TEMP_SLOWDOWN, (unsigned long long)ST->temp_slowdown_c, "C");
    el_su(x, "gpu_temp_max_gpu_threshold", GS_S_TEMP_GPU_MAX, (unsigned long long)ST->temp_gpu_max_c, "C");
    if (has(x, GS_F_TEMP_MEM))
        el(x, "memory_temp", "%d C", S->temp_mem_c);
    else
        el(x, "memory_temp", "N/A");
    el_su(x, "gpu_temp_max_mem_threshold", GS_S_TEMP_MEM_MAX, (unsigned long long)ST->temp_mem_max_c, "C");
    close_el(x);
    bool old = x->major && x->major < 535;
    open_el(x, old ? "power_readings" : "gpu_power_readings");
    if (x->major >= 580)
        el(x, "power_state", "Requested functionality has been deprecated");
    else if (has(x, GS_F_PSTATE))
        el(x, "power_state", "P%u", S->pstate);
    else
        el(x, "power_state", "N/A");
    if (old) {
        el(x, "power_management", "%s", has(x, GS_F_POWER) ? "Supported" : "N/A");
        el_w(x, "power_draw", has(x, GS_F_POWER), S->power_mw);
        el_w(x, "power_limit", has(x, GS_F_POWER_LIMIT), S->power_limit_mw);
    } else {
        el_w(x, "average_power_draw", has(x, GS_F_POWER_AVG), S->power_avg_mw);
        el_w(x, "instant_power_draw", has(x, GS_F_POWER_INSTANT), S->power_instant_mw);
        el_w(x, "current_power_limit", has(x, GS_F_POWER_ENFORCED), S->power_enforced_limit_mw);
        el_w(x, "requested_power_limit", has(x, GS_F_POWER_LIMIT), S->power_limit_mw);
    }
    if (old)
        el_w(x, "enforced_power_limit", has(x, GS_F_POWER_ENFORCED), S->power_enforced_limit_mw);
    el_w(x, "default_power_limit", shas(x, GS_S_POWER_DEFAULT), ST->power_default_limit_mw);
    el_w(x, "min_power_limit", shas(x, GS_S_POWER_MINMAX), ST->power_min_limit_mw);
    el_w(x, "max_power_limit", shas(x, GS_S_POWER_MINMAX), ST->power_max_limit_mw);
    close_el(x);
}

static void clocks(struct x *x)
{
    open_el(x, "clocks");
    el_u(x, "graphics_clock", GS_F_CLOCK_GRAPHICS, S->clock_graphics_mhz, "MHz");
    el_u(x, "sm_clock", GS_F_CLOCK_SM, S->clock_sm_mhz, "MHz");
    el_u(x, "mem_clock", GS_F_CLOCK_MEM, S->clock_mem_mhz, "MHz");
    el_u(x, "video_clock", GS_F_CLOCK_VIDEO, S->clock_video_mhz, "MHz");
    close_el(x);
    open_el(x, "applications_clocks");
    el_u(x, "graphics_clock", GS_F_APP_CLOCKS, S->app_clock_graphics_mhz, "MHz");
    el_u(x, "mem_clock", GS_F_APP_CLOCKS, S->app_clock_mem_mhz, "MHz");
    close_el(x);
    open_el(x, "default_applications_clocks");
    el_u(x, "graphics_clock", GS_F_DEF_APP_CLOCKS, S->def_app_clock_graphics_mhz, "MHz");
    el_u(x, "mem_clock", GS_F_DEF_APP_CLOCKS, S->def_app_clock_mem_mhz, "MHz");
    close_el(x);
    open_el(x, "max_clocks");
    el_su(x, "graphics_clock", GS_S_CLOCK_MAX_GRAPHICS, ST->clock_max_graphics_mhz, "MHz");
    el_su(x, "sm_clock", GS_S_CLOCK_MAX_SM, ST->clock_max_sm_mhz, "MHz");
    el_su(x, "mem_clock", GS_S_CLOCK_MAX_MEM, ST->clock_max_mem_mhz, "MHz");
    el_su(x, "video_clock", GS_S_CLOCK_MAX_VIDEO, ST->clock_max_video_mhz, "MHz");
    close_el(x);
}

static void processes(struct x *x)
{
    const struct gs_gpu *g = x->g;
    uint32_t idx[512], n = gs_smi_procs_by_pid(g, idx, 512);

    open_el(x, "processes");
    for (uint32_t i = 0; i < n; i++) {
        const struct gs_proc *p = &g->procs[idx[i]];
        bool c = p->type & (GS_PROC_COMPUTE | GS_PROC_MPS), gr = p->type & GS_PROC_GRAPHICS;
        open_el(x, "process_info");
        if (p->gpu_instance_id == UINT32_MAX)
            el(x, "gpu_instance_id", "N/A");
        else
            el(x, "gpu_instance_id", "%u", p->gpu_instance_id);
        if (p->compute_instance_id == UINT32_MAX)
            el(x, "compute_instance_id", "N/A");
        else
            el(x, "compute_instance_id", "%u", p->compute_instance_id);
        el(x, "pid", "%u", p->pid);
        el(x, "type", "%s", c && gr ? "C+G" : gr ? "G" : "C");
        el(x, "process_name", "%s", gs_proc_has(p, GS_P_NAME) ? gs_proc_name(g, p) : "N/A");
        if (gs_proc_has(p, GS_P_GPU_MEM))
            el(x, "used_memory", "%llu MiB", (unsigned long long)(p->gpu_mem_bytes >> 20));
        else
            el(x, "used_memory", "N/A");
        close_el(x);
    }
    close_el(x);
}

static void gpu(struct x *x, const struct gs_gpu *g)
{
    x->g = g;
    indent(x);
    if (xmlTextWriterStartElement(x->w, BAD_CAST "gpu") < 0 ||
        xmlTextWriterWriteAttribute(x->w, BAD_CAST "id", BAD_CAST(shas(x, GS_S_PCI) ? ST->pci_bus_id : "N/A")) < 0)
        x->rc = -1;
    x->depth++;
    identity(x);
    pci(x);
    performance(x);
    memory(x);
    ecc(x);
    thermal_power(x);
    clocks(x);
    processes(x);
    close_el(x);
}

/* nvsmi_device_vNN.dtd as the branch ships it (real -q -x output): v11 R515, v12 R525-R570, v13 R580+. */
static int dtd_version(unsigned major)
{
    return !major || major >= 580 ? 13 : major >= 525 ? 12 : major >= 515 ? 11 : 10;
}

int gs_smi_xml_write(FILE *out, const struct gs_snapshot *snap, bool dtd)
{
    xmlBufferPtr buf = xmlBufferCreate();
    struct x x = { NULL, 1, 0, NULL, gs_driver_major(snap->sys.driver_version) };
    char when[40], cuda[16] = "N/A";
    int v = snap->sys.cuda_driver_version;

    if (!buf)
        return -GS_E_NOMEM;
    x.w = xmlNewTextWriterMemory(buf, 0);
    if (!x.w) {
        xmlBufferFree(buf);
        return -GS_E_NOMEM;
    }
    if (v > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", v / 1000, v % 1000 / 10);
    gs_smi_date(&snap->wall, when, sizeof(when));
    /* the declaration and doctype as nvidia-smi writes them (no escaping involved) */
    fprintf(out, "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v%d.dtd\">\n",
            dtd_version(x.major));
    (void)dtd; /* --dtd: the DTD text is NVIDIA's; gpuscope names it only (docs/SMI.md) */
    if (xmlTextWriterStartElement(x.w, BAD_CAST "nvidia_smi_log") < 0)
        x.rc = -1;
    el(&x, "timestamp", "%s", when);
    el(&x, "driver_version", "%s", snap->sys.driver_version[0] ? snap->sys.driver_version : "N/A");
    el(&x, "cuda_version", "%s", cuda);
    el(&x, "attached_gpus", "%u", snap->ngpus);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        gpu(&x, &snap->gpus[i]);
    x.depth = 0;
    indent(&x);
    if (xmlTextWriterEndElement(x.w) < 0 || xmlTextWriterEndDocument(x.w) < 0)
        x.rc = -1;
    xmlFreeTextWriter(x.w);
    if (x.rc == 0)
        fprintf(out, "%s\n", (const char *)xmlBufferContent(buf));
    xmlBufferFree(buf);
    return x.rc < 0 || ferror(out) ? -GS_E_IO : 0;
}
