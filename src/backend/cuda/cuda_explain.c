/* SPDX-License-Identifier: MIT */
/*
 * cuda_explain.c - the sentences gpuscope prints when the CUDA driver API
 * fails: the cause a person is most likely facing and the command that fixes
 * it, kept in one place so they read alike (as nvml_explain.c does for NVML).
 */
#include "backend/cuda/cuda_explain.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static bool cuda_in_container(void)
{
    return access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0 ||
           access("/var/run/secrets/kubernetes.io", F_OK) == 0;
}

int gs_cuda_explain_no_library(const char *tried, const char *dlerr, struct gs_err *err)
{
    if (tried) {
        gs_err_set(err, GS_E_NO_LIBRARY, "cannot load the CUDA driver library %s: %s", tried, dlerr);
        gs_err_hint(err, "check the path in GPUSCOPE_CUDA_LIB (or unset it to use the system's libcuda.so.1); "
                         "'gpuscope --demo burn' runs on the bundled simulators");
        return -GS_E_NO_LIBRARY;
    }
    gs_err_set(err, GS_E_NO_LIBRARY, "CUDA driver library not found: tried libcuda.so.1 (%s)", dlerr);
    if (cuda_in_container())
        gs_err_hint(err, "this looks like a container without CUDA: start it with the NVIDIA runtime and "
                         "NVIDIA_DRIVER_CAPABILITIES including 'compute' ('utility' alone mounts NVML and "
                         "nvidia-smi but not libcuda.so.1), e.g. '--gpus all -e NVIDIA_DRIVER_CAPABILITIES="
                         "compute,utility'; 'gpuscope --demo burn' runs on the bundled simulators");
    else
        gs_err_hint(err, "libcuda.so.1 comes with the NVIDIA driver, not with the CUDA toolkit: install the "
                         "driver's CUDA library (Debian: libcuda1; Ubuntu: libnvidia-compute-<version>), or set "
                         "GPUSCOPE_CUDA_LIB to its path; 'gpuscope --demo burn' runs on the bundled simulators");
    return -GS_E_NO_LIBRARY;
}

int gs_cuda_explain_missing(const char *path, const char *symbol, struct gs_err *err)
{
    gs_err_set(err, GS_E_NO_LIBRARY, "%s is not a usable CUDA driver library: it lacks %s", path, symbol);
    gs_err_hint(err, "this is a CUDA driver older than 10.1, or not NVIDIA's libcuda.so.1: upgrade the NVIDIA "
                     "driver (R418 or newer), or point GPUSCOPE_CUDA_LIB at the driver's libcuda.so.1");
    return -GS_E_NO_LIBRARY;
}

int gs_cuda_explain_too_old(int version, int needed, struct gs_err *err)
{
    gs_err_set(err, GS_E_NO_DRIVER, "the CUDA driver is too old: it implements CUDA %d.%d, burn's kernels need %d.%d "
               "or newer", version / 1000, version % 1000 / 10, needed / 1000, needed % 1000 / 10);
    gs_err_hint(err, "burn JIT-compiles PTX that older drivers cannot read: upgrade the NVIDIA driver (R418 or "
                     "newer for CUDA 10.1; R450 or newer for the tensor-core kernel)");
    return -GS_E_NO_DRIVER;
}

int gs_cuda_explain_init(CUresult r, const char *name, const char *text, struct gs_err *err)
{
    switch (r) {
    case CUDA_ERROR_STUB_LIBRARY:
        gs_err_set(err, GS_E_NO_LIBRARY, "the libcuda.so.1 that loaded is the CUDA toolkit's stub (%s: %s)", name, text);
        gs_err_hint(err, "a directory like /usr/local/cuda/lib64/stubs is on LD_LIBRARY_PATH or in ld.so.conf "
                         "ahead of the driver's library: remove it (the stub exists only for linking)");
        return -GS_E_NO_LIBRARY;
    case CUDA_ERROR_NO_DEVICE:
        gs_err_set(err, GS_E_NO_DEVICE, "CUDA sees no GPU (%s: %s)", name, text);
        gs_err_hint(err, "check CUDA_VISIBLE_DEVICES (empty or an invalid list hides every GPU), and that "
                         "'nvidia-smi' lists the GPUs; in a container, pass them in ('--gpus all')");
        return -GS_E_NO_DEVICE;
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
        gs_err_set(err, GS_E_NO_DRIVER, "libcuda.so.1 does not match the loaded NVIDIA kernel module (%s: %s)", name, text);
        gs_err_hint(err, "the driver was upgraded but the old kernel module is still loaded: reboot, or reload the "
                         "nvidia modules with no GPU process running");
        return -GS_E_NO_DRIVER;
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
        gs_err_set(err, GS_E_NO_DRIVER, "the CUDA forward-compatibility library in use does not support this GPU "
                   "(%s: %s)", name, text);
        gs_err_hint(err, "forward compatibility (cuda-compat) works only on data-center GPUs: remove the compat "
                         "directory from LD_LIBRARY_PATH, or upgrade the driver itself");
        return -GS_E_NO_DRIVER;
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
        gs_err_set(err, GS_E_BACKEND, "the GPUs are busy or unavailable to CUDA (%s: %s)", name, text);
        gs_err_hint(err, "a GPU in Exclusive_Process compute mode is already used by another process: stop it, "
                         "or set the default mode ('sudo nvidia-smi -c DEFAULT')");
        return -GS_E_BACKEND;
    case CUDA_ERROR_NOT_PERMITTED:
        gs_err_set(err, GS_E_PERMISSION, "no permission to use CUDA (%s: %s)", name, text);
        gs_err_hint(err, "check that /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidia* are readable and writable by "
                         "you, and that the cgroup device rules of this container or unit allow them");
        return -GS_E_PERMISSION;
    default:
        gs_err_set(err, GS_E_BACKEND, "CUDA failed to initialise: %s (%s, error %d)", text, name, r);
        gs_err_hint(err, "most often the nvidia-uvm kernel module is not loaded or /dev/nvidia-uvm is missing: "
                         "'sudo modprobe nvidia-uvm' (or run 'nvidia-modprobe -u -c=0'), then check 'dmesg' for "
                         "NVRM messages and that 'nvidia-smi' works");
        return -GS_E_BACKEND;
    }
}

int gs_cuda_explain_jit(CUresult r, const char *name, const char *module, const char *log, struct gs_err *err)
{
    const char *tail = log && *log ? ": " : "";
    switch (r) {
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
        gs_err_set(err, GS_E_NO_LIBRARY, "the driver's PTX JIT compiler is missing (%s, loading the %s kernels)",
                   name, module);
        gs_err_hint(err, "install the driver's libnvidia-ptxjitcompiler.so.1 (a container needs "
                         "NVIDIA_DRIVER_CAPABILITIES with 'compute', which mounts it)");
        return -GS_E_NO_LIBRARY;
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        gs_err_set(err, GS_E_NO_DRIVER, "the driver cannot read the PTX version of the %s kernels (%s)%s%.200s",
                   module, name, tail, log ? log : "");
        gs_err_hint(err, "upgrade the NVIDIA driver (R450 or newer)");
        return -GS_E_NO_DRIVER;
    default:
        gs_err_set(err, GS_E_BACKEND, "the PTX JIT refused the %s kernels: %s%s%.200s", module, name, tail,
                   log ? log : "");
        gs_err_hint(err, "this is a bug in gpuscope's kernels or in the driver's JIT: please report it with the "
                         "output of 'gpuscope burn --debug' and 'nvidia-smi'");
        return -GS_E_BACKEND;
    }
}
