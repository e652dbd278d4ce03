/* SPDX-License-Identifier: MIT */
/*
 * amdgpu_metrics.c - decoding amdgpu's gpu_metrics (see amdgpu_metrics.h).
 * Units by version, from kgd_pp_interface.h's comments and the drivers that
 * fill the tables: format 1 (discrete) has temperatures in degrees, power in
 * watts, activity in percent; format 2 (APU) has temperatures in centi-
 * degrees and power in milliwatts, activity in percent (2.4: in centi-
 * percent); format 3 like 2 with activity in percent. 0xFFFF is "no value".
 */
#include "backend/drm/amdgpu_metrics.h"

#include <stddef.h>
#include <string.h>

#include "backend/drm/amdgpu_metrics_abi.h"
#include "core/model.h"

#define NA16 0xffffu
#define NA32 0xffffffffu
#define NA64 0xffffffffffffffffull

/* Is the field [off, off+size) inside the table the driver said it wrote? */
#define IN(T, f, size) (offsetof(T, f) + sizeof(((T *)0)->f) <= (size))

struct amdm_put {
    struct gs_amd_metrics *o;
    size_t size;          /* the table's own structure_size */
};

static void put_temp(struct gs_amd_metrics *o, uint32_t bit, int32_t *dst, uint16_t v, int div)
{
    if (v == NA16 || v == 0)
        return; /* 0 C is a sensor the firmware did not fill, not a frozen GPU */
    *dst = (int32_t)((v + div / 2) / div);
    o->valid |= bit;
}

static void put_u(struct gs_amd_metrics *o, uint32_t bit, uint32_t *dst, uint32_t v, uint32_t na, uint32_t mul,
                  uint32_t div)
{
    if (v == na)
        return;
    *dst = (uint32_t)(((uint64_t)v * mul + div / 2) / div);
    o->valid |= bit;
}

static void put_throttle(struct gs_amd_metrics *o, uint64_t v)
{
    if (v == NA64)
        return;
    o->indep_throttle = v;
    o->valid |= GS_AMDM_THROTTLE;
}

static void decode_v1_0(const struct amdm_v1_0 *m, struct gs_amd_metrics *o)
{
    put_temp(o, GS_AMDM_TEMP_EDGE, &o->temp_edge_c, m->temperature_edge, 1);
    put_temp(o, GS_AMDM_TEMP_HOTSPOT, &o->temp_hotspot_c, m->temperature_hotspot, 1);
    put_temp(o, GS_AMDM_TEMP_MEM, &o->temp_mem_c, m->temperature_mem, 1);
    put_u(o, GS_AMDM_GFX_ACTIVITY, &o->gfx_activity_pct, m->average_gfx_activity, NA16, 1, 1);
    put_u(o, GS_AMDM_UMC_ACTIVITY, &o->umc_activity_pct, m->average_umc_activity, NA16, 1, 1);
    put_u(o, GS_AMDM_POWER, &o->socket_power_mw, m->average_socket_power, NA16, 1000, 1);
    put_u(o, GS_AMDM_GFXCLK, &o->gfxclk_mhz, m->current_gfxclk, NA16, 1, 1);
    put_u(o, GS_AMDM_UCLK, &o->uclk_mhz, m->current_uclk, NA16, 1, 1);
    put_u(o, GS_AMDM_FAN_RPM, &o->fan_rpm, m->current_fan_speed, NA16, 1, 1);
    if (m->pcie_link_width != 0xff && m->pcie_link_speed != 0xff) {
        o->pcie_width = m->pcie_link_width;
        o->pcie_speed_dgts = m->pcie_link_speed;
        o->valid |= GS_AMDM_PCIE;
    }
}

static void decode_v1_3(const struct amdm_v1_3 *m, size_t size, struct gs_amd_metrics *o)
{
    put_temp(o, GS_AMDM_TEMP_EDGE, &o->temp_edge_c, m->temperature_edge, 1);
    put_temp(o, GS_AMDM_TEMP_HOTSPOT, &o->temp_hotspot_c, m->temperature_hotspot, 1);
    put_temp(o, GS_AMDM_TEMP_MEM, &o->temp_mem_c, m->temperature_mem, 1);
    put_u(o, GS_AMDM_GFX_ACTIVITY, &o->gfx_activity_pct, m->average_gfx_activity, NA16, 1, 1);
    put_u(o, GS_AMDM_UMC_ACTIVITY, &o->umc_activity_pct, m->average_umc_activity, NA16, 1, 1);
    put_u(o, GS_AMDM_POWER, &o->socket_power_mw, m->average_socket_power, NA16, 1000, 1);
    put_u(o, GS_AMDM_GFXCLK, &o->gfxclk_mhz, m->current_gfxclk, NA16, 1, 1);
    put_u(o, GS_AMDM_UCLK, &o->uclk_mhz, m->current_uclk, NA16, 1, 1);
    put_u(o, GS_AMDM_FAN_RPM, &o->fan_rpm, m->current_fan_speed, NA16, 1, 1);
    if (m->pcie_link_width != NA16 && m->pcie_link_speed != NA16) {
        o->pcie_width = m->pcie_link_width;
        o->pcie_speed_dgts = m->pcie_link_speed;
        o->valid |= GS_AMDM_PCIE;
    }
    if (IN(struct amdm_v1_3, voltage_gfx, size))
        put_u(o, GS_AMDM_VOLTAGE_GFX, &o->voltage_gfx_mv, m->voltage_gfx, NA16, 1, 1);
    if (IN(struct amdm_v1_3, indep_throttle_status, size))
        put_throttle(o, m->indep_throttle_status);
}

/* 1.4, 1.5 and 1.6 share their field names (at different places). */
#define DECODE_MI300(m, o)                                                                            \
    do {                                                                                                 \
        put_temp(o, GS_AMDM_TEMP_HOTSPOT, &(o)->temp_hotspot_c, (m)->temperature_hotspot, 1);           \
        put_temp(o, GS_AMDM_TEMP_MEM, &(o)->temp_mem_c, (m)->temperature_mem, 1);                       \
        put_u(o, GS_AMDM_GFX_ACTIVITY, &(o)->gfx_activity_pct, (m)->average_gfx_activity, NA16, 1, 1);  \
        put_u(o, GS_AMDM_UMC_ACTIVITY, &(o)->umc_activity_pct, (m)->average_umc_activity, NA16, 1, 1);  \
        put_u(o, GS_AMDM_POWER, &(o)->socket_power_mw, (m)->curr_socket_power, NA16, 1000, 1);          \
        put_u(o, GS_AMDM_GFXCLK, &(o)->gfxclk_mhz, (m)->current_gfxclk[0], NA16, 1, 1);                 \
        put_u(o, GS_AMDM_UCLK, &(o)->uclk_mhz, (m)->current_uclk, NA16, 1, 1);                          \
        if ((m)->energy_accumulator != NA64) {                                                           \
            (o)->energy_uj = (uint64_t)((double)(m)->energy_accumulator * 15.259);                       \
            (o)->valid |= GS_AMDM_ENERGY;                                                                \
        }                                                                                                \
        if ((m)->pcie_link_width != NA16 && (m)->pcie_link_speed != NA16) {                              \
            (o)->pcie_width = (m)->pcie_link_width;                                                      \
            (o)->pcie_speed_dgts = (m)->pcie_link_speed;                                                 \
            (o)->valid |= GS_AMDM_PCIE;                                                                  \
        }                                                                                                \
    } while (0)

static void decode_v2_0(const struct amdm_v2_0 *m, struct gs_amd_metrics *o)
{
    put_temp(o, GS_AMDM_TEMP_EDGE, &o->temp_edge_c, m->temperature_gfx, 100);
    put_u(o, GS_AMDM_GFX_ACTIVITY, &o->gfx_activity_pct, m->average_gfx_activity, NA16, 1, 1);
    put_u(o, GS_AMDM_POWER, &o->socket_power_mw, m->average_socket_power, NA16, 1, 1);
    put_u(o, GS_AMDM_GFXCLK, &o->gfxclk_mhz, m->current_gfxclk, NA16, 1, 1);
    put_u(o, GS_AMDM_UCLK, &o->uclk_mhz, m->current_uclk, NA16, 1, 1);
}

static void decode_v2_4(const struct amdm_v2_4 *m, size_t size, uint8_t content, struct gs_amd_metrics *o)
{
    put_temp(o, GS_AMDM_TEMP_EDGE, &o->temp_edge_c, m->temperature_gfx, 100);
    /* 2.4 counts activity in hundredths of a percent */
    put_u(o, GS_AMDM_GFX_ACTIVITY, &o->gfx_activity_pct, m->average_gfx_activity, NA16, 1, content >= 4 ? 100 : 1);
    put_u(o, GS_AMDM_POWER, &o->socket_power_mw, m->average_socket_power, NA16, 1, 1);
    put_u(o, GS_AMDM_GFXCLK, &o->gfxclk_mhz, m->current_gfxclk, NA16, 1, 1);
    put_u(o, GS_AMDM_UCLK, &o->uclk_mhz, m->current_uclk, NA16, 1, 1);
    if (content >= 2 && IN(struct amdm_v2_4, indep_throttle_status, size))
        put_throttle(o, m->indep_throttle_status);
    if (content >= 4 && IN(struct amdm_v2_4, average_gfx_voltage, size))
        put_u(o, GS_AMDM_VOLTAGE_GFX, &o->voltage_gfx_mv, m->average_gfx_voltage, NA16, 1, 1);
}

static void decode_v3_0(const struct amdm_v3_0 *m, struct gs_amd_metrics *o)
{
    put_temp(o, GS_AMDM_TEMP_EDGE, &o->temp_edge_c, m->temperature_gfx, 100);
    put_u(o, GS_AMDM_GFX_ACTIVITY, &o->gfx_activity_pct, m->average_gfx_activity, NA16, 1, 1);
    put_u(o, GS_AMDM_POWER, &o->socket_power_mw, m->average_socket_power, NA32, 1, 1);
    put_u(o, GS_AMDM_GFXCLK, &o->gfxclk_mhz, m->average_gfxclk_frequency, NA16, 1, 1);
    put_u(o, GS_AMDM_UCLK, &o->uclk_mhz, m->average_uclk_frequency, NA16, 1, 1);
}

/* The smallest table of each version we accept: up to its last field we read. */
/* A version as one number: format 1 content 3 -> 0x103 (format * 16 + content
 * would take format 0 content 0x12, or 1.16, for 1.2 and 2.0). */
#define AMDM_VER(format, content) ((unsigned)(format) << 8 | (unsigned)(content))

static size_t min_size(uint8_t format, uint8_t content)
{
    switch (AMDM_VER(format, content)) {
    case 0x100: return offsetof(struct amdm_v1_0, pcie_link_speed) + 1;
    case 0x101: case 0x102: case 0x103: return offsetof(struct amdm_v1_3, temperature_hbm);
    case 0x104: return sizeof(struct amdm_v1_4);
    case 0x105: return sizeof(struct amdm_v1_5);
    case 0x106: return sizeof(struct amdm_v1_6);
    case 0x200: return offsetof(struct amdm_v2_0, throttle_status);
    case 0x201: case 0x202: case 0x203: case 0x204: return offsetof(struct amdm_v2_4, throttle_status);
    case 0x300: return offsetof(struct amdm_v3_0, current_coreclk);
    default: return 0;
    }
}

int gs_amd_metrics_decode(const void *buf, size_t len, struct gs_amd_metrics *out)
{
    union {
        struct amdm_header h;
        struct amdm_v1_0 v10;
        struct amdm_v1_3 v13;
        struct amdm_v1_4 v14;
        struct amdm_v1_5 v15;
        struct amdm_v1_6 v16;
        struct amdm_v2_0 v20;
        struct amdm_v2_4 v24;
        struct amdm_v3_0 v30;
    } m;

    memset(out, 0, sizeof(*out));
    if (len < sizeof(struct amdm_header))
        return -1;
    memset(&m, 0, sizeof(m));
    memcpy(&m, buf, len < sizeof(m) ? len : sizeof(m));
    size_t size = m.h.structure_size, need = min_size(m.h.format_revision, m.h.content_revision);
    if (!need || size < need || size > len)
        return -1;
    out->format = m.h.format_revision;
    out->content = m.h.content_revision;
    switch (AMDM_VER(out->format, out->content)) {
    case 0x100: decode_v1_0(&m.v10, out); break;
    case 0x101: case 0x102: case 0x103: decode_v1_3(&m.v13, size, out); break;
    case 0x104: DECODE_MI300(&m.v14, out); break;
    case 0x105: DECODE_MI300(&m.v15, out); break;
    case 0x106: DECODE_MI300(&m.v16, out); break;
    case 0x200: decode_v2_0(&m.v20, out); break;
    case 0x300: decode_v3_0(&m.v30, out); break;
    default: decode_v2_4(&m.v24, size, out->content, out); break;
    }
    return 0;
}

uint64_t gs_amd_throttle_reasons(uint64_t indep)
{
    uint64_t r = 0;

    if (indep & (AMDM_THR_PPT_MASK | AMDM_THR_CURRENT_MASK))
        r |= GS_THROTTLE_SW_POWER_CAP;
    if (indep & AMDM_THR_TEMP_MASK & ~AMDM_THR_VRHOT_MASK)
        r |= GS_THROTTLE_SW_THERMAL;
    if (indep & (AMDM_THR_VRHOT_MASK | AMDM_THR_PROCHOT_MASK))
        r |= GS_THROTTLE_HW_SLOWDOWN;
    return r;
}
