/* SPDX-License-Identifier: MIT */
/*
 * put.c - writing text into the live view: gs_put() clipped to a width and drawn
 * in a role's colours, a whole line, one cell (ui.h); the cheap path for ASCII.
 */
#include <string.h>

#include "ui/ui.h"

/* ASCII text goes in as a chtype run (no multibyte decoding, no width lookups:
 * the cheap path for the ~10,000 cells of a frame); from the first non-ASCII
 * byte on, the rest through addnstr. Returns the cells used. */
int gs_put(struct gs_ui *ui, int y, int x, int w, enum gs_role r, const char *s)
{
    chtype run[512];
    int n = 0;

    if (w <= 0 || y < 0 || x < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    if (w > (int)(sizeof(run) / sizeof(run[0])))
        w = (int)(sizeof(run) / sizeof(run[0]));
    chtype a = ui->attr[r];
    for (; n < w && s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (c >= 0x80)
            break;
        run[n] = (c < 32 || c == 127 ? '?' : c) | a;
    }
    if (n)
        mvaddchnstr(y, x, run, n);
    if (!s[n] || n == w)
        return n;
    attrset(a);
    mvaddnstr(y, x + n, s + n, (int)strnlen(s + n, (size_t)(w - n)));
    attrset(A_NORMAL);
    int cx = getcurx(stdscr);
    /* a string ending exactly at the right margin leaves the cursor there */
    return (cx > x ? cx : x + w) - x;
}

/* A whole line: s from column 0, the rest of the line blank in the same role. */
void gs_put_line(struct gs_ui *ui, int y, enum gs_role r, const char *s)
{
    int n = gs_put(ui, y, 0, COLS, r, s);
    if (n < COLS && y >= 0 && y < LINES)
        mvhline(y, n, ' ' | ui->attr[r], COLS - n);
}

void gs_put_cell(struct gs_ui *ui, int y, int x, enum gs_role r, const char *cell)
{
    if (y < 0 || x < 0 || y >= LINES || x >= COLS)
        return;
    attrset(ui->attr[r]);
    mvaddstr(y, x, cell); /* one character, maybe several UTF-8 bytes */
    attrset(A_NORMAL);
}
