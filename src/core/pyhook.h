/* SPDX-License-Identifier: MIT */
/*
 * pyhook.h - reading gpuscope's opt-in Python hook (python/hook/, protocol in
 * docs/PYHOOK.md): per hooked process a UNIX socket, RUNTIME/gpuscope/pyhook/
 * PID.sock, that answers "stats" (PyTorch's CUDA caching allocator per device)
 * and "stacks" (every thread's Python stack) with one line of JSON.
 *
 * The sampler asks every hooked GPU process for its stats without ever
 * waiting (GS_PYHOOK_ASYNC: non-blocking connect and send, the reply read
 * when it is there, at most once a second per process, cached with its age and
 * copied into each gs_proc), or within a bounded wait for one-shot commands
 * (GS_PYHOOK_INLINE, 250 ms for all processes together). A process without
 * the hook is looked for at most every 10 s, in the listing of its user's hook
 * directories that a snapshot makes once (checked, opened and read: no call per
 * process unless a PID.sock is listed).
 */
#ifndef GS_PYHOOK_H
#define GS_PYHOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/err.h"
#include "core/model.h"

enum gs_pyhook_mode {
    GS_PYHOOK_OFF = 0,     /* never look (the default) */
    GS_PYHOOK_INLINE,      /* one-shot commands: ask and wait, 250 ms at most per snapshot */
    GS_PYHOOK_ASYNC,       /* loops (top, serve, record, run, watch): never wait, cache */
};

/* gs_proc.pyhook_state (GS_P_PYHOOK set whenever the hook answered). */
enum gs_pyhook_state {
    GS_PYHOOK_ST_NONE = 0,    /* no hook found (or not looked for) */
    GS_PYHOOK_ST_NO_TORCH,    /* the hook answers; torch is not imported */
    GS_PYHOOK_ST_NO_CUDA,     /* torch is imported; CUDA is not initialized */
    GS_PYHOOK_ST_NO_DEVICE,   /* torch uses CUDA, but none of its devices is this GPU */
    GS_PYHOOK_ST_OK,          /* torch_* are this GPU's (GS_P_TORCH) */
    GS_PYHOOK_ST_ERROR,       /* a socket that refused, timed out or answered nonsense */
};
const char *gs_pyhook_state_name(enum gs_pyhook_state st);

/* ---- the protocol's answers (pyhook_parse.c; fuzz/fuzz_pyhook.c) ---------------------- */
#define GS_PYHOOK_MAX_DEVS 16
#define GS_PYHOOK_STATS_MAX (64 * 1024)     /* bytes a stats reply may have */
#define GS_PYHOOK_STACKS_MAX (1024 * 1024)  /* ... a stacks reply */

struct gs_torch_dev {
    int index;                  /* torch's device index (relative to CUDA_VISIBLE_DEVICES) */
    char uuid[96];              /* "GPU-..." when torch gives it (2.0+), else "" */
    char pci_bus_id[32];        /* "00000000:3B:00.0" when torch gives it (2.4+), else "" */
    char name[96];
    uint64_t allocated, reserved, inactive_split, max_allocated, max_reserved;
    uint64_t alloc_retries, ooms;
};

struct gs_pyhook_stats {
    uint32_t pid;
    uint64_t start_ticks;       /* /proc/PID/stat field 22: who this is */
    int64_t time_ms;            /* when the process answered (its clock) */
    char python[16];
    bool has_torch;
    char torch[32];             /* torch.__version__ */
    bool cuda_initialized;
    bool has_alloc_conf, has_cvd;
    char alloc_conf[96];        /* PYTORCH_CUDA_ALLOC_CONF */
    char cvd[128];              /* CUDA_VISIBLE_DEVICES */
    char error[128];            /* the hook's own error reading torch, "" if none */
    unsigned ndevs;
    struct gs_torch_dev devs[GS_PYHOOK_MAX_DEVS];
};

/* Parse a "stats" reply (one JSON object; a trailing newline is fine). 0, or -1
 * with why: not JSON, not this protocol, a field of the wrong type or range. */
int gs_pyhook_parse_stats(const char *buf, size_t len, struct gs_pyhook_stats *out, char *why, size_t whylen);
/* Format a "stacks" reply as text for people, one thread after another
 * ("Thread MainThread (native 4242):" then "  file:line in func" and the code line,
 * outermost first, as Python prints tracebacks). 0 or -1 with why; out is always
 * terminated. Returns the threads in *nthreads. */
int gs_pyhook_format_stacks(const char *buf, size_t len, char *out, size_t outlen, unsigned *nthreads,
                            char *why, size_t whylen);
/* Which of the devices is this GPU: by UUID, by PCI bus id, by the position in
 * CUDA_VISIBLE_DEVICES (indexes or UUIDs), else torch's index = NVML's index. NULL if none. */
const struct gs_torch_dev *gs_pyhook_device_for(const struct gs_pyhook_stats *s, const struct gs_static *gpu);
/* Copy s into p for GPU gpu (pyhook_state, torch_*, GS_P_PYHOOK/GS_P_TORCH). */
void gs_pyhook_apply(const struct gs_pyhook_stats *s, const struct gs_static *gpu, uint32_t age_ms,
                     struct gs_proc *p);

/* ---- talking to one process --------------------------------------------------------- */
/* The socket of pid for user uid, if one exists and looks right (a socket owned by
 * uid in a directory only uid can write): 0 and path, or -1. */
int gs_pyhook_path(uint32_t pid, uint32_t uid, char *path, size_t len);
/* Ask pid ("stats", "stacks", "hello") and wait up to timeout_ms for the whole
 * reply (malloc'ed, NUL-terminated, in *reply). The peer must be pid itself (its
 * credentials are checked). Errors say what to do (e.g. how to enable the hook). */
int gs_pyhook_request(uint32_t pid, uint32_t uid, const char *op, int timeout_ms, char **reply, size_t *len,
                      struct gs_err *err);
/* The hook's directory to put on PYTHONPATH ("" when not found). */
int gs_pyhook_python_dir(char *out, size_t len);

/* ---- the sampler's cache ---------------------------------------------------------------- */
struct gs_pyhook;
int gs_pyhook_open(struct gs_pyhook **out, enum gs_pyhook_mode mode);
void gs_pyhook_close(struct gs_pyhook *h);
/* One snapshot: ask the hooked processes that are due, read what has arrived (waiting
 * only in GS_PYHOOK_INLINE), and fill every gs_proc of snap from the cache. */
void gs_pyhook_snapshot(struct gs_pyhook *h, struct gs_snapshot *snap);

#endif /* GS_PYHOOK_H */
