/* SPDX-License-Identifier: MIT */
/*
 * smi_table.c - `nvidia-smi` with no options: the boxed summary table, one
 * three-line block per GPU and the processes section, 91 columns wide as
 * branches R580 to R610 print it (compared byte for byte with real captures,
 * tests/cli/114x). R610 names the versions "KMD Version" and "CUDA UMD
 * Version". Also `nvidia-smi -L`.
 */
#include "format/smi.h"

#include "format/fields.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

#define SMI_RULE "+-----------------------------------------------------------------------------------------+\n"
#define SMI_GPU_RULE "+-----------------------------------------+------------------------+----------------------+\n"

uint32_t gs_smi_procs_by_pid(const struct gs_gpu *g, uint32_t *idx, uint32_t cap)
{
    uint32_t n = g->nprocs < cap ? g->nprocs : cap;

    for (uint32_t i = 0; i < n; i++) { /* insertion sort: a GPU has a handful of processes */
        uint32_t k = i;
        while (k > 0 && g->procs[idx[k - 1]].pid > g->procs[i].pid) {
            idx[k] = idx[k - 1];
            k--;
        }
        idx[k] = i;
    }
    return n;
}

void gs_smi_date(const struct timespec *ts, char *buf, size_t len)
{
    struct tm tm;
    time_t sec = ts->tv_sec;

    if (!localtime_r(&sec, &tm) || !strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm))
        snprintf(buf, len, "?");
}

/* One text cell: s (or "N/A" when absent) right-aligned in width w. */
static void cell(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cell(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

static bool ok(const struct gs_gpu *g, enum gs_field f)
{
    return g->state == GS_GPU_OK && gs_sample_has(&g->s, f);
}

static void header(FILE *out, const struct gs_snapshot *snap)
{
    unsigned major = gs_driver_major(snap->sys.driver_version);
    const char *drv = snap->sys.driver_version[0] ? snap->sys.driver_version : "N/A";
    char cuda[16] = "N/A", when[40];
    int v = snap->sys.cuda_driver_version;

    if (v > 0)
        snprintf(cuda, sizeof(cuda), "%d.%d", v / 1000, v % 1000 / 10);
    gs_smi_date(&snap->wall, when, sizeof(when));
    fprintf(out, "%s       \n" SMI_RULE, when);
    if (major >= 610) /* R610 tells the kernel module and the CUDA user-mode driver apart */
        fprintf(out, "| NVIDIA-SMI %-22s KMD Version: %-13s CUDA UMD Version: %-9s|\n", drv,
                snap->sys.kmd_version[0] ? snap->sys.kmd_version : drv, cuda);
    else
        fprintf(out, "| NVIDIA-SMI %-22s Driver Version: %-14s CUDA Version: %-9s|\n", drv, drv, cuda);
    fputs(SMI_GPU_RULE
          "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
          "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
          "|                                         |                        |               MIG M. |\n"
          "|=========================================+========================+======================|\n",
          out);
}

/* Names longer than the column keep their first 24 characters and "...". */
static void short_name(char *buf, size_t len, const char *name)
{
    if (strlen(name) > 27)
        snprintf(buf, len, "%.24s...", name);
    else
        snprintf(buf, len, "%.27s", name);
}

static const char *compute_mode(const struct gs_gpu *g)
{
    static const char *const names[] = {"Default", "E. Thread", "Prohibited", "E. Process"};
    if (!ok(g, GS_F_COMPUTE_MODE) || g->s.compute_mode > 3)
        return "N/A";
    return names[g->s.compute_mode];
}

static void gpu_line1(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    char name[40], pers[8], disp[8], ecc[24];

    short_name(name, sizeof(name), gs_static_has(&g->st, GS_S_NAME) ? g->st.name : "N/A");
    snprintf(pers, sizeof(pers), "%s", !ok(g, GS_F_PERSISTENCE) ? "N/A" : s->persistence_mode ? "On" : "Off");
    snprintf(disp, sizeof(disp), "%s", !ok(g, GS_F_DISPLAY_ACTIVE) ? "N/A" : s->display_active ? "On" : "Off");
    if (ok(g, GS_F_MIG_MODE) && s->mig_mode_current && ok(g, GS_F_ECC_MODE))
        cell(ecc, sizeof(ecc), "%s", s->ecc_mode_current ? "On" : "Off"); /* counts live in the instances */
    else if (ok(g, GS_F_ECC_VOL_UNCORR))
        cell(ecc, sizeof(ecc), "%llu", (unsigned long long)s->ecc_vol_uncorrected);
    else
        cell(ecc, sizeof(ecc), "N/A");
    fprintf(out, "|%4u  %-31s%-3s |%19s %3s |%21s |\n", g->st.index, name, pers,
            gs_static_has(&g->st, GS_S_PCI) ? g->st.pci_bus_id : "N/A", disp, ecc);
}

static void gpu_line2(FILE *out, const struct gs_gpu *g)
{
    const struct gs_sample *s = &g->s;
    char fan[8], temp[8], perf[8], pwr[16], cap[16], used[16], total[16], util[16];

    if (ok(g, GS_F_FAN_SPEED) && s->fan_count)
        cell(fan, sizeof(fan), "%u%%", s->fan_speed_pct[0]);
    else
        cell(fan, sizeof(fan), "N/A");
    if (ok(g, GS_F_TEMP_GPU))
        cell(temp, sizeof(temp), "%dC", s->temp_gpu_c);
    else
        cell(temp, sizeof(temp), "N/A");
    if (ok(g, GS_F_PSTATE))
        cell(perf, sizeof(perf), "P%u", s->pstate);
    else
        cell(perf, sizeof(perf), "N/A");
    if (ok(g, GS_F_POWER))
        cell(pwr, sizeof(pwr), "%uW", s->power_mw / 1000);
    else
        cell(pwr, sizeof(pwr), "N/A");
    if (ok(g, GS_F_POWER_ENFORCED))
        cell(cap, sizeof(cap), "%uW", s->power_enforced_limit_mw / 1000);
    else
        cell(cap, sizeof(cap), "N/A");
    if (ok(g, GS_F_MEM_USED))
        cell(used, sizeof(used), "%lluMiB", (unsigned long long)(s->mem_used_bytes >> 20));
    else
        cell(used, sizeof(used), "N/A");
    if (ok(g, GS_F_MEM_TOTAL))
        cell(total, sizeof(total), "%lluMiB", (unsigned long long)(s->mem_total_bytes >> 20));
    else
        cell(total, sizeof(total), "N/A");
    if (ok(g, GS_F_GPU_UTIL))
        cell(util, sizeof(util), "%u%%", s->gpu_util_pct);
    else
        cell(util, sizeof(util), "N/A");
    fprintf(out, "|%4s%6s%6s%16s / %5s |%11s / %9s |%8s%13s |\n", fan, temp, perf, pwr, cap, used, total, util,
            compute_mode(g));
}

static void gpu_block(FILE *out, const struct gs_gpu *g)
{
    const char *mig = !ok(g, GS_F_MIG_MODE) ? "N/A" : g->s.mig_mode_current ? "Enabled" : "Disabled";

    if (g->state == GS_GPU_LOST) {
        fprintf(out, "|%4u  %-31s%-3s |%19s %3s |%21s |\n", g->st.index, "Unable to determine the device handle", "",
                gs_static_has(&g->st, GS_S_PCI) ? g->st.pci_bus_id : "N/A", "", "");
        fprintf(out, "|%-41s|%-24s|%-22s|\n", "GPU is lost", "", "");
        fprintf(out, "|%41s|%24s|%21s |\n", "", "", "");
        fputs(SMI_GPU_RULE, out);
        return;
    }
    gpu_line1(out, g);
    gpu_line2(out, g);
    fprintf(out, "|%41s|%24s|%21s |\n", "", "", mig);
    fputs(SMI_GPU_RULE, out);
}

static const char *ptype(uint32_t type)
{
    bool c = type & (GS_PROC_COMPUTE | GS_PROC_MPS), gr = type & GS_PROC_GRAPHICS;
    return c && gr ? "C+G" : gr ? "G" : "C";
}

/* One process line: the name takes what is left of the row; a longer one keeps its end. */
static void proc_line(FILE *out, const struct gs_gpu *g, const struct gs_proc *p)
{
    char ids[24], name[64], mem[24];
    const char *full = gs_proc_has(p, GS_P_NAME) ? gs_proc_name(g, p) : p->comm[0] ? p->comm : "N/A";
    size_t n = strlen(full);

    if (p->gpu_instance_id == UINT32_MAX)
        snprintf(ids, sizeof(ids), "   N/A  N/A");
    else
        snprintf(ids, sizeof(ids), "%5u%5u", p->gpu_instance_id, p->compute_instance_id);
    if (n > 37)
        snprintf(name, sizeof(name), "...%s", full + n - 34);
    else
        snprintf(name, sizeof(name), "%s", full);
    if (gs_proc_has(p, GS_P_GPU_MEM))
        snprintf(mem, sizeof(mem), "%lluMiB", (unsigned long long)(p->gpu_mem_bytes >> 20));
    else
        snprintf(mem, sizeof(mem), "N/A");
    fprintf(out, "|%5u%s%*u%7s   %-37s%9s |\n", g->st.index, ids, (int)(27 - strlen(ids)), p->pid, ptype(p->type),
            name, mem);
}

static void processes(FILE *out, const struct gs_snapshot *snap)
{
    unsigned shown = 0;

    fputs("\n" SMI_RULE
          "| Processes:                                                                              |\n"
          "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
          "|        ID   ID                                                               Usage      |\n"
          "|=========================================================================================|\n",
          out);
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        uint32_t idx[512], n = gs_smi_procs_by_pid(g, idx, 512);
        for (uint32_t k = 0; k < n; k++, shown++)
            proc_line(out, g, &g->procs[idx[k]]);
    }
    if (!shown)
        fprintf(out, "|  %-87s|\n", "No running processes found");
    fputs(SMI_RULE, out);
}

int gs_smi_table_write(FILE *out, const struct gs_snapshot *snap)
{
    header(out, snap);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        gpu_block(out, &snap->gpus[i]);
    processes(out, snap);
    return ferror(out) ? -1 : 0;
}

/* A MIG device's profile as its name ends ("NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb"), else the model's. */
static const char *mig_list_profile(const struct gs_mig *m)
{
    const char *p = strstr(m->name, " MIG ");
    if (p && p[5])
        return p + 5;
    return m->ci_profile[0] ? m->ci_profile : m->profile;
}

int gs_smi_list_write(FILE *out, const struct gs_snapshot *snap)
{
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        const struct gs_static *st = &g->st;
        fprintf(out, "GPU %u: %s (UUID: %s)\n", st->index, gs_static_has(st, GS_S_NAME) ? st->name : "N/A",
                gs_static_has(st, GS_S_UUID) ? st->uuid : "N/A");
        /* the MIG devices under their GPU, as nvidia-smi lists them (docs/SMI.md) */
        for (uint32_t k = 0; gs_sample_has(&g->s, GS_F_MIG_DEVICES) && k < g->nmig && k < GS_MAX_MIG; k++)
            fprintf(out, "  MIG %-11s Device %2u: (UUID: %s)\n", mig_list_profile(&g->mig[k]), g->mig[k].index,
                    g->mig[k].uuid[0] ? g->mig[k].uuid : "N/A");
    }
    return ferror(out) ? -1 : 0;
}
