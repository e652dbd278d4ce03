/* SPDX-License-Identifier: MIT */
/*
 * meter.c - the upper half of `gpuscope top`: the title line and one block per
 * GPU (bars, temperatures, power, clocks, PCIe, throttle reasons, badges) in
 * the full, compact or one-line layout, with history charts in the full one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "core/vendor.h"
#include "ui/fmt_drm.h"
#include "ui/ui.h"

static enum gs_role level_role(double pct)
{
    return pct >= 85 ? GS_R_BAD : pct >= 60 ? GS_R_WARN : GS_R_OK;
}

/* htop-style bar: LABEL[|||||     text] with text right-aligned inside; drawn in
 * two runs (filled part in the level colour, the rest plain), not cell by cell. */
static void draw_bar(struct gs_ui *ui, int y, int x, int w, const char *label, double pct,
                     const char *text, bool dim)
{
    char inner[256], shorter[16];
    int lw = gs_put(ui, y, x, w, dim ? GS_R_DIM : GS_R_LABEL, label);
    int iw = w - lw - 2;

    if (iw < 1)
        return;
    if (iw > (int)sizeof(inner) - 1)
        iw = (int)sizeof(inner) - 1;
    int fill = pct < 0 ? 0 : gs_bar_fill(iw, pct);
    if ((int)strlen(text) > iw && pct >= 0) { /* "35.2G/80.0G" does not fit: "44%" */
        snprintf(shorter, sizeof(shorter), "%.0f%%", pct);
        text = shorter;
    }
    int tl = (int)strlen(text), tx = iw - tl;
    memset(inner, ' ', (size_t)iw);
    memset(inner, '|', (size_t)fill);
    if (tx >= 0)
        memcpy(inner + tx, text, (size_t)tl);
    inner[iw] = '\0';
    int bar_end = fill < tx || tx < 0 ? fill : tx; /* the text is never coloured as bar */
    gs_put(ui, y, x + lw, 1, GS_R_NORMAL, "[");
    gs_put(ui, y, x + lw + 1, bar_end, dim ? GS_R_DIM : level_role(pct), inner);
    gs_put(ui, y, x + lw + 1 + bar_end, iw - bar_end, dim ? GS_R_DIM : GS_R_NORMAL, inner + bar_end);
    gs_put(ui, y, x + lw + 1 + iw, 1, GS_R_NORMAL, "]");
}

static const char *short_name(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) ? name : name + 7;
}

struct gpu_view {
    const struct gs_gpu *g;
    const struct gs_sample *s;  /* current, or last good when lost */
    bool lost;
    uint32_t gi;                /* slot in the snapshot */
};

/* The title's facts, whole, in at most room columns: the least useful go
 * first when the line is short (driver version, host name, GPU count), so
 * the clock and the interval are never cut. */
static void title_left(struct gs_ui *ui, char *buf, size_t len, int room)
{
    const struct gs_sysinfo *si = &ui->view.sys;
    struct tm tm;
    time_t now = ui->have_snap ? ui->view.wall.tv_sec : time(NULL);
    char clock[16], part[5][64];

    localtime_r(&now, &tm);
    strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
    snprintf(part[0], sizeof(part[0]), "%.63s", si->hostname);
    snprintf(part[1], sizeof(part[1]), "driver %.56s", si->driver_version[0] ? si->driver_version : "?");
    snprintf(part[2], sizeof(part[2]), "%u GPU%s", ui->view.ngpus, ui->view.ngpus == 1 ? "" : "s");
    snprintf(part[3], sizeof(part[3]), "every %.1fs", ui->conf.interval_ms / 1000.0);
    snprintf(part[4], sizeof(part[4]), "%s", clock);
    static const int drop_order[] = { 1, 0, 2 }; /* parts 3 and 4 stay */
    bool keep[5] = { true, true, true, true, true };
    for (int d = 0;; d++) {
        size_t n = 0;
        buf[0] = '\0';
        for (int i = 0; i < 5; i++)
            if (keep[i] && part[i][0] && n < len)
                n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "  " : " ", part[i]);
        if ((int)strlen(buf) <= room || d == (int)(sizeof(drop_order) / sizeof(drop_order[0])))
            return;
        keep[drop_order[d]] = false;
    }
}

void gs_draw_title(struct gs_ui *ui)
{
    char left[256], badge[96];
    int x;

    x = gs_put(ui, 0, 0, COLS, GS_R_TITLE, "gpuscope top");
    int right = COLS;
    if (ui->paused) {
        right -= 8;
        gs_put(ui, 0, right, 7, GS_R_WARN, " PAUSED");
    }
    if (ui->view.sys.simulated || ui->opts.demo) {
        snprintf(badge, sizeof(badge), " SIMULATED%s%s ", ui->view.sys.sim_scenario[0] ? ": " : "",
                 ui->view.sys.sim_scenario);
        right -= (int)strlen(badge) + 1;
        gs_put(ui, 0, right > 0 ? right : 0, (int)strlen(badge), GS_R_SIM, badge);
    }
    title_left(ui, left, sizeof(left), right - x);
    gs_put(ui, 0, x, right > x ? right - x : 0, GS_R_NORMAL, left);
}

/* ---- pieces of a GPU block ------------------------------------------------------------ */

/* Throttle reasons worth a person's attention (idle and app clocks are normal). */
static uint64_t bad_throttle(const struct gs_sample *s)
{
    if (!gs_sample_has(s, GS_F_THROTTLE))
        return 0;
    return s->throttle_reasons & ~(GS_THROTTLE_GPU_IDLE | GS_THROTTLE_APP_CLOCKS |
                                   GS_THROTTLE_DISPLAY_CLOCK | GS_THROTTLE_SYNC_BOOST);
}

static void fmt_temp(const struct gpu_view *v, char *b, size_t n)
{
    const struct gs_static *st = &v->g->st;
    if (!gs_sample_has(v->s, GS_F_TEMP_GPU))
        snprintf(b, n, "N/A");
    else if (gs_static_has(st, GS_S_TEMP_SLOWDOWN))
        snprintf(b, n, "%dC/%dC", v->s->temp_gpu_c, st->temp_slowdown_c);
    else
        snprintf(b, n, "%dC", v->s->temp_gpu_c);
}

static enum gs_role temp_role(const struct gpu_view *v)
{
    if (v->lost || !gs_sample_has(v->s, GS_F_TEMP_GPU))
        return v->lost ? GS_R_DIM : GS_R_NORMAL;
    int slow = gs_static_has(&v->g->st, GS_S_TEMP_SLOWDOWN) ? v->g->st.temp_slowdown_c : 90;
    return v->s->temp_gpu_c >= slow ? GS_R_BAD : v->s->temp_gpu_c >= slow - 10 ? GS_R_WARN
                                                                              : GS_R_NORMAL;
}

static void fmt_power(const struct gpu_view *v, char *b, size_t n)
{
    const struct gs_sample *s = v->s;
    if (!gs_sample_has(s, GS_F_POWER))
        snprintf(b, n, "N/A");
    else if (gs_sample_has(s, GS_F_POWER_LIMIT))
        snprintf(b, n, "%uW/%uW", (s->power_mw + 500) / 1000, (s->power_limit_mw + 500) / 1000);
    else
        snprintf(b, n, "%uW", (s->power_mw + 500) / 1000);
}

/* "PCIe 5x16 TX 279MB/s RX 2.28GB/s" (rates: with_rates and known); returns its length. */
static int fmt_pcie(const struct gpu_view *v, char *b, size_t n, bool with_rates)
{
    const struct gs_sample *s = v->s;
    char tx[16], rx[16];
    int k = 0;
    if (gs_sample_has(s, GS_F_PCIE_GEN) && gs_sample_has(s, GS_F_PCIE_WIDTH))
        k = snprintf(b, n, "PCIe %ux%u", s->pcie_gen, s->pcie_width);
    else
        k = snprintf(b, n, "PCIe N/A");
    if (with_rates && k > 0 && (size_t)k < n && gs_sample_has(s, GS_F_PCIE_TX) &&
        gs_sample_has(s, GS_F_PCIE_RX))
        k += snprintf(b + k, n - (size_t)k, " TX %sB/s RX %sB/s",
                      gs_fmt_kbps(s->pcie_tx_kbps, tx, sizeof(tx)),
                      gs_fmt_kbps(s->pcie_rx_kbps, rx, sizeof(rx)));
    return k;
}

static void fmt_clock(char *b, size_t n, const char *label, bool has, uint32_t mhz, bool has_max,
                      uint32_t max)
{
    if (!has)
        snprintf(b, n, "%s N/A", label);
    else if (has_max)
        snprintf(b, n, "%s %u/%uMHz", label, mhz, max);
    else
        snprintf(b, n, "%s %uMHz", label, mhz);
}

static int put_seq(struct gs_ui *ui, int y, int x, int end, enum gs_role r, const char *s)
{
    if (x >= end)
        return x;
    return x + gs_put(ui, y, x, end - x, r, s) + 2;
}

/* The Xid badge: the latest Xid seen since top started, in words, with its time. */
static int draw_xid(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end)
{
    char b[96];

    gs_xid_badge(&ui->xids, v->gi, b + 1, sizeof(b) - 2);
    if (!b[1])
        return x;
    size_t bl = strlen(b);
    b[0] = ' ';
    b[bl] = ' ';
    b[bl + 1] = '\0';
    return put_seq(ui, y, x, end, gs_xid_severe(ui->xids.v[v->gi].last) ? GS_R_BAD : GS_R_WARN, b);
}

static enum gs_role sev_role(uint8_t sev)
{
    return sev >= GS_SEV_CRITICAL ? GS_R_BAD : sev == GS_SEV_WARNING ? GS_R_WARN : GS_R_LABEL;
}

/* The health badge: the GPU's worst current finding in words (ui/hbadge.h). */
static int draw_health(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end)
{
    char b[80];
    if (v->gi >= ui->hb.n || !ui->hb.v[v->gi].text[0])
        return x;
    snprintf(b, sizeof(b), " %s ", ui->hb.v[v->gi].text);
    return put_seq(ui, y, x, end, sev_role(ui->hb.v[v->gi].severity), b);
}

/* Badges: LOST (with time), Xid (xid: here, not on the clocks line), ECC errors.
 * Returns the x after them. */
static int draw_badges(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end, bool xid)
{
    char b[96];
    if (v->lost || v->g->state == GS_GPU_ERROR) {
        struct tm tm;
        time_t t = (time_t)v->g->lost_since;
        localtime_r(&t, &tm);
        char at[16];
        strftime(at, sizeof(at), "%H:%M:%S", &tm);
        if (v->g->state == GS_GPU_ERROR)
            snprintf(b, sizeof(b), " ERROR: %.60s ", v->g->last_error);
        else
            snprintf(b, sizeof(b), " GPU LOST at %s ", v->g->lost_since ? at : "?");
        x = put_seq(ui, y, x, end, GS_R_BAD, b);
    }
    if (xid)
        x = draw_xid(ui, v, y, x, end);
    if (xid)
        x = draw_health(ui, v, y, x, end);
    if (!v->lost && gs_sample_has(v->s, GS_F_ECC_VOL_UNCORR) && v->s->ecc_vol_uncorrected) {
        snprintf(b, sizeof(b), " ECC %llu uncorrectable ",
                 (unsigned long long)v->s->ecc_vol_uncorrected);
        x = put_seq(ui, y, x, end, GS_R_BAD, b);
    }
    char ras[64];
    if (!v->lost && gs_fmt_drm_ras(v->s, ras, sizeof(ras))[0]) { /* AMD: the same news from RAS */
        snprintf(b, sizeof(b), " %s ", ras);
        x = put_seq(ui, y, x, end, GS_R_BAD, b);
    }
    return x;
}

static void gpu_info_line(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end, bool full)
{
    char b[128];
    enum gs_role dim = v->lost ? GS_R_DIM : GS_R_NORMAL;

    snprintf(b, sizeof(b), "%-2u %-*.*s", v->g->st.index, full ? 24 : 18, full ? 24 : 18,
             full ? v->g->st.name : short_name(v->g->st.name));
    x = put_seq(ui, y, x, end, v->lost ? GS_R_DIM : GS_R_TITLE, b);
    x = draw_badges(ui, v, y, x, end, !full); /* first, so a narrow screen still shows them */
    bool drm = gs_vendor_is_drm(&v->g->st); /* AMD and Intel: no P-states; junction, RPM */
    if (!drm) {
        snprintf(b, sizeof(b), gs_sample_has(v->s, GS_F_PSTATE) ? "P%-2u" : "P? ", v->s->pstate);
        x = put_seq(ui, y, x, end, dim, b);
    }
    fmt_temp(v, b, sizeof(b));
    x = put_seq(ui, y, x, end, temp_role(v), b);
    if (drm && gs_fmt_drm_temps(&v->g->st, v->s, b, sizeof(b))[0])
        x = put_seq(ui, y, x, end, dim, b);
    fmt_power(v, b, sizeof(b));
    x = put_seq(ui, y, x, end, dim, b);
    if (gs_sample_has(v->s, GS_F_FAN_SPEED) && v->s->fan_count) { /* no fan: nothing to say */
        snprintf(b, sizeof(b), "fan %u%%", v->s->fan_speed_pct[0]);
        x = put_seq(ui, y, x, end, dim, b);
    } else if (gs_sample_has(v->s, GS_F_FAN_RPM)) {
        snprintf(b, sizeof(b), "fan %urpm", v->s->fan_rpm);
        x = put_seq(ui, y, x, end, dim, b);
    }
    /* the link with its throughput, or the link alone: never a figure cut short
     * (an integrated GPU has no link of its own: nothing to say) */
    bool igpu = gs_static_has(&v->g->st, GS_S_INTEGRATED) && v->g->st.integrated;
    if (fmt_pcie(v, b, sizeof(b), true) > end - x)
        fmt_pcie(v, b, sizeof(b), false);
    if ((int)strlen(b) <= end - x && !igpu)
        x = put_seq(ui, y, x, end, dim, b);
    uint64_t thr = full ? 0 : bad_throttle(v->s); /* full: on the clocks line */
    if (thr) {
        char r[96];
        snprintf(b, sizeof(b), "throttled: %s", gs_throttle_str(thr, r, sizeof(r)));
        put_seq(ui, y, x, end, v->lost ? GS_R_DIM : GS_R_WARN, b);
    }
}

static void gpu_bars(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int w)
{
    const struct gs_sample *s = v->s;
    char t[48], u[16], tot[16];
    int half = (w - 1) / 2;
    double pct = -1;

    if (gs_sample_has(s, GS_F_GPU_UTIL))
        snprintf(t, sizeof(t), "%u%%", s->gpu_util_pct);
    else
        snprintf(t, sizeof(t), "N/A");
    draw_bar(ui, y, x, half, "UTIL", gs_sample_has(s, GS_F_GPU_UTIL) ? (double)s->gpu_util_pct : -1.0, t,
             v->lost);
    if (gs_sample_has(s, GS_F_MEM_USED) && gs_sample_has(s, GS_F_MEM_TOTAL) && s->mem_total_bytes) {
        pct = (double)s->mem_used_bytes * 100.0 / (double)s->mem_total_bytes;
        snprintf(t, sizeof(t), "%s/%s", gs_fmt_bytes(s->mem_used_bytes, u, sizeof(u)),
                 gs_fmt_bytes(s->mem_total_bytes, tot, sizeof(tot)));
    } else {
        snprintf(t, sizeof(t), "N/A");
    }
    draw_bar(ui, y, x + half + 1, w - half - 1, " MEM", pct, t, v->lost);
}

/* ---- profiling (GPM) and MIG instances on the clocks line (area 10c) ---- */

/* "GR 97% SM 90% TENSOR 55% DRAM 50%": the activity behind the utilization figure (Hopper+). */
static int draw_prof(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end)
{
    static const struct { enum gs_prof k; const char *label; } shown[] = {
        { GS_PROF_GR_ENGINE, "GR" }, { GS_PROF_SM_ACTIVE, "SM" }, { GS_PROF_TENSOR, "TENSOR" },
        { GS_PROF_DRAM, "DRAM" },
    };
    char b[96];
    int n = 0;

    for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
        if (gs_sample_has(v->s, GS_F_PROF_FIRST + shown[i].k))
            n += snprintf(b + n, sizeof(b) - (size_t)n, "%s%s %.0f%%", n ? " " : "", shown[i].label,
                          v->s->prof[shown[i].k] * 100.0);
    return n ? put_seq(ui, y, x, end, v->lost ? GS_R_DIM : GS_R_LABEL, b) : x;
}

/* "MIG 3g.40gb 92% 31G | 2g.20gb 48% 14G | ...": each GPU instance's activity and memory. */
static int draw_mig(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end)
{
    const struct gs_gpu *g = v->g;
    uint32_t first[GS_MAX_MIG];
    char b[256], act[16], mem[16];
    int n;

    if (v->lost || g->s.status[GS_F_MIG_DEVICES] != GS_ST_OK || !g->nmig)
        return x;
    unsigned gis = gs_gpu_gpu_instances(g, first);
    n = snprintf(b, sizeof(b), "MIG");
    for (unsigned i = 0; i < gis && n < (int)sizeof(b); i++) {
        const struct gs_mig *m = &g->mig[first[i]];
        if (m->prof_status[GS_PROF_GR_ENGINE] == GS_ST_OK)
            snprintf(act, sizeof(act), "%.0f%%", m->prof[GS_PROF_GR_ENGINE] * 100.0);
        else
            snprintf(act, sizeof(act), "-");
        n += snprintf(b + n, sizeof(b) - (size_t)n, "%s %s %s %s", i ? " |" : "", m->profile, act,
                      m->mem_status == GS_ST_OK ? gs_fmt_bytes(m->mem_used_bytes, mem, sizeof(mem)) : "-");
    }
    return put_seq(ui, y, x, end, GS_R_LABEL, b);
}

/* What the MIG line shows, folded into one number (it is not in gs_sample). */
static uint64_t mig_digest(const struct gs_gpu *g)
{
    uint64_t h = g->nmig;
    for (uint32_t i = 0; i < g->nmig && i < GS_MAX_MIG; i++)
        h = h * 1000003u ^ g->mig[i].mem_used_bytes ^ (uint64_t)(g->mig[i].prof[GS_PROF_GR_ENGINE] * 1000.0) ^
            (uint64_t)g->mig[i].prof_status[GS_PROF_GR_ENGINE] << 40;
    return h;
}

static void gpu_clocks_line(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end)
{
    const struct gs_sample *s = v->s;
    const struct gs_static *st = &v->g->st;
    char b[160], r[128];
    enum gs_role dim = v->lost ? GS_R_DIM : GS_R_NORMAL;

    bool drm = gs_vendor_is_drm(st);
    fmt_clock(b, sizeof(b), drm ? "GFX" : "SM", gs_sample_has(s, GS_F_CLOCK_SM), s->clock_sm_mhz,
              gs_static_has(st, GS_S_CLOCK_MAX_SM), st->clock_max_sm_mhz);
    x = put_seq(ui, y, x, end, dim, b);
    if (!drm || gs_sample_has(s, GS_F_CLOCK_MEM)) {
        fmt_clock(b, sizeof(b), "MEM", gs_sample_has(s, GS_F_CLOCK_MEM), s->clock_mem_mhz,
                  gs_static_has(st, GS_S_CLOCK_MAX_MEM), st->clock_max_mem_mhz);
        x = put_seq(ui, y, x, end, dim, b);
    }
    bool enc = gs_sample_has(s, GS_F_ENC_UTIL) && s->enc_util_pct;
    bool dec = gs_sample_has(s, GS_F_DEC_UTIL) && s->dec_util_pct;
    if (enc || dec) {
        snprintf(b, sizeof(b), "ENC %u%% DEC %u%%", s->enc_util_pct, s->dec_util_pct);
        x = put_seq(ui, y, x, end, dim, b);
    }
    if (drm && gs_fmt_drm_extra(st, s, b, sizeof(b))[0]) /* Intel: requested clock, RC6; AMD: GTT */
        x = put_seq(ui, y, x, end, dim, b);
    if (drm && gs_fmt_drm_engines(st, s, b, sizeof(b))[0]) /* the busy engine classes */
        x = put_seq(ui, y, x, end, dim, b);
    int xm = draw_mig(ui, v, y, x, end); /* a MIG GPU: its instances; else its activity */
    x = xm != x ? xm : draw_prof(ui, v, y, x, end);
    x = draw_xid(ui, v, y, x, end); /* the full layout's first line is full enough */
    x = draw_health(ui, v, y, x, end);
    uint64_t thr = bad_throttle(s);
    if (thr) {
        snprintf(b, sizeof(b), "throttled: %s", gs_throttle_str(thr, r, sizeof(r)));
        bool hot = thr & (GS_THROTTLE_HW_THERMAL | GS_THROTTLE_HW_SLOWDOWN |
                          GS_THROTTLE_HW_POWER_BRAKE);
        put_seq(ui, y, x, end, v->lost ? GS_R_DIM : hot ? GS_R_BAD : GS_R_WARN, b);
    }
}

static void gpu_one_line(struct gs_ui *ui, const struct gpu_view *v, int y)
{
    const struct gs_sample *s = v->s;
    char b[160], t[32], p[32], r[96];
    int cols = COLS;

    snprintf(b, sizeof(b), "%-2u %-16.16s", v->g->st.index, short_name(v->g->st.name));
    gs_put(ui, y, 0, cols, v->lost ? GS_R_DIM : GS_R_TITLE, b);
    fmt_temp(v, t, sizeof(t));
    if (gs_sample_has(s, GS_F_POWER))
        snprintf(p, sizeof(p), "%uW", (s->power_mw + 500) / 1000);
    else
        snprintf(p, sizeof(p), "N/A");
    snprintf(b, sizeof(b), " %7s %5s P%-2u", t, p, s->pstate);
    int tail = (int)strlen(b) + 12;
    int bw = cols - 20 - tail;
    if (bw > 2 * 40)
        bw = 2 * 40;
    gpu_bars(ui, v, y, 20, bw);
    int x = 20 + bw;
    gs_put(ui, y, x, cols - x, v->lost ? GS_R_DIM : temp_role(v), b);
    x += (int)strlen(b) + 1;
    uint64_t thr = bad_throttle(s);
    if (v->lost)
        x += gs_put(ui, y, x, cols - x, GS_R_BAD, " LOST ") + 1;
    else if (v->g->state == GS_GPU_ERROR)
        x += gs_put(ui, y, x, cols - x, GS_R_BAD, " ERROR ") + 1;
    if (v->gi < ui->xids.n && ui->xids.v[v->gi].count) { /* short: "Xid 79" */
        char xb[24];
        snprintf(xb, sizeof(xb), " Xid %u ", ui->xids.v[v->gi].last);
        x += gs_put(ui, y, x, cols - x, gs_xid_severe(ui->xids.v[v->gi].last) ? GS_R_BAD : GS_R_WARN,
                    xb) + 1;
    }
    if (v->gi < ui->hb.n && ui->hb.v[v->gi].text[0]) {
        snprintf(b, sizeof(b), " %s ", ui->hb.v[v->gi].text);
        x += gs_put(ui, y, x, cols - x, sev_role(ui->hb.v[v->gi].severity), b) + 1;
    }
    if (thr && !v->lost && v->g->state != GS_GPU_ERROR) {
        gs_throttle_str(thr, r, sizeof(r));
        gs_put(ui, y, x, cols - x, GS_R_WARN, r);
    }
}

/* One UTF-8 cell (1..3 bytes, as chart.c writes them) to a wide character. */
static wchar_t cell_wchar(const char *c)
{
    const unsigned char *u = (const unsigned char *)c;
    if (u[0] < 0x80)
        return u[0];
    if ((u[0] & 0xE0) == 0xC0)
        return ((u[0] & 0x1F) << 6) | (u[1] & 0x3F);
    return ((u[0] & 0x0F) << 12) | ((u[1] & 0x3F) << 6) | (u[2] & 0x3F);
}

/* Slot of a chart glyph in the cchar_t cache: 256 braille patterns, 8 blocks,
 * then ' ', '.', '#'; -1 for anything else. */
#define GLYPH_SLOTS (256 + 8 + 3)
static int glyph_slot(wchar_t wc)
{
    if (wc >= 0x2800 && wc <= 0x28FF)
        return (int)(wc - 0x2800);
    if (wc >= 0x2581 && wc <= 0x2588)
        return 256 + (int)(wc - 0x2581);
    return wc == ' ' ? 264 : wc == '.' ? 265 : wc == '#' ? 266 : -1;
}

static wchar_t slot_glyph(int k)
{
    return k < 256 ? (wchar_t)(0x2800 + k) : k < 264 ? (wchar_t)(0x2581 + k - 256) : " .#"[k - 264];
}

/* Complex characters for every chart glyph in role r, built once per theme:
 * a chart cell is then a struct copy, not a setcchar() call. */
static const cchar_t *glyph_cache(struct gs_ui *ui, enum gs_role r)
{
    static cchar_t cache[2][GLYPH_SLOTS];
    static chtype built_for[2] = { (chtype)-1, (chtype)-1 };
    int k = r == GS_R_DIM;

    if (built_for[k] != ui->attr[r]) {
        for (int i = 0; i < GLYPH_SLOTS; i++) {
            wchar_t wc[2] = { slot_glyph(i), L'\0' };
            setcchar(&cache[k][i], wc, ui->attr[r] & A_ATTRIBUTES & ~A_COLOR,
                     (short)PAIR_NUMBER(ui->attr[r]), NULL);
        }
        built_for[k] = ui->attr[r];
    }
    return cache[k];
}

/* Cells [from, to) of a chart row as one run of complex characters: no
 * multibyte decoding in curses. */
static void put_grid_row(struct gs_ui *ui, int y, int x, enum gs_role r, const struct gs_grid *g,
                         int row, int from, int to)
{
    cchar_t run[1024];
    int n = to < COLS - x ? to : COLS - x;
    const cchar_t *cache = glyph_cache(ui, r);

    if (n > (int)(sizeof(run) / sizeof(run[0])))
        n = (int)(sizeof(run) / sizeof(run[0]));
    if (y < 0 || y >= LINES || n <= from)
        return;
    for (int i = from; i < n; i++) {
        wchar_t wc = cell_wchar(g->cell[row * g->w + i]);
        int k = glyph_slot(wc);
        if (k >= 0) {
            run[i - from] = cache[k];
        } else {
            wchar_t s[2] = { wc, L'\0' };
            setcchar(&run[i - from], s, ui->attr[r] & A_ATTRIBUTES & ~A_COLOR, (short)PAIR_NUMBER(ui->attr[r]), NULL);
        }
    }
    mvadd_wchnstr(y, x + from, run, n - from);
}

/* The cells of a w-cell row that differ from the cache's: [*from, *to), empty when none. */
static void changed_span(const char (*cache)[GS_CELL_BYTES], const char (*cells)[GS_CELL_BYTES], int w,
                         int *from, int *to)
{
    int a = 0, b = w;
    while (a < w && !memcmp(cache[a], cells[a], GS_CELL_BYTES))
        a++;
    while (b > a && !memcmp(cache[b - 1], cells[b - 1], GS_CELL_BYTES))
        b--;
    *from = a;
    *to = b;
}

/* The chart rows last sent to curses for GPU gi (NULL: no cache for this layout). */
static char (*chart_cache(struct gs_ui *ui, uint32_t gi))[GS_CELL_BYTES]
{
    size_t per = (size_t)ui->grid.w * (size_t)ui->grid.h;
    if (ui->chart_cache_gpus != ui->view.ngpus || ui->chart_cache_per != per) {
        free(ui->chart_cache);
        ui->chart_cache = calloc(per * ui->view.ngpus + 1, GS_CELL_BYTES);
        ui->chart_cache_gpus = ui->chart_cache ? ui->view.ngpus : 0;
        ui->chart_cache_per = per;
    }
    return ui->chart_cache && gi < ui->chart_cache_gpus ? ui->chart_cache + per * gi : NULL;
}

/* The chart plot of GPU gi at (y, x), rows that changed only (all when full). */
static uint8_t gpu_plot(struct gs_ui *ui, const struct gpu_view *v, uint32_t gi, int y, int x, bool full)
{
    const struct gs_layout *l = &ui->lay;
    uint8_t vals[1024];

    if (ui->grid.w != l->chart_w || ui->grid.h != l->chart_h)
        return GS_HIST_NONE;
    int want = gs_chart_samples(l->chart_w, ui->glyphs);
    if (want > (int)sizeof(vals))
        want = (int)sizeof(vals);
    uint32_t n = gs_hist_series(&ui->hist, gi, ui->conf.metric, vals, (uint32_t)want);
    gs_chart_render(vals, (int)n, ui->glyphs, &ui->grid);
    char (*cache)[GS_CELL_BYTES] = chart_cache(ui, gi);
    size_t row_bytes = (size_t)l->chart_w * GS_CELL_BYTES;
    for (int r = 0; r < l->chart_h; r++) {
        const char (*cells)[GS_CELL_BYTES] = ui->grid.cell + (size_t)r * l->chart_w;
        int from = 0, to = l->chart_w;
        /* only the cells that changed (a full chart's rows differ at their newest
         * cells alone; the filled bottom rows, mostly, not at all) */
        if (!full && cache)
            changed_span(cache + (size_t)r * l->chart_w, cells, l->chart_w, &from, &to);
        if (from == to)
            continue;
        put_grid_row(ui, y + r, x, v->lost ? GS_R_DIM : GS_R_CHART, &ui->grid, r, from, to);
        if (cache)
            memcpy(cache + (size_t)r * l->chart_w, cells, row_bytes);
    }
    return n ? vals[n - 1] : GS_HIST_NONE;
}

/* The inline chart of the full layout (right of or under the GPU's text). */
static void gpu_chart(struct gs_ui *ui, const struct gpu_view *v, uint32_t gi, int y, bool full)
{
    const struct gs_layout *l = &ui->lay;
    char lab[32];
    uint8_t now = gpu_plot(ui, v, gi, y, l->chart_x, full);

    if (now <= 100)
        snprintf(lab, sizeof(lab), "%s %u%% ", gs_chart_metrics[ui->conf.metric].name, now);
    else
        snprintf(lab, sizeof(lab), "%s N/A ", gs_chart_metrics[ui->conf.metric].name);
    /* fixed width, so a shorter label never leaves a character of a longer one */
    snprintf(lab + strlen(lab), sizeof(lab) - strlen(lab), "%*s", 11 - (int)strlen(lab), "");
    gs_put(ui, y, l->chart_x, l->chart_w, GS_R_DIM, lab);
    char (*cache)[GS_CELL_BYTES] = chart_cache(ui, gi);
    if (cache) /* the label covers the row's first cells: compare them afresh next time */
        for (int i = 0; i < l->chart_w && i < 11; i++)
            cache[i][0] = '\0';
}

/* Seconds as a short axis label: "45s", "3m", "2h". */
static void fmt_span(char *b, size_t n, double s)
{
    if (s < 120)
        snprintf(b, n, "-%.0fs", s);
    else if (s < 7200)
        snprintf(b, n, "-%.0fm", s / 60);
    else
        snprintf(b, n, "-%.0fh", s / 3600);
}

/* The frame of a grid chart: scale on the left, time axis below (what it
 * spans at this interval), drawn when the layout or the interval changed. */
static void chart_box_frame(struct gs_ui *ui, int y, int x)
{
    const struct gs_layout *l = &ui->lay;
    bool u = ui->glyphs != GS_GLYPH_ASCII;
    int ph = l->chart_h, pw = l->chart_w;
    char b[32], m[16];

    for (int r = 0; r < ph; r++) {
        const char *lab = r == 0 ? "100%" : r == ph - 1 ? "  0%" : r == (ph - 1) / 2 ? " 50%" : "    ";
        gs_put(ui, y + 1 + r, x, 4, GS_R_DIM, lab);
        gs_put_cell(ui, y + 1 + r, x + 4, GS_R_DIM, u ? "┤" : "|");
    }
    int ay = y + 1 + ph;
    gs_put_cell(ui, ay, x + 4, GS_R_DIM, u ? "└" : "+");
    for (int i = 0; i < pw; i++)
        gs_put_cell(ui, ay, x + GS_CHART_AXIS_W + i, GS_R_DIM, u ? "─" : "-");
    double per_cell = (ui->glyphs == GS_GLYPH_BRAILLE ? 2.0 : 1.0) * ui->conf.interval_ms / 1000.0;
    fmt_span(b, sizeof(b), pw * per_cell);
    gs_put(ui, ay, x + GS_CHART_AXIS_W, pw, GS_R_DIM, b);
    fmt_span(m, sizeof(m), pw * per_cell / 2);
    gs_put(ui, ay, x + GS_CHART_AXIS_W + pw / 2 - (int)strlen(m) / 2, (int)strlen(m), GS_R_DIM, m);
    gs_put(ui, ay, x + GS_CHART_AXIS_W + pw - 3, 3, GS_R_DIM, "now");
}

/* The title of a grid chart: GPU, metric and its value now in its unit. */
static void chart_box_title(struct gs_ui *ui, const struct gpu_view *v, int y, int x, uint8_t now)
{
    const struct gs_layout *l = &ui->lay;
    const struct gs_static *st = &v->g->st;
    char b[96], val[48];

    if (now <= 100)
        gs_chart_metric_text((unsigned)ui->conf.metric, st, v->s, val, sizeof(val));
    else
        snprintf(val, sizeof(val), "N/A");
    snprintf(b, sizeof(b), "GPU %u %s %s", st->index, gs_chart_metrics[ui->conf.metric].title, val);
    gs_put(ui, y, x, l->cbox_w - 1, GS_R_LABEL, b);
    int used = (int)strlen(b);
    if (used < l->cbox_w - 1)
        mvhline(y, x + used, ' ' | ui->attr[GS_R_NORMAL], l->cbox_w - 1 - used);
}

/* One chart of the grid: title, scale, plot, time axis. */
static void gpu_chart_box(struct gs_ui *ui, const struct gpu_view *v, uint32_t gi, bool full)
{
    const struct gs_layout *l = &ui->lay;
    int y = l->cgrid_y + (int)(gi / (uint32_t)l->cgrid_cols) * l->cbox_h;
    int x = (int)(gi % (uint32_t)l->cgrid_cols) * l->cbox_w;

    if (full)
        chart_box_frame(ui, y, x);
    uint8_t now = gpu_plot(ui, v, gi, y + 1, x + GS_CHART_AXIS_W, full);
    chart_box_title(ui, v, y, x, now);
}

/* Blank the text part of a GPU block before redrawing it without erase(). */
static void clear_block(struct gs_ui *ui, int y, int h, int x, int w)
{
    for (int r = 0; r < h; r++)
        if (y + r < LINES)
            mvhline(y + r, x, ' ' | ui->attr[GS_R_NORMAL], w);
}

static void gpu_block(struct gs_ui *ui, const struct gpu_view *v, uint32_t gi, int y, int x0,
                      bool text, bool text_full)
{
    const struct gs_layout *l = &ui->lay;
    bool inline_chart = l->chart_w && !l->cgrid_cols;
    int end = (inline_chart && l->chart_h == 3) ? l->chart_x - 1 : x0 + l->pane_w - (l->gpu_cols > 1);

    switch (l->kind) {
    case GS_LAYOUT_LINE:
        if (text) {
            clear_block(ui, y, 1, 0, COLS);
            gpu_one_line(ui, v, y);
        }
        return;
    case GS_LAYOUT_COMPACT:
        if (text) {
            clear_block(ui, y, 2, 0, COLS);
            gpu_info_line(ui, v, y, 0, COLS, false);
            gpu_bars(ui, v, y + 1, 3, COLS - 4);
        }
        return;
    default:
        if (text) {
            clear_block(ui, y, 3, x0, end - x0);
            gpu_info_line(ui, v, y, x0, end, true);
            gpu_bars(ui, v, y + 1, x0 + 3, end - x0 - 4);
            gpu_clocks_line(ui, v, y + 2, x0 + 3, end);
        }
        if (inline_chart)
            gpu_chart(ui, v, gi, l->chart_h == 3 ? y : y + 3, text_full);
        else if (l->cgrid_cols)
            gpu_chart_box(ui, v, gi, text_full);
    }
}

/* Did GPU i's readings or state change since it was last drawn? Remembers them;
 * *state_changed: its state (OK, lost, error) did. */
static bool gpu_changed(struct gs_ui *ui, uint32_t i, const struct gpu_view *v, bool *state_changed)
{
    if (ui->ndrawn != ui->view.ngpus) {
        free(ui->drawn);
        free(ui->drawn_state);
        ui->drawn = calloc(ui->view.ngpus ? ui->view.ngpus : 1, sizeof(*ui->drawn));
        ui->drawn_state = malloc(ui->view.ngpus ? ui->view.ngpus : 1);
        if (!ui->drawn || !ui->drawn_state) {
            free(ui->drawn);
            free(ui->drawn_state);
            ui->drawn = NULL;
            ui->drawn_state = NULL;
            ui->ndrawn = 0;
            *state_changed = true;
            return true;
        }
        memset(ui->drawn_state, 0xff, ui->view.ngpus ? ui->view.ngpus : 1);
        ui->ndrawn = ui->view.ngpus;
    }
    struct gs_sample now = *v->s;
    now.timestamp_ns = mig_digest(v->g); /* the time changes every tick, never shown; MIG values are */
    memset(now.age_ms, 0, sizeof(now.age_ms)); /* ages grow every tick, never shown */
    now.xid_count = i < ui->xids.n ? ui->xids.v[i].count : 0; /* the badge (lost GPUs too) */
    uint8_t state = (uint8_t)(v->g->state | (v->lost ? 0x10 : 0));
    *state_changed = ui->drawn_state[i] != state;
    bool same = !*state_changed && !memcmp(&ui->drawn[i], &now, sizeof(now));
    if (i < ui->hb.n && ui->hb.v[i].dirty) { /* the health badge changed */
        ui->hb.v[i].dirty = false;
        same = false;
    }
    ui->drawn[i] = now;
    ui->drawn_state[i] = state;
    return !same;
}

void gs_draw_gpus(struct gs_ui *ui, bool full)
{
    const struct gs_layout *l = &ui->lay;
    char b[96];

    for (int i = 0; i < l->gpus_shown && (uint32_t)i < ui->view.ngpus; i++) {
        const struct gs_gpu *g = &ui->view.gpus[i];
        struct gpu_view v = { g, &g->s, g->state == GS_GPU_LOST, (uint32_t)i };
        if (v.lost && (uint32_t)i < ui->nlast && gs_fmask_any(ui->last_good[i].valid))
            v.s = &ui->last_good[i];
        bool state_changed = false;
        bool text = gpu_changed(ui, (uint32_t)i, &v, &state_changed) || full;
        int y = 1 + (i / l->gpu_cols) * l->gpu_h, x0 = (i % l->gpu_cols) * l->pane_w;
        gpu_block(ui, &v, (uint32_t)i, y, x0, text, full || state_changed);
    }
    if ((int)ui->view.ngpus > l->gpus_shown) {
        snprintf(b, sizeof(b), "  +%d more GPUs: enlarge the terminal or press l for the one-line layout",
                 (int)ui->view.ngpus - l->gpus_shown);
        gs_put(ui, l->table_y - 1, 0, COLS, GS_R_DIM, b);
    }
}
