/* SPDX-License-Identifier: MIT */
/*
 * sim_env.h - helpers for unit tests that run the real NVML code path against
 * the simulator library ($GS_BUILD_DIR/sim/<profile>/libnvidia-ml.so.1):
 * environment set-up, scenario files written on the fly, and the simulator's
 * call counter (gssimCallCount), reached through the already-loaded library.
 * Tests run from the repository root (tests/run-tests does so).
 */
#ifndef GS_TEST_SIM_ENV_H
#define GS_TEST_SIM_ENV_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sampler.h"

static inline const char *sim_build_dir(void)
{
    const char *b = getenv("GS_BUILD_DIR");
    return b && *b ? b : "build";
}

static inline const char *sim_lib_path(const char *profile)
{
    static char path[512];
    snprintf(path, sizeof(path), "%s/sim/%s/libnvidia-ml.so.1", sim_build_dir(), profile);
    return path;
}

static inline bool sim_available(const char *profile)
{
    return access(sim_lib_path(profile), R_OK) == 0;
}

/* Point GPUSCOPE_NVML_LIB at a profile's simulator with a scenario (a name in
 * sim/scenarios or a path), a frozen clock and optional faults (NULL: none). */
static inline void sim_setup(const char *profile, const char *scenario, const char *faults)
{
    setenv("GPUSCOPE_NVML_LIB", sim_lib_path(profile), 1);
    setenv("GPUSCOPE_SIM_SCENARIO", scenario, 1);
    setenv("GPUSCOPE_SIM_SCENARIO_DIR", "sim/scenarios", 1);
    setenv("GPUSCOPE_SIM_CLOCK", "fixed:10", 1);
    if (faults)
        setenv("GPUSCOPE_SIM_FAULTS", faults, 1);
    else
        unsetenv("GPUSCOPE_SIM_FAULTS");
    /* NVML only: a real AMD or Intel GPU of the machine must not join the test */
    setenv("GPUSCOPE_BACKENDS", "nvml", 1);
}

/* Write text to a fresh scenario file; returns its path (static buffer per slot). */
static inline const char *sim_write_scenario(const char *text)
{
    static char path[4][64];
    static int slot;
    char *p = path[slot++ % 4];
    snprintf(p, sizeof(path[0]), "/tmp/gs-test-XXXXXX.scn");
    int fd = mkstemps(p, 4);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return p;
}

/* Calls of an NVML symbol so far, counted by the simulator loaded from
 * GPUSCOPE_NVML_LIB (must be loaded: a sampler or backend is open). */
static inline unsigned long long sim_calls(const char *symbol)
{
    void *h = dlopen(getenv("GPUSCOPE_NVML_LIB"), RTLD_NOW | RTLD_NOLOAD);
    unsigned long long (*count)(const char *) = NULL;
    unsigned long long n = 0;
    if (!h)
        return ~0ull;
    void *p = dlsym(h, "gssimCallCount");
    memcpy(&count, &p, sizeof(p));
    if (count)
        n = count(symbol);
    dlclose(h);
    return count ? n : ~0ull;
}

/* Open/close a sampler so that a test failing half-way (cmocka longjmps out)
 * cannot leave the simulator loaded with its scenario for the next test:
 * the next sim_open closes what the failed test left open. */
static struct gs_sampler *sim_last;

static inline int sim_open(struct gs_sampler **s, const struct gs_sampler_opts *o,
                           struct gs_err *err)
{
    if (sim_last)
        gs_sampler_close(sim_last);
    sim_last = NULL;
    int rc = gs_sampler_open(s, o, err);
    if (rc == 0)
        sim_last = *s;
    return rc;
}

static inline void sim_close(struct gs_sampler *s)
{
    if (s == sim_last)
        sim_last = NULL;
    gs_sampler_close(s);
}

/* Skip the test (cmocka's skip(), so include cmocka.h first) when a profile is not built. */
#define NEED_SIM(profile)                                                                      \
    do {                                                                                       \
        if (!sim_available(profile))                                                           \
            skip();                                                                            \
    } while (0)

/* What most simulator tests hold: a sampler, its options, a snapshot and an error.
 * `struct sim_fx fx = SIM_FX_INIT;`, then sim_fx_open_on() (or sim_setup(), fx.o
 * changes and sim_fx_open()), sim_fx_snap() per tick, sim_fx_close() at the end. */
struct sim_fx {
    struct gs_sampler *s;
    struct gs_sampler_opts o;
    struct gs_snapshot snap;
    struct gs_err err;
};
#define SIM_FX_INIT { .s = NULL, .o = GS_SAMPLER_OPTS_INIT }

static inline int sim_fx_open(struct sim_fx *f)
{
    return sim_open(&f->s, &f->o, &f->err);
}

/* Open a sampler on profile + scenario (+ faults, NULL: none), without host readings. */
static inline int sim_fx_open_on(struct sim_fx *f, const char *profile, const char *scenario,
                                 const char *faults)
{
    sim_setup(profile, scenario, faults);
    f->o.want_host = false;
    return sim_fx_open(f);
}

static inline int sim_fx_snap(struct sim_fx *f)
{
    return gs_sampler_snapshot(f->s, &f->snap, &f->err);
}

static inline void sim_fx_close(struct sim_fx *f)
{
    gs_snapshot_release(&f->snap);
    sim_close(f->s);
    f->s = NULL;
}

#endif /* GS_TEST_SIM_ENV_H */
