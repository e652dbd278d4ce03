/* SPDX-License-Identifier: MIT */
/*
 * scenario_value.c - scenario values: numbers with units and functions of the
 * scenario time t (ramp, sine, saw, square, noise, step, ...), parsed into small
 * expression trees and evaluated lazily, plus the arena that owns them.
 * Part of the stand-alone parser (no simulator runtime here).
 */
#include "scenario.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- arena ------------------------------------------------------------------ */

struct gs_scn_arena {
    struct gs_scn_arena *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

void *gs_scn_arena_alloc(struct gs_scn *s, size_t size)
{
    size = (size + 15u) & ~(size_t)15u;
    struct gs_scn_arena *a = s->arena;
    if (!a || a->cap - a->used < size) {
        size_t cap = size > 16384 ? size : 16384;
        a = calloc(1, sizeof(*a) + cap);
        if (!a)
            return NULL;
        a->cap = cap;
        a->next = s->arena;
        s->arena = a;
    }
    void *p = a->data + a->used;
    a->used += size;
    return p;
}

char *gs_scn_arena_strdup(struct gs_scn *s, const char *str, size_t len)
{
    char *p = gs_scn_arena_alloc(s, len + 1);
    if (!p)
        return NULL;
    memcpy(p, str, len);
    p[len] = '\0';
    return p;
}

void gs_scn_arena_release(struct gs_scn_arena *a)
{
    while (a) {
        struct gs_scn_arena *next = a->next;
        free(a);
        a = next;
    }
}

/* ---- noise ------------------------------------------------------------------ */

static unsigned scn_hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static double scn_lattice(unsigned seed, long long k)
{
    unsigned h = scn_hash(seed ^ scn_hash((unsigned)k ^ scn_hash((unsigned)(k >> 32) + 0x9e3779b9u)));
    return (double)h / 2147483647.5 - 1.0;
}

double gs_scn_noise(unsigned seed, double x)
{
    if (!isfinite(x))
        return 0.0;
    double fl = floor(x);
    double f = x - fl;
    long long k = (long long)fl;
    double a = scn_lattice(seed, k), b = scn_lattice(seed, k + 1);
    double s = f * f * (3.0 - 2.0 * f);
    return a + (b - a) * s;
}

/* ---- evaluation --------------------------------------------------------------- */

static double scn_frac(double x)
{
    return x - floor(x);
}

static double scn_eval_var(const struct gs_scn_expr *e, double t, const struct gs_scn_env *env)
{
    if (!env || !env->gpu || env->depth >= 8 || e->var < 0 || e->var >= GS_SCN_N__COUNT)
        return 0.0;
    struct gs_scn_env sub = *env;
    sub.depth++;
    return gs_scn_eval(env->gpu->num[e->var], t, &sub);
}

static double scn_eval_wave(const struct gs_scn_expr *e, double t, const double *a)
{
    double period = a[2] > 0 ? a[2] : 1.0;
    switch (e->op) {
    case GS_OP_SINE:
        return a[0] + a[1] * sin(2.0 * M_PI * (t + (e->nargs > 3 ? a[3] : 0)) / period);
    case GS_OP_SAW:
        return a[0] + (a[1] - a[0]) * scn_frac((t + (e->nargs > 3 ? a[3] : 0)) / period);
    default: /* GS_OP_SQUARE */
        return scn_frac(t / period) < (e->nargs > 3 ? a[3] : 0.5) ? a[1] : a[0];
    }
}

static double scn_eval_fold(const struct gs_scn_expr *e, const double *a)
{
    double v = a[0];
    for (int i = 1; i < e->nargs; i++) {
        if (e->op == GS_OP_ADD)
            v += a[i];
        else if (e->op == GS_OP_MUL)
            v *= a[i];
        else if (e->op == GS_OP_MIN)
            v = a[i] < v ? a[i] : v;
        else
            v = a[i] > v ? a[i] : v;
    }
    return v;
}

double gs_scn_eval(const struct gs_scn_expr *e, double t, const struct gs_scn_env *env)
{
    double a[GS_SCN_MAX_ARGS] = {0};
    if (!e)
        return 0.0;
    if (e->op == GS_OP_CONST)
        return e->k;
    if (e->op == GS_OP_T)
        return t;
    if (e->op == GS_OP_VAR)
        return scn_eval_var(e, t, env);
    for (int i = 0; i < e->nargs; i++) /* constants inline: most arguments are */
        a[i] = e->arg[i] && e->arg[i]->op == GS_OP_CONST ? e->arg[i]->k : gs_scn_eval(e->arg[i], t, env);
    switch (e->op) {
    case GS_OP_RAMP:
        if (t <= a[2] || a[3] <= a[2])
            return t <= a[2] ? a[0] : a[1];
        return t >= a[3] ? a[1] : a[0] + (a[1] - a[0]) * (t - a[2]) / (a[3] - a[2]);
    case GS_OP_LINEAR: {
        double t0 = e->nargs > 2 ? a[2] : 0.0;
        return a[0] + a[1] * (t > t0 ? t - t0 : 0.0);
    }
    case GS_OP_SINE:
    case GS_OP_SAW:
    case GS_OP_SQUARE:
        return scn_eval_wave(e, t, a);
    case GS_OP_NOISE: {
        unsigned seed = e->salt ^ (unsigned)(long long)a[2] * 2654435761u ^
                        (env ? scn_hash(env->salt + 1u) : 0u);
        double period = e->nargs > 3 && a[3] > 0 ? a[3] : 1.0;
        return a[0] + a[1] * gs_scn_noise(seed, t / period);
    }
    case GS_OP_STEP:
        return t >= a[2] ? a[1] : a[0];
    case GS_OP_CLAMP:
        return a[0] < a[1] ? a[1] : a[0] > a[2] ? a[2] : a[0];
    default:
        return scn_eval_fold(e, a);
    }
}

/* ---- parsing ------------------------------------------------------------------ */

struct scn_vparse {
    struct gs_scn *s;
    const char *p;      /* cursor */
    const char *text;   /* whole value, for messages */
    unsigned salt;
    char *err;
    size_t errlen;
};

static const struct {
    const char *name;
    enum gs_scn_op op;
    int min_args, max_args;
} scn_funcs[] = {
    {"ramp", GS_OP_RAMP, 4, 4},     {"linear", GS_OP_LINEAR, 2, 3}, {"sine", GS_OP_SINE, 3, 4},
    {"saw", GS_OP_SAW, 3, 4},       {"sawtooth", GS_OP_SAW, 3, 4},  {"square", GS_OP_SQUARE, 3, 4},
    {"noise", GS_OP_NOISE, 2, 4},   {"step", GS_OP_STEP, 3, 3},     {"clamp", GS_OP_CLAMP, 3, 3},
    {"add", GS_OP_ADD, 2, 6},       {"mul", GS_OP_MUL, 2, 6},       {"min", GS_OP_MIN, 2, 6},
    {"max", GS_OP_MAX, 2, 6},
};

/* Unit suffixes scale a number into the field's base unit (bytes, mW, MHz, s). */
static const struct {
    const char *suffix;
    double scale;
} scn_units[] = {
    {"B", 1.0},          {"KiB", 1024.0},     {"MiB", 1048576.0}, {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0}, {"KB", 1e3},    {"MB", 1e6},         {"GB", 1e9},
    {"TB", 1e12},        {"mW", 1.0},         {"W", 1000.0},       {"kW", 1e6},
    {"mJ", 1.0},         {"J", 1000.0},       {"kJ", 1e6},         {"MHz", 1.0},
    {"GHz", 1000.0},     {"C", 1.0},          {"%", 1.0},          {"s", 1.0},
    {"ms", 0.001},       {"min", 60.0},       {"h", 3600.0},       {"KBps", 1.0},
    {"MBps", 1000.0},    {"GBps", 1e6},
};

static const struct {
    const char *word;
    double value;
} scn_words[] = {
    {"on", 1}, {"off", 0}, {"yes", 1}, {"no", 0}, {"true", 1}, {"false", 0},
    {"enabled", 1}, {"disabled", 0}, {"inf", INFINITY}, {"never", INFINITY},
};

__attribute__((format(printf, 2, 3))) static int scn_verr(struct scn_vparse *v, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(v->err, v->errlen, "bad value '%s': %s", v->text, what);
    return -1;
}

static void scn_skip_ws(struct scn_vparse *v)
{
    while (*v->p == ' ' || *v->p == '\t')
        v->p++;
}

static struct gs_scn_expr *scn_new_expr(struct scn_vparse *v, enum gs_scn_op op)
{
    struct gs_scn_expr *e = gs_scn_arena_alloc(v->s, sizeof(*e));
    if (e) {
        memset(e, 0, sizeof(*e));
        e->op = op;
        e->salt = v->salt;
    }
    return e;
}

static int scn_parse_unit(struct scn_vparse *v, double *x)
{
    const char *start = v->p;
    while (isalpha((unsigned char)*v->p) || *v->p == '%')
        v->p++;
    size_t n = (size_t)(v->p - start);
    if (n == 0)
        return 0;
    for (size_t i = 0; i < sizeof(scn_units) / sizeof(scn_units[0]); i++) {
        if (strlen(scn_units[i].suffix) == n && strncmp(scn_units[i].suffix, start, n) == 0) {
            *x *= scn_units[i].scale;
            return 0;
        }
    }
    return scn_verr(v, "unknown unit '%.*s' (use B KiB MiB GiB TiB KB MB GB W mW mJ J MHz GHz C %% s ms min h)",
                    (int)n, start);
}

static int scn_parse_number(struct scn_vparse *v, struct gs_scn_expr **out)
{
    char *end;
    double x;
    if (v->p[0] == '0' && (v->p[1] == 'x' || v->p[1] == 'X'))
        x = (double)strtoull(v->p, &end, 16);
    else
        x = strtod(v->p, &end);
    if (end == v->p || !isfinite(x))
        return scn_verr(v, "expected a number at '%s'", v->p);
    v->p = end;
    if (scn_parse_unit(v, &x) < 0)
        return -1;
    *out = scn_new_expr(v, GS_OP_CONST);
    if (!*out)
        return scn_verr(v, "out of memory");
    (*out)->k = x;
    return 0;
}

static int scn_parse_expr(struct scn_vparse *v, struct gs_scn_expr **out, int depth);

static int scn_parse_call(struct scn_vparse *v, int fi, struct gs_scn_expr **out, int depth)
{
    struct gs_scn_expr *e = scn_new_expr(v, scn_funcs[fi].op);
    if (!e)
        return scn_verr(v, "out of memory");
    v->p++; /* '(' */
    for (;;) {
        scn_skip_ws(v);
        if (*v->p == ')' && e->nargs == 0)
            break;
        if (e->nargs == GS_SCN_MAX_ARGS)
            return scn_verr(v, "%s() takes at most %d arguments", scn_funcs[fi].name,
                            scn_funcs[fi].max_args);
        if (scn_parse_expr(v, &e->arg[e->nargs], depth + 1) < 0)
            return -1;
        e->nargs++;
        scn_skip_ws(v);
        if (*v->p == ',') {
            v->p++;
            continue;
        }
        if (*v->p == ')')
            break;
        return scn_verr(v, "expected ',' or ')' in %s(...)", scn_funcs[fi].name);
    }
    v->p++;
    if (e->nargs < scn_funcs[fi].min_args || e->nargs > scn_funcs[fi].max_args)
        return scn_verr(v, "%s() takes %d to %d arguments, got %d", scn_funcs[fi].name,
                        scn_funcs[fi].min_args, scn_funcs[fi].max_args, e->nargs);
    *out = e;
    return 0;
}

static int scn_parse_word(struct scn_vparse *v, const char *w, size_t n, struct gs_scn_expr **out)
{
    if (n == 1 && w[0] == 't') {
        *out = scn_new_expr(v, GS_OP_T);
        return *out ? 0 : scn_verr(v, "out of memory");
    }
    for (size_t i = 0; i < sizeof(scn_words) / sizeof(scn_words[0]); i++) {
        if (strlen(scn_words[i].word) == n && strncasecmp(scn_words[i].word, w, n) == 0) {
            *out = scn_new_expr(v, GS_OP_CONST);
            if (!*out)
                return scn_verr(v, "out of memory");
            (*out)->k = scn_words[i].value;
            return 0;
        }
    }
    char name[48];
    snprintf(name, sizeof(name), "%.*s", (int)(n < 47 ? n : 47), w);
    int var = gs_scn_num_code(name);
    if (var < 0)
        return scn_verr(v, "unknown name '%s' (a function needs '(', a variable must be a GPU attribute such as util or power)",
                        name);
    *out = scn_new_expr(v, GS_OP_VAR);
    if (!*out)
        return scn_verr(v, "out of memory");
    (*out)->var = var;
    return 0;
}

static int scn_parse_expr(struct scn_vparse *v, struct gs_scn_expr **out, int depth)
{
    if (depth > 16)
        return scn_verr(v, "nested too deeply");
    scn_skip_ws(v);
    if (isdigit((unsigned char)*v->p) || *v->p == '-' || *v->p == '+' || *v->p == '.')
        return scn_parse_number(v, out);
    const char *w = v->p;
    while (isalnum((unsigned char)*v->p) || *v->p == '_')
        v->p++;
    size_t n = (size_t)(v->p - w);
    if (n == 0)
        return *v->p ? scn_verr(v, "unexpected '%c'", *v->p) : scn_verr(v, "empty value");
    scn_skip_ws(v);
    if (*v->p != '(')
        return scn_parse_word(v, w, n, out);
    for (size_t i = 0; i < sizeof(scn_funcs) / sizeof(scn_funcs[0]); i++) {
        if (strlen(scn_funcs[i].name) == n && strncmp(scn_funcs[i].name, w, n) == 0)
            return scn_parse_call(v, (int)i, out, depth);
    }
    return scn_verr(v, "unknown function '%.*s' (known: ramp linear sine saw square noise step clamp add mul min max)",
                    (int)(n > 40 ? 40 : n), w);
}

int gs_scn_parse_value(struct gs_scn *s, const char *text, unsigned salt, struct gs_scn_expr **out,
                       char *err, size_t errlen)
{
    struct scn_vparse v = {.s = s, .p = text, .text = text, .salt = salt, .err = err,
                           .errlen = errlen};
    if (scn_parse_expr(&v, out, 0) < 0)
        return -1;
    scn_skip_ws(&v);
    if (*v.p)
        return scn_verr(&v, "unexpected '%s' after the value", v.p);
    return 0;
}
