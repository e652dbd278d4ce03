/* SPDX-License-Identifier: MIT */
/*
 * drm_priv.h - the DRM backend's insides, shared by its files: the context,
 * the per-GPU state (a struct gs_bdev inside), the table each kernel driver
 * fills (amdgpu.c, intel.c), and helpers every driver uses.
 *
 *   drm_backend.c   the gs_backend table: init, discovery, ticks, processes
 *   drm_discover.c  /sys/class/drm -> the cards of the drivers we read
 *   hwmon.c         the card's hwmon directory: temperatures, power, fan, voltage
 *   amdgpu.c        amdgpu's device attributes; amdgpu_metrics.c its gpu_metrics table
 *   intel.c         i915 and xe: GT frequencies, RC6, throttle reasons, lmem
 *   fdinfo.c        the fdinfo parser; clients.c the clients in /proc (lastpid.c:
 *                   whether /proc must be listed again)
 */
#ifndef GS_DRM_PRIV_H
#define GS_DRM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "core/backend.h"
#include "backend/drm/clients.h"
#include "backend/drm/fdinfo.h"

#define DRM_MAX_CARDS 16

struct drm_dev;

/* Kept files (one open, one pread per tick). A driver uses the ones it has. */
enum drm_file {
    DF_BUSY, DF_MEM_BUSY, DF_VRAM_USED, DF_VIS_USED, DF_GTT_USED, DF_SCLK, DF_MCLK, DF_METRICS,
    DF_LINK_SPEED, DF_LINK_WIDTH,
    DF_TEMP1, DF_TEMP2, DF_TEMP3, DF_POWER, DF_POWER_CAP, DF_ENERGY, DF_FAN, DF_PWM, DF_VOLT,
    DF_ACT_FREQ, DF_CUR_FREQ, DF_MIN_FREQ, DF_MAX_FREQ, DF_RC6, DF_THROTTLE, DF_LMEM_AVAIL,
    DF_RUNTIME_PM,                        /* device/power/runtime_status, opened at the first tick */
    DF__COUNT
};

/* What one kernel driver reads (the per-vendor half of the backend). */
struct drm_ops {
    const char *driver;                   /* "amdgpu", the driver symlink's name */
    const char *vendor;                   /* "AMD" */
    const struct gs_fdinfo_keys *keys;    /* its fdinfo table */
    /* Open the kept files; once, at discovery. */
    void (*open)(struct drm_dev *d);
    /* Identity and limits into st (pci fields and vendor are set already). */
    void (*read_static)(struct drm_dev *d, struct gs_static *st);
    /* One tick of the fields in want into g->s. */
    void (*sample)(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g);
};

struct drm_ctx;

#define DRM_MAX_RAS 24

/* amdgpu's RAS counters: read every few seconds (each read asks the firmware). */
struct drm_ras {
    int fd[DRM_MAX_RAS];                  /* ras/<block>_err_count */
    int nfd;
    int bad_pages_fd;                     /* ras/gpu_vram_bad_pages, -1 */
    uint64_t next_ns, read_ns;            /* when to read again; when read */
    int rc, bad_rc;                       /* the latest read's outcome */
    uint64_t ue, ce;
    uint32_t bad_pages;
};

/* The read schedule (drm_common.c): readings that change rarely (power cap,
 * PCIe link width), read at the first tick and once per period, handed on with
 * their age in between, as the NVML backend's schedule does. */
enum drm_kept_id { DK_POWER_CAP, DK_LINK_WIDTH, DK__COUNT };
struct drm_kept {
    bool have;                            /* false: read at the next tick */
    uint64_t read_ns;                     /* tick clock (ctx->now_ns) of the last good read */
    uint64_t value;
};

/* A rate from a counter: the previous reading and when it was taken. */
struct drm_rate {
    bool have, have_rate;
    uint64_t value, at_ns;
    double last;                          /* the latest rate, per second */
};

struct drm_dev {
    struct gs_bdev base;                  /* base.index: the card's place, by PCI address */
    struct drm_ctx *ctx;
    const struct drm_ops *ops;
    char card[16];                        /* "card0" */
    char bdf[16];                         /* "0000:03:00.0" */
    uint32_t pci_domain, pci_bus, pci_dev, pci_fn;
    uint32_t vendor_id, device_id, subsys_vendor, subsys_device, revision;
    int card_minor, render_minor;         /* -1 when absent */
    int card_fd;                          /* O_PATH <sys>/class/drm/cardN */
    int dev_fd;                           /* O_PATH cardN/device */
    int hwmon_fd;                         /* O_PATH device/hwmon/hwmonN, -1: none */
    int gt_fd;                            /* Intel: O_PATH of GT 0's directory, -1: none */
    int fd[DF__COUNT];                    /* kept files, -1: absent */
    int temp_fd[3];                       /* hwmon temperature inputs by role (edge/junction/mem), -1 */
    int drmc_slot;                        /* its slot in the clients scanner */
    bool lost;
    int64_t lost_since;
    bool asleep;                          /* runtime-suspended: not woken to be read */
    struct gs_static st;                  /* what read_static found (engines, limits) */
    struct drm_rate rc6, energy;          /* counters turned into rates */
    uint64_t throttle_supported;          /* driver throttle bits it has files for */
    uint64_t vram_total, vis_total, gtt_total; /* from read_static: totals do not change */
    bool has_vram_total, has_vis_total, has_gtt_total;
    bool discrete;
    struct drm_ras ras;
    struct drm_kept kept[DK__COUNT];      /* the read schedule's values */
    int lmem_total_rc;                    /* Intel: how the device-memory total read went */
};

struct drm_ctx {
    char sys_class[512];                  /* "<root>/sys/class/drm" */
    char proc_root[256];
    struct drm_dev devs[DRM_MAX_CARDS];
    struct gs_bdev *bdevs[DRM_MAX_CARDS];
    uint32_t ndev;
    bool discovered;
    struct gs_drmc *clients;              /* NULL until processes or engine fields are wanted */
    int clients_err;                      /* gs_drmc_open's error */
    uint64_t now_ns;                      /* this tick (virtual on the simulator): rates use it */
    uint64_t mono_ns;                     /* this tick on CLOCK_MONOTONIC: sample timestamps */
    int sim_fd;                           /* <sys>/class/drm/.gpuscope-sim: drmsim's clock, -1 */
    bool primed;                          /* rate counters have a first reading (drm_prime) */
    uint32_t sim_interval_ms;             /* how often drmsim moves its tree (0: a frozen tree) */
    uint64_t every_ns;                    /* the read schedule's period (GPUSCOPE_READ_PERIOD_MS; 0: every tick) */
    char sim_name[64];
    char kernel[80];                      /* uname -r: the drivers' version */
};

static inline struct drm_dev *drm_dev(struct gs_bdev *b)
{
    return container_of(b, struct drm_dev, base);
}

/* The drivers. */
extern const struct drm_ops gs_drm_amdgpu, gs_drm_i915, gs_drm_xe;

/* Discovery (drm_discover.c): fill ctx->devs from <sys>/class/drm. */
int gs_drm_discover_cards(struct drm_ctx *ctx, struct gs_err *err);

/* hwmon (hwmon.c): find and open the card's hwmon files into d->fd/temp_fd. */
void gs_drm_hwmon_open(struct drm_dev *d);
/* Thresholds into st: tempN_crit/emergency by role, power cap range, fan range. */
void gs_drm_hwmon_static(struct drm_dev *d, struct gs_static *st);
/* Temperatures, power, energy, fan, voltage into g->s. */
void gs_drm_hwmon_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g);

/* Mark f from a read's result: 0 -> OK, else the status the error means
 * (-ENOENT/-EOPNOTSUPP/-ENODATA: not supported; -EACCES/-EPERM: no
 * permission; -ENODEV: the GPU is gone; -EBUSY/-EAGAIN: not available; other:
 * error, with what in last_error). */
void gs_drm_mark(struct drm_dev *d, struct gs_gpu *g, enum gs_field f, int rc, const char *what);
/* Read kept file k as a number; -ENOENT when it is absent. */
int gs_drm_u64(struct drm_dev *d, enum drm_file k, uint64_t *v);
int gs_drm_i64(struct drm_dev *d, enum drm_file k, int64_t *v);
/* Open rel under dirfd into d->fd[k] (-1 when absent). */
void gs_drm_keep(struct drm_dev *d, enum drm_file k, int dirfd, const char *rel);
/* The read schedule: true when k's kept value is still due to be handed on
 * (into *v, with its age into *age_ms); false when it is to be read now. */
bool gs_drm_kept_reuse(struct drm_dev *d, enum drm_kept_id k, uint64_t *v, uint32_t *age_ms);
/* Keep what was just read for k (rc != 0: read again at the next tick). */
void gs_drm_kept_store(struct drm_dev *d, enum drm_kept_id k, uint64_t v, int rc);
/* The period from GPUSCOPE_READ_PERIOD_MS (0: every tick), default 5 s as NVML's. */
uint64_t gs_drm_every_ns(void);
/* A counter's rate per second since its previous reading (false on the first). */
bool gs_drm_rate(struct drm_rate *r, uint64_t value, uint64_t now_ns, double *per_s);
/* PCIe current link and max link from the PCI attributes. */
void gs_drm_pcie_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g);
void gs_drm_pcie_static(struct drm_dev *d, struct gs_static *st);
/* Engine busy of the GPU from its clients' fdinfo (scans /proc once per tick). */
void gs_drm_engines_sample(struct drm_dev *d, struct gs_fmask want, struct gs_gpu *g);
/* On drmsim's tree: hold its lock (drmsim does not rewrite the tree meanwhile)
 * and take the instant the tree describes as now; nothing on a real machine. */
void gs_drm_sim_hold(struct drm_ctx *ctx);
void gs_drm_sim_release(struct drm_ctx *ctx);
/* The scanner's view of this GPU after this tick's scan (NULL: not available). */
const struct gs_drmc_gpu *gs_drm_clients(struct drm_dev *d, int *err);

#endif /* GS_DRM_PRIV_H */
