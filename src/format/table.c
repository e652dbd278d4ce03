/* SPDX-License-Identifier: MIT */
/*
 * table.c - the default `gpuscope query` output: gpustat's density. A header
 * line (host, time, driver; SIMULATED when on the simulator), then one line
 * per GPU with index, name, temperature, utilization, memory, power and its
 * processes as user:command/pid(memory). ANSI colours only when asked.
 */
#include "format/format.h"

#include <string.h>
#include <time.h>

/* ANSI SGR sequences, or "" without colour. */
struct palette {
    const char *reset, *index, *name, *temp, *temp_hot, *util, *util_busy, *mem, *mem_used, *power, *power_hi,
        *user, *cmd, *pmem, *alert, *dim;
};

static const struct palette colors = {
    "\033[0m",    "\033[36m", "\033[34m",   "\033[31m", "\033[1;31m", "\033[32m", "\033[1;32m",   "\033[33m",
    "\033[1;33m", "\033[35m", "\033[1;35m", "\033[90m", "\033[34m",   "\033[33m", "\033[1;7;33m", "\033[2m",
};
static const struct palette plain = {"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""};

static void write_header(FILE *out, const struct gs_snapshot *snap, const struct palette *c)
{
    struct tm tm;
    time_t sec = snap->wall.tv_sec;
    char when[32] = "";

    if (localtime_r(&sec, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(out, "%s%s%s  %s  driver %s", c->name, snap->sys.hostname[0] ? snap->sys.hostname : "?", c->reset,
            when, snap->sys.driver_version[0] ? snap->sys.driver_version : "?");
    if (snap->sys.cuda_driver_version > 0)
        fprintf(out, "  CUDA %d.%d", snap->sys.cuda_driver_version / 1000,
                snap->sys.cuda_driver_version % 1000 / 10);
    if (snap->sys.simulated)
        fprintf(out, "  %s SIMULATED %s scenario %s", c->alert, c->reset,
                snap->sys.sim_scenario[0] ? snap->sys.sim_scenario : "?");
    fputc('\n', out);
}

static void write_temp_util(FILE *out, const struct gs_sample *s, const struct palette *c)
{
    if (gs_sample_has(s, GS_F_TEMP_GPU))
        fprintf(out, "%s%3d°C%s, ", s->temp_gpu_c >= 50 ? c->temp_hot : c->temp, s->temp_gpu_c, c->reset);
    else
        fputs(" --°C, ", out);
    if (gs_sample_has(s, GS_F_GPU_UTIL))
        fprintf(out, "%s%3u %%%s", s->gpu_util_pct >= 30 ? c->util_busy : c->util, s->gpu_util_pct, c->reset);
    else
        fputs(" -- %", out);
}

static void write_mem_power(FILE *out, const struct gs_sample *s, const struct palette *c)
{
    uint32_t limit_mw = gs_sample_has(s, GS_F_POWER_ENFORCED) ? s->power_enforced_limit_mw
                        : gs_sample_has(s, GS_F_POWER_LIMIT)  ? s->power_limit_mw
                                                              : 0;

    fputs(" | ", out);
    if (gs_sample_has(s, GS_F_MEM_USED))
        fprintf(out, "%s%5llu%s", c->mem_used, (unsigned long long)(s->mem_used_bytes >> 20), c->reset);
    else
        fputs("   --", out);
    if (gs_sample_has(s, GS_F_MEM_TOTAL))
        fprintf(out, " / %s%5llu%s MiB", c->mem, (unsigned long long)(s->mem_total_bytes >> 20), c->reset);
    else
        fputs(" /    -- MiB", out);
    fputs(" | ", out);
    if (gs_sample_has(s, GS_F_POWER))
        fprintf(out, "%s%4u%s", limit_mw && s->power_mw * 10ull >= limit_mw * 4ull ? c->power_hi : c->power,
                s->power_mw / 1000, c->reset);
    else
        fputs("  --", out);
    if (limit_mw)
        fprintf(out, " / %s%4u%s W", c->power, limit_mw / 1000, c->reset);
    else
        fputs(" /   -- W", out);
}

/* user:command/pid(memory) - "?" for what the host cannot tell us. */
/* The command's short name: /proc's comm, else the basename of the first
 * word of the driver's name ("python train.py" -> "python"), else "?". */
static const char *short_command(const struct gs_proc *p, char *buf, size_t len)
{
    if (gs_proc_has(p, GS_P_COMM))
        return p->comm;
    if (!gs_proc_has(p, GS_P_NAME))
        return "?";
    size_t n = strcspn(p->name, " ");
    const char *start = p->name;
    for (size_t i = 0; i < n; i++)
        if (p->name[i] == '/')
            start = p->name + i + 1;
    snprintf(buf, len, "%.*s", (int)(p->name + n - start), start);
    return buf[0] ? buf : "?";
}

static void write_proc(FILE *out, const struct gs_proc *p, const struct palette *c)
{
    char name[32];
    const char *user = gs_proc_has(p, GS_P_USER) ? p->user : "?";
    const char *cmd = short_command(p, name, sizeof(name));

    fprintf(out, " %s%s%s:%s%s%s/%u", c->user, user, c->reset, c->cmd, cmd, c->reset, p->pid);
    if (gs_proc_has(p, GS_P_GPU_MEM))
        fprintf(out, "(%s%lluM%s)", c->pmem, (unsigned long long)(p->gpu_mem_bytes >> 20), c->reset);
    else
        fputs("(?M)", out);
    if (gs_proc_has(p, GS_P_SLURM) && p->slurm_job) /* where a job runs: its Slurm job */
        fprintf(out, "[job %u]", p->slurm_job);
}

static void write_procs(FILE *out, const struct gs_gpu *g, const struct palette *c)
{
    fputs(" |", out);
    if (g->procs_status != GS_ST_OK) {
        fprintf(out, " %s(%s)%s", c->dim, gs_status_name((enum gs_status)g->procs_status), c->reset);
        return;
    }
    for (uint32_t i = 0; i < g->nprocs; i++)
        write_proc(out, &g->procs[i], c);
}

static void write_gpu(FILE *out, const struct gs_gpu *g, int name_w, const struct palette *c)
{
    const char *name = gs_static_has(&g->st, GS_S_NAME) ? g->st.name : "?";

    if (gs_static_has(&g->st, GS_S_HOST)) /* a GPU of the fleet: [node:index on it] */
        fprintf(out, "%s[%s:%u]%s %s%-*s%s | ", c->index, g->st.host, g->st.host_index, c->reset, c->name, name_w,
                name, c->reset);
    else
        fprintf(out, "%s[%u]%s %s%-*s%s | ", c->index, g->st.index, c->reset, c->name, name_w, name, c->reset);
    if (g->state == GS_GPU_LOST) {
        fprintf(out, "%sGPU is lost%s: %s\n", c->alert, c->reset,
                g->last_error[0] ? g->last_error : "fell off the bus (see dmesg, Xid 79)");
        return;
    }
    if (g->state == GS_GPU_ERROR) {
        fprintf(out, "%serror%s: %s\n", c->alert, c->reset, g->last_error[0] ? g->last_error : "unreadable");
        return;
    }
    write_temp_util(out, &g->s, c);
    write_mem_power(out, &g->s, c);
    write_procs(out, g, c);
    fputc('\n', out);
}

int gs_table_write(FILE *out, const struct gs_snapshot *snap, bool color)
{
    const struct palette *c = color ? &colors : &plain;
    int name_w = 0;

    for (uint32_t i = 0; i < snap->ngpus; i++) {
        int w = (int)strlen(snap->gpus[i].st.name);
        name_w = w > name_w ? w : name_w;
    }
    write_header(out, snap, c);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        write_gpu(out, &snap->gpus[i], name_w, c);
    return ferror(out) ? -GS_E_IO : 0;
}
