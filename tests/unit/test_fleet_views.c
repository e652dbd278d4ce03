/* SPDX-License-Identifier: MIT */
/* test_fleet_views.c - the fleet views' pure parts: PromQL built for hostile node names and
 * --match (escaping, the instance fallback, truncation never sent), and the node table's text
 * (no reading is "-", never 0; lost nodes last; filter; long and multi-byte names cut whole). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "core/fleetq.h"
#include "ui/fleet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void test_pq_str(void **state)
{
    char buf[64];
    struct gs_pq q;
    (void)state;
    gs_pq_init(&q, buf, sizeof(buf));
    gs_pq_str(&q, "a\"b\\c\nd");
    assert_string_equal(buf, "\"a\\\"b\\\\c\\nd\"");
    assert_false(q.trunc);
}

static void test_pq_sel(void **state)
{
    char buf[512];
    struct gs_pq q;
    (void)state;
    gs_pq_init(&q, buf, sizeof(buf));
    gs_pq_sel(&q, "cluster=\"a\"", "DCGM_FI_DEV_GPU_UTIL", "pod!=\"\"", "avg_over_time", "60s");
    assert_string_equal(buf, "(avg_over_time(DCGM_FI_DEV_GPU_UTIL{cluster=\"a\",pod!=\"\",Hostname!=\"\"}[60s]) or "
                             "label_replace(avg_over_time(DCGM_FI_DEV_GPU_UTIL{cluster=\"a\",pod!=\"\",Hostname=\"\"}"
                             "[60s]),\"Hostname\",\"$1\",\"instance\",\"(.*)\"))");
    gs_pq_init(&q, buf, sizeof(buf));
    q.named = true;
    gs_pq_sel(&q, "", "DCGM_FI_DEV_GPU_UTIL", "", NULL, NULL);
    assert_string_equal(buf, "DCGM_FI_DEV_GPU_UTIL{}");
}

static void test_pq_trunc(void **state)
{
    char buf[16];
    struct gs_pq q;
    (void)state;
    gs_pq_init(&q, buf, sizeof(buf));
    gs_pq_sel(&q, "", "DCGM_FI_DEV_GPU_UTIL", "", NULL, NULL);
    assert_true(q.trunc);
    assert_true(strlen(buf) < sizeof(buf));
}

static void test_pq_node_quotes_host(void **state)
{
    char buf[1024];
    struct gs_pq q;
    (void)state;
    gs_pq_init(&q, buf, sizeof(buf));
    gs_pq_node(&q, "", "DCGM_FI_DEV_GPU_UTIL", "", "evil\"} or vector(1) or {a=\"");
    assert_false(q.trunc);
    /* the name stays inside its string literal: every quote in it escaped */
    assert_non_null(strstr(buf, "Hostname=\"evil\\\"} or vector(1) or {a=\\\"\""));
}

/* --node/--job/--pod values: quotes and backslashes escaped inside the literal, never raw */
static void test_pq_matcher_escapes(void **state)
{
    char buf[128];
    struct gs_pq q;
    (void)state;
    gs_pq_init(&q, buf, sizeof(buf));
    gs_pq_matcher(&q, "hpc_job", "7\"} or vector(1) #\\");
    assert_string_equal(buf, "hpc_job=\"7\\\"} or vector(1) #\\\\\"");
    assert_false(q.trunc);
    gs_pq_init(&q, buf, sizeof(buf));
    gs_pq_matcher(&q, "pod", "");
    assert_string_equal(buf, "pod=\"\"");
}

/* the node of a selection: Hostname="h" with a Hostname, instance="h" for the series without */
static void test_pq_sel_host(void **state)
{
    char buf[512];
    struct gs_pq q;
    (void)state;
    gs_pq_init(&q, buf, sizeof(buf));
    q.named = true;
    q.host = "n\"1";
    gs_pq_sel(&q, "", "DCGM_FI_DEV_GPU_UTIL", "hpc_job=\"7\"", NULL, NULL);
    assert_string_equal(buf, "DCGM_FI_DEV_GPU_UTIL{hpc_job=\"7\",Hostname=\"n\\\"1\"}");
    gs_pq_init(&q, buf, sizeof(buf));
    q.host = "n1";
    gs_pq_sel(&q, "c=\"a\"", "M", "", "avg_over_time", "60s");
    assert_string_equal(buf, "(avg_over_time(M{c=\"a\",Hostname=\"n1\"}[60s]) or label_replace(avg_over_time("
                             "M{c=\"a\",Hostname=\"\",instance=\"n1\"}[60s]),\"Hostname\",\"$1\",\"instance\",\"(.*)\"))");
    /* gs_pq_init forgets the node */
    gs_pq_init(&q, buf, sizeof(buf));
    assert_null(q.host);
}

static void test_pq_value_check(void **state)
{
    char big[GS_PQ_VALUE_MAX + 2];
    struct gs_err err = { 0 };
    (void)state;
    assert_int_equal(gs_pq_value_check("--pod", "a\"b\\c", &err), 0);
    assert_int_equal(gs_pq_value_check("--pod", "a\nb", &err), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "--pod"));
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(gs_pq_value_check("--node", big, &err), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "--node"));
    big[GS_PQ_VALUE_MAX] = '\0';
    assert_int_equal(gs_pq_value_check("--node", big, &err), 0);
}

static void test_match_inner(void **state)
{
    char out[16];
    (void)state;
    assert_int_equal(gs_pq_match_inner("{a=\"b\"}", out, sizeof(out)), 0);
    assert_string_equal(out, "a=\"b\"");
    assert_int_equal(gs_pq_match_inner("", out, sizeof(out)), 0);
    assert_string_equal(out, "");
    assert_int_equal(gs_pq_match_inner("a=\"b\"", out, sizeof(out)), -1);
    assert_int_equal(gs_pq_match_inner("{a=\"bbbbbbbbbbbbbbbbbbbbbbbbbbbb\"}", out, sizeof(out)), -1);
}

static void node(struct gs_fleet_node *n, const char *host, double gpus, bool lost)
{
    memset(n, 0, sizeof(*n));
    snprintf(n->host, sizeof(n->host), "%s", host);
    for (int i = 0; i < GS_FV_COUNT; i++)
        n->v[i] = NAN;
    n->v[GS_FV_GPUS] = gpus;
    n->lost = lost;
}

static void test_order(void **state)
{
    struct gs_fleet_node v[4];
    struct gs_fleet_snap s = { .nodes = v, .n = 4 };
    size_t idx[4];
    (void)state;
    node(&v[0], "b", 2, false);
    node(&v[1], "a", NAN, false);
    node(&v[2], "c", 8, true);
    node(&v[3], "d", 4, false);
    assert_int_equal(gs_fleet_order(&s, "", GS_FC_GPUS, true, idx), 4);
    assert_string_equal(v[idx[0]].host, "d");
    assert_string_equal(v[idx[1]].host, "b");
    assert_string_equal(v[idx[2]].host, "a"); /* no reading: below the readings */
    assert_string_equal(v[idx[3]].host, "c"); /* lost: last, whatever its figures */
    assert_int_equal(gs_fleet_order(&s, "d", GS_FC_HOST, false, idx), 1);
}

static void test_cells(void **state)
{
    struct gs_fleet_node n;
    char buf[256];
    (void)state;
    node(&n, "x", 8, false);
    assert_string_equal(gs_fleet_cell(&n, GS_FC_UTIL, buf, sizeof(buf)), "-");
    assert_string_equal(gs_fleet_cell(&n, GS_FC_HEALTH, buf, sizeof(buf)), "-");
    n.v[GS_FV_CRIT] = n.v[GS_FV_WARN] = n.v[GS_FV_INFO] = 0;
    assert_string_equal(gs_fleet_cell(&n, GS_FC_HEALTH, buf, sizeof(buf)), "ok");
    n.v[GS_FV_CRIT] = 2;
    snprintf(n.finding, sizeof(n.finding), "c:xid.79");
    assert_string_equal(gs_fleet_cell(&n, GS_FC_HEALTH, buf, sizeof(buf)), "C2 xid.79");
    n.v[GS_FV_UTIL] = 0;
    assert_string_equal(gs_fleet_cell(&n, GS_FC_UTIL, buf, sizeof(buf)), "0%");
}

static void test_long_names(void **state)
{
    struct gs_fleet_node n;
    char line[512];
    (void)state;
    node(&n, "", 8, false);
    memset(n.host, 'h', sizeof(n.host) - 1);
    gs_fleet_node_line(&n, line, sizeof(line), 160);
    assert_true(strlen(line) < sizeof(line));
    /* a cut never splits a UTF-8 character: "é" is 2 bytes */
    node(&n, "", 8, false);
    for (size_t i = 0; i + 2 < 60; i += 2)
        memcpy(n.host + i, "\xc3\xa9", 2);
    gs_fleet_node_line(&n, line, sizeof(line), 100);
    for (size_t i = 0; line[i]; i++)
        if ((unsigned char)line[i] == 0xc3)
            assert_int_equal((unsigned char)line[i + 1], 0xa9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pq_str),      cmocka_unit_test(test_pq_sel),
        cmocka_unit_test(test_pq_trunc),    cmocka_unit_test(test_pq_node_quotes_host),
        cmocka_unit_test(test_match_inner), cmocka_unit_test(test_order),
        cmocka_unit_test(test_cells),       cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_pq_matcher_escapes), cmocka_unit_test(test_pq_sel_host),
        cmocka_unit_test(test_pq_value_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
