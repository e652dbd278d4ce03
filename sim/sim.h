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

/* GPM counters: activity integrated over scenario time (percent x s, KB), as
 * the driver accumulates its counters; a GPM sample is a copy of them. */
#define SIM_GPM_NACC 12
struct sim_gpm_acc {
    double t;                         /* integrated up to this scenario time */
    double v[SIM_GPM_NACC];           /* enum sim_gpm_acc_index order (sim_gpm.c) */
};

/* The opaque NVML device handle is a pointer to one of these. */
struct nvmlDevice_st {
    int index;                        /* NVML index (v2 numbering) */
    const struct gs_scn_gpu *cfg;     /* scenario description */
    char uuid[48];                    /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    char serial[32];
    int lost;                         /* sticky: fell off the bus (until a `back`) */
    double energy_t;                  /* energy integrated up to this t (s) */
    double energy_mj;                 /* mJ consumed from 0 to energy_t */
    double pcie_t;                    /* PCIe byte counters integrated up to this t */
    double pcie_tx_bytes, pcie_rx_bytes;
    unsigned grow;                    /* phantom processes added by grow= faults */
    double viol_t;                    /* violation times integrated up to this t (s) */
    double viol_s[8];                 /* seconds each limiter held clocks down, 0..viol_t (sim_counters.c) */
    /* -- MIG and GPM (sim_mig.c, sim_gpm.c) -- */
    struct nvmlDevice_st *parent;     /* a MIG device (compute instance): its GPU; NULL for a GPU */
    struct nvmlComputeInstance_st *ci; /* a MIG device: its compute instance */
    unsigned mig_index;               /* a MIG device: index under its parent */
    char name[96];                    /* a MIG device: "NVIDIA H100 80GB HBM3 MIG 1g.10gb" */
    struct sim_gpm_acc gpm;           /* GPM counters of a GPU */
};

/* A MIG GPU instance profile of one GPU model (sim_mig.c's tables). */
struct sim_gip {
    unsigned index;                   /* NVML_GPU_INSTANCE_PROFILE_* */
    unsigned id;                      /* profile ID */
    const char *name;                 /* "1g.10gb" */
    unsigned slices, mem_slices, instances;
    unsigned sm, ce, dec, enc, jpg, ofa;
    unsigned long long mem_mib;
    unsigned starts;                  /* bit i: the instance may start at memory slice i */
};

struct nvmlGpuInstance_st {
    struct nvmlDevice_st *parent;
    const struct sim_gip *prof;
    const struct gs_scn_mig *cfg;     /* its scenario line (readings) */
    unsigned id, start;               /* GPU instance ID, first memory slice */
    int first_ci, nci;                /* its compute instances in gs_sim.mig_cis */
    unsigned salt;                    /* noise salt of its readings */
    struct sim_gpm_acc gpm;
};

struct nvmlComputeInstance_st {
    struct nvmlGpuInstance_st *gi;
    unsigned id, profile_index, start, slices;
    struct nvmlDevice_st *dev;        /* its MIG device handle */
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
    long long pids_mtime_ns, pids_size; /* GPUSCOPE_SIM_PIDS_FILE as last read (-1: not yet) */
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
    /* MIG (sim_mig.c): built at load from the scenario's mig lines */
    struct nvmlGpuInstance_st *mig_gis;
    int mig_ngis;
    struct nvmlComputeInstance_st *mig_cis;
    int mig_ncis;
    struct nvmlDevice_st *mig_devs;   /* one per compute instance, grouped by GPU */
    int mig_ndevs;
    struct nvmlGpmSample_st *gpm_samples; /* live GPM sample buffers (sim_gpm.c) */
    /* profile, detected from our own exported symbols */
    unsigned v3_entry_bytes;          /* 24, or 32 on r535early */
    int version_before_init;          /* nvmlSystemGetNVMLVersion works before init (535+) */
    int fields_r575;                  /* field values 269-271 (HW thermal / power brake time) answered */
    int fields_r520;                  /* field value 165 (NVLink state, scopeId = link) answered */
};

extern struct sim_state gs_sim;
extern unsigned long long gs_sim_calls[SIM_SYM__COUNT];
extern const char *const gs_sim_sym_names[SIM_SYM__COUNT];

/* One API call in progress: the lock is held between begin and end. */
struct sim_call {
    enum sim_sym sym;
    struct nvmlDevice_st *gpu;  /* NULL for system calls; the parent GPU of a MIG device */
    struct nvmlDevice_st *mig;  /* the MIG device the handle named, or NULL */
    double t;                   /* scenario time of this call */
};

/* Count the call, take the lock, check init and faults. On an error the lock
 * is already released and the error is returned. */
nvmlReturn_t gs_sim_begin(struct sim_call *c, enum sim_sym sym);
/* Same for a device call: also validates the handle, GPU_IS_LOST and the
 * feature (enum gs_scn_feature, or -1 for none) against unsupported=. */
/* Whether GPU g is off the bus at t: from lost_at on, sticky even if the
 * clock goes back, until back_at (a driver reset or a re-seated GPU). */
int gs_sim_lost_now(struct nvmlDevice_st *g, double t);
nvmlReturn_t gs_sim_begin_dev(struct sim_call *c, enum sim_sym sym, nvmlDevice_t dev, int feature);
/* Our GPU behind a handle, or NULL when it is not one (lock held). */
struct nvmlDevice_st *gs_sim_handle(nvmlDevice_t dev);
/* The fault lines of function sym for the call's GPU, counted as a call of sym (lock held):
 * a field-values entry that is the same reading as sym. Delays are not applied. */
nvmlReturn_t gs_sim_fault_as(const struct sim_call *c, enum sim_sym sym);
/* Release the lock and return r. */
nvmlReturn_t gs_sim_end(struct sim_call *c, nvmlReturn_t r);
/* Count a call that needs no lock (nvmlErrorString). */
void gs_sim_count(enum sim_sym sym);
/* The cost model (sim_cost.c, GPUSCOPE_SIM_CALL_COST_US): spend what a call of this
 * function, of a stub by name, or n entries of a field-values call cost on a driver.
 * Called before the lock is taken; nothing when the model is off. */
void gs_sim_cost_sym(enum sim_sym sym);
void gs_sim_cost_name(const char *name);
void gs_sim_cost_fields(int n);

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
/* The shape of a one-value getter (sim_device.c): begin the device call (sym, feature as
 * for gs_sim_begin_dev), INVALID_ARGUMENT for a NULL out, else *out = value(c, arg). */
nvmlReturn_t gs_sim_get_value(enum sim_sym sym, nvmlDevice_t dev, int feature,
                              unsigned (*value)(const struct sim_call *c, int arg), int arg, unsigned *out);
unsigned long long gs_sim_u64(const struct sim_call *c, enum gs_scn_num n);
int gs_sim_unsupported(const struct nvmlDevice_st *g, int feature);
/* Does this call answer NVML_ERROR_DEPRECATED (deprecated=, or by driver version)? */
int gs_sim_deprecated(const struct sim_call *c, enum gs_scn_deprecated which);
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

/* A codec-style utilization reading (percent and sampling period), NOT_SUPPORTED under MIG. */
nvmlReturn_t gs_sim_codec(enum sim_sym sym, nvmlDevice_t device, int feature, enum gs_scn_num n, unsigned *util,
                          unsigned *period_us);

/* Copy a string into an NVML buffer: INVALID_ARGUMENT, INSUFFICIENT_SIZE or SUCCESS. */
nvmlReturn_t gs_sim_copy_str(char *buf, unsigned length, const char *s);

/* Processes (sim_procs.c). */
int gs_sim_proc_visible(const struct sim_call *c, int i);
unsigned long long gs_sim_proc_mem(const struct sim_call *c, int i); /* bytes or N/A sentinel */
unsigned gs_sim_proc_util(const struct sim_call *c, int i, int which); /* 0 sm 1 mem 2 enc 3 dec */
void gs_sim_resolve_pids(void); /* pid=self/env/auto at load */
void gs_sim_procs_start(void);   /* spawn children (init) */
int gs_sim_spawns(const struct gs_scn_proc *sp); /* a spawned child (pid=spawn, or GPUSCOPE_SIM_SPAWN=1) */
void gs_sim_procs_stop(void);    /* kill and reap them (final shutdown) */
void gs_sim_procs_tick(double t); /* lazily kill children whose kill= time passed */

/* Throttle time and NVLink (sim_counters.c): violation counter i (enum gs_viol order)
 * in ns at the call's time, or 0 with *ok = 0 when the GPU does not report it. */
unsigned long long gs_sim_violation_ns(struct sim_call *c, unsigned i, int *ok);

/* The PCI bus as sysfs would show it (sim_sysfs.c): with GPUSCOPE_SIM_SYSFS=DIR,
 * DIR/sys/bus/pci/devices/<bdf>/ for every GPU and pcidev line (vendor, device,
 * class, AER counters at scenario time t); rewritten when the virtual clock
 * moves. Caller holds the lock. */
void gs_sim_sysfs_sync(double t);

/* Readings under the CUDA simulator's load (sim_load.c): the value v the
 * scenario gives for n at c->t, adjusted; the clock-event reasons likewise. */
double gs_sim_load_num(const struct sim_call *c, enum gs_scn_num n, double v);
unsigned long long gs_sim_load_throttle(const struct sim_call *c, unsigned long long mask);

/* Events (sim_events.c). */
void gs_sim_events_free_all(void);

/* MIG (sim_mig.c). */
int gs_sim_mig_build(const struct gs_scn *s, const char *path, char *err, size_t errlen); /* at load */
void gs_sim_mig_free(void);
struct nvmlDevice_st *gs_sim_mig_handle(nvmlDevice_t dev); /* a live MIG device handle, or NULL */
int gs_sim_mig_sym_ok(enum sim_sym sym);  /* may this function be called with a MIG device handle? */
int gs_sim_mig_on(const struct sim_call *c); /* the call's GPU is in MIG mode */
/* The compute instance's processes only: does process i belong to the call's MIG device? */
int gs_sim_mig_proc_in(const struct sim_call *c, int i);
/* A GPU instance's readings at the call's time. */
double gs_sim_gi_num(const struct sim_call *c, const struct nvmlGpuInstance_st *gi, enum gs_scn_num n);
unsigned long long gs_sim_gi_mem_used(const struct sim_call *c, const struct nvmlGpuInstance_st *gi);
const struct sim_gip *gs_sim_mig_table(const struct nvmlDevice_st *g, int *n, unsigned *max_devs);

/* GPM (sim_gpm.c). */
void gs_sim_gpm_free_all(void);

#endif /* GS_SIM_H */
