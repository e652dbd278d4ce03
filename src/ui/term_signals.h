/* SPDX-License-Identifier: MIT */
/*
 * term_signals.h - the terminal comes back whatever ends a curses view (top
 * and the fleet's top): SIGINT, SIGTERM and SIGHUP ask the loop to quit;
 * SIGSEGV, SIGABRT, SIGBUS and SIGFPE restore the terminal (endwin, when
 * curses is on) and re-raise, so the crash still dumps and exits as it would.
 */
#ifndef GS_UI_TERM_SIGNALS_H
#define GS_UI_TERM_SIGNALS_H

#include <stdbool.h>

void gs_ui_signals_install(void);
/* A quit signal arrived since the start. */
bool gs_ui_quit_requested(void);
/* Whether curses owns the terminal now (the crash handler calls endwin only then). */
void gs_ui_curses_set(bool on);
bool gs_ui_curses_is_on(void);

#endif
