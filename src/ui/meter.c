/* SPDX-License-Identifier: MIT */
/*
 * meter.c - the upper half of `gpuscope top`: the title line and one block per
 * GPU (bars, temperatures, power, clocks, PCIe, throttle reasons, badges) in
 * the full, compact or one-line layout, with history charts in the full one.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "ui/ui.h"

/* ASCII text goes in as a chtype run (no multibyte decoding, no width lookups:
 * the cheap path for the ~10,000 cells of a frame); anything else through addnstr. */
int gs_put(struct gs_ui *ui, int y, int x, int w, enum gs_role r, const char *s)
{
    chtype run[512];
    int n = 0;

    if (w <= 0 || y < 0 || x < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    if (w > (int)(sizeof(run) / sizeof(run[0])))
        w = (int)(sizeof(run) / sizeof(run[0]));
    for (; n < w && s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (c >= 0x80)
            break;
        run[n] = (c < 32 || c == 127 ? '?' : c) | ui->attr[r];
    }
    if (!s[n] || n == w) {
        mvaddchnstr(y, x, run, n);
        return n;
    }
    n = (int)strnlen(s, (size_t)w);
    attrset(ui->attr[r]);
    mvaddnstr(y, x, s, n);
    attrset(A_NORMAL);
    return n;
}

void gs_put_cell(struct gs_ui *ui, int y, int x, enum gs_role r, const char *cell)
{
    if (y < 0 || x < 0 || y >= LINES || x >= COLS)
        return;
    attrset(ui->attr[r]);
    mvaddstr(y, x, cell); /* one character, maybe several UTF-8 bytes */
    attrset(A_NORMAL);
}

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
};

static void title_left(struct gs_ui *ui, char *buf, size_t len)
{
    const struct gs_sysinfo *si = &ui->view.sys;
    struct tm tm;
    time_t now = ui->have_snap ? ui->view.wall.tv_sec : time(NULL);
    char clock[16];

    localtime_r(&now, &tm);
    strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
    snprintf(buf, len, " %s  driver %s  %u GPU%s  every %.1fs  %s", si->hostname,
             si->driver_version[0] ? si->driver_version : "?", ui->view.ngpus,
             ui->view.ngpus == 1 ? "" : "s", ui->conf.interval_ms / 1000.0, clock);
}

void gs_draw_title(struct gs_ui *ui)
{
    char left[256], badge[96];
    int x;

    x = gs_put(ui, 0, 0, COLS, GS_R_TITLE, "gpuscope top");
    title_left(ui, left, sizeof(left));
    gs_put(ui, 0, x, COLS - x, GS_R_NORMAL, left);
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

static void fmt_pcie(const struct gpu_view *v, char *b, size_t n)
{
    const struct gs_sample *s = v->s;
    char tx[16], rx[16];
    int k = 0;
    if (gs_sample_has(s, GS_F_PCIE_GEN) && gs_sample_has(s, GS_F_PCIE_WIDTH))
        k = snprintf(b, n, "PCIe %ux%u", s->pcie_gen, s->pcie_width);
    else
        k = snprintf(b, n, "PCIe N/A");
    if (k > 0 && (size_t)k < n && gs_sample_has(s, GS_F_PCIE_TX) && gs_sample_has(s, GS_F_PCIE_RX))
        snprintf(b + k, n - (size_t)k, " TX %s RX %s", gs_fmt_kbps(s->pcie_tx_kbps, tx, sizeof(tx)),
                 gs_fmt_kbps(s->pcie_rx_kbps, rx, sizeof(rx)));
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

/* Badges: LOST (with time), ECC errors. Returns the x after them. */
static int draw_badges(struct gs_ui *ui, const struct gpu_view *v, int y, int x, int end)
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
    if (!v->lost && gs_sample_has(v->s, GS_F_ECC_VOL_UNCORR) && v->s->ecc_vol_uncorrected) {
        snprintf(b, sizeof(b), " ECC %llu uncorrectable ",
                 (unsigned long long)v->s->ecc_vol_uncorrected);
        x = put_seq(ui, y, x, end, GS_R_BAD, b);
    }
    return x;
}

static void gpu_info_line(struct gs_ui *ui, const struct gpu_view *v, int y, int end, bool full)
{
    char b[128];
    enum gs_role dim = v->lost ? GS_R_DIM : GS_R_NORMAL;
    int x = 0;

    snprintf(b, sizeof(b), "%-2u %-*.*s", v->g->st.index, full ? 24 : 18, full ? 24 : 18,
             full ? v->g->st.name : short_name(v->g->st.name));
    x = put_seq(ui, y, x, end, v->lost ? GS_R_DIM : GS_R_TITLE, b);
    x = draw_badges(ui, v, y, x, end); /* first, so a narrow screen still shows them */
    snprintf(b, sizeof(b), gs_sample_has(v->s, GS_F_PSTATE) ? "P%-2u" : "P? ", v->s->pstate);
    x = put_seq(ui, y, x, end, dim, b);
    fmt_temp(v, b, sizeof(b));
    x = put_seq(ui, y, x, end, temp_role(v), b);
    fmt_power(v, b, sizeof(b));
    x = put_seq(ui, y, x, end, dim, b);
    if (gs_sample_has(v->s, GS_F_FAN_SPEED) && v->s->fan_count) { /* no fan: nothing to say */
        snprintf(b, sizeof(b), "fan %u%%", v->s->fan_speed_pct[0]);
        x = put_seq(ui, y, x, end, dim, b);
    }
    fmt_pcie(v, b, sizeof(b));
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

static void gpu_clocks_line(struct gs_ui *ui, const struct gpu_view *v, int y, int end)
{
    const struct gs_sample *s = v->s;
    const struct gs_static *st = &v->g->st;
    char b[160], r[128];
    enum gs_role dim = v->lost ? GS_R_DIM : GS_R_NORMAL;
    int x = 3;

    fmt_clock(b, sizeof(b), "SM", gs_sample_has(s, GS_F_CLOCK_SM), s->clock_sm_mhz,
              gs_static_has(st, GS_S_CLOCK_MAX_SM), st->clock_max_sm_mhz);
    x = put_seq(ui, y, x, end, dim, b);
    fmt_clock(b, sizeof(b), "MEM", gs_sample_has(s, GS_F_CLOCK_MEM), s->clock_mem_mhz,
              gs_static_has(st, GS_S_CLOCK_MAX_MEM), st->clock_max_mem_mhz);
    x = put_seq(ui, y, x, end, dim, b);
    bool enc = gs_sample_has(s, GS_F_ENC_UTIL) && s->enc_util_pct;
    bool dec = gs_sample_has(s, GS_F_DEC_UTIL) && s->dec_util_pct;
    if (enc || dec) {
        snprintf(b, sizeof(b), "ENC %u%% DEC %u%%", s->enc_util_pct, s->dec_util_pct);
        x = put_seq(ui, y, x, end, dim, b);
    }
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
        gs_put(ui, y, x, cols - x, GS_R_BAD, " LOST ");
    else if (v->g->state == GS_GPU_ERROR)
        gs_put(ui, y, x, cols - x, GS_R_BAD, " ERROR ");
    else if (thr) {
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

/* A chart row as one run of complex characters: no multibyte decoding in curses. */
static void put_grid_row(struct gs_ui *ui, int y, int x, enum gs_role r, const struct gs_grid *g,
                         int row)
{
    cchar_t run[1024];
    int n = g->w < COLS - x ? g->w : COLS - x;

    if (y < 0 || y >= LINES || n <= 0)
        return;
    if (n > (int)(sizeof(run) / sizeof(run[0])))
        n = (int)(sizeof(run) / sizeof(run[0]));
    for (int i = 0; i < n; i++) {
        wchar_t wc[2] = { cell_wchar(g->cell[row * g->w + i]), L'\0' };
        setcchar(&run[i], wc, ui->attr[r] & A_ATTRIBUTES & ~A_COLOR, (short)PAIR_NUMBER(ui->attr[r]), NULL);
    }
    mvadd_wchnstr(y, x, run, n);
}

static void gpu_chart(struct gs_ui *ui, const struct gpu_view *v, uint32_t gi, int y)
{
    const struct gs_layout *l = &ui->lay;
    uint8_t vals[1024];
    char lab[32];

    if (ui->grid.w != l->chart_w || ui->grid.h != l->chart_h)
        return;
    int want = gs_chart_samples(l->chart_w, ui->glyphs);
    if (want > (int)sizeof(vals))
        want = (int)sizeof(vals);
    uint32_t n = gs_hist_series(&ui->hist, gi, ui->conf.metric, vals, (uint32_t)want);
    gs_chart_render(vals, (int)n, ui->glyphs, &ui->grid);
    for (int r = 0; r < l->chart_h; r++)
        put_grid_row(ui, y + r, l->chart_x, v->lost ? GS_R_DIM : GS_R_CHART, &ui->grid, r);
    uint8_t now = n ? vals[n - 1] : GS_HIST_NONE;
    if (now <= 100)
        snprintf(lab, sizeof(lab), "%s %u%%", gs_metric_names[ui->conf.metric], now);
    else
        snprintf(lab, sizeof(lab), "%s N/A", gs_metric_names[ui->conf.metric]);
    gs_put(ui, y, l->chart_x, l->chart_w, GS_R_DIM, lab);
}

static void gpu_block(struct gs_ui *ui, const struct gpu_view *v, uint32_t gi, int y)
{
    const struct gs_layout *l = &ui->lay;
    int end = (l->chart_w && l->chart_h == 3) ? l->chart_x - 1 : COLS;

    switch (l->kind) {
    case GS_LAYOUT_LINE:
        gpu_one_line(ui, v, y);
        return;
    case GS_LAYOUT_COMPACT:
        gpu_info_line(ui, v, y, COLS, false);
        gpu_bars(ui, v, y + 1, 3, COLS - 4);
        return;
    default:
        gpu_info_line(ui, v, y, end, true);
        gpu_bars(ui, v, y + 1, 3, end - 4);
        gpu_clocks_line(ui, v, y + 2, end);
        if (l->chart_w)
            gpu_chart(ui, v, gi, l->chart_h == 3 ? y : y + 3);
    }
}

void gs_draw_gpus(struct gs_ui *ui)
{
    const struct gs_layout *l = &ui->lay;
    char b[96];

    for (int i = 0; i < l->gpus_shown && (uint32_t)i < ui->view.ngpus; i++) {
        const struct gs_gpu *g = &ui->view.gpus[i];
        struct gpu_view v = { g, &g->s, g->state == GS_GPU_LOST };
        if (v.lost && (uint32_t)i < ui->nlast && ui->last_good[i].valid)
            v.s = &ui->last_good[i];
        gpu_block(ui, &v, (uint32_t)i, 1 + i * l->gpu_h);
    }
    if ((int)ui->view.ngpus > l->gpus_shown) {
        snprintf(b, sizeof(b), "  +%d more GPUs: enlarge the terminal or press l for the one-line layout",
                 (int)ui->view.ngpus - l->gpus_shown);
        gs_put(ui, l->table_y - 1, 0, COLS, GS_R_DIM, b);
    }
}
