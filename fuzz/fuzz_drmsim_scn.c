/* SPDX-License-Identifier: MIT */
/*
 * fuzz_drmsim_scn.c - libFuzzer harness for the DRM simulator's scenario
 * parser (sim/drm/drmsim_scn.c): any bytes must parse, or fail with a message
 * naming the line, never crash, leak or overrun; what parses must hold (counts
 * within their limits, clients on defined cards, strings terminated), and its
 * expressions must evaluate and integrate over a short span.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drm/drmsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct ds_scn *s)
{
    if (s->ncards < 0 || s->ncards > DS_MAX_CARDS || s->nprocs < 0 || s->nprocs > DS_MAX_PROCS ||
        s->nclients < 0 || s->nclients > DS_MAX_CLIENTS || s->nids < 0 || s->nids > 8)
        abort();
    if (!memchr(s->name, '\0', sizeof(s->name)) || !memchr(s->kernel, '\0', sizeof(s->kernel)))
        abort();
    for (int i = 0; i < s->ncards; i++) {
        const struct ds_card *k = &s->cards[i];
        if (k->nsclk > DS_MAX_LEVELS || k->nmclk > DS_MAX_LEVELS || k->nras > DS_MAX_RAS)
            abort();
        for (int n = 0; n < DN__COUNT; n++)
            (void)ds_eval(k->num[n], 1.5, (unsigned)i);
    }
    for (int i = 0; i < s->nclients; i++) {
        const struct ds_client *c = &s->clients[i];
        if (c->card < 0 || c->card >= DS_MAX_CARDS)
            abort();
        for (int e = 0; e < DS_ENGINES; e++)
            (void)ds_eval(c->eng[e], 2.0, (unsigned)i);
    }
    for (int i = 0; i < s->nprocs; i++) {
        if (!memchr(s->procs[i].comm, '\0', sizeof(s->procs[i].comm)))
            abort();
        (void)ds_eval(s->procs[i].cpu, 0.5, (unsigned)i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ds_scn s; /* large (cards inline): not on the stack */
    char err[512];

    memset(&s, 0, sizeof(s));
    err[0] = '\0';
    if (ds_parse_buf(&s, (const char *)data, size, "fuzz.drm", err, sizeof(err)) == 0) {
        check(&s);
        ds_integrate(&s, 0.25); /* 25 steps of the writer's integrals (engine ns, energy, CPU) */
    } else if (!err[0] || !memchr(err, '\0', sizeof(err))) {
        abort(); /* a failure always says what and where */
    }
    ds_free(&s);
    return 0;
}
