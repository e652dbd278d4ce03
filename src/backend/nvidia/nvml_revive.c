/* SPDX-License-Identifier: MIT */
/*
 * nvml_revive.c - GPUs that are lost, or could not be opened at start:
 *   1. who they are when NVML cannot say: the driver's own list,
 *      /proc/driver/nvidia/gpus/<domain:bus:dev.fn>/information ("GPU UUID:",
 *      "Model:", "Bus Location:"), matched to NVML's indexes by elimination
 *      (every GPU NVML opened claims its bus id; the rest, in bus order, are
 *      the unopened indexes, in index order, when the counts agree);
 *   2. bringing one back (backend.h `revive`): a handle again by UUID, else by
 *      PCI bus id, else by index, and one call that must answer. A driver
 *      reset or a re-seated GPU returns this way; the core retries with a
 *      backoff and then reads its static facts again.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/nvidia/nvml_priv.h"
#include "lib/roots.h"

#define NVML_DRV_MAX 64

struct nvml_drv_gpu {
    char bus_id[32]; /* NVML's form: 00000000:3B:00.0 */
    char uuid[96];
    char model[96];
    bool claimed;
};

/* ---- 1. the driver's list ---------------------------------------------------------------- */

/* "0000:3b:00.0" (the driver's directory and Bus Location) in NVML's form. */
static bool nvml_drv_bus(const char *s, char *out, size_t len)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(s, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return false;
    snprintf(out, len, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
    return true;
}

/* "Key:   value" -> value (trimmed) when line starts with key. */
static bool nvml_drv_field(const char *line, const char *key, char *out, size_t len)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n))
        return false;
    line += n + strspn(line + n, " \t");
    snprintf(out, len, "%s", line);
    out[strcspn(out, "\r\n")] = '\0';
    return true;
}

static bool nvml_drv_read(const char *dir, const char *name, struct nvml_drv_gpu *g)
{
    char path[1400], line[256], bus[64] = "";
    memset(g, 0, sizeof(*g));
    if (gs_path(path, sizeof(path), "%s/%s/information", dir, name) < 0)
        return false;
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    while (fgets(line, sizeof(line), f)) {
        if (!nvml_drv_field(line, "GPU UUID:", g->uuid, sizeof(g->uuid)) &&
            !nvml_drv_field(line, "Model:", g->model, sizeof(g->model)))
            nvml_drv_field(line, "Bus Location:", bus, sizeof(bus));
    }
    fclose(f);
    if (strncmp(g->uuid, "GPU-", 4)) /* "??" or absent on some drivers */
        g->uuid[0] = '\0';
    return nvml_drv_bus(bus[0] ? bus : name, g->bus_id, sizeof(g->bus_id));
}

static int nvml_drv_cmp(const void *a, const void *b)
{
    return strcmp(((const struct nvml_drv_gpu *)a)->bus_id, ((const struct nvml_drv_gpu *)b)->bus_id);
}

/* The driver's GPUs, sorted by bus id (NVML's default index order). */
static unsigned nvml_drv_list(const char *proc_root, struct nvml_drv_gpu *out, unsigned max)
{
    char dir[1024];
    unsigned n = 0;
    if (gs_path(dir, sizeof(dir), "%s/driver/nvidia/gpus", gs_proc_root(proc_root)) < 0)
        return 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) && n < max;)
        if (e->d_name[0] != '.' && nvml_drv_read(dir, e->d_name, &out[n]))
            n++;
    closedir(d);
    qsort(out, n, sizeof(*out), nvml_drv_cmp);
    return n;
}

void gs_nvml_place_unopened(struct nvml_ctx *ctx)
{
    struct nvml_drv_gpu drv[NVML_DRV_MAX];
    unsigned unopened = 0, free_entries = 0;
    for (uint32_t i = 0; i < ctx->ndev; i++)
        unopened += ctx->devs[i].open_rc != NVML_SUCCESS;
    if (!unopened)
        return;
    unsigned n = nvml_drv_list(ctx->proc_root, drv, NVML_DRV_MAX);
    for (uint32_t i = 0; i < ctx->ndev; i++) {
        struct nvml_device *d = &ctx->devs[i];
        nvmlPciInfo_t pci;
        char bus[32];
        memset(&pci, 0, sizeof(pci));
        if (d->open_rc != NVML_SUCCESS || !ctx->lib.f.pci_info || ctx->lib.f.pci_info(d->handle, &pci) != NVML_SUCCESS)
            continue;
        pci.busId[sizeof(pci.busId) - 1] = '\0';
        if (!nvml_drv_bus(pci.busId, bus, sizeof(bus)))
            continue;
        for (unsigned k = 0; k < n; k++)
            if (!strcmp(drv[k].bus_id, bus))
                drv[k].claimed = true;
    }
    for (unsigned k = 0; k < n; k++)
        free_entries += !drv[k].claimed;
    if (free_entries != unopened) /* ambiguous (a container's partial view, say): claim nothing */
        return;
    unsigned k = 0;
    for (uint32_t i = 0; i < ctx->ndev; i++) {
        struct nvml_device *d = &ctx->devs[i];
        if (d->open_rc == NVML_SUCCESS)
            continue;
        while (drv[k].claimed)
            k++;
        snprintf(d->bus_id, sizeof(d->bus_id), "%s", drv[k].bus_id);
        snprintf(d->drv_uuid, sizeof(d->drv_uuid), "%s", drv[k].uuid);
        snprintf(d->drv_name, sizeof(d->drv_name), "%s", drv[k].model);
        k++;
    }
}

/* ---- 2. bringing one back ------------------------------------------------------------------ */

int gs_nvml_revive(struct gs_bdev *b)
{
    struct nvml_device *d = nvml_dev(b);
    const struct nvml_fns *f = &d->ctx->lib.f;
    nvmlDevice_t h = NULL;
    nvmlReturn_t r = NVML_ERROR_GPU_IS_LOST;
    char uuid[96];

    if (d->open_rc == NVML_SUCCESS && !atomic_load(&d->lost))
        return 0;
    const char *id = d->uuid[0] ? d->uuid : d->drv_uuid;
    if (id[0] && f->handle_by_uuid)
        r = f->handle_by_uuid(id, &h);
    else if (d->bus_id[0] && f->handle_by_pci)
        r = f->handle_by_pci(d->bus_id, &h);
    else
        r = f->handle_by_index(b->index, &h);
    /* it must answer, and be the same GPU (a GPU re-seated elsewhere is another one) */
    if (r == NVML_SUCCESS && f->uuid)
        r = f->uuid(h, uuid, sizeof(uuid));
    if (r == NVML_SUCCESS && id[0] && strcmp(uuid, id))
        r = NVML_ERROR_NOT_FOUND;
    if (r != NVML_SUCCESS)
        return r == NVML_ERROR_GPU_IS_LOST ? -GS_E_GPU_LOST : -GS_E_BACKEND;
    /* the slow-field worker reads the handle only while the GPU is not lost:
     * the handle first, then the flag */
    d->handle = h;
    d->open_rc = NVML_SUCCESS;
    /* the read schedule's values are from before: everything at the next tick */
    memset(d->sched_read_ns, 0, sizeof(d->sched_read_ns));
    d->sched_due_ns = 0;
    d->mps_ns = 0; /* and the MPS list at the next relist, whatever the compute list holds */
    memset(d->pcie, 0, sizeof(d->pcie)); /* its PCIe byte counters may have restarted: a new baseline */
    atomic_store(&d->lost_since, 0);
    atomic_store(&d->lost, false);
    gs_nvml_events_reregister(d->ctx, d);
    return 0;
}
