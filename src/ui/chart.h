/* SPDX-License-Identifier: MIT */
/*
 * chart.h - history charts rendered into a grid of cell strings (no curses),
 * with Unicode braille (2 samples x 4 dots per cell), Unicode blocks (1 sample
 * x 8 levels per cell) or plain ASCII (1 sample x 2 levels per cell).
 */
#ifndef GS_UI_CHART_H
#define GS_UI_CHART_H

#include <stdint.h>

enum gs_glyphs { GS_GLYPH_BRAILLE, GS_GLYPH_BLOCK, GS_GLYPH_ASCII };

#define GS_CELL_BYTES 4 /* one UTF-8 character (3 bytes here) plus NUL */

struct gs_grid {
    int w, h;
    char (*cell)[GS_CELL_BYTES]; /* h rows of w cells, row 0 at the top */
};

/* Samples a chart of w cells shows with these glyphs. */
int gs_chart_samples(int w, enum gs_glyphs g);
/* Draw vals (n values 0..100 or 255 = none, oldest first, right-aligned so the
 * newest is at the right edge) as an area chart into grid (w, h, cell set). */
void gs_chart_render(const uint8_t *vals, int n, enum gs_glyphs g, struct gs_grid *grid);
/* Join row y of the grid into out (for tests and plain drawing). */
void gs_grid_row(const struct gs_grid *grid, int y, char *out, int len);

#endif /* GS_UI_CHART_H */
