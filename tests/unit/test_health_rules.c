/* SPDX-License-Identifier: MIT */
/* test_health_rules.c - watch's rules: parser errors with file:line, the default
 * rules, and the alert state machine (for-durations, hysteresis, de-duplication,
 * repeat, rate limit, resolved notices) on synthetic snapshots and findings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/rules.h"

static struct gs_rules *parse_ok(const char *text)
{
    struct gs_rules *rs = calloc(1, sizeof(*rs));
    struct gs_err err = { 0 };
    assert_non_null(rs);
    if (gs_rules_parse(rs, text, strlen(text), "t.rules", &err) < 0)
        fail_msg("unexpected: %s", err.msg);
    return rs;
}

static void expect_error(const char *text, const char *msg)
{
    struct gs_rules *rs = calloc(1, sizeof(*rs));
    struct gs_err err = { 0 };
    assert_int_equal(gs_rules_parse(rs, text, strlen(text), "t.rules", &err), -GS_E_PARSE);
    if (!strstr(err.msg, msg))
        fail_msg("'%s' lacks '%s'", err.msg, msg);
    gs_rules_free(rs);
    free(rs);
}

static void test_parse(void **state)
{
    (void)state;
    struct gs_rules *rs = parse_ok(gs_rules_default);
    assert_true(rs->nrules >= 6);
    gs_rules_free(rs);
    free(rs);
    rs = parse_ok("# c\n\ntemperature > 80.5 for 90s clear 75 severity=critical name=hot\r\n"
                  "finding proc.* for 2m\nrepeat 1h\nrate-limit 5 per 10m\n"
                  "notify exec /bin/true \"two words\"\nnotify webhook https://x/y format=alertmanager\n");
    assert_int_equal(rs->nrules, 2);
    assert_string_equal(rs->rules[0].name, "hot");
    assert_int_equal(rs->rules[0].for_ms, 90000);
    assert_true(rs->rules[0].clear == 75);
    assert_int_equal(rs->rules[0].severity, GS_SEV_CRITICAL);
    assert_string_equal(rs->rules[1].pattern, "proc.*");
    assert_int_equal(rs->repeat_ms, 3600000);
    assert_int_equal(rs->rate_n, 5);
    assert_int_equal(rs->ntargets, 2);
    assert_string_equal(rs->targets[0].argv[1], "two words");
    assert_int_equal(rs->targets[1].format, GS_WH_ALERTMANAGER);
    gs_rules_free(rs);
    free(rs);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_error("temperature >= 85\ntemp >= 3\n", "t.rules:2: unknown metric");
    expect_error("temperature => 85\n", "t.rules:1: expected an operator");
    expect_error("temperature >= hot\n", "expected a number");
    expect_error("temperature >= 85 for ever\n", "bad duration");
    expect_error("temperature >= 85 clear 90\n", "healthy side");
    expect_error("temperature <= 20 clear 10\n", "healthy side");
    expect_error("finding\n", "needs a code pattern");
    expect_error("finding xid.* clear 3\n", "metric rules only");
    expect_error("finding xid.* severity=fatal\n", "severity must be");
    expect_error("finding xid.* bogus\n", "unexpected word");
    expect_error("rate-limit many per 1m\n", "rate-limit N per DURATION");
    expect_error("notify exec relative/prog\n", "absolute program path");
    expect_error("notify webhook ftp://x\n", "http:// or https://");
    expect_error("notify webhook http://x format=teams\n", "format=generic");
    expect_error("notify pager x\n", "expected 'notify exec");
    expect_error("finding \"xid.*\n", "unterminated quote");
}

/* ---- the state machine ------------------------------------------------------------------- */

static char notes[64][192];
static int nnotes, nlimited;

/* What people see; notes over the rate limit still reach the notifier (Alertmanager must learn of a resolve). */
static void collect(void *arg, const struct gs_alert_note *n)
{
    (void)arg;
    if (n->limited) {
        nlimited++;
        return;
    }
    if (nnotes < 64)
        snprintf(notes[nnotes++], sizeof(notes[0]), "%lld %s gpu=%d %s", (long long)n->t_ms / 1000,
                 n->resolved ? "resolved" : "firing", n->alert->last.gpu, n->rule->name);
}

static void snap_temp(struct gs_snapshot *s, struct gs_gpu *g, int temp)
{
    memset(g, 0, sizeof(*g));
    g->state = GS_GPU_OK;
    g->s.temp_gpu_c = temp;
    gs_sample_mark(&g->s, GS_F_TEMP_GPU, GS_ST_OK);
    gs_snapshot_init(s);
    s->ngpus = 1;
    s->gpus = g;
}

static void test_for_and_hysteresis(void **state)
{
    (void)state;
    static const int temps[] = { 80, 86, 86, 84, 86, 86, 86, 86, 83, 86, 81, 79, 79, 86 };
    struct gs_rules *rs = parse_ok("temperature >= 85 for 3s clear 80\n");
    struct gs_findings none = { 0 };
    nnotes = 0;
    for (int t = 0; t < (int)(sizeof(temps) / sizeof(temps[0])); t++) {
        struct gs_snapshot s;
        struct gs_gpu g;
        snap_temp(&s, &g, temps[t]);
        gs_rules_eval(rs, &s, &none, t * 1000LL, collect, NULL);
    }
    /* pending at 1 s is reset by the dip at 3 s; pending again at 4, firing at 7; 83 and 81 hold it
     * (hysteresis), 79 resolves at 11; a new episode starts at 13 but is still pending */
    assert_int_equal(nnotes, 2);
    assert_string_equal(notes[0], "7 firing gpu=0 temperature >= 85");
    assert_string_equal(notes[1], "11 resolved gpu=0 temperature >= 85");
    gs_rules_free(rs);
    free(rs);
}

static void test_findings_dedup_repeat_rate(void **state)
{
    (void)state;
    struct gs_rules *rs = parse_ok("finding xid.*\nrepeat 10s\nrate-limit 3 per 1m\n");
    struct gs_findings f = { 0 };
    struct gs_snapshot s;
    gs_snapshot_init(&s);
    nnotes = nlimited = 0;
    for (int t = 0; t < 30; t++) {
        gs_findings_clear(&f);
        if (t < 25) {
            struct gs_finding *x = gs_findings_add(&f);
            snprintf(x->code, sizeof(x->code), "xid.79");
            x->gpu = 2;
            x->severity = GS_SEV_CRITICAL;
        }
        gs_rules_eval(rs, &s, &f, t * 1000LL, collect, NULL);
    }
    /* fires once at 0, repeats at 10 and 20 (3 = the rate limit), the resolved notice at 25 is held back */
    assert_int_equal(nnotes, 3);
    assert_string_equal(notes[0], "0 firing gpu=2 finding xid.*");
    assert_string_equal(notes[1], "10 firing gpu=2 finding xid.*");
    assert_string_equal(notes[2], "20 firing gpu=2 finding xid.*");
    assert_int_equal(rs->suppressed, 1);
    assert_int_equal(nlimited, 1);
    gs_findings_free(&f);
    gs_rules_free(rs);
    free(rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_for_and_hysteresis),
        cmocka_unit_test(test_findings_dedup_repeat_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
