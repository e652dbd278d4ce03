/* SPDX-License-Identifier: MIT */
/*
 * nvml_explain.h - NVML failures turned into struct gs_err explanations a
 * person can act on: what failed (msg) and what to do about it (hint).
 * Each function returns -code so callers can `return gs_nvml_explain_...`.
 */
#ifndef GS_NVML_EXPLAIN_H
#define GS_NVML_EXPLAIN_H

#include "backend/nvidia/nvml_abi.h"
#include "core/err.h"

/* NVML's text for r: the library's nvmlErrorString when bound, else ours. */
const char *gs_nvml_errstr(nvmlErrorString_fn fn, nvmlReturn_t r);

/* dlopen failed. tried: the explicit path, or NULL for the default names. */
int gs_nvml_explain_no_library(const char *tried, const char *dlerr, struct gs_err *err);
/* nvmlInit or nvmlDeviceGetCount failed with r (errstr: NVML's text). */
int gs_nvml_explain_init(nvmlReturn_t r, const char *errstr, struct gs_err *err);
/* The driver answered but reports no GPU. */
int gs_nvml_explain_no_devices(struct gs_err *err);
/* GPU index (bus id may be "") fell off the bus. */
int gs_nvml_explain_lost(unsigned index, const char *bus_id, struct gs_err *err);
/* GPU index could not be opened or read: r, errstr. */
int gs_nvml_explain_gpu(unsigned index, nvmlReturn_t r, const char *errstr, struct gs_err *err);

#endif /* GS_NVML_EXPLAIN_H */
