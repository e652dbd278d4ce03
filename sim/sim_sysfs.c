/* SPDX-License-Identifier: MIT */
/*
 * sim_sysfs.c - the simulated machine's PCI bus as a sysfs tree, so that
 * gpuscope's sysfs readers (core/sysfs.c, GPUSCOPE_SYS_ROOT) see the same
 * machine as its NVML: one directory per GPU and per `pcidev` line (a GPU on
 * the bus that NVML does not list), with vendor, device, class and the AER
 * counters (aer_cor, aer_nonfatal, aer_fatal keys) in the kernel's format.
 * Only with GPUSCOPE_SIM_SYSFS=DIR; kept current as the virtual clock moves.
 */
#include "sim.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc < 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(path, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 32];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

/* One device: the files gpuscope reads (the kernel's aer_dev_* layout, abridged). */
static void device(const char *root, unsigned dom, unsigned bus, unsigned dev, unsigned devid, unsigned long long cor,
                   unsigned long long nonfatal, unsigned long long fatal)
{
    char dir[PATH_MAX], buf[256];
    if (snprintf(dir, sizeof(dir), "%.3900s/sys/bus/pci/devices/%04x:%02x:%02x.0", root, dom, bus, dev) >=
            (int)sizeof(dir) || mkdirs(dir) < 0)
        return;
    put(dir, "vendor", "0x10de\n");
    snprintf(buf, sizeof(buf), "0x%04x\n", devid);
    put(dir, "device", buf);
    put(dir, "class", "0x030200\n");
    snprintf(buf, sizeof(buf), "RxErr 0\nBadTLP %llu\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\n"
             "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR %llu\n", cor, cor);
    put(dir, "aer_dev_correctable", buf);
    snprintf(buf, sizeof(buf), "Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO %llu\nTOTAL_ERR_NONFATAL %llu\n",
             nonfatal, nonfatal);
    put(dir, "aer_dev_nonfatal", buf);
    snprintf(buf, sizeof(buf), "Undefined 0\nDLP %llu\nTOTAL_ERR_FATAL %llu\n", fatal, fatal);
    put(dir, "aer_dev_fatal", buf);
}

void gs_sim_sysfs_sync(double t)
{
    const char *root = getenv("GPUSCOPE_SIM_SYSFS");
    const struct gs_scn *s = gs_sim.scn;
    if (!root || !*root || !s)
        return;
    for (int i = 0; i < s->ngpus; i++) {
        struct sim_call c = { .gpu = &gs_sim.gpus[i], .t = t };
        unsigned id = gs_sim_u32(&c, GS_SCN_N_PCI_DEVICE_ID) >> 16;
        device(root, gs_sim_u32(&c, GS_SCN_N_DOMAIN), gs_sim_u32(&c, GS_SCN_N_BUS), gs_sim_u32(&c, GS_SCN_N_DEVICE), id,
               gs_sim_u64(&c, GS_SCN_N_AER_COR), gs_sim_u64(&c, GS_SCN_N_AER_NONFATAL),
               gs_sim_u64(&c, GS_SCN_N_AER_FATAL));
    }
    for (int k = 0; k < s->npcidevs; k++)
        device(root, s->pcidevs[k].domain, s->pcidevs[k].bus, s->pcidevs[k].device, s->pcidevs[k].device_id, 0, 0, 0);
}
