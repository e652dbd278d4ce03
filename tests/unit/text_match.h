/* SPDX-License-Identifier: MIT */
/*
 * text_match.h - looking into rendered text (Prometheus expositions in test_prom,
 * test_prom_kube, test_prom_mig): occurrences of a string, lines that start with
 * one, and present/absent assertions that print what they missed. Include after cmocka.h.
 */
#ifndef GS_TEST_TEXT_MATCH_H
#define GS_TEST_TEXT_MATCH_H

#include <string.h>

/* How many times needle occurs in hay (overlaps counted). */
static inline int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* How many lines of text start with prefix. */
static inline int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        n += p == text || p[-1] == '\n';
    return n;
}

static inline void has(const char *text, const char *line)
{
    if (!strstr(text, line))
        fail_msg("missing: %s", line);
}

static inline void lacks(const char *text, const char *s)
{
    if (strstr(text, s))
        fail_msg("unexpected: %s", s);
}

#endif /* GS_TEST_TEXT_MATCH_H */
