/* SPDX-License-Identifier: MIT */
/*
 * pytorch.c - the detail view's Python block (self-contained: panels.c calls
 * the two functions below, keys.c starts a stack fetch with 'p'): PyTorch's
 * allocator breakdown with a bar over the process's GPU memory, from gpuscope's
 * Python hook (cached by the sampler thread with its age), or what to do when
 * the process has no hook; then the threads' Python stacks once fetched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pyhook.h"
#include "ui/pystack.h"
#include "ui/ui.h"

static bool looks_python(const struct gs_proc *p, const char *cmdline)
{
    return strstr(p->comm, "python") || strstr(p->name, "python") || strstr(cmdline, "python");
}

/* Debian's austin, if on PATH. */
static const char *austin_path(void)
{
    static char found[256];
    static int known;
    if (!known) {
        const char *path = getenv("PATH");
        known = 1;
        for (const char *d = path ? path : "/usr/bin:/bin"; d && *d;) {
            size_t n = strcspn(d, ":");
            snprintf(found, sizeof(found), "%.*s/austin", (int)n, d);
            if (access(found, X_OK) == 0)
                return found;
            d += n + (d[n] == ':');
        }
        found[0] = '\0';
    }
    return found[0] ? found : NULL;
}

int gs_detail_pytorch(struct gs_ui *ui, const struct gs_proc *p, const char *cmdline, int y)
{
    char b[400], bar[128];
    if (gs_proc_has(p, GS_P_TORCH)) {
        snprintf(b, sizeof(b), "PyTorch allocator (gpuscope's Python hook, %.1f s old):", p->pyhook_age_ms / 1000.0);
        gs_put(ui, y++, 0, COLS, GS_R_LABEL, b);
        gs_pytorch_line(p, b, sizeof(b));
        gs_put(ui, y++, 2, COLS - 2, p->torch_ooms || p->torch_alloc_retries ? GS_R_WARN : GS_R_NORMAL, b);
        unsigned w = COLS > 40 ? (unsigned)(COLS - 40 < 80 ? COLS - 40 : 80) : 10;
        gs_pytorch_bar(p, bar, w);
        int x = 2;
        for (unsigned i = 0; i < w; i++) {
            const char *cell = bar[i] == '#' ? (ui->utf8 ? "\u2588" : "#") : bar[i] == '%' ? (ui->utf8 ? "\u2593" : "%")
                             : bar[i] == '=' ? (ui->utf8 ? "\u2592" : "=") : (ui->utf8 ? "\u2591" : ".");
            gs_put_cell(ui, y, x++, bar[i] == '.' ? GS_R_DIM : GS_R_CHART, cell);
        }
        snprintf(b, sizeof(b), " %s allocated %s split %s cache %s other", ui->utf8 ? "\u2588" : "#",
                 ui->utf8 ? "\u2593" : "%", ui->utf8 ? "\u2592" : "=", ui->utf8 ? "\u2591" : ".");
        gs_put(ui, y++, x, COLS - x, GS_R_LABEL, b);
        snprintf(b, sizeof(b), "  PYTORCH_CUDA_ALLOC_CONF=%s   p: Python stacks", p->torch_alloc_conf[0] ? p->torch_alloc_conf : "(unset)");
        gs_put(ui, y++, 0, COLS, GS_R_NORMAL, b);
        return y;
    }
    if (gs_proc_has(p, GS_P_PYHOOK)) {
        enum gs_pyhook_state st = (enum gs_pyhook_state)p->pyhook_state;
        snprintf(b, sizeof(b), "Python hook: %s   p: Python stacks",
                 st == GS_PYHOOK_ST_NO_TORCH ? "present, torch not imported"
                 : st == GS_PYHOOK_ST_NO_CUDA ? "present, torch imported, CUDA not initialized"
                                              : "present, PyTorch has no memory on this GPU");
        gs_put(ui, y++, 0, COLS, GS_R_LABEL, b);
        return y;
    }
    if (p->pyhook_state == GS_PYHOOK_ST_ERROR) {
        gs_put(ui, y++, 0, COLS, GS_R_WARN, "Python hook: its socket is there but it did not answer   p: try again");
        return y;
    }
    if (looks_python(p, cmdline)) {
        snprintf(b, sizeof(b), "No PyTorch breakdown: the process has no gpuscope Python hook (start it with `gpuscope "
                 "run --python -- ...` or after `eval \"$(gpuscope pyhook env)\"`)%s",
                 austin_path() ? ".  p: sample its stacks with austin" : "");
        gs_put(ui, y++, 0, COLS, GS_R_DIM, b);
    }
    return y;
}

void gs_detail_fetch_stacks(struct gs_ui *ui, const struct gs_proc *p)
{
    gs_pystack_fetch(&ui->pystack, p->pid, gs_proc_has(p, GS_P_USER) ? p->uid : (uint32_t)getuid(), austin_path());
}

/* The fetched stacks (or the fetch in flight) in place of the environment; true if shown. */
bool gs_detail_stacks(struct gs_ui *ui, uint32_t pid, int y)
{
    struct gs_pystack *ps = ui->pystack;
    char b[200];
    if (!ps)
        return false;
    pthread_mutex_lock(&ps->mu);
    if (ps->pid != pid) {
        pthread_mutex_unlock(&ps->mu);
        return false;
    }
    if (ps->running) {
        gs_put(ui, y, 0, COLS, GS_R_LABEL, "Python stacks: fetching...");
    } else {
        struct tm tm;
        localtime_r(&ps->at, &tm);
        snprintf(b, sizeof(b), "Python stacks (%02d:%02d:%02d, from %s; p: again, Up/Down scrolls):", tm.tm_hour,
                 tm.tm_min, tm.tm_sec, ps->source);
        gs_put(ui, y++, 0, COLS, GS_R_LABEL, b);
        const char *t = ps->text ? ps->text : "";
        for (int skip = 0; skip < ui->det.scroll && *t; skip++)
            t += strcspn(t, "\n") + (t[strcspn(t, "\n")] == '\n');
        while (*t && y < LINES) {
            size_t n = strcspn(t, "\n");
            char line[512];
            snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) - 1 ? n : sizeof(line) - 1), t);
            gs_put(ui, y++, 2, COLS - 2, GS_R_NORMAL, line);
            t += n + (t[n] == '\n');
        }
    }
    pthread_mutex_unlock(&ps->mu);
    return true;
}
