/* SPDX-License-Identifier: MIT */
/*
 * fleet_view.c - `gpuscope top --prometheus`: the start-up refresh (errors
 * exit non-zero before the screen is touched), then either --batch text or
 * the curses loop: poll() stdin and the feed's pipe, three levels (nodes,
 * one node's GPUs, one GPU's processes), the sort and filter keys of
 * today's top. The terminal is restored on exit and on SIGINT/SIGTERM.
 */
#include <curses.h>
#include <locale.h>
#include <langinfo.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ui/fleet.h"
#include "ui/top.h"

enum level { LV_NODES, LV_GPUS, LV_PROCS };
enum pair { P_BAD = 1, P_WARN, P_OK, P_HEAD, P_TITLE };

struct fview {
    const struct gs_top_opts *o;
    struct gs_fleet_feed *feed;
    struct gs_fleet_snap view;
    size_t *idx, nidx;
    enum level lv;
    long sel, top, gsel, psel;
    char sel_host[GS_FLEET_NAME];
    char host[GS_FLEET_NAME];  /* the node shown (LV_GPUS, LV_PROCS) */
    int gpu;                   /* the GPU shown (LV_PROCS) */
    enum gs_fleet_col sort;
    bool desc, paused, help, filtering, quit, color, utf8;
    char filter[64];
    char msg[160];
    double period_s;
};

static volatile sig_atomic_t g_fleet_quit;

static void on_quit(int sig)
{
    (void)sig;
    g_fleet_quit = 1;
}

static void on_crash(int sig)
{
    endwin();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_quit;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGABRT, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

/* ---- rows ------------------------------------------------------------------ */

static void rebuild(struct fview *v)
{
    size_t *idx = realloc(v->idx, (v->view.n + 1) * sizeof(*idx));
    if (!idx)
        return;
    v->idx = idx;
    v->nidx = gs_fleet_order(&v->view, v->filter, v->sort, v->desc, v->idx);
    v->sel = 0;
    for (size_t i = 0; i < v->nidx; i++)
        if (!strcmp(v->view.nodes[v->idx[i]].host, v->sel_host))
            v->sel = (long)i;
}

static const struct gs_fleet_node *sel_node(const struct fview *v)
{
    return v->sel >= 0 && (size_t)v->sel < v->nidx ? &v->view.nodes[v->idx[v->sel]] : NULL;
}

static void put_row(struct fview *v, int y, attr_t a, const char *s)
{
    attron(a);
    mvaddnstr(y, 0, s, COLS);
    int x = getcurx(stdscr);
    if (getcury(stdscr) == y)
        for (; x < COLS; x++)
            addch(' ');
    attroff(a);
    (void)v;
}

static attr_t pair_attr(const struct fview *v, enum pair p)
{
    return v->color ? COLOR_PAIR(p) : (p == P_HEAD || p == P_TITLE ? A_REVERSE : p == P_BAD ? A_BOLD : 0);
}

static attr_t node_attr(const struct fview *v, const struct gs_fleet_node *n)
{
    if (n->lost)
        return A_DIM;
    if (n->v[GS_FV_CRIT] > 0 || n->v[GS_FV_XID_1H] > 0)
        return pair_attr(v, P_BAD);
    if (n->v[GS_FV_WARN] > 0 || n->v[GS_FV_THROTTLED] > 0)
        return pair_attr(v, P_WARN);
    return A_NORMAL;
}

/* ---- drawing --------------------------------------------------------------- */

static void draw_title(struct fview *v, const char *what)
{
    char buf[1024], ts[16];
    time_t t = (time_t)v->view.t;
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
    snprintf(buf, sizeof(buf), "gpuscope top - fleet %s%s%s - %s - every %.0fs at %s%s", v->o->prometheus,
             v->o->match ? " " : "", v->o->match ? v->o->match : "", what, v->period_s, ts,
             v->paused ? " [paused]" : "");
    put_row(v, 0, pair_attr(v, P_TITLE) | A_BOLD, buf);
    gs_fleet_status_line(&v->view, buf, sizeof(buf));
    put_row(v, 1, v->view.failed ? pair_attr(v, P_BAD) : A_NORMAL, buf);
}

static void scroll_fit(long *sel, long *top, long n, int h)
{
    if (*sel >= n)
        *sel = n - 1;
    if (*sel < 0)
        *sel = 0;
    if (*sel < *top)
        *top = *sel;
    if (h > 0 && *sel >= *top + h)
        *top = *sel - h + 1;
    if (*top < 0)
        *top = 0;
}

static void draw_nodes(struct fview *v)
{
    char buf[2048];
    int h = LINES - 4;
    draw_title(v, "nodes");
    gs_fleet_header_line(buf, sizeof(buf), COLS, v->sort, v->desc);
    put_row(v, 2, pair_attr(v, P_HEAD), buf);
    scroll_fit(&v->sel, &v->top, (long)v->nidx, h);
    for (int r = 0; r < h; r++) {
        long i = v->top + r;
        if (i >= (long)v->nidx) {
            move(3 + r, 0);
            clrtoeol();
            continue;
        }
        const struct gs_fleet_node *n = &v->view.nodes[v->idx[i]];
        gs_fleet_node_line(n, buf, sizeof(buf), COLS);
        put_row(v, 3 + r, node_attr(v, n) | (i == v->sel ? A_REVERSE : 0), buf);
    }
    if (!v->nidx)
        put_row(v, 3, A_BOLD, v->filter[0] ? "no node matches the filter (Esc clears it)" : "no nodes");
}

static void draw_gpus(struct fview *v)
{
    char buf[2048], what[GS_FLEET_NAME + 32];
    int h = LINES - 4;
    snprintf(what, sizeof(what), "node %s (Esc: back)", v->host);
    draw_title(v, what);
    gs_fleet_gpu_header(buf, sizeof(buf));
    put_row(v, 2, pair_attr(v, P_HEAD), buf);
    scroll_fit(&v->gsel, &v->top, (long)v->view.ngpus, h);
    for (int r = 0; r < h; r++) {
        long i = v->top + r;
        move(3 + r, 0);
        clrtoeol();
        if (i >= (long)v->view.ngpus)
            continue;
        const struct gs_fleet_gpu *g = &v->view.gpus[i];
        gs_fleet_gpu_line(g, buf, sizeof(buf), v->utf8);
        attr_t a = g->finding[0] ? pair_attr(v, P_WARN) : A_NORMAL;
        put_row(v, 3 + r, a | (i == v->gsel ? A_REVERSE : 0), buf);
    }
    if (!v->view.ngpus)
        put_row(v, 3, A_BOLD, strcmp(v->view.focus_host, v->host) ? "reading the node's GPUs ..."
                                                                   : "no GPU series for this node now (lost?)");
}

static void draw_procs(struct fview *v)
{
    char buf[1024], what[GS_FLEET_NAME + 64];
    int h = LINES - 4;
    snprintf(what, sizeof(what), "node %s GPU %d: processes (Esc: back)", v->host, v->gpu);
    draw_title(v, what);
    gs_fleet_proc_header(buf, sizeof(buf));
    put_row(v, 2, pair_attr(v, P_HEAD), buf);
    for (int r = 0; r < h; r++) {
        move(3 + r, 0);
        clrtoeol();
        if (r < (int)v->view.nprocs) {
            gs_fleet_proc_line(&v->view.procs[r], buf, sizeof(buf));
            put_row(v, 3 + r, r == v->psel ? A_REVERSE : A_NORMAL, buf);
        }
    }
    if (!v->view.nprocs) {
        const char *pod = NULL;
        for (size_t i = 0; i < v->view.ngpus; i++)
            if (v->view.gpus[i].index == v->gpu && v->view.gpus[i].pod[0])
                pod = v->view.gpus[i].pod;
        snprintf(buf, sizeof(buf), "%s%s%s", v->view.procs_known ? "no processes on this GPU" :
                 "no process series for this GPU (gpuscope serve exports them; dcgm-exporter only pods)",
                 pod ? "; pod: " : "", pod ? pod : "");
        put_row(v, 3, A_BOLD, buf);
    }
}

static const char *const help_text[] = {
    "gpuscope top --prometheus: the fleet, one row per node (docs/FLEET.md)",
    "",
    "  Up/Down PgUp/PgDn Home/End  move        Enter  a node's GPUs, then a GPU's processes",
    "  Esc Backspace Left          back (on the nodes: clear the filter)",
    "  s > F6 / S <                sort by the next / previous column;  r I  reverse the order",
    "  / F3                        filter nodes (name, top user, finding)",
    "  p space                     pause refreshing      q F10  quit      ? h F1  this help",
    "",
    "Columns: GPUS, mean and max UTIL, MEMORY used/total, HOT (hottest GPU's temperature and index),",
    "POWER, THR (GPUs held by power or thermal limits), XID1H (Xids in the last hour), HEALTH",
    "(gpuscope serve's findings: C critical, W warning), TOP USER (pod, Slurm job or process by GPU memory).",
    "'-': the fleet's series do not carry it (dcgm-exporter has no health or throttle series).",
    "A greyed node is lost: it had series and has none now (exporter or node down).",
    "",
    "Any key closes this help.",
};

static void draw(struct fview *v)
{
    if (v->help) {
        erase();
        for (size_t i = 0; i < sizeof(help_text) / sizeof(*help_text) && (int)i < LINES; i++)
            mvaddnstr((int)i, 0, help_text[i], COLS);
    } else if (v->lv == LV_NODES) {
        draw_nodes(v);
    } else if (v->lv == LV_GPUS) {
        draw_gpus(v);
    } else {
        draw_procs(v);
    }
    char foot[256];
    if (v->filtering)
        snprintf(foot, sizeof(foot), "filter: %s_", v->filter);
    else if (v->msg[0])
        snprintf(foot, sizeof(foot), "%s", v->msg);
    else
        snprintf(foot, sizeof(foot), "Enter drill down  Esc back  s sort  r reverse  / filter%s%s  p pause  ? help"
                 "  q quit", v->filter[0] ? ": " : "", v->filter);
    put_row(v, LINES - 1, pair_attr(v, P_HEAD), foot);
    refresh();
}

/* ---- keys ------------------------------------------------------------------ */

static void set_focus(struct fview *v)
{
    gs_fleet_feed_focus(v->feed, v->lv >= LV_GPUS ? v->host : "", v->lv == LV_PROCS ? v->gpu : -1);
}

static void enter(struct fview *v)
{
    if (v->lv == LV_NODES) {
        const struct gs_fleet_node *n = sel_node(v);
        if (!n)
            return;
        if (n->host_cut) {
            snprintf(v->msg, sizeof(v->msg), "this node's name is longer than %d bytes: its GPUs cannot be "
                     "selected", GS_FLEET_NAME - 1);
            return;
        }
        snprintf(v->host, sizeof(v->host), "%s", n->host);
        v->lv = LV_GPUS;
        v->gsel = v->top = 0;
    } else if (v->lv == LV_GPUS && v->gsel < (long)v->view.ngpus) {
        v->gpu = v->view.gpus[v->gsel].index;
        v->lv = LV_PROCS;
        v->psel = 0;
    } else {
        return;
    }
    set_focus(v);
}

static void back(struct fview *v)
{
    if (v->lv == LV_NODES) {
        v->filter[0] = '\0';
        rebuild(v);
        return;
    }
    v->lv = v->lv == LV_PROCS ? LV_GPUS : LV_NODES;
    v->top = 0;
    set_focus(v);
}

static void move_sel(struct fview *v, long by)
{
    long *s = v->lv == LV_NODES ? &v->sel : v->lv == LV_GPUS ? &v->gsel : &v->psel;
    long n = v->lv == LV_NODES ? (long)v->nidx : v->lv == LV_GPUS ? (long)v->view.ngpus : (long)v->view.nprocs;
    *s += by;
    if (*s >= n)
        *s = n - 1;
    if (*s < 0)
        *s = 0;
    if (v->lv == LV_NODES && sel_node(v))
        snprintf(v->sel_host, sizeof(v->sel_host), "%s", sel_node(v)->host);
}

static void set_sort(struct fview *v, int col)
{
    v->sort = (enum gs_fleet_col)((col + GS_FC_COUNT) % GS_FC_COUNT);
    v->desc = gs_fleet_cols[v->sort].desc_first;
    snprintf(v->msg, sizeof(v->msg), "sorted by %s", gs_fleet_cols[v->sort].title);
    rebuild(v);
}

static void filter_key(struct fview *v, int ch)
{
    size_t n = strlen(v->filter);
    if (ch == 27)
        v->filter[0] = '\0';
    if (ch == 27 || ch == '\n' || ch == '\r' || ch == KEY_ENTER)
        v->filtering = false;
    else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n)
        v->filter[n - 1] = '\0';
    else if (ch >= 32 && ch < 127 && n + 1 < sizeof(v->filter)) {
        v->filter[n] = (char)ch;
        v->filter[n + 1] = '\0';
    }
    rebuild(v);
}

static bool nav_key(struct fview *v, int ch)
{
    long page = LINES > 6 ? LINES - 5 : 1;
    switch (ch) {
    case KEY_UP: case 'k': move_sel(v, -1); return true;
    case KEY_DOWN: case 'j': move_sel(v, 1); return true;
    case KEY_PPAGE: move_sel(v, -page); return true;
    case KEY_NPAGE: move_sel(v, page); return true;
    case KEY_HOME: move_sel(v, -(1L << 30)); return true;
    case KEY_END: move_sel(v, 1L << 30); return true;
    default: return false;
    }
}

static void on_key(struct fview *v, int ch)
{
    v->msg[0] = '\0';
    if (v->help) {
        v->help = false;
        return;
    }
    if (v->filtering) {
        filter_key(v, ch);
        return;
    }
    if (nav_key(v, ch))
        return;
    switch (ch) {
    case 'q': case 'Q': case KEY_F(10): v->quit = true; break;
    case '?': case 'h': case KEY_F(1): v->help = true; break;
    case '\n': case '\r': case KEY_ENTER: case KEY_RIGHT: enter(v); break;
    case 27: case KEY_BACKSPACE: case 127: case KEY_LEFT: back(v); break;
    case '/': case KEY_F(3): case KEY_F(4): v->lv = LV_NODES; v->filtering = true; set_focus(v); break;
    case 's': case '>': case KEY_F(6): set_sort(v, (int)v->sort + 1); break;
    case 'S': case '<': set_sort(v, (int)v->sort - 1); break;
    case 'r': case 'I': v->desc = !v->desc; rebuild(v); break;
    case 'p': case ' ':
        v->paused = !v->paused;
        gs_fleet_feed_pause(v->feed, v->paused);
        break;
    default: break;
    }
}

/* ---- the loop -------------------------------------------------------------- */

static void curses_start(struct fview *v)
{
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    v->color = !v->o->mono && !getenv("NO_COLOR") && has_colors();
    if (v->color) {
        start_color();
        use_default_colors();
        init_pair(P_BAD, COLOR_RED, -1);
        init_pair(P_WARN, COLOR_YELLOW, -1);
        init_pair(P_OK, COLOR_GREEN, -1);
        init_pair(P_HEAD, COLOR_BLACK, COLOR_CYAN);
        init_pair(P_TITLE, COLOR_WHITE, COLOR_BLUE);
    }
}

static void loop(struct fview *v)
{
    struct pollfd pf[2] = { { .fd = 0, .events = POLLIN }, { .fd = gs_fleet_feed_fd(v->feed), .events = POLLIN } };
    draw(v);
    while (!v->quit && !g_fleet_quit) {
        int n = poll(pf, 2, 1000);
        if (n < 0)
            continue;
        if (pf[1].revents & POLLIN && gs_fleet_feed_take(v->feed, &v->view))
            rebuild(v);
        int ch;
        while ((ch = getch()) != ERR && !v->quit)
            on_key(v, ch);
        draw(v);
    }
}

/* --batch: N refreshes printed as text (the node table, and --node's GPUs). */
static int run_batch(struct fview *v, struct gs_fleet_src *src, struct gs_err *err)
{
    struct gs_fleet_snap prev = { 0 };
    char buf[2048];
    int rc = 0;
    for (long k = 0; k < v->o->batch; k++) {
        if (k) {
            struct timespec ts = { (time_t)v->period_s, (long)((v->period_s - floor(v->period_s)) * 1e9) };
            nanosleep(&ts, NULL);
            prev = v->view;
            memset(&v->view, 0, sizeof(v->view));
            rc = gs_fleet_fetch(src, &prev, v->o->node, -1, &v->view, err);
            gs_fleet_snap_free(&prev);
            if (rc < 0)
                return rc;
        }
        rebuild(v);
        gs_fleet_status_line(&v->view, buf, sizeof(buf));
        printf("%s\n", buf);
        gs_fleet_header_line(buf, sizeof(buf), 160, v->sort, v->desc);
        printf("%s\n", buf);
        for (size_t i = 0; i < v->nidx; i++) {
            gs_fleet_node_line(&v->view.nodes[v->idx[i]], buf, sizeof(buf), 160);
            printf("%s\n", buf);
        }
        if (v->o->node) {
            gs_fleet_gpu_header(buf, sizeof(buf));
            printf("\nnode %s\n%s\n", v->o->node, buf);
            for (size_t i = 0; i < v->view.ngpus; i++) {
                gs_fleet_gpu_line(&v->view.gpus[i], buf, sizeof(buf), false);
                printf("%s\n", buf);
            }
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

static int first_refresh(struct fview *v, struct gs_fleet_src *src, struct gs_err *err)
{
    int rc = gs_fleet_fetch(src, NULL, v->o->node, -1, &v->view, err);
    if (rc < 0)
        return rc;
    if (v->view.n == 0)
        return gs_err_set(err, GS_E_NO_DEVICE, "no GPU series at %s%s%s: neither dcgm-exporter's nor gpuscope "
                          "serve's DCGM_FI_DEV_FB_USED", v->o->prometheus, v->o->match ? " matching " : "",
                          v->o->match ? v->o->match : "");
    return 0;
}

int gs_fleet_top_run(const struct gs_top_opts *o, struct gs_err *err)
{
    struct fview v = { .o = o, .sort = GS_FC_HOST, .gpu = -1 };
    struct gs_fleet_src src;
    struct gs_prom_opts po = { .url = o->prometheus, .config_path = o->prom_config, .match = o->match };
    int rc = gs_fleet_src_open(&src, &po, err);
    if (rc < 0)
        return rc;
    v.period_s = o->interval_set ? o->interval_ms / 1000.0 : src.api->scrape_interval_s(src.p);
    if (!(v.period_s >= 0.1))
        v.period_s = 15;
    if ((rc = first_refresh(&v, &src, err)) < 0)
        goto out_src;
    if (o->batch > 0) {
        rc = run_batch(&v, &src, err);
        goto out_src;
    }
    if (!isatty(0) || !isatty(1)) {
        rc = gs_err_set(err, GS_E_USAGE, "top --prometheus needs a terminal");
        gs_err_hint(err, "use --batch N for text output");
        goto out_src;
    }
    if ((rc = gs_fleet_feed_start(&v.feed, &src, &v.view, v.period_s, err)) < 0)
        goto out_src;
    if (o->node) {
        snprintf(v.host, sizeof(v.host), "%s", o->node);
        v.lv = LV_GPUS;
        set_focus(&v);
    }
    setlocale(LC_ALL, "");
    v.utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8") && !o->ascii;
    install_signals();
    curses_start(&v);
    rebuild(&v);
    loop(&v);
    endwin();
    gs_fleet_feed_stop(v.feed);
    gs_fleet_snap_free(&v.view);
    free(v.idx);
    return 0;
out_src:
    gs_fleet_src_close(&src);
    gs_fleet_snap_free(&v.view);
    free(v.idx);
    return rc;
}
