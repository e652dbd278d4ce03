/* SPDX-License-Identifier: MIT */
/*
 * keys.c - what each key does in `gpuscope top` (htop/nvtop/nvitop habits:
 * q F10 quit, F1 ? help, / filter, t tree, s F6 sort, k F9 signal, p pause).
 */
#include <string.h>

#include "ui/keys.h"
#include "ui/ui.h"

#define CTRL(c) ((c) & 0x1f)

static void set_interval(struct gs_ui *ui, int dir)
{
    ui->conf.interval_ms = gs_interval_step(ui->conf.interval_ms, dir);
    gs_feed_set_interval(ui->feed, ui->conf.interval_ms);
    ui->full = true; /* the charts' time axes span another time */
    gs_ui_message(ui, "refresh every %u ms", ui->conf.interval_ms);
}

static void set_sort(struct gs_ui *ui, int col)
{
    ui->conf.sort_col = (col + GS_COL_COUNT) % GS_COL_COUNT;
    ui->conf.sort_desc = gs_cols[ui->conf.sort_col].desc_first;
    gs_ui_rebuild_rows(ui);
    gs_ui_message(ui, "sorted by %s", gs_cols[ui->conf.sort_col].title);
}

static void move_sel(struct gs_ui *ui, long by)
{
    ui->sel += by;
    if (ui->sel >= (long)ui->rows.n)
        ui->sel = (long)ui->rows.n - 1;
    if (ui->sel < 0)
        ui->sel = 0;
    gs_ui_note_selection(ui);
}

static bool nav_key(struct gs_ui *ui, int ch)
{
    long page = ui->lay.table_h > 2 ? ui->lay.table_h - 2 : 1;
    switch (ch) {
    case KEY_UP: move_sel(ui, -1); return true;
    case KEY_DOWN: move_sel(ui, 1); return true;
    case KEY_PPAGE: move_sel(ui, -page); return true;
    case KEY_NPAGE: move_sel(ui, page); return true;
    case KEY_HOME: move_sel(ui, -(long)ui->rows.n); return true;
    case KEY_END: move_sel(ui, (long)ui->rows.n); return true;
    default: return false;
    }
}

static void toggle_pause(struct gs_ui *ui)
{
    ui->paused = !ui->paused;
    gs_feed_set_paused(ui->feed, ui->paused);
}

static bool view_key(struct gs_ui *ui, int ch)
{
    switch (ch) {
    case 'g':
        ui->conf.metric = (int)gs_chart_metric_next((unsigned)ui->conf.metric, &ui->view);
        gs_ui_message(ui, "chart: %s", gs_chart_metrics[ui->conf.metric].title);
        break;
    case 'G': ui->conf.chart = !ui->conf.chart; gs_ui_relayout(ui); break;
    case 'l': case KEY_F(2):
        ui->conf.layout = (ui->conf.layout + 1) % GS_LAYOUT_PREF_COUNT;
        gs_ui_relayout(ui);
        gs_ui_message(ui, "layout: %s", gs_layout_names[ui->conf.layout]);
        break;
    case 'c':
        ui->conf.theme = (ui->conf.theme + 1) % GS_THEME_COUNT;
        gs_theme_apply(ui);
        gs_ui_message(ui, "theme: %s%s", gs_theme_names[ui->conf.theme],
                      ui->force_mono ? " (colours off: NO_COLOR or --mono)" : "");
        break;
    case 'a': ui->conf.ascii = !ui->conf.ascii; gs_ui_relayout(ui); break;
    case CTRL('l'): clearok(curscr, TRUE); break;
    case KEY_RESIZE: gs_ui_relayout(ui); break;
    default: return false;
    }
    return true;
}

static void on_mouse(struct gs_ui *ui)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return;
    if (ev.bstate & BUTTON4_PRESSED)
        move_sel(ui, -3);
    else if (ev.bstate & BUTTON5_PRESSED)
        move_sel(ui, 3);
    else if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED)) {
        gs_table_click(ui, ev.y, ev.x);
        gs_ui_note_selection(ui);
    }
}

static void open_signal(struct gs_ui *ui)
{
    const struct gs_row *r = gs_ui_selected(ui);
    if (!r)
        return;
    ui->mode = GS_MODE_SIGNAL;
    ui->sig_choice = 0;
    ui->sig_group = false;
    ui->sig_pid = r->p->pid;
    ui->sig_pgid = gs_proc_has(r->p, GS_P_PARENT) ? r->p->pgid : 0;
    memcpy(ui->sig_comm, r->p->comm, sizeof(ui->sig_comm));
}

static void main_key(struct gs_ui *ui, int ch)
{
    if (nav_key(ui, ch) || view_key(ui, ch))
        return;
    switch (ch) {
    case 'q': case 'Q': case KEY_F(10): ui->quit = true; break;
    case '?': case 'h': case KEY_F(1): ui->mode = GS_MODE_HELP; ui->help_top = 0; break;
    case '/': case KEY_F(3): case KEY_F(4): ui->mode = GS_MODE_FILTER; break;
    case 27: ui->filter[0] = '\0'; gs_ui_rebuild_rows(ui); break;
    case 't': case KEY_F(5): ui->conf.tree = !ui->conf.tree; gs_ui_rebuild_rows(ui); break;
    case 's': case '>': case KEY_F(6): set_sort(ui, ui->conf.sort_col + 1); break;
    case 'S': case '<': set_sort(ui, ui->conf.sort_col - 1); break;
    case 'r': case 'I': ui->conf.sort_desc = !ui->conf.sort_desc; gs_ui_rebuild_rows(ui); break;
    case '+': case '=': set_interval(ui, 1); break;
    case '-': case '_': set_interval(ui, -1); break;
    case 'p': case ' ': toggle_pause(ui); break;
    case '\n': case '\r': case KEY_ENTER: gs_detail_open(ui); break;
    case 'H': ui->mode = GS_MODE_HEALTH; ui->health_top = 0; break;
    case 'k': case KEY_F(9):
        if (ui->opts.readonly)
            gs_ui_message(ui, "read-only mode (--readonly): signals are disabled");
        else
            open_signal(ui);
        break;
    case KEY_MOUSE: on_mouse(ui); break;
    default: break;
    }
}

static void filter_key(struct gs_ui *ui, int ch)
{
    size_t n = strlen(ui->filter);
    if (ch == 27) {
        ui->filter[0] = '\0';
        ui->mode = GS_MODE_MAIN;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        ui->mode = GS_MODE_MAIN;
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (n)
            ui->filter[n - 1] = '\0';
    } else if (ch >= 32 && ch < 127 && n + 1 < sizeof(ui->filter)) {
        ui->filter[n] = (char)ch;
        ui->filter[n + 1] = '\0';
    } else {
        return;
    }
    ui->sel = 0;
    gs_ui_rebuild_rows(ui);
}

static void signal_key(struct gs_ui *ui, int ch)
{
    switch (ch) {
    case 't': case 'T': case '1': ui->sig_choice = 0; break;
    case 'k': case 'K': case '9': ui->sig_choice = 1; break;
    case 'i': case 'I': case '2': ui->sig_choice = 2; break;
    case KEY_LEFT: ui->sig_choice = (ui->sig_choice + 2) % 3; break;
    case KEY_RIGHT: case '\t': ui->sig_choice = (ui->sig_choice + 1) % 3; break;
    case 'g': case 'G': ui->sig_group = !ui->sig_group; break;
    case 'y': case 'Y': case '\n': case '\r': case KEY_ENTER:
        gs_signal_send(ui);
        ui->mode = GS_MODE_MAIN;
        break;
    case 'n': case 'N': case 27: case 'q': ui->mode = GS_MODE_MAIN; break;
    default: break;
    }
}

static void detail_key(struct gs_ui *ui, int ch)
{
    switch (ch) {
    case KEY_UP: if (ui->det.scroll > 0) ui->det.scroll--; break;
    case KEY_DOWN: ui->det.scroll++; break;
    case 'k': case KEY_F(9):
        if (!ui->opts.readonly)
            open_signal(ui);
        break;
    case 'p': { /* the process's Python stacks, fetched off the UI thread (pytorch.c) */
        long k = gs_rows_find(&ui->rows, ui->det.pid, ui->det.gpu);
        if (k >= 0) {
            gs_detail_fetch_stacks(ui, ui->rows.v[k].p);
            ui->det.scroll = 0;
        }
        break;
    }
    case KEY_RESIZE: gs_ui_relayout(ui); break;
    case KEY_MOUSE: { MEVENT ev; getmouse(&ev); } break;
    default: ui->mode = GS_MODE_MAIN; break;
    }
}

static void help_key(struct gs_ui *ui, int ch)
{
    int page = LINES > 4 ? LINES - 3 : 1;
    switch (ch) {
    case KEY_RESIZE: gs_ui_relayout(ui); break;
    case KEY_MOUSE: { MEVENT ev; getmouse(&ev); } break;
    case KEY_DOWN: case 'j': ui->help_top++; break;
    case KEY_UP: case 'k': ui->help_top--; break;
    case KEY_NPAGE: case ' ': ui->help_top += page; break;
    case KEY_PPAGE: ui->help_top -= page; break;
    case KEY_HOME: ui->help_top = 0; break;
    case KEY_END: ui->help_top = gs_help_scroll_max(); break;
    default: ui->mode = GS_MODE_MAIN; return;
    }
    if (ui->help_top > gs_help_scroll_max())
        ui->help_top = gs_help_scroll_max();
    if (ui->help_top < 0)
        ui->help_top = 0;
}

static void health_key(struct gs_ui *ui, int ch)
{
    int page = LINES > 4 ? LINES - 3 : 1;
    switch (ch) {
    case KEY_RESIZE: gs_ui_relayout(ui); break;
    case KEY_MOUSE: { MEVENT ev; getmouse(&ev); } break;
    case KEY_DOWN: case 'j': ui->health_top++; break;
    case KEY_UP: case 'k': ui->health_top--; break;
    case KEY_NPAGE: case ' ': ui->health_top += page; break;
    case KEY_PPAGE: ui->health_top -= page; break;
    case KEY_HOME: ui->health_top = 0; break;
    case KEY_END: ui->health_top = gs_health_scroll_max(ui); break;
    default: ui->mode = GS_MODE_MAIN; return;
    }
    if (ui->health_top > gs_health_scroll_max(ui))
        ui->health_top = gs_health_scroll_max(ui);
    if (ui->health_top < 0)
        ui->health_top = 0;
}

static void on_key(struct gs_ui *ui, int ch)
{
    switch (ui->mode) {
    case GS_MODE_FILTER: if (ch == KEY_RESIZE) gs_ui_relayout(ui); else filter_key(ui, ch); break;
    case GS_MODE_SIGNAL: signal_key(ui, ch); break;
    case GS_MODE_DETAIL: detail_key(ui, ch); break;
    case GS_MODE_HELP: help_key(ui, ch); break;
    case GS_MODE_HEALTH: health_key(ui, ch); break;
    default: main_key(ui, ch); break;
    }
}

bool gs_keys_drain(struct gs_ui *ui)
{
    bool any = false;
    int ch;

    while (!ui->quit && (ch = getch()) != ERR) {
        on_key(ui, ch);
        any = true;
    }
    return any;
}
