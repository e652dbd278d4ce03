/* SPDX-License-Identifier: MIT */
/*
 * drm_discover.c - the DRM cards of the drivers the backend reads, from
 * <sys>/class/drm: each cardN whose device is bound to amdgpu, i915 or xe,
 * with its PCI address and identity and its card and render node minors.
 * Cards of other drivers (nvidia-drm: NVML has those GPUs; simpledrm,
 * virtio_gpu, nouveau) are left alone, so no GPU is listed twice.
 * Layout: the kernel's drm_sysfs.c:
 * class/drm/cardN -> ../../devices/.../<bdf>/drm/cardN, with "device" -> the
 * PCI function and "dev" = MAJOR:MINOR) and sysfs-bus-pci (vendor, device,
 * subsystem_*, revision, uevent's PCI_SLOT_NAME).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/drm/drm_priv.h"
#include "backend/drm/sysval.h"

static const struct drm_ops *const drm_drivers[] = { &gs_drm_amdgpu, &gs_drm_i915, &gs_drm_xe };

/* "cardN" with N all digits -> N; else -1. */
static int card_number(const char *name)
{
    int n = 0;

    if (strncmp(name, "card", 4) != 0 || !name[4])
        return -1;
    for (const char *p = name + 4; *p; p++) {
        if (*p < '0' || *p > '9' || n > 100000)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n;
}

/* src into dst (cap bytes), truncated, NUL-terminated. */
static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The base name of the link dirfd/rel points to ("amdgpu"), or "". */
static void link_base(int dirfd, const char *rel, char *out, size_t cap)
{
    char buf[512];
    ssize_t n = readlinkat(dirfd, rel, buf, sizeof(buf) - 1);

    out[0] = '\0';
    if (n <= 0)
        return;
    buf[n] = '\0';
    const char *b = strrchr(buf, '/');
    copy_str(out, cap, b ? b + 1 : buf);
}

static const struct drm_ops *driver_ops(int dev_fd)
{
    char name[64];

    link_base(dev_fd, "driver", name, sizeof(name));
    for (size_t i = 0; i < sizeof(drm_drivers) / sizeof(drm_drivers[0]); i++)
        if (!strcmp(name, drm_drivers[i]->driver))
            return drm_drivers[i];
    return NULL;
}

/* PCI_SLOT_NAME from uevent, else the device link's name. */
static int card_bdf(struct drm_dev *d)
{
    char buf[1024];
    ssize_t n = gs_sysval_read_at(d->dev_fd, "uevent", buf, sizeof(buf));
    const char *p = n > 0 ? strstr(buf, "PCI_SLOT_NAME=") : NULL;

    if (p)
        gs_sysval_line(p + 14, strlen(p + 14), d->bdf, sizeof(d->bdf));
    else
        link_base(d->card_fd, "device", d->bdf, sizeof(d->bdf));
    if (sscanf(d->bdf, "%x:%x:%x.%x", &d->pci_domain, &d->pci_bus, &d->pci_dev, &d->pci_fn) != 4)
        return -1;
    snprintf(d->bdf, sizeof(d->bdf), "%04x:%02x:%02x.%x", d->pci_domain, d->pci_bus, d->pci_dev, d->pci_fn);
    return 0;
}

/* The render node's minor from device/drm/renderDN; -1 without one. */
static int render_minor(int dev_fd)
{
    int dfd = openat(dev_fd, "drm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    struct dirent *e;
    int minor = -1;

    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "renderD", 7) != 0 || e->d_name[7] < '0' || e->d_name[7] > '9')
            continue;
        char *end;
        long m = strtol(e->d_name + 7, &end, 10);
        if (!*end && m <= INT32_MAX)
            minor = (int)m;
    }
    closedir(d);
    return minor;
}

static void card_ids(struct drm_dev *d)
{
    gs_sysval_at_hex(d->dev_fd, "vendor", &d->vendor_id);
    gs_sysval_at_hex(d->dev_fd, "device", &d->device_id);
    gs_sysval_at_hex(d->dev_fd, "subsystem_vendor", &d->subsys_vendor);
    gs_sysval_at_hex(d->dev_fd, "subsystem_device", &d->subsys_device);
    gs_sysval_at_hex(d->dev_fd, "revision", &d->revision);
}

static void card_close(struct drm_dev *d)
{
    if (d->dev_fd >= 0)
        close(d->dev_fd);
    if (d->card_fd >= 0)
        close(d->card_fd);
    d->dev_fd = d->card_fd = -1;
}

/* One cardN: kept when its driver is one we read. */
static int card_probe(struct drm_ctx *ctx, int class_fd, const char *name, struct drm_dev *d)
{
    memset(d, 0, sizeof(*d));
    d->hwmon_fd = d->gt_fd = -1;
    for (int k = 0; k < DF__COUNT; k++)
        d->fd[k] = -1;
    for (int k = 0; k < 3; k++)
        d->temp_fd[k] = -1;
    d->card_fd = openat(class_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
    d->dev_fd = d->card_fd >= 0 ? openat(d->card_fd, "device", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
    if (d->dev_fd < 0 || !(d->ops = driver_ops(d->dev_fd)) || card_bdf(d) < 0) {
        card_close(d);
        return -1;
    }
    copy_str(d->card, sizeof(d->card), name);
    d->ctx = ctx;
    d->card_minor = card_number(name);
    d->render_minor = render_minor(d->dev_fd);
    card_ids(d);
    return 0;
}

static int card_cmp(const void *a, const void *b)
{
    return strcmp(((const struct drm_dev *)a)->bdf, ((const struct drm_dev *)b)->bdf);
}

int gs_drm_discover_cards(struct drm_ctx *ctx, struct gs_err *err)
{
    int class_fd = open(ctx->sys_class, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = class_fd >= 0 ? fdopendir(class_fd) : NULL;
    struct dirent *e;

    if (!dir) {
        if (class_fd >= 0)
            close(class_fd);
        return gs_err_set(err, GS_E_NO_DEVICE, "no DRM devices: %s: %s", ctx->sys_class, strerror(errno));
    }
    while ((e = readdir(dir)) != NULL && ctx->ndev < DRM_MAX_CARDS) {
        if (card_number(e->d_name) < 0)
            continue; /* renderD*, connectors (card0-DP-1), version */
        if (card_probe(ctx, dirfd(dir), e->d_name, &ctx->devs[ctx->ndev]) == 0)
            ctx->ndev++;
    }
    closedir(dir);
    if (!ctx->ndev)
        return gs_err_set(err, GS_E_NO_DEVICE, "no amdgpu, i915 or xe GPU under %s", ctx->sys_class);
    qsort(ctx->devs, ctx->ndev, sizeof(ctx->devs[0]), card_cmp);
    for (uint32_t i = 0; i < ctx->ndev; i++) {
        ctx->devs[i].base.index = i;
        ctx->bdevs[i] = &ctx->devs[i].base;
    }
    return 0;
}
