/* SPDX-License-Identifier: MIT */
/*
 * test_vec.c - the growable array (lib/vec.h): elements survive growth, a new
 * element is zeroed, and a growth that cannot happen (a size that overflows)
 * fails without touching the array: no leak, no cut-short contents.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

struct row { int id; double v; };

static void test_push_grows_and_keeps(void **state)
{
    struct gs_vec v;
    (void)state;
    gs_vec_init(&v, sizeof(struct row));
    for (int i = 0; i < 10000; i++) {
        struct row *r = gs_vec_push(&v);
        assert_non_null(r);
        assert_int_equal(r->id, 0);
        *r = (struct row){ i, i * 0.5 };
    }
    assert_int_equal(v.len, 10000);
    assert_true(v.cap >= 10000 && v.cap < 2 * 10000 + 16);
    for (int i = 0; i < 10000; i++) {
        const struct row *r = gs_vec_at(&v, (size_t)i);
        assert_int_equal(r->id, i);
        assert_true(r->v == i * 0.5);
    }
    gs_vec_free(&v);
    assert_null(v.data);
    assert_int_equal(v.len, 0);
}

static void test_failed_growth_keeps_the_array(void **state)
{
    struct gs_vec v;
    (void)state;
    gs_vec_init(&v, sizeof(struct row));
    for (int i = 0; i < 20; i++)
        ((struct row *)gs_vec_push(&v))->id = i;
    void *data = v.data;
    size_t cap = v.cap;
    assert_false(gs_vec_reserve(&v, SIZE_MAX / 2));     /* elements * size overflows */
    assert_false(gs_vec_reserve(&v, SIZE_MAX));         /* doubling overflows */
    assert_ptr_equal(v.data, data);
    assert_int_equal(v.cap, cap);
    assert_int_equal(v.len, 20);
    assert_int_equal(((struct row *)gs_vec_at(&v, 19))->id, 19);
    assert_true(gs_vec_reserve(&v, 5));                 /* already room */
    gs_vec_free(&v);
}

static void test_reserve_then_push(void **state)
{
    struct gs_vec v;
    (void)state;
    gs_vec_init(&v, 1);
    assert_true(gs_vec_reserve(&v, 100));
    assert_int_equal(v.cap, 128);
    void *data = v.data;
    for (int i = 0; i < 100; i++)
        assert_non_null(gs_vec_push(&v));
    assert_ptr_equal(v.data, data); /* no reallocation within the reserved room */
    gs_vec_free(&v);
}

/* gs_vec_grow: the same policy for a typed array; a failed growth leaves the block and its size. */
static void test_grow_typed_array(void **state)
{
    struct row *v = NULL;
    size_t cap = 0;
    (void)state;
    struct row *nv = gs_vec_grow(v, &cap, 0, sizeof(*nv)); /* a block even for none */
    assert_non_null(nv);
    assert_int_equal(cap, 16);
    v = nv;
    for (size_t n = 1; n <= 1000; n++) {
        nv = gs_vec_grow(v, &cap, n, sizeof(*nv));
        assert_non_null(nv);
        v = nv;
        v[n - 1] = (struct row){ (int)n, 0 };
    }
    assert_int_equal(cap, 1024);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(v[i].id, i + 1);
    assert_ptr_equal(gs_vec_grow(v, &cap, 1024, sizeof(*v)), v); /* room: same block */
    assert_null(gs_vec_grow(v, &cap, SIZE_MAX / 4, sizeof(*v))); /* overflows: refused */
    assert_int_equal(cap, 1024);
    assert_int_equal(v[999].id, 1000);
    free(v);
}

static void test_append_bytes(void **state)
{
    struct gs_vec b;
    char chunk[100];
    (void)state;
    gs_vec_init(&b, 1);
    memset(chunk, 'x', sizeof(chunk));
    assert_true(gs_vec_append(&b, chunk, 0));
    assert_int_equal(b.len, 0);
    for (int i = 0; i < 1000; i++) {
        chunk[0] = (char)('a' + i % 26);
        assert_true(gs_vec_append(&b, chunk, sizeof(chunk)));
    }
    assert_int_equal(b.len, 100000);
    assert_int_equal(((char *)b.data)[100 * 27], 'b');
    void *data = b.data;
    assert_false(gs_vec_append(&b, chunk, SIZE_MAX - 10)); /* len + n overflows */
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.len, 100000);
    gs_vec_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_grows_and_keeps),
        cmocka_unit_test(test_failed_growth_keeps_the_array),
        cmocka_unit_test(test_reserve_then_push),
        cmocka_unit_test(test_grow_typed_array),
        cmocka_unit_test(test_append_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
