/* SPDX-License-Identifier: MIT */
/*
 * table.c - the process table of `gpuscope top` (header, rows, scrolling,
 * mouse clicks on the header) and the footer line (keys, filter, messages).
 */
#include <stdio.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ui/ui.h"

/* Is some process of the table in a Slurm job (then the JOB column shows)? */
static bool table_has_jobs(const struct gs_ui *ui)
{
    for (size_t i = 0; i < ui->rows.n; i++)
        if (gs_proc_has(ui->rows.v[i].p, GS_P_SLURM) && ui->rows.v[i].p->slurm_job)
            return true;
    return false;
}

/* Lay the visible columns out for the terminal width. */
static void table_columns(struct gs_ui *ui)
{
    int x = 0;
    bool jobs = table_has_jobs(ui);
    for (int c = 0; c < GS_COL_COUNT; c++) {
        const struct gs_coldef *d = &gs_cols[c];
        ui->col_w[c] = 0;
        if (COLS < d->drop_below || (c == GS_COL_JOB && !jobs))
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

/* Right-aligned number or "-" in a w-cell column. */
static char *num_cell(char *p, int w, bool has, uint64_t v)
{
    char t[24];
    if (!has)
        return gs_put_pad(p, "-", w, true);
    gs_put_u(t, v);
    return gs_put_pad(p, t, w, true);
}

static char *tree_prefix(const struct gs_ui *ui, const struct gs_row *row, char *p)
{
    bool ascii = ui->conf.ascii || !ui->utf8;

    for (int d = 1; d < row->depth && d < 30; d++) {
        *p++ = ' ';
        *p++ = ' ';
    }
    if (row->depth) {
        const char *g = ascii ? (row->last_child ? "`- " : "|- ")
                              : (row->last_child ? "\u2514\u2500 " : "\u251c\u2500 ");
        size_t n = strlen(g);
        memcpy(p, g, n);
        p += n;
    }
    *p = '\0';
    return p;
}

static char *cmd_cell(const struct gs_ui *ui, const struct gs_row *row, char *p, const char *end)
{
    const struct gs_proc *p_ = row->p;
    bool hidden = p_->host_vis == GS_HOST_NOT_VISIBLE;
    /* /proc cannot see it (other PID namespace): the driver's name still can. */
    const char *text = row->cmd[0]                      ? row->cmd
                       : gs_proc_has(p_, GS_P_NAME)     ? p_->name
                       : gs_proc_has(p_, GS_P_COMM)     ? p_->comm
                                                        : "?";
    p = tree_prefix(ui, row, p);
    int n = snprintf(p, (size_t)(end - p), "%s%s", text,
                     hidden ? "  [not in this PID namespace]" : "");
    if (n < 0)
        n = 0;
    p += n < end - p ? n : end - p - 1;
    *p = '\0';
    return p;
}

/* Append column c of a row (exactly the column's width, except COMMAND). */
static char *cell(const struct gs_ui *ui, const struct gs_row *row, int c, char *p, const char *end)
{
    const struct gs_proc *pr = row->p;
    int w = gs_cols[c].width;
    char t[32];

    if (row->virt && c != GS_COL_PID && c != GS_COL_USER && c != GS_COL_CPU && c != GS_COL_HMEM &&
        c != GS_COL_TIME && c != GS_COL_JOB && c != GS_COL_CONT && c != GS_COL_CMD) /* a parent not on a GPU */
        return gs_put_pad(p, c == GS_COL_TYPE ? " " : "-", w, true);
    switch (c) {
    case GS_COL_PID: return num_cell(p, w, true, pr->pid);
    case GS_COL_USER: return gs_put_pad(p, gs_proc_has(pr, GS_P_USER) ? pr->user : "?", w, false);
    case GS_COL_GPU: return num_cell(p, w, true, ui->view.gpus[row->gpu].st.index);
    case GS_COL_TYPE: *p++ = type_char(pr->type); *p = '\0'; return p;
    case GS_COL_GMEM:
        return gs_put_pad(p, gs_proc_has(pr, GS_P_GPU_MEM) ? gs_fmt_bytes(pr->gpu_mem_bytes, t, sizeof(t)) : "N/A",
                          w, true);
    case GS_COL_SM: return num_cell(p, w, gs_proc_has(pr, GS_P_SM_UTIL), pr->sm_util_pct);
    case GS_COL_MBW: return num_cell(p, w, gs_proc_has(pr, GS_P_MEM_UTIL), pr->mem_util_pct);
    case GS_COL_ENC: return num_cell(p, w, gs_proc_has(pr, GS_P_ENC_UTIL), pr->enc_util_pct);
    case GS_COL_DEC: return num_cell(p, w, gs_proc_has(pr, GS_P_DEC_UTIL), pr->dec_util_pct);
    case GS_COL_CPU:
        if (!gs_proc_has(pr, GS_P_CPU))
            return gs_put_pad(p, "-", w, true);
        { /* one decimal, rounded like %.1f */
            uint64_t tenths = pr->cpu_pct > 0 ? (uint64_t)(pr->cpu_pct * 10.0 + 0.5) : 0;
            char *q = gs_put_u(t, tenths / 10);
            *q++ = '.';
            *q++ = (char)('0' + tenths % 10);
            *q = '\0';
        }
        return gs_put_pad(p, t, w, true);
    case GS_COL_HMEM:
        return gs_put_pad(p, gs_proc_has(pr, GS_P_RSS) ? gs_fmt_bytes(pr->rss_bytes, t, sizeof(t)) : "-", w, true);
    case GS_COL_TIME:
        return gs_put_pad(p, gs_proc_has(pr, GS_P_START) ? gs_fmt_age(pr->age_s, t, sizeof(t)) : "-", w, true);
    case GS_COL_JOB:
        if (!gs_proc_has(pr, GS_P_SLURM) || !pr->slurm_job)
            return gs_put_pad(p, "-", w, false);
        snprintf(t, sizeof(t), "%u", pr->slurm_job);
        return gs_put_pad(p, t, w, false);
    case GS_COL_CONT:
        if (pr->pod_uid[0]) {
            memcpy(t, "pod:", 4);
            memcpy(t + 4, pr->pod_uid, 8);
            t[12] = '\0';
            return gs_put_pad(p, t, w, false);
        }
        return gs_put_pad(p, pr->container_id[0] ? pr->container_id : "-", w, false);
    default: return cmd_cell(ui, row, p, end);
    }
}

/* The whole row into one buffer (columns separated by a space), drawn as one run. */
static void table_row(struct gs_ui *ui, const struct gs_row *row, int y, bool selected)
{
    char b[GS_CMDLINE_MAX + 400];
    char *p = b, *end = b + sizeof(b);
    bool dim = row->virt || ui->view.gpus[row->gpu].state != GS_GPU_OK;
    enum gs_role r = selected ? GS_R_SELECT : dim ? GS_R_DIM : GS_R_NORMAL;

    for (int c = 0; c < GS_COL_COUNT; c++) {
        if (!ui->col_w[c])
            continue;
        while (p - b < ui->col_x[c])
            *p++ = ' ';
        p = cell(ui, row, c, p, end);
    }
    *p = '\0';
    gs_put_line(ui, y, r, b);
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

/* Tell the sampler which processes are on screen: only their CPU and RSS
 * are read every tick (the rest every few seconds), unless the sort needs
 * them all. Handed on only when the set changed. */
static void table_focus(struct gs_ui *ui, int nvis)
{
    uint32_t pids[256];
    uint32_t n = 0;
    bool all = ui->conf.sort_col == GS_COL_CPU || ui->conf.sort_col == GS_COL_HMEM;
    uint64_t h = all ? 0x9e3779b97f4a7c15ull : 0xcbf29ce484222325ull;

    for (int i = 0; !all && i < nvis && ui->top + i < (long)ui->rows.n; i++) {
        const struct gs_row *r = &ui->rows.v[ui->top + i];
        if (r->virt)
            continue;
        if (n == sizeof(pids) / sizeof(pids[0])) {
            all = true;
            break;
        }
        pids[n++] = r->pid;
        h = (h ^ r->pid) * 0x100000001b3ull;
    }
    if (all)
        h = 0x9e3779b97f4a7c15ull;
    if (!ui->feed || h == ui->focus_hash)
        return;
    ui->focus_hash = h;
    gs_feed_set_focus(ui->feed, pids, n, all);
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
    int i = 0;
    for (; i < nvis && ui->top + i < (long)ui->rows.n; i++) {
        long k = ui->top + i;
        table_row(ui, &ui->rows.v[k], l->table_y + 1 + i, k == ui->sel);
    }
    table_focus(ui, nvis);
    for (; i < nvis; i++) /* no erase() before a partial frame: blank what is left */
        mvhline(l->table_y + 1 + i, 0, ' ' | ui->attr[GS_R_NORMAL], COLS);
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
        int x = 0;
        if (ui->hb.total) { /* the health engine's findings, coloured by the worst */
            snprintf(b, sizeof(b), " %u finding%s: H ", ui->hb.total, ui->hb.total == 1 ? "" : "s");
            x = gs_put(ui, y, 0, COLS, ui->hb.worst >= GS_SEV_CRITICAL ? GS_R_BAD : ui->hb.worst == GS_SEV_WARNING ? GS_R_WARN : GS_R_LABEL, b) + 1;
        }
        snprintf(b, sizeof(b), "%s%s%sF1 Help  F2 Layout  / Filter  t Tree  s Sort  Enter Details  k Signal  H Health  +- Interval  p Pause  q Quit",
                 ui->filter[0] ? "[filter: " : "", ui->filter, ui->filter[0] ? "]  " : "");
        gs_put(ui, y, x, COLS - x, GS_R_DIM, b);
    }
}
