/* SPDX-License-Identifier: MIT */
/*
 * table.c - the process table of `gpuscope top` (header, rows, scrolling,
 * mouse clicks on the header) and the footer line (keys, filter, messages).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ui/ui.h"

/* Lay the visible columns out for the terminal width. */
static void table_columns(struct gs_ui *ui)
{
    int x = 0;
    for (int c = 0; c < GS_COL_COUNT; c++) {
        const struct gs_coldef *d = &gs_cols[c];
        ui->col_w[c] = 0;
        if (COLS < d->drop_below)
            continue;
        ui->col_x[c] = x;
        ui->col_w[c] = d->width ? d->width : (COLS - x > 0 ? COLS - x : 0);
        x += d->width + 1;
    }
}

static void table_header(struct gs_ui *ui, int y)
{
    char b[64];
    const char *arrow = ui->conf.sort_desc ? (ui->utf8 && !ui->conf.ascii ? "\u25bc" : "v")
                                           : (ui->utf8 && !ui->conf.ascii ? "\u25b2" : "^");
    attrset(ui->attr[GS_R_HEADER]);
    mvhline(y, 0, ' ', COLS);
    for (int c = 0; c < GS_COL_COUNT; c++) {
        if (!ui->col_w[c])
            continue;
        const struct gs_coldef *d = &gs_cols[c];
        int w = ui->col_w[c];
        snprintf(b, sizeof(b), d->right ? "%*s" : "%-*s", d->width ? w : 0, d->title);
        enum gs_role r = c == ui->conf.sort_col ? GS_R_SORTED : GS_R_HEADER;
        gs_put(ui, y, ui->col_x[c], w, r, b);
        if (c == ui->conf.sort_col && d->width)
            gs_put_cell(ui, y, ui->col_x[c] + (d->right ? 0 : w - 1), r, arrow);
        else if (c == ui->conf.sort_col)
            gs_put_cell(ui, y, ui->col_x[c] + (int)strlen(d->title), r, arrow);
    }
    if (ui->conf.tree)
        gs_put(ui, y, COLS - 6, 6, GS_R_HEADER, " tree ");
}

static char type_char(uint32_t t)
{
    if (t & GS_PROC_MPS)
        return 'M';
    if ((t & GS_PROC_GRAPHICS) && (t & GS_PROC_COMPUTE))
        return 'X';
    return (t & GS_PROC_GRAPHICS) ? 'G' : 'C';
}

static void pct_cell(char *b, size_t n, int w, const struct gs_proc *p, enum gs_pfield f,
                     uint32_t v)
{
    if (gs_proc_has(p, f))
        snprintf(b, n, "%*u", w, v);
    else
        snprintf(b, n, "%*s", w, "-");
}

static void cmd_cell(const struct gs_ui *ui, const struct gs_row *row, char *b, size_t n)
{
    const struct gs_proc *p = row->p;
    char pre[80] = "";
    int k = 0;
    bool ascii = ui->conf.ascii || !ui->utf8;

    for (int d = 1; d < row->depth && k < 60; d++)
        k += snprintf(pre + k, sizeof(pre) - (size_t)k, "  ");
    if (row->depth)
        snprintf(pre + k, sizeof(pre) - (size_t)k, "%s",
                 ascii ? (row->last_child ? "`- " : "|- ") : (row->last_child ? "\u2514\u2500 " : "\u251c\u2500 "));
    if (p->host_vis == GS_HOST_NOT_VISIBLE)
        snprintf(b, n, "%s[not visible here: other PID namespace?]", pre);
    else if (p->cmdline[0])
        snprintf(b, n, "%s%s", pre, p->cmdline);
    else
        snprintf(b, n, "%s%s", pre, gs_proc_has(p, GS_P_COMM) ? p->comm : "?");
}

static void cell_text(const struct gs_ui *ui, const struct gs_row *row, int c, char *b, size_t n)
{
    const struct gs_proc *p = row->p;
    int w = gs_cols[c].width;
    char t[32];

    switch (c) {
    case GS_COL_PID: snprintf(b, n, "%*u", w, p->pid); break;
    case GS_COL_USER: snprintf(b, n, "%-*.*s", w, w, gs_proc_has(p, GS_P_USER) ? p->user : "?"); break;
    case GS_COL_GPU: snprintf(b, n, "%*u", w, ui->view.gpus[row->gpu].st.index); break;
    case GS_COL_TYPE: snprintf(b, n, "%c", type_char(p->type)); break;
    case GS_COL_GMEM:
        snprintf(b, n, "%*s", w, gs_proc_has(p, GS_P_GPU_MEM) ? gs_fmt_bytes(p->gpu_mem_bytes, t, sizeof(t)) : "N/A");
        break;
    case GS_COL_SM: pct_cell(b, n, w, p, GS_P_SM_UTIL, p->sm_util_pct); break;
    case GS_COL_MBW: pct_cell(b, n, w, p, GS_P_MEM_UTIL, p->mem_util_pct); break;
    case GS_COL_ENC: pct_cell(b, n, w, p, GS_P_ENC_UTIL, p->enc_util_pct); break;
    case GS_COL_DEC: pct_cell(b, n, w, p, GS_P_DEC_UTIL, p->dec_util_pct); break;
    case GS_COL_CPU:
        if (gs_proc_has(p, GS_P_CPU))
            snprintf(b, n, "%*.1f", w, p->cpu_pct);
        else
            snprintf(b, n, "%*s", w, "-");
        break;
    case GS_COL_HMEM:
        snprintf(b, n, "%*s", w, gs_proc_has(p, GS_P_RSS) ? gs_fmt_bytes(p->rss_bytes, t, sizeof(t)) : "-");
        break;
    case GS_COL_TIME:
        snprintf(b, n, "%*s", w, gs_proc_has(p, GS_P_START) ? gs_fmt_age(p->age_s, t, sizeof(t)) : "-");
        break;
    case GS_COL_CONT:
        if (p->pod_uid[0])
            snprintf(b, n, "pod:%.8s", p->pod_uid);
        else
            snprintf(b, n, "%-*.*s", w, w, p->container_id[0] ? p->container_id : "-");
        break;
    default: cmd_cell(ui, row, b, n); break;
    }
}

static void table_row(struct gs_ui *ui, const struct gs_row *row, int y, bool selected)
{
    char b[GS_CMDLINE_MAX + 96];
    bool lost = ui->view.gpus[row->gpu].state != GS_GPU_OK;
    enum gs_role r = selected ? GS_R_SELECT : lost ? GS_R_DIM : GS_R_NORMAL;

    if (selected) {
        attrset(ui->attr[GS_R_SELECT]);
        mvhline(y, 0, ' ', COLS);
    }
    for (int c = 0; c < GS_COL_COUNT; c++) {
        if (!ui->col_w[c])
            continue;
        cell_text(ui, row, c, b, sizeof(b));
        gs_put(ui, y, ui->col_x[c], ui->col_w[c], r, b);
    }
}

/* Keep the selection inside the rows and on screen. */
static void table_scroll(struct gs_ui *ui, int nvis)
{
    long n = (long)ui->rows.n;
    if (ui->sel >= n)
        ui->sel = n - 1;
    if (ui->sel < 0)
        ui->sel = 0;
    if (ui->sel < ui->top)
        ui->top = ui->sel;
    if (nvis > 0 && ui->sel >= ui->top + nvis)
        ui->top = ui->sel - nvis + 1;
    if (ui->top > n - nvis)
        ui->top = n - nvis > 0 ? n - nvis : 0;
}

void gs_draw_table(struct gs_ui *ui)
{
    const struct gs_layout *l = &ui->lay;
    int nvis = l->table_h - 1;

    if (l->table_h < 1)
        return;
    table_columns(ui);
    table_header(ui, l->table_y);
    table_scroll(ui, nvis);
    for (int i = 0; i < nvis && ui->top + i < (long)ui->rows.n; i++) {
        long k = ui->top + i;
        table_row(ui, &ui->rows.v[k], l->table_y + 1 + i, k == ui->sel);
    }
    if (!ui->rows.n && nvis > 0)
        gs_put(ui, l->table_y + 1, 2, COLS - 2, GS_R_DIM,
               ui->filter[0] ? "no process matches the filter (Esc clears it)"
                             : ui->have_snap ? "no processes on the GPUs" : "reading GPUs...");
}

void gs_table_click(struct gs_ui *ui, int y, int x)
{
    const struct gs_layout *l = &ui->lay;

    if (y == l->table_y) {
        for (int c = 0; c < GS_COL_COUNT; c++) {
            if (!ui->col_w[c] || x < ui->col_x[c] || x >= ui->col_x[c] + ui->col_w[c])
                continue;
            if (c == ui->conf.sort_col)
                ui->conf.sort_desc = !ui->conf.sort_desc;
            else {
                ui->conf.sort_col = c;
                ui->conf.sort_desc = gs_cols[c].desc_first;
            }
            gs_ui_rebuild_rows(ui);
            return;
        }
    } else if (y > l->table_y && y < l->table_y + l->table_h) {
        long k = ui->top + (y - l->table_y - 1);
        if (k < (long)ui->rows.n)
            ui->sel = k;
    }
}

void gs_draw_footer(struct gs_ui *ui)
{
    int y = LINES - 1;
    char b[256];
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    attrset(A_NORMAL);
    move(y, 0);
    clrtoeol();
    if (ui->mode == GS_MODE_FILTER) {
        snprintf(b, sizeof(b), "Filter: %s_   (Enter keeps, Esc clears; user: gpu: pid: type:)", ui->filter);
        gs_put(ui, y, 0, COLS, GS_R_WARN, b);
    } else if (ui->msg[0] && ns < ui->msg_until_ns) {
        gs_put(ui, y, 0, COLS, GS_R_WARN, ui->msg);
    } else {
        snprintf(b, sizeof(b), "%s%s%sF1 Help  F2 Layout  / Filter  t Tree  s Sort  Enter Details  k Signal  +- Interval  p Pause  q Quit",
                 ui->filter[0] ? "[filter: " : "", ui->filter, ui->filter[0] ? "]  " : "");
        gs_put(ui, y, 0, COLS, GS_R_DIM, b);
    }
}
