/* SPDX-License-Identifier: MIT */
/* procstat.c - the /proc/PID/stat parser and /proc field readers (procstat.h). */
#include "lib/procstat.h"

#include <string.h>

const char *gs_proc_u64(const char *s, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    const char *start = s;

    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, (unsigned)(*s - '0'), &v))
            return NULL; /* (checked without a division per digit: this parses every tick) */
    }
    if (s == start)
        return NULL;
    *out = v;
    return s;
}

const char *gs_proc_skip_field(const char *s, const char *end)
{
    while (s < end && *s == ' ')
        s++;
    if (s == end || *s == '\n')
        return NULL;
    while (s < end && *s != ' ' && *s != '\n')
        s++;
    return s;
}

const char *gs_proc_field_u64(const char *s, const char *end, uint64_t *out)
{
    while (s < end && *s == ' ')
        s++;
    s = gs_proc_u64(s, end, out);
    if (s && s < end && *s != ' ' && *s != '\n')
        return NULL;
    return s;
}

/* Fields after "(comm)", numbered as in proc(5): 3 state ... 24 rss. */
static int stat_tail(const char *s, const char *end, struct gs_proc_stat *out)
{
    uint64_t ppid, pgid, utime, stime;

    if (end - s < 3 || s[0] != ' ' || s[2] != ' ')
        return -1;
    out->state = s[1];
    s += 2;
    if (!(s = gs_proc_field_u64(s, end, &ppid)) || !(s = gs_proc_field_u64(s, end, &pgid)))
        return -1;
    for (int f = 6; f <= 13 && s; f++) /* session .. cmajflt */
        s = gs_proc_skip_field(s, end);
    if (!s || !(s = gs_proc_field_u64(s, end, &utime)) || !(s = gs_proc_field_u64(s, end, &stime)))
        return -1;
    for (int f = 16; f <= 21 && s; f++) /* cutime .. itrealvalue (some signed) */
        s = gs_proc_skip_field(s, end);
    if (!s || !(s = gs_proc_field_u64(s, end, &out->start_ticks)))
        return -1;
    if (!(s = gs_proc_skip_field(s, end)) || !gs_proc_field_u64(s, end, &out->rss_pages)) /* vsize, rss */
        return -1;
    if (ppid > UINT32_MAX || pgid > UINT32_MAX || utime > UINT64_MAX - stime)
        return -1;
    out->ppid = (uint32_t)ppid;
    out->pgid = (uint32_t)pgid;
    out->cpu_ticks = utime + stime;
    return 0;
}

int gs_proc_stat_parse(const char *buf, size_t len, struct gs_proc_stat *out)
{
    const char *open, *close_paren;
    size_t n;

    memset(out, 0, sizeof(*out));
    open = memchr(buf, '(', len);
    close_paren = memrchr(buf, ')', len);
    if (!open || !close_paren || close_paren < open)
        return -1;
    n = (size_t)(close_paren - open - 1);
    if (n > sizeof(out->comm) - 1)
        n = sizeof(out->comm) - 1;
    memcpy(out->comm, open + 1, n);
    out->comm[n] = '\0';
    if (stat_tail(close_paren + 1, buf + len, out) < 0) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    return 0;
}
