/* SPDX-License-Identifier: MIT */
/*
 * scenario_read.c - the scenario line reader both simulators use (API in
 * scenario_read.h; the grammar is docs/SIMULATOR.md "Scenario files"): files,
 * '\' continuations, words, quotes, '#' comments and file:line messages.
 * Not the meaning of any line: sim/scenario.c and sim/drm/drmsim_scn.c.
 */
#include "scenario_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int gs_scn_where_verr(struct gs_scn_where *at, const char *fmt, va_list ap)
{
    char what[GS_SCN_ERR_LEN];
    vsnprintf(what, sizeof(what), fmt, ap);
    snprintf(at->err, at->errlen, "%s:%d: %s", at->fname, at->line, what);
    return -1;
}

int gs_scn_where_err(struct gs_scn_where *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gs_scn_where_verr(at, fmt, ap);
    va_end(ap);
    return -1;
}

int gs_scn_split(struct gs_scn_where *at, char *line, char **words)
{
    int n = 0;
    char *r = line, *w = line;
    while (*r) {
        while (*r == ' ' || *r == '\t' || *r == '\r')
            r++;
        if (!*r || *r == '#')
            break;
        if (n == GS_SCN_MAX_WORDS)
            return gs_scn_where_err(at, "too many words on one line (at most %d)", GS_SCN_MAX_WORDS);
        words[n++] = w;
        int depth = 0, quoted = 0;
        while (*r && (quoted || depth > 0 || (*r != ' ' && *r != '\t' && *r != '\r' && *r != '#'))) {
            if (*r == '"') {
                quoted = !quoted;
                r++;
                continue;
            }
            if (quoted && *r == '\\' && (r[1] == '"' || r[1] == '\\'))
                r++;
            else if (!quoted && *r == '(')
                depth++;
            else if (!quoted && *r == ')')
                depth--;
            *w++ = *r++;
        }
        if (quoted)
            return gs_scn_where_err(at, "unterminated \"quoted string\"");
        if (depth > 0)
            return gs_scn_where_err(at, "unbalanced '(' in '%s'", words[n - 1]);
        char *end = w;
        if (*r)
            r++;
        *end = '\0';
        w = end + 1; /* never passes r except at the very end */
    }
    return n;
}

int gs_scn_each_line(struct gs_scn_where *at, const char *text, size_t len,
                     int (*line)(void *arg, char *text), void *arg)
{
    char *buf = malloc(len + 1);
    size_t pos = 0;
    int rc = 0, lineno = 0;
    at->line = 0;
    if (!buf)
        return gs_scn_where_err(at, "out of memory");
    while (pos < len && rc == 0) {
        size_t o = 0;
        at->line = lineno + 1;
        for (;;) { /* one logical line: join '\'-continued physical lines */
            lineno++;
            while (pos < len && text[pos] != '\n')
                buf[o++] = text[pos] ? text[pos] : ' ', pos++;
            pos += pos < len;
            while (o > 0 && (buf[o - 1] == '\r' || buf[o - 1] == ' ' || buf[o - 1] == '\t'))
                o--;
            if (o == 0 || buf[o - 1] != '\\' || pos >= len)
                break;
            buf[o - 1] = ' ';
        }
        buf[o] = '\0';
        rc = line(arg, buf);
    }
    free(buf);
    return rc;
}

char *gs_scn_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    char *text = NULL;
    size_t cap = 0;
    *len = 0;
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        if (cap - *len < 4096) {
            char *t = cap > (1u << 24) ? NULL : realloc(text, cap * 2 + 8192);
            if (!t) {
                fclose(f);
                free(text);
                snprintf(err, errlen, "%s: too large or out of memory", path);
                return NULL;
            }
            text = t;
            cap = cap * 2 + 8192;
        }
        size_t got = fread(text + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return text;
}

void gs_scn_default_name(const char *path, char *name, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(name, len, "%.*s", (int)strcspn(base, "."), base);
}
