/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c - the PCI scan behind "GPUs on the bus that NVML does not list"
 * and the AER checks (see sysfs.h). A handful of small reads per display
 * device; nothing here runs on a per-tick path.
 */
#include "core/sysfs.h"
#include "lib/file.h"
#include "lib/roots.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A small sysfs file into buf (NUL-terminated); bytes read, or -1. */
static ssize_t read_small(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[512];
    if (gs_path(path, sizeof(path), "%s/%s", dir, name) < 0)
        return -1;
    return gs_file_read_small(path, buf, cap);
}

static bool read_hex(const char *dir, const char *name, uint32_t *out)
{
    char buf[32], *end;
    if (read_small(dir, name, buf, sizeof(buf)) <= 0)
        return false;
    unsigned long v = strtoul(buf, &end, 16);
    if (end == buf)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool gs_pci_aer_total(const char *text, uint64_t *out)
{
    const char *p = text;
    while ((p = strstr(p, "TOTAL_ERR_")) != NULL) {
        const char *sp = strchr(p, ' ');
        if (!sp)
            return false;
        char *end;
        unsigned long long v = strtoull(sp + 1, &end, 10);
        if (end == sp + 1)
            return false;
        *out = v;
        return true;
    }
    return false;
}

static void read_aer(const char *dir, struct gs_pci_dev *d)
{
    static const char *const files[3] = { "aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal" };
    uint64_t *dst[3] = { &d->aer_cor, &d->aer_nonfatal, &d->aer_fatal };
    char buf[2048];
    d->has_aer = true;
    for (int i = 0; i < 3; i++)
        if (read_small(dir, files[i], buf, sizeof(buf)) <= 0 || !gs_pci_aer_total(buf, dst[i]))
            d->has_aer = false;
}

static int cmp_dev(const void *a, const void *b)
{
    return strcmp(((const struct gs_pci_dev *)a)->bdf, ((const struct gs_pci_dev *)b)->bdf);
}

int gs_pci_scan(uint32_t vendor, struct gs_pci_dev *out, size_t cap, struct gs_err *err)
{
    char base[400], dir[700];
    if (gs_sys_path(base, sizeof(base), "bus/pci/devices") < 0)
        return gs_err_set(err, GS_E_IO, "GPUSCOPE_SYS_ROOT is too long");
    DIR *dp = opendir(base);
    if (!dp)
        return gs_err_set(err, GS_E_IO, "%s: %s", base, strerror(errno));
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL && n < cap) {
        struct gs_pci_dev d;
        unsigned dom, bus, dev, fn;
        if (e->d_name[0] == '.' || sscanf(e->d_name, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
            continue;
        memset(&d, 0, sizeof(d));
        if (gs_path(dir, sizeof(dir), "%s/%s", base, e->d_name) < 0)
            continue;
        if (!read_hex(dir, "vendor", &d.vendor) || d.vendor != vendor || !read_hex(dir, "class", &d.class_code))
            continue;
        if ((d.class_code >> 8) != 0x0300 && (d.class_code >> 8) != 0x0302)
            continue; /* audio functions, NVSwitch bridges, USB-C controllers of the same card */
        read_hex(dir, "device", &d.device_id);
        d.domain = dom, d.bus = bus, d.device = dev, d.function = fn;
        snprintf(d.bdf, sizeof(d.bdf), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
        read_aer(dir, &d);
        out[n++] = d;
    }
    closedir(dp);
    qsort(out, n, sizeof(*out), cmp_dev);
    return (int)n;
}
