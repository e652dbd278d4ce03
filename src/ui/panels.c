/* SPDX-License-Identifier: MIT */
/*
 * panels.c - the full-screen panels of `gpuscope top`: help, per-process
 * details (command line, environment, cgroup read from /proc on demand, GPU
 * memory growth, the health findings about it), the findings list (H) and
 * the signal dialog.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/ui.h"
#include "lib/roots.h"

/* One entry per key group; the text wraps to the terminal's width. */
static const struct {
    const char *keys;   /* "" = a paragraph without a key column */
    const char *text;
} help_items[] = {
    { "? F1 h", "this help (Up/Down/PgUp/PgDn scroll it when the terminal is short)" },
    { "q F10", "quit" },
    { "Up Down PgUp PgDn Home End", "select a process (mouse: click a row, wheel scrolls)" },
    { "Enter", "process details: command line, environment, cgroup, memory growth, health findings, PyTorch's "
               "allocator breakdown (gpuscope's Python hook); there p fetches the Python stacks" },
    { "H", "health: every current finding of the health engine (as gpuscope doctor reports them) "
           "with its evidence and what to do" },
    { "k F9", "send a signal (TERM, KILL, INT; g = to the whole process group); asks first" },
    { "/ F3 F4", "filter: text, user:NAME, gpu:N, pid:N, type:c|g|m (Enter keeps, Esc clears)" },
    { "t F5", "tree view: processes under their parent process" },
    { "s F6 > <", "next / previous sort column (mouse: click a column header, again to reverse)" },
    { "r I", "reverse the sort order" },
    { "+ -", "refresh interval up / down (100 ms .. 10 s)" },
    { "p Space", "pause / resume" },
    { "g", "chart metric: util, mem, temp, power" },
    { "G", "charts on / off" },
    { "l F2", "layout: auto, full, compact, one line per GPU" },
    { "c", "colour theme: dark, light, mono" },
    { "a", "ASCII / Unicode glyphs" },
    { "Ctrl-L", "redraw the screen" },
    { "", "" },
    { "", "Badges: GPU LOST (fell off the bus; last values greyed), Xid NN (the latest Xid "
          "since top started, in words), ECC (uncorrectable errors), throttled: (why the "
          "clocks are held down), and the GPU's worst health finding in words (HW slowdown, "
          "memory leak pid N, row remap pending ...; red critical, yellow warning; +N more: "
          "press H)." },
    { "", "Settings are saved on exit to $XDG_CONFIG_HOME/gpuscope/top.conf. NO_COLOR or "
          "--mono gives a monochrome screen; --ascii avoids Unicode glyphs." },
};

/* How many bytes of t make the next line of at most room cells, broken at a
 * space when there is one (ASCII text: bytes are cells). */
static int wrap_len(const char *t, int room)
{
    int len = (int)strlen(t);
    if (len <= room)
        return len;
    for (len = room; len > 0 && t[len] != ' '; len--)
        ;
    return len ? len : room;
}

#define HELP_KEYS_W 16 /* key column; narrower terminals put the keys on their own line */

/* Call line(y_index, indent, text, len) for every display line of the help at width w;
 * returns the number of lines. */
static int help_layout(int w, void (*line)(void *, int, int, const char *, int), void *arg)
{
    int n = 0;
    for (size_t i = 0; i < sizeof(help_items) / sizeof(help_items[0]); i++) {
        const char *k = help_items[i].keys, *t = help_items[i].text;
        int ind = k[0] ? HELP_KEYS_W : 0;
        if (k[0] && ((int)strlen(k) >= HELP_KEYS_W - 1 || w < HELP_KEYS_W + 20)) {
            if (line)
                line(arg, n, 0, k, (int)strlen(k));
            n++;
            k = "";
            ind = w < HELP_KEYS_W + 20 ? 4 : HELP_KEYS_W;
        }
        if (!*t) {
            n++;
            continue;
        }
        bool first = true;
        while (*t) { /* wrap at spaces to w - ind cells (ASCII text: bytes are cells) */
            int len = wrap_len(t, w - ind > 10 ? w - ind : 10);
            if (line) {
                if (first && k[0])
                    line(arg, n, 0, k, (int)strlen(k));
                line(arg, n, ind, t, len);
            }
            n++;
            first = false;
            t += len;
            while (*t == ' ')
                t++;
        }
    }
    return n;
}

struct help_draw {
    struct gs_ui *ui;
    int first, rows;    /* display lines [first, first + rows) go on screen lines 1.. */
};

static void help_line(void *arg, int n, int x, const char *s, int len)
{
    struct help_draw *h = arg;
    char b[256];
    if (n < h->first || n >= h->first + h->rows)
        return;
    snprintf(b, sizeof(b), "%.*s", len, s);
    gs_put(h->ui, 1 + n - h->first, 1 + x, COLS - 1 - x, x ? GS_R_NORMAL : GS_R_LABEL, b);
}

/* Lines of help below the title and above the status line. */
static int help_rows(void)
{
    return LINES - 2 > 1 ? LINES - 2 : 1;
}

int gs_help_scroll_max(void)
{
    int n = help_layout(COLS - 2, NULL, NULL);
    return n > help_rows() ? n - help_rows() : 0;
}

void gs_draw_help(struct gs_ui *ui)
{
    char b[120];
    int max = gs_help_scroll_max();
    struct help_draw h = { ui, 0, help_rows() };

    if (ui->help_top > max)
        ui->help_top = max;
    if (ui->help_top < 0)
        ui->help_top = 0;
    h.first = ui->help_top;
    erase();
    gs_put(ui, 0, 1, COLS - 1, GS_R_TITLE, "gpuscope top - keys");
    help_layout(COLS - 2, help_line, &h);
    if (max)
        snprintf(b, sizeof(b), "[%d-%d/%d] Space/Down: more  Up: back  other keys: return",
                 ui->help_top + 1, ui->help_top + h.rows, max + h.rows);
    else
        snprintf(b, sizeof(b), "Press any key to return.");
    gs_put(ui, LINES - 1, 1, COLS - 1, GS_R_DIM, b);
}

/* ---- detail view --------------------------------------------------------------------- */

/* Read /proc/PID/name into buf (NUL-terminated); returns bytes read or -1. */
static ssize_t read_proc(uint32_t pid, const char *name, char *buf, size_t len)
{
    char path[256];
    if (gs_path(path, sizeof(path), "%s/%u/%s", gs_proc_root_env(NULL), pid, name) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t used = 0;
    ssize_t n;
    while (used < len - 1 && (n = read(fd, buf + used, len - 1 - used)) > 0)
        used += (size_t)n;
    close(fd);
    buf[used] = '\0';
    return (ssize_t)used;
}

static bool env_interesting(const char *v)
{
    static const char *const pre[] = { "CUDA_", "NVIDIA_", "NCCL_", "GPU_", "ROCR_", "HIP_",
                                       "OMP_", "SLURM_", "KUBERNETES_", "PYTORCH_", "TF_" };
    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
        if (!strncmp(v, pre[i], strlen(pre[i])))
            return true;
    return false;
}

/* environ (NUL-separated) -> lines, interesting variables first. */
static void detail_env(struct gs_detail *d, const char *raw, size_t n)
{
    size_t used = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i += strlen(raw + i) + 1) {
            const char *v = raw + i;
            if (!*v || env_interesting(v) != (pass == 0))
                continue;
            int k = snprintf(d->env + used, sizeof(d->env) - used, "%s\n", v);
            if (k < 0 || (size_t)k >= sizeof(d->env) - used)
                return;
            used += (size_t)k;
        }
}

void gs_detail_open(struct gs_ui *ui)
{
    const struct gs_row *row = gs_ui_selected(ui);
    struct gs_detail *d = &ui->det;
    static char raw[65536];

    if (!row)
        return;
    memset(d, 0, sizeof(*d));
    d->pid = row->p->pid;
    d->gpu = row->gpu;
    ssize_t n = read_proc(d->pid, "cmdline", d->cmdline, sizeof(d->cmdline));
    for (ssize_t i = 0; i + 1 < n; i++)
        if (!d->cmdline[i])
            d->cmdline[i] = ' ';
    if (n < 0)
        snprintf(d->cmdline, sizeof(d->cmdline), "%s  (from the snapshot: /proc unreadable)",
                 row->cmd);
    n = read_proc(d->pid, "environ", raw, sizeof(raw));
    if (n < 0)
        snprintf(d->env, sizeof(d->env), "(cannot read %s/%u/environ: %s)\n", gs_proc_root_env(NULL),
                 d->pid, strerror(errno));
    else
        detail_env(d, raw, (size_t)n);
    if (read_proc(d->pid, "cgroup", d->cgroup, sizeof(d->cgroup)) < 0)
        snprintf(d->cgroup, sizeof(d->cgroup), "(unreadable)");
    ui->mode = GS_MODE_DETAIL;
}

static int put_wrapped(struct gs_ui *ui, int y, int indent, const char *s, int max_y)
{
    int w = COLS - indent - 1;
    while (*s && y < max_y && w > 0) {
        size_t nl = strcspn(s, "\n");
        size_t take = nl < (size_t)w ? nl : (size_t)w;
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)take, s);
        gs_put(ui, y++, indent, w, GS_R_NORMAL, line);
        s += take;
        if (*s == '\n')
            s++;
    }
    return y;
}

static void detail_growth(struct gs_ui *ui, int y)
{
    struct gs_detail *d = &ui->det;
    uint32_t mib[GS_PMEM_SLOTS];
    char b[200];
    uint32_t n = gs_pmem_series(&ui->pmem, d->pid, d->gpu, mib);

    if (n < 2) {
        gs_put(ui, y, 0, COLS, GS_R_LABEL, "GPU memory growth: collecting (one point every 5 s)");
        return;
    }
    long delta = (long)mib[n - 1] - (long)mib[0];
    unsigned span = (n - 1) * GS_PMEM_STEP_S;
    snprintf(b, sizeof(b), "GPU memory, last %um%02us: %u MiB -> %u MiB (%+ld MiB, %+.1f MiB/s)",
             span / 60, span % 60, mib[0], mib[n - 1], delta, (double)delta / span);
    gs_put(ui, y, 0, COLS, GS_R_LABEL, b);
    uint32_t top = 1;
    for (uint32_t i = 0; i < n; i++)
        top = mib[i] > top ? mib[i] : top;
    uint8_t vals[GS_PMEM_SLOTS];
    for (uint32_t i = 0; i < n; i++)
        vals[i] = (uint8_t)(mib[i] * 100ull / top);
    char cells[GS_PMEM_SLOTS][GS_CELL_BYTES];
    struct gs_grid g = { (int)n, 1, cells };
    gs_chart_render(vals, (int)n, ui->glyphs == GS_GLYPH_ASCII ? GS_GLYPH_ASCII : GS_GLYPH_BLOCK, &g);
    for (int x = 0; x < g.w; x++)
        gs_put_cell(ui, y + 1, 2 + x, GS_R_CHART, cells[x]);
}

static enum gs_role finding_role(uint8_t sev)
{
    return sev >= GS_SEV_CRITICAL ? GS_R_BAD : sev == GS_SEV_WARNING ? GS_R_WARN : GS_R_LABEL;
}

/* The health findings about the detail view's process, with their evidence. */
static int detail_findings(struct gs_ui *ui, int y)
{
    const struct gs_detail *d = &ui->det;
    char b[900];
    for (size_t i = 0; i < ui->findings.n && y < LINES - 6; i++) {
        const struct gs_finding *f = &ui->findings.v[i];
        if (f->pid != d->pid)
            continue;
        snprintf(b, sizeof(b), "Health: %s %s", gs_sev_name((enum gs_sev)f->severity), f->title);
        gs_put(ui, y++, 0, COLS, finding_role(f->severity), b);
        snprintf(b, sizeof(b), "%s. Action: %s", f->evidence, f->action);
        y = put_wrapped(ui, y, 2, b, LINES - 6);
    }
    return y;
}

void gs_draw_detail(struct gs_ui *ui)
{
    struct gs_detail *d = &ui->det;
    long k = gs_rows_find(&ui->rows, d->pid, d->gpu);
    char b[300], t1[16], t2[16], t3[16];
    int y = 0;

    erase();
    if (d->gpu == GS_ROW_NO_GPU)
        snprintf(b, sizeof(b), "Process %u, parent of GPU processes, not on a GPU itself%s   "
                 "(Esc/Enter: back, k: signal, p: Python stacks)", d->pid, k < 0 ? "  [gone]" : "");
    else
        snprintf(b, sizeof(b), "Process %u on GPU %u%s   (Esc/Enter: back, k: signal, p: Python stacks)", d->pid,
                 d->gpu < ui->view.ngpus ? ui->view.gpus[d->gpu].st.index : d->gpu,
                 k < 0 ? "  [no longer on the GPU]" : "");
    gs_put(ui, y++, 0, COLS, GS_R_TITLE, b);
    if (k >= 0 && ui->rows.v[k].p->host_vis != GS_HOST_VISIBLE) {
        const struct gs_proc *p = ui->rows.v[k].p;
        snprintf(b, sizeof(b), "GPU memory %s  SM %u%%  (no host facts: the process is not visible "
                 "from here, e.g. another PID namespace; run gpuscope on the host or with --pid=host)",
                 gs_fmt_bytes(p->gpu_mem_bytes, t1, sizeof(t1)), p->sm_util_pct);
        y = put_wrapped(ui, y, 0, b, LINES);
    } else if (k >= 0) {
        const struct gs_proc *p = ui->rows.v[k].p;
        snprintf(b, sizeof(b), "user %s  GPU memory %s  SM %u%%  CPU %.1f%%  host memory %s  running %s  parent %u  group %u",
                 p->user, gs_fmt_bytes(p->gpu_mem_bytes, t1, sizeof(t1)), p->sm_util_pct, p->cpu_pct,
                 gs_fmt_bytes(p->rss_bytes, t2, sizeof(t2)), gs_fmt_age(p->age_s, t3, sizeof(t3)),
                 p->ppid, p->pgid);
        y = put_wrapped(ui, y, 0, b, LINES);
        if (p->container_id[0] || p->pod_uid[0]) {
            snprintf(b, sizeof(b), "container %s %.12s  pod %s", p->container_runtime,
                     p->container_id, p->pod_uid[0] ? p->pod_uid : "-");
            gs_put(ui, y++, 0, COLS, GS_R_NORMAL, b);
        }
    }
    detail_growth(ui, y++);
    y += 2;
    if (k >= 0)
        y = gs_detail_pytorch(ui, ui->rows.v[k].p, ui->rows.v[k].cmd, y);
    y = detail_findings(ui, y);
    gs_put(ui, y++, 0, COLS, GS_R_LABEL, "Command line:");
    y = put_wrapped(ui, y, 2, d->cmdline, LINES - 4);
    gs_put(ui, y++, 0, COLS, GS_R_LABEL, "Cgroup:");
    y = put_wrapped(ui, y, 2, d->cgroup, LINES - 3);
    if (gs_detail_stacks(ui, d->pid, y))
        return; /* the stacks, once asked for, in place of the environment */
    gs_put(ui, y++, 0, COLS, GS_R_LABEL, "Environment (CUDA_*, NVIDIA_*, NCCL_* first; Up/Down scrolls):");
    const char *e = d->env;
    for (int skip = 0; skip < d->scroll && *e; skip++)
        e += strcspn(e, "\n") + (e[strcspn(e, "\n")] == '\n');
    put_wrapped(ui, y, 2, e, LINES);
}

/* ---- the findings list (H) ------------------------------------------------------------ */

/* Call line(arg, n, x, role, text) for each display line of the findings; returns the count. */
static int health_layout(const struct gs_ui *ui, void (*line)(void *, int, int, enum gs_role, const char *),
                         void *arg)
{
    char b[1200];
    int n = 0;
    if (ui->findings.lost) {
        snprintf(b, sizeof(b), "Out of memory: %zu finding%s of the health engine could not be kept, so this "
                               "list is incomplete.", ui->findings.lost, ui->findings.lost == 1 ? "" : "s");
        if (line)
            line(arg, n, 0, GS_R_BAD, b);
        n++;
    }
    if (!ui->findings.n && !ui->findings.lost) {
        if (line)
            line(arg, n, 0, GS_R_OK, "No problems found by the health engine (window: since top started, "
                                     "throttling and job means over the last minute).");
        return 1;
    }
    for (size_t i = 0; i < ui->findings.n; i++) {
        const struct gs_finding *f = &ui->findings.v[i];
        const char *parts[3] = { f->evidence, f->cause, f->action };
        const char *names[3] = { "evidence", "cause", "action" };
        snprintf(b, sizeof(b), "%-8s %s  [%s]", gs_sev_name((enum gs_sev)f->severity), f->title, f->code);
        if (line)
            line(arg, n, 0, finding_role(f->severity), b);
        n++;
        for (int k = 0; k < 3; k++) {
            if (!parts[k][0])
                continue;
            snprintf(b, sizeof(b), "%s: %s", names[k], parts[k]);
            const char *t = b;
            int room = COLS - 12 > 20 ? COLS - 12 : 20;
            while (*t) { /* wrap at spaces */
                int len = wrap_len(t, room);
                char seg[256];
                snprintf(seg, sizeof(seg), "%.*s", len < 255 ? len : 255, t);
                if (line)
                    line(arg, n, 9, GS_R_NORMAL, seg);
                n++;
                t += len;
                while (*t == ' ')
                    t++;
            }
        }
    }
    return n;
}

struct health_draw {
    struct gs_ui *ui;
    int first, rows;
};

static void health_line(void *arg, int n, int x, enum gs_role r, const char *s)
{
    struct health_draw *h = arg;
    if (n >= h->first && n < h->first + h->rows)
        gs_put(h->ui, 1 + n - h->first, 1 + x, COLS - 1 - x, r, s);
}

int gs_health_scroll_max(const struct gs_ui *ui)
{
    int n = health_layout(ui, NULL, NULL);
    return n > help_rows() ? n - help_rows() : 0;
}

void gs_draw_health(struct gs_ui *ui)
{
    char b[160];
    int max = gs_health_scroll_max(ui);
    struct health_draw h = { ui, 0, help_rows() };

    if (ui->health_top > max)
        ui->health_top = max;
    h.first = ui->health_top < 0 ? 0 : ui->health_top;
    erase();
    snprintf(b, sizeof(b), "gpuscope top - health: %zu finding%s (as 'gpuscope doctor' reports them)",
             ui->findings.n, ui->findings.n == 1 ? "" : "s");
    gs_put(ui, 0, 1, COLS - 1, GS_R_TITLE, b);
    health_layout(ui, health_line, &h);
    if (max)
        snprintf(b, sizeof(b), "[%d-%d/%d] Space/Down: more  Up: back  other keys: return", h.first + 1,
                 h.first + h.rows, max + h.rows);
    else
        snprintf(b, sizeof(b), "Press any key to return.");
    gs_put(ui, LINES - 1, 1, COLS - 1, GS_R_DIM, b);
}

/* ---- signals ---------------------------------------------------------------------------- */

static const struct {
    int sig;
    const char *name;
} sigs[] = { { SIGTERM, "SIGTERM" }, { SIGKILL, "SIGKILL" }, { SIGINT, "SIGINT" } };

void gs_draw_signal(struct gs_ui *ui)
{
    int w = COLS < 76 ? COLS : 76, h = 7;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;
    char b[200];

    for (int y = 0; y < h; y++) {
        attrset(ui->attr[GS_R_SELECT]);
        mvhline(y0 + y, x0, ' ', w);
    }
    snprintf(b, sizeof(b), " Send a signal to %s %u (%.16s)", ui->sig_group ? "process group" : "PID",
             ui->sig_group ? ui->sig_pgid : ui->sig_pid, ui->sig_comm[0] ? ui->sig_comm : "?");
    gs_put(ui, y0 + 1, x0, w, GS_R_SELECT, b);
    for (int i = 0; i < 3; i++) {
        snprintf(b, sizeof(b), "%s[%c] %s", i == ui->sig_choice ? ">" : " ", "tki"[i], sigs[i].name);
        gs_put(ui, y0 + 3, x0 + 2 + i * 16, 15, i == ui->sig_choice ? GS_R_SORTED : GS_R_SELECT, b);
    }
    snprintf(b, sizeof(b), " [g] whole process group: %s", ui->sig_group ? "yes" : "no");
    gs_put(ui, y0 + 4, x0, w, GS_R_SELECT, b);
    snprintf(b, sizeof(b), " Send %s? y/Enter = send, n/Esc = cancel", sigs[ui->sig_choice].name);
    gs_put(ui, y0 + 5, x0, w, GS_R_SELECT, b);
}

int gs_signal_send(struct gs_ui *ui)
{
    uint32_t id = ui->sig_group ? ui->sig_pgid : ui->sig_pid;
    const char *what = ui->sig_group ? "process group" : "PID";
    const char *name = sigs[ui->sig_choice].name;

    if (id <= 1) {
        gs_ui_message(ui, "refusing to signal %s %u", what, id);
        return -1;
    }
    pid_t target = ui->sig_group ? -(pid_t)id : (pid_t)id;
    if (kill(target, sigs[ui->sig_choice].sig) < 0) {
        gs_ui_message(ui, "%s to %s %u failed: %s", name, what, id, strerror(errno));
        return -1;
    }
    gs_ui_message(ui, "sent %s to %s %u", name, what, id);
    return 0;
}
