/* SPDX-License-Identifier: MIT */
/*
 * xid.c - the exporter's Xid bookkeeping: a tally of Xid events per (GPU,
 * Xid code) accumulated from each snapshot's events[] since the exporter
 * started (gpuscope_xid_errors_total), the order of the latest event per GPU
 * (DCGM_FI_DEV_XID_ERRORS is "the last Xid"), and short descriptions of the
 * Xid codes for dcgm-exporter's err_msg label (our wording of NVIDIA's Xid
 * catalogue; docs/SERVE.md).
 */
#include "serve/prom.h"

#include <stdlib.h>
#include <string.h>

#include "core/err.h"

static const struct {
    uint16_t xid;
    const char *text;
} xid_texts[] = {
    { 0, "No Error" },
    { 8, "GPU stopped processing (channel idle timeout)" },
    { 13, "Graphics engine exception" },
    { 31, "GPU memory page fault" },
    { 32, "Invalid or corrupted push buffer stream" },
    { 38, "Driver firmware error" },
    { 43, "GPU stopped processing (channel reset)" },
    { 45, "Preemptive cleanup after previous errors" },
    { 46, "GPU stopped processing (timeout)" },
    { 48, "Double-bit ECC error" },
    { 56, "Display engine error" },
    { 57, "Error programming the video memory interface" },
    { 61, "Internal micro-controller breakpoint" },
    { 62, "Internal micro-controller halt" },
    { 63, "ECC page retirement or row remapping recorded" },
    { 64, "ECC page retirement or row remapping recording failure" },
    { 68, "NVDEC0 exception" },
    { 69, "Graphics engine class error" },
    { 73, "NVENC2 error" },
    { 74, "NVLink error" },
    { 79, "GPU has fallen off the bus" },
    { 92, "High single-bit ECC error rate" },
    { 94, "Contained ECC error" },
    { 95, "Uncontained ECC error" },
    { 109, "Context switch timeout" },
    { 119, "GSP RPC timeout" },
    { 120, "GSP error" },
    { 121, "C2C link corrected errors" },
    { 123, "SPI PMU RPC write failure" },
    { 136, "NVLink link training failed" },
    { 137, "NVLink FLA privilege error" },
    { 140, "Unrecoverable ECC error escape" },
    { 143, "GPU initialization error" },
    { 154, "GPU recovery action changed" },
    { 155, "NVLink software-defined error" },
    { 156, "Resource retirement event" },
    { 157, "Resource retirement failure" },
    { 158, "GPU fatal timeout" },
    { 999, "Unknown Xid" },
};

const char *gs_prom_xid_text(uint32_t xid)
{
    for (size_t i = 0; i < sizeof(xid_texts) / sizeof(xid_texts[0]); i++)
        if (xid_texts[i].xid == xid)
            return xid_texts[i].text;
    return "See NVIDIA's Xid catalog";
}

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
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 8;
        struct gs_prom_xid *v = realloc(t->v, cap * sizeof(*v));
        if (!v)
            return NULL;
        t->v = v;
        t->cap = cap;
    }
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
