/* SPDX-License-Identifier: MIT */
/*
 * hbadge.h - the health badges of `gpuscope top`: per GPU the worst current
 * finding of the health engine, in a few plain words, with its severity (the
 * colour). Findings the LOST, Xid and ECC badges already show are left to them.
 * No curses here (unit-tested in tests/unit/test_health_badge.c).
 */
#ifndef GS_UI_HBADGE_H
#define GS_UI_HBADGE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/model.h"
#include "health/health.h"

struct gs_hbadge {
    char text[64];      /* "HW slowdown", "memory leak pid 1234" (+N when more); "" = none */
    uint8_t severity;   /* enum gs_sev of the worst finding shown */
    bool dirty;         /* changed since the GPU block was last drawn */
};

struct gs_hbadges {
    struct gs_hbadge *v; /* per snapshot GPU slot */
    uint32_t n;
    uint32_t total;      /* all current findings (machine-wide ones included) */
    uint8_t worst;       /* enum gs_sev over all of them */
};

void gs_hbadges_release(struct gs_hbadges *b);
/* Recompute the badges of snap's GPUs from the findings (sorted worst first, as
 * gs_health_eval leaves them). 0 or -GS_E_NOMEM. */
int gs_hbadges_update(struct gs_hbadges *b, const struct gs_snapshot *snap, const struct gs_findings *f);
/* Findings a badge leaves to the LOST, Xid and ECC badges. */
bool gs_hbadge_shown_elsewhere(const struct gs_finding *f);

#endif /* GS_UI_HBADGE_H */
