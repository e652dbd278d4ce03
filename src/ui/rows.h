/* SPDX-License-Identifier: MIT */
/*
 * rows.h - the process table of `gpuscope top` as data: one row per process
 * per GPU, filtered by text, sorted by any column, optionally arranged as a
 * tree by parent PID. Pure logic (no curses) so unit tests can drive it with
 * hand-built snapshots.
 */
#ifndef GS_UI_ROWS_H
#define GS_UI_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

enum gs_col {
    GS_COL_PID,
    GS_COL_USER,
    GS_COL_GPU,
    GS_COL_TYPE,
    GS_COL_GMEM,
    GS_COL_SM,
    GS_COL_MBW,
    GS_COL_ENC,
    GS_COL_DEC,
    GS_COL_CPU,
    GS_COL_HMEM,
    GS_COL_TIME,
    GS_COL_JOB,   /* the Slurm job (shown only while some process is in one) */
    GS_COL_CONT,
    GS_COL_CMD,
    GS_COL_COUNT
};

struct gs_coldef {
    const char *title;   /* header text */
    const char *key;     /* name in the config file */
    int width;           /* cells, 0 = takes the rest of the line */
    int drop_below;      /* hidden when the terminal is narrower than this */
    bool right;          /* right-aligned (numbers) */
    bool desc_first;     /* first click sorts descending (big numbers on top) */
};
extern const struct gs_coldef gs_cols[GS_COL_COUNT];
/* Column by config name, or -1. */
int gs_col_by_key(const char *key);

struct gs_row {
    const struct gs_proc *p;  /* points into the snapshot the rows were built from */
    const char *cmd;          /* p's command line ("" if none), in that snapshot's text arena */
    uint32_t gpu;             /* index into snapshot->gpus */
    uint32_t idx;             /* index into that GPU's procs[] */
    uint32_t pid;             /* p->pid, kept so the rows can be checked against a new snapshot */
    uint16_t depth;           /* tree depth (0 outside tree view) */
    bool last_child;          /* tree drawing: no later sibling */
    bool virt;                /* tree view: a parent that is not on a GPU (gpu = GS_ROW_NO_GPU) */
    bool has_key;             /* sort scratch: the sort column has a value */
    uint64_t key;             /* sort scratch: numeric key of the sort column */
    const char *skey;         /* sort scratch: text key (text columns) */
};

#define GS_ROW_NO_GPU UINT32_MAX

struct gs_rows {
    struct gs_row *v;
    size_t n, cap;
};

void gs_rows_release(struct gs_rows *r);
/* Fill r with the processes of snap matching filter (NULL or "" = all).
 * Returns 0 or -GS_E_NOMEM. */
int gs_rows_build(struct gs_rows *r, const struct gs_snapshot *snap, const char *filter);
/* Does a process on GPU gpu_index match the filter? Space-separated terms, all
 * must match: "user:NAME", "gpu:N", "pid:N", "type:c|g|m", or plain text
 * found (case-insensitively) in the PID, user, command, command line or container. */
bool gs_row_match(const struct gs_text *t, const struct gs_proc *p, uint32_t gpu_index, const char *filter);
void gs_rows_sort(struct gs_rows *r, enum gs_col col, bool desc);
/* Point the rows at snap, which holds the same processes in the same places as
 * the snapshot they were built from (same PIDs per GPU and index). Returns
 * false, changing nothing, when it does not. */
bool gs_rows_repoint(struct gs_rows *r, const struct gs_snapshot *snap);
/* A fingerprint of what the table shows of snap's processes (PIDs, values,
 * names, GPU states): equal fingerprints mean the table need not change. */
uint64_t gs_rows_fingerprint(const struct gs_snapshot *snap);
/* Re-order (already sorted) rows into a tree by ppid: children follow their
 * parent, siblings keep the sort order; depth/last_child are set. */
int gs_rows_tree(struct gs_rows *r);
/* The same, first adding as rows (virt, GS_ROW_NO_GPU) those of the nextra
 * processes in extra (parents that are not on a GPU; their command lines in
 * extra_text) that are the parent of a row; each goes where its first child
 * was. 0 or -GS_E_NOMEM. */
int gs_rows_tree_with(struct gs_rows *r, const struct gs_proc *extra, const struct gs_text *extra_text,
                      size_t nextra);
/* Compare two rows on col ascending (missing values last); exposed for tests. */
int gs_row_cmp(const struct gs_row *a, const struct gs_row *b, enum gs_col col);
/* Row index of (pid, gpu), or -1. */
long gs_rows_find(const struct gs_rows *r, uint32_t pid, uint32_t gpu);

#endif /* GS_UI_ROWS_H */
