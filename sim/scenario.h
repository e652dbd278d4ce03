/* SPDX-License-Identifier: MIT */
/*
 * scenario.h - the parsed form of a simulator scenario file (docs/SIMULATOR.md)
 * and the parser's API. This part stands alone: it knows nothing of the running
 * simulator, so unit tests and the fuzzer link sim/scenario*.c by themselves.
 *
 * Ownership: gs_scn_new() returns a scenario that owns every string and value
 * expression hung off it (one arena); gs_scn_free() releases all of it.
 * Values are expressions of scenario time t (seconds), evaluated lazily with
 * gs_scn_eval(); every numeric GPU attribute is one, even the "static" ones.
 */
#ifndef GS_SIM_SCENARIO_H
#define GS_SIM_SCENARIO_H

#include <stddef.h>
#include <stdint.h>

#define GS_SCN_MAX_GPUS 64      /* selections are 64-bit masks */
#define GS_SCN_MAX_PROCS 4096   /* over all GPUs */
#define GS_SCN_MAX_EVENTS 1024
#define GS_SCN_MAX_FAULTS 64
#define GS_SCN_MAX_ARGS 6       /* arguments of one value function */
#define GS_SCN_ERR_LEN 256
#define GS_SCN_MAX_MIGS 512     /* GPU instances over all GPUs */

/* Numeric GPU attributes, each an expression of t. Units: bytes, mW, mJ, MHz,
 * degrees C, percent, KB/s; counts and enum values are plain numbers. */
enum gs_scn_num {
    /* identity and limits */
    GS_SCN_N_DOMAIN, GS_SCN_N_BUS, GS_SCN_N_DEVICE, GS_SCN_N_PCI_DEVICE_ID, GS_SCN_N_PCI_SUBSYS_ID,
    GS_SCN_N_BOARD_ID, GS_SCN_N_MINOR, GS_SCN_N_ARCH, GS_SCN_N_BRAND, GS_SCN_N_CC_MAJOR, GS_SCN_N_CC_MINOR,
    GS_SCN_N_MEM_TOTAL, GS_SCN_N_MEM_RESERVED, GS_SCN_N_BAR1_TOTAL, GS_SCN_N_BAR1_USED,
    GS_SCN_N_TEMP_SHUTDOWN, GS_SCN_N_TEMP_SLOWDOWN, GS_SCN_N_TEMP_MEM_MAX, GS_SCN_N_TEMP_GPU_MAX,
    GS_SCN_N_POWER_DEFAULT, GS_SCN_N_POWER_MIN, GS_SCN_N_POWER_MAX, GS_SCN_N_POWER_LIMIT, GS_SCN_N_POWER_ENFORCED,
    GS_SCN_N_CLK_MAX_GR, GS_SCN_N_CLK_MAX_SM, GS_SCN_N_CLK_MAX_MEM, GS_SCN_N_CLK_MAX_VIDEO,
    GS_SCN_N_CLK_APP_GR, GS_SCN_N_CLK_APP_MEM,
    GS_SCN_N_PCIE_MAX_GEN, GS_SCN_N_PCIE_GPU_MAX_GEN, GS_SCN_N_PCIE_MAX_WIDTH, GS_SCN_N_FANS,
    GS_SCN_N_ECC, GS_SCN_N_ECC_PENDING, GS_SCN_N_PERSISTENCE, GS_SCN_N_COMPUTE_MODE, GS_SCN_N_MIG, GS_SCN_N_MIG_PENDING,
    GS_SCN_N_DISPLAY_MODE, GS_SCN_N_DISPLAY_ACTIVE, GS_SCN_N_VIRT_MODE, GS_SCN_N_NVLINKS,
    GS_SCN_N_THROTTLE_SUPPORTED, GS_SCN_N_ENERGY_START, GS_SCN_N_PCIE_TX_START, GS_SCN_N_PCIE_RX_START,
    /* dynamic readings */
    GS_SCN_N_UTIL, GS_SCN_N_MEM_UTIL, GS_SCN_N_ENC, GS_SCN_N_DEC, GS_SCN_N_MEM_USED, GS_SCN_N_TEMP, GS_SCN_N_MEM_TEMP,
    GS_SCN_N_POWER, GS_SCN_N_CLK_GR, GS_SCN_N_CLK_SM, GS_SCN_N_CLK_MEM, GS_SCN_N_CLK_VIDEO, GS_SCN_N_FAN,
    GS_SCN_N_PSTATE, GS_SCN_N_THROTTLE, GS_SCN_N_PCIE_GEN, GS_SCN_N_PCIE_WIDTH, GS_SCN_N_PCIE_TX, GS_SCN_N_PCIE_RX,
    GS_SCN_N_PCIE_REPLAY, GS_SCN_N_ECC_SBE_VOL, GS_SCN_N_ECC_DBE_VOL, GS_SCN_N_ECC_SBE_AGG, GS_SCN_N_ECC_DBE_AGG,
    GS_SCN_N_RETIRED_SBE, GS_SCN_N_RETIRED_DBE, GS_SCN_N_RETIRED_PENDING,
    GS_SCN_N_REMAP_COR, GS_SCN_N_REMAP_UNC, GS_SCN_N_REMAP_PENDING, GS_SCN_N_REMAP_FAILURE,
    /* throttle time, NVLink and fan range (health counters) */
    GS_SCN_N_FAN_MIN, GS_SCN_N_FAN_MAX, GS_SCN_N_NVLINK_DOWN, GS_SCN_N_NVLINK_CRC_FLIT, GS_SCN_N_NVLINK_CRC_DATA,
    GS_SCN_N_NVLINK_REPLAY, GS_SCN_N_NVLINK_RECOVERY, GS_SCN_N_VIOL_BOARD_LIMIT, GS_SCN_N_VIOL_RELIABILITY,
    GS_SCN_N_AER_COR, GS_SCN_N_AER_NONFATAL, GS_SCN_N_AER_FATAL,
    /* query fidelity (9a): more of what nvidia-smi prints */
    GS_SCN_N_JPG, GS_SCN_N_OFA, GS_SCN_N_ENC_SESSIONS, GS_SCN_N_ENC_FPS, GS_SCN_N_ENC_LATENCY,
    GS_SCN_N_TEMP_TLIMIT, GS_SCN_N_POWER_INSTANT, GS_SCN_N_ACCOUNTING, GS_SCN_N_ACCT_BUFFER,
    GS_SCN_N_PROT_MEM_TOTAL, GS_SCN_N_PROT_MEM_USED, GS_SCN_N_RECOVERY, GS_SCN_N_EDPP, GS_SCN_N_GSP,
    GS_SCN_N_GSP_DEFAULT, GS_SCN_N_ADDRESSING, GS_SCN_N_ECC_LOCATIONS, GS_SCN_N_PCI_CLASS, GS_SCN_N_PCI_SUBCLASS,
    GS_SCN_N_MEM_FREE, GS_SCN_N_FABRIC_STATE, GS_SCN_N_FABRIC_CLIQUE, GS_SCN_N_PLATFORM_SLOT,
    GS_SCN_N_PLATFORM_TRAY, GS_SCN_N_PLATFORM_HOST, GS_SCN_N_PLATFORM_PEER, GS_SCN_N_PLATFORM_MODULE, GS_SCN_N_C2C,
    GS_SCN_N_PCIE_ROLLOVER, GS_SCN_N_PCIE_ATOMICS_OUT, GS_SCN_N_PCIE_ATOMICS_IN, GS_SCN_N_POWER_MEMORY, /* < 0: not supported */
    /* profiling (GPM) activity, percent, and NVLink throughput, KB/s (area 10c) */
    GS_SCN_N_GR_ACTIVE, GS_SCN_N_SM_ACTIVE, GS_SCN_N_SM_OCCUPANCY, GS_SCN_N_TENSOR_ACTIVE,
    GS_SCN_N_DRAM_ACTIVE, GS_SCN_N_FP64_ACTIVE, GS_SCN_N_FP32_ACTIVE, GS_SCN_N_FP16_ACTIVE,
    GS_SCN_N_NVLINK_TX, GS_SCN_N_NVLINK_RX,
    GS_SCN_N__COUNT
};

/* String GPU attributes. */
enum gs_scn_str {
    GS_SCN_S_NAME, GS_SCN_S_UUID, GS_SCN_S_SERIAL, GS_SCN_S_VBIOS, GS_SCN_S_PART_NUMBER,
    GS_SCN_S_INFOROM_IMG, GS_SCN_S_INFOROM_OEM, GS_SCN_S_INFOROM_ECC, GS_SCN_S_INFOROM_PWR, /* "": not supported */
    GS_SCN_S_CHASSIS_SERIAL, GS_SCN_S_PDI, /* pdi: hex; unset answers NOT_SUPPORTED */
    GS_SCN_S__COUNT
};

/* Features a GPU can answer NOT_SUPPORTED for (unsupported=a,b,...). */
enum gs_scn_feature {
    GS_SCN_F_FAN, GS_SCN_F_ECC, GS_SCN_F_ENCODER, GS_SCN_F_DECODER, GS_SCN_F_POWER, GS_SCN_F_POWER_LIMIT, GS_SCN_F_ENERGY,
    GS_SCN_F_TEMP, GS_SCN_F_TEMP_THRESHOLDS, GS_SCN_F_MEM_TEMP, GS_SCN_F_CLOCKS, GS_SCN_F_MAX_CLOCKS, GS_SCN_F_APP_CLOCKS,
    GS_SCN_F_PSTATE, GS_SCN_F_THROTTLE, GS_SCN_F_PCIE, GS_SCN_F_PCIE_THROUGHPUT, GS_SCN_F_REPLAY, GS_SCN_F_SERIAL,
    GS_SCN_F_BOARD_ID, GS_SCN_F_PART_NUMBER, GS_SCN_F_VBIOS, GS_SCN_F_BAR1, GS_SCN_F_MEMORY, GS_SCN_F_UTIL,
    GS_SCN_F_PROCS, GS_SCN_F_PROC_UTIL, GS_SCN_F_SAMPLES, GS_SCN_F_RETIRED_PAGES, GS_SCN_F_REMAPPED_ROWS, GS_SCN_F_MIG,
    GS_SCN_F_PERSISTENCE, GS_SCN_F_COMPUTE_MODE, GS_SCN_F_DISPLAY, GS_SCN_F_FIELD_VALUES, GS_SCN_F_EVENTS, GS_SCN_F_CC,
    GS_SCN_F_BRAND, GS_SCN_F_ARCH, GS_SCN_F_MINOR, GS_SCN_F_POWER_MODE,
    /* -- simulator fidelity (9b) -- */
    GS_SCN_F_PROC_UTIL_INFO, /* only nvmlDeviceGetProcessesUtilizationInfo: the legacy call still works */
    /* throttle time, NVLink (health counters) */
    GS_SCN_F_VIOLATION, GS_SCN_F_NVLINK, GS_SCN_F_VIOL_HW,
    /* query fidelity (9a) */
    GS_SCN_F_POWER_AVERAGE, GS_SCN_F_JPEG, GS_SCN_F_OFA, GS_SCN_F_TLIMIT, GS_SCN_F_SRAM_ECC,
    GS_SCN_F_CONF_COMPUTE, GS_SCN_F_EDPP, GS_SCN_F_INFOROM, GS_SCN_F_GSP, GS_SCN_F_ADDRESSING,
    GS_SCN_F_RECOVERY, GS_SCN_F_ACCOUNTING, GS_SCN_F_PLATFORM, GS_SCN_F_C2C,
    GS_SCN_F_GPM, /* profiling metrics (area 10c) */
    GS_SCN_F__COUNT
};
_Static_assert(GS_SCN_F__COUNT <= 64, "features must fit the 64-bit unsupported mask");

/* A value: a number or a function of t (see docs/SIMULATOR.md "Values"). */
enum gs_scn_op {
    GS_OP_CONST, GS_OP_T, GS_OP_VAR, GS_OP_RAMP, GS_OP_LINEAR, GS_OP_SINE, GS_OP_SAW,
    GS_OP_SQUARE, GS_OP_NOISE, GS_OP_STEP, GS_OP_CLAMP, GS_OP_ADD, GS_OP_MUL, GS_OP_MIN, GS_OP_MAX
};

struct gs_scn_expr {
    enum gs_scn_op op;
    int nargs;
    double k;        /* GS_OP_CONST: the value (in the field's base unit) */
    int var;         /* GS_OP_VAR: enum gs_scn_num of the same GPU */
    unsigned salt;   /* GS_OP_NOISE: per-expression seed mix (line number) */
    struct gs_scn_expr *arg[GS_SCN_MAX_ARGS];
};

struct gs_scn_gpu {
    struct gs_scn_expr *num[GS_SCN_N__COUNT]; /* never NULL after parse */
    char *str[GS_SCN_S__COUNT];               /* NULL: derived from the index at load */
    uint64_t unsupported;                 /* bit (1 << enum gs_scn_feature) */
    int handle_error;                     /* nvmlReturn_t for HandleByIndex, 0 = none */
    double lost_at;                       /* falls off the bus at t (INFINITY: never) */
    double back_at;                       /* ... and comes back at t (a reset or re-seat; INFINITY: never) */
    unsigned deprecated;                  /* bit (1 << enum gs_scn_deprecated): calls answering DEPRECATED */
    int deprecated_set;                   /* deprecated= given (else derived from the driver version) */
};

/* Calls newer drivers deprecate (deprecated=a,b,...; default by driver: R570+
 * reset_status, R580+ all four). */
enum gs_scn_deprecated {
    GS_SCN_D_DISPLAY_MODE, GS_SCN_D_POWER_MODE, GS_SCN_D_APP_CLOCKS, GS_SCN_D_RESET_STATUS, GS_SCN_D__COUNT
};

enum gs_scn_pid_kind { GS_PID_FIXED, GS_PID_SELF, GS_PID_ENV, GS_PID_SPAWN, GS_PID_AUTO };

#define GS_SCN_PROC_COMPUTE 0x1u
#define GS_SCN_PROC_GRAPHICS 0x2u
#define GS_SCN_PROC_MPS 0x4u

struct gs_scn_proc {
    int gpu;                  /* GPU index */
    unsigned types;           /* GS_SCN_PROC_* lists it appears in */
    enum gs_scn_pid_kind pid_kind;
    unsigned pid;             /* GS_PID_FIXED / GS_PID_AUTO: the PID */
    char *name;               /* process name (NULL: read /proc for live PIDs) */
    char *label;              /* id= for events, may be NULL */
    char *group;              /* group=: spawned children of one group share a new process group (NULL: inherit) */
    struct gs_scn_expr *mem;  /* used GPU memory, bytes; NULL: NVML_VALUE_NOT_AVAILABLE */
    struct gs_scn_expr *sm, *memutil, *enc, *dec; /* percent */
    double start, exit;       /* listed while start <= t < exit */
    double kill;              /* spawned child killed at t (PID vanishes, still listed) */
    unsigned gi, ci;          /* MIG instance ids, 0xFFFFFFFF without MIG */
    int hidden;               /* hidden=1: the driver cannot name it (another PID namespace) */
    int mps_server;           /* mps_server=1: an MPS server whatever its name (a renamed binary) */
    int line;                 /* the scenario line that declared it (messages) */
};

enum gs_scn_event_kind {
    GS_SCN_EV_XID, GS_SCN_EV_ECC_SBE, GS_SCN_EV_ECC_DBE, GS_SCN_EV_REMAP_COR, GS_SCN_EV_REMAP_UNC,
    GS_SCN_EV_REMAP_PENDING, GS_SCN_EV_REMAP_FAILURE, GS_SCN_EV_THROTTLE_ON, GS_SCN_EV_THROTTLE_OFF,
    GS_SCN_EV_PCIE_DROP, GS_SCN_EV_PCIE_RESTORE, GS_SCN_EV_LOST, GS_SCN_EV_PROC_MEM, GS_SCN_EV_RETIRE_SBE,
    GS_SCN_EV_RETIRE_DBE, GS_SCN_EV_BACK
};

struct gs_scn_event {
    double at;                  /* scenario time, seconds */
    int gpu;                    /* GPU index */
    enum gs_scn_event_kind kind;
    unsigned long long arg;     /* Xid number, throttle mask, count, generations */
    double amount;              /* GS_SCN_EV_PROC_MEM: bytes added */
    int proc;                   /* GS_SCN_EV_PROC_MEM: index into procs */
};

/* A MIG GPU instance (`mig` line). The profile name is checked against the
 * GPU's profile table when the simulator loads (it depends on the GPU). */
struct gs_scn_mig {
    int gpu;                  /* parent GPU index */
    int line;                 /* scenario line, for messages at load */
    char profile[24];         /* GPU instance profile: "1g.10gb", "3g.40gb", "1g.10gb+me" */
    int gi;                   /* GPU instance ID, -1: derived from the placement */
    int placement;            /* first memory slice, -1: the first free one */
    int cis;                  /* compute instances: 1 (the whole instance) or one per compute slice */
    struct gs_scn_gpu cfg;    /* its readings: the GPU's expressions when the line was read,
                               * overridden by the line (util=, memory_used=, tensor_active=...) */
};

struct gs_scn_fault {
    char fn[64];         /* NVML symbol, or "*" for every device function */
    int sym;             /* enum sim_sym, -1 for "*" */
    int gpu;             /* -1: any GPU */
    unsigned long call;  /* fires on matching call number `call` (1-based) */
    int persist;         /* 1: and on every later matching call */
    int error;           /* nvmlReturn_t to return, 0: none */
    unsigned delay_ms;   /* the call takes this long first */
    unsigned grow;       /* process lists of the GPU gain this many entries */
};

/* A PCI device only the sysfs tree shows (pcidev lines): a GPU the driver failed to bring up. */
struct gs_scn_pcidev {
    unsigned domain, bus, device, device_id;
};
#define GS_SCN_MAX_PCIDEVS 16

struct gs_scn {
    char name[64];              /* `name` line, else the file's base name */
    char driver_version[80];
    char nvml_version[80];      /* "" : "<cuda major>.<driver>" */
    char driver_branch[80];     /* "" : "r<major>_00" */
    int cuda_version;           /* major*1000 + minor*10 */
    int init_error;             /* nvmlReturn_t every init returns, 0 = none */
    unsigned seed;              /* mixed into noise and derived UUIDs */
    int ngpus;
    struct gs_scn_gpu gpus[GS_SCN_MAX_GPUS];
    int nprocs;
    struct gs_scn_proc *procs;  /* GS_SCN_MAX_PROCS slots */
    int nevents;
    struct gs_scn_event *events; /* sorted by time after parse */
    int nfaults;
    struct gs_scn_fault faults[GS_SCN_MAX_FAULTS];
    int npcidevs;
    struct gs_scn_pcidev pcidevs[GS_SCN_MAX_PCIDEVS];
    int nmigs;
    struct gs_scn_mig *migs;    /* GS_SCN_MAX_MIGS slots, in scenario order (NULL until a mig line) */
    struct gs_scn_arena *arena; /* owns expressions and strings */
    struct gs_scn_cuda *cuda;   /* `cuda` lines (scenario_cuda.h), NULL if none */
    unsigned auto_pid;          /* next synthetic PID */
};

/* Evaluation context: which GPU (for variables) and a salt for noise. */
struct gs_scn_env {
    const struct gs_scn_gpu *gpu;
    unsigned salt;   /* GPU index and process index mixed; varies noise per object */
    int depth;       /* recursion guard for variables */
};

struct gs_scn *gs_scn_new(void);
void gs_scn_free(struct gs_scn *s);

/* Parse scenario text (need not be NUL-terminated). fname is used in messages.
 * Returns 0, or -1 with err = "<fname>:<line>: <what is wrong>". Lines are
 * applied in order; on error the scenario is left partly filled (free it). */
int gs_scn_parse_buf(struct gs_scn *s, const char *text, size_t len, const char *fname, char *err,
                     size_t errlen);
int gs_scn_parse_file(struct gs_scn *s, const char *path, char *err, size_t errlen);
/* Parse ';'-separated fault lines (GPUSCOPE_SIM_FAULTS), e.g.
 * "nvmlDeviceGetPowerUsage gpu=1 call=3 error=GPU_IS_LOST persist; ...". */
int gs_scn_parse_faults(struct gs_scn *s, const char *spec, const char *origin, char *err,
                        size_t errlen);

/* Parse one value expression ("noise(90,5)", "80GiB") into the scenario's arena. */
int gs_scn_parse_value(struct gs_scn *s, const char *text, unsigned salt, struct gs_scn_expr **out,
                       char *err, size_t errlen);
/* Evaluate at time t (seconds). NULL env: no variables, salt 0. */
double gs_scn_eval(const struct gs_scn_expr *e, double t, const struct gs_scn_env *env);
/* Deterministic value noise in [-1, 1], smooth in x. */
double gs_scn_noise(unsigned seed, double x);

/* A GPU's UUID and serial as the scenario gives or derives them (scenario_ids.c). */
void gs_scn_gpu_ids(const struct gs_scn *s, int index, char *uuid, size_t uuid_len, char *serial,
                    size_t serial_len);
/* The scenario file to load (GPUSCOPE_SIM_SCENARIO, _DIR; beside lib_file
 * in a build or install tree): 0, or -1 with err filled. */
int gs_scn_locate(const char *lib_file, char *out, size_t len, char *err, size_t errlen);

/* Names. All return -1 for an unknown name. */
int gs_scn_error_code(const char *name);      /* "GPU_IS_LOST", "NVML_ERROR_GPU_IS_LOST", "15" */
const char *gs_scn_error_name(int code);      /* "GPU_IS_LOST"; "UNKNOWN" for unknown codes */
int gs_scn_feature_code(const char *name);    /* "fan" -> GS_SCN_F_FAN */
const char *gs_scn_feature_name(int feature);
int gs_scn_num_code(const char *name);        /* "util" -> GS_SCN_N_UTIL */
int gs_scn_sym_code(const char *name);        /* NVML symbol -> enum sim_sym */
const char *gs_scn_sym_name(int sym);

/* Internal to the parser files (scenario*.c); declared here for them. */
void *gs_scn_arena_alloc(struct gs_scn *s, size_t size);
char *gs_scn_arena_strdup(struct gs_scn *s, const char *str, size_t len);
void gs_scn_arena_release(struct gs_scn_arena *a);
int gs_scn_parse_fault_words(struct gs_scn *s, char **words, int nwords, char *err, size_t errlen);

#endif /* GS_SIM_SCENARIO_H */
