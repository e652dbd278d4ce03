/* SPDX-License-Identifier: MIT */
/*
 * smi_query.c - `nvidia-smi -q [-d SECTIONS]`: the NVSMI LOG text, keys
 * padded so that every colon is in column 55, sections in the order and with
 * the names of R590 (compared line by line with real captures, tests/cli/
 * 115x). A value gpuscope has no reading for is printed as nvidia-smi prints
 * one it cannot get: N/A.
 */
#include "format/smi.h"

#include "format/fields.h"

#include <stdarg.h>
#include <string.h>
#include <strings.h>

#define KEYCOL 55

struct q {
    FILE *out;
    const struct gs_snapshot *snap;
    const struct gs_gpu *g;
    unsigned major;
};

static void kv(struct q *q, int depth, const char *key, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void kv(struct q *q, int depth, const char *key, const char *fmt, ...)
{
    va_list ap;

    fprintf(q->out, "%*s%-*s: ", depth * 4, "", KEYCOL - depth * 4, key);
    va_start(ap, fmt);
    vfprintf(q->out, fmt, ap);
    va_end(ap);
    fputc('\n', q->out);
}

static void sec(struct q *q, int depth, const char *title)
{
    fprintf(q->out, "%*s%s\n", depth * 4, "", title);
}

/* A per-tick field's value or why not: the value's text, "N/A", or nvidia-smi's words. */
static const char *why(const struct q *q, enum gs_field f)
{
    if (q->g->state == GS_GPU_LOST)
        return "GPU is lost";
    return q->g->s.status[f] == GS_ST_DEPRECATED ? "Requested functionality has been deprecated" : "N/A";
}

static bool has(const struct q *q, enum gs_field f)
{
    return q->g->state == GS_GPU_OK && gs_sample_has(&q->g->s, f);
}

static bool shas(const struct q *q, enum gs_sfield f)
{
    return gs_static_has(&q->g->st, f);
}

const struct gs_smi_viol gs_smi_viol[5] = {
    {"SW Power Capping", "clocks_event_reasons_counters_sw_power_cap", GS_VIOL_POWER},
    {"Sync Boost", "clocks_event_reasons_counters_sync_boost", GS_VIOL_SYNC_BOOST},
    {"SW Thermal Slowdown", "clocks_event_reasons_counters_sw_therm_slowdown", GS_VIOL_THERMAL},
    {"HW Thermal Slowdown", "clocks_event_reasons_counters_hw_therm_slowdown", GS_VIOL_HW_THERMAL},
    {"HW Power Braking", "clocks_event_reasons_counters_hw_power_brake", GS_VIOL_HW_POWER_BRAKE},
};

#define S (&q->g->s)
#define ST (&q->g->st)

/* One number in fmt (a %lld in it) when ok, else N/A. */
static void kv_i(struct q *q, int d, const char *key, bool ok, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void kv_i(struct q *q, int d, const char *key, bool ok, const char *fmt, ...)
{
    va_list ap;

    if (!ok) {
        kv(q, d, key, "N/A");
        return;
    }
    fprintf(q->out, "%*s%-*s: ", d * 4, "", KEYCOL - d * 4, key);
    va_start(ap, fmt);
    vfprintf(q->out, fmt, ap);
    va_end(ap);
    fputc('\n', q->out);
}

static void kv_u(struct q *q, int d, const char *key, enum gs_field f, unsigned long long v, const char *unit)
{
    if (has(q, f))
        kv(q, d, key, "%llu%s%s", v, unit ? " " : "", unit ? unit : "");
    else
        kv(q, d, key, "%s", why(q, f));
}

static void kv_su(struct q *q, int d, const char *key, enum gs_sfield f, unsigned long long v, const char *unit)
{
    if (shas(q, f))
        kv(q, d, key, "%llu%s%s", v, unit ? " " : "", unit ? unit : "");
    else
        kv(q, d, key, "N/A");
}

static void kv_w(struct q *q, int d, const char *key, bool ok, uint32_t mw)
{
    if (ok) {
        uint64_t cw = ((uint64_t)mw + 5) / 10;
        kv(q, d, key, "%llu.%02u W", (unsigned long long)(cw / 100), (unsigned)(cw % 100));
    } else {
        kv(q, d, key, "N/A");
    }
}

static void kv_en(struct q *q, int d, const char *key, enum gs_field f, uint32_t on)
{
    if (has(q, f))
        kv(q, d, key, "%s", on ? "Enabled" : "Disabled");
    else
        kv(q, d, key, "%s", why(q, f));
}

static void kv_s(struct q *q, int d, const char *key, enum gs_sfield f, const char *v)
{
    kv(q, d, key, "%s", shas(q, f) && v[0] ? v : "N/A");
}

static void identity(struct q *q)
{
    static const char *const brands[] = {"Unknown", "Quadro", "Tesla", "NVS", "Grid", "GeForce", "Titan",
                                         "NVIDIA Virtual Applications", "NVIDIA Virtual PC", "NVIDIA Virtual Compute Server",
                                         "NVIDIA RTX Virtual Workstation", "NVIDIA Cloud Gaming", "Quadro RTX",
                                         "NVIDIA RTX", "NVIDIA", "GeForce RTX", "Titan RTX"};
    static const char *const virt[] = {"None", "Pass-Through", "VGPU", "Host VGPU", "Host VSGA"};
    static const char *const addr[] = {"None", "HMM", "ATS"};

    kv_s(q, 1, "Product Name", GS_S_NAME, ST->name);
    kv(q, 1, "Product Brand", "%s", shas(q, GS_S_BRAND) && ST->brand < 17 ? brands[ST->brand] : "N/A");
    kv(q, 1, "Product Architecture", "%s", shas(q, GS_S_ARCH) ? gs_arch_name(ST->arch) : "N/A");
    if (q->major >= 580) {
        kv(q, 1, "Display Mode", "Requested functionality has been deprecated");
        kv(q, 1, "Display Attached", "%s", has(q, GS_F_DISPLAY_MODE) ? S->display_mode ? "Yes" : "No" : "N/A");
    } else {
        kv_en(q, 1, "Display Mode", GS_F_DISPLAY_MODE, S->display_mode);
    }
    kv_en(q, 1, "Display Active", GS_F_DISPLAY_ACTIVE, S->display_active);
    kv_en(q, 1, "Persistence Mode", GS_F_PERSISTENCE, S->persistence_mode);
    if (q->major >= 580)
        kv(q, 1, "Addressing Mode", "%s", shas(q, GS_S_ADDRESSING) && ST->addressing_mode < 3 ? addr[ST->addressing_mode] : "N/A");
    sec(q, 1, "MIG Mode");
    kv_en(q, 2, "Current", GS_F_MIG_MODE, S->mig_mode_current);
    kv_en(q, 2, "Pending", GS_F_MIG_MODE, S->mig_mode_pending);
    kv_en(q, 1, "Accounting Mode", GS_F_ACCOUNTING, S->accounting_mode);
    kv_su(q, 1, "Accounting Mode Buffer Size", GS_S_ACCT_BUFFER, ST->acct_buffer_size, NULL);
    sec(q, 1, "Driver Model");
    kv(q, 2, "Current", "N/A");
    kv(q, 2, "Pending", "N/A");
    kv_s(q, 1, "Serial Number", GS_S_SERIAL, ST->serial);
    kv_s(q, 1, "GPU UUID", GS_S_UUID, ST->uuid);
    if (shas(q, GS_S_PDI))
        kv(q, 1, "GPU PDI", "0x%016llx", (unsigned long long)ST->pdi);
    else
        kv(q, 1, "GPU PDI", "N/A");
    kv_su(q, 1, "Minor Number", GS_S_MINOR_NUMBER, ST->minor_number, NULL);
    kv_s(q, 1, "VBIOS Version", GS_S_VBIOS, ST->vbios);
    kv(q, 1, "MultiGPU Board", "No");
    if (shas(q, GS_S_BOARD_ID))
        kv(q, 1, "Board ID", "0x%x", ST->board_id);
    else
        kv(q, 1, "Board ID", "N/A");
    kv_s(q, 1, "Board Part Number", GS_S_BOARD_PART, ST->board_part);
    kv(q, 1, "GPU Part Number", "N/A");
    kv(q, 1, "FRU Part Number", "N/A");
    sec(q, 1, "Platform Info");
    kv_s(q, 2, "Chassis Serial Number", GS_S_PLATFORM, ST->platform_chassis_serial);
    kv(q, 2, "Slot Number", "N/A");
    kv(q, 2, "Tray Index", "N/A");
    kv(q, 2, "Host ID", "N/A");
    kv(q, 2, "Peer Type", "N/A");
    kv_su(q, 2, "Module Id", GS_S_PLATFORM, ST->platform_module_id, NULL);
    kv(q, 2, "GPU Fabric GUID", "N/A");
    sec(q, 1, "Inforom Version");
    kv_s(q, 2, "Image Version", GS_S_INFOROM_IMG, ST->inforom_img);
    kv_s(q, 2, "OEM Object", GS_S_INFOROM_OEM, ST->inforom_oem);
    kv_s(q, 2, "ECC Object", GS_S_INFOROM_ECC, ST->inforom_ecc);
    kv_s(q, 2, "Power Management Object", GS_S_INFOROM_PWR, ST->inforom_pwr);
    sec(q, 1, "Inforom BBX Object Flush");
    kv(q, 2, "Latest Timestamp", "N/A");
    kv(q, 2, "Latest Duration", "N/A");
    sec(q, 1, "GPU Operation Mode");
    kv(q, 2, "Current", "N/A");
    kv(q, 2, "Pending", "N/A");
    kv(q, 1, "GPU C2C Mode", "%s", shas(q, GS_S_C2C_MODE) ? ST->c2c_enabled ? "Enabled" : "Disabled" : "N/A");
    sec(q, 1, "GPU Virtualization Mode");
    kv(q, 2, "Virtualization Mode", "%s", shas(q, GS_S_VIRT_MODE) && ST->virt_mode < 5 ? virt[ST->virt_mode] : "N/A");
    kv(q, 2, "Host VGPU Mode", "N/A");
    kv(q, 2, "vGPU Heterogeneous Mode", "N/A");
    kv(q, 1, "GPU Recovery Action", "%s",
       !has(q, GS_F_RECOVERY) ? "N/A" : S->recovery_action == 0 ? "None" : S->recovery_action == 1 ? "Reset" : "Reboot");
    kv(q, 1, "GSP Firmware Version", "%s", shas(q, GS_S_GSP_MODE) && ST->gsp_mode_current ? q->snap->sys.driver_version : "N/A");
    sec(q, 1, "IBMNPU");
    kv(q, 2, "Relaxed Ordering Mode", "N/A");
}

/* PCIe atomics caps as R590 prints them: each operation's name and a space
 * (a mask of none prints N/A: no capture shows one). */
static void atomics(struct q *q, const char *key, enum gs_field f, uint32_t mask)
{
    static const char *const ops[] = {"FETCHADD_32", "FETCHADD_64", "SWAP_32", "SWAP_64",
                                      "CAS_32", "CAS_64", "CAS_128"};
    char buf[96] = "";
    size_t n = 0;

    if (!has(q, f) || !(mask & 0x7F)) {
        kv(q, 2, key, "%s", has(q, f) ? "N/A" : why(q, f));
        return;
    }
    for (unsigned i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (mask & (1u << i))
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s ", ops[i]);
    kv(q, 2, key, "%s", buf);
}

static void pci(struct q *q)
{
    sec(q, 1, "PCI");
    kv(q, 2, "Bus", "0x%02X", ST->pci_bus);
    kv(q, 2, "Device", "0x%02X", ST->pci_device);
    kv(q, 2, "Domain", "0x%04X", ST->pci_domain);
    if (shas(q, GS_S_PCI_CLASS)) {
        kv(q, 2, "Base Classcode", "0x%X", ST->pci_base_class);
        kv(q, 2, "Sub Classcode", "0x%X", ST->pci_sub_class);
    } else {
        kv(q, 2, "Base Classcode", "N/A");
        kv(q, 2, "Sub Classcode", "N/A");
    }
    kv(q, 2, "Device Id", "0x%08X", ST->pci_device_id);
    kv_s(q, 2, "Bus Id", GS_S_PCI, ST->pci_bus_id);
    kv(q, 2, "Sub System Id", "0x%08X", ST->pci_subsystem_id);
    sec(q, 2, "GPU Link Info");
    sec(q, 3, "PCIe Generation");
    kv_su(q, 4, "Max", GS_S_PCIE_MAX_GEN, ST->pcie_max_gen, NULL);
    kv_u(q, 4, "Current", GS_F_PCIE_GEN, S->pcie_gen, NULL);
    kv_u(q, 4, "Device Current", GS_F_PCIE_GEN, S->pcie_gen, NULL);
    kv_su(q, 4, "Device Max", GS_S_PCIE_GPU_MAX_GEN, ST->pcie_gpu_max_gen, NULL);
    kv_su(q, 4, "Host Max", GS_S_PCIE_HOST_MAX, ST->pcie_host_max_gen, NULL);
    sec(q, 3, "Link Width");
    kv_i(q, 4, "Max", shas(q, GS_S_PCIE_MAX_WIDTH), "%lldx", (long long)(ST->pcie_max_width));
    kv_i(q, 4, "Current", has(q, GS_F_PCIE_WIDTH), "%lldx", (long long)(S->pcie_width));
    sec(q, 2, "Bridge Chip");
    kv(q, 3, "Type", "N/A");
    kv(q, 3, "Firmware", "N/A");
    kv_u(q, 2, "Replays Since Reset", GS_F_PCIE_REPLAY, S->pcie_replay_count, NULL);
    kv_u(q, 2, "Replay Number Rollovers", GS_F_PCIE_ROLLOVER, S->pcie_replay_rollovers, NULL);
    kv_u(q, 2, "Tx Throughput", GS_F_PCIE_TX, S->pcie_tx_kbps, "KB/s");
    kv_u(q, 2, "Rx Throughput", GS_F_PCIE_RX, S->pcie_rx_kbps, "KB/s");
    atomics(q, "Atomic Caps Outbound", GS_F_PCIE_ATOMICS_OUT, S->pcie_atomics_out);
    atomics(q, "Atomic Caps Inbound", GS_F_PCIE_ATOMICS_IN, S->pcie_atomics_in);
}

static void performance(struct q *q)
{
    static const struct {
        const char *name;
        uint64_t bit;
        int depth;
    } reasons[] = {
        {"Idle", GS_THROTTLE_GPU_IDLE, 2},
        {"Applications Clocks Setting", GS_THROTTLE_APP_CLOCKS, 2},
        {"SW Power Cap", GS_THROTTLE_SW_POWER_CAP, 2},
        {"HW Slowdown", GS_THROTTLE_HW_SLOWDOWN, 2},
        {"HW Thermal Slowdown", GS_THROTTLE_HW_THERMAL, 3},
        {"HW Power Brake Slowdown", GS_THROTTLE_HW_POWER_BRAKE, 3},
        {"Sync Boost", GS_THROTTLE_SYNC_BOOST, 2},
        {"SW Thermal Slowdown", GS_THROTTLE_SW_THERMAL, 2},
        {"Display Clock Setting", GS_THROTTLE_DISPLAY_CLOCK, 2},
    };
    kv_i(q, 1, "Fan Speed", has(q, GS_F_FAN_SPEED) && S->fan_count, "%lld %%", (long long)(S->fan_speed_pct[0]));
    kv_i(q, 1, "Performance State", has(q, GS_F_PSTATE), "P%lld", (long long)(S->pstate));
    sec(q, 1, q->major && q->major < 535 ? "Clocks Throttle Reasons" : "Clocks Event Reasons");
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
        kv(q, reasons[i].depth, reasons[i].name, "%s",
           !has(q, GS_F_THROTTLE) ? "N/A" : S->throttle_reasons & reasons[i].bit ? "Active" : "Not Active");
    if (!q->major || q->major >= 535) { /* throttle time (stream 12's counters), whole microseconds */
        sec(q, 1, "Clocks Event Reasons Counters");
        for (size_t i = 0; i < 5; i++)
            kv_u(q, 2, gs_smi_viol[i].key, GS_F_VIOL_POWER + gs_smi_viol[i].viol,
                 S->violation_ns[gs_smi_viol[i].viol] / 1000, "us");
    }
    kv(q, 1, "Sparse Operation Mode", "N/A");
}

static void memory(struct q *q)
{
    sec(q, 1, "FB Memory Usage");
    kv_u(q, 2, "Total", GS_F_MEM_TOTAL, S->mem_total_bytes >> 20, "MiB");
    kv_u(q, 2, "Reserved", GS_F_MEM_RESERVED, S->mem_reserved_bytes >> 20, "MiB");
    kv_u(q, 2, "Used", GS_F_MEM_USED, S->mem_used_bytes >> 20, "MiB");
    kv_u(q, 2, "Free", GS_F_MEM_FREE, S->mem_free_bytes >> 20, "MiB");
    sec(q, 1, "BAR1 Memory Usage");
    kv_u(q, 2, "Total", GS_F_BAR1_TOTAL, S->bar1_total_bytes >> 20, "MiB");
    kv_u(q, 2, "Used", GS_F_BAR1_USED, S->bar1_used_bytes >> 20, "MiB");
    kv_u(q, 2, "Free", GS_F_BAR1_FREE, S->bar1_free_bytes >> 20, "MiB");
    sec(q, 1, "Conf Compute Protected Memory Usage");
    kv_u(q, 2, "Total", GS_F_PROT_MEM, S->prot_mem_total_bytes >> 20, "MiB");
    kv_u(q, 2, "Used", GS_F_PROT_MEM, S->prot_mem_used_bytes >> 20, "MiB");
    kv_u(q, 2, "Free", GS_F_PROT_MEM, S->prot_mem_free_bytes >> 20, "MiB");
}

static void compute(struct q *q)
{
    static const char *const modes[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    kv(q, 1, "Compute Mode", "%s", has(q, GS_F_COMPUTE_MODE) && S->compute_mode < 4 ? modes[S->compute_mode] : "N/A");
}

static void utilization(struct q *q)
{
    sec(q, 1, "Utilization");
    kv_u(q, 2, "GPU", GS_F_GPU_UTIL, S->gpu_util_pct, "%");
    kv_u(q, 2, "Memory", GS_F_MEM_UTIL, S->mem_util_pct, "%");
    kv_u(q, 2, "Encoder", GS_F_ENC_UTIL, S->enc_util_pct, "%");
    kv_u(q, 2, "Decoder", GS_F_DEC_UTIL, S->dec_util_pct, "%");
    kv_u(q, 2, "JPEG", GS_F_JPG_UTIL, S->jpg_util_pct, "%");
    kv_u(q, 2, "OFA", GS_F_OFA_UTIL, S->ofa_util_pct, "%");
}

static void encoder(struct q *q)
{
    sec(q, 1, "Encoder Stats");
    kv_u(q, 2, "Active Sessions", GS_F_ENC_STATS, S->enc_sessions, NULL);
    kv_u(q, 2, "Average FPS", GS_F_ENC_STATS, S->enc_avg_fps, NULL);
    kv_u(q, 2, "Average Latency", GS_F_ENC_STATS, S->enc_avg_latency_us, NULL);
}

static void fbc(struct q *q)
{
    sec(q, 1, "FBC Stats");
    kv(q, 2, "Active Sessions", "0");
    kv(q, 2, "Average FPS", "0");
    kv(q, 2, "Average Latency", "0");
}

static void ecc(struct q *q)
{
    static const char *const kinds[2] = {"Volatile", "Aggregate"};
    sec(q, 1, "DRAM Encryption Mode");
    kv(q, 2, "Current", "N/A");
    kv(q, 2, "Pending", "N/A");
    sec(q, 1, "ECC Mode");
    kv_en(q, 2, "Current", GS_F_ECC_MODE, S->ecc_mode_current);
    kv_en(q, 2, "Pending", GS_F_ECC_MODE, S->ecc_mode_pending);
    sec(q, 1, "ECC Errors");
    for (int c = 0; c < 2; c++) {
        bool sram = has(q, GS_F_SRAM_ECC), loc = has(q, GS_F_ECC_DETAIL);
        uint64_t par = c ? S->sram_agg_parity : S->sram_vol_parity, sec_ = c ? S->sram_agg_secded : S->sram_vol_secded;
        sec(q, 2, kinds[c]);
        if (loc && (S->ecc_loc_ok >> (c * GS_ECC_LOCS + 7) & 1))
            kv(q, 3, "SRAM Correctable", "%llu", (unsigned long long)S->ecc_loc[0][c][7]);
        else
            kv(q, 3, "SRAM Correctable", "N/A");
        if (sram) {
            kv(q, 3, "SRAM Uncorrectable Parity", "%llu", (unsigned long long)par);
            kv(q, 3, "SRAM Uncorrectable SEC-DED", "%llu", (unsigned long long)sec_);
        } else {
            kv(q, 3, "SRAM Uncorrectable Parity", "N/A");
            kv(q, 3, "SRAM Uncorrectable SEC-DED", "N/A");
        }
        if (loc && (S->ecc_loc_ok >> (c * GS_ECC_LOCS + 2) & 1)) {
            kv(q, 3, "DRAM Correctable", "%llu", (unsigned long long)S->ecc_loc[0][c][2]);
            kv(q, 3, "DRAM Uncorrectable", "%llu", (unsigned long long)S->ecc_loc[1][c][2]);
        } else {
            kv(q, 3, "DRAM Correctable", "N/A");
            kv(q, 3, "DRAM Uncorrectable", "N/A");
        }
        if (c == 1)
            kv(q, 3, "SRAM Threshold Exceeded", "%s", !sram ? "N/A" : S->sram_threshold_exceeded ? "Yes" : "No");
    }
    sec(q, 2, "Aggregate Uncorrectable SRAM Sources");
    kv_u(q, 3, "SRAM L2", GS_F_SRAM_ECC, S->sram_l2, NULL);
    kv_u(q, 3, "SRAM SM", GS_F_SRAM_ECC, S->sram_sm, NULL);
    kv_u(q, 3, "SRAM Microcontroller", GS_F_SRAM_ECC, S->sram_mcu, NULL);
    kv_u(q, 3, "SRAM PCIE", GS_F_SRAM_ECC, S->sram_pcie, NULL);
    kv_u(q, 3, "SRAM Other", GS_F_SRAM_ECC, S->sram_other, NULL);
    kv(q, 2, "Channel Repair Pending", "%s", has(q, GS_F_ECC_MODE) && S->ecc_mode_current ? "No" : "N/A");
    kv(q, 2, "TPC Repair Pending", "%s", has(q, GS_F_ECC_MODE) && S->ecc_mode_current ? "No" : "N/A");
    kv(q, 2, "Unrepairable Memory", "%s", has(q, GS_F_ECC_MODE) && S->ecc_mode_current ? "No" : "N/A");
}

static void retirement(struct q *q)
{
    sec(q, 1, "Retired Pages");
    kv_u(q, 2, "Single Bit ECC", GS_F_RETIRED_SBE, S->retired_sbe_pages, NULL);
    kv_u(q, 2, "Double Bit ECC", GS_F_RETIRED_DBE, S->retired_dbe_pages, NULL);
    kv(q, 2, "Pending Page Blacklist", "%s",
       !has(q, GS_F_RETIRED_PENDING) ? "N/A" : S->retired_pending ? "Yes" : "No");
}

static void remapper(struct q *q)
{
    static const char *const hist[] = {"Max", "High", "Partial", "Low", "None"};
    bool ok = has(q, GS_F_REMAP_CORR);
    if (!ok) {
        kv(q, 1, "Remapped Rows", "N/A");
        return;
    }
    sec(q, 1, "Remapped Rows");
    kv(q, 2, "Correctable Error", "%u", S->remap_corr_rows);
    kv(q, 2, "Uncorrectable Error", "%u", S->remap_uncorr_rows);
    kv(q, 2, "Pending", "%s", S->remap_pending ? "Yes" : "No");
    kv(q, 2, "Remapping Failure Occurred", "%s", S->remap_failed ? "Yes" : "No");
    sec(q, 2, "Bank Remap Availability Histogram");
    for (int i = 0; i < 5; i++) {
        if (has(q, GS_F_REMAP_HIST))
            kv(q, 3, hist[i], "%u bank(s)", S->remap_hist[i]);
        else
            kv(q, 3, hist[i], "N/A");
    }
}

static void temperature(struct q *q)
{
    sec(q, 1, "Temperature");
    kv_i(q, 2, "GPU Current Temp", has(q, GS_F_TEMP_GPU), "%lld C", (long long)(S->temp_gpu_c));
    kv_i(q, 2, "GPU T.Limit Temp", has(q, GS_F_TEMP_TLIMIT), "%lld C", (long long)(S->temp_tlimit_c));
    if (has(q, GS_F_TEMP_TLIMIT) && shas(q, GS_S_TEMP_SHUTDOWN) && shas(q, GS_S_TEMP_GPU_MAX)) {
        /* thresholds relative to T.Limit: the distance of each from the max operating limit */
        kv(q, 2, "GPU Shutdown T.Limit Temp", "%d C", ST->temp_gpu_max_c - ST->temp_shutdown_c);
        kv(q, 2, "GPU Slowdown T.Limit Temp", "%d C", ST->temp_gpu_max_c - ST->temp_slowdown_c);
        kv(q, 2, "GPU Max Operating T.Limit Temp", "0 C");
    } else {
        kv(q, 2, "GPU Shutdown Temp", "%s", "N/A");
        kv(q, 2, "GPU Slowdown Temp", "%s", "N/A");
        kv(q, 2, "GPU Max Operating Temp", "%s", "N/A");
    }
    kv(q, 2, "GPU Target Temperature", "N/A");
    kv_i(q, 2, "Memory Current Temp", has(q, GS_F_TEMP_MEM), "%lld C", (long long)(S->temp_mem_c));
    if (has(q, GS_F_TEMP_MEM) && shas(q, GS_S_TEMP_MEM_MAX))
        kv(q, 2, "Memory Max Operating T.Limit Temp", "0 C");
    else
        kv(q, 2, "Memory Max Operating Temp", "N/A");
}

static void power(struct q *q)
{
    sec(q, 1, "GPU Power Readings");
    kv_w(q, 2, "Average Power Draw", has(q, GS_F_POWER_AVG), S->power_avg_mw);
    kv_w(q, 2, "Instantaneous Power Draw", has(q, GS_F_POWER_INSTANT), S->power_instant_mw);
    kv_w(q, 2, "Current Power Limit", has(q, GS_F_POWER_ENFORCED), S->power_enforced_limit_mw);
    kv_w(q, 2, "Requested Power Limit", has(q, GS_F_POWER_LIMIT), S->power_limit_mw);
    kv_w(q, 2, "Default Power Limit", shas(q, GS_S_POWER_DEFAULT), ST->power_default_limit_mw);
    kv_w(q, 2, "Min Power Limit", shas(q, GS_S_POWER_MINMAX), ST->power_min_limit_mw);
    kv_w(q, 2, "Max Power Limit", shas(q, GS_S_POWER_MINMAX), ST->power_max_limit_mw);
    sec(q, 1, "GPU Memory Power Readings ");
    kv_w(q, 2, "Average Power Draw", has(q, GS_F_POWER_MEM_AVG), S->power_mem_avg_mw);
    kv(q, 2, "Instantaneous Power Draw", "N/A");
    sec(q, 1, "Module Power Readings");
    static const char *const mod[] = {"Average Power Draw", "Instantaneous Power Draw", "Current Power Limit",
                                      "Requested Power Limit", "Default Power Limit", "Min Power Limit",
                                      "Max Power Limit"};
    for (int i = 0; i < 7; i++)
        kv(q, 2, mod[i], "N/A");
    kv(q, 1, "Power Smoothing", "N/A");
    sec(q, 1, "Workload Power Profiles");
    kv(q, 2, "Requested Profiles", "N/A");
    kv(q, 2, "Enforced Profiles", "N/A");
    kv_i(q, 1, "EDPp Multiplier", has(q, GS_F_EDPP), "%lld.00%%", (long long)(S->edpp_pct));
}

static void clock_pair(struct q *q, const char *title, enum gs_field f, uint32_t gr, uint32_t mem)
{
    sec(q, 1, title);
    kv_u(q, 2, "Graphics", f, gr, "MHz");
    kv_u(q, 2, "Memory", f, mem, "MHz");
}

static void clocks(struct q *q)
{
    sec(q, 1, "Clocks");
    kv_u(q, 2, "Graphics", GS_F_CLOCK_GRAPHICS, S->clock_graphics_mhz, "MHz");
    kv_u(q, 2, "SM", GS_F_CLOCK_SM, S->clock_sm_mhz, "MHz");
    kv_u(q, 2, "Memory", GS_F_CLOCK_MEM, S->clock_mem_mhz, "MHz");
    kv_u(q, 2, "Video", GS_F_CLOCK_VIDEO, S->clock_video_mhz, "MHz");
    clock_pair(q, "Applications Clocks", GS_F_APP_CLOCKS, S->app_clock_graphics_mhz, S->app_clock_mem_mhz);
    clock_pair(q, "Default Applications Clocks", GS_F_DEF_APP_CLOCKS, S->def_app_clock_graphics_mhz,
               S->def_app_clock_mem_mhz);
    sec(q, 1, "Deferred Clocks");
    kv(q, 2, "Memory", "N/A");
    sec(q, 1, "Max Clocks");
    kv_su(q, 2, "Graphics", GS_S_CLOCK_MAX_GRAPHICS, ST->clock_max_graphics_mhz, "MHz");
    kv_su(q, 2, "SM", GS_S_CLOCK_MAX_SM, ST->clock_max_sm_mhz, "MHz");
    kv_su(q, 2, "Memory", GS_S_CLOCK_MAX_MEM, ST->clock_max_mem_mhz, "MHz");
    kv_su(q, 2, "Video", GS_S_CLOCK_MAX_VIDEO, ST->clock_max_video_mhz, "MHz");
    sec(q, 1, "Max Customer Boost Clocks");
    kv_su(q, 2, "Graphics", GS_S_CLOCK_MAX_GRAPHICS, ST->clock_max_graphics_mhz, "MHz");
    sec(q, 1, "Clock Policy");
    kv(q, 2, "Auto Boost", "N/A");
    kv(q, 2, "Auto Boost Default", "N/A");
}

static void fabric(struct q *q)
{
    static const char *const states[] = {"N/A", "Not Started", "In Progress", "Completed"};
    bool ok = has(q, GS_F_FABRIC);
    sec(q, 1, "Fabric");
    kv(q, 2, "State", "%s", ok && S->fabric_state < 4 ? states[S->fabric_state] : "N/A");
    kv(q, 2, "Status", "%s", ok ? S->fabric_status == 0 ? "Success" : "Failure" : "N/A");
    kv_u(q, 2, "CliqueId", GS_F_FABRIC, S->fabric_clique, NULL);
    if (ok) {
        const uint8_t *u = S->fabric_cluster_uuid;
        kv(q, 2, "ClusterUUID", "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
           u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    } else {
        kv(q, 2, "ClusterUUID", "N/A");
    }
    sec(q, 2, "Health");
    static const char *const h[] = {"Summary", "Bandwidth", "Route Recovery in progress", "Route Unhealthy",
                                    "Access Timeout Recovery", "Incorrect Configuration"};
    for (int i = 0; i < 6; i++)
        kv(q, 3, h[i], "N/A");
}

static void processes(struct q *q)
{
    static const char *const types[] = {"C", "G", "C+G"};
    const struct gs_gpu *g = q->g;

    if (!g->nprocs) {
        kv(q, 1, "Processes", "None");
        return;
    }
    sec(q, 1, "Processes");
    uint32_t idx[512], n = gs_smi_procs_by_pid(g, idx, 512);
    for (uint32_t i = 0; i < n; i++) {
        const struct gs_proc *p = &g->procs[idx[i]];
        bool c = p->type & (GS_PROC_COMPUTE | GS_PROC_MPS), gr = p->type & GS_PROC_GRAPHICS;
        /* nvidia-smi pads this block's keys to column 42, not 55 */
        fprintf(q->out, "        %-34s: ", "GPU instance ID");
        p->gpu_instance_id == UINT32_MAX ? fputs("N/A\n", q->out) : fprintf(q->out, "%u\n", p->gpu_instance_id);
        fprintf(q->out, "        %-34s: ", "Compute instance ID");
        p->compute_instance_id == UINT32_MAX ? fputs("N/A\n", q->out) : fprintf(q->out, "%u\n", p->compute_instance_id);
        fprintf(q->out, "        %-34s: %u\n", "Process ID", p->pid);
        fprintf(q->out, "            %-30s: %s\n", "Type", types[c && gr ? 2 : gr ? 1 : 0]);
        fprintf(q->out, "            %-30s: %s\n", "Name", gs_proc_has(p, GS_P_NAME) ? gs_proc_name(g, p) : "N/A");
        if (gs_proc_has(p, GS_P_GPU_MEM))
            fprintf(q->out, "            %-30s: %llu MiB\n", "Used GPU Memory",
                    (unsigned long long)(p->gpu_mem_bytes >> 20));
        else
            fprintf(q->out, "            %-30s: N/A\n", "Used GPU Memory");
    }
}

static const struct {
    const char *name;
    unsigned bit;
} displays[] = {
    {"MEMORY", GS_SMI_D_MEMORY}, {"UTILIZATION", GS_SMI_D_UTILIZATION}, {"ECC", GS_SMI_D_ECC},
    {"TEMPERATURE", GS_SMI_D_TEMPERATURE}, {"POWER", GS_SMI_D_POWER}, {"CLOCK", GS_SMI_D_CLOCK},
    {"COMPUTE", GS_SMI_D_COMPUTE}, {"PIDS", GS_SMI_D_PIDS}, {"PERFORMANCE", GS_SMI_D_PERFORMANCE},
    {"SUPPORTED_CLOCKS", GS_SMI_D_SUPPORTED_CLOCKS}, {"PAGE_RETIREMENT", GS_SMI_D_PAGE_RETIREMENT},
    {"ACCOUNTING", GS_SMI_D_ACCOUNTING}, {"ENCODER_STATS", GS_SMI_D_ENCODER_STATS},
    {"SUPPORTED_GPU_TARGET_TEMP", GS_SMI_D_SUPPORTED_GPU_TARGET_TEMP}, {"VOLTAGE", GS_SMI_D_VOLTAGE},
    {"FBC_STATS", GS_SMI_D_FBC_STATS}, {"ROW_REMAPPER", GS_SMI_D_ROW_REMAPPER},
    {"GSP_FIRMWARE_VERSION", GS_SMI_D_GSP_FIRMWARE_VERSION}, {"POWER_SMOOTHING", GS_SMI_D_POWER_SMOOTHING},
    {"POWER_PROFILES", GS_SMI_D_POWER_PROFILES},
};

int gs_smi_display_parse(const char *spec, unsigned *mask, char *bad, size_t badlen)
{
    const char *p = spec;

    *mask = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        bool found = false;
        for (size_t i = 0; i < sizeof(displays) / sizeof(displays[0]) && !found; i++) {
            if (strlen(displays[i].name) == n && !strncasecmp(displays[i].name, p, n)) {
                *mask |= displays[i].bit;
                found = true;
            }
        }
        if (!found && n) {
            snprintf(bad, badlen, "%.*s", (int)n, p);
            return -1;
        }
        p += n + (p[n] == ',');
    }
    return *mask ? 0 : (snprintf(bad, badlen, "%s", spec), -1);
}

/* The whole report of one GPU (display == 0), in R590's order. */
static void gpu_all(struct q *q)
{
    identity(q);
    pci(q);
    performance(q);
    memory(q);
    compute(q);
    utilization(q);
    encoder(q);
    fbc(q);
    ecc(q);
    retirement(q);
    remapper(q);
    temperature(q);
    power(q);
    clocks(q);
    fabric(q);
    processes(q);
    sec(q, 1, "Capabilities");
    kv(q, 2, "EGM", "disabled");
}

/* Only the -d sections, in the same order. */
static void gpu_some(struct q *q, unsigned d)
{
    if (d & GS_SMI_D_PERFORMANCE)
        performance(q);
    if (d & GS_SMI_D_MEMORY)
        memory(q);
    if (d & GS_SMI_D_COMPUTE)
        compute(q);
    if (d & GS_SMI_D_UTILIZATION)
        utilization(q);
    if (d & GS_SMI_D_ENCODER_STATS)
        encoder(q);
    if (d & GS_SMI_D_FBC_STATS)
        fbc(q);
    if (d & GS_SMI_D_ECC)
        ecc(q);
    if (d & GS_SMI_D_PAGE_RETIREMENT)
        retirement(q);
    if (d & GS_SMI_D_ROW_REMAPPER)
        remapper(q);
    if (d & GS_SMI_D_TEMPERATURE)
        temperature(q);
    if (d & GS_SMI_D_POWER)
        power(q);
    if (d & GS_SMI_D_CLOCK)
        clocks(q);
    if (d & GS_SMI_D_PIDS)
        processes(q);
}

int gs_smi_query_write(FILE *out, const struct gs_snapshot *snap, unsigned display)
{
    struct q q = { out, snap, NULL, gs_driver_major(snap->sys.driver_version) };
    char when[40], cuda[16] = "N/A";
    int v = snap->sys.cuda_driver_version;

    if (v > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", v / 1000, v % 1000 / 10);
    gs_smi_date(&snap->wall, when, sizeof(when));
    fputs("\n==============NVSMI LOG==============\n\n", out);
    kv(&q, 0, "Timestamp", "%s", when);
    if (q.major >= 610) {
        kv(&q, 0, "Driver Version", "%s [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]",
           snap->sys.driver_version);
        kv(&q, 0, "CUDA Version", "%s [Deprecated; will be removed in CUDA 14.0. Use CUDA UMD Version instead]", cuda);
        kv(&q, 0, "KMD Version", "%s", snap->sys.kmd_version[0] ? snap->sys.kmd_version : "N/A");
        kv(&q, 0, "CUDA UMD Version", "%s", cuda);
    } else {
        kv(&q, 0, "Driver Version", "%s", snap->sys.driver_version[0] ? snap->sys.driver_version : "N/A");
        kv(&q, 0, "CUDA Version", "%s", cuda);
    }
    fputc('\n', out);
    kv(&q, 0, "Attached GPUs", "%u", snap->ngpus);
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        q.g = &snap->gpus[i];
        fprintf(out, "GPU %s\n", gs_static_has(&q.g->st, GS_S_PCI) ? q.g->st.pci_bus_id : "N/A");
        if (display)
            gpu_some(&q, display);
        else
            gpu_all(&q);
        fputc('\n', out);
    }
    return ferror(out) ? -1 : 0;
}
