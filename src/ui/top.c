/* SPDX-License-Identifier: MIT */
/*
 * top.c - the loop of `gpuscope top`: start the sampler thread, set up the
 * terminal, then poll() stdin and the feed's pipe; take new snapshots, handle
 * keys (keys.c), redraw. The terminal is restored on exit, Ctrl-C, SIGTERM
 * and crashes (SIGSEGV/SIGABRT/SIGBUS/SIGFPE: endwin, then re-raise).
 */
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/pyhook.h"
#include "ui/keys.h"
#include "ui/pystack.h"
#include "ui/term_signals.h"
#include "ui/ui.h"
#include "lib/clock.h"

void gs_ui_message(struct gs_ui *ui, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ui->msg, sizeof(ui->msg), fmt, ap);
    va_end(ap);
    ui->msg_until_ns = gs_clock_mono_ns() + 3000000000ull;
}

const struct gs_row *gs_ui_selected(const struct gs_ui *ui)
{
    if (ui->sel < 0 || ui->sel >= (long)ui->rows.n)
        return NULL;
    return &ui->rows.v[ui->sel];
}

void gs_ui_rebuild_rows(struct gs_ui *ui)
{
    ui->table_dirty = true;
    ui->rows_valid = gs_rows_build(&ui->rows, &ui->view, ui->filter) == 0;
    if (!ui->rows_valid) {
        ui->rows.n = 0;
        gs_ui_message(ui, "out of memory: the process table cannot be shown");
    }
    gs_rows_sort(&ui->rows, ui->conf.sort_col, ui->conf.sort_desc);
    if (ui->conf.tree) {
        /* non-GPU parents: /proc is read once per new parent PID, once per snapshot at most */
        if (ui->anc_snap_ns != ui->view.mono_ns) {
            gs_ancestry_update(&ui->anc, &ui->view);
            ui->anc_snap_ns = ui->view.mono_ns;
        }
        gs_rows_tree_with(&ui->rows, ui->anc.v, &ui->anc.text, ui->anc.n);
    }
    long k = gs_rows_find(&ui->rows, ui->sel_pid, ui->sel_gpu);
    if (k >= 0)
        ui->sel = k;
    gs_ui_note_selection(ui); /* the selection follows its process */
}

/* Remember the selection by identity, so re-sorting and new snapshots keep it. */
void gs_ui_note_selection(struct gs_ui *ui)
{
    const struct gs_row *r = gs_ui_selected(ui);
    if (r) {
        ui->sel_pid = r->p->pid;
        ui->sel_gpu = r->gpu;
    }
}

static void keep_last_good(struct gs_ui *ui)
{
    if (ui->nlast != ui->view.ngpus) {
        struct gs_sample *v = calloc(ui->view.ngpus ? ui->view.ngpus : 1, sizeof(*v));
        if (!v)
            return;
        free(ui->last_good);
        ui->last_good = v;
        ui->nlast = ui->view.ngpus;
    }
    for (uint32_t i = 0; i < ui->view.ngpus; i++)
        if (ui->view.gpus[i].state == GS_GPU_OK)
            ui->last_good[i] = ui->view.gpus[i].s;
}

void gs_ui_relayout(struct gs_ui *ui)
{
    struct gs_layout *l = &ui->lay;
    gs_layout_pick(l, LINES, COLS, ui->view.ngpus, ui->conf.layout, ui->conf.chart);
    ui->glyphs = (ui->conf.ascii || !ui->utf8) ? GS_GLYPH_ASCII : GS_GLYPH_BRAILLE;
    uint32_t cap = (uint32_t)gs_chart_samples(l->chart_w ? l->chart_w : COLS, GS_GLYPH_BRAILLE);
    if (cap > 1024)
        cap = 1024;
    gs_hist_resize(&ui->hist, ui->view.ngpus, cap);
    if (ui->grid.w != l->chart_w || ui->grid.h != l->chart_h) {
        free(ui->grid.cell);
        ui->grid.cell = NULL;
        ui->grid.w = ui->grid.h = 0;
        if (l->chart_w > 0 && l->chart_h > 0) {
            ui->grid.cell = calloc((size_t)l->chart_w * l->chart_h, GS_CELL_BYTES);
            if (ui->grid.cell) {
                ui->grid.w = l->chart_w;
                ui->grid.h = l->chart_h;
            }
        }
    }
}

static void on_snapshot(struct gs_ui *ui)
{
    uint32_t before = ui->hist.ngpus;
    keep_last_good(ui);
    ui->have_snap = true;
    if (before != ui->view.ngpus) {
        gs_ui_relayout(ui);
        ui->full = true;
    }
    gs_hist_push(&ui->hist, &ui->view);
    if (gs_xid_track_update(&ui->xids, &ui->view) < 0)
        gs_ui_message(ui, "out of memory: the Xid counts are those of an earlier snapshot");
    gs_hbadges_update(&ui->hb, &ui->view, &ui->findings);
    gs_pmem_update(&ui->pmem, &ui->view, ui->view.wall.tv_sec);
    /* Same processes with the same values: keep the order, skip the sort and
     * leave the table on screen as it is. */
    uint64_t fp = gs_rows_fingerprint(&ui->view);
    if (fp == ui->procs_fp && ui->rows_valid && gs_rows_repoint(&ui->rows, &ui->view))
        return;
    ui->procs_fp = fp;
    gs_ui_rebuild_rows(ui);
}

/* full: erase and draw everything (after a key, a resize, a mode change);
 * otherwise only what a new snapshot changes (see gs_draw_gpus, table_dirty). */
static void draw(struct gs_ui *ui, bool full)
{
    switch (ui->mode) {
    case GS_MODE_HELP:
        gs_draw_help(ui);
        break;
    case GS_MODE_DETAIL:
        gs_draw_detail(ui);
        break;
    case GS_MODE_HEALTH:
        gs_draw_health(ui);
        break;
    default:
        full = full || ui->full;
        if (full) {
            erase();
            ui->table_dirty = true;
        }
        ui->full = false;
        gs_draw_title(ui);
        gs_draw_gpus(ui, full);
        if (ui->table_dirty)
            gs_draw_table(ui);
        ui->table_dirty = false;
        gs_draw_footer(ui);
        if (ui->mode == GS_MODE_SIGNAL)
            gs_draw_signal(ui);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

static int poll_timeout_ms(const struct gs_ui *ui)
{
    uint64_t now = gs_clock_mono_ns();
    if (ui->msg[0] && ui->msg_until_ns > now)
        return (int)((ui->msg_until_ns - now) / 1000000ull) + 1;
    return -1; /* nothing else to wait for: snapshots and keys wake poll() */
}

static void loop(struct gs_ui *ui)
{
    struct pollfd pf[2] = { { .fd = STDIN_FILENO, .events = POLLIN },
                            { .fd = gs_feed_fd(ui->feed), .events = POLLIN } };
    draw(ui, true);
    while (!ui->quit && !gs_ui_quit_requested()) {
        int n = poll(pf, 2, poll_timeout_ms(ui));
        bool dirty = n == 0, full = false; /* a message expired (a resize arrives as KEY_RESIZE) */
        if (n > 0 && (pf[1].revents & POLLIN)) {
            if (ui->paused) /* keep the frozen view; the rows point into it */
                gs_feed_drain(ui->feed);
            else if (gs_feed_take(ui->feed, &ui->view, &ui->findings, &ui->snap_rc, &ui->snap_err)) {
                on_snapshot(ui);
                dirty = true;
            }
        }
        if (gs_keys_drain(ui))
            dirty = full = true; /* keys are rare: redraw everything after one */
        if (dirty && !ui->quit)
            draw(ui, full);
    }
}

static int open_feed(struct gs_ui *ui, struct gs_err *err)
{
    struct gs_sampler_opts so = GS_SAMPLER_OPTS_INIT;
    struct gs_sampler *s;

    sigset_t all, old;

    so.slow = GS_SLOW_THREAD;
    so.only_ids = ui->opts.only_ids;
    so.pyhook = GS_PYHOOK_ASYNC; /* the detail view's PyTorch breakdown (ui/pytorch.c) */
    /* what the screen and its health checks show: not the graphics and video clocks (two NVML
     * calls per GPU per refresh; the GPU block shows the SM and memory clocks) */
    struct gs_fmask unshown = gs_fmask_of(GS_F_CLOCK_GRAPHICS);
    gs_fmask_set(&unshown, GS_F_CLOCK_VIDEO);
    so.want = gs_fmask_minus(gs_fmask_default(), unshown);
    /* Threads started from here on (the sampler's slow-field worker, the feed)
     * inherit a full mask: signals always reach the UI thread and wake poll(). */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = gs_sampler_open(&s, &so, err);
    if (rc == 0) {
        rc = gs_feed_start(&ui->feed, s, ui->conf.interval_ms, err);
        if (rc < 0)
            gs_sampler_close(s);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

static void load_settings(struct gs_ui *ui)
{
    gs_top_conf_defaults(&ui->conf);
    if (gs_top_conf_path(ui->conf_path, sizeof(ui->conf_path)) < 0)
        ui->conf_path[0] = '\0';
    else
        gs_top_conf_load(&ui->conf, ui->conf_path);
    if (ui->opts.interval_ms)
        ui->conf.interval_ms = ui->opts.interval_ms;
    if (ui->opts.layout >= 0)
        ui->conf.layout = ui->opts.layout;
    if (ui->opts.ascii)
        ui->conf.ascii = true;
    const char *nc = getenv("NO_COLOR");
    ui->force_mono = ui->opts.mono || (nc && *nc);
}

static void start_curses(struct gs_ui *ui)
{
    initscr();
    gs_ui_curses_set(true);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    ui->color_ok = !ui->force_mono && has_colors();
    if (ui->color_ok) {
        start_color();
        use_default_colors();
    }
    gs_theme_apply(ui);
    gs_ui_relayout(ui);
    /* Frames are short: finish each one rather than polling stdin every few lines. */
    typeahead(-1);
    /* ncurses 6.2-6.4 flushes its output after every cursor movement until the
     * screen has once been suspended and resumed (_endwin stays "initial"), so a
     * frame went out as ~150 write()s. One endwin()+refresh() before the first
     * frame leaves that state: a frame is then one or two write()s. */
    endwin();
    refresh();
}

static void stop_curses(void)
{
    if (!gs_ui_curses_is_on())
        return;
    endwin();
    gs_ui_curses_set(false);
}

static void ui_release(struct gs_ui *ui)
{
    gs_feed_stop(ui->feed);
    gs_snapshot_release(&ui->view);
    gs_rows_release(&ui->rows);
    gs_hist_release(&ui->hist);
    gs_xid_track_release(&ui->xids);
    gs_hbadges_release(&ui->hb);
    gs_findings_free(&ui->findings);
    gs_ancestry_release(&ui->anc);
    gs_pmem_release(&ui->pmem);
    gs_pystack_release(ui->pystack);
    free(ui->grid.cell);
    free(ui->last_good);
    free(ui->drawn);
    free(ui->drawn_state);
    free(ui->chart_cache);
}

int gs_top_run(const struct gs_top_opts *o, struct gs_err *err)
{
    static struct gs_ui ui_store;
    struct gs_ui *ui = &ui_store;

    memset(ui, 0, sizeof(*ui));
    ui->opts = *o;
    setlocale(LC_ALL, "");
    ui->utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    load_settings(ui);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        gs_err_set(err, GS_E_USAGE, "gpuscope top needs a terminal");
        gs_err_hint(err, "use 'gpuscope query' for scripts and pipes");
        return -GS_E_USAGE;
    }
    int rc = open_feed(ui, err);
    if (rc < 0)
        return rc;
    gs_ui_signals_install();
    start_curses(ui);
    loop(ui);
    stop_curses();
    ui_release(ui);
    if (!ui->opts.no_save && ui->conf_path[0])
        gs_top_conf_save(&ui->conf, ui->conf_path);
    return 0;
}
