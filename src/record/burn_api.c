/* SPDX-License-Identifier: MIT */
/*
 * burn_api.c - the recorder's database for `gpuscope burn --db` (the table
 * declared in burn/burn_store.h): one writer store, a tick per snapshot, and
 * annotations (`mark` events) for the burn's start, verdicts and end.
 */
#include <stdlib.h>

#include "burn/burn_store.h"
#include "record/store.h"

static int burn_open(void **h, const char *path, uint32_t interval_ms, bool virtual_time, struct gs_err *err)
{
    struct gs_store_opts o = { .path = path, .writer = true, .interval_ms = interval_ms, .virtual_time = virtual_time,
                               .keep_full_ms = GS_STORE_KEEP_FULL_MS, .keep_rollup_ms = GS_STORE_KEEP_ROLLUP_MS };
    struct gs_store *st = NULL;
    int rc = gs_store_open(&st, &o, err);
    *h = st;
    return rc;
}

static int burn_tick(void *h, int64_t t_ms, const struct gs_snapshot *snap, struct gs_err *err)
{
    return gs_store_write_tick(h, t_ms, snap, false, err);
}

static int burn_mark(void *h, int64_t t_ms, int gpu, const char *text, struct gs_err *err)
{
    return gs_store_event(h, t_ms, gpu, "mark", 0, 0, text, err);
}

static void burn_close(void *h, int64_t t_ms)
{
    struct gs_err err = { 0 };
    if (!h)
        return;
    gs_store_finish(h, t_ms, &err);
    gs_store_close(h);
}

extern const struct gs_burn_store_api gs_record_burn_api;
const struct gs_burn_store_api gs_record_burn_api = { burn_open, burn_tick, burn_mark, burn_close };
