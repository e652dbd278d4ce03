/* SPDX-License-Identifier: MIT */
/*
 * rules.c - the watch rules: parser and alert state machine (rules.h).
 */
#include "health/rules.h"
#include "health/report.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char gs_rules_default[] =
    "# gpuscope watch defaults (docs/HEALTH.md; thresholds from the health reference)\n"
    "temperature >= 85 for 1m clear 80 severity=warning\n"
    "memory_used_pct >= 90 for 30s clear 85 severity=warning\n"
    "finding xid.*\n"
    "finding ecc.uncorrectable severity=critical\n"
    "finding ecc.remap_failed severity=critical\n"
    "finding gpu.lost severity=critical\n"
    "finding gpu.count_low severity=critical\n"
    "finding thermal.hw_slowdown for 1m severity=warning\n"
    "repeat 0\n"
    "rate-limit 30 per 1m\n";

static const struct {
    const char *name;
    enum gs_metric m;
} metrics[] = {
    { "temperature", GS_M_TEMPERATURE }, { "mem_temperature", GS_M_MEM_TEMP },
    { "memory_used_pct", GS_M_MEMORY_USED_PCT }, { "gpu_util", GS_M_GPU_UTIL },
    { "power_w", GS_M_POWER_W }, { "power_pct", GS_M_POWER_PCT },
    { "ecc_uncorrected", GS_M_ECC_UNCORRECTED }, { "xid_count", GS_M_XID_COUNT },
};

static const char *metric_name(enum gs_metric m)
{
    for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++)
        if (metrics[k].m == m)
            return metrics[k].name;
    return "?";
}

#define MAXTOK 24

/* Split a line into words; "double quotes" keep blanks, at the start of a word
 * or inside one (name="GPU hot"): the quotes are removed. An unterminated
 * quote is an error. Returns the count or -1 with *why. */
static int split(char *s, char **tok, const char **why)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            return n;
        if (n == MAXTOK) {
            *why = "too many words";
            return -1;
        }
        char *out = s;
        tok[n++] = out;
        while (*s && *s != ' ' && *s != '\t') {
            if (*s != '"') {
                *out++ = *s++;
                continue;
            }
            for (s++; *s && *s != '"'; s++)
                *out++ = *s;
            if (!*s) {
                *why = "unterminated quote (a \" without its closing \")";
                return -1;
            }
            s++;
        }
        bool more = *s != '\0';
        *out = '\0';
        if (more)
            s++;
    }
}

static int parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v) && !errno ? 0 : -1;
}

static int parse_op(const char *s, enum gs_op *op)
{
    static const char *const ops[] = { "", ">=", ">", "<=", "<", "==" };
    for (int i = 1; i <= 5; i++)
        if (!strcmp(s, ops[i])) {
            *op = (enum gs_op)i;
            return 0;
        }
    return -1;
}

/* The words after the condition: for DUR, clear N, severity=S, name=ID. */
static const char *parse_opts(struct gs_rule *r, char **tok, int i, int n)
{
    for (; i < n; i++) {
        if (!strcmp(tok[i], "for") && i + 1 < n) {
            if ((r->for_ms = gs_health_duration_ms(tok[++i])) < 0)
                return "bad duration after 'for' (10s, 1m, 2h)";
        } else if (!strcmp(tok[i], "clear") && i + 1 < n) {
            if (!r->metric)
                return "'clear' applies to metric rules only";
            if (parse_num(tok[++i], &r->clear) < 0)
                return "bad number after 'clear'";
        } else if (!strncmp(tok[i], "severity=", 9)) {
            enum gs_sev s;
            if (gs_sev_parse(tok[i] + 9, &s) < 0)
                return "severity must be info, warning or critical";
            r->severity = (uint8_t)s;
        } else if (!strncmp(tok[i], "name=", 5) && tok[i][5]) {
            snprintf(r->name, sizeof(r->name), "%s", tok[i] + 5);
        } else {
            return "unexpected word (expected: for DUR, clear N, severity=S, name=ID)";
        }
    }
    return NULL;
}

static const char *parse_rule(struct gs_rules *rs, char **tok, int n, int line)
{
    if (rs->nrules == GS_RULES_MAX)
        return "too many rules";
    struct gs_rule *r = &rs->rules[rs->nrules];
    memset(r, 0, sizeof(*r));
    r->line = line;
    int i;
    if (!strcmp(tok[0], "finding")) {
        if (n < 2 || strlen(tok[1]) >= sizeof(r->pattern))
            return "'finding' needs a code pattern (xid.*, thermal.hw_slowdown)";
        snprintf(r->pattern, sizeof(r->pattern), "%s", tok[1]);
        snprintf(r->name, sizeof(r->name), "finding %s", tok[1]);
        i = 2;
    } else {
        for (size_t k = 0; k < sizeof(metrics) / sizeof(metrics[0]); k++)
            if (!strcmp(tok[0], metrics[k].name))
                r->metric = metrics[k].m;
        if (!r->metric)
            return "unknown metric or directive (temperature, mem_temperature, memory_used_pct, gpu_util, "
                   "power_w, power_pct, ecc_uncorrected, xid_count, finding, repeat, rate-limit, notify)";
        if (n < 3 || parse_op(tok[1], &r->op) < 0)
            return "expected an operator (>=, >, <=, <, ==) after the metric";
        if (parse_num(tok[2], &r->threshold) < 0)
            return "expected a number after the operator";
        r->clear = r->threshold;
        snprintf(r->name, sizeof(r->name), "%s %s %s", tok[0], tok[1], tok[2]);
        i = 3;
    }
    const char *why = parse_opts(r, tok, i, n);
    if (why)
        return why;
    if (r->metric && ((r->op <= GS_OP_GT && r->clear > r->threshold) ||
                      ((r->op == GS_OP_LE || r->op == GS_OP_LT) && r->clear < r->threshold)))
        return "'clear' must be on the healthy side of the threshold";
    rs->nrules++;
    return NULL;
}

static const char *parse_notify(struct gs_rules *rs, char **tok, int n)
{
    if (rs->ntargets == GS_TARGETS_MAX)
        return "too many notify targets";
    struct gs_notify_target *t = &rs->targets[rs->ntargets];
    memset(t, 0, sizeof(*t));
    if (n >= 3 && !strcmp(tok[1], "exec")) {
        if (tok[2][0] != '/')
            return "notify exec needs an absolute program path (no shell is used)";
        if (n - 2 > GS_NOTIFY_ARGS)
            return "too many arguments for notify exec";
        t->kind = GS_NOTIFY_EXEC;
        for (int i = 2; i < n; i++)
            if (!(t->argv[i - 2] = strdup(tok[i])))
                return "out of memory";
    } else if (n >= 3 && !strcmp(tok[1], "webhook")) {
        if (strncmp(tok[2], "http://", 7) && strncmp(tok[2], "https://", 8))
            return "notify webhook needs an http:// or https:// URL";
        if (strlen(tok[2]) >= sizeof(t->url))
            return "URL too long";
        t->kind = GS_NOTIFY_WEBHOOK;
        snprintf(t->url, sizeof(t->url), "%s", tok[2]);
        for (int i = 3; i < n; i++) {
            if (!strcmp(tok[i], "format=generic"))
                t->format = GS_WH_GENERIC;
            else if (!strcmp(tok[i], "format=slack"))
                t->format = GS_WH_SLACK;
            else if (!strcmp(tok[i], "format=alertmanager"))
                t->format = GS_WH_ALERTMANAGER;
            else
                return "webhook option must be format=generic, format=slack or format=alertmanager";
        }
    } else {
        return "expected 'notify exec /path/prog [args]' or 'notify webhook URL [format=...]'";
    }
    rs->ntargets++;
    return NULL;
}

static const char *parse_line(struct gs_rules *rs, char *s, int line)
{
    char *tok[MAXTOK];
    const char *why = NULL;
    int n = split(s, tok, &why);
    if (n <= 0)
        return why;
    if (!strcmp(tok[0], "repeat")) {
        if (n != 2 || (rs->repeat_ms = gs_health_duration_ms(tok[1])) < 0)
            return "expected 'repeat DURATION' (0 = never)";
        return NULL;
    }
    if (!strcmp(tok[0], "rate-limit")) {
        double v;
        if (n != 4 || parse_num(tok[1], &v) < 0 || v < 1 || v > 1e6 || strcmp(tok[2], "per") ||
            (rs->rate_window_ms = gs_health_duration_ms(tok[3])) <= 0)
            return "expected 'rate-limit N per DURATION'";
        rs->rate_n = (uint32_t)v;
        return NULL;
    }
    if (!strcmp(tok[0], "alertmanager-resend")) {
        if (n != 2 || (rs->am_resend_ms = gs_health_duration_ms(tok[1])) < 1000)
            return "expected 'alertmanager-resend DURATION' (at least 1s; Alertmanager resolves alerts not re-sent "
                   "within its resolve_timeout, 5m by default)";
        return NULL;
    }
    if (!strcmp(tok[0], "notify"))
        return parse_notify(rs, tok, n);
    return parse_rule(rs, tok, n, line);
}

int gs_rules_parse(struct gs_rules *rs, const char *text, size_t len, const char *fname, struct gs_err *err)
{
    const char *p = text, *end = text + len;
    char buf[1024];
    int line = 0;
    if (!rs->am_resend_ms)
        rs->am_resend_ms = 60000;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        line++;
        if (n >= sizeof(buf))
            return gs_err_set(err, GS_E_PARSE, "%s:%d: line too long", fname, line);
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (memchr(buf, '\0', n))
            return gs_err_set(err, GS_E_PARSE, "%s:%d: NUL byte in line", fname, line);
        if (n && buf[n - 1] == '\r')
            buf[n - 1] = '\0';
        const char *why = parse_line(rs, buf, line);
        if (why)
            return gs_err_set(err, GS_E_PARSE, "%s:%d: %s", fname, line, why);
        p = nl ? nl + 1 : end;
    }
    return 0;
}

int gs_rules_load(struct gs_rules *rs, const char *path, struct gs_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return gs_err_set(err, GS_E_USAGE, "%s: %s", path, strerror(errno));
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    bool big = buf && !feof(f);
    fclose(f);
    if (!buf)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    int rc = big ? gs_err_set(err, GS_E_PARSE, "%s: larger than 1 MiB", path) : gs_rules_parse(rs, buf, n, path, err);
    free(buf);
    return rc;
}

void gs_rules_free(struct gs_rules *rs)
{
    for (int i = 0; i < rs->ntargets; i++)
        for (int k = 0; k < GS_NOTIFY_ARGS; k++) {
            free(rs->targets[i].argv[k]);
            rs->targets[i].argv[k] = NULL;
        }
    rs->ntargets = 0;
}

/* ---- evaluation -------------------------------------------------------------------------- */

static bool metric_value(enum gs_metric m, const struct gs_gpu *g, double *v)
{
    const struct gs_sample *s = &g->s;
    if (g->state != GS_GPU_OK)
        return false;
    switch (m) {
    case GS_M_TEMPERATURE: *v = s->temp_gpu_c; return gs_sample_has(s, GS_F_TEMP_GPU);
    case GS_M_MEM_TEMP: *v = s->temp_mem_c; return gs_sample_has(s, GS_F_TEMP_MEM);
    case GS_M_MEMORY_USED_PCT:
        *v = s->mem_total_bytes ? 100.0 * (double)s->mem_used_bytes / (double)s->mem_total_bytes : 0;
        return gs_sample_has(s, GS_F_MEM_USED) && gs_sample_has(s, GS_F_MEM_TOTAL) && s->mem_total_bytes;
    case GS_M_GPU_UTIL: *v = s->gpu_util_pct; return gs_sample_has(s, GS_F_GPU_UTIL);
    case GS_M_POWER_W: *v = s->power_mw / 1000.0; return gs_sample_has(s, GS_F_POWER);
    case GS_M_POWER_PCT:
        *v = s->power_enforced_limit_mw ? 100.0 * s->power_mw / s->power_enforced_limit_mw : 0;
        return gs_sample_has(s, GS_F_POWER) && gs_sample_has(s, GS_F_POWER_ENFORCED) && s->power_enforced_limit_mw;
    case GS_M_ECC_UNCORRECTED: *v = (double)s->ecc_vol_uncorrected; return gs_sample_has(s, GS_F_ECC_VOL_UNCORR);
    case GS_M_XID_COUNT: *v = (double)s->xid_count; return gs_sample_has(s, GS_F_XID);
    }
    return false;
}

static bool compare(enum gs_op op, double v, double t)
{
    switch (op) {
    case GS_OP_GE: return v >= t;
    case GS_OP_GT: return v > t;
    case GS_OP_LE: return v <= t;
    case GS_OP_LT: return v < t;
    case GS_OP_EQ: return v == t;
    }
    return false;
}

/* Hysteresis: a firing alert resolves only once the value is past 'clear'. */
static bool is_cleared(const struct gs_rule *r, double v)
{
    switch (r->op) {
    case GS_OP_GE: return v < r->clear;
    case GS_OP_GT: return v <= r->clear;
    case GS_OP_LE: return v > r->clear;
    case GS_OP_LT: return v >= r->clear;
    case GS_OP_EQ: return v != r->threshold;
    }
    return true;
}

static struct gs_alert *alert_for(struct gs_rules *rs, int rule, int32_t gpu, uint32_t pid, const char *code,
                                  bool create)
{
    struct gs_alert *free_slot = NULL;
    for (int i = 0; i < GS_ALERTS_MAX; i++) {
        struct gs_alert *a = &rs->alerts[i];
        if (a->used && a->rule == rule && a->gpu == gpu && a->pid == pid && !strcmp(a->code, code))
            return a;
        if (!a->used && !free_slot)
            free_slot = a;
    }
    if (!create || !free_slot)
        return NULL;
    memset(free_slot, 0, sizeof(*free_slot));
    free_slot->used = true;
    free_slot->rule = rule;
    free_slot->gpu = gpu;
    free_slot->pid = pid;
    snprintf(free_slot->code, sizeof(free_slot->code), "%s", code);
    return free_slot;
}

static bool rate_ok(struct gs_rules *rs, int64_t t)
{
    if (!rs->rate_n)
        return true;
    if (t - rs->rate_start_ms >= rs->rate_window_ms) {
        rs->rate_start_ms = t;
        rs->rate_used = 0;
    }
    if (rs->rate_used >= rs->rate_n) {
        rs->suppressed++;
        return false;
    }
    rs->rate_used++;
    return true;
}

static void notify(struct gs_rules *rs, struct gs_alert *a, bool resolved, int64_t t, gs_note_fn fn, void *arg)
{
    a->notified_ms = t;
    struct gs_alert_note n = { resolved, !rate_ok(rs, t), &rs->rules[a->rule], a, t };
    fn(arg, &n);
}

/* One alert's step given whether its condition holds now (active) or is cleared. */
static void step(struct gs_rules *rs, struct gs_alert *a, bool active, bool cleared, int64_t t, gs_note_fn fn,
                 void *arg)
{
    const struct gs_rule *r = &rs->rules[a->rule];
    if (active) {
        a->seen_ms = t;
        if (!a->state || a->state == GS_AL_RESOLVED) {
            a->state = GS_AL_PENDING;
            a->since_ms = t;
        }
        if (a->state == GS_AL_PENDING && t - a->since_ms >= r->for_ms) {
            a->state = GS_AL_FIRING;
            a->fired_ms = t;
            notify(rs, a, false, t, fn, arg);
        } else if (a->state == GS_AL_FIRING && rs->repeat_ms > 0 && t - a->notified_ms >= rs->repeat_ms) {
            notify(rs, a, false, t, fn, arg);
        }
    } else if (a->state != GS_AL_FIRING) {
        a->used = false; /* a pending alert is forgotten without a word */
    } else if (cleared) {
        a->state = GS_AL_RESOLVED;
        notify(rs, a, true, t, fn, arg);
        a->used = false;
    }
}

static void eval_metric(struct gs_rules *rs, int ri, const struct gs_snapshot *snap, int64_t t, gs_note_fn fn,
                        void *arg)
{
    const struct gs_rule *r = &rs->rules[ri];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        double v;
        if (!metric_value(r->metric, g, &v))
            continue; /* unknown: keep the state */
        bool active = compare(r->op, v, r->threshold);
        struct gs_alert *a = alert_for(rs, ri, (int32_t)g->st.index, 0, "", active);
        if (!a)
            continue;
        bool cleared = !active && is_cleared(r, v);
        if (active || a->state != GS_AL_FIRING || cleared) {
            struct gs_finding *f = &a->last;
            f->severity = r->severity ? r->severity : GS_SEV_WARNING;
            f->gpu = (int32_t)g->st.index;
            f->value = v;
            snprintf(f->code, sizeof(f->code), "metric.%s", metric_name(r->metric));
            snprintf(f->title, sizeof(f->title), "GPU %u: %s (now %.1f)", g->st.index, r->name, v);
            snprintf(f->evidence, sizeof(f->evidence), "%s for %.0f s; clears below/above %g", r->name,
                     (double)(t - a->since_ms) / 1000.0, r->clear);
        }
        step(rs, a, active, cleared, t, fn, arg);
    }
}

static void eval_finding(struct gs_rules *rs, int ri, const struct gs_findings *fs, int64_t t, gs_note_fn fn,
                         void *arg)
{
    const struct gs_rule *r = &rs->rules[ri];
    for (size_t i = 0; i < fs->n; i++) {
        const struct gs_finding *f = &fs->v[i];
        if (fnmatch(r->pattern, f->code, 0) != 0)
            continue;
        struct gs_alert *a = alert_for(rs, ri, f->gpu, f->pid, f->code, true);
        if (!a)
            continue;
        a->last = *f;
        if (r->severity)
            a->last.severity = r->severity;
        step(rs, a, true, false, t, fn, arg);
    }
    /* alerts of this rule whose finding is gone */
    for (int k = 0; k < GS_ALERTS_MAX; k++) {
        struct gs_alert *a = &rs->alerts[k];
        if (a->used && a->rule == ri && a->seen_ms != t)
            step(rs, a, false, true, t, fn, arg);
    }
}

void gs_rules_eval(struct gs_rules *rs, const struct gs_snapshot *snap, const struct gs_findings *f, int64_t t_ms,
                   gs_note_fn fn, void *arg)
{
    for (int i = 0; i < rs->nrules; i++) {
        if (rs->rules[i].metric)
            eval_metric(rs, i, snap, t_ms, fn, arg);
        else
            eval_finding(rs, i, f, t_ms, fn, arg);
    }
}
