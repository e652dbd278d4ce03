/* SPDX-License-Identifier: MIT */
/*
 * chart.c - area charts into a cell grid: braille, blocks or ASCII.
 */
#include <string.h>

#include "ui/chart.h"

int gs_chart_samples(int w, enum gs_glyphs g)
{
    return g == GS_GLYPH_BRAILLE ? 2 * w : w;
}

/* Units of height a value fills in a chart of h cells with `per` levels each. */
static int level(uint8_t v, int h, int per)
{
    if (v > 100)
        return -1;
    int full = h * per;
    int lv = (v * full + 50) / 100;
    return v > 0 && lv == 0 ? 1 : lv; /* anything non-zero shows a dot */
}

static void put_braille(char *cell, unsigned bits)
{
    unsigned cp = 0x2800 + bits;
    cell[0] = (char)(0xE0 | (cp >> 12));
    cell[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    cell[2] = (char)(0x80 | (cp & 0x3F));
    cell[3] = '\0';
}

/* Dot bits of a braille column filled `n` dots (0..4) from the bottom. */
static unsigned braille_col(int n, int right)
{
    static const unsigned left_bits[4] = { 0x40, 0x04, 0x02, 0x01 };  /* bottom to top */
    static const unsigned right_bits[4] = { 0x80, 0x20, 0x10, 0x08 };
    unsigned b = 0;
    for (int i = 0; i < n && i < 4; i++)
        b |= right ? right_bits[i] : left_bits[i];
    return b;
}

static int clamp_fill(int lv, int y_from_bottom, int per)
{
    int n = lv - y_from_bottom * per;
    return n < 0 ? 0 : n > per ? per : n;
}

static void render_braille(const int *lv, const struct gs_grid *g)
{
    for (int x = 0; x < g->w; x++)
        for (int y = 0; y < g->h; y++) {
            int yb = g->h - 1 - y;
            unsigned bits = 0;
            if (lv[2 * x] >= 0)
                bits |= braille_col(clamp_fill(lv[2 * x], yb, 4), 0);
            if (lv[2 * x + 1] >= 0)
                bits |= braille_col(clamp_fill(lv[2 * x + 1], yb, 4), 1);
            if (bits)
                put_braille(g->cell[y * g->w + x], bits);
        }
}

static void render_blocks(const int *lv, const struct gs_grid *g)
{
    for (int x = 0; x < g->w; x++)
        for (int y = 0; y < g->h; y++) {
            int n = lv[x] < 0 ? 0 : clamp_fill(lv[x], g->h - 1 - y, 8);
            if (n) /* U+2581 .. U+2588: lower one eighth .. full block */
                put_braille(g->cell[y * g->w + x], 0x2581 - 0x2800 + (unsigned)n - 1);
        }
}

static void render_ascii(const int *lv, const struct gs_grid *g)
{
    for (int x = 0; x < g->w; x++)
        for (int y = 0; y < g->h; y++) {
            int n = lv[x] < 0 ? 0 : clamp_fill(lv[x], g->h - 1 - y, 2);
            if (n)
                g->cell[y * g->w + x][0] = n == 2 ? '#' : '.';
        }
}

void gs_chart_render(const uint8_t *vals, int n, enum gs_glyphs glyphs, struct gs_grid *grid)
{
    int ns = gs_chart_samples(grid->w, glyphs);
    int per = glyphs == GS_GLYPH_BRAILLE ? 4 : glyphs == GS_GLYPH_BLOCK ? 8 : 2;
    int lv[2 * 512];

    if (ns > (int)(sizeof(lv) / sizeof(lv[0])))
        ns = (int)(sizeof(lv) / sizeof(lv[0]));
    for (int i = 0; i < grid->w * grid->h; i++) {
        grid->cell[i][0] = ' ';
        grid->cell[i][1] = '\0';
    }
    for (int i = 0; i < ns; i++) { /* right-align: the newest sample at the right edge */
        int k = n - ns + i;
        lv[i] = k < 0 ? -1 : level(vals[k], grid->h, per);
    }
    if (glyphs == GS_GLYPH_BRAILLE)
        render_braille(lv, grid);
    else if (glyphs == GS_GLYPH_BLOCK)
        render_blocks(lv, grid);
    else
        render_ascii(lv, grid);
}

void gs_grid_row(const struct gs_grid *grid, int y, char *out, int len)
{
    int used = 0;
    if (len <= 0)
        return;
    out[0] = '\0';
    for (int x = 0; x < grid->w; x++) {
        const char *c = grid->cell[y * grid->w + x];
        int cl = (int)strlen(c);
        if (used + cl >= len)
            break;
        memcpy(out + used, c, (size_t)cl + 1);
        used += cl;
    }
}
