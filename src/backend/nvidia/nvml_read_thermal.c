/* SPDX-License-Identifier: MIT */
/*
 * nvml_read_thermal.c - the readers of the GPU temperature, the margin to
 * the slowdown temperature and the fans (power is read by the generic readers
 * of nvml_read_util.c; memory temperature and energy by nvml_fvfast.c).
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"

/* TemperatureV when bound (signed value), else the legacy call; a library that
 * refuses our struct version gets the legacy call from then on. */
void nvml_read_temp(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;

    if (t->f->temperature_v && !t->d->temp_legacy) {
        nvmlTemperature_v1_t tv = { nvmlTemperature_v1, NVML_TEMPERATURE_GPU, 0 };
        r = t->f->temperature_v(t->d->handle, &tv);
        if (r == NVML_SUCCESS) {
            nvml_put(t, nvml_rd_mask(rd), r, rd->what);
            t->s->temp_gpu_c = tv.temperature;
            return;
        }
        if (r == NVML_ERROR_FUNCTION_NOT_FOUND || r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
            t->d->temp_legacy = true;
    }
    if (t->f->temperature && (r == NVML_ERROR_FUNCTION_NOT_FOUND ||
                              r == NVML_ERROR_ARGUMENT_VERSION_MISMATCH)) {
        unsigned v = 0;
        r = t->f->temperature(t->d->handle, NVML_TEMPERATURE_GPU, &v);
        if (r == NVML_SUCCESS)
            t->s->temp_gpu_c = (int32_t)v;
    }
    nvml_put(t, nvml_rd_mask(rd), r, rd->what);
}

/* Fans: per-fan _v2 calls when the fan count is known, else the one-fan call. */
void nvml_read_fans(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
    uint32_t n = 0;

    if (t->d->fan_count && t->f->fan_speed_v2) {
        for (; n < t->d->fan_count; n++) {
            r = t->f->fan_speed_v2(t->d->handle, n, &t->s->fan_speed_pct[n]);
            if (r != NVML_SUCCESS)
                break;
        }
        if (n > 0)
            r = NVML_SUCCESS;
    } else if (t->f->fan_speed) {
        r = t->f->fan_speed(t->d->handle, &t->s->fan_speed_pct[0]);
        n = r == NVML_SUCCESS;
    }
    t->s->fan_count = n;
    nvml_put(t, nvml_rd_mask(rd), r, rd->what);
}

void nvml_read_margin(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlMarginTemperature_v1_t m = { nvmlMarginTemperature_v1, 0 };

    if (nvml_put(t, nvml_rd_mask(rd), t->f->margin_temp(t->d->handle, &m), rd->what))
        t->s->temp_tlimit_c = m.marginTemperature;
}
