/* SPDX-License-Identifier: MIT */
/*
 * prom_fams.c - the exporter's GPU families: those driven by the field tables of
 * format/prom_tables.c (DCGM's series once per pod label set), and the hand-written
 * ones: Xid, health findings, throttle reasons, fans, GPU health, reading ages and
 * GPU info.
 */
#include <stdio.h>
#include <string.h>

#include "core/vendor.h"
#include "serve/prom_render.h"

/* ---- 4. families ------------------------------------------------------------------------ */

/* A DCGM family's samples of one GPU: one per pod label set (none: one without pod
 * labels). With virtual GPUs, GPU_UTIL and FB_USED are dcgm-exporter's per-pod
 * values instead: the device's series without pod labels, then each pod's share
 * from its processes, where that can be told (prom_pods_known). */
static void prom_dcgm_samples(struct gs_prom *r, const struct gs_gpu *g, const struct prom_gpu_labels *l,
                              const struct prom_fam *f, double v, enum prom_fmt fmt)
{
    bool util = !strcmp(f->name, "DCGM_FI_DEV_GPU_UTIL"), mem = !strcmp(f->name, "DCGM_FI_DEV_FB_USED");
    if (!l->npl || (r->o.virtual_gpus && r->kube_map && (util || mem))) {
        gs_prom_fam_sample(r, f->name, &l->dcgm, NULL, v, fmt);
        if (!l->npl || !l->pod_values)
            return;
        for (unsigned k = 0; k < l->npl; k++)
            gs_prom_fam_sample(r, f->name, &l->dcgm, l->sfx.data + l->pl[k].off,
                               (double)gs_prom_pod_value(r, g, &l->pl[k], mem), PF_INT);
        return;
    }
    for (unsigned k = 0; k < l->npl; k++)
        gs_prom_fam_sample(r, f->name, &l->dcgm, l->sfx.data + l->pl[k].off, v, fmt);
}

/* A family read from a table row, over all GPUs; header only if some GPU has a value. */
static void prom_table_family(struct gs_prom *r, const struct gs_snapshot *snap,
                              const struct prom_desc *d, bool is_static, bool drm_only)
{
    bool started = false;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        const void *base;
        /* DCGM names stay NVIDIA's; AMD and Intel have the same readings under gpuscope_* */
        if ((d->fam.dcgm && gs_vendor_is_drm(&g->st)) || (drm_only && !gs_vendor_is_drm(&g->st)))
            continue;
        if (is_static) {
            if (!gs_static_has(&g->st, (enum gs_sfield)d->field))
                continue;
            base = &g->st;
        } else {
            if (d->fam.dcgm && g->state == GS_GPU_OK && gs_prom_mig_split(g)) { /* per GPU instance */
                bool have = gs_sample_has(&g->s, (enum gs_field)d->field);
                gs_prom_mig_family(r, r->mig, i, g, d, have,
                                   have ? gs_prom_raw(&g->s, d->off, d->num) * d->scale : 0, &started);
                continue;
            }
            if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, (enum gs_field)d->field))
                continue;
            base = &g->s;
        }
        if (!started)
            gs_prom_fam_header(r, &d->fam);
        started = true;
        double v = gs_prom_raw(base, d->off, d->num) * d->scale;
        if (d->fam.dcgm)
            prom_dcgm_samples(r, g, &r->gl[i], &d->fam, v, (enum prom_fmt)d->fmt);
        else
            gs_prom_fam_sample(r, d->fam.name, &r->gl[i].own, NULL, v, (enum prom_fmt)d->fmt);
    }
}

void gs_prom_render_tables(struct gs_prom *r, const struct gs_snapshot *snap)
{
    for (size_t t = 0; t < gs_prom_ntables; t++)
        for (size_t i = 0; i < gs_prom_tables[t].n; i++)
            prom_table_family(r, snap, &gs_prom_tables[t].v[i], gs_prom_tables[t].is_static,
                              gs_prom_tables[t].drm_only);
}

void gs_prom_out_dcgm(struct gs_prom *r, uint32_t i, const struct gs_gpu *g, const struct prom_fam *f, double v,
                      uint8_t fmt)
{
    prom_dcgm_samples(r, g, &r->gl[i], f, v, (enum prom_fmt)fmt);
}

/* The latest Xid on GPU index gpu in the tally (0 if none). */
static uint32_t prom_xid_last(const struct gs_prom_self *self, uint32_t gpu)
{
    uint64_t seq = 0;
    uint32_t xid = 0;
    for (uint32_t k = 0; k < self->nxids; k++)
        if (self->xids[k].gpu == gpu && self->xids[k].seq > seq) {
            seq = self->xids[k].seq;
            xid = self->xids[k].xid;
        }
    return xid;
}

/* DCGM's label order: base labels, then attributes sorted by name:
 * container, err_code, err_msg, namespace, pod. */
static void prom_xid_labels(struct gs_pbuf *b, const struct prom_gpu_labels *l, const struct prom_podlab *pl,
                            uint32_t xid)
{
    char code[16];
    gs_pbuf_reset(b);
    gs_pbuf_add(b, l->dcgm.data ? l->dcgm.data : "", l->dcgm.len);
    if (pl && pl->container)
        gs_prom_out_label(b, "container", pl->container);
    snprintf(code, sizeof(code), "%u", xid);
    gs_prom_out_label(b, "err_code", code);
    gs_prom_out_label(b, "err_msg", gs_prom_xid_text(xid));
    if (pl && pl->job)
        gs_prom_out_label(b, "hpc_job", pl->job);
    if (pl && pl->pod) {
        gs_prom_out_label(b, "namespace", pl->ns);
        gs_prom_out_label(b, "pod", pl->pod);
    }
    if (pl && pl->vgpu)
        gs_prom_out_label(b, "vgpu", pl->vgpu);
}

/* DCGM_FI_DEV_XID_ERRORS: the last Xid per GPU (0 before the first), as dcgm-exporter's gauge,
 * on every GPU whose events are watched, and on a lost GPU that had one. */
static void prom_xid_gauge(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    static const struct prom_fam f = { "DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.",
                                       PT_GAUGE, true, NULL };
    bool started = false;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        uint32_t last = prom_xid_last(self, g->st.index);
        bool watched = g->state == GS_GPU_OK && gs_sample_has(&g->s, GS_F_XID);
        if (watched && g->s.xid_count)
            last = g->s.xid_last; /* the sampler's tally sees every event, even dropped ones */
        if (!watched && !last)
            continue;
        if (!started)
            gs_prom_fam_header(r, &f);
        started = true;
        const struct prom_gpu_labels *l = &r->gl[i];
        for (unsigned k = 0; k < (l->npl ? l->npl : 1); k++) {
            prom_xid_labels(&r->tmp, l, l->npl ? &l->pl[k] : NULL, last);
            gs_prom_fam_sample(r, f.name, &r->tmp, NULL, last, PF_INT);
        }
    }
}

/* gpuscope_xid_errors_total{gpu,uuid,xid}: a counter per Xid code per GPU. */
static void prom_xid_counters(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    static const struct prom_fam f = { "gpuscope_xid_errors_total",
                                       "Xid events the driver reported since the exporter started, by Xid code.",
                                       PT_COUNTER, false, NULL };
    bool started = false;
    char extra[32];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        for (uint32_t k = 0; k < self->nxids; k++) {
            const struct gs_prom_xid *x = &self->xids[k];
            if (x->gpu != snap->gpus[i].st.index)
                continue;
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "xid=\"%u\"", x->xid);
            gs_prom_fam_sample(r, f.name, &r->gl[i].own, extra, (double)x->count, PF_INT);
        }
    }
}

/* gpuscope_health_finding{gpu,uuid,code,severity[,pid]} 1 per active finding of the health
 * engine, and gpuscope_health_findings{severity} counts (every severity, 0 included).
 * Labels carry no free text: the code set is fixed (Xid codes are numbers). */
static void prom_health(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    static const struct prom_fam one = { "gpuscope_health_finding",
                                         "An active finding of the health engine (value 1), as gpuscope doctor "
                                         "reports it: code, severity, GPU and process if any.",
                                         PT_GAUGE, false, NULL };
    static const struct prom_fam cnt = { "gpuscope_health_findings",
                                         "Active findings of the health engine, by severity.", PT_GAUGE, false,
                                         NULL };
    static const char *const sev[] = { "info", "warning", "critical" };
    uint32_t count[3] = { 0, 0, 0 };
    char extra[96];
    if (!self->health_on)
        return;
    for (uint32_t k = 0; k < self->nhealth; k++) {
        const struct gs_prom_health *h = &self->health[k];
        if (h->severity < 1 || h->severity > 3)
            continue;
        if (count[0] + count[1] + count[2] == 0)
            gs_prom_fam_header(r, &one);
        count[h->severity - 1]++;
        gs_pbuf_reset(&r->tmp);
        for (uint32_t i = 0; i < snap->ngpus && h->gpu >= 0; i++)
            if (snap->gpus[i].st.index == (uint32_t)h->gpu) {
                gs_pbuf_add(&r->tmp, r->gl[i].own.data, r->gl[i].own.len);
                break;
            }
        if (h->gpu >= 0 && !r->tmp.len)
            gs_prom_label_u(&r->tmp, "gpu", (unsigned long long)h->gpu);
        gs_prom_out_label(&r->tmp, "code", h->code);
        gs_prom_out_label(&r->tmp, "severity", sev[h->severity - 1]);
        if (h->pid)
            gs_prom_label_u(&r->tmp, "pid", h->pid);
        gs_prom_fam_sample(r, one.name, &r->tmp, NULL, 1, PF_INT);
    }
    gs_prom_fam_header(r, &cnt);
    for (int s = 0; s < 3; s++) {
        snprintf(extra, sizeof(extra), "severity=\"%s\"", sev[s]);
        gs_prom_fam_sample(r, cnt.name, NULL, extra, count[s], PF_INT);
    }
}

static void prom_throttle(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_throttle_reason_active",
                                       "Whether a clock event (throttle) reason is active (1) or not (0).",
                                       PT_GAUGE, false, NULL };
    bool started = false;
    char extra[64];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, GS_F_THROTTLE))
            continue;
        uint64_t supported = gs_static_has(&g->st, GS_S_THROTTLE_SUPPORTED) ? g->st.throttle_supported
                                                                              : ~UINT64_C(0);
        for (size_t t = 0; t < gs_prom_nthrottle_names; t++) {
            if (!(supported & gs_prom_throttle_names[t].bit))
                continue;
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "reason=\"%s\"", gs_prom_throttle_names[t].name);
            gs_prom_fam_sample(r, f.name, &r->gl[i].own, extra,
                               (g->s.throttle_reasons & gs_prom_throttle_names[t].bit) ? 1 : 0, PF_INT);
        }
    }
}

static void prom_fans(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_fan_speed_ratio",
                                       "Fan speed as a fraction of its maximum (may exceed 1: intended speed).",
                                       PT_GAUGE, false, "ratio" };
    bool started = false;
    char extra[32];
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK || !gs_sample_has(&g->s, GS_F_FAN_SPEED))
            continue;
        for (uint32_t fan = 0; fan < g->s.fan_count && fan < GS_MAX_FANS; fan++) {
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "fan=\"%u\"", fan);
            gs_prom_fam_sample(r, f.name, &r->gl[i].own, extra, g->s.fan_speed_pct[fan], PF_PCT);
        }
    }
}

/* gpuscope_gpu_up, gpuscope_gpu_info, gpuscope_gpu_unavailable_fields, gpuscope_gpu_processes */
static void prom_gpu_health(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam up = { "gpuscope_gpu_up",
                                        "Whether the GPU was read in the latest sample (0: lost or failing).",
                                        PT_GAUGE, false, NULL };
    static const struct prom_fam un = { "gpuscope_gpu_unavailable_fields",
                                        "Sample fields without a value in the latest sample, by reason.",
                                        PT_GAUGE, false, NULL };
    static const struct prom_fam np = { "gpuscope_gpu_processes",
                                        "Processes using the GPU in the latest sample.", PT_GAUGE, false,
                                        NULL };
    char extra[48];
    if (!snap->ngpus)
        return;
    gs_prom_fam_header(r, &up);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        gs_prom_fam_sample(r, up.name, &r->gl[i].own, NULL, snap->gpus[i].state == GS_GPU_OK, PF_INT);
    gs_prom_fam_header(r, &un);
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        for (size_t k = 0; k < gs_prom_nstatus_names; k++) {
            unsigned n = 0;
            for (unsigned f = 0; f < GS_F_COUNT; f++)
                n += g->s.status[f] == gs_prom_status_names[k].status;
            snprintf(extra, sizeof(extra), "status=\"%s\"", gs_prom_status_names[k].name);
            gs_prom_fam_sample(r, un.name, &r->gl[i].own, extra, n, PF_INT);
        }
    }
    gs_prom_fam_header(r, &np);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        if (snap->gpus[i].procs_status == GS_ST_OK)
            gs_prom_fam_sample(r, np.name, &r->gl[i].own, NULL, snap->gpus[i].nprocs, PF_INT);
}

/* gpuscope_reading_age_seconds{field_group}: how old, at the sample's time,
 * the readings handed on from an earlier tick are (the backend's read
 * schedule, the PCIe worker); 0 when read in this sample. One series per GPU
 * and group that has a value, so the set of series does not flicker. */
#define PROM_AGE_END 0xff
static void prom_reading_ages(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = {
        "gpuscope_reading_age_seconds",
        "Age at the sample's time of readings handed on from an earlier sample (slow-changing "
        "readings are read every 5 s), by field group; 0: read in this sample.",
        PT_GAUGE, false, "seconds" };
    static const struct {
        const char *name;
        uint8_t fields[8];
    } groups[] = {
        { "bar1", { GS_F_BAR1_TOTAL, GS_F_BAR1_USED, GS_F_BAR1_FREE, PROM_AGE_END } },
        { "fan", { GS_F_FAN_SPEED, PROM_AGE_END } },
        { "power_limits", { GS_F_POWER_LIMIT, GS_F_POWER_ENFORCED, PROM_AGE_END } },
        { "pcie_link", { GS_F_PCIE_GEN, GS_F_PCIE_WIDTH, PROM_AGE_END } },
        { "pcie_replay", { GS_F_PCIE_REPLAY, PROM_AGE_END } },
        { "pcie_throughput", { GS_F_PCIE_TX, GS_F_PCIE_RX, PROM_AGE_END } },
        { "ecc", { GS_F_ECC_MODE, GS_F_ECC_VOL_CORR, GS_F_ECC_VOL_UNCORR, GS_F_ECC_AGG_CORR,
                   GS_F_ECC_AGG_UNCORR, PROM_AGE_END } },
        { "retired_pages", { GS_F_RETIRED_SBE, GS_F_RETIRED_DBE, GS_F_RETIRED_PENDING, PROM_AGE_END } },
        { "remapped_rows", { GS_F_REMAP_CORR, GS_F_REMAP_UNCORR, GS_F_REMAP_PENDING, GS_F_REMAP_FAILED,
                             PROM_AGE_END } },
        { "modes", { GS_F_PERSISTENCE, GS_F_COMPUTE_MODE, GS_F_MIG_MODE, GS_F_DISPLAY_ACTIVE,
                     GS_F_DISPLAY_MODE, PROM_AGE_END } },
    };
    char extra[48];
    bool started = false;

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (g->state != GS_GPU_OK)
            continue;
        for (size_t k = 0; k < sizeof(groups) / sizeof(groups[0]); k++) {
            uint32_t age = 0;
            bool any = false;
            for (size_t j = 0; j < 8 && groups[k].fields[j] != PROM_AGE_END; j++) {
                enum gs_field fld = (enum gs_field)groups[k].fields[j];
                if (!gs_sample_has(&g->s, fld))
                    continue;
                any = true;
                if (gs_sample_age_ms(&g->s, fld) > age)
                    age = gs_sample_age_ms(&g->s, fld);
            }
            if (!any)
                continue;
            if (!started)
                gs_prom_fam_header(r, &f);
            started = true;
            snprintf(extra, sizeof(extra), "field_group=\"%s\"", groups[k].name);
            gs_prom_fam_sample(r, f.name, &r->gl[i].own, extra, age / 1000.0, PF_G);
        }
    }
}

static void prom_gpu_info(struct gs_prom *r, const struct gs_snapshot *snap)
{
    static const struct prom_fam f = { "gpuscope_gpu_info",
                                       "Identity of each GPU (value 1): name, PCI bus id, serial, VBIOS, architecture.",
                                       PT_INFO, false, NULL };
    struct gs_pbuf *b = &r->tmp;
    char cc[24] = "";
    if (!snap->ngpus)
        return;
    gs_prom_fam_header(r, &f);
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_static *st = &snap->gpus[i].st;
        gs_pbuf_reset(b);
        gs_prom_out_label(b, "name", st->name);
        gs_prom_out_label(b, "pci_bus_id", st->pci_bus_id);
        gs_prom_out_label(b, "serial", gs_static_has(st, GS_S_SERIAL) ? st->serial : "");
        gs_prom_out_label(b, "vbios", gs_static_has(st, GS_S_VBIOS) ? st->vbios : "");
        gs_prom_out_label(b, "architecture", gs_static_has(st, GS_S_ARCH) ? st->arch_name : "");
        cc[0] = '\0';
        if (gs_static_has(st, GS_S_CUDA_CC))
            snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
        gs_prom_out_label(b, "compute_capability", cc);
        gs_prom_fam_sample(r, f.name, &r->gl[i].own, b->data, 1, PF_INT);
    }
}

void gs_prom_render_gpu(struct gs_prom *r, const struct gs_snapshot *snap, const struct gs_prom_self *self)
{
    prom_xid_gauge(r, snap, self);
    prom_xid_counters(r, snap, self);
    prom_health(r, snap, self);
    prom_throttle(r, snap);
    prom_fans(r, snap);
    prom_gpu_health(r, snap);
    prom_reading_ages(r, snap);
    prom_gpu_info(r, snap);
}
