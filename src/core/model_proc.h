/* SPDX-License-Identifier: MIT */
/*
 * model_proc.h - struct gs_proc, one per process on a GPU per tick with its host
 * facts, enum gs_pfield, and the arena of its long texts (struct gs_text).
 * Included through core/model.h.
 */
#ifndef GS_MODEL_PROC_H
#define GS_MODEL_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model_sample.h" /* GS_MAX_ENGINES */


/* ---- processes ---------------------------------------------------------------- */
enum gs_proc_type {
    GS_PROC_COMPUTE = 1 << 0,
    GS_PROC_GRAPHICS = 1 << 1,
    GS_PROC_MPS = 1 << 2,
};

/* Process fields with a validity bit (the identity fields pid/type always are). */
enum gs_pfield {
    GS_P_GPU_MEM,      /* gpu_mem_bytes */
    GS_P_SM_UTIL,      /* sm_util_pct ... from per-process utilization samples */
    GS_P_MEM_UTIL,
    GS_P_ENC_UTIL,
    GS_P_DEC_UTIL,
    GS_P_USER,         /* uid, user */
    GS_P_COMM,         /* comm, cmdline */
    GS_P_CPU,          /* cpu_pct (needs two ticks) */
    GS_P_RSS,          /* rss_bytes */
    GS_P_START,        /* start_time (epoch s), age_s */
    GS_P_PARENT,       /* ppid, pgid */
    GS_P_CONTAINER,    /* container_id (and container_runtime) */
    GS_P_POD,          /* pod_uid */
    GS_P_NAME,         /* name: as the driver reports it */
    /* -- query fidelity -- */
    GS_P_CPU_TIME,     /* cpu_time_ns: CPU time used since the process started (ps's %CPU base) */
    /* -- MIG and pods -- */
    GS_P_MIG,          /* gpu_instance_id, compute_instance_id, mig_index: the MIG device it runs in */
    /* -- framework memory (PyTorch allocator) -- */
    GS_P_PYHOOK,       /* pyhook_state, pyhook_age_ms: the gpuscope Python hook answers (core/pyhook.h) */
    GS_P_TORCH,        /* torch_*: PyTorch's CUDA caching allocator on this GPU, from the hook */
    /* -- other vendors (DRM fdinfo) -- */
    GS_P_ENGINE_UTIL,  /* engine_util_pct[]: busy per engine class of the GPU (needs two ticks) */
    GS_P_GTT_MEM,      /* gtt_mem_bytes: buffers in system memory (GTT / system regions) */
    GS_P_DRM_CLIENTS,  /* drm_clients: open DRM files (clients, after merging duplicated fds) */
    /* -- HPC jobs -- */
    GS_P_SLURM,        /* slurm_job, slurm_step: from /proc/PID/cgroup (0 / "": not in a Slurm job) */
    GS_P_COUNT
};
_Static_assert(GS_P_COUNT <= 32, "process fields must fit the 32-bit valid mask");

/* Can we see the process in our /proc? */
enum gs_host_vis {
    GS_HOST_VISIBLE = 0,   /* /proc/PID read fine */
    GS_HOST_NOT_VISIBLE,   /* no such PID here: another PID namespace, or hidepid */
    GS_HOST_EXITED,        /* was visible, vanished during the read */
    GS_HOST_NO_PERMISSION, /* /proc/PID exists but could not be read */
};

#define GS_CMDLINE_MAX 512

/* The texts of one GPU's processes that vary in length (command lines, driver
 * names longer than gs_proc.name): one arena per GPU, emptied when its process
 * list is refilled, copied with the snapshot. A process names its texts by
 * offset, so a struct gs_proc stays small (a snapshot holds hundreds) and any
 * copy of one stays readable against the arena it came with. */
struct gs_text {
    char *buf;
    uint32_t len, cap;
};

struct gs_proc {
    uint32_t valid;                /* bit (1 << GS_P_x) */
    uint32_t pid;                  /* host PID as the driver reports it */
    uint32_t type;                 /* enum gs_proc_type bits (deduplicated across lists) */
    uint32_t gpu_instance_id;      /* MIG GI, or UINT32_MAX */
    uint32_t compute_instance_id;  /* MIG CI, or UINT32_MAX */
    uint64_t gpu_mem_bytes;
    uint32_t sm_util_pct, mem_util_pct, enc_util_pct, dec_util_pct;
    uint8_t host_vis;              /* enum gs_host_vis */
    uint32_t uid;
    char user[33];
    char comm[17];                 /* /proc/PID/comm */
    uint32_t cmd_off, cmd_len;     /* the command line (NUL-separated args joined with spaces,
                                    * truncated to GS_CMDLINE_MAX - 1 bytes) in the GPU's text
                                    * arena; cmd_len 0: none. Read it with gs_proc_cmdline(). */
    double cpu_pct;                /* 100 = one full core */
    uint64_t rss_bytes;
    int64_t start_time;            /* seconds since the epoch */
    uint64_t age_s;
    uint32_t ppid, pgid;
    char container_id[72];         /* 64-hex docker/containerd/cri-o id, or "" */
    char container_runtime[16];    /* "docker", "containerd", "cri-o", "podman", "" */
    char pod_uid[40];              /* Kubernetes pod UID (dashes), or "" */
    char name[96];                 /* process name as the driver sees it (nvmlSystemGetProcessName):
                                    * nvidia-smi's process_name; known even when /proc cannot see the PID */
    /* New members go at the end of their area's group (see enum gs_pfield). */
    /* -- query fidelity -- */
    uint64_t cpu_time_ns;          /* user + system CPU time since start */
    uint32_t cmd_sep_bytes;        /* bytes of argv-boundary bits after the command line's NUL in
                                    * the arena (gs_proc_cmdline_sep(); the rest read as 0) */
    uint32_t name_off, name_len;   /* the whole driver name, when longer than name[]: in the GPU's
                                    * text arena (gs_proc_name() picks the right one) */
    /* -- MIG and pods -- */
    uint32_t mig_index;            /* with GS_P_MIG: position in gs_gpu.mig[], UINT32_MAX if not listed */
    /* -- framework memory (PyTorch allocator) -- */
    uint8_t pyhook_state;          /* enum gs_pyhook_state (core/pyhook.h): why torch_* are there or not */
    uint32_t pyhook_age_ms;        /* how old the hook's answer is (it is cached between ticks) */
    uint64_t torch_allocated_bytes;      /* live tensors */
    uint64_t torch_reserved_bytes;       /* held by the caching allocator: allocated + its cache */
    uint64_t torch_inactive_split_bytes; /* cache in split blocks that large requests cannot use */
    uint64_t torch_max_allocated_bytes;  /* peak of allocated (since start or reset_peak_memory_stats) */
    uint64_t torch_max_reserved_bytes;
    uint64_t torch_alloc_retries;        /* cudaMalloc failed, the cache was freed, and retried */
    uint64_t torch_ooms;                 /* out-of-memory errors the allocator raised */
    char torch_alloc_conf[96];           /* PYTORCH_CUDA_ALLOC_CONF in the process ("" unset) */
    /* -- other vendors (DRM fdinfo) -- */
    uint16_t engine_util_pct[GS_MAX_ENGINES];
    uint64_t gtt_mem_bytes;
    uint32_t drm_clients;
    /* -- HPC jobs -- */
    uint32_t slurm_job;            /* Slurm job ID from the cgroup path, 0: none */
    char slurm_step[24];           /* its step: "0", "batch", "extern", "interactive", or "" */
};

static inline bool gs_proc_has(const struct gs_proc *p, enum gs_pfield f)
{
    return p->valid & (UINT32_C(1) << f);
}

static inline void gs_proc_set(struct gs_proc *p, enum gs_pfield f)
{
    p->valid |= UINT32_C(1) << f;
}

/* p's command line from arena t (the one of the GPU p is listed on), "" when it has none. */
const char *gs_proc_cmdline(const struct gs_text *t, const struct gs_proc *p);
/* Is byte i of p's command line the space that joined two arguments? */
bool gs_proc_cmdline_sep(const struct gs_text *t, const struct gs_proc *p, size_t i);
/* Keep cmd (len bytes, len < GS_CMDLINE_MAX, no NUL) and its nsep bytes of argv-boundary
 * bits as p's command line in t; len 0 clears it. 0, or -1 when out of memory: p then has
 * none, and GS_P_COMM (which the command line's validity goes with) is cleared, so that
 * no output shows an empty command line as a reading. */
int gs_proc_set_cmdline(struct gs_text *t, struct gs_proc *p, const char *cmd, size_t len,
                        const uint8_t *sep, size_t nsep);
/* Free t's buffer. */
void gs_text_release(struct gs_text *t);

#endif /* GS_MODEL_PROC_H */
