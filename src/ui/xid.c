/* SPDX-License-Identifier: MIT */
/*
 * xid.c - the Xid badges of `gpuscope top`: the per-GPU Xid tally, with words
 * and severity from the health engine's Xid catalog.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "health/health.h"
#include "lib/vec.h"
#include "ui/xid.h"

/* The words and the severity come from the one Xid catalog (health/xid_catalog.c). */
const char *gs_xid_words(uint32_t xid)
{
    const struct gs_xid_info *x = gs_xid_lookup(xid);
    return x ? x->words : NULL;
}

bool gs_xid_severe(uint32_t xid)
{
    const struct gs_xid_info *x = gs_xid_lookup(xid);
    return x && x->severity >= GS_SEV_CRITICAL;
}

void gs_xid_track_release(struct gs_xid_track *t)
{
    free(t->v);
    memset(t, 0, sizeof(*t));
}

static void seen_add(struct gs_xid_seen *s, uint32_t xid, int64_t ms)
{
    s->count++;
    if (ms >= s->last_ms) {
        s->last = xid;
        s->last_ms = ms;
    }
}

int gs_xid_track_update(struct gs_xid_track *t, const struct gs_snapshot *snap)
{
    if (t->n < snap->ngpus) {
        struct gs_xid_seen *v = gs_vec_grow(t->v, &t->cap, snap->ngpus, sizeof(*v));
        if (!v)
            return -GS_E_NOMEM;
        memset(v + t->n, 0, (snap->ngpus - t->n) * sizeof(*v));
        t->v = v;
        t->n = snap->ngpus;
    }
    /* Events count only for GPUs whose sample has no tally this tick (lost ones):
     * a sample's running count already includes its events. */
    for (uint32_t k = 0; k < snap->nevents && k < GS_MAX_EVENTS; k++) {
        const struct gs_event *e = &snap->events[k];
        if (e->kind != GS_EV_XID)
            continue;
        for (uint32_t i = 0; i < snap->ngpus; i++)
            if (snap->gpus[i].st.index == e->gpu && !gs_sample_has(&snap->gpus[i].s, GS_F_XID))
                seen_add(&t->v[i], (uint32_t)e->data, e->time_ms);
    }
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_sample *s = &snap->gpus[i].s;
        if (gs_sample_has(s, GS_F_XID) && s->xid_count > t->v[i].count)
            t->v[i] = (struct gs_xid_seen){ s->xid_count, s->xid_last, s->xid_last_ms };
    }
    return 0;
}

const char *gs_xid_badge(const struct gs_xid_track *t, uint32_t i, char *buf, size_t len)
{
    char at[16] = "", times[24] = "";

    if (!len)
        return buf;
    buf[0] = '\0';
    if (i >= t->n || !t->v[i].count)
        return buf;
    const struct gs_xid_seen *s = &t->v[i];
    if (s->last_ms > 0) {
        time_t sec = (time_t)(s->last_ms / 1000);
        struct tm tm;
        if (localtime_r(&sec, &tm))
            strftime(at, sizeof(at), " %H:%M:%S", &tm);
    }
    if (s->count > 1)
        snprintf(times, sizeof(times), " x%llu", (unsigned long long)s->count);
    const char *w = gs_xid_words(s->last);
    snprintf(buf, len, "Xid %u%s %s%s", s->last, times, w ? w : "(see the Xid catalog)", at);
    return buf;
}
