/* SPDX-License-Identifier: MIT */
/*
 * keys.h - key and mouse handling of `gpuscope top`, one function per mode.
 */
#ifndef GS_UI_KEYS_H
#define GS_UI_KEYS_H

#include <stdbool.h>

struct gs_ui;

/* Read every pending key (non-blocking) and act on it; true if anything changed. */
bool gs_keys_drain(struct gs_ui *ui);
/* Helpers keys.c needs from top.c. */
void gs_ui_relayout(struct gs_ui *ui);
void gs_ui_note_selection(struct gs_ui *ui);

#endif /* GS_UI_KEYS_H */
