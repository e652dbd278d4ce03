/* SPDX-License-Identifier: MIT */
/* bytes.c - a byte count for a person (bytes.h). */
#include "lib/bytes.h"

#include <stdio.h>

const char *gs_fmt_size(uint64_t b, char *buf, size_t len)
{
    if (b >= UINT64_C(1) << 30)
        snprintf(buf, len, "%.1f GiB", (double)b / (1u << 30));
    else
        snprintf(buf, len, "%.0f MiB", (double)b / (1u << 20));
    return buf;
}
