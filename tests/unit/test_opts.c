/* SPDX-License-Identifier: MIT */
/*
 * test_opts.c - the option tables' parser (cmd/opts.h): every spelling of a
 * value, clustered flags, operands in order and mixed with options, "--", a
 * rest operand that keeps the options of its own command line, the built-in
 * --help, and errors that name the option (missing value, value given to a
 * flag, unknown option, a word no operand takes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opts.h"

struct args {
    const char *db, *fmt, *first, *second, *explain[2], *demo;
    bool quiet, mono, demo_given;
    long n;
    int words;
    char **rest;
};

static int o_n(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_opt_long("--count", v[0], 1, 10, &((struct args *)ctx)->n, err);
}
static int o_word(void *ctx, const char *const *v, struct gs_err *err)
{
    struct args *a = ctx;
    (void)err;
    if (a->words++ == 0)
        a->first = v[0];
    else
        a->second = v[0];
    return 0;
}
static int o_rest(void *ctx, const char *const *v, struct gs_err *err)
{
    (void)err;
    ((struct args *)ctx)->rest = (char **)v;
    return 0;
}
static int o_explain(void *ctx, const char *const *v, struct gs_err *err)
{
    struct args *a = ctx;
    (void)err;
    a->explain[0] = v[0];
    a->explain[1] = v[1];
    return 0;
}
static int o_demo(void *ctx, const char *const *v, struct gs_err *err)
{
    struct args *a = ctx;
    (void)err;
    a->demo_given = true;
    a->demo = v[0];
    return 0;
}

static const struct gs_opt words_opts[] = {
    { .lng = "--db", .arg = "FILE", .help = "db", GS_OPT_STORE_STR(struct args, db) },
    { .lng = "--format", .shrt = 'f', .arg = "FMT", .help = "format", GS_OPT_STORE_STR(struct args, fmt) },
    { .lng = "--quiet", .shrt = 'q', .help = "quiet", GS_OPT_STORE_TRUE(struct args, quiet) },
    { .lng = "--mono", .shrt = 'C', .help = "mono", GS_OPT_STORE_TRUE(struct args, mono) },
    { .lng = "--count", .shrt = 'n', .arg = "N", .set = o_n, .help = "count" },
    { .lng = "--explain", .arg = "xid N", .set = o_explain, .help = "two values" },
    { .lng = "--demo", .arg = "SCENARIO", .set = o_demo, .help = "optional value", .flags = GS_OPT_OPTIONAL },
    { .arg = "WORD", .set = o_word, .help = "a word", .flags = GS_OPT_REPEAT },
};
static const struct gs_cli words_cli = {
    .name = "words", .usage = "gpuscope words [options] WORD...", .opts = words_opts, .nopts = GS_NOPTS(words_opts),
};

static const struct gs_opt rest_opts[] = {
    { .lng = "--quiet", .shrt = 'q', .help = "quiet", GS_OPT_STORE_TRUE(struct args, quiet) },
    { .arg = "COMMAND [ARGS...]", .set = o_rest, .help = "the command", .flags = GS_OPT_REST },
};
static const struct gs_cli rest_cli = {
    .name = "rest", .usage = "gpuscope rest [options] COMMAND...", .opts = rest_opts, .nopts = GS_NOPTS(rest_opts),
};

static const struct gs_opt two_opts[] = {
    { .arg = "ONE", .set = o_word, .help = "first" },
    { .arg = "TWO", .set = o_word, .help = "second" },
};
static const struct gs_cli two_cli = { .name = "two", .usage = "gpuscope two A B", .opts = two_opts, .nopts = 2 };

/* Parse the words after "cmd" (argv[0]) into a fresh *a. */
#define PARSE(cli, a, err, ...)                                                      \
    parse_words(cli, a, err, (const char *[]){ "cmd", __VA_ARGS__, NULL },           \
                sizeof((const char *[]){ "cmd", __VA_ARGS__ }) / sizeof(const char *))

static int parse_words(const struct gs_cli *cli, struct args *a, struct gs_err *err, const char **argv, size_t argc)
{
    memset(a, 0, sizeof(*a));
    memset(err, 0, sizeof(*err));
    return gs_cli_parse(cli, (int)argc, (char **)argv, a, err);
}

static void test_value_spellings(void **state)
{
    struct args a;
    struct gs_err err;
    (void)state;
    assert_int_equal(PARSE(&words_cli, &a, &err, "--db", "x.db", "--format=json"), 0);
    assert_string_equal(a.db, "x.db");
    assert_string_equal(a.fmt, "json");
    assert_int_equal(PARSE(&words_cli, &a, &err, "-fcsv", "-n", "3"), 0);
    assert_string_equal(a.fmt, "csv");
    assert_int_equal(a.n, 3);
    assert_int_equal(PARSE(&words_cli, &a, &err, "--db", "-"), 0); /* a value may look like an option */
    assert_string_equal(a.db, "-");
    assert_int_equal(PARSE(&words_cli, &a, &err, "--explain", "xid", "79"), 0);
    assert_string_equal(a.explain[0], "xid");
    assert_string_equal(a.explain[1], "79");
}

static void test_clusters_and_optional_values(void **state)
{
    struct args a;
    struct gs_err err;
    (void)state;
    assert_int_equal(PARSE(&words_cli, &a, &err, "-qC"), 0);
    assert_true(a.quiet && a.mono);
    assert_int_equal(PARSE(&words_cli, &a, &err, "-qn4"), 0); /* the last of a cluster takes a value */
    assert_true(a.quiet);
    assert_int_equal(a.n, 4);
    assert_int_equal(PARSE(&words_cli, &a, &err, "--demo", "w"), 0); /* no '=': no value, w is an operand */
    assert_true(a.demo_given);
    assert_null(a.demo);
    assert_string_equal(a.first, "w");
    assert_int_equal(PARSE(&words_cli, &a, &err, "--demo=mixed"), 0);
    assert_string_equal(a.demo, "mixed");
}

static void test_operands_mix_with_options(void **state)
{
    struct args a;
    struct gs_err err;
    (void)state;
    assert_int_equal(PARSE(&words_cli, &a, &err, "one", "-q", "two"), 0);
    assert_int_equal(a.words, 2);
    assert_string_equal(a.first, "one");
    assert_string_equal(a.second, "two");
    assert_true(a.quiet);
    assert_int_equal(PARSE(&words_cli, &a, &err, "--", "-q", "-"), 0); /* after --, words only */
    assert_false(a.quiet);
    assert_string_equal(a.first, "-q");
    assert_string_equal(a.second, "-");
}

static void test_rest_keeps_its_options(void **state)
{
    struct args a;
    struct gs_err err;
    (void)state;
    assert_int_equal(PARSE(&rest_cli, &a, &err, "-q", "python", "-q", "--lr=3"), 0);
    assert_true(a.quiet);
    assert_non_null(a.rest);
    assert_string_equal(a.rest[0], "python");
    assert_string_equal(a.rest[1], "-q");
    assert_string_equal(a.rest[2], "--lr=3");
    assert_null(a.rest[3]);
    assert_int_equal(PARSE(&rest_cli, &a, &err, "--", "--weird"), 0);
    assert_string_equal(a.rest[0], "--weird");
}

static void test_errors_name_the_option(void **state)
{
    struct args a;
    struct gs_err err;
    (void)state;
    assert_int_equal(PARSE(&words_cli, &a, &err, "--db"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "--db needs a value (FILE)"));
    assert_int_equal(PARSE(&words_cli, &a, &err, "--explain", "xid"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "--explain needs two values"));
    assert_int_equal(PARSE(&words_cli, &a, &err, "--quiet=yes"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "--quiet takes no value"));
    assert_int_equal(PARSE(&words_cli, &a, &err, "--bogus"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "words: unknown option '--bogus'"));
    assert_int_equal(PARSE(&words_cli, &a, &err, "-qx"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "unknown option '-x'"));
    assert_int_equal(PARSE(&words_cli, &a, &err, "--count", "11"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "--count: '11' is not a number from 1 to 10"));
    assert_int_equal(PARSE(&words_cli, &a, &err, "--dbx=1"), -GS_E_USAGE); /* no prefix matching */
    assert_int_equal(PARSE(&two_cli, &a, &err, "a", "b", "c"), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "two: unexpected argument 'c'"));
}

static void test_builtin_help(void **state)
{
    struct args a;
    struct gs_err err;
    char *buf = NULL;
    size_t len = 0;
    (void)state;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    gs_cli_help(f, &words_cli);
    fclose(f);
    assert_non_null(strstr(buf, "usage: gpuscope words [options] WORD...\n"));
    assert_non_null(strstr(buf, "  -f, --format=FMT         format\n"));
    assert_non_null(strstr(buf, "  --explain xid N          two values\n"));
    assert_non_null(strstr(buf, "  --demo[=SCENARIO]        optional value\n"));
    assert_null(strstr(buf, "WORD  ")); /* operands are the usage line's, not option rows */
    free(buf);
    fflush(stdout);
    FILE *saved = stdout;
    stdout = fopen("/dev/null", "w");
    assert_int_equal(PARSE(&words_cli, &a, &err, "one", "--help", "--bogus"), GS_OPT_DONE);
    assert_int_equal(PARSE(&words_cli, &a, &err, "-h"), GS_OPT_DONE);
    fclose(stdout);
    stdout = saved;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_spellings),
        cmocka_unit_test(test_clusters_and_optional_values),
        cmocka_unit_test(test_operands_mix_with_options),
        cmocka_unit_test(test_rest_keeps_its_options),
        cmocka_unit_test(test_errors_name_the_option),
        cmocka_unit_test(test_builtin_help),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
