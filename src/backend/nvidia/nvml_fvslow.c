/* SPDX-License-Identifier: MIT */
/*
 * nvml_fvslow.c - the slow counters of one tick in one nvmlDeviceGetFieldValues
 * call: ECC mode (fields 1, 2) and totals (3-6), retired pages (29-31), the PCIe
 * replay counter (94), remapped rows (142-145) and the power limits (192, the
 * requested limit nvmlDeviceGetPowerManagementLimit answers; 190, the enforced one
 * of nvmlDeviceGetEnforcedPowerLimit), instead of twelve calls of their own (the
 * readers of nvml_read_ecc.c, nvml_read_link.c and the power limits ask here first).
 *
 * The batch is made at the first of those readers a tick calls (they are on the
 * read schedule, so that is every few seconds) and holds every such field the
 * tick wants. A field the driver answers with anything but SUCCESS in its entry
 * (older drivers, a GPU without the feature, ECC off) is refused for good: its
 * reader uses its own function from then on, which answers as it always did, so
 * statuses and values are those of the per-function path. A whole call that
 * fails (other than GPU_IS_LOST) refuses every field it carried.
 */
#include <string.h>

#include "backend/nvidia/nvml_priv.h"

static const struct {
    uint8_t field;  /* enum gs_field: the reader's field that wants it */
    unsigned id;    /* NVML_FI_* */
} nvml_fvs_map[NVML_FVS__N] = {
    [NVML_FVS_ECC_CUR] = { GS_F_ECC_MODE, 1 },        [NVML_FVS_ECC_PEND] = { GS_F_ECC_MODE, 2 },
    [NVML_FVS_SBE_VOL] = { GS_F_ECC_VOL_CORR, 3 },    [NVML_FVS_DBE_VOL] = { GS_F_ECC_VOL_UNCORR, 4 },
    [NVML_FVS_SBE_AGG] = { GS_F_ECC_AGG_CORR, 5 },    [NVML_FVS_DBE_AGG] = { GS_F_ECC_AGG_UNCORR, 6 },
    [NVML_FVS_RET_SBE] = { GS_F_RETIRED_SBE, 29 },    [NVML_FVS_RET_DBE] = { GS_F_RETIRED_DBE, 30 },
    [NVML_FVS_RET_PEND] = { GS_F_RETIRED_PENDING, 31 }, [NVML_FVS_REPLAY] = { GS_F_PCIE_REPLAY, 94 },
    [NVML_FVS_REMAP_COR] = { GS_F_REMAP_CORR, 142 },  [NVML_FVS_REMAP_UNC] = { GS_F_REMAP_CORR, 143 },
    [NVML_FVS_REMAP_PEND] = { GS_F_REMAP_CORR, 144 }, [NVML_FVS_REMAP_FAIL] = { GS_F_REMAP_CORR, 145 },
    [NVML_FVS_PWR_LIMIT] = { GS_F_POWER_LIMIT, NVML_FI_DEV_POWER_REQUESTED_LIMIT },
    [NVML_FVS_PWR_ENFORCED] = { GS_F_POWER_ENFORCED, NVML_FI_DEV_POWER_CURRENT_LIMIT },
};

static uint64_t nvml_fvs_value(const nvmlFieldValue_t *fv)
{
    switch (fv->valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT:
        return fv->value.uiVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
        return fv->value.siVal > 0 ? (uint64_t)fv->value.siVal : 0;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG:
        return fv->value.sllVal > 0 ? (uint64_t)fv->value.sllVal : 0;
    case NVML_VALUE_TYPE_DOUBLE:
        return fv->value.dVal > 0 ? (uint64_t)(fv->value.dVal + 0.5) : 0;
    default:
        return fv->value.ullVal;
    }
}

static void nvml_fvs_fetch(struct nvml_device *d, const struct nvml_fns *f, struct nvml_fvs_batch *b,
                           struct gs_fmask want)
{
    unsigned n = 0;

    b->done = true;
    b->r = NVML_ERROR_NOT_SUPPORTED;
    memset(b->at, 0, sizeof(b->at));
    if (!f->field_values)
        return;
    for (unsigned k = 0; k < NVML_FVS__N; k++) {
        if ((d->fvs_refused >> k) & 1u || !gs_fmask_has(want, nvml_fvs_map[k].field))
            continue;
        memset(&b->fv[n], 0, sizeof(b->fv[n]));
        b->fv[n].fieldId = nvml_fvs_map[k].id;
        b->at[k] = (uint8_t)++n;
    }
    if (!n)
        return;
    b->r = f->field_values(d->handle, (int)n, b->fv);
    if (b->r == NVML_SUCCESS || b->r == NVML_ERROR_GPU_IS_LOST)
        return;
    for (unsigned k = 0; k < NVML_FVS__N; k++)
        if (b->at[k])
            d->fvs_refused |= 1u << k;
}

bool gs_nvml_fvs_get(struct nvml_device *d, const struct nvml_fns *f, struct nvml_fvs_batch *b,
                     struct gs_fmask want, enum nvml_fvs k, uint64_t *v)
{
    if (!b->done)
        nvml_fvs_fetch(d, f, b, want);
    if (b->r != NVML_SUCCESS || !b->at[k])
        return false;
    const nvmlFieldValue_t *fv = &b->fv[b->at[k] - 1];
    if (fv->nvmlReturn != NVML_SUCCESS) {
        d->fvs_refused |= 1u << k;
        return false;
    }
    *v = nvml_fvs_value(fv);
    return true;
}
