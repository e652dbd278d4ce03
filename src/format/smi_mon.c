/* SPDX-License-Identifier: MIT */
/*
 * smi_mon.c - `nvidia-smi dmon` and `pmon`: two header lines (names, units),
 * then one line per GPU (dmon) or per process (pmon) per sample, columns 7
 * wide, "-" for what the driver does not give. Column sets by -s letter as
 * R580-R610 print them (compared with real captures): jpg and ofa exist from
 * R535 on (the NVML branch that added those engines' utilization).
 */
#include "format/smi.h"

#include "format/fields.h"

#include <string.h>
#include <time.h>

/* One dmon column: its -s group letter, header, unit and value. */
struct dcol {
    char group;
    const char *name, *unit;
    enum gs_field field;
    unsigned min_major; /* first branch that prints it (0: all) */
    long long (*get)(const struct gs_sample *s);
};

static long long g_pwr(const struct gs_sample *s) { return s->power_mw / 1000; }
static long long g_gtemp(const struct gs_sample *s) { return s->temp_gpu_c; }
static long long g_mtemp(const struct gs_sample *s) { return s->temp_mem_c; }
static long long g_sm(const struct gs_sample *s) { return s->gpu_util_pct; }
static long long g_mem(const struct gs_sample *s) { return s->mem_util_pct; }
static long long g_enc(const struct gs_sample *s) { return s->enc_util_pct; }
static long long g_dec(const struct gs_sample *s) { return s->dec_util_pct; }
static long long g_jpg(const struct gs_sample *s) { return s->jpg_util_pct; }
static long long g_ofa(const struct gs_sample *s) { return s->ofa_util_pct; }
static long long g_mclk(const struct gs_sample *s) { return s->clock_mem_mhz; }
static long long g_pclk(const struct gs_sample *s) { return s->clock_graphics_mhz; }
static long long g_fb(const struct gs_sample *s) { return (long long)(s->mem_used_bytes >> 20); }
static long long g_bar1(const struct gs_sample *s) { return (long long)(s->bar1_used_bytes >> 20); }
static long long g_ccpm(const struct gs_sample *s) { return (long long)(s->prot_mem_used_bytes >> 20); }
static long long g_sbe(const struct gs_sample *s) { return (long long)s->ecc_vol_corrected; }
static long long g_dbe(const struct gs_sample *s) { return (long long)s->ecc_vol_uncorrected; }
static long long g_replay(const struct gs_sample *s) { return s->pcie_replay_count; }
static long long g_rx(const struct gs_sample *s) { return s->pcie_rx_kbps / 1000; }
static long long g_tx(const struct gs_sample *s) { return s->pcie_tx_kbps / 1000; }

static const struct dcol dcols[] = {
    { 'p', "pwr", "W", GS_F_POWER, 0, g_pwr },
    { 'p', "gtemp", "C", GS_F_TEMP_GPU, 0, g_gtemp },
    { 'p', "mtemp", "C", GS_F_TEMP_MEM, 0, g_mtemp },
    { 'u', "sm", "%", GS_F_GPU_UTIL, 0, g_sm },
    { 'u', "mem", "%", GS_F_MEM_UTIL, 0, g_mem },
    { 'u', "enc", "%", GS_F_ENC_UTIL, 0, g_enc },
    { 'u', "dec", "%", GS_F_DEC_UTIL, 0, g_dec },
    { 'u', "jpg", "%", GS_F_JPG_UTIL, 535, g_jpg },
    { 'u', "ofa", "%", GS_F_OFA_UTIL, 535, g_ofa },
    { 'c', "mclk", "MHz", GS_F_CLOCK_MEM, 0, g_mclk },
    { 'c', "pclk", "MHz", GS_F_CLOCK_GRAPHICS, 0, g_pclk },
    /* v: power and thermal violation time; gpuscope has no such reading yet: "-" */
    { 'v', "pviol", "%", GS_F_COUNT, 0, NULL },
    { 'v', "tviol", "bool", GS_F_COUNT, 0, NULL },
    { 'm', "fb", "MB", GS_F_MEM_USED, 0, g_fb },
    { 'm', "bar1", "MB", GS_F_BAR1_USED, 0, g_bar1 },
    { 'm', "ccpm", "MB", GS_F_PROT_MEM, 535, g_ccpm },
    { 'e', "sbecc", "errs", GS_F_ECC_VOL_CORR, 0, g_sbe },
    { 'e', "dbecc", "errs", GS_F_ECC_VOL_UNCORR, 0, g_dbe },
    { 'e', "pci", "errs", GS_F_PCIE_REPLAY, 0, g_replay },
    { 't', "rxpci", "MB/s", GS_F_PCIE_RX, 0, g_rx },
    { 't', "txpci", "MB/s", GS_F_PCIE_TX, 0, g_tx },
};
#define NDCOLS (sizeof(dcols) / sizeof(dcols[0]))

static const char *mon_groups(const struct gs_smi_mon *m)
{
    return m->groups && *m->groups ? m->groups : m->pmon ? "u" : "puc";
}

bool gs_smi_mon_groups_ok(const struct gs_smi_mon *m, const char *groups)
{
    const char *known = m->pmon ? "um" : "pucvmet";

    for (const char *p = groups; *p; p++)
        if (!strchr(known, *p))
            return false;
    return *groups != '\0';
}

/* Columns print in the table's order, whatever the order of the letters. */
static bool dcol_on(const struct gs_smi_mon *m, const struct dcol *c, unsigned major)
{
    return strchr(mon_groups(m), c->group) && (!c->min_major || !major || major >= c->min_major);
}

struct gs_fmask gs_smi_mon_want(const struct gs_smi_mon *m)
{
    struct gs_fmask want = GS_FMASK_NONE;

    if (m->pmon) {
        gs_fmask_set(&want, GS_F_MEM_TOTAL); /* a cheap call: processes are what pmon reads */
        return want;
    }
    for (size_t i = 0; i < NDCOLS; i++)
        if (strchr(mon_groups(m), dcols[i].group) && dcols[i].field < GS_F_COUNT)
            gs_fmask_set(&want, dcols[i].field);
    return want;
}

static void prefix_header(FILE *out, const struct gs_smi_mon *m, bool units)
{
    fputs("#", out);
    if (m->date)
        fprintf(out, "%-9s", units ? "YYYYMMDD" : "Date");
    if (m->time)
        fprintf(out, "%-9s", units ? "HH:MM:SS" : "Time");
}

int gs_smi_mon_header(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap)
{
    unsigned major = gs_driver_major(snap->sys.driver_version);
    static const char *const pnames[] = {"sm", "mem", "enc", "dec", "jpg", "ofa"};
    bool um = m->pmon && strchr(mon_groups(m), 'm');
    bool uu = !m->pmon || strchr(mon_groups(m), 'u');
    unsigned nutil = major && major < 535 ? 4 : 6;

    for (int line = 0; line < 2; line++) {
        if (m->date || m->time) {
            prefix_header(out, m, line);
            fputs(line ? "  Idx" : "  gpu", out);
        } else {
            fputs(line ? "# Idx" : "# gpu", out);
        }
        if (m->pmon) {
            fprintf(out, "%12s%7s", line ? "#" : "pid", line ? "C/G" : "type");
            if (um) {
                fprintf(out, "%7s", line ? "MB" : "fb");
                if (!major || major >= 535)
                    fprintf(out, "%7s", line ? "MB" : "ccpm");
            }
            for (unsigned k = 0; uu && k < nutil; k++)
                fprintf(out, "%7s", line ? "%" : pnames[k]);
            fprintf(out, "    %s \n", line ? "name" : "command");
            continue;
        }
        for (size_t i = 0; i < NDCOLS; i++)
            if (dcol_on(m, &dcols[i], major))
                fprintf(out, "%7s", line ? dcols[i].unit : dcols[i].name);
        fputs(" \n", out);
    }
    return ferror(out) ? -1 : 0;
}

static void prefix(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap)
{
    struct tm tm;
    time_t sec = snap->wall.tv_sec;
    char buf[16];

    if (!(m->date || m->time) || !localtime_r(&sec, &tm))
        return;
    fputs(" ", out);
    if (m->date && strftime(buf, sizeof(buf), "%Y%m%d", &tm))
        fprintf(out, "%-9s", buf);
    if (m->time && strftime(buf, sizeof(buf), "%H:%M:%S", &tm))
        fprintf(out, "%-9s", buf);
}

static void dmon_gpu(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap, const struct gs_gpu *g)
{
    unsigned major = gs_driver_major(snap->sys.driver_version);

    prefix(out, m, snap);
    fprintf(out, "%5u", g->st.index);
    for (size_t i = 0; i < NDCOLS; i++) {
        const struct dcol *c = &dcols[i];
        if (!dcol_on(m, c, major))
            continue;
        if (c->field < GS_F_COUNT && g->state == GS_GPU_OK && gs_sample_has(&g->s, c->field))
            fprintf(out, "%7lld", c->get(&g->s));
        else
            fprintf(out, "%7s", "-");
    }
    fputs(" \n", out);
}

/* The short name pmon prints: the last part of the driver's name, 15 characters at most. */
static void pmon_name(const struct gs_gpu *g, const struct gs_proc *p, char *buf, size_t len)
{
    const char *full = gs_proc_has(p, GS_P_NAME) ? gs_proc_name(g, p) : p->comm;
    const char *slash = strrchr(full, '/');
    const char *base = slash ? slash + 1 : full;

    if (!gs_proc_has(p, GS_P_NAME) && gs_proc_has(p, GS_P_COMM))
        base = p->comm;
    snprintf(buf, len, "%.15s", *base ? base : "-");
}

static void putil(FILE *out, bool has, uint32_t v)
{
    if (has && v)
        fprintf(out, "%7u", v);
    else
        fprintf(out, "%7s", "-");
}

static void pmon_proc(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap, const struct gs_gpu *g,
                      const struct gs_proc *p)
{
    unsigned major = gs_driver_major(snap->sys.driver_version);
    bool c = p && (p->type & (GS_PROC_COMPUTE | GS_PROC_MPS)), gr = p && (p->type & GS_PROC_GRAPHICS);
    char name[20] = "-";

    prefix(out, m, snap);
    fprintf(out, "%5u", g->st.index);
    if (p) {
        pmon_name(g, p, name, sizeof(name));
        fprintf(out, "%11u%6s", p->pid, c && gr ? "C+G" : gr ? "G" : "C");
    } else {
        fprintf(out, "%11s%6s", "-", "-");
    }
    if (strchr(mon_groups(m), 'm')) {
        if (p && gs_proc_has(p, GS_P_GPU_MEM))
            fprintf(out, "%7llu", (unsigned long long)(p->gpu_mem_bytes >> 20));
        else
            fprintf(out, "%7s", "-");
        if (!major || major >= 535)
            fprintf(out, "%7s", "-"); /* ccpm: protected memory per process, not read */
    }
    if (strchr(mon_groups(m), 'u')) {
        putil(out, p && gs_proc_has(p, GS_P_SM_UTIL), p ? p->sm_util_pct : 0);
        putil(out, p && gs_proc_has(p, GS_P_MEM_UTIL), p ? p->mem_util_pct : 0);
        putil(out, p && gs_proc_has(p, GS_P_ENC_UTIL), p ? p->enc_util_pct : 0);
        putil(out, p && gs_proc_has(p, GS_P_DEC_UTIL), p ? p->dec_util_pct : 0);
        if (!major || major >= 535)
            fprintf(out, "%7s%7s", "-", "-"); /* jpg, ofa per process: not read */
    }
    fprintf(out, "    %-15s\n", name);
}

int gs_smi_mon_write(FILE *out, const struct gs_smi_mon *m, const struct gs_snapshot *snap)
{
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        const struct gs_gpu *g = &snap->gpus[i];
        if (!m->pmon) {
            dmon_gpu(out, m, snap, g);
            continue;
        }
        uint32_t idx[512], n = gs_smi_procs_by_pid(g, idx, 512);
        if (!n)
            pmon_proc(out, m, snap, g, NULL);
        for (uint32_t k = 0; k < n; k++)
            pmon_proc(out, m, snap, g, &g->procs[idx[k]]);
    }
    return ferror(out) ? -1 : 0;
}
