/* SPDX-License-Identifier: MIT */
/*
 * xid_catalog.c - what an Xid means and what to do about it: NVIDIA's catalog
 * mnemonics, the old listing's cause classes (HW hardware, DRV driver, APP
 * user application, SYS system memory, BUS, THM thermal, FB framebuffer), our
 * severity and the operator action (reference health.md 1.4, in our words).
 * Unknown codes are warnings with "consult the catalog": the list keeps growing.
 */
#include "health/health.h"

#include <stdio.h>

#define I GS_SEV_INFO
#define W GS_SEV_WARNING
#define C GS_SEV_CRITICAL

static const struct gs_xid_info catalog[] = {
    { 8, "FIFO_ERROR_IDLE_TIMEOUT", "GPU stopped processing", "the GPU stopped processing", "DRV APP BUS THM", W,
      "restart the application; if it recurs on this GPU across applications, check PCIe and thermals" },
    { 13, "GR_EXCEPTION", "app error (graphics exception)", "graphics engine exception (illegal address or instruction in a kernel)",
      "HW DRV APP SYS BUS THM FB", W,
      "almost always the application: debug it with compute-sanitizer or cuda-gdb; if this GPU repeats it "
      "with different applications, run DCGM diagnostics" },
    { 31, "MMU_ERR_FLT", "app error (memory page fault)", "GPU memory page fault (illegal memory access)", "HW DRV APP", W,
      "debug the application's memory accesses; suspect the GPU only if it persists across applications" },
    { 32, "PBDMA_ERROR", "bad push buffer (PCIe?)", "invalid or corrupted push-buffer stream from the host", "DRV SYS BUS THM FB", W,
      "often PCIe signal quality: check the PCIe replay counter and AER errors; if repeated, reboot and "
      "inspect the slot or riser" },
    { 38, "FECS_ERR_WATCHDOG_TIMEOUT", "driver firmware error", "driver firmware error", "DRV", W,
      "log it; contact support if it recurs" },
    { 43, "RESETCHANNEL_VERIF_ERROR", "app error (channel reset)", "an application hit a software fault and its channel was reset",
      "DRV APP", I, "no GPU action; usually follows Xid 13 or 31 of the same application" },
    { 45, "PREEMPTIVE_REMOVAL", "channels cleaned up", "the driver tore down an application's channels (kill, Ctrl-C, or after "
      "another Xid)", "DRV APP", I,
      "act on the companion Xid; alone on an NVSwitch system, check that Fabric Manager is running" },
    { 46, "GPU_TIMEOUT_ERROR", "GPU timeout", "the GPU stopped processing", "DRV", C,
      "drain the GPU and reset it; service it if this recurs" },
    { 48, "GPU_ECC_DBE", "double-bit ECC error", "double-bit (uncorrectable) ECC error", "HW", C,
      "the application received the error; reset the GPU (or reboot); if followed by Xid 63/64 drain and "
      "reset, if not run field diagnostics; counts toward RMA" },
    { 56, "DISPLAY_CHANNEL_EXCEPTION", "display engine error", "display engine error", "HW DRV", I,
      "irrelevant on a headless compute GPU" },
    { 57, "FB_LINK_TRAINING_FAILURE", "error programming the video memory interface", "error programming the video memory interface", "HW DRV FB", W,
      "pre-Ampere memory-interface problem: run field diagnostics" },
    { 61, "PMU_BREAKPOINT", "internal micro-controller breakpoint", "internal micro-controller breakpoint or warning", "", C,
      "reset the GPU and report the issue" },
    { 62, "PMU_HALT_ERROR", "micro-controller halted", "internal micro-controller halt", "HW DRV THM", C,
      "drain and reset the GPU; if it recurs after the reset, suspect the hardware" },
    { 63, "INFOROM_DRAM_RETIREMENT_EVENT", "row remap recorded (reset pending)", "a row remap (Ampere+) or page retirement was recorded; it takes "
      "effect at the next GPU reset", "HW DRV FB", I,
      "applications may keep running; reset the GPU when convenient (legacy GPUs: reload the driver); with a "
      "preceding Xid 48 drain and reset" },
    { 64, "INFOROM_DRAM_RETIREMENT_FAILURE", "row remap failed", "recording a row remap or page retirement failed", "HW DRV", C,
      "reboot the node now; if errors continue drain it and start the RMA path" },
    { 68, "NVDEC0_ERROR", "NVDEC0 exception", "video decoder exception", "HW DRV APP", W,
      "restart the video-decode application; contact support if it recurs" },
    { 69, "GR_CLASS_ERROR", "graphics engine class error", "graphics engine class error", "HW DRV", W,
      "restart the application; if it repeats, reboot and inspect" },
    { 73, "NVENC2_ERROR", "NVENC2 error", "video encoder error", "HW DRV", W, "encoder workloads only; restart them" },
    { 74, "NVLINK_ERROR", "NVLink error", "NVLink error", "HW DRV BUS", C,
      "reset the GPU or reboot the node; the failing part may be the remote end: correlate with the other "
      "GPUs' Xid 74 and inspect `nvidia-smi nvlink` error counters" },
    { 79, "GPU_HAS_FALLEN_OFF_THE_BUS", "fell off the bus", "the driver cannot reach the GPU over PCIe any more",
      "HW DRV SYS BUS THM", C,
      "drain the node and reboot or power-cycle it (a GPU reset is impossible); read the kernel's PCIe/AER "
      "messages and the BMC event log (power, thermal); reseat or swap the riser or slot; RMA if it repeats" },
    { 92, "EXCESSIVE_SBE_INTERRUPTS", "high single-bit ECC rate", "high single-bit ECC error rate", "HW DRV", W,
      "run field diagnostics; watch the corrected-error and row-remap counts" },
    { 94, "CONTAINED_ERROR", "contained ECC error", "contained uncorrectable memory error: only the application that touched it is "
      "affected", "HW DRV FB", W,
      "restart that application; reset the GPU when convenient so the row remap (Xid 63) takes effect" },
    { 95, "UNCONTAINED_ERROR", "uncontained ECC error", "uncontained uncorrectable memory error: every application on the GPU is "
      "affected", "HW DRV FB", C,
      "without MIG reboot the node now; with MIG drain the other instances, then reset the GPU" },
    { 109, "CTXSW_TIMEOUT_ERROR", "context switch timeout", "context switch timeout", "HW DRV APP SYS BUS THM FB", W,
      "restart the application; if it repeats reset the GPU (NVIDIA's device plugin treats it as an "
      "application error)" },
    { 119, "GSP_RPC_TIMEOUT", "GSP firmware timeout", "the GSP firmware did not answer an RPC", "HW DRV SYS BUS THM FB", C,
      "reset the GPU (often only a reboot recovers); check for known driver bugs and upgrade; if it recurs "
      "after a reboot suspect the hardware" },
    { 120, "GSP_ERROR", "GSP firmware error", "GSP firmware error", "HW DRV SYS BUS THM FB", C,
      "reset the GPU (often only a reboot recovers); upgrade the driver if it is a known bug" },
    { 121, "C2C_ERROR", "C2C link corrected errors", "corrected errors on the Grace-GPU NVLink-C2C link", "HW BUS", W,
      "no operational impact; reboot to retrain the link when convenient; vendor if recurring" },
    { 123, "SPI_PMU_RPC_WRITE_FAIL", "SPI PMU RPC write failure", "SPI PMU RPC write failure", "HW DRV", W,
      "reset the GPU and report the issue" },
    { 136, "ALI_TRAINING_FAIL", "NVLink link training failed", "NVLink link training failed", "HW", C,
      "reset the GPU; check the link's signal integrity" },
    { 137, "NVLINK_PRIV_ERR", "NVLink FLA privilege error", "NVLink FLA privilege error (illegal peer-to-peer access)", "APP", W,
      "usually an application bug in peer-to-peer access" },
    { 140, "UNRECOVERABLE_ECC_ERROR_ESCAPE", "unrecovered ECC error", "an uncorrectable memory error escaped page offlining / row "
      "remapping", "HW DRV FB", C, "reset the GPU; contact the vendor if it persists" },
    { 143, "GPU_INIT_ERROR", "GPU initialization error", "GPU initialization error", "HW DRV FB", C,
      "reset the GPU; if persistent, suspect the hardware" },
    { 144, "NVLINK_SAW_ERROR", "NVLink SAW error", "NVLink5 SAW error (decode the unit and sub-code)", "HW", W,
      "Fatal entries need a GPU reset; decode with NVIDIA's catalog" },
    { 145, "NVLINK_RLW_ERROR", "NVLink RLW error", "NVLink5 RLW error", "HW", W, "Fatal entries need a GPU reset" },
    { 146, "NVLINK_TLW_ERROR", "NVLink TLW error", "NVLink5 TLW error", "HW", W, "Fatal entries need a GPU reset" },
    { 147, "NVLINK_TREX_ERROR", "NVLink TREX error", "NVLink5 TREX error (not expected in production)", "SW", I,
      "log it" },
    { 148, "NVLINK_NVLPW_CTRL_ERROR", "NVLink NVLPW control error", "NVLink5 NVLPW control error (non-fatal)", "SW", I,
      "ignore, or contact support if frequent" },
    { 149, "NVLINK_NETIR_ERROR", "NVLink NETIR event", "NVLink5 NETIR event", "HW", W,
      "link-down events need a GPU reset; bit-error events: inspect the link and cables" },
    { 150, "NVLINK_MSE_ERROR", "NVLink MSE watchdog", "NVLink5 MSE watchdog (firmware)", "FW", C,
      "reset the GPU; contact support" },
    { 154, "GPU_RECOVERY_ACTION_CHANGED", "GPU recovery action changed", "the driver changed the GPU's required recovery action", "", W,
      "follow the action in the message (GPU reset, node reboot, drain and reset); it overrides other "
      "advice" },
    { 155, "NVLINK_SW_DEFINED_ERROR", "NVLink software-defined error", "NVLink software-defined error", "", C, "reset the GPU" },
    { 156, "RESOURCE_RETIREMENT_EVENT", "resource retirement event", "a resource was retired; reset pending", "", W,
      "reset the GPU when convenient" },
    { 157, "RESOURCE_RETIREMENT_FAILURE", "resource retirement failure", "resource retirement failed", "", W, "contact support" },
    { 158, "GPU_FATAL_TIMEOUT", "GPU fatal timeout", "GPU fatal timeout", "", C, "reset the GPU; contact support" },
};

const struct gs_xid_info *gs_xid_lookup(uint32_t xid)
{
    size_t lo = 0, hi = sizeof(catalog) / sizeof(catalog[0]);
    while (lo < hi) { /* sorted by code */
        size_t mid = (lo + hi) / 2;
        if (catalog[mid].xid == xid)
            return &catalog[mid];
        if (catalog[mid].xid < xid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void gs_xid_explain(uint32_t xid, void *fp)
{
    FILE *f = fp;
    const struct gs_xid_info *x = gs_xid_lookup(xid);
    if (!x) {
        fprintf(f, "Xid %u: not in gpuscope's catalog.\n  severity: warning (default for unknown codes)\n"
                   "  action:   consult NVIDIA's Xid catalog "
                   "(https://docs.nvidia.com/deploy/xid-errors/) and the lines around it in the kernel log\n",
                xid);
        return;
    }
    fprintf(f, "Xid %u: %s\n  meaning:  %s\n  causes:   %s\n  severity: %s\n  action:   %s\n", x->xid,
            x->mnemonic, x->meaning, *x->causes ? x->causes : "(not classified)",
            gs_sev_name((enum gs_sev)x->severity), x->action);
}
