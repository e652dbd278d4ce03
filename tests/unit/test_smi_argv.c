/* SPDX-License-Identifier: MIT */
/*
 * test_smi_argv.c - nvidia-smi's spellings rewritten for the option table's
 * parser (cmd/smi_argv.h): -lms and -lms=MS become --loop-ms, -i=0 becomes
 * --id 0, an option's value and everything after "--" stay as they are, and
 * what no row names is left for the parser to report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/opts.h"
#include "cmd/smi_argv.h"

static const struct gs_opt rows[] = {
    { .lng = "--loop-ms", .arg = "MS", .help = "repeat every MS milliseconds" },
    { .lng = "--loop", .shrt = 'l', .arg = "SECONDS", .help = "repeat" },
    { .lng = "--id", .shrt = 'i', .arg = "IDS", .help = "these GPUs" },
    { .lng = "--details", .shrt = 'q', .help = "everything" },
    { .lng = "--match", .arg = "SELECTOR", .help = "series" },
};
static const struct gs_cli cli = { .name = "query", .usage = "q", .opts = rows, .nopts = GS_NOPTS(rows) };

/* The rewritten words of "query" + the NULL-ended in[], joined by spaces. */
static const char *rewrite(const char *const *in)
{
    static char out[256];
    char *argv[16] = { (char *)"query" };
    char **v;
    int argc = 1;
    while (*in)
        argv[argc++] = (char *)*in++;
    int n = gs_smi_argv(&cli, argc, argv, &v);
    assert_true(n > 0);
    assert_null(v[n]);
    out[0] = '\0';
    for (int k = 1; k < n; k++)
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", k > 1 ? " " : "", v[k]);
    free(v);
    return out;
}

#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void lms(void **state)
{
    (void)state;
    assert_string_equal(rewrite(WORDS("-lms", "500")), "--loop-ms 500");
    assert_string_equal(rewrite(WORDS("-lms=20", "-q")), "--loop-ms 20 -q");
    assert_string_equal(rewrite(WORDS("-l", "1", "-lms")), "-l 1 --loop-ms");
}

static void short_equals(void **state)
{
    (void)state;
    assert_string_equal(rewrite(WORDS("-i=0,1")), "--id 0,1");
    assert_string_equal(rewrite(WORDS("-l=2", "-i", "3")), "--loop 2 -i 3");
    assert_string_equal(rewrite(WORDS("--id=0", "-q")), "--id=0 -q");
    assert_string_equal(rewrite(WORDS("-z=1", "-q=1")), "-z=1 -q=1"); /* unknown, a flag: the parser says so */
}

static void values_and_rest_stay(void **state)
{
    (void)state;
    assert_string_equal(rewrite(WORDS("--match", "-lms", "-i", "-i=0")), "--match -lms -i -i=0");
    assert_string_equal(rewrite(WORDS("-q", "--", "-lms", "-i=0")), "-q -- -lms -i=0");
    assert_string_equal(rewrite(WORDS("-i")), "-i");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lms),
        cmocka_unit_test(short_equals),
        cmocka_unit_test(values_and_rest_stay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
