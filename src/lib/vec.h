/* SPDX-License-Identifier: MIT */
/*
 * vec.h - a growable array of fixed-size elements (curl's dynbuf is the model):
 * one growth policy (doubling from 16 elements), one error path (a push that
 * cannot grow returns NULL and leaves the array as it was: nothing leaks, nothing
 * is silently cut), and an overflow check on every size computation.
 *
 *   struct gs_vec v;
 *   gs_vec_init(&v, sizeof(struct row));
 *   struct row *r = gs_vec_push(&v);   if (!r) -> out of memory, v still whole
 *   ... gs_vec_at(&v, i) ... v.len ...
 *   gs_vec_free(&v);
 *
 * An array that its users index as a typed pointer (a struct's `v` and `cap`
 * fields, read all over the tree) grows by the same policy through
 * gs_vec_grow(), the function gs_vec_reserve() itself calls:
 *
 *   struct row *nv = gs_vec_grow(t->v, &t->cap, t->n + 1, sizeof(*nv));
 *   if (!nv) -> out of memory, t->v and t->cap as they were
 *   t->v = nv;
 */
#ifndef GS_LIB_VEC_H
#define GS_LIB_VEC_H

#include <stdbool.h>
#include <stddef.h>

struct gs_vec {
    void *data;
    size_t len;  /* elements in use */
    size_t cap;  /* elements allocated */
    size_t elem; /* bytes per element */
};

void gs_vec_init(struct gs_vec *v, size_t elem);
void gs_vec_free(struct gs_vec *v);
/* Room for at least n elements in all; false (v unchanged) when it cannot grow. */
bool gs_vec_reserve(struct gs_vec *v, size_t n);
/* A new zeroed element at the end; NULL (v unchanged) when it cannot grow. */
void *gs_vec_push(struct gs_vec *v);
void *gs_vec_at(const struct gs_vec *v, size_t i);
/* Copy n elements from src to the end; false (v unchanged) when it cannot grow. */
bool gs_vec_append(struct gs_vec *v, const void *src, size_t n);

/* The growth policy itself, for a block p of *cap elements of elem bytes: a
 * block with room for at least n elements (p itself when p is not NULL and
 * *cap >= n; never NULL on success, even for n == 0), *cap updated. NULL when
 * it cannot grow: p is still valid and *cap unchanged. Elements past the old
 * *cap are not initialised. */
void *gs_vec_grow(void *p, size_t *cap, size_t n, size_t elem);

#endif
