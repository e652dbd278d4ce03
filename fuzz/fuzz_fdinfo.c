/* SPDX-License-Identifier: MIT */
/* fuzz_fdinfo.c - libFuzzer harness for the DRM fdinfo parser (src/backend/drm/fdinfo.c):
 * any bytes, as a /proc/PID/fdinfo/FD text of any driver, must parse without crashing or
 * reading past len (the input is not NUL-terminated), and what it fills must hold: a known
 * driver's table, engine bits only for its slots, capacities >= 1, strings terminated. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/drm/fdinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1); /* exactly size bytes: ASan catches a read past them */
    struct gs_fdinfo fi;

    if (!text)
        return 0;
    memcpy(text, data, size);
    if (gs_fdinfo_parse(text, size, &fi) == 0) {
        if (!fi.keys || gs_fdinfo_keys_for(fi.keys->driver) != fi.keys || fi.keys->nslots > GS_MAX_ENGINES)
            abort();
        uint32_t slots = fi.keys->nslots == 32 ? UINT32_MAX : (UINT32_C(1) << fi.keys->nslots) - 1;
        if ((fi.have_ns | fi.have_cycles) & ~slots)
            abort();
        for (uint32_t s = 0; s < fi.keys->nslots; s++)
            if (fi.capacity[s] < 1)
                abort();
        if (!memchr(fi.pdev, '\0', sizeof(fi.pdev)) || !memchr(fi.client_name, '\0', sizeof(fi.client_name)))
            abort();
    }
    free(text);
    return 0;
}
