/* SPDX-License-Identifier: MIT */
/*
 * checks_host.c - what the machine says beyond NVML: NVIDIA display/3D
 * devices on the PCI bus that NVML does not list (operators' `lspci -d 10de:`
 * against `nvidia-smi -L`), PCIe AER error counters from sysfs, and processes
 * holding /dev/nvidiaN open on a GPU that is busy or holds memory while NVML
 * lists no process (operators' `fuser -v /dev/nvidia*`). The caller feeds the
 * readings (gs_health_add_pci, gs_health_add_holders); docs/HEALTH.md.
 */
#include "health/health_priv.h"

#include <stdio.h>
#include <string.h>

static const struct hgpu *gpu_at_bdf(const struct gs_health *h, const struct gs_pci_dev *d)
{
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct gs_static *st = &h->gpus[i].st;
        if (h->gpus[i].seen && gs_static_has(st, GS_S_PCI) && st->pci_domain == d->domain &&
            st->pci_bus == d->bus && st->pci_device == d->device)
            return &h->gpus[i];
    }
    return NULL;
}

/* Only meaningful when NVML listed every GPU it can (no -i selection) and at
 * least answered: with NVML unusable the driver check says it all. */
static void check_missing(struct gs_health *h, struct gs_findings *out)
{
    if (h->open_failed || !h->have_snap)
        return;
    for (uint32_t k = 0; k < h->npci; k++) {
        const struct gs_pci_dev *d = &h->pci[k].last;
        if (d->function != 0 || gpu_at_bdf(h, d))
            continue;
        struct gs_finding *f = hf_new(out, GS_SEV_CRITICAL, GS_NO_GPU, 0, "gpu.missing_from_nvml",
                                      "PCI %s: an NVIDIA GPU on the bus that NVML does not list", d->bdf);
        f->value = h->ngpus;
        hf_set(f->evidence, sizeof(f->evidence), "sysfs lists %s (device 10de:%04x, class %06x); NVML lists %u GPUs, "
               "none at that address", d->bdf, d->device_id, d->class_code, h->ngpus);
        hf_set(f->cause, sizeof(f->cause), "the driver failed to initialise it (kernel log: RmInitAdapter failed, "
               "fallen off the bus), or it is excluded from the driver");
        hf_set(f->action, sizeof(f->action), "read the kernel log for this address; reboot; if it stays missing: "
               "reseat, check power cables and the riser; RMA on recurrence");
    }
}

static void aer_finding(struct gs_findings *out, enum gs_sev sev, const struct gs_pci_dev *d, int32_t gpu,
                        const char *code, const char *title, double value, const char *ev)
{
    char where[40];
    if (gpu != GS_NO_GPU)
        snprintf(where, sizeof(where), "GPU %d", gpu);
    else
        snprintf(where, sizeof(where), "PCI %s", d->bdf);
    struct gs_finding *f = hf_new(out, sev, gpu, 0, code, "%s: %s", where, title);
    f->value = value;
    hf_set(f->evidence, sizeof(f->evidence), "%s (sysfs aer_dev_* of %s)", ev, d->bdf);
    hf_set(f->cause, sizeof(f->cause), "PCIe link errors between the GPU and its slot: riser or cable, connector, "
           "slot, or the upstream switch/root port");
    hf_set(f->action, sizeof(f->action), "read the kernel log's AER lines for this address and its upstream port "
           "(the counters may grow there instead); reseat, then swap card and slot/riser");
}

/* AER: fatal or non-fatal errors since boot; correctable ones growing faster
 * than DCGM's allowance (480 in 15 minutes = 32/min) while we watched. */
static void check_aer(struct gs_health *h, struct gs_findings *out)
{
    double span_s = (double)(h->pci_last_ms - h->pci_first_ms) / 1000.0;
    char ev[200];
    for (uint32_t k = 0; k < h->npci; k++) {
        const struct gs_pci_dev *a = &h->pci[k].first, *b = &h->pci[k].last;
        const struct hgpu *g = gpu_at_bdf(h, b);
        int32_t gpu = g ? (int32_t)g->st.index : GS_NO_GPU;
        if (!b->has_aer)
            continue;
        if (b->aer_fatal || b->aer_nonfatal) {
            snprintf(ev, sizeof(ev), "%llu fatal and %llu non-fatal uncorrectable errors since boot",
                     (unsigned long long)b->aer_fatal, (unsigned long long)b->aer_nonfatal);
            aer_finding(out, b->aer_fatal ? GS_SEV_CRITICAL : GS_SEV_WARNING, b, gpu, "pcie.aer_uncorrectable",
                        "PCIe uncorrectable (AER) errors", (double)(b->aer_fatal + b->aer_nonfatal), ev);
        }
        if (a->has_aer && span_s >= 1 && b->aer_cor > a->aer_cor) {
            double per_min = (double)(b->aer_cor - a->aer_cor) / span_s * 60;
            if (per_min > h->cfg.aer_cor_per_min) {
                snprintf(ev, sizeof(ev), "%llu correctable errors in %.0f s (%.0f/min, allowed %.0f/min); %llu since "
                         "boot", (unsigned long long)(b->aer_cor - a->aer_cor), span_s, per_min,
                         h->cfg.aer_cor_per_min, (unsigned long long)b->aer_cor);
                aer_finding(out, GS_SEV_WARNING, b, gpu, "pcie.aer_correctable", "PCIe correctable (AER) errors "
                            "growing", per_min, ev);
            }
        }
    }
}

/* Monitoring and driver helpers hold /dev/nvidia* without a CUDA context. */
static bool is_nvml_client(const char *comm)
{
    static const char *const names[] = { "nvidia-persiste", "nvidia-smi", "nv-hostengine", "dcgm-exporter", "gpuscope",
                                         "nvtop", "gpustat", "nvitop", "nvidia-powerd", "nvidia-fabricma",
                                         "nvidia-gridd", NULL };
    for (int i = 0; names[i]; i++)
        if (!strcmp(comm, names[i]))
            return true;
    return false;
}

static void check_holders(struct gs_health *h, struct gs_findings *out)
{
    uint64_t minors;
    if (!h->nholders || !gs_health_holders_wanted(h, &minors))
        return;
    for (uint32_t i = 0; i < h->ngpus && i < HGPU_MAX; i++) {
        const struct hgpu *g = &h->gpus[i];
        if (!g->seen || !gs_static_has(&g->st, GS_S_MINOR_NUMBER) || g->st.minor_number >= 64 ||
            !((minors >> g->st.minor_number) & 1))
            continue;
        char list[300] = "";
        size_t used = 0;
        uint32_t n = 0, first = 0;
        for (uint32_t k = 0; k < h->nholders && used + 40 < sizeof(list); k++) {
            const struct gs_dev_holder *d = &h->holders[k];
            if (d->minor != g->st.minor_number || is_nvml_client(d->comm))
                continue;
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%u (%s)", n ? ", " : "", d->pid, d->comm);
            first = n++ ? first : d->pid;
        }
        if (!n)
            continue;
        const struct hsample *x = hg_at(h, g, g->count - 1);
        int32_t idx = (int32_t)g->st.index;
        struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, n == 1 ? first : 0, "proc.hidden_holder",
                                      "GPU %d: %u process%s hold /dev/nvidia%u, NVML lists none", idx, n,
                                      n == 1 ? "" : "es", g->st.minor_number);
        f->value = n;
        hf_set(f->evidence, sizeof(f->evidence), "holding /dev/nvidia%u open: %s; utilization %u%%, %u MiB used, "
               "NVML's process list is empty", g->st.minor_number, list, x->util_pct, x->mem_used_mib);
        hf_set(f->cause, sizeof(f->cause), "a process NVML cannot attribute: another PID namespace or container, a "
               "zombie or D-state process, or a context the driver lost track of");
        hf_set(f->action, sizeof(f->action), "inspect those processes (`fuser -v /dev/nvidia*`, their state and "
               "container); stop them; if the GPU stays busy with no holder, reset it");
    }
}

void hc_host(struct gs_health *h, struct gs_findings *out)
{
    if (h->pci_scanned) {
        check_missing(h, out);
        check_aer(h, out);
    }
    check_holders(h, out);
}
