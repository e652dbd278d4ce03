/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cgroup.c - libFuzzer harness for gs_hostproc_parse_cgroup (the
 * /proc/PID/cgroup parser, v1 and v2 shapes). The input is not NUL-terminated.
 * Whatever it finds must be well-formed: a 64-hex container id or "", a pod UID
 * of 32..36 characters without underscores or "", terminated strings, and a
 * Slurm step only with a job.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostproc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const struct gs_proc *p)
{
    size_t id = strnlen(p->container_id, sizeof(p->container_id));
    size_t pod = strnlen(p->pod_uid, sizeof(p->pod_uid));

    if (id != 0 && id != 64)
        abort();
    if (pod != 0 && (pod < 32 || pod > 36 || memchr(p->pod_uid, '_', pod)))
        abort();
    if (strnlen(p->container_runtime, sizeof(p->container_runtime)) >= sizeof(p->container_runtime))
        abort();
    if (id == 0 && p->container_runtime[0])
        abort();
    if (strnlen(p->slurm_step, sizeof(p->slurm_step)) >= sizeof(p->slurm_step))
        abort();
    if (!p->slurm_job && p->slurm_step[0])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gs_proc p;
    char *buf = malloc(size ? size : 1);

    if (!buf)
        return 0;
    if (size)
        memcpy(buf, data, size);
    memset(&p, 0, sizeof(p));
    if (gs_hostproc_parse_cgroup(buf, size, &p) == 0)
        check(&p);
    else if (p.container_id[0] || p.pod_uid[0] || p.slurm_job || gs_proc_has(&p, GS_P_CONTAINER) ||
             gs_proc_has(&p, GS_P_SLURM))
        abort();
    free(buf);
    return 0;
}
