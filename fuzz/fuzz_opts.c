/* SPDX-License-Identifier: MIT */
/*
 * fuzz_opts.c - libFuzzer harness for the option tables' parser (cmd/opts.h):
 * the input is a command line (words split at newlines) parsed against a table
 * with every kind of row (flags, one and two values, an optional value, repeated
 * operands, a rest operand behind them). Invariants: the result is 0 or an
 * error with a message; a rest operand points into argv and ends at its NULL.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
    const char *s;
    bool b;
    int words;
    char **rest;
};

static int o_any(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    if (v && v[0])
        ((struct fz *)ctx)->s = v[0];
    return 0;
}
static int o_word(void *ctx, const char *const *v, struct gs_err *err)
{
    struct fz *f = ctx;
    (void)v;
    return ++f->words > 3 ? gs_err_set(err, GS_E_USAGE, "too many words") : 0;
}
static int o_rest(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    ((struct fz *)ctx)->rest = (char **)v;
    return 0;
}

static const struct gs_opt fz_opts[] = {
    { .lng = "--flag", .shrt = 'q', .help = "", GS_OPT_STORE_TRUE(struct fz, b) },
    { .lng = "--one", .shrt = 'o', .arg = "V", .set = o_any, .help = "" },
    { .lng = "--two", .arg = "A B", .set = o_any, .help = "" },
    { .lng = "--opt", .shrt = 'p', .arg = "V", .set = o_any, .help = "", .flags = GS_OPT_OPTIONAL },
    { .lng = "--help", .shrt = 'h', .set = o_any, .help = "" }, /* no built-in help on stdout */
    { .arg = "W", .set = o_word, .help = "" },
    { .arg = "REST", .set = o_rest, .help = "", .flags = GS_OPT_REST },
};
static const struct gs_cli fz_cli = { .name = "fz", .usage = "", .opts = fz_opts, .nopts = GS_NOPTS(fz_opts) };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf, *argv[66];
    int argc = 0;
    struct fz f = { 0 };
    struct gs_err err = { 0 };

    if (size > 4096)
        return 0;
    buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    argv[argc++] = (char *)"fz";
    for (char *w = buf, *nl; argc < 65; w = nl + 1) {
        nl = strchr(w, '\n');
        if (nl)
            *nl = '\0';
        argv[argc++] = w;
        if (!nl)
            break;
    }
    argv[argc] = NULL;
    int rc = gs_cli_parse(&fz_cli, argc, argv, &f, &err);
    if (rc < 0 && !err.msg[0])
        abort();
    if (rc > 0)
        abort(); /* nothing in this table stops the parse */
    if (f.rest && (f.rest < argv + 1 || f.rest >= argv + argc || argv[argc] != NULL))
        abort();
    free(buf);
    return 0;
}
