/* SPDX-License-Identifier: MIT */
/*
 * xid.c - the words for common Xids (NVIDIA's Xid catalog, as summarised in
 * the team's health reference notes) and the per-GPU Xid tally of `gpuscope top`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/err.h"
#include "ui/xid.h"

static const struct {
    uint32_t xid;
    bool severe;
    const char *words;
} xid_table[] = {
    { 8, false, "GPU stopped processing" },
    { 13, false, "app error (graphics exception)" },
    { 31, false, "app error (memory page fault)" },
    { 32, false, "bad push buffer (PCIe?)" },
    { 43, false, "app error (channel reset)" },
    { 45, false, "channels cleaned up" },
    { 46, true, "GPU timeout" },
    { 48, true, "double-bit ECC error" },
    { 62, true, "micro-controller halted" },
    { 63, false, "row remap recorded (reset pending)" },
    { 64, true, "row remap failed" },
    { 74, true, "NVLink error" },
    { 79, true, "fell off the bus" },
    { 92, false, "high single-bit ECC rate" },
    { 94, false, "contained ECC error" },
    { 95, true, "uncontained ECC error" },
    { 109, false, "context switch timeout" },
    { 119, true, "GSP firmware timeout" },
    { 120, true, "GSP firmware error" },
    { 140, true, "unrecovered ECC error" },
};

static int xid_find(uint32_t xid)
{
    for (size_t i = 0; i < sizeof(xid_table) / sizeof(xid_table[0]); i++)
        if (xid_table[i].xid == xid)
            return (int)i;
    return -1;
}

const char *gs_xid_words(uint32_t xid)
{
    int k = xid_find(xid);
    return k < 0 ? NULL : xid_table[k].words;
}

bool gs_xid_severe(uint32_t xid)
{
    int k = xid_find(xid);
    return k >= 0 && xid_table[k].severe;
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
        struct gs_xid_seen *v = realloc(t->v, snap->ngpus * sizeof(*v));
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
