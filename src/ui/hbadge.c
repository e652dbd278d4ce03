/* SPDX-License-Identifier: MIT */
/* hbadge.c - per-GPU health badges from the engine's findings (see hbadge.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "ui/hbadge.h"

void gs_hbadges_release(struct gs_hbadges *b)
{
    free(b->v);
    memset(b, 0, sizeof(*b));
}

bool gs_hbadge_shown_elsewhere(const struct gs_finding *f)
{
    return !strncmp(f->code, "xid.", 4) || !strcmp(f->code, "gpu.lost") || !strcmp(f->code, "ecc.uncorrectable");
}

static void badge_set(struct gs_hbadge *b, const char *text, uint8_t sev)
{
    if (b->severity != sev || strcmp(b->text, text)) {
        snprintf(b->text, sizeof(b->text), "%s", text);
        b->severity = sev;
        b->dirty = true;
    }
}

/* The badge of the GPU with NVML index idx: its worst finding's words, "+N" for the rest. */
static void badge_for(struct gs_hbadge *b, uint32_t idx, const struct gs_findings *f)
{
    const struct gs_finding *worst = NULL;
    unsigned more = 0;
    char words[56], text[64] = "";
    for (size_t k = 0; k < f->n; k++) {
        const struct gs_finding *x = &f->v[k];
        if (x->gpu != (int32_t)idx || gs_hbadge_shown_elsewhere(x))
            continue;
        if (!worst)
            worst = x; /* sorted worst first */
        else
            more++;
    }
    if (worst) {
        gs_finding_words(worst, words, sizeof(words));
        if (more)
            snprintf(text, sizeof(text), "%.48s +%u", words, more);
        else
            snprintf(text, sizeof(text), "%s", words);
    }
    badge_set(b, text, worst ? worst->severity : GS_SEV_NONE);
}

int gs_hbadges_update(struct gs_hbadges *b, const struct gs_snapshot *snap, const struct gs_findings *f)
{
    if (b->n != snap->ngpus) {
        struct gs_hbadge *v = calloc(snap->ngpus ? snap->ngpus : 1, sizeof(*v));
        if (!v)
            return -GS_E_NOMEM;
        free(b->v);
        b->v = v;
        b->n = snap->ngpus;
        for (uint32_t i = 0; i < b->n; i++)
            b->v[i].dirty = true;
    }
    for (uint32_t i = 0; i < snap->ngpus; i++)
        badge_for(&b->v[i], snap->gpus[i].st.index, f);
    b->total = (uint32_t)f->n;
    b->worst = (uint8_t)gs_findings_worst(f);
    return 0;
}
