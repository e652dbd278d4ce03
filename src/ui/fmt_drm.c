/* SPDX-License-Identifier: MIT */
/* fmt_drm.c - short text for AMD and Intel readings in `gpuscope top` (see fmt_drm.h). */
#include "ui/fmt_drm.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui/fmt.h"

/* Append to buf at *used; false once full. */
static bool add(char *buf, unsigned len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static bool add(char *buf, unsigned len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    if (*used >= len)
        return false;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= len - *used) {
        buf[*used] = '\0';
        return false;
    }
    *used += (size_t)n;
    return true;
}

const char *gs_fmt_drm_temps(const struct gs_static *st, const struct gs_sample *s, char *buf, unsigned len)
{
    size_t used = 0;

    if (!len)
        return buf;
    buf[0] = '\0';
    if (gs_sample_has(s, GS_F_TEMP_JUNCTION)) {
        if (gs_static_has(st, GS_S_TEMP_CRIT) && st->temp_junction_crit_c)
            add(buf, len, &used, "J%dC/%dC", s->temp_junction_c, st->temp_junction_crit_c);
        else
            add(buf, len, &used, "J%dC", s->temp_junction_c);
    }
    if (gs_sample_has(s, GS_F_TEMP_MEM))
        add(buf, len, &used, "%sM%dC", used ? " " : "", s->temp_mem_c);
    return buf;
}

const char *gs_fmt_drm_engines(const struct gs_static *st, const struct gs_sample *s, char *buf, unsigned len)
{
    size_t used = 0;

    if (!len)
        return buf;
    buf[0] = '\0';
    if (!gs_sample_has(s, GS_F_ENGINE_UTIL))
        return buf;
    for (uint32_t e = 0; e < st->engine_count && e < GS_MAX_ENGINES; e++)
        if (s->engine_util_pct[e] && !add(buf, len, &used, "%s%s %u%%", used ? " " : "", st->engine_name[e],
                                          s->engine_util_pct[e]))
            break;
    if (!used)
        add(buf, len, &used, "engines idle");
    return buf;
}

const char *gs_fmt_drm_extra(const struct gs_static *st, const struct gs_sample *s, char *buf, unsigned len)
{
    size_t used = 0;
    char u[16], t[16];

    (void)st;
    if (!len)
        return buf;
    buf[0] = '\0';
    if (gs_sample_has(s, GS_F_CLOCK_GRAPHICS_REQ))
        add(buf, len, &used, "req %uMHz", s->clock_graphics_req_mhz);
    if (gs_sample_has(s, GS_F_RC6))
        add(buf, len, &used, "%sRC6 %u%%", used ? " " : "", s->rc6_pct);
    if (gs_sample_has(s, GS_F_MEM_GTT) && s->gtt_total_bytes)
        add(buf, len, &used, "%sGTT %s/%s", used ? " " : "", gs_fmt_bytes(s->gtt_used_bytes, u, sizeof(u)),
            gs_fmt_bytes(s->gtt_total_bytes, t, sizeof(t)));
    return buf;
}

const char *gs_fmt_drm_ras(const struct gs_sample *s, char *buf, unsigned len)
{
    size_t used = 0;

    if (!len)
        return buf;
    buf[0] = '\0';
    if (gs_sample_has(s, GS_F_RAS) && s->ras_ue_count)
        add(buf, len, &used, "RAS %llu UE", (unsigned long long)s->ras_ue_count);
    if (gs_sample_has(s, GS_F_RAS_BAD_PAGES) && s->ras_bad_pages)
        add(buf, len, &used, "%s%u bad pages", used ? ", " : "RAS ", s->ras_bad_pages);
    return buf;
}
