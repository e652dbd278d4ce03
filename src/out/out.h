/* SPDX-License-Identifier: MIT */
/*
 * out.h - what `gpuscope query` prints a snapshot as (CSV, JSON, the compact
 * table, the details report) and the loop that takes snapshots and prints
 * them (gs_out_run). The formatters only read a gs_snapshot: they can be fed
 * hand-built snapshots (tests) or snapshots from the sampler.
 */
#ifndef GS_OUT_H
#define GS_OUT_H

#include "core/err.h"
#include "core/model.h"
#include "out/fields.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum gs_out_format {
    GS_OUT_TABLE = 0, /* default: one line per GPU with its processes */
    GS_OUT_CSV,       /* --query-gpu / --query-compute-apps */
    GS_OUT_JSON,      /* docs/JSON.md */
    GS_OUT_DETAILS,   /* --details */
};

/* ---- formatters: each writes one snapshot; 0, or -GS_E_IO when out failed ---- */

enum gs_csv_flags {
    GS_CSV_NOHEADER = 1 << 0,
    GS_CSV_NOUNITS = 1 << 1,
};
/* The header line (field names with unit tags), as nvidia-smi prints it. */
int gs_csv_write_header(FILE *out, const struct gs_fieldlist *fl);
/* One row per GPU (--query-gpu) or per compute process (--query-compute-apps). */
int gs_csv_write_rows(FILE *out, const struct gs_snapshot *snap, const struct gs_fieldlist *fl,
                      unsigned flags);

#define GS_JSON_SCHEMA "gpuscope.snapshot/1"
struct json_t;
/* The snapshot as a jansson object (docs/JSON.md); NULL on out of memory.
 * The caller owns the reference. */
struct json_t *gs_json_snapshot(const struct gs_snapshot *snap);
/* Write it: compact on one line (NDJSON) or indented. */
int gs_json_write(FILE *out, const struct gs_snapshot *snap, bool compact);

/* The compact table; color: ANSI colours (caller decides: tty, NO_COLOR). */
int gs_table_write(FILE *out, const struct gs_snapshot *snap, bool color);
/* Everything known per GPU, grouped (the `nvidia-smi -q` of gpuscope). */
int gs_details_write(FILE *out, const struct gs_snapshot *snap);

/* ---- the query loop ---- */

struct gs_out_opts {
    enum gs_out_format format;
    const struct gs_fieldlist *fields; /* GS_OUT_CSV: what to print */
    unsigned csv_flags;                /* enum gs_csv_flags */
    bool color;                        /* GS_OUT_TABLE */
    bool redraw;                       /* GS_OUT_TABLE loop on a terminal: clear, like watch(1) */
    uint64_t interval_ns;              /* 0: one snapshot */
    uint64_t count;                    /* snapshots to print, 0 = until stopped */
    const char *only_ids;              /* -i */
    const char *nvml_lib;              /* NULL: default search */
    bool debug;                        /* print bound symbols to stderr */
};

/* Open the sampler for what the output needs, print snapshots until done,
 * SIGINT/SIGTERM or a closed pipe. Returns an enum gs_exit value; errors are
 * printed to stderr. */
int gs_out_run(const struct gs_out_opts *o);

#endif /* GS_OUT_H */
