/* SPDX-License-Identifier: MIT */
/* test_prom_client.c - the fleet module's parsers: Prometheus' /api/v1 answers (vector, matrix,
 * scalar, NaN and infinities, errors with the server's own words, answers that are not the API,
 * labels repaired and bounded) and Prometheus' http_config YAML (every key, errors naming file,
 * line and key, exclusions, relative paths); durations and the scrape interval. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "backend/prom/http_config.h"
#include "backend/prom/prom_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(const char *body, long http, struct gs_prom_result *r, struct gs_err *err)
{
    memset(err, 0, sizeof(*err));
    return gs_prom_parse(body, strlen(body), http, "the query up", r, err);
}

static void test_vector(void **state)
{
    struct gs_prom_result r;
    struct gs_err err;
    (void)state;

    assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                           "{\"metric\":{\"__name__\":\"DCGM_FI_DEV_GPU_UTIL\",\"Hostname\":\"n1\",\"gpu\":\"0\"},"
                           "\"value\":[1700000000.5,\"42\"]},"
                           "{\"metric\":{\"Hostname\":\"n2\",\"gpu\":\"1\"},\"value\":[1700000000,\"NaN\"]},"
                           "{\"metric\":{},\"value\":[1700000000,\"+Inf\"]}]}}",
                           200, &r, &err),
                     0);
    assert_int_equal(r.n, 3);
    assert_string_equal(gs_prom_label(&r.s[0], "Hostname"), "n1");
    assert_string_equal(gs_prom_label(&r.s[0], "__name__"), "DCGM_FI_DEV_GPU_UTIL");
    assert_null(gs_prom_label(&r.s[0], "pod"));
    assert_int_equal(r.s[0].npoints, 1);
    assert_true(r.s[0].t[0] == 1700000000.5);
    assert_true(r.s[0].v[0] == 42.0);
    assert_true(isnan(r.s[1].v[0]));
    assert_true(isinf(r.s[2].v[0]) && r.s[2].v[0] > 0);
    assert_int_equal(r.s[2].nlabels, 0);
    gs_prom_result_free(&r);
    assert_int_equal(r.n, 0);
}

static void test_matrix_and_scalar(void **state)
{
    struct gs_prom_result r;
    struct gs_err err;
    (void)state;

    assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
                           "{\"metric\":{\"Hostname\":\"n1\"},\"values\":[[10,\"1\"],[25,\"2.5\"],[40,\"-Inf\"]]}]}}",
                           200, &r, &err),
                     0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].npoints, 3);
    assert_true(r.s[0].t[1] == 25 && r.s[0].v[1] == 2.5);
    assert_true(isinf(r.s[0].v[2]) && r.s[0].v[2] < 0);
    gs_prom_result_free(&r);

    assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[5,\"7\"]}}",
                           200, &r, &err),
                     0);
    assert_int_equal(r.n, 1);
    assert_true(r.s[0].v[0] == 7);
    gs_prom_result_free(&r);

    assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}", 200, &r,
                           &err),
                     0);
    assert_int_equal(r.n, 0);
    gs_prom_result_free(&r);
}

static void test_errors(void **state)
{
    struct gs_prom_result r;
    struct gs_err err;
    (void)state;

    /* bad PromQL: Prometheus' own words, a usage error */
    assert_int_equal(parse("{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"invalid parameter "
                           "\\\"query\\\": 1:5: parse error: unexpected \\\"}\\\"\"}",
                           400, &r, &err),
                     -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "parse error: unexpected"));
    assert_non_null(strstr(err.msg, "the query up"));
    assert_int_equal(r.n, 0);
    /* a server-side failure */
    assert_int_equal(parse("{\"status\":\"error\",\"errorType\":\"timeout\",\"error\":\"query timed out\"}", 503, &r,
                           &err),
                     -GS_E_BACKEND);
    assert_non_null(strstr(err.msg, "query timed out"));
    assert_non_null(strstr(err.hint, "--match"));
    /* not the API: an HTML page, an empty body, a JSON without status */
    assert_int_equal(parse("<html><body>Grafana</body></html>", 200, &r, &err), -GS_E_BACKEND);
    assert_non_null(strstr(err.msg, "not Prometheus' API JSON"));
    assert_non_null(strstr(err.msg, "<html>"));
    assert_int_equal(parse("", 200, &r, &err), -GS_E_BACKEND);
    assert_non_null(strstr(err.msg, "empty"));
    assert_int_equal(parse("{\"data\":1}", 200, &r, &err), -GS_E_BACKEND);
    /* malformed inside */
    assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                           "{\"metric\":{},\"value\":[1,\"abc\"]}]}}",
                           200, &r, &err),
                     -GS_E_BACKEND);
    assert_non_null(strstr(err.msg, "malformed series (number 1)"));
    assert_int_equal(r.n, 0);
    assert_int_equal(parse("{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"x\"]}}",
                           200, &r, &err),
                     -GS_E_BACKEND);
}

static void test_labels_bounded(void **state)
{
    struct gs_prom_result r;
    struct gs_err err;
    size_t big = 1 << 20;
    char *body = malloc(big + 4096);
    (void)state;

    /* a 1 MiB label value, a label with invalid UTF-8, 100 labels */
    int n = snprintf(body, 4096, "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                                 "{\"metric\":{\"bad\":\"a\\u00ff\xff\xfe z\",\"pod\":\"");
    memset(body + n, 'x', big);
    n += (int)big;
    n += snprintf(body + n, 4096, "\"");
    for (int i = 0; i < 100; i++)
        n += snprintf(body + n, 64, ",\"l%d\":\"v\"", i);
    snprintf(body + n, 4096, "},\"value\":[1,\"3\"]}]}}");
    memset(&err, 0, sizeof(err));
    int rc = gs_prom_parse(body, strlen(body), 200, "q", &r, &err);
    /* jansson refuses invalid UTF-8 in its input: not the API then, never a crash */
    assert_int_equal(rc, -GS_E_BACKEND);
    /* the same with valid input */
    memcpy(strstr(body, "\xff\xfe"), "  ", 2);
    assert_int_equal(gs_prom_parse(body, strlen(body), 200, "q", &r, &err), 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.s[0].nlabels, GS_PROM_MAX_LABELS);
    const char *pod = gs_prom_label(&r.s[0], "pod");
    assert_non_null(pod);
    assert_true(strlen(pod) <= GS_PROM_LABEL_MAX);
    assert_string_equal(pod + strlen(pod) - 3, "...");
    assert_string_equal(gs_prom_label(&r.s[0], "bad"), "a\xc3\xbf   z");
    gs_prom_result_free(&r);
    free(body);
}

static void test_durations(void **state)
{
    (void)state;
    assert_true(gs_prom_duration_s("15s") == 15);
    assert_true(gs_prom_duration_s("1m30s") == 90);
    assert_true(gs_prom_duration_s("500ms") == 0.5);
    assert_true(gs_prom_duration_s("1h") == 3600);
    assert_true(gs_prom_duration_s("") < 0);
    assert_true(gs_prom_duration_s("15") < 0);
    assert_true(gs_prom_duration_s("s") < 0);
    const char *cfg = "{\"status\":\"success\",\"data\":{\"yaml\":\"global:\\n  scrape_interval: 2s\\n"
                      "  evaluation_interval: 1m\\nscrape_configs: []\\n\"}}";
    assert_true(gs_prom_parse_scrape_interval(cfg, strlen(cfg)) == 2);
    assert_true(gs_prom_parse_scrape_interval("{}", 2) == 0);
    assert_true(gs_prom_parse_scrape_interval("nope", 4) == 0);
}

/* ---- http_config -------------------------------------------------------------------------- */

static int hc(const char *text, struct gs_http_config **c, struct gs_err *err)
{
    memset(err, 0, sizeof(*err));
    return gs_http_config_parse(c, text, strlen(text), "/etc/gs/prom.yml", err);
}

static void test_config_ok(void **state)
{
    struct gs_http_config *c;
    struct gs_err err;
    char d[256];
    (void)state;

    assert_int_equal(hc("# credentials\nbasic_auth:\n  username: alice\n  password_file: pass\n"
                        "tls_config:\n  ca_file: /ca.pem\n  cert_file: c.pem\n  key_file: k.pem\n"
                        "  server_name: prom.example\n  insecure_skip_verify: false\nfollow_redirects: no\n",
                        &c, &err),
                     0);
    assert_int_equal(c->auth, GS_HTTP_AUTH_BASIC);
    assert_string_equal(c->username, "alice");
    assert_string_equal(c->password_file, "/etc/gs/pass");
    assert_string_equal(c->ca_file, "/ca.pem");
    assert_string_equal(c->cert_file, "/etc/gs/c.pem");
    assert_string_equal(c->key_file, "/etc/gs/k.pem");
    assert_string_equal(c->server_name, "prom.example");
    assert_false(c->insecure_skip_verify);
    assert_false(c->follow_redirects);
    gs_http_config_describe(c, d, sizeof(d));
    assert_non_null(strstr(d, "basic auth as \"alice\""));
    gs_http_config_free(c);

    assert_int_equal(hc("authorization:\n  type: Bearer\n  credentials: \"s3cret\"\n", &c, &err), 0);
    assert_int_equal(c->auth, GS_HTTP_AUTH_HEADER);
    assert_string_equal(c->credentials, "s3cret");
    gs_http_config_describe(c, d, sizeof(d));
    assert_null(strstr(d, "s3cret"));
    gs_http_config_free(c);

    assert_int_equal(hc("bearer_token_file: /run/token\n", &c, &err), 0);
    assert_string_equal(c->credentials_file, "/run/token");
    assert_null(c->auth_type);
    gs_http_config_free(c);

    assert_int_equal(hc("", &c, &err), 0);
    assert_int_equal(c->auth, GS_HTTP_AUTH_NONE);
    assert_true(c->follow_redirects);
    gs_http_config_free(c);
    assert_int_equal(hc("# only a comment\n", &c, &err), 0);
    gs_http_config_free(c);
}

/* text must fail with a message holding each of want[] */
static void config_fails(const char *text, const char *w1, const char *w2)
{
    struct gs_http_config *c = (void *)1;
    struct gs_err err;
    assert_true(hc(text, &c, &err) < 0);
    assert_null(c);
    if (!strstr(err.msg, w1) || (w2 && !strstr(err.msg, w2)))
        fail_msg("for %s: got \"%s\", wanted \"%s\" and \"%s\"", text, err.msg, w1, w2 ? w2 : "");
}

static void test_config_errors(void **state)
{
    (void)state;
    config_fails("basic_auth:\n  username: a\nbearer_token: t\n", "prom.yml:3: bearer_token:", "line 1");
    config_fails("basic_auth:\n  username: a\n  pasword: x\n", "prom.yml:3: pasword: unknown key in basic_auth", NULL);
    config_fails("tls_config:\n  ca_file: [a, b]\n", "prom.yml:2: tls_config.ca_file: expected a string", NULL);
    config_fails("tls_config:\n  insecure_skip_verify: maybe\n", ":2: tls_config.insecure_skip_verify", "maybe");
    config_fails("oauth2:\n  client_id: x\n", ":1: oauth2: not supported", NULL);
    config_fails("basic_auth:\n  password: x\n", "username is required", NULL);
    config_fails("basic_auth:\n  username: a\n  password: x\n  password_file: f\n", "exclude each other", NULL);
    config_fails("authorization:\n  type: Basic\n  credentials: x\n", "use basic_auth", NULL);
    config_fails("authorization:\n  type: Bearer\n", "credentials or credentials_file is required", NULL);
    config_fails("tls_config:\n  cert_file: c\n", "cert_file and key_file go together", NULL);
    config_fails("basic_auth: alice\n", "prom.yml:1: basic_auth: expected a mapping", NULL);
    config_fails("- a\n- b\n", "the file: expected a mapping", NULL);
    config_fails("basic_auth:\n  username: a\n   bad: [\n", "prom.yml:", "not valid YAML");
    config_fails("scrape_interval: 1s\n", ":1: scrape_interval: unknown key", NULL);
    config_fails("basic_auth:\n  username: a\n  username: b\n", "given twice", NULL);
}

static void test_config_apply(void **state)
{
    struct gs_http_config *c;
    struct gs_http_req rq = {0};
    struct gs_err err;
    char dir[] = "/tmp/gs-hc-XXXXXX", path[64], yml[256];
    (void)state;

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/token", dir);
    FILE *f = fopen(path, "w");
    fputs("  tok3n \n", f);
    fclose(f);
    snprintf(yml, sizeof(yml), "authorization:\n  credentials_file: token\n");
    snprintf(path, sizeof(path), "%s/prom.yml", dir);
    f = fopen(path, "w");
    fputs(yml, f);
    fclose(f);
    assert_int_equal(gs_http_config_load(&c, path, &err), 0);
    CURL *h = curl_easy_init();
    assert_int_equal(gs_http_config_apply(c, h, "http://127.0.0.1:1/x", &rq, &err), 0);
    assert_string_equal(rq.secret, "tok3n");
    assert_string_equal(rq.headers->data, "Authorization: Bearer tok3n");
    assert_string_equal(rq.url, "http://127.0.0.1:1/x");
    gs_http_req_free(&rq);
    /* a secret file that went away: named in the error */
    snprintf(path, sizeof(path), "%s/token", dir);
    unlink(path);
    assert_true(gs_http_config_apply(c, h, "http://127.0.0.1:1/x", &rq, &err) < 0);
    assert_non_null(strstr(err.msg, path));
    gs_http_req_free(&rq);
    gs_http_config_free(c);
    /* server_name: connect to the URL's host, name the other */
    assert_int_equal(hc("tls_config:\n  server_name: prom.example\n", &c, &err), 0);
    assert_int_equal(gs_http_config_apply(c, h, "https://127.0.0.1:9443/api/v1/query?query=up", &rq, &err), 0);
    assert_string_equal(rq.url, "https://prom.example:9443/api/v1/query?query=up");
    assert_string_equal(rq.connect_to->data, "prom.example:9443:127.0.0.1:9443");
    gs_http_req_free(&rq);
    gs_http_config_free(c);
    /* no config: the URL alone */
    assert_int_equal(gs_http_config_apply(NULL, h, "http://127.0.0.1:1/", &rq, &err), 0);
    gs_http_req_free(&rq);
    curl_easy_cleanup(h);
    snprintf(path, sizeof(path), "%s/prom.yml", dir);
    unlink(path);
    rmdir(dir);
    /* a missing file */
    assert_true(gs_http_config_load(&c, "/nonexistent/prom.yml", &err) < 0);
    assert_non_null(strstr(err.msg, "/nonexistent/prom.yml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector),        cmocka_unit_test(test_matrix_and_scalar),
        cmocka_unit_test(test_errors),        cmocka_unit_test(test_labels_bounded),
        cmocka_unit_test(test_durations),     cmocka_unit_test(test_config_ok),
        cmocka_unit_test(test_config_errors), cmocka_unit_test(test_config_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
