/* SPDX-License-Identifier: MIT */
/*
 * format.h - what `gpuscope query` prints a snapshot as (CSV, JSON, the compact
 * table, the details report) and the loop that takes snapshots and prints
 * them (gs_out_run). The formatters only read a gs_snapshot: they can be fed
 * hand-built snapshots (tests) or snapshots from the sampler.
 */
#ifndef GS_FORMAT_H
#define GS_FORMAT_H

#include "core/err.h"
#include "core/model.h"
#include "format/fields.h"
#include "format/smi.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum gs_out_format {
    GS_OUT_TABLE = 0, /* default: one line per GPU with its processes */
    GS_OUT_CSV,       /* --query-gpu / --query-compute-apps */
    GS_OUT_JSON,      /* docs/JSON.md */
    GS_OUT_DETAILS,   /* --details */
    /* -- gpustat's face (gpustat.c) -- */
    GS_OUT_GPUSTAT,      /* gpustat's lines (`gpuscope gpustat`, --format gpustat) */
    GS_OUT_GPUSTAT_JSON, /* gpustat --json */
    GS_OUT_SMI_TABLE, /* gpuscope smi: nvidia-smi's summary table */
    GS_OUT_SMI_LIST,  /* smi -L */
    GS_OUT_SMI_QUERY, /* smi -q [-d ...] */
    GS_OUT_SMI_XML,   /* smi -q -x (the smixml module writes it) */
    GS_OUT_SMI_MON,   /* smi dmon / pmon */
};

/* ---- formatters: each writes one snapshot; 0, or -GS_E_IO when out failed ---- */

enum gs_csv_flags {
    GS_CSV_NOHEADER = 1 << 0,
    GS_CSV_NOUNITS = 1 << 1,
};
/* The header line (field names with unit tags), as nvidia-smi prints it for
 * the driver of snap (NULL: the newest spellings). */
int gs_csv_write_header(FILE *out, const struct gs_fieldlist *fl, const struct gs_snapshot *snap);
/* One row per GPU (--query-gpu) or per compute process (--query-compute-apps). */
int gs_csv_write_rows(FILE *out, const struct gs_snapshot *snap, const struct gs_fieldlist *fl,
                      unsigned flags);

#define GS_JSON_SCHEMA "gpuscope.snapshot/1"
/* The snapshot as JSON (docs/JSON.md), compact on one line (NDJSON) or
 * indented (2 spaces), with a line break after it. */
int gs_json_write(FILE *out, const struct gs_snapshot *snap, bool compact);
/* The same text without the line break, in memory (caller frees); NULL on
 * out of memory. */
char *gs_json_text(const struct gs_snapshot *snap, bool compact, size_t *len);
/* Flags of gs_json_text_ex. */
enum gs_json_flags {
    GS_JSON_REDACT_CMDLINE = 1 << 0, /* processes' "cmdline" null, reason "redacted" (serve's default) */
};
char *gs_json_text_ex(const struct gs_snapshot *snap, bool compact, unsigned flags, size_t *len);

/* The compact table; color: ANSI colours (caller decides: tty, NO_COLOR). */
int gs_table_write(FILE *out, const struct gs_snapshot *snap, bool color);
/* Everything known per GPU, grouped (the `nvidia-smi -q` of gpuscope). */
int gs_details_write(FILE *out, const struct gs_snapshot *snap);

/* ---- gpustat's face (gpustat.c): its lines and its JSON, byte for byte ---- */

struct gs_gpustat_opts {
    bool color;            /* gpustat's ANSI colours (--force-color; auto on a terminal) */
    bool color_auto;       /* colour because stdout is a terminal: blessed's sgr0 ends each span */
    bool show_cmd;         /* -c: command name (basename of argv[0]) */
    bool show_full_cmd;    /* -f: a line per process with CPU %, host memory and command line */
    bool show_user;        /* -u: user (with -c: user:command) */
    bool show_pid;         /* -p: /PID */
    bool show_fan;         /* -F */
    const char *codec;     /* -e: "", "enc", "dec", "enc,dec" ("" or NULL: not shown) */
    const char *power;     /* -P: "draw", "limit", "draw,limit", "limit,draw" ("" or NULL: not shown) */
    int gpuname_width;     /* --gpuname-width; -1: the longest name */
    bool no_header;        /* --no-header */
    bool no_processes;     /* --no-processes */
    const char *eol;       /* line end: "\n", or "\033[K\n" when redrawing in place (watch mode) */
};
/* gpustat's header and one line per GPU (gpustat/core.py print_formatted). */
int gs_gpustat_write(FILE *out, const struct gs_snapshot *snap, const struct gs_gpustat_opts *o);
/* gpustat --json: its schema, keys and indentation (print_json). */
int gs_gpustat_json_write(FILE *out, const struct gs_snapshot *snap);
/* What gpustat prints when the query cannot start (err from gs_sampler_open):
 * its error line and our explanation on stderr, or, with no GPU at all, its
 * header and "(No GPUs are available)". Returns the exit status (gpustat's). */
int gs_gpustat_open_failed(const struct gs_gpustat_opts *o, bool json, const struct gs_err *err, bool selected);

/* ---- the query loop ---- */

struct gs_backend;

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
    const struct gs_gpustat_opts *gpustat; /* GS_OUT_GPUSTAT: how (redraw: watch mode on a terminal) */
    bool verbose;                      /* explanations on stderr (nvidia-smi prints none) */
    /* gpuscope smi */
    unsigned smi_display;              /* GS_OUT_SMI_QUERY: -d sections (0: all) */
    struct gs_smi_mon mon;             /* GS_OUT_SMI_MON */
    bool smi_dtd;                      /* GS_OUT_SMI_XML: --dtd, embed the DTD */
    /* GS_OUT_SMI_XML: the writer from the smixml module */
    int (*smi_xml)(FILE *out, const struct gs_snapshot *snap, bool dtd);
    /* the fleet (--prometheus): the backend of fleet.so and its struct gs_prom_opts */
    const struct gs_backend *backend;
    const void *backend_arg;
};

/* Open the sampler for what the output needs, print snapshots until done,
 * SIGINT/SIGTERM or a closed pipe. Returns an enum gs_exit value; errors are
 * printed to stderr. */
int gs_out_run(const struct gs_out_opts *o);

#endif /* GS_FORMAT_H */
