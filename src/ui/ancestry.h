/* SPDX-License-Identifier: MIT */
/*
 * ancestry.h - the parents of GPU processes that are not GPU processes
 * themselves (a launcher such as torchrun, a shell, a job script), read from
 * /proc once per new parent PID and cached, so the tree view can show GPU
 * processes under them. Updated when a snapshot changes the rows, never while
 * drawing. No curses here.
 */
#ifndef GS_UI_ANCESTRY_H
#define GS_UI_ANCESTRY_H

#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

struct gs_hostproc;

struct gs_ancestry {
    struct gs_hostproc *hp;     /* opened on first use; NULL if /proc is unreadable */
    int hp_tried;
    const char *proc_root;      /* NULL: $GPUSCOPE_PROC_ROOT or /proc */
    struct gs_proc *v;          /* the parents, host facts filled */
    struct gs_text text;        /* their command lines (compacted when parents are forgotten) */
    uint32_t *seen;             /* generation each was last needed */
    size_t n, cap;
    uint32_t gen;
    uint64_t reads;             /* /proc look-ups so far (for tests) */
};

void gs_ancestry_release(struct gs_ancestry *a);
/* Make a->v hold the non-GPU parents (PID > 1) of snap's GPU processes: new
 * ones are read from /proc, ones no longer needed are forgotten. 0 or -GS_E_NOMEM. */
int gs_ancestry_update(struct gs_ancestry *a, const struct gs_snapshot *snap);

#endif /* GS_UI_ANCESTRY_H */
