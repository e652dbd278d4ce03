/* SPDX-License-Identifier: MIT */
/*
 * hostproc_priv.h - what the host-facts files share (not a public API):
 *   hostproc.c        reading /proc per PID per tick, the public tick API
 *   hostproc_parse.c  text parsers: stat, statm, cgroup, status (Uid), cmdline, btime
 *   hostproc_cache.c  the per-handle caches: PID table, uid -> user name
 */
#ifndef GS_HOSTPROC_PRIV_H
#define GS_HOSTPROC_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/hostproc.h"

/* Host fields this module owns in struct gs_proc (the rest are NVML's). */
#define HP_HOST_MASK                                                                              \
    ((1u << GS_P_USER) | (1u << GS_P_COMM) | (1u << GS_P_CPU) | (1u << GS_P_RSS) |               \
     (1u << GS_P_START) | (1u << GS_P_PARENT) | (1u << GS_P_CONTAINER) | (1u << GS_P_POD) |             \
     (1u << GS_P_CPU_TIME) | (1u << GS_P_SLURM))

/* The host fields of one PID (struct gs_proc's names, hp_copy_host copies
 * them over): the command line at its length, not GS_CMDLINE_MAX. */
struct hp_host {
    uint32_t valid;          /* bits (1 << GS_P_x) of HP_HOST_MASK */
    uint8_t host_vis;        /* enum gs_host_vis */
    uint32_t uid;
    char user[33];
    char comm[17];
    char *cmdline;           /* malloc'd: the text, its NUL, then cmdline_sep; NULL = "" */
    uint32_t cmdline_len;    /* strlen(cmdline) */
    uint32_t cmdline_sep_bytes; /* bytes of argv-boundary bits after the text (the rest 0) */
    double cpu_pct;
    uint64_t rss_bytes;
    int64_t start_time;
    uint64_t age_s;
    uint32_t ppid, pgid;
    uint64_t cpu_time_ns;
    char container_id[72];
    char container_runtime[16];
    char pod_uid[40];
    uint32_t slurm_job;
    char slurm_step[24];
};

static inline void hp_set(struct hp_host *h, unsigned f) { h->valid |= 1u << f; }
static inline bool hp_has(const struct hp_host *h, unsigned f) { return h->valid & (1u << f); }

/* One PID we have seen: what was read this tick plus what carries over. */
struct hp_rec {
    uint32_t pid;
    uint64_t seen_tick;      /* hp->tick when host was last filled; 0 = never */
    int live_fd;             /* kept PID/statm (own namespace) or PID/stat (other procfs), or -1 */
    int dir_fd;              /* kept O_PATH PID directory after the first sight, or -1: the
                              * next tick opens statm through it (same process), then closes it */
    bool ever_visible;       /* read fine at least once (so a vanishing is "exited") */
    bool identity_known;     /* user/cmdline/container below belong to start_ticks */
    bool cpu_prev_ok;        /* prev_cpu_ns/prev_ns hold a reading */
    uint64_t start_ticks;    /* clock ticks after boot: with pid, the process identity */
    uint64_t stat_ns;        /* CLOCK_MONOTONIC when comm/ppid/pgid were last read */
    uint64_t prev_cpu_ns;    /* CPU time used by all threads at prev_ns */
    uint64_t prev_ns;        /* CLOCK_MONOTONIC of the previous CPU reading */
    uint64_t live_ns;        /* CLOCK_MONOTONIC of the latest CPU/RSS read (0: none yet) */
    uint64_t focus_gen;      /* == hp->focus_gen: in the current focus (read every tick) */
    struct hp_host host;     /* host fields and host_vis as of seen_tick */
};

struct hp_slot {
    uint32_t pid;
    struct hp_rec *rec;      /* NULL: empty slot */
};

struct hp_user {
    uint32_t uid;
    char name[33];
};

struct gs_hostproc {
    int root_fd;             /* O_PATH directory of the proc root, or -1 */
    bool is_procfs;          /* root is a real procfs: descriptors may be kept */
    bool own_ns;             /* ... of our own PID namespace: PIDs are ours to clock_gettime */
    int8_t pidfd_info;       /* ... and the kernel answers PIDFD_GET_INFO (Linux 6.13+):
                              * 1 yes, 0 no, -1 not asked yet (asked at the first use) */
    bool once;               /* one tick only (gs_hostproc_once): nothing kept for a next */
    uint32_t want;           /* host fields (1 << GS_P_x) to read; HP_HOST_MASK but in a one-shot */
    long clk_tck;            /* sysconf(_SC_CLK_TCK) */
    long page_bytes;         /* sysconf(_SC_PAGESIZE) */
    bool btime_ok;
    int64_t btime_s;         /* boot time, epoch seconds, from <root>/stat */
    uint64_t tick;           /* current tick number, starts at 1 */
    uint64_t now_ns;         /* CLOCK_MONOTONIC of the current tick */
    int64_t now_s;           /* wall clock of the current tick */
    struct hp_slot *slots;   /* nslots entries, a power of two */
    uint32_t nslots, nrecs;
    uint32_t kept_fds, max_kept_fds;
    bool focus_all;          /* every PID's CPU/RSS every tick (the default) */
    uint64_t focus_gen;      /* bumped by each gs_hostproc_focus() */
    struct hp_user *users;   /* uid -> name, grown as users appear (few) */
    uint32_t nusers;
    size_t users_cap;
};

/* ---- hostproc_parse.c ---- */
/* Copy a string into a fixed field, truncating (the fields are display text). */
void gs_hp_copy_str(char *dst, size_t cap, const char *src);
/* Control bytes (a process chooses its comm and argv) become '?'. */
void gs_hp_sanitize(char *s);
/* PID/statm ("size resident ...") -> resident pages; 0 or -1. */
int gs_hp_parse_statm_rss(const char *buf, size_t len, uint64_t *pages);
/* The real uid from PID/status ("Uid:\treal\teffective..."); 0 or -1. */
int gs_hp_parse_status_uid(const char *buf, size_t len, uint32_t *uid);
/* PID/cmdline (NUL-separated, n bytes in buf of at least n+1) -> h->cmdline, sanitized
 * (allocated at its length; "" when out of memory). */
void gs_hp_set_cmdline(struct hp_host *h, char *buf, size_t n);
/* Free the command line h holds (it is "" after). */
void gs_hp_clear_cmdline(struct hp_host *h);
/* Boot time ("btime N") from <root>/stat, reading it through fd; 0 or -1. */
int gs_hp_read_btime(int fd, int64_t *out);

/* ---- hostproc_cache.c ---- */
/* The record of pid, added (zeroed, no descriptors) when new; NULL when out of memory. */
struct hp_rec *gs_hp_lookup_add(struct gs_hostproc *hp, uint32_t pid);
/* Forget every record not seen in the current tick (closing what it kept). */
void gs_hp_evict_unseen(struct gs_hostproc *hp);
/* Forget every record (closing what it kept) and free the table. */
void gs_hp_table_free(struct gs_hostproc *hp);
/* Close the descriptors rec keeps. */
void gs_hp_drop_fds(struct gs_hostproc *hp, struct hp_rec *rec);
/* Name of uid (its number when the passwd database has none), cached per handle. */
void gs_hp_user_name(struct gs_hostproc *hp, uint32_t uid, char *name, size_t cap);

#endif /* GS_HOSTPROC_PRIV_H */
