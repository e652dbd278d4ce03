/* SPDX-License-Identifier: MIT */
/*
 * scenario.c - the line parser of simulator scenario files (format documented in
 * docs/SIMULATOR.md): `name`, `system`, `gpu`, `proc`, `at` and `fault` lines,
 * '#' comments, "quoted strings", '\' continuation. Every error names file:line.
 * Stand-alone: links with scenario_value.c and scenario_fault.c only.
 */
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/nvidia/nvml_abi.h"
#include "scenario_int.h"

int gs_scn_err(struct gs_scn_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gs_scn_where_verr(&c->at, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- attribute tables ----------------------------------------------------------- */

static const struct scn_enum scn_arch[] = {
    {"kepler", 2}, {"maxwell", 3}, {"pascal", 4}, {"volta", 5}, {"turing", 6}, {"ampere", 7},
    {"ada", 8}, {"hopper", 9}, {"blackwell", 10}, {"unknown", 4294967295.0}, {NULL, 0}};
static const struct scn_enum scn_brand[] = {
    {"unknown", 0}, {"quadro", 1}, {"tesla", 2}, {"nvs", 3}, {"grid", 4}, {"geforce", 5},
    {"titan", 6}, {"nvidia_vapps", 7}, {"nvidia_vpc", 8}, {"nvidia_vcs", 9}, {"nvidia_vws", 10},
    {"nvidia_cloud_gaming", 11}, {"quadro_rtx", 12}, {"nvidia_rtx", 13}, {"nvidia", 14},
    {"geforce_rtx", 15}, {"titan_rtx", 16}, {NULL, 0}};
static const struct scn_enum scn_cmode[] = {
    {"default", 0}, {"exclusive_thread", 1}, {"prohibited", 2}, {"exclusive_process", 3}, {NULL, 0}};
static const struct scn_enum scn_recovery[] = {
    {"none", 0}, {"reset", 1}, {"reboot", 2}, {"drain_p2p", 3}, {"drain_and_reset", 4}, {NULL, 0}};
static const struct scn_enum scn_fabric_state[] = {
    {"none", 0}, {"not_started", 1}, {"in_progress", 2}, {"completed", 3}, {NULL, 0}};
static const struct scn_enum scn_addressing[] = {{"none", 0}, {"hmm", 1}, {"ats", 2}, {NULL, 0}};
/* NVML's memory locations as bits; joined with | like throttle reasons */
static const struct scn_enum scn_ecc_locations[] = {
    {"l1", 0x1}, {"l2", 0x2}, {"dram", 0x4}, {"register_file", 0x8}, {"texture", 0x10},
    {"texture_shm", 0x20}, {"cbu", 0x40}, {"sram", 0x80}, {"all", 0xFF}, {"none", 0}, {NULL, 0}};
/* NVML_PCIE_ATOMICS_CAP_* bits; joined with | */
static const struct scn_enum scn_pcie_atomics[] = {
    {"fetchadd32", 0x1}, {"fetchadd64", 0x2}, {"swap32", 0x4}, {"swap64", 0x8}, {"cas32", 0x10},
    {"cas64", 0x20}, {"cas128", 0x40}, {"none", 0}, {NULL, 0}};
const struct scn_enum gs_scn_throttle_names[] = {
    {"none", 0}, {"gpu_idle", 0x1}, {"app_clocks", 0x2}, {"sw_power_cap", 0x4},
    {"hw_slowdown", 0x8}, {"sync_boost", 0x10}, {"sw_thermal", 0x20}, {"hw_thermal", 0x40},
    {"hw_power_brake", 0x80}, {"display_clock", 0x100}, {"all", 0x1FF}, {NULL, 0}};

static const struct {
    const char *key;
    enum gs_scn_num num;
    const char *def;              /* default value text, NULL: set per index / derived */
    const struct scn_enum *names; /* symbolic values, may be NULL */
} scn_nums[] = {
    {"domain", GS_SCN_N_DOMAIN, "0", NULL},
    {"bus", GS_SCN_N_BUS, NULL, NULL},
    {"device", GS_SCN_N_DEVICE, "0", NULL},
    {"pci_device_id", GS_SCN_N_PCI_DEVICE_ID, "0x20B010DE", NULL},
    {"pci_subsys_id", GS_SCN_N_PCI_SUBSYS_ID, "0x134F10DE", NULL},
    {"board_id", GS_SCN_N_BOARD_ID, NULL, NULL},
    {"minor", GS_SCN_N_MINOR, NULL, NULL},
    {"arch", GS_SCN_N_ARCH, "7", scn_arch},
    {"brand", GS_SCN_N_BRAND, "2", scn_brand},
    {"cc_major", GS_SCN_N_CC_MAJOR, "8", NULL},
    {"cc_minor", GS_SCN_N_CC_MINOR, "0", NULL},
    {"memory_total", GS_SCN_N_MEM_TOTAL, "40GiB", NULL},
    {"memory_reserved", GS_SCN_N_MEM_RESERVED, "512MiB", NULL},
    {"bar1_total", GS_SCN_N_BAR1_TOTAL, "64GiB", NULL},
    {"bar1_used", GS_SCN_N_BAR1_USED, "4MiB", NULL},
    {"temp_shutdown", GS_SCN_N_TEMP_SHUTDOWN, "92", NULL},
    {"temp_slowdown", GS_SCN_N_TEMP_SLOWDOWN, "89", NULL},
    {"temp_mem_max", GS_SCN_N_TEMP_MEM_MAX, "95", NULL},
    {"temp_gpu_max", GS_SCN_N_TEMP_GPU_MAX, "87", NULL},
    {"power_default", GS_SCN_N_POWER_DEFAULT, "400W", NULL},
    {"power_min", GS_SCN_N_POWER_MIN, "100W", NULL},
    {"power_max", GS_SCN_N_POWER_MAX, "power_default", NULL},
    {"power_limit", GS_SCN_N_POWER_LIMIT, "power_default", NULL},
    {"power_enforced", GS_SCN_N_POWER_ENFORCED, "power_limit", NULL},
    {"clock_max_graphics", GS_SCN_N_CLK_MAX_GR, "1410", NULL},
    {"clock_max_sm", GS_SCN_N_CLK_MAX_SM, "clock_max_graphics", NULL},
    {"clock_max_mem", GS_SCN_N_CLK_MAX_MEM, "1215", NULL},
    {"clock_max_video", GS_SCN_N_CLK_MAX_VIDEO, "1290", NULL},
    {"clock_app_graphics", GS_SCN_N_CLK_APP_GR, "clock_max_graphics", NULL},
    {"clock_app_mem", GS_SCN_N_CLK_APP_MEM, "clock_max_mem", NULL},
    {"pcie_max_gen", GS_SCN_N_PCIE_MAX_GEN, "4", NULL},
    {"pcie_gpu_max_gen", GS_SCN_N_PCIE_GPU_MAX_GEN, "pcie_max_gen", NULL},
    {"pcie_max_width", GS_SCN_N_PCIE_MAX_WIDTH, "16", NULL},
    {"fans", GS_SCN_N_FANS, "0", NULL},
    {"ecc", GS_SCN_N_ECC, "on", NULL},
    {"ecc_pending", GS_SCN_N_ECC_PENDING, "ecc", NULL},
    {"persistence", GS_SCN_N_PERSISTENCE, "on", NULL},
    {"compute_mode", GS_SCN_N_COMPUTE_MODE, "0", scn_cmode},
    {"mig", GS_SCN_N_MIG, "off", NULL},
    {"mig_pending", GS_SCN_N_MIG_PENDING, "mig", NULL},
    {"display_mode", GS_SCN_N_DISPLAY_MODE, "off", NULL},
    {"display_active", GS_SCN_N_DISPLAY_ACTIVE, "off", NULL},
    {"virtualization", GS_SCN_N_VIRT_MODE, "0", NULL},
    {"nvlinks", GS_SCN_N_NVLINKS, "0", NULL},
    {"throttle_supported", GS_SCN_N_THROTTLE_SUPPORTED, "0x1FF", gs_scn_throttle_names},
    {"energy_start", GS_SCN_N_ENERGY_START, "0", NULL},
    {"pcie_tx_start", GS_SCN_N_PCIE_TX_START, "0", NULL},
    {"pcie_rx_start", GS_SCN_N_PCIE_RX_START, "0", NULL},
    {"util", GS_SCN_N_UTIL, "0", NULL},
    {"mem_util", GS_SCN_N_MEM_UTIL, "0", NULL},
    {"enc", GS_SCN_N_ENC, "0", NULL},
    {"dec", GS_SCN_N_DEC, "0", NULL},
    {"memory_used", GS_SCN_N_MEM_USED, NULL, NULL},
    {"temp", GS_SCN_N_TEMP, "35", NULL},
    {"mem_temp", GS_SCN_N_MEM_TEMP, "add(temp, 4)", NULL},
    {"power", GS_SCN_N_POWER, "60W", NULL},
    {"clock_graphics", GS_SCN_N_CLK_GR, "210", NULL},
    {"clock_sm", GS_SCN_N_CLK_SM, "clock_graphics", NULL},
    {"clock_mem", GS_SCN_N_CLK_MEM, "clock_max_mem", NULL},
    {"clock_video", GS_SCN_N_CLK_VIDEO, "795", NULL},
    {"fan", GS_SCN_N_FAN, "30", NULL},
    {"pstate", GS_SCN_N_PSTATE, "0", NULL},
    {"throttle", GS_SCN_N_THROTTLE, "0", gs_scn_throttle_names},
    {"pcie_gen", GS_SCN_N_PCIE_GEN, "pcie_max_gen", NULL},
    {"pcie_width", GS_SCN_N_PCIE_WIDTH, "pcie_max_width", NULL},
    {"pcie_tx", GS_SCN_N_PCIE_TX, "0", NULL},
    {"pcie_rx", GS_SCN_N_PCIE_RX, "0", NULL},
    {"pcie_replay", GS_SCN_N_PCIE_REPLAY, "0", NULL},
    {"ecc_sbe_volatile", GS_SCN_N_ECC_SBE_VOL, "0", NULL},
    {"ecc_dbe_volatile", GS_SCN_N_ECC_DBE_VOL, "0", NULL},
    {"ecc_sbe_aggregate", GS_SCN_N_ECC_SBE_AGG, "ecc_sbe_volatile", NULL},
    {"ecc_dbe_aggregate", GS_SCN_N_ECC_DBE_AGG, "ecc_dbe_volatile", NULL},
    {"retired_sbe", GS_SCN_N_RETIRED_SBE, "0", NULL},
    {"retired_dbe", GS_SCN_N_RETIRED_DBE, "0", NULL},
    {"retired_pending", GS_SCN_N_RETIRED_PENDING, "0", NULL},
    {"remapped_cor", GS_SCN_N_REMAP_COR, "0", NULL},
    {"remapped_unc", GS_SCN_N_REMAP_UNC, "0", NULL},
    {"remap_pending", GS_SCN_N_REMAP_PENDING, "0", NULL},
    {"remap_failure", GS_SCN_N_REMAP_FAILURE, "0", NULL},
    /* throttle time, NVLink and fan range (health counters) */
    {"fan_min", GS_SCN_N_FAN_MIN, "30", NULL},
    {"fan_max", GS_SCN_N_FAN_MAX, "100", NULL},
    {"nvlink_down", GS_SCN_N_NVLINK_DOWN, "0", NULL},
    {"nvlink_crc_flit", GS_SCN_N_NVLINK_CRC_FLIT, "0", NULL},
    {"nvlink_crc_data", GS_SCN_N_NVLINK_CRC_DATA, "0", NULL},
    {"nvlink_replay", GS_SCN_N_NVLINK_REPLAY, "0", NULL},
    {"nvlink_recovery", GS_SCN_N_NVLINK_RECOVERY, "0", NULL},
    {"viol_board_limit", GS_SCN_N_VIOL_BOARD_LIMIT, "0", NULL},
    {"viol_reliability", GS_SCN_N_VIOL_RELIABILITY, "0", NULL},
    {"aer_cor", GS_SCN_N_AER_COR, "0", NULL},
    {"aer_nonfatal", GS_SCN_N_AER_NONFATAL, "0", NULL},
    {"aer_fatal", GS_SCN_N_AER_FATAL, "0", NULL},
    {"jpg", GS_SCN_N_JPG, "0", NULL},
    {"ofa", GS_SCN_N_OFA, "0", NULL},
    {"enc_sessions", GS_SCN_N_ENC_SESSIONS, "0", NULL},
    {"enc_fps", GS_SCN_N_ENC_FPS, "0", NULL},
    {"enc_latency", GS_SCN_N_ENC_LATENCY, "0", NULL},
    {"temp_tlimit", GS_SCN_N_TEMP_TLIMIT, "add(temp_gpu_max, mul(temp, -1))", NULL},
    {"power_instant", GS_SCN_N_POWER_INSTANT, "power", NULL},
    {"accounting", GS_SCN_N_ACCOUNTING, "off", NULL},
    {"accounting_buffer", GS_SCN_N_ACCT_BUFFER, "4000", NULL},
    {"prot_mem_total", GS_SCN_N_PROT_MEM_TOTAL, "0", NULL},
    {"prot_mem_used", GS_SCN_N_PROT_MEM_USED, "0", NULL},
    {"recovery", GS_SCN_N_RECOVERY, "0", scn_recovery},
    {"edpp", GS_SCN_N_EDPP, "100", NULL},
    {"gsp", GS_SCN_N_GSP, "on", NULL},
    {"gsp_default", GS_SCN_N_GSP_DEFAULT, "gsp", NULL},
    {"addressing", GS_SCN_N_ADDRESSING, "0", scn_addressing},
    {"ecc_locations", GS_SCN_N_ECC_LOCATIONS, "0x84", scn_ecc_locations},
    {"pci_class", GS_SCN_N_PCI_CLASS, "3", NULL},
    {"pci_subclass", GS_SCN_N_PCI_SUBCLASS, "2", NULL},
    {"memory_free", GS_SCN_N_MEM_FREE, "-1", NULL}, /* -1: total - reserved - used */
    {"fabric_state", GS_SCN_N_FABRIC_STATE, "0", scn_fabric_state},
    {"fabric_clique", GS_SCN_N_FABRIC_CLIQUE, "0", NULL},
    {"platform_slot", GS_SCN_N_PLATFORM_SLOT, "0", NULL},
    {"platform_tray", GS_SCN_N_PLATFORM_TRAY, "0", NULL},
    {"platform_host_id", GS_SCN_N_PLATFORM_HOST, "1", NULL},
    {"platform_peer_type", GS_SCN_N_PLATFORM_PEER, "0", NULL},
    {"platform_module_id", GS_SCN_N_PLATFORM_MODULE, "1", NULL},
    {"c2c", GS_SCN_N_C2C, "off", NULL},
    {"pcie_replay_rollover", GS_SCN_N_PCIE_ROLLOVER, "0", NULL},
    {"pcie_atomics_out", GS_SCN_N_PCIE_ATOMICS_OUT, "-1", scn_pcie_atomics}, /* -1: not supported */
    {"pcie_atomics_in", GS_SCN_N_PCIE_ATOMICS_IN, "-1", scn_pcie_atomics},
    {"power_memory", GS_SCN_N_POWER_MEMORY, "-1", NULL},                   /* -1: not supported */
    /* profiling (GPM) activity follows utilization unless given (area 10c) */
    {"gr_active", GS_SCN_N_GR_ACTIVE, "util", NULL},
    {"sm_active", GS_SCN_N_SM_ACTIVE, "mul(gr_active, 0.93)", NULL},
    {"sm_occupancy", GS_SCN_N_SM_OCCUPANCY, "mul(sm_active, 0.42)", NULL},
    {"tensor_active", GS_SCN_N_TENSOR_ACTIVE, "mul(sm_active, 0.55)", NULL},
    {"dram_active", GS_SCN_N_DRAM_ACTIVE, "mem_util", NULL},
    {"fp64_active", GS_SCN_N_FP64_ACTIVE, "0", NULL},
    {"fp32_active", GS_SCN_N_FP32_ACTIVE, "mul(sm_active, 0.12)", NULL},
    {"fp16_active", GS_SCN_N_FP16_ACTIVE, "mul(sm_active, 0.06)", NULL},
    {"nvlink_tx", GS_SCN_N_NVLINK_TX, "0", NULL},
    {"nvlink_rx", GS_SCN_N_NVLINK_RX, "0", NULL},
};
#define SCN_NNUMS (sizeof(scn_nums) / sizeof(scn_nums[0]))
_Static_assert(sizeof(scn_nums) / sizeof(scn_nums[0]) == GS_SCN_N__COUNT, "one row per attribute");

static const char *const scn_strs[GS_SCN_S__COUNT] = {
    [GS_SCN_S_NAME] = "name", [GS_SCN_S_UUID] = "uuid", [GS_SCN_S_SERIAL] = "serial",
    [GS_SCN_S_VBIOS] = "vbios", [GS_SCN_S_PART_NUMBER] = "part_number",
    [GS_SCN_S_INFOROM_IMG] = "inforom_img", [GS_SCN_S_INFOROM_OEM] = "inforom_oem",
    [GS_SCN_S_INFOROM_ECC] = "inforom_ecc", [GS_SCN_S_INFOROM_PWR] = "inforom_pwr",
    [GS_SCN_S_CHASSIS_SERIAL] = "chassis_serial", [GS_SCN_S_PDI] = "pdi"};

int gs_scn_num_code(const char *name)
{
    for (size_t i = 0; i < SCN_NNUMS; i++)
        if (strcmp(scn_nums[i].key, name) == 0)
            return (int)scn_nums[i].num;
    return -1;
}

/* ---- lifecycle -------------------------------------------------------------------- */

struct gs_scn *gs_scn_new(void)
{
    struct gs_scn *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->procs = calloc(GS_SCN_MAX_PROCS, sizeof(*s->procs));
    s->events = calloc(GS_SCN_MAX_EVENTS, sizeof(*s->events));
    if (!s->procs || !s->events) {
        gs_scn_free(s);
        return NULL;
    }
    snprintf(s->driver_version, sizeof(s->driver_version), "550.127.05");
    s->cuda_version = 12040;
    s->auto_pid = 2100000;
    return s;
}

void gs_scn_free(struct gs_scn *s)
{
    if (!s)
        return;
    gs_scn_arena_release(s->arena);
    free(s->procs);
    free(s->events);
    free(s->migs);
    free(s);
}

/* ---- helpers ------------------------------------------------------------------------- */

int gs_scn_value_in(struct gs_scn_ctx *c, const char *text, struct gs_scn_expr **out)
{
    char verr[GS_SCN_ERR_LEN];
    if (gs_scn_parse_value(c->s, text, (unsigned)c->at.line * 2654435761u ^ c->s->seed, out, verr,
                           sizeof(verr)) < 0)
        return gs_scn_err(c, "%s", verr);
    return 0;
}

int gs_scn_const(struct gs_scn_ctx *c, const char *key, const char *text, double *out)
{
    struct gs_scn_expr *e;
    if (gs_scn_value_in(c, text, &e) < 0)
        return -1;
    if (e->op != GS_OP_CONST)
        return gs_scn_err(c, "%s= must be a plain number, not a function of time", key);
    *out = e->k;
    return 0;
}

int gs_scn_enum_value(const struct scn_enum *names, const char *text, double *out)
{
    double acc = 0;
    char buf[128];
    /* bit masks: a|b|c ORs the bits (any other enum takes one name) */
    int mask = names == gs_scn_throttle_names || names == scn_ecc_locations || names == scn_pcie_atomics;
    snprintf(buf, sizeof(buf), "%s", text);
    for (char *tok = buf, *next; tok; tok = next) {
        next = strchr(tok, '|');
        if (next)
            *next++ = '\0';
        int found = 0;
        for (int i = 0; names[i].name && !found; i++)
            if (strcasecmp(names[i].name, tok) == 0) {
                acc = mask ? (double)((unsigned long long)acc | (unsigned long long)names[i].value)
                           : names[i].value;
                found = 1;
            }
        if (!found)
            return -1;
    }
    *out = acc;
    return 0;
}

/* Parse a GPU selection: all, N, N-M, a,b,c-d. Indices past the defined GPUs
 * are allowed only when `create` (gpu lines create GPUs). */
int gs_scn_selection(struct gs_scn_ctx *c, const char *text, int create, uint64_t *mask)
{
    *mask = 0;
    if (strcmp(text, "all") == 0) {
        *mask = c->s->ngpus >= 64 ? ~0ull : ((1ull << c->s->ngpus) - 1);
        return *mask ? 0 : gs_scn_err(c, "'all' selects no GPU: define GPUs with a gpu line first");
    }
    const char *p = text;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a >= GS_SCN_MAX_GPUS)
            return gs_scn_err(c, "bad GPU selection '%s' (use all, 3, 0-7 or 0,2,5; indices 0-%d)",
                           text, GS_SCN_MAX_GPUS - 1);
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b >= GS_SCN_MAX_GPUS)
                return gs_scn_err(c, "bad GPU range in '%s'", text);
            p = end;
        }
        if (!create && b >= c->s->ngpus)
            return gs_scn_err(c, "GPU %ld is not defined (define it with a gpu line first)", b);
        for (long i = a; i <= b; i++)
            *mask |= 1ull << i;
        if (*p == ',')
            p++;
        else if (*p)
            return gs_scn_err(c, "bad GPU selection '%s'", text);
    }
    return 0;
}

/* ---- gpu lines ------------------------------------------------------------------------ */

static const unsigned scn_dgx_bus[8] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};

static int scn_const_expr(struct gs_scn_ctx *c, double v, struct gs_scn_expr **out)
{
    *out = gs_scn_arena_alloc(c->s, sizeof(**out));
    if (!*out)
        return gs_scn_err(c, "out of memory");
    memset(*out, 0, sizeof(**out));
    (*out)->k = v;
    return 0;
}

static int scn_gpu_create(struct gs_scn_ctx *c, int idx)
{
    struct gs_scn_gpu *g = &c->s->gpus[idx];
    unsigned bus = idx < 8 ? scn_dgx_bus[idx] : 0x01u + (unsigned)idx * 3u;
    memset(g, 0, sizeof(*g));
    g->lost_at = INFINITY;
    g->back_at = INFINITY;
    for (size_t i = 0; i < SCN_NNUMS; i++)
        if (scn_nums[i].def && gs_scn_value_in(c, scn_nums[i].def, &g->num[scn_nums[i].num]) < 0)
            return -1;
    if (scn_const_expr(c, bus, &g->num[GS_SCN_N_BUS]) < 0 ||
        scn_const_expr(c, (double)(bus << 8), &g->num[GS_SCN_N_BOARD_ID]) < 0 ||
        scn_const_expr(c, idx, &g->num[GS_SCN_N_MINOR]) < 0)
        return -1;
    g->num[GS_SCN_N_MEM_USED] = NULL; /* derived from the processes unless set */
    return 0;
}

static int scn_unsupported(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *list)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", list);
    for (char *tok = buf, *next; tok && *tok; tok = next) {
        next = strchr(tok, ',');
        if (next)
            *next++ = '\0';
        int neg = tok[0] == '-';
        uint64_t bits;
        if (strcmp(tok + neg, "all") == 0 || strcmp(tok + neg, "none") == 0) {
            bits = (1ull << GS_SCN_F__COUNT) - 1;
            neg = neg || strcmp(tok + neg, "none") == 0;
        } else {
            int f = gs_scn_feature_code(tok + neg);
            if (f < 0)
                return gs_scn_err(c, "unknown feature '%s' in unsupported= (e.g. fan, ecc, encoder, power, procs; see docs/SIMULATOR.md)",
                               tok + neg);
            bits = 1ull << f;
        }
        g->unsupported = neg ? g->unsupported & ~bits : g->unsupported | bits;
    }
    return 0;
}

/* deprecated=display_mode,power_mode,app_clocks,reset_status (or none) */
static int scn_deprecated(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *list)
{
    static const char *const names[GS_SCN_D__COUNT] = {"display_mode", "power_mode", "app_clocks",
                                                       "reset_status"};
    char buf[256];
    char *save = NULL;

    if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
        return gs_scn_err(c, "deprecated=: list too long");
    g->deprecated = 0;
    g->deprecated_set = 1;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = -1;
        for (int i = 0; i < GS_SCN_D__COUNT; i++)
            if (strcmp(names[i], t) == 0)
                k = i;
        if (k < 0 && strcmp(t, "none") != 0)
            return gs_scn_err(c, "unknown call '%s' in deprecated= (display_mode, power_mode, app_clocks, "
                                 "reset_status, none)", t);
        if (k >= 0)
            g->deprecated |= 1u << k;
    }
    return 0;
}

static int scn_gpu_num(struct gs_scn_ctx *c, struct gs_scn_gpu *g, int ni, const char *v)
{
    double k;
    if (scn_nums[ni].names && gs_scn_enum_value(scn_nums[ni].names, v, &k) == 0)
        return scn_const_expr(c, k, &g->num[scn_nums[ni].num]);
    return gs_scn_value_in(c, v, &g->num[scn_nums[ni].num]);
}

static int scn_gpu_special(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *k, const char *v)
{
    double x;
    if (strcmp(k, "unsupported") == 0)
        return scn_unsupported(c, g, v);
    if (strcmp(k, "deprecated") == 0)
        return scn_deprecated(c, g, v);
    if (strcmp(k, "handle_error") == 0) {
        int code = gs_scn_error_code(v);
        if (code <= 0)
            return gs_scn_err(c, "handle_error=%s: unknown NVML error name", v);
        g->handle_error = code;
        return 0;
    }
    if (strcmp(k, "lost_at") == 0 || strcmp(k, "back_at") == 0) {
        if (gs_scn_const(c, k, v, &x) < 0)
            return -1;
        *(k[0] == 'l' ? &g->lost_at : &g->back_at) = x;
        return 0;
    }
    if (strcmp(k, "cc") == 0) {
        int maj, min;
        char tail;
        if (sscanf(v, "%d.%d%c", &maj, &min, &tail) != 2 || maj < 0 || min < 0)
            return gs_scn_err(c, "cc=%s: expected MAJOR.MINOR such as 9.0", v);
        return scn_const_expr(c, maj, &g->num[GS_SCN_N_CC_MAJOR]) < 0 ? -1
               : scn_const_expr(c, min, &g->num[GS_SCN_N_CC_MINOR]);
    }
    return 1; /* not special */
}

int gs_scn_gpu_num_default(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *k)
{
    for (size_t i = 0; i < SCN_NNUMS; i++)
        if (strcmp(scn_nums[i].key, k) == 0) {
            g->num[scn_nums[i].num] = NULL;
            return scn_nums[i].def ? gs_scn_value_in(c, scn_nums[i].def, &g->num[scn_nums[i].num]) : 0;
        }
    return 1;
}

int gs_scn_gpu_num_attr(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *k, const char *v)
{
    for (size_t i = 0; i < SCN_NNUMS; i++)
        if (strcmp(scn_nums[i].key, k) == 0)
            return scn_gpu_num(c, g, (int)i, v);
    return 1;
}

static int scn_gpu_attr(struct gs_scn_ctx *c, struct gs_scn_gpu *g, const char *k, const char *v)
{
    int rc = scn_gpu_special(c, g, k, v);
    if (rc <= 0)
        return rc;
    for (int i = 0; i < GS_SCN_S__COUNT; i++) {
        if (strcmp(scn_strs[i], k) == 0) {
            if (strlen(v) > 95 || (i == GS_SCN_S_SERIAL && strlen(v) > 29))
                return gs_scn_err(c, "%s= is too long for its NVML buffer", k);
            g->str[i] = gs_scn_arena_strdup(c->s, v, strlen(v));
            return g->str[i] ? 0 : gs_scn_err(c, "out of memory");
        }
    }
    for (size_t i = 0; i < SCN_NNUMS; i++)
        if (strcmp(scn_nums[i].key, k) == 0)
            return scn_gpu_num(c, g, (int)i, v);
    return gs_scn_err(c, "unknown GPU attribute '%s' (see docs/SIMULATOR.md for the list)", k);
}

static int scn_line_gpu(struct gs_scn_ctx *c, char **w, int n)
{
    uint64_t mask;
    int first = 1;
    if (n < 2)
        return gs_scn_err(c, "gpu: expected a selection (0, 0-7, all or count=N) and attributes");
    if (strncmp(w[1], "count=", 6) == 0) {
        char *end;
        long cnt = strtol(w[1] + 6, &end, 10);
        if (*end || cnt < 0 || cnt > GS_SCN_MAX_GPUS)
            return gs_scn_err(c, "gpu count=%s: expected 0-%d", w[1] + 6, GS_SCN_MAX_GPUS);
        mask = cnt == 64 ? ~0ull : (1ull << cnt) - 1;
    } else if (gs_scn_selection(c, w[1], 1, &mask) < 0) {
        return -1;
    }
    for (int i = 0; i < GS_SCN_MAX_GPUS; i++) {
        if (!(mask & (1ull << i)))
            continue;
        while (c->s->ngpus <= i)
            if (scn_gpu_create(c, c->s->ngpus++) < 0)
                return -1;
        for (int j = 2; j < n; j++) {
            char *eq = strchr(w[j], '=');
            if (!eq)
                return gs_scn_err(c, "gpu: expected key=value, got '%s'", w[j]);
            *eq = '\0';
            int rc = scn_gpu_attr(c, &c->s->gpus[i], w[j], eq + 1);
            *eq = '=';
            if (rc < 0)
                return -1;
        }
        first = 0;
    }
    (void)first;
    return 0;
}

/* ---- system and name lines ------------------------------------------------------------- */

static int scn_cuda_version(struct gs_scn_ctx *c, const char *v)
{
    int maj, min = 0;
    char tail;
    if (sscanf(v, "%d.%d%c", &maj, &min, &tail) == 2 && maj > 0 && min >= 0 && min < 100)
        c->s->cuda_version = maj * 1000 + min * 10;
    else if (sscanf(v, "%d%c", &maj, &tail) == 1 && maj >= 1000)
        c->s->cuda_version = maj;
    else
        return gs_scn_err(c, "cuda=%s: expected MAJOR.MINOR (12.4) or an encoded number (12040)", v);
    return 0;
}

static int scn_system_attr(struct gs_scn_ctx *c, const char *k, const char *v)
{
    struct gs_scn *s = c->s;
    double x;
    if (strcmp(k, "driver") == 0 && strlen(v) < sizeof(s->driver_version))
        snprintf(s->driver_version, sizeof(s->driver_version), "%s", v);
    else if (strcmp(k, "nvml") == 0 && strlen(v) < sizeof(s->nvml_version))
        snprintf(s->nvml_version, sizeof(s->nvml_version), "%s", v);
    else if (strcmp(k, "branch") == 0 && strlen(v) < sizeof(s->driver_branch))
        snprintf(s->driver_branch, sizeof(s->driver_branch), "%s", v);
    else if (strcmp(k, "cuda") == 0)
        return scn_cuda_version(c, v);
    else if (strcmp(k, "init_error") == 0) {
        int code = gs_scn_error_code(v);
        if (code < 0)
            return gs_scn_err(c, "init_error=%s: unknown NVML error name", v);
        s->init_error = code;
    } else if (strcmp(k, "seed") == 0 || strcmp(k, "pid_base") == 0) {
        if (gs_scn_const(c, k, v, &x) < 0)
            return -1;
        if (x < 0 || x > 4194303)
            return gs_scn_err(c, "%s=%s out of range", k, v);
        *(k[0] == 's' ? &s->seed : &s->auto_pid) = (unsigned)x;
    } else
        return gs_scn_err(c, "unknown or too long system attribute '%s' (driver nvml cuda branch init_error seed pid_base)", k);
    return 0;
}

static int scn_line_system(struct gs_scn_ctx *c, char **w, int n)
{
    for (int j = 1; j < n; j++) {
        char *eq = strchr(w[j], '=');
        if (!eq)
            return gs_scn_err(c, "system: expected key=value, got '%s'", w[j]);
        *eq = '\0';
        int rc = scn_system_attr(c, w[j], eq + 1);
        *eq = '=';
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* pcidev bus=0x3b [domain=0] [device=0] [pci_device_id=0x2330]: on the bus (sysfs), not in NVML. */
static int scn_line_pcidev(struct gs_scn_ctx *c, char **w, int n)
{
    if (c->s->npcidevs == GS_SCN_MAX_PCIDEVS)
        return gs_scn_err(c, "pcidev: at most %d", GS_SCN_MAX_PCIDEVS);
    struct gs_scn_pcidev *d = &c->s->pcidevs[c->s->npcidevs];
    memset(d, 0, sizeof(*d));
    d->device_id = 0x2330;
    int bus = 0;
    for (int j = 1; j < n; j++) {
        char *eq = strchr(w[j], '='), *end;
        if (!eq)
            return gs_scn_err(c, "pcidev: expected key=value, got '%s'", w[j]);
        unsigned long v = strtoul(eq + 1, &end, 0);
        if (end == eq + 1 || *end)
            return gs_scn_err(c, "pcidev: bad number '%s'", eq + 1);
        *eq = '\0';
        if (!strcmp(w[j], "bus"))
            d->bus = (unsigned)v, bus = 1;
        else if (!strcmp(w[j], "domain"))
            d->domain = (unsigned)v;
        else if (!strcmp(w[j], "device"))
            d->device = (unsigned)v;
        else if (!strcmp(w[j], "pci_device_id"))
            d->device_id = (unsigned)v & 0xffff;
        else
            return gs_scn_err(c, "pcidev: unknown key '%s' (bus domain device pci_device_id)", w[j]);
        *eq = '=';
    }
    if (!bus || d->bus > 0xff)
        return gs_scn_err(c, "pcidev: needs bus=0x00..0xff");
    c->s->npcidevs++;
    return 0;
}

static int scn_line_name(struct gs_scn_ctx *c, char **w, int n)
{
    if (n != 2 || strlen(w[1]) >= sizeof(c->s->name))
        return gs_scn_err(c, "name: expected one short word");
    snprintf(c->s->name, sizeof(c->s->name), "%s", w[1]);
    return 0;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static int scn_line(void *arg, char *line)
{
    struct gs_scn_ctx *c = arg;
    char *w[GS_SCN_MAX_WORDS];
    int n = gs_scn_split(&c->at, line, w);
    if (n <= 0)
        return n;
    if (strcmp(w[0], "gpu") == 0)
        return scn_line_gpu(c, w, n);
    if (strcmp(w[0], "proc") == 0)
        return gs_scn_line_proc(c, w, n);
    if (strcmp(w[0], "at") == 0)
        return gs_scn_line_at(c, w, n);
    if (strcmp(w[0], "fault") == 0)
        return gs_scn_line_fault(c, w, n);
    if (strcmp(w[0], "mig") == 0)
        return gs_scn_line_mig(c, w, n);
    if (strcmp(w[0], "system") == 0)
        return scn_line_system(c, w, n);
    if (strcmp(w[0], "name") == 0)
        return scn_line_name(c, w, n);
    if (strcmp(w[0], "pcidev") == 0)
        return scn_line_pcidev(c, w, n);
    if (strcmp(w[0], "cuda") == 0)
        return gs_scn_line_cuda(c, w, n);
    return gs_scn_err(c, "unknown directive '%.40s' (expected name, system, gpu, proc, mig, at, fault, pcidev or cuda)", w[0]);
}

static int scn_event_cmp(const void *a, const void *b)
{
    const struct gs_scn_event *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x < y ? -1 : x > y;
}

int gs_scn_parse_buf(struct gs_scn *s, const char *text, size_t len, const char *fname, char *err,
                     size_t errlen)
{
    struct gs_scn_ctx c = {.s = s, .at = {.fname = fname ? fname : "<scenario>", .err = err, .errlen = errlen}};
    int rc = gs_scn_each_line(&c.at, text, len, scn_line, &c);
    if (rc == 0)
        rc = gs_scn_check_mps(&c);
    qsort(s->events, (size_t)s->nevents, sizeof(s->events[0]), scn_event_cmp);
    return rc;
}

int gs_scn_parse_file(struct gs_scn *s, const char *path, char *err, size_t errlen)
{
    size_t len;
    char *text = gs_scn_read_file(path, &len, err, errlen);
    if (!text)
        return -1;
    if (!s->name[0])
        gs_scn_default_name(path, s->name, sizeof(s->name));
    int rc = gs_scn_parse_buf(s, text, len, path, err, errlen);
    free(text);
    return rc;
}
