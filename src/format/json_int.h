/* SPDX-License-Identifier: MIT */
/*
 * json_int.h - what the JSON writer's files share (json.c, json_proc.c,
 * json_mig.c, json_drm.c): an object being written with the "unavailable" list
 * it reports into, and the values a jput writes.
 */
#ifndef GS_OUT_JSON_INT_H
#define GS_OUT_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "format/jsonw.h"

/* A reason for a null, gathered while its object is written: the object's
 * "unavailable" map comes after all its other keys. Paths are "prefix.key". */
struct junav {
    const char *prefix, *key, *why;
    uint8_t nprefix, nkey;
};

struct jlist {
    struct junav *v;
    size_t n, cap;
    bool failed;
};

/* What a jput writes: the value when its status is OK, else null with the reason. */
enum jkind { J_INT, J_REAL, J_BOOL, J_STR, J_STR_OR_NULL, J_HEX, J_NONE };
struct jval {
    enum jkind kind;
    int64_t i;
    double r;
    const char *s;
};

#define JI(v) ((struct jval){.kind = J_INT, .i = (int64_t)(v)})
#define JR(v) ((struct jval){.kind = J_REAL, .r = (v)})
#define JB(v) ((struct jval){.kind = J_BOOL, .i = (v) ? 1 : 0})
#define JS(v) ((struct jval){.kind = J_STR, .s = (v)})
#define JSN(v) ((struct jval){.kind = J_STR_OR_NULL, .s = (v)})
#define JHEX(v) ((struct jval){.kind = J_HEX, .i = (int64_t)(v)})
#define JWATTS(mw) JR((mw) / 1000.0)
#define JNONE ((struct jval){.kind = J_NONE})

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

/* Key with v when st is OK, else null with the reason (why, else the status's);
 * a string the encoder refuses is null with "invalid_utf8" (json.c). jput_why and
 * jput take literal keys and pass their lengths along. */
void gs_json_putn(struct jgrp *g, const char *key, size_t nkey, enum gs_status st, const char *why,
                  struct jval v);
#define jput_why(g, key, st, why, v) gs_json_putn((g), "" key, sizeof(key) - 1, (st), (why), (v))
#define jput(g, key, st, v) gs_json_putn((g), "" key, sizeof(key) - 1, (st), NULL, (v))
/* A member object that reports into the same list; close it with gs_jw_end. */
struct jgrp gs_json_groupn(struct jgrp *top, const char *name, size_t n);
#define jgroup(top, name) gs_json_groupn((top), "" name, sizeof(name) - 1)
/* The "unavailable" map of the list's entries from index from on; drops them. */
void gs_json_unav_write(struct gs_jw *w, struct jlist *l, size_t from);

/* One process object (json_proc.c); its reasons go into l after the GPU's. */
void gs_json_proc(struct gs_jw *w, struct jlist *l, const struct gs_gpu *d, const struct gs_proc *p, unsigned flags);
/* A GPU's "profiling" object and its "mig_devices" array (json_mig.c). */
void gs_json_profiling(struct jgrp *top, const struct gs_sample *s);
void gs_json_mig_devices(struct jgrp *top, const struct gs_gpu *d);

/* The "drm" object of an AMD or Intel GPU (json_drm.c); nothing for NVIDIA's. */
void gs_json_gpu_drm(struct jgrp *top, const struct gs_gpu *d);
/* The "drm" object of a process on an AMD or Intel GPU. */
void gs_json_proc_drm(struct jgrp *top, const struct gs_gpu *d, const struct gs_proc *p);

#endif /* GS_OUT_JSON_INT_H */
