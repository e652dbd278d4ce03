/* SPDX-License-Identifier: MIT */
/*
 * nvml_tick.h - what the files of one sample() tick share (not for the rest of
 * the backend): the tick, an entry of the reader table, the read schedule's
 * spans, and the readers the table names, by file:
 *
 *   nvml_sample.c        the tick: the reader table and what every reader uses
 *   nvml_sched.c         the read schedule: what is handed on, for how long
 *   nvml_read_util.c     utilization, memory, clocks, P-state, modes; the generic readers
 *   nvml_read_thermal.c  GPU and margin temperature, fans
 *   nvml_read_ecc.c      ECC, retired pages, remapped rows, SRAM ECC
 *   nvml_read_link.c     PCIe replays, NVLink state, fabric
 *   nvml_pcie.c          PCIe throughput: counters, GPM or the function
 *   nvml_fvfast.c        the tick's one field-values call (read every tick)
 *   nvml_fvslow.c        the slow counters' field-values call (nvml_priv.h)
 */
#ifndef GS_NVML_TICK_H
#define GS_NVML_TICK_H

#include <stddef.h>

#include "backend/nvidia/nvml_priv.h"

/* A reader's fields, as a list a static table can hold (a gs_fmask cannot be
 * built from several bits in a constant expression). */
#define GS_RD_MAXF 22
#define GS_F_END 0xff
#define FL(...) { __VA_ARGS__, GS_F_END }
#define NO_FN SIZE_MAX
#define FN(field) offsetof(struct nvml_fns, field)
#define DST(field) offsetof(struct gs_sample, field)

struct nvml_tick {
    struct nvml_device *d;
    const struct nvml_fns *f;
    struct gs_gpu *g;
    struct gs_sample *s;
    struct gs_fmask want;   /* the fields asked for in this tick */
    bool error;             /* some field got GS_ST_ERROR */
    bool power_done;        /* power came with the field-values call (nvml_fvfast.c) */
    struct nvml_fvs_batch fvs; /* the slow counters' field values (nvml_fvslow.c) */
    bool slow_fn;           /* the slow-field worker's tick: PCIe by its function (nvml_pcie.c) */
    bool pcie_fv_done;      /* fields 197/198 came with this tick's field-values call */
    nvmlReturn_t pcie_fv_r; /* ... the call's result */
    nvmlFieldValue_t pcie_fv[2]; /* ... their entries (TX, RX) */
};

/* What a slow-changing reader writes: bytes [off, off + len) of struct
 * gs_sample (each reader's values are adjacent members); see nvml_every[]. */
enum nvml_hold {
    NVML_HOLD_ALWAYS,       /* held between its periods */
    NVML_HOLD_WHILE_ZERO,   /* ... only while its last value was 0 (a u32), else read every tick */
    NVML_HOLD_WHILE_PSTATE, /* ... only while P-state and clock event reasons are as they were at
                             * its last read (both read earlier in the same tick) */
    NVML_HOLD_UNTIL_EVENT,  /* ... only while the GPU sends P-state events and none came */
};
struct nvml_span {
    uint16_t off, len;
    uint8_t periods; /* read every this many periods (0 = 1) */
    uint8_t hold;    /* enum nvml_hold */
};

struct nvml_reader {
    uint8_t fields[GS_RD_MAXF]; /* GS_F_* it fills, GS_F_END after the last */
    size_t fn, fn_alt;      /* offsets in struct nvml_fns; usable if either is bound */
    size_t dst;             /* generic readers: offset of the value in struct gs_sample */
    unsigned arg;           /* clock type, counter, cause ... */
    void (*read)(struct nvml_tick *t, const struct nvml_reader *rd);
    const char *what;       /* for error messages */
};

/* One tick's view of the schedule, set up at the first slow-changing reader
 * (so that the PCIe worker thread, which asks for none, never touches it). */
struct nvml_sched {
    bool started, due;
    uint64_t now_ns;
    struct gs_fmask force;
};

/* ---- nvml_sample.c: what every reader uses ---- */
/* The reader's fields as a mask. */
struct gs_fmask nvml_rd_mask(const struct nvml_reader *rd);
/* The function at offset off of struct nvml_fns (NULL: not bound, or off is NO_FN). */
void *nvml_fn(const struct nvml_fns *f, size_t off);
/* Mark the fields of one call with the result r; true when they hold values. */
bool nvml_put(struct nvml_tick *t, struct gs_fmask fields, nvmlReturn_t r, const char *what);
/* Store v at the reader's dst offset in the sample. */
void nvml_put_u32(struct nvml_tick *t, const struct nvml_reader *rd, unsigned v);
/* A slow counter from this tick's field-values batch; false: read it by its function. */
bool nvml_fvs(struct nvml_tick *t, enum nvml_fvs k, uint64_t *v);

/* ---- nvml_sched.c: the read schedule ---- */
/* The slow-changing readers, by the first field of their table entry (len 0: every tick). */
extern const struct nvml_span nvml_every[GS_F_COUNT];
/* Hand on a slow-changing reader's last values when they are not due; true when it did. */
bool nvml_sched_reuse(struct nvml_tick *t, const struct nvml_span *every,
                      struct gs_fmask fields, struct nvml_sched *sc);
/* Keep what a slow-changing reader just read. */
void nvml_sched_keep(struct nvml_tick *t, const struct nvml_span *every,
                     struct gs_fmask fields, const struct nvml_sched *sc);
/* The end of a tick: when the schedule is due next, and no reads forced any more. */
void nvml_sched_end(struct nvml_tick *t, const struct nvml_sched *sc);

/* ---- the readers (nvml_reader.read) ---- */
/* nvml_read_util.c */
void nvml_read_uint(struct nvml_tick *t, const struct nvml_reader *rd);
/* A u32 reading from the slow batch's field rd->arg (enum nvml_fvs), else by its function. */
void nvml_read_fvs_uint(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_enable(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_ull(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_clock(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_memory(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_bar1(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_util(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_codec(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_pstate(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_mig(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_enc_stats(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_prot_mem(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_app_clocks(struct nvml_tick *t, const struct nvml_reader *rd);
/* nvml_read_thermal.c */
void nvml_read_temp(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_fans(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_margin(struct nvml_tick *t, const struct nvml_reader *rd);
/* nvml_read_ecc.c */
void nvml_read_ecc_count(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_retired(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_retired_pending(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_ecc_mode(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_remap(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_ecc_detail(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_sram_ecc(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_remap_hist(struct nvml_tick *t, const struct nvml_reader *rd);
/* nvml_pcie.c: PCIe TX or RX (rd->arg) by the GPU's path */
void nvml_read_pcie_rate(struct nvml_tick *t, const struct nvml_reader *rd);
/* The counters go in this tick's field-values call; their entries are handed back by take. */
bool nvml_pcie_counters_wanted(const struct nvml_tick *t);
void nvml_pcie_fv_take(struct nvml_tick *t, const nvmlFieldValue_t fv[2], nvmlReturn_t r);
/* One reading of a byte counter of `bits` bits at ts_us (the entry's timestamp) into c:
 * NEW: c->rate_kbps is the rate since the last reading; HELD: the same timestamp again
 * (the driver has not refreshed it), the last rate stands; NONE: no rate (the first
 * reading, or the counter or clock went back: a GPU reset; a new baseline). A wrap at
 * the width is a rate; a delta faster than any PCIe link is a reset. */
enum nvml_pcie_step { NVML_PCIE_NONE, NVML_PCIE_HELD, NVML_PCIE_NEW };
enum nvml_pcie_step nvml_pcie_step(struct nvml_pcie_ctr *c, uint64_t bytes, unsigned bits, long long ts_us,
                                   uint64_t now_ns);
/* nvml_read_link.c */
void nvml_read_replay(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_nvlink(struct nvml_tick *t, const struct nvml_reader *rd);
void nvml_read_fabric(struct nvml_tick *t, const struct nvml_reader *rd);
/* nvml_fvfast.c */
void nvml_read_fv_fast(struct nvml_tick *t, const struct nvml_reader *rd);
/* Power by nvmlDeviceGetPowerUsage, unless this tick's field values gave it. */
void nvml_read_power(struct nvml_tick *t, const struct nvml_reader *rd);

/* The NVLink count from field 91's entry fv (r: its result) into d (nvml_read_link.c). */
void nvml_set_links(struct nvml_tick *t, const nvmlFieldValue_t *fv, nvmlReturn_t r);
/* A field value as a signed / an unsigned number, whatever type the driver chose (nvml_fvfast.c). */
int64_t nvml_fv_i64(const nvmlFieldValue_t *fv);
uint64_t nvml_fv_u64(const nvmlFieldValue_t *fv);

#endif /* GS_NVML_TICK_H */
