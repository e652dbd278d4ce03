/* SPDX-License-Identifier: MIT */
/*
 * fields.c - parsing nvidia-smi field lists and formatting their values (see fields.h).
 *
 * The table itself is in fields_table.c. Here: 1. parsing a field list,
 * with suggestions for unknown names; 2. formatting a value the way
 * nvidia-smi spells it.
 */
#include "out/fields.h"

#include "out/fields_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static const struct gs_field_def *table_of(enum gs_query_kind kind, size_t *n)
{
    if (kind == GS_QUERY_COMPUTE_APPS) {
        *n = gs_app_fields_count;
        return gs_app_fields;
    }
    *n = gs_gpu_fields_count;
    return gs_gpu_fields;
}

static const char *query_option(enum gs_query_kind kind)
{
    return kind == GS_QUERY_COMPUTE_APPS ? "--query-compute-apps" : "--query-gpu";
}

/* ---- 1. field lists ----------------------------------------------------------------------- */

unsigned gs_edit_distance(const char *a, const char *b, unsigned cap)
{
    unsigned row[129];
    size_t la = strlen(a), lb = strlen(b);

    if (lb > 128 || (la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0], best;
        row[0] = best = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned sub = diag + (a[i - 1] != b[j - 1]);
            unsigned v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = v < sub ? v : sub;
            diag = up;
            if (row[j] < best)
                best = row[j];
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb] <= cap ? row[lb] : cap + 1;
}

static const struct gs_field_def *lookup(const struct gs_field_def *tab, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(tab[i].name, name) || (tab[i].alias && !strcmp(tab[i].alias, name)))
            return &tab[i];
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(tab[i].name, name) || (tab[i].alias && !strcasecmp(tab[i].alias, name)))
            return &tab[i];
    return NULL;
}

/* Does every segment of name ("mem", "used" in "mem.used") occur in cand? */
static bool segments_in(const char *name, const char *cand)
{
    char buf[128];
    char *save = NULL;
    unsigned n = 0;

    if (!cand || snprintf(buf, sizeof(buf), "%s", name) >= (int)sizeof(buf))
        return false;
    for (char *t = strtok_r(buf, "._", &save); t; t = strtok_r(NULL, "._", &save)) {
        if (strlen(t) < 2 || !strcasestr(cand, t))
            return false;
        n++;
    }
    return n > 0;
}

/* How close cand is to name, in half steps: twice the edit distance; 1 for a
 * group under name ("memory" -> memory.used); 2 for names that contain all of
 * name's segments ("gpu_util" -> utilization.gpu). */
static unsigned closeness(const char *name, const struct gs_field_def *cand, unsigned cap)
{
    size_t len = strlen(name);
    unsigned d = gs_edit_distance(name, cand->name, cap);

    if (cand->alias) {
        unsigned da = gs_edit_distance(name, cand->alias, cap);
        d = da < d ? da : d;
    }
    d *= 2;
    if (len >= 3 && !strncasecmp(cand->name, name, len) && cand->name[len] == '.')
        return 1;
    if (d > 2 && (segments_in(name, cand->name) || segments_in(name, cand->alias)))
        return 2;
    return d;
}

/* The closest names, best first (ties keep table order). */
#define MAX_SUGGEST 3
static unsigned suggest(const struct gs_field_def *tab, size_t n, const char *name,
                        const char *out[MAX_SUGGEST])
{
    unsigned dist[MAX_SUGGEST], count = 0;
    size_t len = strlen(name);
    unsigned cap = len / 4 > 2 ? (unsigned)(len / 4) : 2;

    for (size_t i = 0; i < n; i++) {
        unsigned d = closeness(name, &tab[i], cap);
        if (d > 2 * cap)
            continue;
        unsigned k = count < MAX_SUGGEST ? count++ : MAX_SUGGEST;
        while (k > 0 && dist[k - 1] > d) {
            if (k < MAX_SUGGEST) {
                dist[k] = dist[k - 1];
                out[k] = out[k - 1];
            }
            k--;
        }
        if (k < MAX_SUGGEST) {
            dist[k] = d;
            out[k] = tab[i].name;
        }
    }
    return count;
}

static int unknown_field(enum gs_query_kind kind, const char *name, struct gs_err *err)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);
    const char *best[MAX_SUGGEST];
    unsigned nb = suggest(tab, n, name, best);
    char list[256] = "";
    size_t used = 0;

    gs_err_set(err, GS_E_USAGE, "unknown field '%s' in %s", name, query_option(kind));
    for (unsigned i = 0; i < nb && used < sizeof(list); i++) {
        int w = snprintf(list + used, sizeof(list) - used, "%s'%s'",
                         i == 0        ? ""
                         : i + 1 == nb ? " or "
                                       : ", ",
                         best[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (nb)
        gs_err_hint(err, "did you mean %s? 'gpuscope query --help-%s' lists every field", list,
                    query_option(kind) + 2);
    else
        gs_err_hint(err, "'gpuscope query --help-%s' lists every field", query_option(kind) + 2);
    return -GS_E_USAGE;
}

int gs_fieldlist_parse(struct gs_fieldlist *fl, enum gs_query_kind kind, const char *spec, struct gs_err *err)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);
    const char *p = spec ? spec : "";

    fl->kind = kind;
    fl->n = 0;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *s = p, *e = p + len;
        char name[128];

        p = end ? end + 1 : e;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (s == e)
            continue;
        snprintf(name, sizeof(name), "%.*s", (int)(e - s), s);
        const struct gs_field_def *f = (size_t)(e - s) < sizeof(name) ? lookup(tab, n, name) : NULL;
        if (!f)
            return unknown_field(kind, name, err);
        if (fl->n == GS_FIELDLIST_MAX)
            return gs_err_set(err, GS_E_USAGE, "%s: more than %d fields", query_option(kind),
                              GS_FIELDLIST_MAX);
        fl->defs[fl->n++] = f;
    }
    if (!fl->n)
        return gs_err_set(err, GS_E_USAGE, "%s needs at least one field name", query_option(kind));
    return 0;
}

uint64_t gs_fieldlist_want(const struct gs_fieldlist *fl)
{
    uint64_t want = 0;

    for (unsigned i = 0; i < fl->n; i++)
        if (fl->defs[i]->src == SRC_SAMPLE)
            want |= UINT64_C(1) << fl->defs[i]->idx;
    return want;
}

bool gs_fieldlist_wants_slow(const struct gs_fieldlist *fl)
{
    uint64_t slow = (UINT64_C(1) << GS_F_PCIE_TX) | (UINT64_C(1) << GS_F_PCIE_RX);
    return (gs_fieldlist_want(fl) & slow) != 0;
}

unsigned gs_fieldlist_unread(const struct gs_fieldlist *fl, void (*cb)(void *arg, const char *name),
                             void *arg)
{
    unsigned count = 0;

    for (unsigned i = 0; i < fl->n; i++) {
        if (fl->defs[i]->kind != FK_NONE)
            continue;
        count++;
        if (cb)
            cb(arg, fl->defs[i]->name);
    }
    return count;
}

const char *gs_field_name(const struct gs_field_def *f)
{
    return f->name;
}

void gs_field_header(const struct gs_field_def *f, char *buf, size_t len)
{
    if (f->unit)
        snprintf(buf, len, "%s [%s]", f->name, f->unit);
    else
        snprintf(buf, len, "%s", f->name);
}

/* One line: the name in a column, then "[unit]", "alias x" and a remark. */
static void help_line(const struct gs_field_def *f, char *buf, size_t len)
{
    const char *parts[3] = {NULL, NULL, NULL};
    char unit[24] = "", alias[96] = "";
    size_t used;

    if (f->unit)
        snprintf(unit, sizeof(unit), "[%s]", f->unit);
    if (f->alias)
        snprintf(alias, sizeof(alias), "alias %s", f->alias);
    parts[0] = unit;
    parts[1] = alias;
    parts[2] = f->kind == FK_NONE   ? "(not read by gpuscope: prints [N/A])"
               : f->flags & DEF_EXT ? "(gpuscope extension)"
                                    : "";
    used = (size_t)snprintf(buf, len, "%-52s", f->name);
    for (int i = 0; i < 3 && used < len; i++)
        if (parts[i][0])
            used += (size_t)snprintf(buf + used, len - used, "  %s", parts[i]);
    while (used > 0 && used < len && buf[used - 1] == ' ')
        buf[--used] = '\0';
}

void gs_fields_help(enum gs_query_kind kind, void (*line)(void *arg, const char *text), void *arg)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);
    char buf[256];

    for (size_t i = 0; i < n; i++) {
        help_line(&tab[i], buf, sizeof(buf));
        line(arg, buf);
    }
}

/* ---- 2. values ---------------------------------------------------------------------------- */

const char *gs_field_status_str(enum gs_status st)
{
    switch (st) {
    case GS_ST_NOT_SUPPORTED:
        return "[Not Supported]";
    case GS_ST_NO_PERMISSION:
        return "[Insufficient Permissions]";
    case GS_ST_GPU_LOST:
        return "[GPU is lost]";
    case GS_ST_ERROR:
        return "[Unknown Error]";
    case GS_ST_NOT_AVAILABLE:
    case GS_ST_NOT_SAMPLED:
    default:
        return "[N/A]";
    }
}

size_t gs_field_timestamp(const struct timespec *ts, char *buf, size_t len)
{
    struct tm tm;
    time_t sec = ts->tv_sec;
    char date[32];

    if (!localtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y/%m/%d %H:%M:%S", &tm))
        date[0] = '\0';
    int w = snprintf(buf, len, "%s.%03ld", date, (long)(ts->tv_nsec / 1000000));
    return w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
}

static enum gs_status proc_status(const struct gs_field_def *f, const struct gs_proc *p)
{
    if (!p)
        return GS_ST_NOT_AVAILABLE;
    if (f->kind == FK_PMEM)
        return gs_proc_has(p, GS_P_GPU_MEM) ? GS_ST_OK : GS_ST_NOT_AVAILABLE;
    if (f->kind == FK_PNAME && !gs_proc_has(p, GS_P_NAME) && !gs_proc_has(p, GS_P_COMM))
        return p->host_vis == GS_HOST_NO_PERMISSION ? GS_ST_NO_PERMISSION : GS_ST_NOT_AVAILABLE;
    return GS_ST_OK;
}

static enum gs_status field_status(const struct gs_field_def *f, const struct gs_field_ctx *c)
{
    switch (f->src) {
    case SRC_SAMPLE:
        if (f->kind == FK_FAN && c->gpu->s.status[f->idx] == GS_ST_OK && !c->gpu->s.fan_count)
            return GS_ST_NOT_AVAILABLE;
        return (enum gs_status)c->gpu->s.status[f->idx];
    case SRC_STATIC:
        return (enum gs_status)c->gpu->st.status[f->idx];
    case SRC_SNAP:
        if (f->kind == FK_DRIVER && !c->snap->sys.driver_version[0])
            return GS_ST_NOT_AVAILABLE;
        return GS_ST_OK;
    case SRC_PROC:
        return proc_status(f, c->proc);
    default:
        return GS_ST_NOT_AVAILABLE;
    }
}

static size_t put(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static size_t put(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    int w;

    va_start(ap, fmt);
    w = vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    if (w < 0) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)w < len ? (size_t)w : len - 1;
}

/* A number followed by " unit" unless nounits. */
static size_t put_num(char *buf, size_t len, const char *num, const char *unit, unsigned flags)
{
    if (unit && !(flags & GS_FIELD_NOUNITS))
        return put(buf, len, "%s %s", num, unit);
    return put(buf, len, "%s", num);
}

static uint32_t rd_u32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static uint64_t rd_u64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static const char *compute_mode_str(uint32_t mode)
{
    static const char *const names[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
    return mode < NELEM(names) ? names[mode] : "Unknown";
}

/* Values that are numbers with a unit. */
static size_t format_number(const struct gs_field_def *f, const void *p, unsigned flags, char *buf,
                            size_t len)
{
    char num[48];

    switch (f->kind) {
    case FK_U32:
        snprintf(num, sizeof(num), "%u", rd_u32(p));
        break;
    case FK_U64:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)rd_u64(p));
        break;
    case FK_MIB:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)(rd_u64(p) >> 20));
        break;
    case FK_WATTS: {
        /* two decimals, rounded half up in integers (no binary-float surprises) */
        uint64_t centiw = ((uint64_t)rd_u32(p) + 5) / 10;
        snprintf(num, sizeof(num), "%llu.%02u", (unsigned long long)(centiw / 100), (unsigned)(centiw % 100));
        break;
    }
    case FK_FAN:
        snprintf(num, sizeof(num), "%u", rd_u32(p)); /* fan_speed_pct[0] */
        break;
    default:
        num[0] = '\0';
    }
    return put_num(buf, len, num, f->unit, flags);
}

static size_t format_member(const struct gs_field_def *f, const void *p, unsigned flags, char *buf,
                            size_t len)
{
    switch (f->kind) {
    case FK_STR:
        return put(buf, len, "%s", (const char *)p);
    case FK_I32:
        return put(buf, len, "%d", (int)rd_u32(p));
    case FK_PSTATE:
        return rd_u32(p) <= 15 ? put(buf, len, "P%u", rd_u32(p)) : put(buf, len, "[Unknown]");
    case FK_ENABLED:
        return put(buf, len, "%s", rd_u32(p) ? "Enabled" : "Disabled");
    case FK_YESNO:
        return put(buf, len, "%s", rd_u32(p) ? "Yes" : "No");
    case FK_EVENT:
        return put(buf, len, "%s", rd_u64(p) & f->arg ? "Active" : "Not Active");
    case FK_HEX64:
        return put(buf, len, "0x%016llX", (unsigned long long)rd_u64(p));
    case FK_HEX8:
        return put(buf, len, "0x%08X", rd_u32(p));
    case FK_HEX4:
        return put(buf, len, "0x%04X", rd_u32(p));
    case FK_HEX2:
        return put(buf, len, "0x%02X", rd_u32(p));
    case FK_COMPUTE_MODE:
        return put(buf, len, "%s", compute_mode_str(rd_u32(p)));
    default:
        return format_number(f, p, flags, buf, len);
    }
}

/* The driver's process name (nvidia-smi's source), else argv[0] from /proc. */
static size_t format_pname(const struct gs_proc *p, char *buf, size_t len)
{
    if (gs_proc_has(p, GS_P_NAME)) /* what nvidia-smi prints: the driver's name */
        return put(buf, len, "%s", p->name);
    if (p->cmdline[0])
        return put(buf, len, "%.*s", (int)strcspn(p->cmdline, " "), p->cmdline);
    return put(buf, len, "%s", p->comm);
}

static size_t format_other(const struct gs_field_def *f, const struct gs_field_ctx *c, unsigned flags,
                           char *buf, size_t len)
{
    char num[32];

    switch (f->kind) {
    case FK_TIMESTAMP:
        return gs_field_timestamp(&c->snap->wall, buf, len);
    case FK_DRIVER:
        return put(buf, len, "%s", c->snap->sys.driver_version);
    case FK_COUNT:
        return put(buf, len, "%u", c->snap->ngpus);
    case FK_INDEX:
        return put(buf, len, "%u", c->gpu->st.index);
    case FK_CC:
        return put(buf, len, "%d.%d", c->gpu->st.cc_major, c->gpu->st.cc_minor);
    case FK_PID:
        return put(buf, len, "%u", c->proc->pid);
    case FK_PNAME:
        return format_pname(c->proc, buf, len);
    case FK_PMEM:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)(c->proc->gpu_mem_bytes >> 20));
        return put_num(buf, len, num, f->unit, flags);
    default:
        return put(buf, len, "[N/A]");
    }
}

size_t gs_field_format(const struct gs_field_def *f, const struct gs_field_ctx *ctx, unsigned flags,
                       char *buf, size_t len)
{
    enum gs_status st;

    if (!len)
        return 0;
    st = field_status(f, ctx);
    if (st != GS_ST_OK)
        return put(buf, len, "%s", gs_field_status_str(st));
    if (f->src == SRC_SAMPLE)
        return format_member(f, (const char *)&ctx->gpu->s + f->off, flags, buf, len);
    if (f->src == SRC_STATIC && f->kind != FK_CC)
        return format_member(f, (const char *)&ctx->gpu->st + f->off, flags, buf, len);
    return format_other(f, ctx, flags, buf, len);
}
