/* SPDX-License-Identifier: MIT */
/*
 * fields.c - parsing nvidia-smi field lists and formatting their values (see fields.h).
 *
 * The table itself is in fields_table.c. Here: 1. parsing a field list,
 * with suggestions for unknown names; 2. formatting a value the way
 * nvidia-smi spells it.
 */
#include "format/fields.h"

#include "format/fields_int.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "lib/vec.h"

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

/* Room for one more definition; false on out of memory. */
static bool fieldlist_grow(struct gs_fieldlist *fl)
{
    if (fl->n < fl->cap)
        return true;
    size_t cap = fl->cap;
    const struct gs_field_def **d = gs_vec_grow(fl->defs, &cap, (size_t)fl->n + 1, sizeof(*d));
    if (!d)
        return false;
    fl->defs = d;
    fl->cap = cap > UINT_MAX ? UINT_MAX : (unsigned)cap;
    return true;
}

void gs_fieldlist_free(struct gs_fieldlist *fl)
{
    free(fl->defs);
    fl->defs = NULL;
    fl->n = fl->cap = 0;
}

const struct gs_field_def *gs_field_find(enum gs_query_kind kind, const char *name)
{
    size_t n;
    const struct gs_field_def *tab = table_of(kind, &n);

    for (size_t i = 0; i < n; i++)
        if (!strcmp(tab[i].name, name) || (tab[i].alias && !strcmp(tab[i].alias, name)))
            return &tab[i];
    return NULL;
}

unsigned gs_driver_major(const char *version)
{
    unsigned v = 0;

    if (!version)
        return 0;
    for (const char *p = version; *p >= '0' && *p <= '9' && v < 100000; p++)
        v = v * 10 + (unsigned)(*p - '0');
    return v;
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
        if (!fieldlist_grow(fl))
            return gs_err_set(err, GS_E_NOMEM, "%s: out of memory for the field list", query_option(kind));
        fl->defs[fl->n++] = f;
    }
    if (!fl->n)
        return gs_err_set(err, GS_E_USAGE, "%s needs at least one field name", query_option(kind));
    return 0;
}

struct gs_fmask gs_fieldlist_want(const struct gs_fieldlist *fl)
{
    struct gs_fmask want = GS_FMASK_NONE;

    for (unsigned i = 0; i < fl->n; i++)
        if (fl->defs[i]->src == SRC_SAMPLE)
            gs_fmask_set(&want, fl->defs[i]->idx);
    return want;
}

bool gs_fieldlist_wants_slow(const struct gs_fieldlist *fl)
{
    struct gs_fmask want = gs_fieldlist_want(fl);
    return gs_fmask_has(want, GS_F_PCIE_TX) || gs_fmask_has(want, GS_F_PCIE_RX);
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

/* The branch that renamed clocks_throttle_reasons.* to clocks_event_reasons.*. */
#define GS_ERA_EVENT_REASONS 535
/* Before this branch, nvidia-smi spelled "no such reading" [Not Supported]. */
#define GS_ERA_NA 440
/* The branch whose nvidia-smi deprecated display_mode (for display_attached). */
#define GS_ERA_GONE 580

void gs_field_header(const struct gs_field_def *f, unsigned major, char *buf, size_t len)
{
    const char *name = f->name;

    if ((f->flags & DEF_THROTTLE) && f->alias && major && major < GS_ERA_EVENT_REASONS)
        name = f->alias;
    if (f->unit)
        snprintf(buf, len, "%s [%s]", name, f->unit);
    else
        snprintf(buf, len, "%s", name);
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

const char *gs_field_status_str(enum gs_status st, unsigned major)
{
    switch (st) {
    case GS_ST_NOT_SUPPORTED:
        return major && major < GS_ERA_NA ? "[Not Supported]" : "[N/A]";
    case GS_ST_DEPRECATED:
        return "[Requested functionality has been deprecated]";
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
    if (f->kind == FK_PGI || f->kind == FK_PCI)
        return p->gpu_instance_id != UINT32_MAX ? GS_ST_OK : GS_ST_NOT_AVAILABLE; /* not under MIG */
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
        if (f->kind == FK_ECCLOC && c->gpu->s.status[f->idx] == GS_ST_OK &&
            !(c->gpu->s.ecc_loc_ok & (UINT32_C(1) << f->arg)))
            return GS_ST_NOT_SUPPORTED;
        return (enum gs_status)c->gpu->s.status[f->idx];
    case SRC_STATIC:
        return (enum gs_status)c->gpu->st.status[f->idx];
    case SRC_SNAP:
        if (f->kind == FK_DRIVER && !c->snap->sys.driver_version[0])
            return GS_ST_NOT_AVAILABLE;
        if (f->kind == FK_KMD && !c->snap->sys.kmd_version[0])
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

static const char *addressing_str(uint32_t mode)
{
    static const char *const names[] = {"None", "HMM", "ATS"};
    return mode < NELEM(names) ? names[mode] : "Unknown";
}

static const char *fabric_state_str(uint32_t state)
{
    static const char *const names[] = {"N/A", "Not Started", "In Progress", "Completed"};
    return state < NELEM(names) ? names[state] : "Unknown";
}

/* One 2-bit field of the fabric health mask (or the summary byte): 0 is "not supported". */
static const char *fabric_health_str(const struct gs_field_def *f, const void *p)
{
    static const char *const summary[] = {"N/A", "Healthy", "Unhealthy", "Limited Capacity"};
    static const char *const flag[] = {"N/A", "True", "False", "Unknown"};
    static const char *const config[] = {"N/A", "None", "Incorrect SysGUID", "Incorrect Chassis Serial"};

    if (f->arg == 99) {
        uint32_t v = rd_u32((const char *)p + offsetof(struct gs_sample, fabric_health_summary) -
                            offsetof(struct gs_sample, fabric_health_mask));
        return v < NELEM(summary) ? summary[v] : "Unknown";
    }
    uint32_t v = (rd_u32(p) >> f->arg) & 0x3;
    return f->arg == 8 ? config[v] : flag[v];
}

static const char *recovery_str(uint32_t action)
{
    static const char *const names[] = {"None", "Reset", "Reboot", "Drain P2P", "Drain and Reset"};
    return action < NELEM(names) ? names[action] : "Unknown";
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
    case FK_NS_US:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)(rd_u64(p) / 1000));
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
    case FK_PCT2:
        snprintf(num, sizeof(num), "%u.00", rd_u32(p));
        break;
    case FK_ECCLOC:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)rd_u64((const uint64_t *)p + f->arg));
        break;
    case FK_PROF_PCT:
    case FK_PROF_BPS: {
        double v;
        memcpy(&v, p, sizeof(v));
        if (f->kind == FK_PROF_PCT)
            snprintf(num, sizeof(num), "%.1f", v * 100.0);
        else
            snprintf(num, sizeof(num), "%.0f", v);
        break;
    }
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
    case FK_HEX1:
        return put(buf, len, "0x%X", rd_u32(p));
    case FK_FABRIC_STATE:
        return put(buf, len, "%s", fabric_state_str(rd_u32(p)));
    case FK_FABRIC_STATUS:
        return rd_u32(p) == 0 ? put(buf, len, "Success") : put(buf, len, "Failure (NVML error %u)", rd_u32(p));
    case FK_UUID16: {
        const unsigned char *u = p;
        return put(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                   u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    }
    case FK_FABRIC_HEALTH:
        return put(buf, len, "%s", fabric_health_str(f, p));
    case FK_PEER_TYPE:
        return put(buf, len, "%s", rd_u32(p) ? "Switch Connected" : "Direct Connected");
    case FK_COMPUTE_MODE:
        return put(buf, len, "%s", compute_mode_str(rd_u32(p)));
    case FK_ADDRMODE:
        return put(buf, len, "%s", addressing_str(rd_u32(p)));
    case FK_RECOVERY:
        return put(buf, len, "%s", recovery_str(rd_u32(p)));
    case FK_VALID:
        return put(buf, len, "%s", rd_u32(p) ? "valid" : "invalid");
    default:
        return format_number(f, p, flags, buf, len);
    }
}

/* The driver's process name (nvidia-smi's source), else argv[0] from /proc. */
static size_t format_pname(const struct gs_gpu *g, const struct gs_proc *p, char *buf, size_t len)
{
    if (gs_proc_has(p, GS_P_NAME)) /* what nvidia-smi prints: the driver's name */
        return put(buf, len, "%s", gs_proc_name(g, p));
    const char *cmdline = gs_proc_cmdline(&g->text, p);
    if (cmdline[0])
        return put(buf, len, "%.*s", (int)strcspn(cmdline, " "), cmdline);
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
    case FK_KMD:
        return put(buf, len, "%s", c->snap->sys.kmd_version);
    case FK_COUNT:
        return put(buf, len, "%u", c->snap->ngpus);
    case FK_INDEX: /* a GPU of the fleet: its index on its node, as nvidia-smi there says */
        return put(buf, len, "%u", gs_static_has(&c->gpu->st, GS_S_HOST) ? c->gpu->st.host_index : c->gpu->st.index);
    case FK_HOST:
        return put(buf, len, "%s", gs_static_has(&c->gpu->st, GS_S_HOST) ? c->gpu->st.host : c->snap->sys.hostname);
    case FK_CC:
        return put(buf, len, "%d.%d", c->gpu->st.cc_major, c->gpu->st.cc_minor);
    case FK_PID:
        return put(buf, len, "%u", c->proc->pid);
    case FK_PNAME:
        return format_pname(c->gpu, c->proc, buf, len);
    case FK_PMEM:
        snprintf(num, sizeof(num), "%llu", (unsigned long long)(c->proc->gpu_mem_bytes >> 20));
        return put_num(buf, len, num, f->unit, flags);
    case FK_PGI:
        return put(buf, len, "%u", c->proc->gpu_instance_id);
    case FK_PCI:
        return put(buf, len, "%u", c->proc->compute_instance_id);
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
    /* R580 renamed display_mode to display_attached and prints the old name as deprecated */
    if ((f->flags & DEF_GONE580) && gs_driver_major(ctx->snap->sys.driver_version) >= GS_ERA_GONE)
        return put(buf, len, "%s", gs_field_status_str(GS_ST_DEPRECATED, 0));
    st = field_status(f, ctx);
    if (st != GS_ST_OK) {
        unsigned major = gs_driver_major(ctx->snap->sys.driver_version);
        if ((f->flags & DEF_BARE_NA) && (st == GS_ST_NOT_SUPPORTED || st == GS_ST_NOT_AVAILABLE))
            return put(buf, len, "N/A");
        return put(buf, len, "%s", gs_field_status_str(st, major));
    }
    if (f->src == SRC_SAMPLE)
        return format_member(f, (const char *)&ctx->gpu->s + f->off, flags, buf, len);
    if (f->src == SRC_STATIC && f->kind != FK_CC)
        return format_member(f, (const char *)&ctx->gpu->st + f->off, flags, buf, len);
    return format_other(f, ctx, flags, buf, len);
}
