/* SPDX-License-Identifier: MIT */
/*
 * cusim.h - internals of the CUDA driver API simulator (libcuda.so.1 built
 * from simcuda/): one mutex over all state, devices from the scenario file
 * the NVML simulator reads too (its `gpu` and `cuda` lines), a scenario clock
 * shared with the NVML simulator when it is loaded in the same process
 * (gssimClockNow), kernels recognised by PTX entry name and run as their C
 * equivalents (src/burn/ref.c) with modelled durations. docs/SIMULATOR.md,
 * "The CUDA simulator".
 *
 * Time: each context has one queue (the NULL stream). A launch starts when the
 * queue is free, lasts work / modelled rate, and its results are written at
 * once; whatever synchronizes (events, cuCtxSynchronize, synchronous copies)
 * blocks until scenario time reaches the end of the queue. On a virtual clock
 * that time only moves when the program steps it (gssimClockStep), so a
 * waiting thread is parked, and gscusimSettle() tells the program when every
 * context's thread is parked: runs are deterministic, whatever the machine.
 */
#ifndef GS_CUSIM_H
#define GS_CUSIM_H

#include <pthread.h>
#include <stdint.h>

#include "backend/cuda/cuda_abi.h"
#include "burn/kernels.h"
#include "cusim_api.h"
#include "scenario.h"
#include "scenario_cuda.h"

#define CUSIM_VERSION "gpuscope-cudasim 1.0"
#define CUSIM_MAX_DEV 64
#define CUSIM_MAX_ENTRIES 8

struct cusim_alloc {
    CUdeviceptr base;
    size_t size;
    struct cusim_alloc *next;
};

struct CUctx_st {
    int dev;                      /* device index */
    int primary;                  /* the device's primary context */
    int refs;                     /* primary: retains */
    CUresult sticky;              /* an error that ended the context (reported by every call) */
    double busy_until;            /* scenario time the queue drains */
    double waiting_until;         /* a thread waits for this time; < 0: none */
    struct cusim_alloc *allocs;
    size_t allocated;
    unsigned long result_launches; /* launches of kernels that write results (corrupt launch=N) */
    struct CUmod_st *mods;        /* its modules and events: the driver frees them with it */
    struct CUevent_st *events;
    struct CUctx_st *next;        /* live contexts */
};

struct CUfunc_st {
    struct CUmod_st *mod;
    int kernel;                   /* enum gs_burn_kernel */
};

struct CUmod_st {
    struct CUctx_st *ctx;
    struct CUmod_st *next;
    int nfuncs;
    struct CUfunc_st funcs[CUSIM_MAX_ENTRIES];
};

struct CUevent_st {
    struct CUctx_st *ctx;
    struct CUevent_st *next;
    int recorded;
    double t;
};

struct cusim_dev {
    int scn;                      /* the scenario's GPU index (CUDA_VISIBLE_DEVICES renumbers) */
    char name[96];
    char uuid[48];
    unsigned char uuid_bytes[16];
    unsigned pci_domain, pci_bus, pci_device;
    int cc_major, cc_minor;
    double clock_mhz, mem_clock_mhz;
    double lost_at;               /* scenario time it falls off the bus */
    const struct gs_scn_cuda_gpu *cfg;
    struct CUctx_st *primary;
};

enum cusim_clock { CUSIM_CLOCK_REAL, CUSIM_CLOCK_FIXED, CUSIM_CLOCK_FILE };

struct cusim {
    pthread_mutex_t lock;
    pthread_cond_t cond;          /* waits for scenario time; settle */
    int loaded;
    CUresult init_rc;             /* the answer of the first cuInit, repeated */
    struct gs_scn *scn;
    const struct gs_scn_cuda *cuda;
    int ndev;
    struct cusim_dev dev[CUSIM_MAX_DEV];
    struct CUctx_st *ctxs;
    unsigned long fault_hits[GS_SCN_CUDA_MAX_FAULTS];
    /* the clock: the NVML simulator's when it is loaded, else our own */
    double (*nvml_now)(void);
    void (*nvml_busy)(unsigned gpu, double t0, double t1, double intensity);
    enum cusim_clock clock;
    double clock_value, t0_mono;
    char clock_file[4096];
    int virtual_clock;            /* time moves only when stepped: park waiters */
};

extern struct cusim gs_cusim;

/* Scenario time now (lock held or not). */
double gs_cusim_now(void);
/* Check init and the current context (not sticky, GPU not lost); lock held on
 * success, released on error. */
CUresult gs_cusim_enter_ctx(struct CUctx_st **out);
CUresult gs_cusim_enter(void);          /* init only */
CUresult gs_cusim_leave(CUresult r);    /* release the lock, return r */
/* Wait (lock held, released while waiting) until scenario time reaches t;
 * the context ends with CUDA_ERROR_LAUNCH_FAILED if its GPU is lost first. */
CUresult gs_cusim_wait(struct CUctx_st *c, double t);
/* The error fault of this call on this device (CUDA ordinal) fires (0: none). */
CUresult gs_cusim_fault(const char *fn, int dev);
/* The allocation of c holding [p, p + len), or NULL. */
struct cusim_alloc *gs_cusim_find(struct CUctx_st *c, CUdeviceptr p, size_t len);
/* Tell the NVML simulator that dev is busy in [t0, t1). */
void gs_cusim_busy(int dev, double t0, double t1, double intensity);
/* The current context of this thread (cuCtxSetCurrent). */
struct CUctx_st *gs_cusim_current(void);
void gs_cusim_set_current(struct CUctx_st *c);
/* Drop the kept kernel results (cusim_launch.c; at unload). */
void gs_cusim_memo_free(void);
/* Forget a context (lock held): frees its memory. */
void gs_cusim_ctx_free(struct CUctx_st *c);

#endif /* GS_CUSIM_H */
