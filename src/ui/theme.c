/* SPDX-License-Identifier: MIT */
/*
 * theme.c - colour themes of `gpuscope top`: dark, light and monochrome
 * (chosen by the user, --mono, NO_COLOR, or a terminal without colours).
 */
#include <stdlib.h>

#include "ui/ui.h"

static void theme_mono(struct gs_ui *ui)
{
    chtype *a = ui->attr;
    a[GS_R_NORMAL] = A_NORMAL;
    a[GS_R_TITLE] = A_BOLD;
    a[GS_R_LABEL] = A_NORMAL;
    a[GS_R_OK] = A_BOLD;
    a[GS_R_WARN] = A_BOLD;
    a[GS_R_BAD] = A_BOLD | A_REVERSE;
    a[GS_R_DIM] = A_DIM;
    a[GS_R_HEADER] = A_REVERSE;
    a[GS_R_SORTED] = A_REVERSE | A_BOLD;
    a[GS_R_SELECT] = A_REVERSE;
    a[GS_R_SIM] = A_BOLD | A_REVERSE;
    a[GS_R_CHART] = A_NORMAL;
}

static void theme_colors(struct gs_ui *ui, bool light)
{
    short fg_label = light ? COLOR_BLUE : COLOR_CYAN;
    short ok = COLOR_GREEN, warn = light ? COLOR_MAGENTA : COLOR_YELLOW;

    init_pair(1, fg_label, -1);
    init_pair(2, ok, -1);
    init_pair(3, warn, -1);
    init_pair(4, COLOR_RED, -1);
    init_pair(5, COLOR_BLACK, light ? COLOR_CYAN : COLOR_GREEN);
    init_pair(6, COLOR_WHITE, COLOR_MAGENTA);
    init_pair(7, COLOR_BLACK, COLOR_CYAN);
    chtype *a = ui->attr;
    a[GS_R_NORMAL] = A_NORMAL;
    a[GS_R_TITLE] = A_BOLD;
    a[GS_R_LABEL] = COLOR_PAIR(1);
    a[GS_R_OK] = COLOR_PAIR(2);
    a[GS_R_WARN] = COLOR_PAIR(3) | A_BOLD;
    a[GS_R_BAD] = COLOR_PAIR(4) | A_BOLD;
    a[GS_R_DIM] = A_DIM;
    a[GS_R_HEADER] = COLOR_PAIR(5);
    a[GS_R_SORTED] = COLOR_PAIR(7) | A_BOLD;
    a[GS_R_SELECT] = COLOR_PAIR(7);
    a[GS_R_SIM] = COLOR_PAIR(6) | A_BOLD;
    a[GS_R_CHART] = COLOR_PAIR(1);
}

void gs_theme_apply(struct gs_ui *ui)
{
    bool mono = ui->force_mono || !ui->color_ok || ui->conf.theme == GS_THEME_MONO;

    if (mono)
        theme_mono(ui);
    else
        theme_colors(ui, ui->conf.theme == GS_THEME_LIGHT);
}
