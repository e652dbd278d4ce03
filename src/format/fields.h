/* SPDX-License-Identifier: MIT */
/*
 * fields.h - nvidia-smi's --query-gpu and --query-compute-apps field names,
 * and how each one is printed from a snapshot (`38 %`, `8192 MiB`, `627.40 W`,
 * `0x0000000000000004`, `[Not Supported]`, ...).
 *
 * The table behind it (fields.c) says, per field: canonical name, aliases,
 * CSV header unit tag, which gs_sample/gs_static member it reads and how it
 * is spelled. Names nvidia-smi knows but gpuscope does not read are accepted
 * and print `[N/A]` (see docs/QUERY.md). Not for JSON: json.c has its own keys.
 */
#ifndef GS_OUT_FIELDS_H
#define GS_OUT_FIELDS_H

#include "core/err.h"
#include "core/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which nvidia-smi query a field list belongs to. */
enum gs_query_kind {
    GS_QUERY_GPU,          /* --query-gpu: one row per GPU */
    GS_QUERY_COMPUTE_APPS, /* --query-compute-apps: one row per compute process */
};

struct gs_field_def; /* one row of the table in fields.c */

/* A parsed field list, in the order asked (repeats allowed, as nvidia-smi),
 * of any length. Zero-initialise it; gs_fieldlist_free() releases it. */
struct gs_fieldlist {
    enum gs_query_kind kind;
    unsigned n, cap;
    const struct gs_field_def **defs;
};

/* Parse "a,b,c" (spaces around names and empty items ignored). Names match
 * canonical names or aliases, exactly or ignoring case. An unknown name fills
 * err (GS_E_USAGE) with the name and the closest known names. A list parsed
 * before is replaced (its memory reused). */
int gs_fieldlist_parse(struct gs_fieldlist *fl, enum gs_query_kind kind, const char *spec,
                       struct gs_err *err);
void gs_fieldlist_free(struct gs_fieldlist *fl);

/* nvidia-smi's spellings change with the driver branch (docs/QUERY.md,
 * "Driver eras"): the major number of a version string, "550.54.15" -> 550;
 * 0 when unknown (then the newest spellings are used). */
unsigned gs_driver_major(const char *version);

/* What a field list needs from the sampler. */
struct gs_fmask gs_fieldlist_want(const struct gs_fieldlist *fl); /* GS_F_* bits; empty if none */
bool gs_fieldlist_wants_slow(const struct gs_fieldlist *fl); /* PCIe throughput asked */
/* Number of fields gpuscope accepts but cannot read (they print [N/A]); their
 * names go to cb, so the caller can say so once. */
unsigned gs_fieldlist_unread(const struct gs_fieldlist *fl, void (*cb)(void *arg, const char *name),
                             void *arg);

/* The field's canonical name, and its CSV header ("memory.used [MiB]") as the
 * driver branch `major` prints it (R535 renamed clocks_throttle_reasons.*). */
const char *gs_field_name(const struct gs_field_def *f);
void gs_field_header(const struct gs_field_def *f, unsigned major, char *buf, size_t len);

/* What a value is printed from: the snapshot, one GPU of it, and for
 * compute-apps fields one process of that GPU (NULL otherwise). */
struct gs_field_ctx {
    const struct gs_snapshot *snap;
    const struct gs_gpu *gpu;
    const struct gs_proc *proc;
};

enum gs_field_flags {
    GS_FIELD_NOUNITS = 1 << 0, /* "8192" instead of "8192 MiB" */
};

/* Format one value into buf (always NUL-terminated). Returns the length. */
size_t gs_field_format(const struct gs_field_def *f, const struct gs_field_ctx *ctx, unsigned flags,
                       char *buf, size_t len);

/* nvidia-smi's spelling of a status that is not a value in driver branch
 * `major`: "[N/A]" (before R440: "[Not Supported]" for what the GPU cannot
 * give), "[Insufficient Permissions]", "[GPU is lost]", "[Unknown Error]",
 * "[Requested functionality has been deprecated]". */
const char *gs_field_status_str(enum gs_status st, unsigned major);

/* nvidia-smi's timestamp format in local time: "2026/07/03 22:11:09.763". */
size_t gs_field_timestamp(const struct timespec *ts, char *buf, size_t len);

/* A field by exact canonical name or alias (NULL if none): for code that
 * prints a fixed set of fields (gpuscope smi). */
const struct gs_field_def *gs_field_find(enum gs_query_kind kind, const char *name);

/* Print every field of a kind with aliases and meaning (--help-query-gpu). */
void gs_fields_help(enum gs_query_kind kind, void (*line)(void *arg, const char *text), void *arg);

/* Levenshtein distance, capped: returns cap+1 when larger (exposed for tests). */
unsigned gs_edit_distance(const char *a, const char *b, unsigned cap);

#endif /* GS_OUT_FIELDS_H */
