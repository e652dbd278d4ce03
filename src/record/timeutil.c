/* SPDX-License-Identifier: MIT */
/*
 * timeutil.c - wall-clock times for history: now in ms, RFC 3339 with the
 * local zone ("2024-05-01T03:00:00.000+02:00"), and parsing of durations
 * ("2h"), times ("2024-05-01 03:00", "-2h", "now") and sizes ("10G").
 */
#include "record/store.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
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
    double r = v * mult + 0.5;
    if (!(r < 9.2e18)) /* beyond int64_t's milliseconds (and NaN, inf): not a duration */
        return -1;
    *ms = (int64_t)r;
    return 0;
}

/* ---- times ---------------------------------------------------------------------------- */
static bool leap_year(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in_month(int y, int m)
{
    static const int d[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && leap_year(y) ? 29 : d[m - 1];
}

/* Exactly n digits at *p (advanced); -1 if not. */
static int digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (!isdigit((unsigned char)**p))
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

#define WHY(...) (why ? (void)snprintf(why, whylen, __VA_ARGS__) : (void)0, -1)

/* A local wall time to an instant. A time the local zone skips (a daylight-saving gap)
 * is refused; one it repeats (the hour after the change back) is its first occurrence. */
static int local_to_epoch(const struct tm *want, time_t *out, char *why, size_t whylen)
{
    time_t found[2];
    int nfound = 0;
    for (int dst = 0; dst <= 1; dst++) {
        struct tm tm = *want, back;
        tm.tm_isdst = dst;
        errno = 0;
        time_t t = mktime(&tm);
        if (t == (time_t)-1 && errno)
            continue;
        localtime_r(&t, &back);
        if (back.tm_year == want->tm_year && back.tm_mon == want->tm_mon && back.tm_mday == want->tm_mday &&
            back.tm_hour == want->tm_hour && back.tm_min == want->tm_min && back.tm_sec == want->tm_sec &&
            (nfound == 0 || found[0] != t))
            found[nfound++] = t;
    }
    if (nfound == 0) {
        /* the offsets on either side of the gap, for the message */
        struct tm tm = *want, a, b;
        tm.tm_isdst = -1;
        time_t t = mktime(&tm);
        time_t before = t - 86400 / 4, after = t + 86400 / 4;
        localtime_r(&before, &a);
        localtime_r(&after, &b);
        long jump = (b.tm_gmtoff - a.tm_gmtoff) / 60;
        const char *tz = getenv("TZ");
        return WHY("%04d-%02d-%02d %02d:%02d does not exist in the local time zone%s%s%s: the clocks skip "
                   "forward %ld min there (%s to %s); give a time outside the gap or an explicit offset "
                   "(e.g. %+03ld:%02ld)", want->tm_year + 1900, want->tm_mon + 1, want->tm_mday, want->tm_hour,
                   want->tm_min, tz ? " (TZ=" : "", tz ? tz : "", tz ? ")" : "", jump, a.tm_zone ? a.tm_zone : "?",
                   b.tm_zone ? b.tm_zone : "?", a.tm_gmtoff / 3600, labs(a.tm_gmtoff / 60 % 60));
    }
    *out = nfound == 2 && found[1] < found[0] ? found[1] : found[0];
    return 0;
}

/* "YYYY-MM-DD[( |T)HH:MM[:SS[.fff]]][Z|±HH:MM|±HHMM|±HH]" */
static int parse_date_time(const char *s, int64_t *ms, char *why, size_t whylen)
{
    const char *p = s;
    int y = digits(&p, 4), mo, d, h = 0, mi = 0, sec = 0, frac_ms = 0;
    if (y < 0 || *p++ != '-' || (mo = digits(&p, 2)) < 0 || *p++ != '-' || (d = digits(&p, 2)) < 0)
        return WHY("expected YYYY-MM-DD (a 4-digit year, 2-digit month and day)");
    if (y < 1970)
        return WHY("year %d is before 1970", y);
    if (mo < 1 || mo > 12)
        return WHY("month %02d is out of range (01-12)", mo);
    if (d < 1 || d > days_in_month(y, mo))
        return WHY("%04d-%02d has %d days, so day %02d does not exist", y, mo, days_in_month(y, mo), d);
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if ((h = digits(&p, 2)) < 0 || *p++ != ':' || (mi = digits(&p, 2)) < 0)
            return WHY("expected HH:MM after the date");
        if (*p == ':') {
            p++;
            if ((sec = digits(&p, 2)) < 0)
                return WHY("expected 2-digit seconds after HH:MM:");
            if (*p == '.' || *p == ',') {
                int scale = 100;
                if (!isdigit((unsigned char)p[1]))
                    return WHY("expected digits after the decimal point of the seconds");
                for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
                    frac_ms += (*p - '0') * scale;
            }
        }
        if (h > 23)
            return WHY("hour %02d is out of range (00-23)", h);
        if (mi > 59)
            return WHY("minute %02d is out of range (00-59)", mi);
        if (sec > 59)
            return WHY("second %02d is out of range (00-59%s)", sec, sec == 60 ? "; leap seconds are not stored" : "");
    }
    struct tm tm = { .tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h, .tm_min = mi, .tm_sec = sec };
    time_t t;
    if (*p == 'Z' || *p == 'z') {
        p++;
        t = timegm(&tm);
    } else if (*p == '+' || *p == '-') {
        int sign = *p == '-' ? -1 : 1, oh, om = 0;
        const char *o = ++p;
        if ((oh = digits(&p, 2)) < 0)
            return WHY("expected a zone offset such as +02:00 after '%c'", sign < 0 ? '-' : '+');
        if (*p == ':')
            p++;
        if (isdigit((unsigned char)*p) && (om = digits(&p, 2)) < 0)
            return WHY("expected 2-digit offset minutes in '%.6s'", o - 1);
        if (oh > 23 || om > 59)
            return WHY("zone offset %c%02d:%02d is out of range (-23:59 to +23:59)", sign < 0 ? '-' : '+', oh, om);
        t = timegm(&tm) - sign * (oh * 3600L + om * 60L);
    } else if (*p == '\0') {
        if (local_to_epoch(&tm, &t, why, whylen) < 0)
            return -1;
    } else {
        return WHY("unexpected '%.12s' after the %s", p, h || mi || sec ? "time" : "date");
    }
    if (*p)
        return WHY("unexpected '%.12s' after the zone offset", p);
    if (t < 0)
        return WHY("the time is before 1970-01-01T00:00:00Z");
    *ms = (int64_t)t * 1000 + frac_ms;
    return 0;
}

int gs_parse_time_why(const char *s, int64_t now_ms, int64_t *ms, char *why, size_t whylen)
{
    int64_t d;
    if (why && whylen)
        why[0] = '\0';
    if (!s || !*s)
        return WHY("empty time");
    if (!strcmp(s, "now")) {
        *ms = now_ms;
        return 0;
    }
    if (s[0] == '-' && !isdigit((unsigned char)s[1]))
        return WHY("expected a duration after '-', e.g. -2h");
    if (s[0] == '-') {
        if (gs_parse_duration_ms(s + 1, &d) < 0)
            return WHY("'%s' is not a duration (90s, 15m, 2h, 3d, 1w)", s + 1);
        *ms = now_ms - d;
        return 0;
    }
    if (s[0] == '@') { /* @EPOCH_SECONDS */
        char *end;
        errno = 0;
        double v = strtod(s + 1, &end);
        if (end == s + 1 || *end || errno || !(v >= 0 && v < 253402300800.0))
            return WHY("expected @ and seconds since 1970 (e.g. @1714521600)");
        *ms = (int64_t)llround(v * 1000);
        return 0;
    }
    return parse_date_time(s, ms, why, whylen);
}

int gs_parse_time_ms(const char *s, int64_t now_ms, int64_t *ms)
{
    return gs_parse_time_why(s, now_ms, ms, NULL, 0);
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
    double r = v * mult;
    if (!(r < 1.8e19)) /* beyond uint64_t (and NaN, inf): not a size */
        return -1;
    *bytes = (uint64_t)r;
    return 0;
}
