/* SPDX-License-Identifier: MIT */
/*
 * conf.c - load and save the settings of `gpuscope top`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ui/conf.h"
#include "ui/fmt.h"
#include "ui/hist.h"
#include "ui/rows.h"

const char *const gs_theme_names[GS_THEME_COUNT] = { "dark", "light", "mono" };

void gs_top_conf_defaults(struct gs_top_conf *c)
{
    *c = (struct gs_top_conf){
        .interval_ms = 1000, .sort_col = GS_COL_GMEM, .sort_desc = true, .tree = false,
        .theme = GS_THEME_DARK, .metric = 0 /* util */, .chart = true, .layout = GS_LAYOUT_AUTO,
        .ascii = false,
    };
}

static int name_index(const char *const *names, int n, const char *v)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], v))
            return i;
    return -1;
}

static int parse_bool(const char *v)
{
    if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on"))
        return 1;
    if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off"))
        return 0;
    return -1;
}

static int apply_kv(struct gs_top_conf *c, const char *k, const char *v)
{
    int i;
    char *end;

    if (!strcmp(k, "interval_ms")) {
        long ms = strtol(v, &end, 10);
        if (*end || ms < GS_INTERVAL_MIN_MS || ms > GS_INTERVAL_MAX_MS)
            return -1;
        c->interval_ms = (uint32_t)ms;
    } else if (!strcmp(k, "sort")) {
        if ((i = gs_col_by_key(v)) < 0)
            return -1;
        c->sort_col = i;
    } else if (!strcmp(k, "theme")) {
        if ((i = name_index(gs_theme_names, GS_THEME_COUNT, v)) < 0)
            return -1;
        c->theme = i;
    } else if (!strcmp(k, "chart_metric")) {
        if ((i = gs_chart_metric_index(v)) < 0)
            return -1;
        c->metric = i;
    } else if (!strcmp(k, "layout")) {
        if ((i = name_index(gs_layout_names, GS_LAYOUT_PREF_COUNT, v)) < 0)
            return -1;
        c->layout = i;
    } else {
        bool *b = !strcmp(k, "sort_desc") ? &c->sort_desc : !strcmp(k, "tree") ? &c->tree
                : !strcmp(k, "chart") ? &c->chart : !strcmp(k, "ascii") ? &c->ascii : NULL;
        if (!b || (i = parse_bool(v)) < 0)
            return -1;
        *b = i;
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

int gs_top_conf_parse(struct gs_top_conf *c, const char *text)
{
    char line[256];
    int bad = 0;

    while (*text) {
        size_t n = strcspn(text, "\n");
        size_t k = n < sizeof(line) - 1 ? n : sizeof(line) - 1;
        memcpy(line, text, k);
        line[k] = '\0';
        text += n + (text[n] == '\n');
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            bad++;
            continue;
        }
        *eq = '\0';
        if (apply_kv(c, trim(s), trim(eq + 1)) < 0)
            bad++;
    }
    return bad;
}

void gs_top_conf_format(const struct gs_top_conf *c, char *buf, size_t len)
{
    snprintf(buf, len,
             "# gpuscope top settings (written on exit; see docs/TOP.md)\n"
             "interval_ms = %u\nsort = %s\nsort_desc = %d\ntree = %d\ntheme = %s\n"
             "chart = %d\nchart_metric = %s\nlayout = %s\nascii = %d\n",
             c->interval_ms, gs_cols[c->sort_col].key, c->sort_desc, c->tree,
             gs_theme_names[c->theme], c->chart, gs_chart_metrics[c->metric].name,
             gs_layout_names[c->layout], c->ascii);
}

int gs_top_conf_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    int n;

    if (xdg && *xdg)
        n = snprintf(buf, len, "%s/gpuscope/top.conf", xdg);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.config/gpuscope/top.conf", home);
    else
        return -1;
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int gs_top_conf_load(struct gs_top_conf *c, const char *path)
{
    char text[4096];
    FILE *f = fopen(path, "re");

    if (!f)
        return errno == ENOENT ? 0 : -1;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    gs_top_conf_parse(c, text);
    return 0;
}

static void mkdir_parents(const char *path)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
}

int gs_top_conf_save(const struct gs_top_conf *c, const char *path)
{
    char text[1024], tmp[600];

    gs_top_conf_format(c, text, sizeof(text));
    mkdir_parents(path);
    if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
        return -1;
    FILE *f = fopen(tmp, "we");
    if (!f)
        return -1;
    bool ok = fputs(text, f) >= 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) < 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

uint32_t gs_interval_step(uint32_t ms, int dir)
{
    static const uint32_t steps[] = { 100, 200, 250, 500, 1000, 2000, 3000, 5000, 10000 };
    size_t n = sizeof(steps) / sizeof(steps[0]);

    if (dir > 0) {
        for (size_t i = 0; i < n; i++)
            if (steps[i] > ms)
                return steps[i];
        return steps[n - 1];
    }
    for (size_t i = n; i-- > 0;)
        if (steps[i] < ms)
            return steps[i];
    return steps[0];
}
