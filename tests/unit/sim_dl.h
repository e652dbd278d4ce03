/* SPDX-License-Identifier: MIT */
/*
 * sim_dl.h - for unit tests that call the NVML simulator library itself through
 * dlopen (test_sim_abi, test_sim_driver, test_sim_mig): the library of a driver
 * profile ($GS_BUILD_DIR/sim/<profile>/libnvidia-ml.so.1, loaded once), typed
 * symbol lookup, device handles and scenario files. Include after cmocka.h.
 * Tests that go through gpuscope's sampler use sim_env.h instead.
 */
#ifndef GS_TEST_SIM_DL_H
#define GS_TEST_SIM_DL_H

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_api.h"

static const char *const sim_profiles[] = {"current", "r535", "r535early", "r525", "r470"};
#define SIM_NPROFILES (sizeof(sim_profiles) / sizeof(sim_profiles[0]))

/* The profile's simulator library, dlopen'ed on first use (a test fails if it cannot be). */
static inline void *lib(const char *profile)
{
    static void *handles[SIM_NPROFILES];
    char path[PATH_MAX];
    const char *bd = getenv("GS_BUILD_DIR");

    for (size_t i = 0; i < SIM_NPROFILES; i++) {
        if (strcmp(sim_profiles[i], profile) != 0)
            continue;
        if (!handles[i]) {
            snprintf(path, sizeof(path), "%s/sim/%s/libnvidia-ml.so.1", bd ? bd : "build", profile);
            handles[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (!handles[i])
                fail_msg("dlopen %s: %s", path, dlerror());
        }
        return handles[i];
    }
    fail_msg("unknown profile %s", profile);
    return NULL;
}

static inline void *sym(void *h, const char *name)
{
    void *p = dlsym(h, name);
    if (!p)
        fail_msg("symbol %s missing", name);
    return p;
}

/* Typed lookup: F(h, nvmlInit_v2)() calls the library's function. */
#define F(h, name) ((__typeof__(&name))sym(h, #name))

static inline nvmlDevice_t dev(void *h, unsigned i)
{
    nvmlDevice_t d = NULL;
    assert_int_equal(F(h, nvmlDeviceGetHandleByIndex_v2)(i, &d), NVML_SUCCESS);
    return d;
}

/* Write text to dir/name.scn; returns the path (one static buffer). */
static inline const char *sim_dl_scenario(const char *dir, const char *name, const char *text)
{
    static char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s.scn", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#endif /* GS_TEST_SIM_DL_H */
