/* SPDX-License-Identifier: MIT */
/*
 * sim_stub.c - how an NVML function the simulator does not model answers
 * (the generated stubs in sim_stubs.c call these): as a driver on a GPU
 * without that feature does, after the checks every NVML call makes.
 *
 *   not initialised                          UNINITIALIZED
 *   a device handle that is not one of ours  INVALID_ARGUMENT
 *   a required pointer argument NULL         INVALID_ARGUMENT
 *   the GPU fell off the bus                 GPU_IS_LOST
 *   otherwise                                NOT_SUPPORTED
 *
 * Each call is counted (gssimCallCount, GPUSCOPE_SIM_STATS) like the modelled
 * functions; fault lines do not apply to stubs.
 */
#include <dlfcn.h>
#include <string.h>

#include "sim.h"
#include "sim_stub.h"

static void stub_count(unsigned idx)
{
    if (idx < gs_sim_stub_n) {
        __atomic_fetch_add(&gs_sim_stub_calls[idx], 1, __ATOMIC_RELAXED);
        gs_sim_cost_name(gs_sim_stub_names[idx]);
    }
}

/* The common checks, lock held by the caller. */
static nvmlReturn_t stub_check(nvmlDevice_t dev, int is_dev, int args_ok)
{
    if (gs_sim.refcount == 0)
        return NVML_ERROR_UNINITIALIZED;
    struct nvmlDevice_st *g = is_dev ? gs_sim_handle(dev) : NULL;
    if ((is_dev && !g) || !args_ok)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (g && !g->lost && gs_sim_now() >= g->cfg->lost_at)
        g->lost = 1;
    if (g && g->lost)
        return NVML_ERROR_GPU_IS_LOST;
    return NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t stub_call(unsigned idx, nvmlDevice_t dev, int is_dev, int args_ok)
{
    stub_count(idx);
    pthread_mutex_lock(&gs_sim.lock);
    nvmlReturn_t r = stub_check(dev, is_dev, args_ok);
    pthread_mutex_unlock(&gs_sim.lock);
    return r;
}

nvmlReturn_t gs_sim_stub_dev(unsigned idx, nvmlDevice_t dev, int args_ok)
{
    return stub_call(idx, dev, 1, args_ok);
}

nvmlReturn_t gs_sim_stub_sys(unsigned idx, int args_ok)
{
    return stub_call(idx, NULL, 0, args_ok);
}

nvmlReturn_t gs_sim_stub_zero(unsigned idx, void *count)
{
    nvmlReturn_t r = stub_call(idx, NULL, 0, count != NULL);
    if (r != NVML_ERROR_NOT_SUPPORTED)
        return r;
    memset(count, 0, sizeof(unsigned int));
    return NVML_SUCCESS;
}

nvmlReturn_t gs_sim_stub_noindex(unsigned idx, int args_ok)
{
    nvmlReturn_t r = stub_call(idx, NULL, 0, args_ok);
    return r == NVML_ERROR_NOT_SUPPORTED ? NVML_ERROR_INVALID_ARGUMENT : r;
}

unsigned long long *gs_sim_stub_counter(const char *name)
{
    for (unsigned i = 0; name && i < gs_sim_stub_n; i++)
        if (strcmp(gs_sim_stub_names[i], name) == 0)
            return &gs_sim_stub_calls[i];
    return NULL;
}

/* "<symbol> <count>" for each stub this library exports (its profile's map)
 * and that no modelled function of the same name replaced. */
void gs_sim_stub_stats(FILE *f)
{
    Dl_info info;
    void *self = NULL;

    if (dladdr((void *)&gs_sim_stub_counter, &info) && info.dli_fname)
        self = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    for (unsigned i = 0; i < gs_sim_stub_n; i++) {
        if (gs_scn_sym_code(gs_sim_stub_names[i]) >= 0 || (self && !dlsym(self, gs_sim_stub_names[i])))
            continue;
        fprintf(f, "%s %llu\n", gs_sim_stub_names[i], __atomic_load_n(&gs_sim_stub_calls[i], __ATOMIC_RELAXED));
    }
    if (self)
        dlclose(self);
}

void gs_sim_stub_reset(void)
{
    for (unsigned i = 0; i < gs_sim_stub_n; i++)
        __atomic_store_n(&gs_sim_stub_calls[i], 0, __ATOMIC_RELAXED);
}
