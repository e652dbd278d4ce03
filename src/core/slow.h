/* SPDX-License-Identifier: MIT */
/*
 * slow.h - the worker thread that keeps slow fields fresh (GS_SLOW_THREAD).
 *
 * Why a thread: nvmlDeviceGetPcieThroughput measures over a 20 ms window, so
 * each call costs ~20 ms; TX + RX on 8 GPUs would add ~320 ms to every
 * snapshot. Caching alone would still stall one tick in N, and a rate from
 * counters (field values 197/198) needs R555+. So a worker calls the
 * backend's sample_slow() (else sample()) with only the slow fields, every interval, into its own
 * struct, and publishes the values under a mutex that is never held across
 * an NVML call. A snapshot copies the latest values in O(1) and says how old
 * they are (pcie_rate_age_ns). The backend's per-device state that both
 * threads touch (lost flag, not-supported cache) is atomic.
 *
 * A GPU whose backend gives the slow fields in its own tick (slow_free: NVML's
 * byte counters or GPM) stays in the worker only until that tick has a rate
 * (the first or second tick on a driver; never under a frozen simulator
 * clock): then the sampler retires it and the worker calls nothing more for it.
 */
#ifndef GS_SLOW_H
#define GS_SLOW_H

#include <stdint.h>

#include "core/backend.h"

struct gs_slow;

/* Start refreshing `fields` of devs[0..n) every interval_ms (first pass at once). */
int gs_slow_start(struct gs_slow **out, const struct gs_backend *be, struct gs_bdev *const *devs,
                  uint32_t n, struct gs_fmask fields, uint32_t interval_ms);
/* Copy the latest slow fields of device i into dst (status NOT_AVAILABLE
 * before the first refresh), with pcie_rate_age_ns relative to now_ns. */
void gs_slow_copy(struct gs_slow *sl, uint32_t i, struct gs_sample *dst, uint64_t now_ns);
/* Retire device i from the worker when retire is true (for good: it is not
 * refreshed any more, its values are not to be copied); true when it is retired. */
bool gs_slow_retire(struct gs_slow *sl, uint32_t i, bool retire);
/* Stop and join the worker; NULL is fine. */
void gs_slow_stop(struct gs_slow *sl);

#endif /* GS_SLOW_H */
