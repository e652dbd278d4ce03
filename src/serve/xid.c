/* SPDX-License-Identifier: MIT */
/*
 * xid.c - the exporter's Xid bookkeeping: a tally of Xid events per (GPU,
 * Xid code) accumulated from each snapshot's events[] since the exporter
 * started (gpuscope_xid_errors_total), the order of the latest event per GPU
 * (DCGM_FI_DEV_XID_ERRORS is "the last Xid"). The err_msg label's text is in
 * xid_text.c.
 */
#include "serve/prom.h"

#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "lib/vec.h"

void gs_prom_xid_tally_init(struct gs_prom_xid_tally *t)
{
    memset(t, 0, sizeof(*t));
}

void gs_prom_xid_tally_free(struct gs_prom_xid_tally *t)
{
    free(t->v);
    gs_prom_xid_tally_init(t);
}

/* The entry for (gpu, xid), inserted in (gpu, xid) order if new; NULL on OOM. */
static struct gs_prom_xid *xid_slot(struct gs_prom_xid_tally *t, uint32_t gpu, uint32_t xid)
{
    uint32_t k = 0;
    while (k < t->n && (t->v[k].gpu < gpu || (t->v[k].gpu == gpu && t->v[k].xid < xid)))
        k++;
    if (k < t->n && t->v[k].gpu == gpu && t->v[k].xid == xid)
        return &t->v[k];
    struct gs_prom_xid *v = gs_vec_grow(t->v, &t->cap, (size_t)t->n + 1, sizeof(*v));
    if (!v)
        return NULL;
    t->v = v;
    memmove(&t->v[k + 1], &t->v[k], (t->n - k) * sizeof(*t->v));
    t->n++;
    t->v[k] = (struct gs_prom_xid){ .gpu = gpu, .xid = xid };
    return &t->v[k];
}

int gs_prom_xid_tally_add(struct gs_prom_xid_tally *t, const struct gs_snapshot *snap)
{
    int rc = 0;
    t->dropped += snap->events_dropped;
    for (uint32_t i = 0; i < snap->nevents && i < GS_MAX_EVENTS; i++) {
        const struct gs_event *e = &snap->events[i];
        if (e->kind != GS_EV_XID)
            continue;
        struct gs_prom_xid *x = xid_slot(t, e->gpu, (uint32_t)e->data);
        if (!x) {
            t->dropped++;
            rc = -GS_E_NOMEM;
            continue;
        }
        x->count++;
        x->seq = ++t->seq;
    }
    return rc;
}
