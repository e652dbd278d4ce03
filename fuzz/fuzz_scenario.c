/* SPDX-License-Identifier: MIT */
/*
 * fuzz_scenario.c - libFuzzer harness for the simulator's scenario parser
 * (sim/scenario*.c): any input must parse or fail with a message, never crash,
 * leak or overrun. Also feeds the input as GPUSCOPE_SIM_FAULTS text and
 * evaluates every parsed value at a few times.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_eval_all(const struct gs_scn *s)
{
    static const double times[] = {0.0, 1.5, 60.0, 1e9};
    for (int g = 0; g < s->ngpus; g++) {
        struct gs_scn_env env = {.gpu = &s->gpus[g], .salt = (unsigned)g};
        for (int n = 0; n < GS_SCN_N__COUNT; n++)
            for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++)
                (void)gs_scn_eval(s->gpus[g].num[n], times[k], &env);
    }
    for (int i = 0; i < s->nprocs; i++)
        (void)gs_scn_eval(s->procs[i].mem, 3.0, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[GS_SCN_ERR_LEN];
    struct gs_scn *s = gs_scn_new();
    if (!s)
        return 0;
    if (gs_scn_parse_buf(s, (const char *)data, size, "fuzz.scn", err, sizeof(err)) == 0)
        fuzz_eval_all(s);
    gs_scn_free(s);

    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    s = gs_scn_new();
    if (s)
        (void)gs_scn_parse_faults(s, text, "GPUSCOPE_SIM_FAULTS", err, sizeof(err));
    gs_scn_free(s);
    free(text);
    return 0;
}
