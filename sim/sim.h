/* SPDX-License-Identifier: MIT */
/*
 * sim.h - internals of the NVML simulator runtime (sim_*.c): the global state
 * behind one mutex, the per-call protocol (count, fault, validate, evaluate
 * lazily at the call's scenario time) and helpers shared by the API files.
 * The exported NVML functions are declared in sim_api.h.
 */
#ifndef GS_SIM_H
#define GS_SIM_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/nvidia/nvml_abi.h"
#include "scenario.h"
#include "sim_api.h"
#include "sim_syms.h"

#define SIM_VERSION "gpuscope-sim 1.0"

/* The opaque NVML device handle is a pointer to one of these. */
struct nvmlDevice_st {
    int index;                        /* NVML index (v2 numbering) */
    const struct gs_scn_gpu *cfg;     /* scenario description */
    char uuid[48];                    /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char serial[32];
    int lost;                         /* sticky: fell off the bus */
    double energy_t;                  /* energy integrated up to this t (s) */
    double energy_mj;                 /* mJ consumed from 0 to energy_t */
    double pcie_t;                    /* PCIe byte counters integrated up to this t */
    double pcie_tx_bytes, pcie_rx_bytes;
    unsigned grow;                    /* phantom processes added by grow= faults */
};

struct sim_proc_rt {
    unsigned pid;     /* resolved PID (self, env, spawned child, synthetic) */
    pid_t child;      /* spawned child, 0 if none or reaped */
    int killed;       /* kill= time passed: child killed, PID vanished */
    int mem_ok;       /* mem_v holds the memory at scenario time mem_t (a pure function of t) */
    double mem_t;
    unsigned long long mem_v;
};

struct nvmlEventSet_st;

enum sim_clock_mode { SIM_CLOCK_REAL, SIM_CLOCK_FIXED, SIM_CLOCK_FILE, SIM_CLOCK_VIRTUAL };

struct sim_state {
    pthread_mutex_t lock;
    int refcount;                     /* successful inits minus shutdowns */
    int loaded;                       /* scenario parsed and runtime built */
    int spawned;                      /* children of pid=spawn processes started */
    int has_kill;                     /* some process has a kill= time */
    struct gs_scn *scn;
    struct nvmlDevice_st gpus[GS_SCN_MAX_GPUS];
    struct sim_proc_rt *procs;        /* parallel to scn->procs */
    int *by_gpu;                      /* process indices grouped by GPU (scenario order) */
    int by_gpu_start[GS_SCN_MAX_GPUS + 1]; /* GPU g owns by_gpu[start[g] .. start[g+1]) */
    unsigned long fault_hits[GS_SCN_MAX_FAULTS]; /* matching calls seen per fault */
    struct nvmlEventSet_st *sets;     /* live event sets */
    /* clock */
    enum sim_clock_mode clock_mode;
    int clock_by_api;                 /* gssimClockSet/Step chose a virtual clock */
    double clock_value;               /* FIXED / VIRTUAL: t; FILE: last good read */
    char clock_file[4096];
    int t0_set;
    double t0_mono;                   /* CLOCK_MONOTONIC seconds at the first nvmlInit */
    double t0_epoch;                  /* CLOCK_REALTIME seconds at the same moment */
    /* profile, detected from our own exported symbols */
    unsigned v3_entry_bytes;          /* 24, or 32 on r535early */
    int version_before_init;          /* nvmlSystemGetNVMLVersion works before init (535+) */
};

extern struct sim_state gs_sim;
extern unsigned long long gs_sim_calls[SIM_SYM__COUNT];
extern const char *const gs_sim_sym_names[SIM_SYM__COUNT];

/* One API call in progress: the lock is held between begin and end. */
struct sim_call {
    enum sim_sym sym;
    struct nvmlDevice_st *gpu;  /* NULL for system calls */
    double t;                   /* scenario time of this call */
};

/* Count the call, take the lock, check init and faults. On an error the lock
 * is already released and the error is returned. */
nvmlReturn_t gs_sim_begin(struct sim_call *c, enum sim_sym sym);
/* Same for a device call: also validates the handle, GPU_IS_LOST and the
 * feature (enum gs_scn_feature, or -1 for none) against unsupported=. */
nvmlReturn_t gs_sim_begin_dev(struct sim_call *c, enum sim_sym sym, nvmlDevice_t dev, int feature);
/* Release the lock and return r. */
nvmlReturn_t gs_sim_end(struct sim_call *c, nvmlReturn_t r);
/* Count a call that needs no lock (nvmlErrorString). */
void gs_sim_count(enum sim_sym sym);

#define SIM_BEGIN(fn)                                                  \
    struct sim_call c;                                                 \
    do {                                                               \
        nvmlReturn_t r_ = gs_sim_begin(&c, SIM_SYM_##fn);              \
        if (r_ != NVML_SUCCESS)                                        \
            return r_;                                                 \
    } while (0)
#define SIM_BEGIN_DEV(fn, dev, feature)                                \
    struct sim_call c;                                                 \
    do {                                                               \
        nvmlReturn_t r_ = gs_sim_begin_dev(&c, SIM_SYM_##fn, dev, feature); \
        if (r_ != NVML_SUCCESS)                                        \
            return r_;                                                 \
    } while (0)

/* Values of the call's GPU at the call's time. */
double gs_sim_num(const struct sim_call *c, enum gs_scn_num n);
unsigned gs_sim_u32(const struct sim_call *c, enum gs_scn_num n);       /* clamped, rounded */
unsigned long long gs_sim_u64(const struct sim_call *c, enum gs_scn_num n);
int gs_sim_unsupported(const struct nvmlDevice_st *g, int feature);
/* Sum of event arguments of one kind on the call's GPU up to c->t. */
unsigned long long gs_sim_event_sum(const struct sim_call *c, enum gs_scn_event_kind kind);
unsigned long long gs_sim_throttle(const struct sim_call *c);
unsigned gs_sim_pcie_gen(const struct sim_call *c);
unsigned long long gs_sim_mem_used(const struct sim_call *c);  /* v2 "used", bytes */
double gs_sim_energy_mj(struct sim_call *c);
void gs_sim_pcie_bytes(struct sim_call *c, unsigned long long *tx, unsigned long long *rx);
/* Wall-clock microseconds since the epoch that correspond to scenario time t. */
unsigned long long gs_sim_epoch_us(double t);
double gs_sim_now(void);   /* scenario time; caller holds the lock */

/* Copy a string into an NVML buffer: INVALID_ARGUMENT, INSUFFICIENT_SIZE or SUCCESS. */
nvmlReturn_t gs_sim_copy_str(char *buf, unsigned length, const char *s);

/* Processes (sim_procs.c). */
int gs_sim_proc_visible(const struct sim_call *c, int i);
unsigned long long gs_sim_proc_mem(const struct sim_call *c, int i); /* bytes or N/A sentinel */
unsigned gs_sim_proc_util(const struct sim_call *c, int i, int which); /* 0 sm 1 mem 2 enc 3 dec */
void gs_sim_resolve_pids(void); /* pid=self/env/auto at load */
void gs_sim_procs_start(void);   /* spawn children (init) */
void gs_sim_procs_stop(void);    /* kill and reap them (final shutdown) */
void gs_sim_procs_tick(double t); /* lazily kill children whose kill= time passed */

/* Events (sim_events.c). */
void gs_sim_events_free_all(void);

#endif /* GS_SIM_H */
