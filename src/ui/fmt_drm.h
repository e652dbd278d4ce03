/* SPDX-License-Identifier: MIT */
/*
 * fmt_drm.h - what `gpuscope top` shows of AMD and Intel GPUs beyond NVML's
 * fields, as short text (no curses here): junction and memory temperatures,
 * busy engine classes, Intel's requested clock and RC6, AMD's GTT, RAS.
 */
#ifndef GS_UI_FMT_DRM_H
#define GS_UI_FMT_DRM_H

#include "core/model.h"

/* "J84C/110C M70C" (junction with its critical limit, memory); "" if neither. */
const char *gs_fmt_drm_temps(const struct gs_static *st, const struct gs_sample *s, char *buf, unsigned len);
/* "gfx 20% compute 40%": the busy engine classes, "engines idle" when none is;
 * "" when not known (the first tick). */
const char *gs_fmt_drm_engines(const struct gs_static *st, const struct gs_sample *s, char *buf, unsigned len);
/* Intel: "req 1300MHz RC6 25%"; AMD: "GTT 310M/16G"; "" if none. */
const char *gs_fmt_drm_extra(const struct gs_static *st, const struct gs_sample *s, char *buf, unsigned len);
/* "RAS 1 UE" when uncorrectable RAS errors or retired pages exist; "" otherwise. */
const char *gs_fmt_drm_ras(const struct gs_sample *s, char *buf, unsigned len);

#endif /* GS_UI_FMT_DRM_H */
