/* SPDX-License-Identifier: MIT */
/*
 * cuda_explain.h - CUDA driver API failures turned into struct gs_err
 * explanations a person can act on (what failed, and what to do), in the
 * style of nvml_explain.h. Each returns -code.
 */
#ifndef GS_CUDA_EXPLAIN_H
#define GS_CUDA_EXPLAIN_H

#include "backend/cuda/cuda_abi.h"
#include "core/err.h"

/* dlopen failed. tried: the explicit path, or NULL for the default name. */
int gs_cuda_explain_no_library(const char *tried, const char *dlerr, struct gs_err *err);
/* The library lacks a function burn needs (a very old or a foreign libcuda). */
int gs_cuda_explain_missing(const char *path, const char *symbol, struct gs_err *err);
/* The driver is older than burn's PTX needs. */
int gs_cuda_explain_too_old(int version, int needed, struct gs_err *err);
/* cuInit failed with r (name and text from the library). */
int gs_cuda_explain_init(CUresult r, const char *name, const char *text, struct gs_err *err);
/* The PTX JIT refused a module (log: the JIT's error log, may be ""). */
int gs_cuda_explain_jit(CUresult r, const char *name, const char *module, const char *log, struct gs_err *err);

#endif /* GS_CUDA_EXPLAIN_H */
