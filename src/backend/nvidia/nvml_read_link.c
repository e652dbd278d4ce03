/* SPDX-License-Identifier: MIT */
/*
 * nvml_read_link.c - the readers of the GPU's links: the PCIe replay counter
 * (throughput: nvml_pcie.c), the NVLink count and per-link state, and the fabric.
 */
#include <string.h>

#include "backend/nvidia/nvml_tick.h"

void nvml_read_replay(struct nvml_tick *t, const struct nvml_reader *rd)
{
    uint64_t fv = 0;
    if (!nvml_fvs(t, NVML_FVS_REPLAY, &fv)) {
        nvml_read_uint(t, rd);
        return;
    }
    nvml_put(t, nvml_rd_mask(rd), NVML_SUCCESS, rd->what);
    nvml_put_u32(t, rd, (unsigned)fv);
}

void nvml_set_links(struct nvml_tick *t, const nvmlFieldValue_t *fv, nvmlReturn_t r)
{
    t->d->nvlinks = r == NVML_SUCCESS ? (uint32_t)nvml_fv_i64(fv) : 0;
    if (t->d->nvlinks > NVML_NVLINK_MAX_LINKS)
        t->d->nvlinks = NVML_NVLINK_MAX_LINKS;
    t->d->nvlink_known = r != NVML_ERROR_GPU_IS_LOST;
}

/* Every link's state in one field-values call (field 165, scopeId = link) instead of
 * one nvmlDeviceGetNvLinkState per link; true when it answered (*r: SUCCESS or
 * GPU_IS_LOST). A driver or GPU that refuses the field for any link (older
 * headers than CUDA 11.8, a GPU without it) gets the per-link calls from then on. */
static bool nvml_nvlink_state_fv(struct nvml_tick *t, nvmlReturn_t *r)
{
    nvmlFieldValue_t fv[NVML_NVLINK_MAX_LINKS];
    int n = (int)t->d->nvlinks;

    if (t->d->nvlink_state_fv_refused || !t->f->field_values)
        return false;
    memset(fv, 0, sizeof(fv));
    for (int lk = 0; lk < n; lk++) {
        fv[lk].fieldId = NVML_FI_DEV_NVLINK_GET_STATE;
        fv[lk].scopeId = (unsigned)lk;
    }
    *r = t->f->field_values(t->d->handle, n, fv);
    if (*r == NVML_ERROR_GPU_IS_LOST)
        return true;
    for (int lk = 0; lk < n && *r == NVML_SUCCESS; lk++)
        *r = fv[lk].nvmlReturn;
    if (*r != NVML_SUCCESS) {
        t->d->nvlink_state_fv_refused = true;
        return false;
    }
    for (int lk = 0; lk < n; lk++)
        if (nvml_fv_u64(&fv[lk]) != NVML_FEATURE_ENABLED)
            t->s->nvlink_down_mask |= UINT64_C(1) << lk;
    return true;
}

/* NVLink state per link (on the read schedule: links rarely change). The link
 * count comes with the field values, or from its own call when only the state is wanted. */
void nvml_read_nvlink(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlReturn_t r = NVML_SUCCESS;

    if (!t->d->nvlink_known && t->f->field_values) {
        nvmlFieldValue_t fv;
        memset(&fv, 0, sizeof(fv));
        fv.fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
        r = t->f->field_values(t->d->handle, 1, &fv);
        nvml_set_links(t, &fv, r == NVML_SUCCESS ? fv.nvmlReturn : r);
        if (r == NVML_ERROR_GPU_IS_LOST) {
            nvml_put(t, nvml_rd_mask(rd), r, rd->what);
            return;
        }
    }
    if (!t->d->nvlinks) {
        nvml_put(t, nvml_rd_mask(rd), NVML_ERROR_NOT_SUPPORTED, rd->what);
        return;
    }
    t->s->nvlink_count = t->d->nvlinks;
    t->s->nvlink_down_mask = 0;
    if (nvml_nvlink_state_fv(t, &r)) {
        nvml_put(t, nvml_rd_mask(rd), r, rd->what);
        return;
    }
    r = NVML_SUCCESS;
    for (uint32_t lk = 0; lk < t->d->nvlinks && r == NVML_SUCCESS; lk++) {
        nvmlEnableState_t on = NVML_FEATURE_DISABLED;
        r = t->f->nvlink_state(t->d->handle, lk, &on);
        if (r == NVML_SUCCESS && on != NVML_FEATURE_ENABLED)
            t->s->nvlink_down_mask |= UINT64_C(1) << lk;
    }
    nvml_put(t, nvml_rd_mask(rd), r, rd->what);
}

void nvml_read_fabric(struct nvml_tick *t, const struct nvml_reader *rd)
{
    nvmlGpuFabricInfo_v3_t fi;
    struct gs_sample *s = t->s;

    memset(&fi, 0, sizeof(fi));
    fi.version = nvmlGpuFabricInfo_v3;
    nvmlReturn_t r = t->f->fabric_info(t->d->handle, &fi);
    if (r == NVML_SUCCESS && fi.state == NVML_GPU_FABRIC_STATE_NOT_SUPPORTED)
        r = NVML_ERROR_NOT_SUPPORTED;
    if (!nvml_put(t, nvml_rd_mask(rd), r, rd->what))
        return;
    s->fabric_state = fi.state;
    s->fabric_status = (int32_t)fi.status;
    s->fabric_clique = fi.cliqueId;
    memcpy(s->fabric_cluster_uuid, fi.clusterUuid, sizeof(s->fabric_cluster_uuid));
    s->fabric_health_mask = fi.healthMask;
    s->fabric_health_summary = fi.healthSummary;
}
