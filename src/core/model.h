/* SPDX-License-Identifier: MIT */
/*
 * model.h - gpuscope's vendor-neutral picture of a machine's GPUs.
 *
 * Three kinds of facts, kept apart as nvtop does:
 *   struct gs_static  - read once per GPU (identity, limits, thresholds);
 *   struct gs_sample  - one flat value per GPU per tick;
 *   struct gs_proc    - one per process on a GPU per tick, with host facts.
 * A struct gs_snapshot holds all of them for one instant of the whole machine;
 * it is what every command (query, top, record, serve, doctor) reads.
 *
 * Every reading is a value, "not supported", or an error, never a silent 0:
 * each field has a status byte (enum gs_status), and a bit in a `valid` mask
 * (struct gs_fmask, one bit per GS_F_* field) that is set exactly when the
 * status is GS_ST_OK. A zeroed struct therefore means "nothing supported",
 * which is what a missing NVML symbol should give.
 * Units live in the field names (_mib, _mw, _mhz, _pct, _c, _bytes, _kbps).
 *
 * The types live in one header per subject, all included here (include this one):
 *   core/model_sample.h    enum gs_status, the per-tick fields, struct gs_sample
 *   core/model_static.h    struct gs_static
 *   core/model_proc.h      struct gs_proc, struct gs_text
 *   core/model_snapshot.h  MIG devices, struct gs_gpu, events, struct gs_snapshot
 */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include "core/model_proc.h"
#include "core/model_sample.h"
#include "core/model_snapshot.h"
#include "core/model_static.h"

#endif /* GS_MODEL_H */
