/* SPDX-License-Identifier: MIT */
/*
 * conf.h - the settings of `gpuscope top` and their file,
 * $XDG_CONFIG_HOME/gpuscope/top.conf (else ~/.config/gpuscope/top.conf):
 * "key = value" lines, '#' comments, unknown keys ignored.
 */
#ifndef GS_UI_CONF_H
#define GS_UI_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum gs_theme { GS_THEME_DARK, GS_THEME_LIGHT, GS_THEME_MONO, GS_THEME_COUNT };
extern const char *const gs_theme_names[GS_THEME_COUNT];

#define GS_INTERVAL_MIN_MS 100
#define GS_INTERVAL_MAX_MS 10000

struct gs_top_conf {
    uint32_t interval_ms;   /* refresh period, GS_INTERVAL_MIN_MS .. GS_INTERVAL_MAX_MS */
    int sort_col;           /* enum gs_col */
    bool sort_desc;
    bool tree;
    int theme;              /* enum gs_theme */
    int metric;             /* charted: index in gs_chart_metrics[] */
    bool chart;             /* show history charts */
    int layout;             /* enum gs_layout_pref */
    bool ascii;             /* ASCII-only glyphs */
};

void gs_top_conf_defaults(struct gs_top_conf *c);
/* Apply "key = value" text to c; returns the number of lines not understood. */
int gs_top_conf_parse(struct gs_top_conf *c, const char *text);
/* Render c as file text into buf. */
void gs_top_conf_format(const struct gs_top_conf *c, char *buf, size_t len);
/* The file's path into buf; -1 when neither XDG_CONFIG_HOME nor HOME is set. */
int gs_top_conf_path(char *buf, size_t len);
/* Load (missing file = defaults kept) and save (creating the directory). 0 or -1. */
int gs_top_conf_load(struct gs_top_conf *c, const char *path);
int gs_top_conf_save(const struct gs_top_conf *c, const char *path);
/* Next interval step up (+1) or down (-1) from ms, within the bounds. */
uint32_t gs_interval_step(uint32_t ms, int dir);

#endif /* GS_UI_CONF_H */
