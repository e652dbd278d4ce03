/* SPDX-License-Identifier: MIT */
/*
 * timeutil.c - wall-clock times for history: now in ms, RFC 3339 with the
 * local zone ("2024-05-01T03:00:00.000+02:00"), and parsing of durations
 * ("2h"), times ("2024-05-01 03:00", "-2h", "now") and sizes ("10G").
 */
#include "record/store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t gs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *gs_rfc3339(int64_t t_ms, char *buf, size_t len)
{
    time_t s = (time_t)(t_ms >= 0 ? t_ms / 1000 : (t_ms - 999) / 1000);
    int ms = (int)(t_ms - (int64_t)s * 1000);
    struct tm tm;
    char date[32], zone[24];
    localtime_r(&s, &tm);
    strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
    int off = (int)(tm.tm_gmtoff % 86400);
    char sign = off < 0 ? '-' : '+';
    off = off < 0 ? -off : off;
    snprintf(zone, sizeof(zone), "%c%02d:%02d", sign, off / 3600, (off / 60) % 60);
    snprintf(buf, len, "%s.%03d%s", date, ms, zone);
    return buf;
}

int gs_parse_duration_ms(const char *s, int64_t *ms)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    double mult = 1000;
    if (!strcmp(end, "") || !strcmp(end, "s"))
        mult = 1000;
    else if (!strcmp(end, "ms"))
        mult = 1;
    else if (!strcmp(end, "m") || !strcmp(end, "min"))
        mult = 60e3;
    else if (!strcmp(end, "h"))
        mult = 3600e3;
    else if (!strcmp(end, "d"))
        mult = 86400e3;
    else if (!strcmp(end, "w"))
        mult = 7 * 86400e3;
    else
        return -1;
    *ms = (int64_t)(v * mult + 0.5);
    return 0;
}

int gs_parse_time_ms(const char *s, int64_t now_ms, int64_t *ms)
{
    int64_t d;
    if (!strcmp(s, "now")) {
        *ms = now_ms;
        return 0;
    }
    if (s[0] == '-' && gs_parse_duration_ms(s + 1, &d) == 0) {
        *ms = now_ms - d;
        return 0;
    }
    if (s[0] == '@') { /* @EPOCH_SECONDS */
        char *end;
        double v = strtod(s + 1, &end);
        if (end == s + 1 || *end)
            return -1;
        *ms = (int64_t)(v * 1000);
        return 0;
    }
    struct tm tm = { 0 };
    int y, mo, da, h = 0, mi = 0, n = 0;
    double sec = 0;
    if (sscanf(s, "%d-%d-%d%n", &y, &mo, &da, &n) != 3)
        return -1;
    const char *p = s + n;
    if (*p == 'T' || *p == ' ') {
        int k = 0;
        if (sscanf(p + 1, "%d:%d%n", &h, &mi, &k) != 2)
            return -1;
        p += 1 + k;
        if (*p == ':') {
            char *end;
            sec = strtod(p + 1, &end);
            p = end;
        }
    }
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = da;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = (int)sec;
    tm.tm_isdst = -1;
    time_t t;
    if (*p == 'Z' || *p == '+' || *p == '-') {
        long off = 0;
        if (*p != 'Z') {
            int oh, om;
            if (sscanf(p + 1, "%d:%d", &oh, &om) != 2)
                return -1;
            off = (oh * 3600L + om * 60L) * (*p == '-' ? -1 : 1);
        }
        t = timegm(&tm) - off;
    } else if (*p == '\0') {
        t = mktime(&tm);
    } else {
        return -1;
    }
    *ms = (int64_t)t * 1000 + (int64_t)((sec - (int)sec) * 1000);
    return 0;
}

int gs_parse_size(const char *s, uint64_t *bytes)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case '\0': case 'B': mult = 1; break;
    case 'K': mult = 1024.0; break;
    case 'M': mult = 1024.0 * 1024; break;
    case 'G': mult = 1024.0 * 1024 * 1024; break;
    case 'T': mult = 1024.0 * 1024 * 1024 * 1024; break;
    default: return -1;
    }
    *bytes = (uint64_t)(v * mult);
    return 0;
}
