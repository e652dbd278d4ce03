/* SPDX-License-Identifier: MIT */
/*
 * scenario_ids.c - what both simulators (NVML's sim/ and CUDA's simcuda/)
 * must derive the same way from a scenario: the UUID and serial of a GPU that
 * does not set them, so cuDeviceGetUuid and nvmlDeviceGetUUID name the same
 * GPU as on a real machine, and where the scenario file is. Stand-alone
 * parser code.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario.h"

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

void gs_scn_gpu_ids(const struct gs_scn *s, int index, char *uuid, size_t uuid_len, char *serial,
                    size_t serial_len)
{
    const struct gs_scn_gpu *cfg = &s->gpus[index];
    unsigned h = 2166136261u ^ s->seed;
    const char *name = cfg->str[GS_SCN_S_NAME] ? cfg->str[GS_SCN_S_NAME] : "";
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    unsigned a = h ^ (unsigned)index * 0x9e3779b9u;
    unsigned b = a * 2654435761u + 0x7f4a7c15u, c2 = b * 2246822519u + 3266489917u;
    if (uuid && cfg->str[GS_SCN_S_UUID])
        snprintf(uuid, uuid_len, "%s", cfg->str[GS_SCN_S_UUID]);
    else if (uuid)
        snprintf(uuid, uuid_len, "GPU-%08x-%04x-%04x-%04x-%04x%08x", a, b >> 16, (b & 0x0fffu) | 0x4000u,
                 (c2 >> 16 & 0x3fffu) | 0x8000u, c2 & 0xffffu, a ^ c2);
    if (serial && cfg->str[GS_SCN_S_SERIAL])
        snprintf(serial, serial_len, "%s", cfg->str[GS_SCN_S_SERIAL]);
    else if (serial)
        snprintf(serial, serial_len, "165%010u", (a ^ b) % 1000000000u + (unsigned)index);
}

/* The scenario file: $GPUSCOPE_SIM_SCENARIO as a path (with a '/' or ending
 * in .scn) or a name looked up in $GPUSCOPE_SIM_SCENARIO_DIR, the install
 * tree, then beside lib_file (the simulator library asking: its build tree
 * build/sim/<dir>/ or install tree lib/gpuscope/sim/<dir>/). Unset: "demo". */
int gs_scn_locate(const char *lib_file, char *out, size_t len, char *err, size_t errlen)
{
    const char *name = getenv("GPUSCOPE_SIM_SCENARIO");
    const char *dir = getenv("GPUSCOPE_SIM_SCENARIO_DIR");
    if (!name || !*name)
        name = "demo";
    if (strchr(name, '/') || (strlen(name) > 4 && strcmp(name + strlen(name) - 4, ".scn") == 0)) {
        snprintf(out, len, "%s", name);
        return 0;
    }
    if (dir && *dir) {
        snprintf(out, len, "%s/%s.scn", dir, name);
        if (access(out, R_OK) == 0)
            return 0;
    }
    snprintf(out, len, "%s/share/gpuscope/scenarios/%s.scn", GS_PREFIX, name);
    if (access(out, R_OK) == 0)
        return 0;
    if (lib_file) {
        char lib[PATH_MAX];
        snprintf(lib, sizeof(lib), "%s", lib_file);
        char *slash = strrchr(lib, '/');
        if (slash) {
            *slash = '\0';
            snprintf(out, len, "%s/../../../sim/scenarios/%s.scn", lib, name);
            if (access(out, R_OK) == 0)
                return 0;
            snprintf(out, len, "%s/../../../../share/gpuscope/scenarios/%s.scn", lib, name);
            if (access(out, R_OK) == 0)
                return 0;
        }
    }
    snprintf(err, errlen, "scenario '%s' not found (looked in GPUSCOPE_SIM_SCENARIO_DIR=%s and %s/share/gpuscope/scenarios)",
             name, dir ? dir : "(unset)", GS_PREFIX);
    return -1;
}
