/* SPDX-License-Identifier: MIT */
/*
 * details.c - `gpuscope query --details`: everything the snapshot knows about
 * each GPU, grouped (identity, memory, utilization, clocks, power, thermal,
 * PCIe, ECC and remapping, throttle reasons in plain words, modes, processes).
 * The `nvidia-smi -q` of gpuscope. Values that are not values are spelled as
 * nvidia-smi does ([Not Supported], [N/A], ...).
 */
#include "format/format.h"
#include "version.h"

#include <string.h>
#include <time.h>

/* A formatted value: the text, or nvidia-smi's spelling of its status. */
struct val {
    char s[160];
};

/* gpuscope's own report keeps "not supported" apart from "no value now". */
static const char *details_status(enum gs_status st, unsigned major)
{
    return st == GS_ST_NOT_SUPPORTED ? "[Not Supported]" : gs_field_status_str(st, major);
}

static void kv(FILE *out, const char *label, const char *value)
{
    fprintf(out, "        %-30s: %s\n", label, value);
}

static void section(FILE *out, const char *title)
{
    fprintf(out, "    %s\n", title);
}

static const char *vnum(struct val *v, enum gs_status st, unsigned long long n, const char *unit)
{
    if (st != GS_ST_OK)
        return details_status(st, 0);
    snprintf(v->s, sizeof(v->s), "%llu%s%s", n, unit ? " " : "", unit ? unit : "");
    return v->s;
}

static const char *vint(struct val *v, enum gs_status st, long long n, const char *unit)
{
    if (st != GS_ST_OK)
        return details_status(st, 0);
    snprintf(v->s, sizeof(v->s), "%lld%s%s", n, unit ? " " : "", unit ? unit : "");
    return v->s;
}

static const char *vstr(enum gs_status st, const char *s)
{
    return st == GS_ST_OK ? s : details_status(st, 0);
}

static const char *vmib(struct val *v, enum gs_status st, uint64_t bytes)
{
    return vnum(v, st, bytes >> 20, "MiB");
}

static const char *vwatts(struct val *v, enum gs_status st, uint32_t mw)
{
    uint64_t centiw = ((uint64_t)mw + 5) / 10;

    if (st != GS_ST_OK)
        return details_status(st, 0);
    snprintf(v->s, sizeof(v->s), "%llu.%02u W", (unsigned long long)(centiw / 100), (unsigned)(centiw % 100));
    return v->s;
}

static const char *vflag(enum gs_status st, uint32_t on, const char *yes, const char *no)
{
    return st != GS_ST_OK ? details_status(st, 0) : on ? yes : no;
}

#define SST(f) ((enum gs_status)s->status[f])
#define TST(f) ((enum gs_status)st->status[f])

static void details_identity(FILE *out, const struct gs_gpu *g)
{
    const struct gs_static *st = &g->st;
    struct val v;
    char cc[24];

    section(out, "Identity");
    kv(out, "Name", vstr(TST(GS_S_NAME), st->name));
    kv(out, "UUID", vstr(TST(GS_S_UUID), st->uuid));
    kv(out, "Serial", vstr(TST(GS_S_SERIAL), st->serial));
    kv(out, "PCI bus id", vstr(TST(GS_S_PCI), st->pci_bus_id));
    snprintf(v.s, sizeof(v.s), "0x%08X (subsystem 0x%08X)", st->pci_device_id, st->pci_subsystem_id);
    kv(out, "PCI device id", vstr(TST(GS_S_PCI), v.s));
    snprintf(v.s, sizeof(v.s), "0x%X", st->board_id);
    kv(out, "Board id", vstr(TST(GS_S_BOARD_ID), v.s));
    kv(out, "VBIOS", vstr(TST(GS_S_VBIOS), st->vbios));
    kv(out, "Architecture", vstr(TST(GS_S_ARCH), st->arch_name[0] ? st->arch_name : gs_arch_name(st->arch)));
    snprintf(cc, sizeof(cc), "%d.%d", st->cc_major, st->cc_minor);
    kv(out, "Compute capability", vstr(TST(GS_S_CUDA_CC), cc));
    kv(out, "Minor number (/dev/nvidiaN)", vnum(&v, TST(GS_S_MINOR_NUMBER), st->minor_number, NULL));
}

static void details_memory_util(FILE *out, const struct gs_sample *s)
{
    struct val v;

    section(out, "Memory");
    kv(out, "Total", vmib(&v, SST(GS_F_MEM_TOTAL), s->mem_total_bytes));
    kv(out, "Used", vmib(&v, SST(GS_F_MEM_USED), s->mem_used_bytes));
    kv(out, "Free", vmib(&v, SST(GS_F_MEM_FREE), s->mem_free_bytes));
    kv(out, "Reserved", vmib(&v, SST(GS_F_MEM_RESERVED), s->mem_reserved_bytes));
    kv(out, "BAR1 total", vmib(&v, SST(GS_F_BAR1_TOTAL), s->bar1_total_bytes));
    kv(out, "BAR1 used", vmib(&v, SST(GS_F_BAR1_USED), s->bar1_used_bytes));
    kv(out, "BAR1 free", vmib(&v, SST(GS_F_BAR1_FREE), s->bar1_free_bytes));
    section(out, "Utilization");
    kv(out, "GPU", vnum(&v, SST(GS_F_GPU_UTIL), s->gpu_util_pct, "%"));
    kv(out, "Memory bandwidth", vnum(&v, SST(GS_F_MEM_UTIL), s->mem_util_pct, "%"));
    kv(out, "Encoder", vnum(&v, SST(GS_F_ENC_UTIL), s->enc_util_pct, "%"));
    kv(out, "Decoder", vnum(&v, SST(GS_F_DEC_UTIL), s->dec_util_pct, "%"));
}

static void details_clocks(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    const struct gs_static *st = &g->st;
    struct val v;

    section(out, "Clocks");
    kv(out, "Graphics", vnum(&v, SST(GS_F_CLOCK_GRAPHICS), s->clock_graphics_mhz, "MHz"));
    kv(out, "SM", vnum(&v, SST(GS_F_CLOCK_SM), s->clock_sm_mhz, "MHz"));
    kv(out, "Memory", vnum(&v, SST(GS_F_CLOCK_MEM), s->clock_mem_mhz, "MHz"));
    kv(out, "Video", vnum(&v, SST(GS_F_CLOCK_VIDEO), s->clock_video_mhz, "MHz"));
    kv(out, "Max graphics", vnum(&v, TST(GS_S_CLOCK_MAX_GRAPHICS), st->clock_max_graphics_mhz, "MHz"));
    kv(out, "Max SM", vnum(&v, TST(GS_S_CLOCK_MAX_SM), st->clock_max_sm_mhz, "MHz"));
    kv(out, "Max memory", vnum(&v, TST(GS_S_CLOCK_MAX_MEM), st->clock_max_mem_mhz, "MHz"));
    kv(out, "Max video", vnum(&v, TST(GS_S_CLOCK_MAX_VIDEO), st->clock_max_video_mhz, "MHz"));
    snprintf(v.s, sizeof(v.s), "P%u", s->pstate);
    kv(out, "Performance state", vstr(SST(GS_F_PSTATE), v.s));
}

static void details_power(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    const struct gs_static *st = &g->st;
    struct val v;

    section(out, "Power");
    kv(out, "Draw", vwatts(&v, SST(GS_F_POWER), s->power_mw));
    kv(out, "Limit (requested)", vwatts(&v, SST(GS_F_POWER_LIMIT), s->power_limit_mw));
    kv(out, "Limit (enforced)", vwatts(&v, SST(GS_F_POWER_ENFORCED), s->power_enforced_limit_mw));
    kv(out, "Default limit", vwatts(&v, TST(GS_S_POWER_DEFAULT), st->power_default_limit_mw));
    kv(out, "Min limit", vwatts(&v, TST(GS_S_POWER_MINMAX), st->power_min_limit_mw));
    kv(out, "Max limit", vwatts(&v, TST(GS_S_POWER_MINMAX), st->power_max_limit_mw));
    if (SST(GS_F_ENERGY) == GS_ST_OK)
        snprintf(v.s, sizeof(v.s), "%llu.%03llu J", (unsigned long long)(s->energy_mj / 1000),
                 (unsigned long long)(s->energy_mj % 1000));
    kv(out, "Energy since driver load", vstr(SST(GS_F_ENERGY), v.s));
}

static void details_thermal(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    const struct gs_static *st = &g->st;
    struct val v;

    section(out, "Thermal");
    kv(out, "GPU", vint(&v, SST(GS_F_TEMP_GPU), s->temp_gpu_c, "C"));
    kv(out, "Memory", vint(&v, SST(GS_F_TEMP_MEM), s->temp_mem_c, "C"));
    kv(out, "Slowdown threshold", vint(&v, TST(GS_S_TEMP_SLOWDOWN), st->temp_slowdown_c, "C"));
    kv(out, "Shutdown threshold", vint(&v, TST(GS_S_TEMP_SHUTDOWN), st->temp_shutdown_c, "C"));
    kv(out, "GPU max operating", vint(&v, TST(GS_S_TEMP_GPU_MAX), st->temp_gpu_max_c, "C"));
    kv(out, "Memory max operating", vint(&v, TST(GS_S_TEMP_MEM_MAX), st->temp_mem_max_c, "C"));
    if (SST(GS_F_FAN_SPEED) != GS_ST_OK || !s->fan_count) {
        kv(out, "Fans", SST(GS_F_FAN_SPEED) != GS_ST_OK ? details_status(SST(GS_F_FAN_SPEED), 0) : "[N/A]");
        return;
    }
    for (uint32_t i = 0; i < s->fan_count && i < GS_MAX_FANS; i++) {
        char label[16];
        snprintf(label, sizeof(label), "Fan %u", i);
        kv(out, label, vnum(&v, GS_ST_OK, s->fan_speed_pct[i], "%"));
    }
}

static void details_pcie(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    const struct gs_static *st = &g->st;
    struct val v;

    section(out, "PCIe");
    kv(out, "Generation", vnum(&v, SST(GS_F_PCIE_GEN), s->pcie_gen, NULL));
    kv(out, "Max generation (GPU+host)", vnum(&v, TST(GS_S_PCIE_MAX_GEN), st->pcie_max_gen, NULL));
    kv(out, "Max generation (GPU)", vnum(&v, TST(GS_S_PCIE_GPU_MAX_GEN), st->pcie_gpu_max_gen, NULL));
    kv(out, "Width", vnum(&v, SST(GS_F_PCIE_WIDTH), s->pcie_width, "lanes"));
    kv(out, "Max width", vnum(&v, TST(GS_S_PCIE_MAX_WIDTH), st->pcie_max_width, "lanes"));
    kv(out, "TX throughput", vnum(&v, SST(GS_F_PCIE_TX), s->pcie_tx_kbps, "KB/s"));
    kv(out, "RX throughput", vnum(&v, SST(GS_F_PCIE_RX), s->pcie_rx_kbps, "KB/s"));
    kv(out, "Replays since reset", vnum(&v, SST(GS_F_PCIE_REPLAY), s->pcie_replay_count, NULL));
}

static void details_ecc(FILE *out, const struct gs_sample *s)
{
    struct val v;

    section(out, "ECC and remapping");
    kv(out, "ECC mode", vflag(SST(GS_F_ECC_MODE), s->ecc_mode_current, "Enabled", "Disabled"));
    kv(out, "ECC mode after reboot", vflag(SST(GS_F_ECC_MODE), s->ecc_mode_pending, "Enabled", "Disabled"));
    kv(out, "Corrected (volatile)", vnum(&v, SST(GS_F_ECC_VOL_CORR), s->ecc_vol_corrected, NULL));
    kv(out, "Uncorrected (volatile)", vnum(&v, SST(GS_F_ECC_VOL_UNCORR), s->ecc_vol_uncorrected, NULL));
    kv(out, "Corrected (aggregate)", vnum(&v, SST(GS_F_ECC_AGG_CORR), s->ecc_agg_corrected, NULL));
    kv(out, "Uncorrected (aggregate)", vnum(&v, SST(GS_F_ECC_AGG_UNCORR), s->ecc_agg_uncorrected, NULL));
    kv(out, "Retired pages (single bit)", vnum(&v, SST(GS_F_RETIRED_SBE), s->retired_sbe_pages, NULL));
    kv(out, "Retired pages (double bit)", vnum(&v, SST(GS_F_RETIRED_DBE), s->retired_dbe_pages, NULL));
    kv(out, "Page retirement pending", vflag(SST(GS_F_RETIRED_PENDING), s->retired_pending, "Yes", "No"));
    kv(out, "Remapped rows (correctable)", vnum(&v, SST(GS_F_REMAP_CORR), s->remap_corr_rows, NULL));
    kv(out, "Remapped rows (uncorrectable)", vnum(&v, SST(GS_F_REMAP_UNCORR), s->remap_uncorr_rows, NULL));
    kv(out, "Row remap pending", vflag(SST(GS_F_REMAP_PENDING), s->remap_pending, "Yes", "No"));
    kv(out, "Row remap failure", vflag(SST(GS_F_REMAP_FAILED), s->remap_failed, "Yes", "No"));
    kv(out, "Xid events since start", vnum(&v, SST(GS_F_XID), s->xid_count, NULL));
    if (gs_sample_has(s, GS_F_XID) && s->xid_count)
        kv(out, "Last Xid", vnum(&v, GS_ST_OK, s->xid_last, NULL));
}

static void details_throttle_modes(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    const struct gs_static *st = &g->st;
    char buf[256];

    section(out, "Throttle reasons");
    gs_throttle_str(s->throttle_reasons, buf, sizeof(buf));
    kv(out, "Active", vstr(SST(GS_F_THROTTLE), buf[0] ? buf : "none"));
    gs_throttle_str(st->throttle_supported, buf, sizeof(buf));
    kv(out, "Supported", vstr(TST(GS_S_THROTTLE_SUPPORTED), buf[0] ? buf : "none"));
    section(out, "Modes");
    kv(out, "Persistence", vflag(SST(GS_F_PERSISTENCE), s->persistence_mode, "Enabled", "Disabled"));
    {
        static const char *const modes[] = {"Default", "Exclusive_Thread", "Prohibited", "Exclusive_Process"};
        kv(out, "Compute",
           vstr(SST(GS_F_COMPUTE_MODE), s->compute_mode < 4 ? modes[s->compute_mode] : "Unknown"));
    }
    kv(out, "MIG", vflag(SST(GS_F_MIG_MODE), s->mig_mode_current, "Enabled", "Disabled"));
    kv(out, "MIG after reset", vflag(SST(GS_F_MIG_MODE), s->mig_mode_pending, "Enabled", "Disabled"));
    kv(out, "Display active", vflag(SST(GS_F_DISPLAY_ACTIVE), s->display_active, "Enabled", "Disabled"));
    kv(out, "Display attached", vflag(SST(GS_F_DISPLAY_MODE), s->display_mode, "Yes", "No"));
}

/* ---- profiling (GPM) and MIG devices (area 10c) ---- */

static const char *vprof(struct val *v, enum gs_status st, enum gs_prof k, double x)
{
    if (st != GS_ST_OK)
        return details_status(st, 0);
    if (gs_prof_info(k)->bytes_per_s)
        snprintf(v->s, sizeof(v->s), "%.1f MB/s", x / 1e6);
    else
        snprintf(v->s, sizeof(v->s), "%.1f %%", x * 100.0);
    return v->s;
}

/* Labels as nvidia-smi dmon --gpm-metrics words them, roughly; DCGM names in docs/QUERY.md. */
static const char *const prof_labels[GS_PROF_COUNT] = {
    "Graphics engine active", "SM active", "SM occupancy", "Tensor pipe active", "DRAM active",
    "FP64 pipe active", "FP32 pipe active", "FP16 pipe active", "PCIe TX", "PCIe RX", "NVLink TX", "NVLink RX",
};

static void details_profiling(FILE *out, const struct gs_sample *s)
{
    struct val v;

    section(out, "Profiling (GPM)");
    for (unsigned k = 0; k < GS_PROF_COUNT; k++)
        kv(out, prof_labels[k], vprof(&v, SST(GS_F_PROF_FIRST + k), (enum gs_prof)k, s->prof[k]));
}

static void details_mig(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    struct val v;
    char label[64];

    if (SST(GS_F_MIG_DEVICES) != GS_ST_OK || !g->nmig)
        return;
    fprintf(out, "    MIG devices (%u)\n", g->nmig);
    for (uint32_t i = 0; i < g->nmig; i++) {
        const struct gs_mig *m = &g->mig[i];
        fprintf(out, "        Device %u: %s  GI %u  CI %u  %s\n", m->index, m->ci_profile, m->gpu_instance_id,
                m->compute_instance_id, m->uuid);
        snprintf(label, sizeof(label), "  Memory used / total");
        struct val t;
        char mem[2 * sizeof(v.s) + 4];
        snprintf(mem, sizeof(mem), "%s / %s", vmib(&v, (enum gs_status)m->mem_status, m->mem_used_bytes),
                 vmib(&t, (enum gs_status)m->mem_status, m->mem_total_bytes));
        kv(out, label, mem);
        kv(out, "  SMs", vnum(&v, (enum gs_status)m->attr_status, m->sm_count, NULL));
        for (unsigned k = 0; k < GS_PROF_FIRST_RATE; k++) {
            snprintf(label, sizeof(label), "  %s", prof_labels[k]);
            kv(out, label, vprof(&v, (enum gs_status)m->prof_status[k], (enum gs_prof)k, m->prof[k]));
        }
        kv(out, "  Processes", vnum(&v, GS_ST_OK, m->nprocs, NULL));
    }
}

static void proc_type(uint32_t type, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s", type & GS_PROC_COMPUTE ? "C" : "", type & GS_PROC_GRAPHICS ? "G" : "",
             type & GS_PROC_MPS ? "M" : "");
}

static void human_age(uint64_t s, char *buf, size_t len)
{
    if (s < 3600)
        snprintf(buf, len, "%llum%02llus", (unsigned long long)(s / 60), (unsigned long long)(s % 60));
    else if (s < 86400)
        snprintf(buf, len, "%lluh%02llum", (unsigned long long)(s / 3600),
                 (unsigned long long)(s % 3600 / 60));
    else
        snprintf(buf, len, "%llud%02lluh", (unsigned long long)(s / 86400),
                 (unsigned long long)(s % 86400 / 3600));
}

#define PROC_COLS "        %7s %-4s %10s %5s %5s %-10s %7s %7s  %s\n"

static void details_proc(FILE *out, const struct gs_gpu *g, const struct gs_proc *p)
{
    const char *cmdline = gs_proc_cmdline(&g->text, p);
    char pid[16], type[8], mem[32] = "?", sm[16] = "-", mu[16] = "-", cpu[32] = "?", age[32] = "?";
    char cmd[GS_CMDLINE_MAX + 160];
    const char *vis[] = {"", " (not visible from here)", " (exited)", " (no permission)"};
    size_t used;

    snprintf(pid, sizeof(pid), "%u", p->pid);
    proc_type(p->type, type, sizeof(type));
    if (gs_proc_has(p, GS_P_GPU_MEM))
        snprintf(mem, sizeof(mem), "%llu MiB", (unsigned long long)(p->gpu_mem_bytes >> 20));
    if (gs_proc_has(p, GS_P_SM_UTIL))
        snprintf(sm, sizeof(sm), "%u%%", p->sm_util_pct);
    if (gs_proc_has(p, GS_P_MEM_UTIL))
        snprintf(mu, sizeof(mu), "%u%%", p->mem_util_pct);
    if (gs_proc_has(p, GS_P_CPU))
        snprintf(cpu, sizeof(cpu), "%.1f%%", p->cpu_pct);
    if (gs_proc_has(p, GS_P_START))
        human_age(p->age_s, age, sizeof(age));
    used = (size_t)snprintf(cmd, sizeof(cmd), "%s%s",
                            gs_proc_has(p, GS_P_COMM)   ? (cmdline[0] ? cmdline : p->comm)
                            : gs_proc_has(p, GS_P_NAME) ? p->name
                                                        : "?",
                            p->host_vis < 4 ? vis[p->host_vis] : "");
    if (used < sizeof(cmd) && gs_proc_has(p, GS_P_CONTAINER) && p->container_id[0])
        used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " [%s %.12s]", p->container_runtime,
                                 p->container_id);
    if (used < sizeof(cmd) && gs_proc_has(p, GS_P_POD) && p->pod_uid[0])
        used += (size_t)snprintf(cmd + used, sizeof(cmd) - used, " [pod %s]", p->pod_uid);
    if (used < sizeof(cmd) && gs_proc_has(p, GS_P_SLURM) && p->slurm_job)
        snprintf(cmd + used, sizeof(cmd) - used, " [job %u%s%s]", p->slurm_job, p->slurm_step[0] ? "." : "",
                 p->slurm_step);
    fprintf(out, PROC_COLS, pid, type, mem, sm, mu, gs_proc_has(p, GS_P_USER) ? p->user : "?", cpu, age, cmd);
}

static void details_procs(FILE *out, const struct gs_gpu *g)
{
    if (g->procs_status != GS_ST_OK) {
        section(out, "Processes");
        kv(out, "List", details_status((enum gs_status)g->procs_status, 0));
        return;
    }
    fprintf(out, "    Processes (%u)\n", g->nprocs);
    if (!g->nprocs)
        fputs("        none\n", out);
    else
        fprintf(out, PROC_COLS, "PID", "TYPE", "GPU MEM", "SM", "MEM", "USER", "CPU", "AGE", "COMMAND");
    for (uint32_t i = 0; i < g->nprocs; i++)
        details_proc(out, g, &g->procs[i]);
}

static void details_gpu(FILE *out, const struct gs_gpu *g)
{
    fprintf(out, "\nGPU %u  %s  %s\n", g->st.index, g->st.pci_bus_id, g->st.name);
    if (g->state != GS_GPU_OK)
        fprintf(out, "    State: %s%s%s\n", g->state == GS_GPU_LOST ? "GPU is lost" : "error",
                g->last_error[0] ? ": " : "", g->last_error);
    details_identity(out, g);
    details_memory_util(out, &g->s);
    details_clocks(out, g);
    details_power(out, g);
    details_thermal(out, g);
    details_pcie(out, g);
    details_ecc(out, &g->s);
    details_throttle_modes(out, g);
    details_profiling(out, &g->s);
    details_mig(out, g);
    details_procs(out, g);
}

static void details_system(FILE *out, const struct gs_snapshot *snap)
{
    const struct gs_sysinfo *sys = &snap->sys;
    char when[40], cuda[24] = "[N/A]";

    gs_field_timestamp(&snap->wall, when, sizeof(when));
    if (sys->cuda_driver_version > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", sys->cuda_driver_version / 1000,
                 sys->cuda_driver_version % 1000 / 10);
    fprintf(out, "gpuscope %s details\n", GS_VERSION);
    kv(out, "Timestamp", when);
    kv(out, "Host", sys->hostname[0] ? sys->hostname : "[N/A]");
    kv(out, "Driver version", sys->driver_version[0] ? sys->driver_version : "[N/A]");
    kv(out, "NVML version", sys->nvml_version[0] ? sys->nvml_version : "[N/A]");
    kv(out, "CUDA driver version", cuda);
    kv(out, "Library", sys->lib_path[0] ? sys->lib_path : "[N/A]");
    if (sys->simulated) {
        char sim[128];
        snprintf(sim, sizeof(sim), "SIMULATED (gpuscope NVML simulator, scenario %s)",
                 sys->sim_scenario[0] ? sys->sim_scenario : "?");
        kv(out, "Data source", sim);
    }
    fprintf(out, "        %-30s: %u\n", "Attached GPUs", snap->ngpus);
}

int gs_details_write(FILE *out, const struct gs_snapshot *snap)
{
    details_system(out, snap);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        details_gpu(out, &snap->gpus[i]);
    return ferror(out) ? -GS_E_IO : 0;
}
