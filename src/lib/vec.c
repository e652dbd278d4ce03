/* SPDX-License-Identifier: MIT */
/*
 * vec.c - the growable array (see vec.h): doubling from 16 elements, and
 * a failed growth that keeps the old block.
 */
#include "lib/vec.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GS_VEC_MIN 16

void gs_vec_init(struct gs_vec *v, size_t elem)
{
    assert(elem > 0);
    *v = (struct gs_vec){ .elem = elem };
}

void gs_vec_free(struct gs_vec *v)
{
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

void *gs_vec_grow(void *p, size_t *cap, size_t n, size_t elem)
{
    assert(elem > 0);
    if (p && n <= *cap)
        return p;
    size_t ncap = *cap ? *cap : GS_VEC_MIN;
    while (ncap < n) {
        if (ncap > SIZE_MAX / 2)
            return NULL;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return NULL;
    void *np = realloc(p, ncap * elem);
    if (!np)
        return NULL; /* the old block is still p */
    *cap = ncap;
    return np;
}

bool gs_vec_reserve(struct gs_vec *v, size_t n)
{
    if (n <= v->cap)
        return true;
    void *p = gs_vec_grow(v->data, &v->cap, n, v->elem);
    if (!p)
        return false;
    v->data = p;
    return true;
}

void *gs_vec_push(struct gs_vec *v)
{
    if (v->len == SIZE_MAX || !gs_vec_reserve(v, v->len + 1))
        return NULL;
    void *e = (char *)v->data + v->len++ * v->elem;
    memset(e, 0, v->elem);
    return e;
}

bool gs_vec_append(struct gs_vec *v, const void *src, size_t n)
{
    if (!n)
        return true;
    if (n > SIZE_MAX - v->len || !gs_vec_reserve(v, v->len + n))
        return false;
    memcpy((char *)v->data + v->len * v->elem, src, n * v->elem);
    v->len += n;
    return true;
}

void *gs_vec_at(const struct gs_vec *v, size_t i)
{
    assert(i < v->len);
    return (char *)v->data + i * v->elem;
}
