/* SPDX-License-Identifier: MIT */
/*
 * drmsim_sys.c - the cards' sysfs, laid out as the kernel does it:
 *   <sys>/devices/pci0000:00/<bdf>/      the PCI function (vendor, device, subsystem_*, revision,
 *                                        class, uevent, current/max_link_*, power/runtime_status,
 *                                        driver -> bus/pci/drivers/<driver>)
 *       drm/cardN, drm/renderDM          with dev and device -> ../../../<bdf>
 *       hwmon/hwmonK/                    Documentation/hwmon/sysfs-interface.rst
 *       amdgpu: gpu_busy_percent, mem_*, pp_dpm_*, gpu_metrics, ras/  (amdgpu's driver-misc.rst)
 *       xe: tile0/gt0/freq0/, tile0/gt0/gtidle/, tile0/physical_vram_size_bytes
 *   <sys>/class/drm/cardN -> ../../devices/.../drm/cardN    (i915's gt_* files live in cardN)
 *   <sys>/bus/pci/devices/<bdf> -> ../../../devices/pci0000:00/<bdf>
 * File formats follow real captures: prometheus/procfs testdata/fixtures.ttar
 * (a Vega 10 under amdgpu: mem_info_*, pp_dpm_* with "N: XMhz *", unique_id,
 * vbios_version, uevent), the hwmon listing of an RX 9060 in
 * chestm007/amdgpu-fan#41, lm-sensors' edge/junction/mem limits in
 * marazmista/radeon-profile#199, the xe sysfs paths in the turbostat patch
 * on linux-pm ("Xe graphics driver uses different graphics sysfs knobs").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/drm/amdgpu_metrics_abi.h"
#include "drmsim.h"

/* The tree's relative paths are a few dozen bytes, built from short fixed parts
 * into buffers of hundreds: GCC cannot see that, so its truncation warning goes. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* Where card k's PCI function lives under the root ("sys/devices/..."). */
static void dev_dir(const struct ds_card *k, char *out, size_t cap)
{
    snprintf(out, cap, "sys/devices/pci0000:00/%s", k->pci);
}

static const char *drv_name(enum ds_driver d)
{
    return d == DS_AMDGPU ? "amdgpu" : d == DS_I915 ? "i915" : "xe";
}

static double V(const struct ds_card *k, int i, enum ds_num n, double t)
{
    return ds_eval(k->num[n], t, (unsigned)i * 7919u + (unsigned)n);
}

static unsigned long long U(const struct ds_card *k, int i, enum ds_num n, double t)
{
    double v = V(k, i, n, t);
    return v <= 0 ? 0 : (unsigned long long)(v + 0.5);
}

/* dev/<rel> = value when the scenario has it. */
static int put_num(const struct ds_card *k, int i, const char *root, const char *dir, const char *rel,
                   enum ds_num n, double t, double mul)
{
    char path[1024];
    if (!k->num[n])
        return 0;
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    double v = V(k, i, n, t) * mul;
    return ds_putf(root, path, "%lld\n", (long long)llround(v));
}

static int put_str(const char *root, const char *dir, const char *rel, const char *s)
{
    char path[1024];
    if (!s)
        return 0;
    snprintf(path, sizeof(path), "%s/%s", dir, rel);
    return ds_putf(root, path, "%s\n", s);
}

/* ---- the PCI function and its nodes ------------------------------------------------- */

static const char *link_speed(unsigned gen)
{
    static const char *const s[] = { "Unknown", "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
                                     "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe" };
    return gen < 7 ? s[gen] : s[0];
}

static int write_pci(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    char rel[1024], tgt[512];
    const char *drv = drv_name(k->drv);
    int rc = 0;

    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/vendor", dev), rel), "0x%04x\n", k->vendor);
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/device", dev), rel), "0x%04x\n", k->device);
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/subsystem_vendor", dev), rel), "0x%04x\n", k->sub_vendor);
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/subsystem_device", dev), rel), "0x%04x\n", k->sub_device);
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/revision", dev), rel), "0x%02x\n", k->revision);
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/class", dev), rel), "0x030000\n");
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/uevent", dev), rel),
                  "DRIVER=%s\nPCI_CLASS=30000\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n"
                  "MODALIAS=pci:v%08Xd%08Xsv%08Xsd%08Xbc03sc00i00\n",
                  drv, k->vendor, k->device, k->sub_vendor, k->sub_device, k->pci, k->vendor, k->device,
                  k->sub_vendor, k->sub_device);
    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/power/runtime_status", dev), rel), "%s\n",
                  k->num[DN_SUSPENDED] && V(k, i, DN_SUSPENDED, t) >= 0.5 ? "suspended" : "active");
    if (k->num[DN_PCIE_GEN])
        rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/current_link_speed", dev), rel), "%s\n",
                      link_speed((unsigned)U(k, i, DN_PCIE_GEN, t)));
    if (k->num[DN_PCIE_MAX_GEN])
        rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/max_link_speed", dev), rel), "%s\n",
                      link_speed((unsigned)U(k, i, DN_PCIE_MAX_GEN, t)));
    rc |= put_num(k, i, root, dev, "current_link_width", DN_PCIE_WIDTH, t, 1);
    rc |= put_num(k, i, root, dev, "max_link_width", DN_PCIE_MAX_WIDTH, t, 1);
    snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s/uevent", drv);
    rc |= ds_putf(root, rel, "DRIVER=%s\n", drv);
    snprintf(rel, sizeof(rel), "%s/driver", dev);
    snprintf(tgt, sizeof(tgt), "../../../bus/pci/drivers/%s", drv);
    rc |= ds_link(root, rel, tgt);
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", k->pci);
    snprintf(tgt, sizeof(tgt), "../../../devices/pci0000:00/%s", k->pci);
    rc |= ds_link(root, rel, tgt);
    return rc;
}

static int write_node(const struct ds_card *k, const char *root, const char *dev, const char *node, int minor)
{
    char rel[1024], tgt[512];
    int rc = 0;

    rc |= ds_putf(root, (snprintf(rel, sizeof(rel), "%s/drm/%s/dev", dev, node), rel), "226:%d\n", minor);
    snprintf(rel, sizeof(rel), "%s/drm/%s/device", dev, node);
    snprintf(tgt, sizeof(tgt), "../../../%s", k->pci);
    rc |= ds_link(root, rel, tgt);
    snprintf(rel, sizeof(rel), "sys/class/drm/%s", node);
    snprintf(tgt, sizeof(tgt), "../../devices/pci0000:00/%s/drm/%s", k->pci, node);
    rc |= ds_link(root, rel, tgt);
    return rc;
}

/* ---- hwmon ---------------------------------------------------------------------------- */

static int write_temp(const struct ds_card *k, int i, const char *root, const char *hw, int n, const char *label,
                      enum ds_num in, enum ds_num crit, enum ds_num emerg, double t)
{
    char rel[64];
    int rc = 0;

    if (!k->num[in])
        return 0;
    snprintf(rel, sizeof(rel), "temp%d_input", n);
    rc |= put_num(k, i, root, hw, rel, in, t, 1000);
    if (label) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/temp%d_label", hw, n);
        rc |= ds_putf(root, path, "%s\n", label);
    }
    snprintf(rel, sizeof(rel), "temp%d_crit", n);
    rc |= put_num(k, i, root, hw, rel, crit, t, 1000);
    snprintf(rel, sizeof(rel), "temp%d_emergency", n);
    rc |= put_num(k, i, root, hw, rel, emerg, t, 1000);
    if (k->num[crit]) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/temp%d_crit_hyst", hw, n);
        rc |= ds_putf(root, path, "-273150\n"); /* what amdgpu answers */
    }
    return rc;
}

static int write_hwmon(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    char hw[400];
    bool intel = k->drv != DS_AMDGPU;
    int rc = 0;

    snprintf(hw, sizeof(hw), "%s/hwmon/hwmon%d", dev, 2 + i);
    rc |= put_str(root, hw, "name", drv_name(k->drv));
    rc |= write_temp(k, i, root, hw, intel ? 2 : 1, intel ? "pkg" : "edge", DN_TEMP_EDGE, DN_EDGE_CRIT, DN_EDGE_EMERG, t);
    rc |= write_temp(k, i, root, hw, 2, "junction", DN_TEMP_JUNCTION, DN_JUNCTION_CRIT, DN_JUNCTION_EMERG, t);
    rc |= write_temp(k, i, root, hw, 3, intel ? "vram" : "mem", DN_TEMP_MEM, DN_MEM_CRIT, DN_MEM_EMERG, t);
    rc |= put_num(k, i, root, hw, "power1_average", DN_POWER, t, 1000);   /* mW -> uW */
    rc |= put_num(k, i, root, hw, intel ? "power1_max" : "power1_cap", DN_POWER_CAP, t, 1000);
    rc |= put_num(k, i, root, hw, "power1_cap_min", DN_POWER_CAP_MIN, t, 1000);
    rc |= put_num(k, i, root, hw, "power1_cap_max", DN_POWER_CAP_MAX, t, 1000);
    rc |= put_num(k, i, root, hw, intel ? "power1_rated_max" : "power1_cap_default", DN_POWER_CAP_DEFAULT, t, 1000);
    if (k->num[DN_ENERGY_POWER]) {
        char path[1024];
        snprintf(path, sizeof(path), "%s/energy1_input", hw);
        rc |= ds_putf(root, path, "%llu\n", (unsigned long long)k->energy_uj);
    }
    rc |= put_num(k, i, root, hw, "fan1_input", DN_FAN_RPM, t, 1);
    rc |= put_num(k, i, root, hw, "fan1_min", DN_FAN_MIN, t, 1);
    rc |= put_num(k, i, root, hw, "fan1_max", DN_FAN_MAX, t, 1);
    rc |= put_num(k, i, root, hw, "pwm1", DN_PWM, t, 1);
    rc |= put_num(k, i, root, hw, "in0_input", DN_VOLT, t, 1);
    if (k->num[DN_VOLT] && !intel)
        rc |= put_str(root, hw, "in0_label", "vddgfx");
    return rc;
}

/* ---- amdgpu -------------------------------------------------------------------------- */

/* pp_dpm_*: the levels with '*' on the current one; a clock between two
 * levels of a two-level (fine-grained) table shows as a middle line. */
static int write_dpm(const char *root, const char *dev, const char *name, const unsigned *lv, unsigned n,
                     double cur)
{
    char buf[1024], rel[1024];
    size_t used = 0;
    unsigned best = 0;

    if (!n)
        return 0;
    for (unsigned j = 1; j < n; j++)
        if (fabs(lv[j] - cur) < fabs(lv[best] - cur))
            best = j;
    bool middle = n == 2 && cur > lv[0] + 1 && cur < lv[1] - 1;
    for (unsigned j = 0, idx = 0; j < n; j++) {
        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%u: %uMhz %s\n", idx++, lv[j],
                                 !middle && j == best ? "*" : "");
        if (middle && j == 0)
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%u: %uMhz *\n", idx++, (unsigned)llround(cur));
    }
    snprintf(rel, sizeof(rel), "%s/%s", dev, name);
    return ds_put(root, rel, buf, used);
}

static uint16_t m16(const struct ds_card *k, int i, enum ds_num n, double t, double mul)
{
    return k->num[n] ? (uint16_t)llround(V(k, i, n, t) * mul) : 0xffff;
}

static int write_metrics(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    char rel[1024];
    uint64_t thr = k->num[DN_THROTTLE] ? (uint64_t)llround(V(k, i, DN_THROTTLE, t)) : 0;

    snprintf(rel, sizeof(rel), "%s/gpu_metrics", dev);
    if (k->metrics_format == 1 && k->metrics_content >= 1 && k->metrics_content <= 3) {
        struct amdm_v1_3 m;
        memset(&m, 0xff, sizeof(m));
        size_t size = k->metrics_content == 3 ? sizeof(m) : k->metrics_content == 2
                      ? offsetof(struct amdm_v1_3, voltage_soc) : offsetof(struct amdm_v1_3, firmware_timestamp);
        m.h = (struct amdm_header){ (uint16_t)size, 1, (uint8_t)k->metrics_content };
        m.temperature_edge = m16(k, i, DN_TEMP_EDGE, t, 1);
        m.temperature_hotspot = m16(k, i, DN_TEMP_JUNCTION, t, 1);
        m.temperature_mem = m16(k, i, DN_TEMP_MEM, t, 1);
        m.average_gfx_activity = m16(k, i, DN_BUSY, t, 1);
        m.average_umc_activity = m16(k, i, DN_MEM_BUSY, t, 1);
        m.average_socket_power = m16(k, i, DN_POWER, t, 0.001); /* mW -> W */
        m.current_gfxclk = m16(k, i, DN_SCLK, t, 1);
        m.current_uclk = m16(k, i, DN_MCLK, t, 1);
        m.current_fan_speed = m16(k, i, DN_FAN_RPM, t, 1);
        m.voltage_gfx = m16(k, i, DN_VOLT, t, 1);
        m.indep_throttle_status = thr;
        return ds_put(root, rel, (const char *)&m, size);
    }
    if (k->metrics_format == 2 && k->metrics_content >= 1 && k->metrics_content <= 4) {
        struct amdm_v2_4 m;
        memset(&m, 0xff, sizeof(m));
        m.h = (struct amdm_header){ (uint16_t)sizeof(m), 2, (uint8_t)k->metrics_content };
        m.temperature_gfx = m16(k, i, DN_TEMP_EDGE, t, 100);
        m.average_gfx_activity = m16(k, i, DN_BUSY, t, k->metrics_content >= 4 ? 100 : 1);
        m.average_socket_power = m16(k, i, DN_POWER, t, 1);
        m.current_gfxclk = m16(k, i, DN_SCLK, t, 1);
        m.current_uclk = m16(k, i, DN_MCLK, t, 1);
        m.indep_throttle_status = thr;
        return ds_put(root, rel, (const char *)&m, sizeof(m));
    }
    return 0;
}

static int write_ras(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    char rel[1024], buf[4096];
    size_t used = 0;
    int rc = 0;

    for (unsigned b = 0; b < k->nras; b++) {
        snprintf(rel, sizeof(rel), "%s/ras/%s_err_count", dev, k->ras_blocks[b]);
        rc |= ds_putf(root, rel, "ue: %llu\nce: %llu\n", b ? 0ull : U(k, i, DN_RAS_UE, t),
                      b ? 0ull : U(k, i, DN_RAS_CE, t));
    }
    if (!k->nras)
        return rc;
    snprintf(rel, sizeof(rel), "%s/ras/features", dev);
    rc |= ds_putf(root, rel, "feature mask: 0x%08x\n", (1u << k->nras) - 1);
    unsigned long long pages = U(k, i, DN_BAD_PAGES, t);
    for (unsigned long long p = 0; p < pages && used + 40 < sizeof(buf); p++)
        used += (size_t)snprintf(buf + used, sizeof(buf) - used, "0x%08llx : 0x00001000 : R\n", 0x1000 + p * 0x11);
    snprintf(rel, sizeof(rel), "%s/ras/gpu_vram_bad_pages", dev);
    rc |= ds_put(root, rel, buf, used);
    return rc;
}

static int write_amdgpu(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    int rc = 0;

    rc |= put_num(k, i, root, dev, "gpu_busy_percent", DN_BUSY, t, 1);
    rc |= put_num(k, i, root, dev, "mem_busy_percent", DN_MEM_BUSY, t, 1);
    rc |= put_num(k, i, root, dev, "mem_info_vram_total", DN_VRAM_TOTAL, t, 1);
    rc |= put_num(k, i, root, dev, "mem_info_vram_used", DN_VRAM_USED, t, 1);
    rc |= put_num(k, i, root, dev, "mem_info_vis_vram_total", DN_VIS_TOTAL, t, 1);
    rc |= put_num(k, i, root, dev, "mem_info_vis_vram_used", DN_VIS_USED, t, 1);
    rc |= put_num(k, i, root, dev, "mem_info_gtt_total", DN_GTT_TOTAL, t, 1);
    rc |= put_num(k, i, root, dev, "mem_info_gtt_used", DN_GTT_USED, t, 1);
    rc |= write_dpm(root, dev, "pp_dpm_sclk", k->sclk_levels, k->nsclk, V(k, i, DN_SCLK, t));
    rc |= write_dpm(root, dev, "pp_dpm_mclk", k->mclk_levels, k->nmclk, V(k, i, DN_MCLK, t));
    rc |= put_str(root, dev, "product_name", k->product_name);
    rc |= put_str(root, dev, "unique_id", k->unique_id);
    rc |= put_str(root, dev, "vbios_version", k->vbios);
    rc |= put_str(root, dev, "serial_number", k->serial);
    rc |= write_metrics(k, i, root, dev, t);
    rc |= write_ras(k, i, root, dev, t);
    return rc;
}

/* ---- Intel ----------------------------------------------------------------------------- */

static const char *const intel_reason[8] = { "pl1", "pl2", "pl4", "thermal", "prochot", "ratl", "vr_thermalert",
                                             "vr_tdc" };

static int write_throttle(const struct ds_card *k, int i, const char *root, const char *dir, const char *pfx,
                          const char *status, double t)
{
    char rel[64];
    unsigned long long bits = U(k, i, DN_THROTTLE, t);
    int rc = 0;

    if (!k->num[DN_THROTTLE])
        return 0;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, status);
    rc |= ds_putf(root, path, "%d\n", bits ? 1 : 0);
    for (int r = 0; r < 8; r++) {
        snprintf(rel, sizeof(rel), "%s%s", pfx, intel_reason[r]);
        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        rc |= ds_putf(root, path, "%d\n", (bits >> r) & 1 ? 1 : 0);
    }
    return rc;
}

static int write_i915(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    char card[512], gt[600], path[1024];
    int rc = 0;

    snprintf(card, sizeof(card), "%s/drm/card%d", dev, k->card_minor);
    rc |= put_num(k, i, root, card, "gt_act_freq_mhz", DN_ACT_FREQ, t, 1);
    rc |= put_num(k, i, root, card, "gt_cur_freq_mhz", DN_CUR_FREQ, t, 1);
    rc |= put_num(k, i, root, card, "gt_min_freq_mhz", DN_MIN_FREQ, t, 1);
    rc |= put_num(k, i, root, card, "gt_max_freq_mhz", DN_MAX_FREQ, t, 1);
    rc |= put_num(k, i, root, card, "gt_RP0_freq_mhz", DN_RP0, t, 1);
    rc |= put_num(k, i, root, card, "gt_RPn_freq_mhz", DN_RPN, t, 1);
    rc |= put_num(k, i, root, card, "lmem_total_bytes", DN_LMEM_TOTAL, t, 1);
    if (k->num[DN_RC6]) {
        snprintf(path, sizeof(path), "%s/power/rc6_residency_ms", card);
        rc |= ds_putf(root, path, "%llu\n", (unsigned long long)k->rc6_ms);
    }
    snprintf(gt, sizeof(gt), "%s/gt/gt0", card);
    rc |= write_throttle(k, i, root, gt, "throttle_reason_", "throttle_reason_status", t);
    return rc;
}

static int write_xe(const struct ds_card *k, int i, const char *root, const char *dev, double t)
{
    char freq[512], idle[512], path[1024];
    int rc = 0;

    snprintf(freq, sizeof(freq), "%s/tile0/gt0/freq0", dev);
    rc |= put_num(k, i, root, freq, "act_freq", DN_ACT_FREQ, t, 1);
    rc |= put_num(k, i, root, freq, "cur_freq", DN_CUR_FREQ, t, 1);
    rc |= put_num(k, i, root, freq, "min_freq", DN_MIN_FREQ, t, 1);
    rc |= put_num(k, i, root, freq, "max_freq", DN_MAX_FREQ, t, 1);
    rc |= put_num(k, i, root, freq, "rp0_freq", DN_RP0, t, 1);
    rc |= put_num(k, i, root, freq, "rpn_freq", DN_RPN, t, 1);
    snprintf(path, sizeof(path), "%s/throttle", freq);
    rc |= write_throttle(k, i, root, path, "reason_", "status", t);
    snprintf(idle, sizeof(idle), "%s/tile0/gt0/gtidle", dev);
    if (k->num[DN_RC6]) {
        rc |= put_str(root, idle, "name", "gt0-rc");
        snprintf(path, sizeof(path), "%s/idle_residency_ms", idle);
        rc |= ds_putf(root, path, "%llu\n", (unsigned long long)k->rc6_ms);
    }
    snprintf(path, sizeof(path), "%s/tile0", dev);
    rc |= put_num(k, i, root, path, "physical_vram_size_bytes", DN_LMEM_TOTAL, t, 1);
    return rc;
}

/* ---- all cards ---------------------------------------------------------------------------- */

static int write_card(const struct ds_card *k, int i, const char *root, double t)
{
    char dev[256], node[32];
    int rc = 0;

    dev_dir(k, dev, sizeof(dev));
    if (t >= k->lost_at) {
        char rel[64];
        snprintf(rel, sizeof(rel), "sys/class/drm/card%d", k->card_minor);
        ds_rmtree(root, rel);
        snprintf(rel, sizeof(rel), "sys/class/drm/renderD%d", k->render_minor);
        ds_rmtree(root, rel);
        snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", k->pci);
        ds_rmtree(root, rel);
        return ds_rmtree(root, dev) < 0 && errno != ENOENT ? -1 : 0;
    }
    rc |= write_pci(k, i, root, dev, t);
    snprintf(node, sizeof(node), "card%d", k->card_minor);
    rc |= write_node(k, root, dev, node, k->card_minor);
    snprintf(node, sizeof(node), "renderD%d", k->render_minor);
    rc |= write_node(k, root, dev, node, k->render_minor);
    rc |= write_hwmon(k, i, root, dev, t);
    if (k->drv == DS_AMDGPU)
        rc |= write_amdgpu(k, i, root, dev, t);
    else if (k->drv == DS_I915)
        rc |= write_i915(k, i, root, dev, t);
    else
        rc |= write_xe(k, i, root, dev, t);
    return rc;
}

int ds_write_cards(struct ds_scn *s, const char *root, double t)
{
    int rc = ds_putf(root, "sys/class/drm/version", "drm 1.1.0 20060810\n");

    if (s->nids) {
        char buf[1200];
        size_t used = (size_t)snprintf(buf, sizeof(buf), "# the lines of libdrm's amdgpu.ids this simulated tree needs\n1.0.0\n");
        for (int i = 0; i < s->nids; i++)
            used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s\n", s->ids[i]);
        rc |= ds_put(root, "usr/share/libdrm/amdgpu.ids", buf, used);
    }

    for (int i = 0; i < s->ncards; i++)
        if (s->cards[i].defined)
            rc |= write_card(&s->cards[i], i, root, t);
    return rc ? -1 : 0;
}
