/* SPDX-License-Identifier: MIT */
/* simwall.c - the fixed wall clock of simulated runs (see simwall.h). */
#include "core/simwall.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Up to 9 digits of a fraction of a second, as nanoseconds. */
static bool parse_frac(const char *p, const char **end, long *ns)
{
    long v = 0, scale = 100000000;

    *ns = 0;
    if (*p != '.') {
        *end = p;
        return true;
    }
    p++;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++) {
        if (scale) {
            v += (*p - '0') * scale;
            scale /= 10;
        }
    }
    *ns = v;
    *end = p;
    return true;
}

bool gs_simwall_parse(const char *text, struct timespec *out)
{
    struct tm tm;
    const char *p;
    char *end;
    long ns;

    if (!text || !*text)
        return false;
    memset(&tm, 0, sizeof(tm));
    p = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
    if (p) {
        if (!parse_frac(p, &p, &ns) || (*p && strcmp(p, "Z")))
            return false;
        time_t t = timegm(&tm);
        if (t == (time_t)-1)
            return false;
        out->tv_sec = t;
        out->tv_nsec = ns;
        return true;
    }
    long long sec = strtoll(text, &end, 10);
    if (end == text || sec < 0 || !parse_frac(end, &p, &ns) || *p)
        return false;
    out->tv_sec = (time_t)sec;
    out->tv_nsec = ns;
    return true;
}

void gs_simwall_apply(bool simulated, uint64_t mono_ns, struct timespec *wall)
{
    static bool parsed, valid;
    static struct timespec base;
    static uint64_t mono0;

    if (!simulated)
        return;
    if (!parsed) {
        parsed = true;
        valid = gs_simwall_parse(getenv("GPUSCOPE_SIM_WALLCLOCK"), &base);
        mono0 = mono_ns;
    }
    if (!valid)
        return;
    uint64_t ns = (uint64_t)base.tv_nsec + (mono_ns - mono0);
    wall->tv_sec = base.tv_sec + (time_t)(ns / 1000000000u);
    wall->tv_nsec = (long)(ns % 1000000000u);
}
