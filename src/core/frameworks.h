/* SPDX-License-Identifier: MIT */
/*
 * frameworks.h - which ML frameworks are installed, and for which CUDA they
 * were built (doctor --weekly compares that with the driver): PyTorch
 * (torch/version.py), TensorFlow (tensorflow/python/platform/build_info.py)
 * and CuPy (its cupy-cudaNNx distribution name), found in the usual
 * site-packages and dist-packages directories, $VIRTUAL_ENV, $CONDA_PREFIX,
 * ~/.local, or only in $GPUSCOPE_PYTHON_PATH / the given directories.
 */
#ifndef GS_FRAMEWORKS_H
#define GS_FRAMEWORKS_H

#include <stdbool.h>
#include <stddef.h>

/* An ML framework found on the machine and the CUDA it was built for. */
struct gs_framework {
    char name[24];        /* "torch", "tensorflow", "cupy" */
    char version[40];
    char cuda[16];        /* "12.1"; "12" when only the major is known; "" for a CPU build */
    char path[200];       /* where it was found */
};
#define GS_FRAMEWORKS_MAX 16

/* The quoted value after key on its line (version.py, build_info.py); false if none. Exposed for the fuzzer. */
bool gs_frameworks_quoted(const char *text, const char *key, char *out, size_t cap);
/* extra: colon-separated directories to search first (NULL: none). Fills up
 * to cap frameworks; *searched says where it looked. Returns the count. */
size_t gs_frameworks_find(const char *extra, struct gs_framework *out, size_t cap, char *searched, size_t slen);

#endif /* GS_FRAMEWORKS_H */
