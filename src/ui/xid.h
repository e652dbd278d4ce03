/* SPDX-License-Identifier: MIT */
/*
 * xid.h - Xid badges of `gpuscope top`: a few words for the common Xid codes,
 * and per GPU the Xids seen during the session (from the samples' running
 * tallies and, for a GPU whose sample is gone, e.g. lost, from the snapshot's
 * events). No curses here.
 */
#ifndef GS_UI_XID_H
#define GS_UI_XID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"

/* A few words for an Xid ("fell off the bus"), or NULL for a code not in the table. */
const char *gs_xid_words(uint32_t xid);
/* Xids that take the GPU out of service (hardware, memory, bus, firmware) rather
 * than one application's error: the badge is drawn as bad, not as a warning. */
bool gs_xid_severe(uint32_t xid);

struct gs_xid_seen {
    uint64_t count;         /* Xids on this GPU since top started */
    uint32_t last;          /* latest code */
    int64_t last_ms;        /* its time, ms since the epoch */
};

struct gs_xid_track {
    struct gs_xid_seen *v;  /* per snapshot GPU slot */
    uint32_t n;
    size_t cap;
};

void gs_xid_track_release(struct gs_xid_track *t);
/* Take a snapshot's Xids into the tally. 0 or -GS_E_NOMEM. */
int gs_xid_track_update(struct gs_xid_track *t, const struct gs_snapshot *snap);
/* Badge text for GPU slot i: "Xid 79 fell off the bus 03:21:07" (count when more
 * than one: "Xid 13 x3 ..."), or "" when no Xid was seen. */
const char *gs_xid_badge(const struct gs_xid_track *t, uint32_t i, char *buf, size_t len);

#endif /* GS_UI_XID_H */
