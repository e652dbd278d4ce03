/* SPDX-License-Identifier: MIT */
/*
 * fuzz_timeparse.c - libFuzzer harness for gs_parse_time_why and
 * gs_parse_duration_ms (report/run/mark/baseline/record time options). Any
 * input either parses to an instant or is refused with a reason; the reason
 * is a terminated string, and an accepted date-time round-trips through
 * gs_rfc3339 to the same millisecond.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[128], why[256], out[64];
    int64_t ms, back;

    if (size >= sizeof(in))
        size = sizeof(in) - 1;
    memcpy(in, data, size);
    in[size] = '\0';
    setenv("TZ", size && (data[0] & 1) ? "Europe/Berlin" : "UTC", 1);
    memset(why, 'x', sizeof(why));
    if (gs_parse_time_why(in, 1714521600000LL, &ms, why, sizeof(why)) < 0) {
        if (!memchr(why, '\0', sizeof(why)) || !why[0])
            abort();
    } else if (in[0] >= '0' && in[0] <= '9') {
        gs_rfc3339(ms, out, sizeof(out));
        if (gs_parse_time_why(out, 0, &back, why, sizeof(why)) < 0 || back != ms)
            abort();
    }
    gs_parse_duration_ms(in, &ms);
    return 0;
}
