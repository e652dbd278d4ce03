/* SPDX-License-Identifier: MIT */
/*
 * nvml_explain.c - the sentences gpuscope prints when NVML fails. Each names
 * the cause a person is most likely facing and the command that fixes it;
 * the messages are kept here, in one place, so they read alike.
 */
#include "backend/nvidia/nvml_explain.h"

#include <stdbool.h>
#include <unistd.h>

/* Inside a container? (docker, podman and Kubernetes leave these behind.) */
static bool nvml_in_container(void)
{
    return access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0 ||
           access("/var/run/secrets/kubernetes.io", F_OK) == 0;
}

const char *gs_nvml_errstr(nvmlErrorString_fn fn, nvmlReturn_t r)
{
    static const struct {
        nvmlReturn_t r;
        const char *s;
    } texts[] = {
        { NVML_SUCCESS, "Success" },
        { NVML_ERROR_UNINITIALIZED, "Uninitialized" },
        { NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument" },
        { NVML_ERROR_NOT_SUPPORTED, "Not Supported" },
        { NVML_ERROR_NO_PERMISSION, "Insufficient Permissions" },
        { NVML_ERROR_NOT_FOUND, "Not Found" },
        { NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size" },
        { NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded" },
        { NVML_ERROR_TIMEOUT, "Timeout" },
        { NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found" },
        { NVML_ERROR_GPU_IS_LOST, "GPU is lost" },
        { NVML_ERROR_LIB_RM_VERSION_MISMATCH, "Driver/library version mismatch" },
        { NVML_ERROR_NO_DATA, "No data" },
        { NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "Argument version mismatch" },
    };
    if (fn) {
        const char *s = fn(r);
        if (s && *s)
            return s;
    }
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        if (texts[i].r == r)
            return texts[i].s;
    return "Unknown Error";
}

int gs_nvml_explain_no_library(const char *tried, const char *dlerr, struct gs_err *err)
{
    if (tried) {
        gs_err_set(err, GS_E_NO_LIBRARY, "cannot load the NVML library %s: %s", tried, dlerr);
        gs_err_hint(err, "check the path in GPUSCOPE_NVML_LIB (or unset it to use the system's "
                         "libnvidia-ml.so.1); 'gpuscope --demo' runs on the bundled simulator");
        return -GS_E_NO_LIBRARY;
    }
    gs_err_set(err, GS_E_NO_LIBRARY,
               "NVML library not found: tried libnvidia-ml.so.1 and libnvidia-ml.so (%s)", dlerr);
    if (nvml_in_container())
        gs_err_hint(err, "this looks like a container started without GPU access: run it with "
                         "'--gpus all' (docker) or '--device nvidia.com/gpu=all' (podman, CDI), with "
                         "the NVIDIA Container Toolkit installed on the host so the driver libraries "
                         "are mounted; or set GPUSCOPE_NVML_LIB to the library's path. "
                         "'gpuscope --demo' runs on the bundled simulator");
    else
        gs_err_hint(err, "install the NVIDIA driver (it ships libnvidia-ml.so.1, e.g. the "
                         "nvidia-driver or libnvidia-ml1 package), or set GPUSCOPE_NVML_LIB to the "
                         "library's path if it lives elsewhere; in a container, start it with the "
                         "NVIDIA runtime ('--gpus all'). 'gpuscope --demo' runs on the bundled "
                         "simulator");
    return -GS_E_NO_LIBRARY;
}

int gs_nvml_explain_init(nvmlReturn_t r, const char *errstr, struct gs_err *err)
{
    switch (r) {
    case NVML_ERROR_DRIVER_NOT_LOADED:
        gs_err_set(err, GS_E_NO_DRIVER, "the NVIDIA kernel driver is not loaded (NVML: %s)", errstr);
        gs_err_hint(err, "load it with 'sudo modprobe nvidia' and look at 'dmesg' if that fails: "
                         "with Secure Boot on, an unsigned module is refused (sign it or enroll the "
                         "key with mokutil); after a kernel update the module must be rebuilt for "
                         "the new kernel ('sudo dkms autoinstall', or reinstall the driver)");
        return -GS_E_NO_DRIVER;
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
        gs_err_set(err, GS_E_NO_DRIVER,
                   "NVIDIA driver/library version mismatch: the loaded kernel module is not the "
                   "version of libnvidia-ml (NVML: %s)", errstr);
        gs_err_hint(err, "the driver was upgraded but the old kernel module is still loaded: "
                         "reboot, or unload and reload it ('sudo rmmod nvidia_uvm nvidia_drm "
                         "nvidia_modeset nvidia && sudo modprobe nvidia') with no GPU process running");
        return -GS_E_NO_DRIVER;
    case NVML_ERROR_NO_PERMISSION:
        gs_err_set(err, GS_E_PERMISSION, "no permission to use the NVIDIA driver (NVML: %s)", errstr);
        gs_err_hint(err, "check that /dev/nvidiactl and /dev/nvidia* are readable and writable by "
                         "you (ls -l /dev/nvidia*; often the 'video' group), and in a container or "
                         "systemd unit that the cgroup device rules allow them");
        return -GS_E_PERMISSION;
    default:
        gs_err_set(err, GS_E_BACKEND, "NVML failed to initialise: %s (error %d)", errstr, (int)r);
        gs_err_hint(err, "run 'nvidia-smi' to see whether the driver works at all, and check "
                         "'dmesg' for NVRM messages");
        return -GS_E_BACKEND;
    }
}

int gs_nvml_explain_no_devices(struct gs_err *err)
{
    gs_err_set(err, GS_E_NO_DEVICE, "the NVIDIA driver is loaded but reports no GPU");
    gs_err_hint(err, "check 'lspci | grep -i nvidia' and 'dmesg' for NVRM errors; in a container, "
                     "GPUs must be passed in ('--gpus all', or NVIDIA_VISIBLE_DEVICES must not be "
                     "'void' or 'none')");
    return -GS_E_NO_DEVICE;
}

int gs_nvml_explain_lost(unsigned index, const char *bus_id, struct gs_err *err)
{
    gs_err_set(err, GS_E_GPU_LOST, "GPU %u%s%s%s has fallen off the bus (NVML: GPU is lost)", index,
               bus_id && *bus_id ? " (" : "", bus_id ? bus_id : "", bus_id && *bus_id ? ")" : "");
    gs_err_hint(err, "look for 'Xid 79' in 'sudo dmesg'; the GPU needs a reset "
                     "('nvidia-smi -r -i %u') or a reboot, and if it keeps happening check its "
                     "power cables, seating and temperature", index);
    return -GS_E_GPU_LOST;
}

int gs_nvml_explain_gpu(unsigned index, nvmlReturn_t r, const char *errstr, struct gs_err *err)
{
    if (r == NVML_ERROR_GPU_IS_LOST)
        return gs_nvml_explain_lost(index, "", err);
    if (r == NVML_ERROR_NO_PERMISSION) {
        gs_err_set(err, GS_E_PERMISSION, "no permission to open GPU %u (NVML: %s)", index, errstr);
        gs_err_hint(err, "check the permissions of /dev/nvidia%u and the cgroup device rules of "
                         "this container or unit; GPUs hidden this way are still counted by the "
                         "driver", index);
        return -GS_E_PERMISSION;
    }
    gs_err_set(err, GS_E_BACKEND, "GPU %u could not be read: %s (NVML error %d)", index, errstr,
               (int)r);
    gs_err_hint(err, "run 'nvidia-smi -i %u' and check 'dmesg' for NVRM/Xid messages", index);
    return -GS_E_BACKEND;
}
