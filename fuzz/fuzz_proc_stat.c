/* SPDX-License-Identifier: MIT */
/*
 * fuzz_proc_stat.c - libFuzzer harness for gs_proc_stat_parse (lib/procstat.h,
 * the one /proc/PID/stat parser). The input is not NUL-terminated: the parser must
 * stay inside [data, data + size). On success the fields must be sane.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/procstat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_proc_stat st;
    /* a heap copy of exactly size bytes, so ASan catches any read past it */
    char *buf = malloc(size ? size : 1);

    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    if (gs_proc_stat_parse(buf, size, &st) == 0) {
        if (strnlen(st.comm, sizeof(st.comm)) >= sizeof(st.comm))
            abort();
    } else if (st.cpu_ticks || st.start_ticks || st.rss_pages || st.comm[0]) {
        abort(); /* a failed parse leaves nothing half-filled */
    }
    free(buf);
    return 0;
}
