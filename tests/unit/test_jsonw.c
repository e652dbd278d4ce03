/* SPDX-License-Identifier: MIT */
/* test_jsonw.c - the streaming JSON writer (format/jsonw.c) prints what jansson prints for the same
 * document: layout (indented and compact, empty containers, nesting), strings (every byte,
 * UTF-8, the verbatim fast path), reals and integers; refusals; buffer growth and flushing. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "format/jsonw.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t jflags[2] = {JSON_INDENT(2) | JSON_REAL_PRECISION(12), JSON_COMPACT | JSON_REAL_PRECISION(12)};

/* Write v (a jansson tree) through the writer, element by element. */
static void emit(struct gs_jw *w, const json_t *v)
{
    const char *key;
    json_t *m;
    size_t i;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        gs_jw_obj(w);
        json_object_foreach((json_t *)v, key, m)
        {
            gs_jw_key(w, key);
            emit(w, m);
        }
        gs_jw_end(w);
        break;
    case JSON_ARRAY:
        gs_jw_arr(w);
        json_array_foreach(v, i, m)
            emit(w, m);
        gs_jw_end(w);
        break;
    case JSON_STRING:
        assert_int_equal(gs_jw_str(w, json_string_value(v)), 0);
        break;
    case JSON_INTEGER:
        gs_jw_int(w, json_integer_value(v));
        break;
    case JSON_REAL:
        assert_int_equal(gs_jw_real(w, json_real_value(v)), 0);
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        gs_jw_bool(w, json_is_true(v));
        break;
    case JSON_NULL:
        gs_jw_null(w);
        break;
    }
}

/* The writer's text of doc equals json_dumps(doc) in both layouts. */
static void assert_same_as_jansson(const json_t *doc)
{
    for (int c = 0; c < 2; c++) {
        struct gs_jw w;
        size_t len = 0;
        assert_int_equal(gs_jw_init_mem(&w, c == 1), 0);
        emit(&w, doc);
        char *text = gs_jw_take(&w, &len);
        char *want = json_dumps(doc, jflags[c] | JSON_ENCODE_ANY);
        assert_non_null(text);
        assert_non_null(want);
        if (len != strlen(want) || strcmp(text, want))
            fail_msg("writer:\n%s\njansson:\n%s", text, want);
        free(text);
        free(want);
    }
}

static void test_layout(void **state)
{
    json_error_t err;
    static const char *const docs[] = {
        "{}",
        "[]",
        "{\"a\": {}, \"b\": [], \"c\": [[]], \"d\": [{}], \"e\": {\"f\": {}}}",
        "[1, -2, 0, 9223372036854775807, -9223372036854775808, true, false, null]",
        "{\"gpus\": [{\"index\": 0, \"processes\": [{\"pid\": 1, \"host\": {\"user\": \"root\"},"
        " \"unavailable\": {\"host.cpu_pct\": \"not_available\"}}, {\"pid\": 2}], \"unavailable\": {}}]}",
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
        "{\"x\": [{\"y\": [{\"z\": [1, {\"w\": []}]}]}]}",
        "\"top-level string\"",
        "42",
    };
    (void)state;

    for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        json_t *doc = json_loads(docs[i], JSON_DECODE_ANY, &err);
        assert_non_null(doc);
        assert_same_as_jansson(doc);
        json_decref(doc);
    }
}

/* Every byte as a string of its own and inside text, and UTF-8 sequences:
 * the fast path and jansson's encoder must agree byte for byte. */
static void test_strings(void **state)
{
    static const char *const texts[] = {
        "", "plain", "with \"quotes\"", "back\\slash", "a/b", "tab\there", "nl\n", "\x7f del",
        "caf\xc3\xa9", "\xe2\x82\xac euro", "\xf0\x9f\x98\x80 emoji", "\xe2\x80\xa8 line sep",
        "python train.py --lr=0.1 --name 'x y'", "\x1b[31mred\x1b[0m",
    };
    json_t *arr = json_array();
    char buf[8];
    (void)state;

    for (int b = 1; b < 0x80; b++) { /* ASCII bytes alone and between letters */
        snprintf(buf, sizeof(buf), "%c", b);
        json_array_append_new(arr, json_string(buf));
        snprintf(buf, sizeof(buf), "a%cz", b);
        json_array_append_new(arr, json_string(buf));
    }
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        json_array_append_new(arr, json_string(texts[i]));
    assert_same_as_jansson(arr);
    json_decref(arr);
}

/* Not UTF-8: refused (-1), null written in its place, the document stays valid. */
static void test_invalid_utf8(void **state)
{
    static const char *const bad[] = {"\xff", "caf\xc3", "\xc3\x28", "\xe2\x82", "\xed\xa0\x80", "\x80"};
    (void)state;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct gs_jw w;
        size_t len = 0;
        assert_int_equal(gs_jw_init_mem(&w, true), 0);
        gs_jw_arr(&w);
        assert_int_equal(gs_jw_str(&w, bad[i]), -1);
        assert_int_equal(gs_jw_str(&w, "ok"), 0);
        gs_jw_end(&w);
        char *text = gs_jw_take(&w, &len);
        assert_string_equal(text, "[null,\"ok\"]");
        free(text);
    }
}

static void test_numbers(void **state)
{
    static const double reals[] = {627.4, 0.1, 1.0 / 3.0, 100.0, 0.0, -0.0, 1e300, 1e-7, 123456789012.5,
                                   -5.25, 3.14159265358979, 2.5e-310};
    static const int64_t ints[] = {0, 1, -1, 9, 10, 99, 100, 4294967295LL, INT64_MAX, INT64_MIN, 1783116669763LL};
    json_t *arr = json_array();
    (void)state;

    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
        json_array_append_new(arr, json_real(reals[i]));
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
        json_array_append_new(arr, json_integer(ints[i]));
    assert_same_as_jansson(arr);
    json_decref(arr);

    struct gs_jw w;
    size_t len = 0;
    assert_int_equal(gs_jw_init_mem(&w, true), 0);
    gs_jw_arr(&w);
    assert_int_equal(gs_jw_real(&w, NAN), -1);
    assert_int_equal(gs_jw_real(&w, INFINITY), -1);
    gs_jw_end(&w);
    char *text = gs_jw_take(&w, &len);
    assert_string_equal(text, "[null,null]");
    free(text);
}

/* A document far larger than the buffer, to a file: flushed in pieces, whole. */
static void test_large_to_file(void **state)
{
    json_t *doc = json_object();
    json_t *arr = json_array();
    char *big = malloc(200000);
    (void)state;

    memset(big, 'x', 199999);
    big[199999] = '\0';
    big[1000] = '"'; /* one string too long for the buffer, through jansson's encoder */
    json_object_set_new(doc, "big", json_string(big));
    for (int i = 0; i < 20000; i++)
        json_array_append_new(arr, json_integer(i * 7919));
    json_object_set_new(doc, "many", arr);
    for (int c = 0; c < 2; c++) {
        char *out = NULL;
        size_t olen = 0;
        FILE *f = open_memstream(&out, &olen);
        struct gs_jw w;
        assert_int_equal(gs_jw_init_file(&w, f, c == 1), 0);
        emit(&w, doc);
        assert_int_equal(gs_jw_finish(&w), 0);
        fclose(f);
        char *want = json_dumps(doc, jflags[c]);
        assert_int_equal(olen, strlen(want));
        assert_memory_equal(out, want, olen);
        free(out);
        free(want);
    }
    free(big);
    json_decref(doc);
}

/* Misuse fails the writer rather than printing a broken document. */
static void test_unbalanced_fails(void **state)
{
    struct gs_jw w;
    size_t len = 0;
    (void)state;

    assert_int_equal(gs_jw_init_mem(&w, true), 0);
    gs_jw_obj(&w);
    assert_null(gs_jw_take(&w, &len)); /* still open */
    assert_int_equal(gs_jw_init_mem(&w, true), 0);
    gs_jw_end(&w); /* nothing open */
    assert_int_equal(gs_jw_finish(&w), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),         cmocka_unit_test(test_strings),
        cmocka_unit_test(test_invalid_utf8),   cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_large_to_file),  cmocka_unit_test(test_unbalanced_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
