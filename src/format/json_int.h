/* SPDX-License-Identifier: MIT */
/*
 * json_int.h - what the JSON writer's files share (json.c, json_drm.c): an
 * object being written with the "unavailable" list it reports into.
 */
#ifndef GS_OUT_JSON_INT_H
#define GS_OUT_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "format/jsonw.h"

struct jlist;

/* One object being written, with the "unavailable" list it reports into. */
struct jgrp {
    struct gs_jw *w;
    struct jlist *unavail;
    const char *path; /* "power" -> keys "power.draw_w"; "" at the top */
    size_t npath;
};

/* key: v when st is OK, else null with st's reason in the unavailable map.
 * Keys and paths must outlive the object (literals). */
void gs_json_int(struct jgrp *g, const char *key, enum gs_status st, int64_t v);
void gs_json_bool(struct jgrp *g, const char *key, enum gs_status st, bool v);
/* A compound value: the key and true when st is OK (the caller writes the
 * value), else null with the reason and false. */
bool gs_json_key_ok(struct jgrp *g, const char *key, enum gs_status st);
/* A member object reporting into top's list as "path.<key>" (path: the
 * object's place from the top, "drm.memory"); close it with gs_jw_end(g.w). */
struct jgrp gs_json_group(struct jgrp *top, const char *key, const char *path);

/* The "drm" object of an AMD or Intel GPU (json_drm.c); nothing for NVIDIA's. */
void gs_json_gpu_drm(struct jgrp *top, const struct gs_gpu *d);
/* The "drm" object of a process on an AMD or Intel GPU. */
void gs_json_proc_drm(struct jgrp *top, const struct gs_gpu *d, const struct gs_proc *p);

#endif /* GS_OUT_JSON_INT_H */
