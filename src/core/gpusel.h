/* SPDX-License-Identifier: MIT */
/*
 * gpusel.h - the "-i/--id" GPU selection: a comma-separated list of NVML
 * indexes, UUIDs (GPU-...) or PCI bus ids (any case, 4- or 8-digit domain,
 * domain optional), matched against the static facts of the GPUs found.
 */
#ifndef GS_GPUSEL_H
#define GS_GPUSEL_H

#include <stdint.h>

#include "core/err.h"
#include "core/model.h"

/* Select from gpus[0..n) (their st.index, st.uuid, st.pci_*). ids NULL or "":
 * all. Fills sel[] (capacity n) with positions into gpus, in index order,
 * each at most once, and *nsel. An id that matches no GPU fails with
 * GS_E_NO_DEVICE naming it. */
int gs_gpusel(const char *ids, const struct gs_gpu *gpus, uint32_t n, uint32_t *sel,
              uint32_t *nsel, struct gs_err *err);

#endif /* GS_GPUSEL_H */
