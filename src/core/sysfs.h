/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h - what the PCI bus says about GPUs: a scan of the PCI devices that
 * are display or 3D controllers of a given vendor, with their AER counters
 * (kernel >= 4.19: aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal).
 * Other vendors' backends reuse it. Where /sys is ($GPUSCOPE_SYS_ROOT, for
 * tests and containers that mount the host's /sys elsewhere) and paths under
 * it: lib/roots.h.
 */
#ifndef GS_SYSFS_H
#define GS_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#define GS_PCI_VENDOR_NVIDIA 0x10de
#define GS_PCI_MAX_DEVS 64

/* One PCI function of class 0x0300 (VGA) or 0x0302 (3D controller). */
struct gs_pci_dev {
    uint32_t domain, bus, device, function;
    uint32_t vendor, device_id, class_code;  /* class_code: 0x030000, 0x030200 */
    bool has_aer;                            /* the AER counter files were readable */
    uint64_t aer_cor, aer_nonfatal, aer_fatal; /* TOTAL_ERR_* since boot */
    char bdf[16];                            /* "0000:3b:00.0" */
};

/* Display/3D controllers of vendor (GS_PCI_VENDOR_NVIDIA) under
 * <root>/sys/bus/pci/devices, up to cap, sorted by address. Returns the count,
 * or a negative enum gs_errc (no such directory: GS_E_IO) with err filled. */
int gs_pci_scan(uint32_t vendor, struct gs_pci_dev *out, size_t cap, struct gs_err *err);
/* Parse the TOTAL_ERR_* line of an aer_dev_* file's text; false if absent. */
bool gs_pci_aer_total(const char *text, uint64_t *out);

#endif /* GS_SYSFS_H */
