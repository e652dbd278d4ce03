/* SPDX-License-Identifier: MIT */
/* term_signals.c - quit and crash signals for the curses views (term_signals.h). */
#include "ui/term_signals.h"

#include <curses.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t g_quit;
static volatile sig_atomic_t g_curses_on;

static void on_crash(int sig)
{
    if (g_curses_on)
        endwin();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_quit(int sig)
{
    (void)sig;
    g_quit = 1;
}

void gs_ui_signals_install(void)
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
    sigaction(SIGFPE, &sa, NULL);
}

bool gs_ui_quit_requested(void)
{
    return g_quit != 0;
}

void gs_ui_curses_set(bool on)
{
    g_curses_on = on;
}

bool gs_ui_curses_is_on(void)
{
    return g_curses_on != 0;
}
