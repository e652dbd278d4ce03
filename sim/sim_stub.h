/* SPDX-License-Identifier: MIT */
/*
 * sim_stub.h - what the generated stubs (sim_stubs.c) share: the protocol of an
 * NVML function the simulator does not model (sim_stub.c), and their names and
 * call counters for gssimCallCount and GPUSCOPE_SIM_STATS.
 *
 * It includes only the ABI types, never sim_api.h: a stub's parameters are
 * declared by class (void * for pointers), so a real prototype of the same
 * function elsewhere cannot clash with it.
 */
#ifndef GS_SIM_STUB_H
#define GS_SIM_STUB_H

#include <stdio.h>

#include "backend/nvidia/nvml_abi.h"

/* A strong definition of the same name in another object of the library wins. */
#define GS_SIM_WEAK __attribute__((weak))

extern const unsigned gs_sim_stub_n;
extern unsigned long long gs_sim_stub_calls[];
extern const char *const gs_sim_stub_names[];

/* Device function idx: UNINITIALIZED before init, INVALID_ARGUMENT for a handle
 * that is not one of our GPUs or when !args_ok (a required pointer was NULL),
 * GPU_IS_LOST on a lost GPU, else NOT_SUPPORTED. */
nvmlReturn_t gs_sim_stub_dev(unsigned idx, nvmlDevice_t dev, int args_ok);
/* System (or other handle) function idx: the same without the device checks. */
nvmlReturn_t gs_sim_stub_sys(unsigned idx, int args_ok);
/* A count of things this machine has none of: *count = 0, SUCCESS. */
nvmlReturn_t gs_sim_stub_zero(unsigned idx, void *count);
/* An index into such an empty list: INVALID_ARGUMENT (after the init check). */
nvmlReturn_t gs_sim_stub_noindex(unsigned idx, int args_ok);

/* For sim_state.c: the counter of a stub by name (NULL if none), the stats
 * lines of the stubs this library exports, forgetting the counts. */
unsigned long long *gs_sim_stub_counter(const char *name);
void gs_sim_stub_stats(FILE *f);
void gs_sim_stub_reset(void);

#endif /* GS_SIM_STUB_H */
