/* SPDX-License-Identifier: MIT */
/*
 * opts.c - table-driven option parsing and help (opts.h).
 */
#include "cmd/opts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/exit.h"

/* One parse: the table, where the operands have got to, who to call. */
struct parse {
    const struct gs_cli *cli; /* NULL for gs_opts_parse: no built-in --help */
    const struct gs_opt *t;
    size_t n;
    const char *cmd;
    void *ctx;
    size_t operand; /* the next operand row to look at */
};

int gs_opt_str(void *field, const char *const *v, struct gs_err *err)
{
    (void)err;
    *(const char **)field = v[0];
    return 0;
}

int gs_opt_true(void *field, const char *const *v, struct gs_err *err)
{
    (void)v, (void)err;
    *(bool *)field = true;
    return 0;
}

int gs_opt_long(const char *opt, const char *v, long lo, long hi, long *out, struct gs_err *err)
{
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end || errno || n < lo || n > hi)
        return gs_err_set(err, GS_E_USAGE, "%s: '%s' is not a number from %ld to %ld", opt, v, lo, hi);
    *out = n;
    return 0;
}

static int nvalues(const struct gs_opt *o)
{
    return !o->arg ? 0 : strchr(o->arg, ' ') ? 2 : 1;
}

static int call(const struct parse *p, const struct gs_opt *o, const char *const *v, struct gs_err *err)
{
    if (o->set)
        return o->set(p->ctx, v, err);
    if (o->store)
        return o->store((char *)p->ctx + o->off, v, err);
    return gs_err_set(err, GS_E_INTERNAL, "%s: %s has no setter", p->cmd, o->lng ? o->lng : o->arg);
}

static const struct gs_opt *find_long(const struct parse *p, const char *a, size_t len)
{
    for (size_t k = 0; k < p->n; k++)
        if (p->t[k].lng && strlen(p->t[k].lng) == len && !strncmp(a, p->t[k].lng, len))
            return &p->t[k];
    return NULL;
}

static const struct gs_opt *find_short(const struct parse *p, char c)
{
    for (size_t k = 0; k < p->n; k++)
        if (p->t[k].lng && p->t[k].shrt == c)
            return &p->t[k];
    return NULL;
}

static int unknown(const struct parse *p, const char *a, struct gs_err *err)
{
    return gs_err_set(err, GS_E_USAGE, "%s: unknown option '%s' (see gpuscope %s --help)", p->cmd, a, p->cmd);
}

/* The built-in -h/--help, when the table has no row of its own for it. */
static int builtin_help(const struct parse *p)
{
    gs_cli_help(stdout, p->cli);
    return GS_OPT_DONE;
}

/* The values of o from argv after *i (moved past them); inline is "=v" or "-xV"'s V, or NULL. */
static int take_values(const struct parse *p, const struct gs_opt *o, const char *inl, int argc, char **argv,
                       int *i, struct gs_err *err)
{
    const char *v[2] = { NULL, NULL };
    int need = nvalues(o);
    const char *name = o->lng;
    if (inl) {
        if (need != 1)
            return gs_err_set(err, GS_E_USAGE, "%s: %s %s", p->cmd, name, need ? "takes two values" : "takes no value");
        v[0] = inl;
    } else if (!(o->flags & GS_OPT_OPTIONAL)) {
        for (int k = 0; k < need; k++) {
            if (*i + 1 >= argc)
                return gs_err_set(err, GS_E_USAGE, "%s: %s needs %s (%s)", p->cmd, name,
                                  need == 2 ? "two values" : "a value", o->arg);
            v[k] = argv[++*i];
        }
    }
    return call(p, o, v, err);
}

static int long_opt(struct parse *p, int argc, char **argv, int *i, struct gs_err *err)
{
    const char *a = argv[*i];
    size_t len = strcspn(a, "=");
    const struct gs_opt *o = find_long(p, a, len);
    if (!o && p->cli && !strcmp(a, "--help"))
        return builtin_help(p);
    if (!o)
        return unknown(p, a, err);
    return take_values(p, o, a[len] == '=' ? a + len + 1 : NULL, argc, argv, i, err);
}

/* "-x", "-xVALUE", "-qC" (flags clustered), "-qd 2" (the last one takes a value). */
static int short_opts(struct parse *p, int argc, char **argv, int *i, struct gs_err *err)
{
    const char *a = argv[*i];
    for (const char *c = a + 1; *c; c++) {
        const struct gs_opt *o = find_short(p, *c);
        if (!o && p->cli && *c == 'h' && c == a + 1 && !c[1])
            return builtin_help(p);
        if (!o) {
            char one[3] = { '-', *c, 0 };
            return unknown(p, c == a + 1 && !c[1] ? a : one, err);
        }
        if (nvalues(o))
            return take_values(p, o, c[1] ? c + 1 : NULL, argc, argv, i, err);
        int rc = call(p, o, NULL, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

#define TOOK_REST 2

/* A word that is not an option: the next operand row takes it. Returns
 * TOOK_REST when a GS_OPT_REST row took it and everything after it. */
static int operand(struct parse *p, char **argv, int i, struct gs_err *err)
{
    for (; p->operand < p->n; p->operand++) {
        const struct gs_opt *o = &p->t[p->operand];
        if (o->lng)
            continue;
        const char *const *v = (const char *const *)&argv[i];
        int rc = call(p, o, v, err);
        if (rc != 0)
            return rc;
        if (o->flags & GS_OPT_REST)
            return TOOK_REST;
        if (!(o->flags & GS_OPT_REPEAT))
            p->operand++;
        return 0;
    }
    return gs_err_set(err, GS_E_USAGE, "%s: unexpected argument '%s' (see gpuscope %s --help)", p->cmd, argv[i],
                      p->cmd);
}

static int parse(struct parse *p, int argc, char **argv, struct gs_err *err)
{
    bool operands_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc;
        if (!operands_only && !strcmp(a, "--")) {
            operands_only = true;
            continue;
        }
        if (operands_only || a[0] != '-' || !a[1]) {
            rc = operand(p, argv, i, err);
            if (rc == TOOK_REST)
                return 0;
        } else {
            rc = a[1] == '-' ? long_opt(p, argc, argv, &i, err) : short_opts(p, argc, argv, &i, err);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

int gs_cli_fail(const struct gs_cli *cli, const struct gs_err *err)
{
    size_t n = strlen(cli->name);
    const char *msg = err->msg;
    if (!strncmp(msg, cli->name, n) && !strncmp(msg + n, ": ", 2))
        msg += n + 2; /* the parser's own "report: ..." */
    fprintf(stderr, "gpuscope %s: %s\n", cli->name, msg);
    if (err->hint[0])
        fprintf(stderr, "  hint: %s\n", err->hint);
    return gs_exit_from_errc(err->code);
}

int gs_cli_parse(const struct gs_cli *cli, int argc, char **argv, void *ctx, struct gs_err *err)
{
    struct parse p = { .cli = cli, .t = cli->opts, .n = cli->nopts, .cmd = cli->name, .ctx = ctx };
    return parse(&p, argc, argv, err);
}

int gs_opts_parse(const struct gs_opt *t, size_t n, int argc, char **argv, void *ctx, const char *cmd,
                  struct gs_err *err)
{
    struct parse p = { .t = t, .n = n, .cmd = cmd, .ctx = ctx };
    return parse(&p, argc, argv, err);
}

/* "-i, --id=IDS", "--explain xid N", "--demo[=SCENARIO]" */
static void left_column(const struct gs_opt *o, char *buf, size_t len)
{
    char shrt[8] = "";
    if (o->shrt)
        snprintf(shrt, sizeof(shrt), "-%c, ", o->shrt);
    if (!o->arg)
        snprintf(buf, len, "%s%s", shrt, o->lng);
    else if (o->flags & GS_OPT_OPTIONAL)
        snprintf(buf, len, "%s%s[=%s]", shrt, o->lng, o->arg);
    else
        snprintf(buf, len, "%s%s%s%s", shrt, o->lng, strchr(o->arg, ' ') ? " " : "=", o->arg);
}

#define HELP_COL 24

static void help_row(FILE *out, const struct gs_opt *o)
{
    char left[96];
    left_column(o, left, sizeof(left));
    if (strlen(left) >= HELP_COL)
        fprintf(out, "  %s\n  %-*s ", left, HELP_COL, "");
    else
        fprintf(out, "  %-*s ", HELP_COL, left);
    for (const char *h = o->help; *h; h++) {
        fputc(*h, out);
        if (*h == '\n')
            fprintf(out, "  %-*s ", HELP_COL, "");
    }
    fprintf(out, "%s\n", o->flags & GS_OPT_REPEAT ? " (repeatable)" : "");
}

void gs_opts_help(FILE *out, const struct gs_opt *t, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const struct gs_opt *o = &t[k];
        if (o->section)
            fprintf(out, "%s%s\n", k ? "\n" : "", o->section);
        if (!o->lng || (o->flags & GS_OPT_HIDDEN))
            continue;
        help_row(out, o);
    }
}

void gs_cli_help(FILE *out, const struct gs_cli *cli)
{
    const char *u = cli->usage;
    for (int first = 1; u && *u; first = 0) {
        size_t len = strcspn(u, "\n");
        fprintf(out, "%s%.*s\n", first ? "usage: " : "       ", (int)len, u);
        u += len + (u[len] == '\n');
    }
    if (cli->about)
        fprintf(out, "\n%s\n", cli->about);
    fputc('\n', out);
    gs_opts_help(out, cli->opts, cli->nopts);
    if (cli->footer)
        fprintf(out, "\n%s\n", cli->footer);
}
