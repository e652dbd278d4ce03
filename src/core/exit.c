/* SPDX-License-Identifier: MIT */
/* exit.c - one mapping from error classes to process exit codes (see exit.h). */
#include "core/exit.h"

#include "core/err.h"

int gs_exit_from_errc(int errc)
{
    if (errc < 0)
        errc = -errc;
    switch (errc) {
    case GS_OK:
        return GS_EXIT_OK;
    case GS_E_USAGE:
    case GS_E_PARSE:
        return GS_EXIT_USAGE;
    case GS_E_NO_LIBRARY:
    case GS_E_NO_DRIVER:
        return GS_EXIT_NO_NVML;
    case GS_E_NO_DEVICE:
        return GS_EXIT_NO_GPU;
    case GS_E_GPU_LOST:
        return GS_EXIT_PARTIAL;
    default:
        return GS_EXIT_FAILURE;
    }
}
