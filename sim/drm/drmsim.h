/* SPDX-License-Identifier: MIT */
/*
 * drmsim.h - gpuscope's DRM simulator: a scenario (sim/scenarios/NAME.drm,
 * docs/SIMULATOR.md "The DRM simulator") becomes a sysfs + procfs tree that
 * looks as amdgpu, i915 and xe lay theirs out, for GPUSCOPE_SYS_ROOT and
 * GPUSCOPE_PROC_ROOT. Values are expressions of the scenario time t (the
 * NVML simulator's expression language, sim/scenario_value.c); counters
 * (engine busy ns and cycles, energy, RC6 residency, CPU time) are their
 * integrals, so the tree moves as a machine would between two reads.
 *
 * The tree is rewritten in place (pwrite + ftruncate, never rename), so a
 * reader that keeps a file open sees the new value, as with sysfs.
 * <sys>/class/drm/.gpuscope-sim says "simulated", the scenario's name and
 * the instant the files describe, and how often the tree moves (0: never);
 * its seq is odd while a rewrite runs (under an exclusive flock).
 */
#ifndef GS_DRMSIM_H
#define GS_DRMSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"

#define DS_MAX_CARDS 16
#define DS_MAX_PROCS 1024
#define DS_MAX_CLIENTS 2048
#define DS_MAX_LEVELS 16
#define DS_MAX_RAS 8
#define DS_ENGINES 8

enum ds_driver { DS_AMDGPU, DS_I915, DS_XE };

/* Numeric card attributes (each an expression of t; NULL: the file is absent). */
enum ds_num {
    DN_BUSY, DN_MEM_BUSY, DN_VRAM_TOTAL, DN_VRAM_USED, DN_VIS_TOTAL, DN_VIS_USED, DN_GTT_TOTAL, DN_GTT_USED,
    DN_SCLK, DN_MCLK,
    DN_TEMP_EDGE, DN_TEMP_JUNCTION, DN_TEMP_MEM,
    DN_EDGE_CRIT, DN_EDGE_EMERG, DN_JUNCTION_CRIT, DN_JUNCTION_EMERG, DN_MEM_CRIT, DN_MEM_EMERG,
    DN_POWER, DN_POWER_CAP, DN_POWER_CAP_MIN, DN_POWER_CAP_MAX, DN_POWER_CAP_DEFAULT, DN_ENERGY_POWER,
    DN_FAN_RPM, DN_FAN_MIN, DN_FAN_MAX, DN_PWM, DN_VOLT,
    DN_PCIE_GEN, DN_PCIE_WIDTH, DN_PCIE_MAX_GEN, DN_PCIE_MAX_WIDTH,
    DN_THROTTLE, DN_RAS_UE, DN_RAS_CE, DN_BAD_PAGES, DN_SUSPENDED,
    DN_ACT_FREQ, DN_CUR_FREQ, DN_MIN_FREQ, DN_MAX_FREQ, DN_RP0, DN_RPN, DN_RC6,
    DN_LMEM_TOTAL,
    DN__COUNT
};

struct ds_card {
    bool defined;
    enum ds_driver drv;
    char pci[16];                          /* "0000:03:00.0" */
    unsigned vendor, device, sub_vendor, sub_device, revision;
    char *product_name, *unique_id, *vbios, *serial;  /* NULL: file absent ("" : empty file) */
    struct gs_scn_expr *num[DN__COUNT];
    unsigned sclk_levels[DS_MAX_LEVELS], nsclk;
    unsigned mclk_levels[DS_MAX_LEVELS], nmclk;
    unsigned metrics_format, metrics_content; /* 0: no gpu_metrics */
    char ras_blocks[DS_MAX_RAS][16];
    unsigned nras;
    double lost_at;                        /* the device leaves the bus at t (INFINITY: never) */
    int card_minor, render_minor;
    /* integrals, kept between writes */
    double energy_uj, rc6_ms;
};

struct ds_proc {
    unsigned pid, ppid, uid;
    char comm[16];
    char *cmdline;
    struct gs_scn_expr *cpu, *rss;         /* % of one core; bytes */
    double start, exit;
    double cpu_ticks;                      /* integral of cpu, in 1/100 s */
};

struct ds_client {
    unsigned pid;
    int card;
    int fd;                                /* its fd number in the process */
    unsigned long long id;                 /* drm-client-id */
    bool dup;                              /* a second fd to an earlier line's client (same id) */
    struct gs_scn_expr *eng[DS_ENGINES];   /* busy % per engine slot (the driver's order); NULL: idle */
    struct gs_scn_expr *dev_mem, *sys_mem; /* bytes */
    char *name;                            /* drm-client-name, NULL: none */
    double start, exit;
    double busy_ns[DS_ENGINES];            /* integrals */
};

struct ds_scn {
    char name[64];
    char kernel[64];
    struct gs_scn *arena;                  /* owns the expressions */
    struct ds_card cards[DS_MAX_CARDS];
    int ncards;
    struct ds_proc *procs;
    int nprocs;
    struct ds_client *clients;
    int nclients;
    double integrated_to;                  /* integrals are up to this t */
    unsigned interval_ms;                  /* how often the tree moves (0: written once) */
    char ids[8][128];                      /* lines for <root>/usr/share/libdrm/amdgpu.ids */
    int nids;
};

/* Parse a scenario file; 0, or -1 with err "<file>:<line>: <what>". */
int ds_parse_file(struct ds_scn *s, const char *path, char *err, size_t errlen);
int ds_parse_buf(struct ds_scn *s, const char *text, size_t len, const char *fname, char *err, size_t errlen);
void ds_free(struct ds_scn *s);

/* Write the whole tree under root for time t (seconds). 0 or -1 (errno). */
int ds_write(struct ds_scn *s, const char *root, double t);

/* Shared by the writers (drmsim_sys.c, drmsim_proc.c). */
double ds_eval(const struct gs_scn_expr *e, double t, unsigned salt);
/* Write text to root/rel in place (creating parent directories). */
int ds_put(const char *root, const char *rel, const char *text, size_t len);
int ds_putf(const char *root, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ds_link(const char *root, const char *rel, const char *target);
int ds_rmtree(const char *root, const char *rel);
/* Advance the integrals from s->integrated_to to t (restart from 0 when t went back). */
void ds_integrate(struct ds_scn *s, double t);
int ds_write_cards(struct ds_scn *s, const char *root, double t);
int ds_write_procs(struct ds_scn *s, const char *root, double t);

#endif /* GS_DRMSIM_H */
