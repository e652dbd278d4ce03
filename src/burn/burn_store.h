/* SPDX-License-Identifier: MIT */
/*
 * burn_store.h - what burn (in the core binary, which has no SQLite:
 * core/module.h) asks of the recorder's database when given --db: the record
 * module exports this table as GS_RECORD_BURN_API_SYMBOL (src/record/burn_api.c),
 * found with gs_module_symbol("record", ...). Samples go in as `gpuscope
 * record` writes them, so `gpuscope report` shows the burn with its
 * throttling and events; the burn's start, verdicts and end are `mark` events.
 */
#ifndef GS_BURN_STORE_H
#define GS_BURN_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "core/model.h"

struct gs_burn_store_api {
    /* Open (create) the database as its writer; virtual_time: stamp events with t_ms. */
    int (*open)(void **h, const char *path, uint32_t interval_ms, bool virtual_time, struct gs_err *err);
    int (*tick)(void *h, int64_t t_ms, const struct gs_snapshot *snap, struct gs_err *err);
    int (*mark)(void *h, int64_t t_ms, int gpu, const char *text, struct gs_err *err);
    void (*close)(void *h, int64_t t_ms);
};
#define GS_RECORD_BURN_API_SYMBOL "gs_record_burn_api"

#endif /* GS_BURN_STORE_H */
