/* SPDX-License-Identifier: MIT */
/*
 * fuzz_smi_args.c - libFuzzer harness for the parsers of gpuscope smi's words:
 * gs_smi_display_parse (-d SECTION,...), gs_smi_mon_groups_ok (dmon/pmon -s) and
 * gs_simwall_parse (GPUSCOPE_SIM_WALLCLOCK). The first byte picks the parser.
 * Invariants: success of -d means a non-empty section mask; a failure names a
 * word of the input; a parsed wall clock has nanoseconds below one second.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/simwall.h"
#include "format/smi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s, bad[64];
    unsigned mask = 0;
    struct timespec ts;
    struct gs_smi_mon m = { NULL, false, false, false };

    if (size < 1 || size > 4096)
        return 0;
    s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    switch (data[0] % 3) {
    case 0:
        if (gs_smi_display_parse(s, &mask, bad, sizeof(bad)) == 0 ? mask == 0 : strlen(bad) >= sizeof(bad))
            abort();
        break;
    case 1:
        m.pmon = data[0] & 4;
        (void)gs_smi_mon_groups_ok(&m, s);
        break;
    default:
        if (gs_simwall_parse(s, &ts) && (ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000L))
            abort();
        break;
    }
    free(s);
    return 0;
}
