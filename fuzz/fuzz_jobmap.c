/* SPDX-License-Identifier: MIT */
/*
 * fuzz_jobmap.c - libFuzzer harness for gs_jobmap_parse (a file of dcgm-exporter's
 * HPC job mapping directory) and gs_jobmap_name (its file-name rule). The input
 * is not NUL-terminated. Every job ID found must be a valid one (1..64 printable
 * ASCII bytes, no space, terminated), listed once, and at most 64 of them; the
 * counts of what was left out must agree with each other. The same bytes also go
 * to the prolog's GPU list parser (SLURM_JOB_GPUS: indexes below 1024, at most 64)
 * and its cgroup devices.list reader (NVIDIA's 195:N, N below 255).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/jobmap.h"
#include "record/jobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct gs_jobmap_ids *ids)
{
    if (ids->n > GS_JOBMAP_JOBS_MAX)
        abort();
    for (unsigned k = 0; k < ids->n; k++) {
        if (!gs_jobmap_valid_id(ids->id[k]))
            abort();
        for (unsigned j = 0; j < k; j++)
            if (!strcmp(ids->id[j], ids->id[k]))
                abort();
    }
    if ((ids->rejected == 0) != (ids->bad_line == 0) || (ids->rejected == 0) != (ids->bad_why == NULL))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_jobmap_ids *ids = malloc(sizeof(*ids));
    char *buf = malloc(size ? size : 1), name[32];
    uint32_t gpu, gi;

    if (!ids || !buf)
        goto out;
    if (size)
        memcpy(buf, data, size);
    gs_jobmap_parse(buf, size, ids);
    check(ids);
    size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
    memcpy(name, data, n);
    name[n] = '\0';
    if (gs_jobmap_name(name, &gpu, &gi) && (gpu > 999999999 || (gi != UINT32_MAX && gi > 999999999)))
        abort();
    unsigned idx[GS_JOB_MAX_GPUS];
    char why[160];
    unsigned nd = gs_job_parse_devices(buf, size, idx, GS_JOB_MAX_GPUS);
    for (unsigned k = 0; k < nd; k++)
        if (nd > GS_JOB_MAX_GPUS || idx[k] >= 255)
            abort();
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
        int ng = gs_job_parse_gpus(s, idx, GS_JOB_MAX_GPUS, why, sizeof(why));
        for (int k = 0; k < ng; k++)
            if (ng > GS_JOB_MAX_GPUS || idx[k] > 1023)
                abort();
        if (ng < 0 && !why[0])
            abort();
        free(s);
    }
out:
    free(ids);
    free(buf);
    return 0;
}
