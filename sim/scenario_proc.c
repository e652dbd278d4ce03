/* SPDX-License-Identifier: MIT */
/*
 * scenario_proc.c - the `proc`, `at` and `fault` lines of the scenario parser:
 * processes on GPUs, timed events (Xid, ECC, remaps, throttle, PCIe, lost GPU,
 * process memory/start/exit) and fault injection. Stand-alone parser code.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_int.h"

/* ---- proc lines --------------------------------------------------------------- */

struct scn_proc_tmpl {
    struct gs_scn_proc p;
    long count;   /* replicas per selected GPU */
};

static int scn_proc_types(struct gs_scn_ctx *c, const char *v, unsigned *types)
{
    *types = 0;
    char buf[64];
    snprintf(buf, sizeof(buf), "%s", v);
    for (char *tok = buf, *next; tok; tok = next) {
        next = strpbrk(tok, "+,");
        if (next)
            *next++ = '\0';
        if (strcmp(tok, "compute") == 0 || strcmp(tok, "C") == 0)
            *types |= GS_SCN_PROC_COMPUTE;
        else if (strcmp(tok, "graphics") == 0 || strcmp(tok, "G") == 0)
            *types |= GS_SCN_PROC_GRAPHICS;
        else if (strcmp(tok, "mps") == 0 || strcmp(tok, "M") == 0)
            *types |= GS_SCN_PROC_MPS;
        else
            return gs_scn_err(c, "type=%s: expected compute, graphics, mps or a '+' list", v);
    }
    return 0;
}

static int scn_proc_pid(struct gs_scn_ctx *c, struct gs_scn_proc *p, const char *v)
{
    double x;
    if (strcmp(v, "self") == 0)
        p->pid_kind = GS_PID_SELF;
    else if (strcmp(v, "env") == 0)
        p->pid_kind = GS_PID_ENV;
    else if (strcmp(v, "spawn") == 0)
        p->pid_kind = GS_PID_SPAWN;
    else if (strcmp(v, "auto") == 0)
        p->pid_kind = GS_PID_AUTO;
    else {
        if (gs_scn_const(c, "pid", v, &x) < 0)
            return -1;
        if (x < 1 || x > 4194304)
            return gs_scn_err(c, "pid=%s: expected 1..4194304, self, env, spawn or auto", v);
        p->pid_kind = GS_PID_FIXED;
        p->pid = (unsigned)x;
    }
    return 0;
}

static int scn_proc_time(struct gs_scn_ctx *c, const char *k, const char *v, double *out)
{
    return gs_scn_const(c, k, v, out);
}

static int scn_proc_attr(struct gs_scn_ctx *c, struct scn_proc_tmpl *t, const char *k, const char *v)
{
    struct gs_scn_proc *p = &t->p;
    double x;
    if (strcmp(k, "pid") == 0)
        return scn_proc_pid(c, p, v);
    if (strcmp(k, "type") == 0)
        return scn_proc_types(c, v, &p->types);
    if (strcmp(k, "group") == 0) {
        if (strlen(v) > 63)
            return gs_scn_err(c, "group= is too long");
        p->group = gs_scn_arena_strdup(c->s, v, strlen(v));
        return p->group ? 0 : gs_scn_err(c, "out of memory");
    }
    if (strcmp(k, "name") == 0 || strcmp(k, "id") == 0) {
        if (strlen(v) > 255)
            return gs_scn_err(c, "%s= is too long", k);
        char *d = gs_scn_arena_strdup(c->s, v, strlen(v));
        *(k[0] == 'n' ? &p->name : &p->label) = d;
        return d ? 0 : gs_scn_err(c, "out of memory");
    }
    if (strcmp(k, "mem") == 0) {
        if (strcmp(v, "na") == 0) {
            p->mem = NULL;
            return 0;
        }
        return gs_scn_value_in(c, v, &p->mem);
    }
    if (strcmp(k, "sm") == 0)
        return gs_scn_value_in(c, v, &p->sm);
    if (strcmp(k, "mem_util") == 0)
        return gs_scn_value_in(c, v, &p->memutil);
    if (strcmp(k, "enc") == 0)
        return gs_scn_value_in(c, v, &p->enc);
    if (strcmp(k, "dec") == 0)
        return gs_scn_value_in(c, v, &p->dec);
    if (strcmp(k, "start") == 0)
        return scn_proc_time(c, k, v, &p->start);
    if (strcmp(k, "exit") == 0)
        return scn_proc_time(c, k, v, &p->exit);
    if (strcmp(k, "kill") == 0)
        return scn_proc_time(c, k, v, &p->kill);
    if (strcmp(k, "hidden") == 0 || strcmp(k, "mps_server") == 0) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
            return gs_scn_err(c, "%s=%s: expected 0 or 1", k, v);
        *(k[0] == 'h' ? &p->hidden : &p->mps_server) = v[0] == '1';
        return 0;
    }
    if (strcmp(k, "count") == 0 || strcmp(k, "gi") == 0 || strcmp(k, "ci") == 0) {
        if (gs_scn_const(c, k, v, &x) < 0)
            return -1;
        if (x < 0 || x > GS_SCN_MAX_PROCS)
            return gs_scn_err(c, "%s=%s is out of range", k, v);
        if (k[0] == 'c' && k[1] == 'o')
            t->count = (long)x;
        else
            *(k[0] == 'g' ? &p->gi : &p->ci) = (unsigned)x;
        return 0;
    }
    return gs_scn_err(c, "unknown proc attribute '%s' (pid type name hidden mps_server id mem sm mem_util enc dec start exit kill count gi ci)", k);
}

static int scn_proc_add(struct gs_scn_ctx *c, const struct scn_proc_tmpl *t, int gpu)
{
    struct gs_scn *s = c->s;
    for (long r = 0; r < t->count; r++) {
        if (s->nprocs >= GS_SCN_MAX_PROCS)
            return gs_scn_err(c, "too many processes (at most %d in a scenario)", GS_SCN_MAX_PROCS);
        struct gs_scn_proc *p = &s->procs[s->nprocs++];
        *p = t->p;
        p->gpu = gpu;
        p->line = c->at.line;
        if (p->pid_kind == GS_PID_AUTO)
            p->pid = s->auto_pid++;
        else if (p->pid_kind == GS_PID_FIXED && r > 0)
            p->pid = t->p.pid + (unsigned)r;
    }
    return 0;
}

int gs_scn_line_proc(struct gs_scn_ctx *c, char **w, int n)
{
    struct scn_proc_tmpl t = {.count = 1};
    uint64_t mask;
    if (n < 2)
        return gs_scn_err(c, "proc: expected a GPU selection and attributes");
    if (gs_scn_selection(c, w[1], 0, &mask) < 0)
        return -1;
    t.p.types = GS_SCN_PROC_COMPUTE;
    t.p.pid_kind = GS_PID_AUTO;
    t.p.exit = INFINITY;
    t.p.kill = INFINITY;
    t.p.gi = t.p.ci = 0xFFFFFFFFu;
    for (int j = 2; j < n; j++) {
        char *eq = strchr(w[j], '=');
        if (!eq)
            return gs_scn_err(c, "proc: expected key=value, got '%s'", w[j]);
        *eq = '\0';
        int rc = scn_proc_attr(c, &t, w[j], eq + 1);
        *eq = '=';
        if (rc < 0)
            return -1;
    }
    if (t.p.kill < INFINITY && t.p.pid_kind != GS_PID_SPAWN)
        return gs_scn_err(c, "proc: kill= needs pid=spawn (the simulator can only kill its own children)");
    for (int g = 0; g < GS_SCN_MAX_GPUS; g++)
        if ((mask & (1ull << g)) && scn_proc_add(c, &t, g) < 0)
            return -1;
    return 0;
}

/* ---- MPS: the server in the compute list ------------------------------------------ */

/* On a driver the MPS server owns its clients' CUDA context: NVML's compute
 * list of each GPU it serves shows it (NVIDIA's MPS docs, nvidia-smi's "C"
 * row of nvidia-cuda-mps-server beside the clients' "M+C"). A scenario with
 * clients and no server would be a machine no driver shows. The server is a
 * compute process of that GPU named nvidia-cuda-mps-server (or hidden=1: one
 * in another PID namespace; mps_server=1: one renamed), listed whenever the
 * client is. */
static int scn_is_mps_server(const struct gs_scn_proc *p, const struct gs_scn_proc *client)
{
    if (p->gpu != client->gpu || !(p->types & GS_SCN_PROC_COMPUTE) || p->start > client->start ||
        p->exit < client->exit)
        return 0;
    if (p->hidden || p->mps_server)
        return 1;
    const char *base = p->name ? strrchr(p->name, '/') : NULL;
    return p->name && strcmp(base ? base + 1 : p->name, "nvidia-cuda-mps-server") == 0;
}

int gs_scn_check_mps(struct gs_scn_ctx *c)
{
    const struct gs_scn *s = c->s;

    for (int i = 0; i < s->nprocs; i++) {
        const struct gs_scn_proc *cl = &s->procs[i];
        int found = !(cl->types & GS_SCN_PROC_MPS);
        for (int j = 0; j < s->nprocs && !found; j++)
            found = j != i && scn_is_mps_server(&s->procs[j], cl);
        if (!found) {
            c->at.line = cl->line;
            return gs_scn_err(c, "proc %d type=mps: no MPS server in GPU %d's compute list while it runs "
                                 "(a driver lists one); add `proc %d type=compute name=nvidia-cuda-mps-server` "
                                 "(hidden=1 for one in another PID namespace)",
                              cl->gpu, cl->gpu, cl->gpu);
        }
    }
    return 0;
}

/* ---- at lines ------------------------------------------------------------------- */

static int scn_find_proc(struct gs_scn_ctx *c, const char *label, int gpu)
{
    for (int i = 0; i < c->s->nprocs; i++)
        if (c->s->procs[i].label && strcmp(c->s->procs[i].label, label) == 0 &&
            (gpu < 0 || c->s->procs[i].gpu == gpu))
            return i;
    return gs_scn_err(c, "no process with id=%s%s", label, gpu >= 0 ? " on that GPU" : "");
}

static int scn_count_arg(struct gs_scn_ctx *c, char **w, int n, int i, unsigned long long *out)
{
    double x = 1;
    if (i < n && gs_scn_const(c, "count", w[i][0] == '+' ? w[i] + 1 : w[i], &x) < 0)
        return -1;
    if (x < 0 || x > 1e12)
        return gs_scn_err(c, "count out of range");
    *out = (unsigned long long)x;
    return 0;
}

/* Fill ev from "KIND ARGS" (w[i..n)). For proc events it may act directly. */
static int scn_event_kind(struct gs_scn_ctx *c, struct gs_scn_event *ev, char **w, int n, int i)
{
    const char *k = w[i], *a = i + 1 < n ? w[i + 1] : "";
    double x;
    if (strcmp(k, "xid") == 0) {
        ev->kind = GS_SCN_EV_XID;
        if (gs_scn_const(c, "xid", a, &x) < 0 || x < 0 || x > 100000)
            return gs_scn_err(c, "xid: expected an Xid number such as 79");
        ev->arg = (unsigned long long)x;
        return 0;
    }
    if (strcmp(k, "lost") == 0 || strcmp(k, "back") == 0) {
        ev->kind = k[0] == 'l' ? GS_SCN_EV_LOST : GS_SCN_EV_BACK;
        return 0;
    }
    if (strcmp(k, "ecc") == 0 || strcmp(k, "retire") == 0) {
        int sbe = strcmp(a, "sbe") == 0 || strcmp(a, "corrected") == 0;
        if (!sbe && strcmp(a, "dbe") != 0 && strcmp(a, "uncorrected") != 0)
            return gs_scn_err(c, "%s: expected sbe or dbe and a count", k);
        ev->kind = k[0] == 'e' ? (sbe ? GS_SCN_EV_ECC_SBE : GS_SCN_EV_ECC_DBE)
                               : (sbe ? GS_SCN_EV_RETIRE_SBE : GS_SCN_EV_RETIRE_DBE);
        return scn_count_arg(c, w, n, i + 2, &ev->arg);
    }
    if (strcmp(k, "remap") == 0) {
        if (strcmp(a, "pending") == 0 || strcmp(a, "failure") == 0) {
            ev->kind = a[0] == 'p' ? GS_SCN_EV_REMAP_PENDING : GS_SCN_EV_REMAP_FAILURE;
            return 0;
        }
        if (strcmp(a, "cor") != 0 && strcmp(a, "unc") != 0)
            return gs_scn_err(c, "remap: expected cor N, unc N, pending or failure");
        ev->kind = a[0] == 'c' ? GS_SCN_EV_REMAP_COR : GS_SCN_EV_REMAP_UNC;
        return scn_count_arg(c, w, n, i + 2, &ev->arg);
    }
    if (strcmp(k, "throttle") == 0) {
        if ((strcmp(a, "on") != 0 && strcmp(a, "off") != 0) || i + 2 >= n ||
            gs_scn_enum_value(gs_scn_throttle_names, w[i + 2], &x) < 0)
            return gs_scn_err(c, "throttle: expected on|off and reasons such as hw_thermal|sw_power_cap");
        ev->kind = a[1] == 'n' ? GS_SCN_EV_THROTTLE_ON : GS_SCN_EV_THROTTLE_OFF;
        ev->arg = (unsigned long long)x;
        return 0;
    }
    if (strcmp(k, "pcie") == 0) {
        if (strcmp(a, "restore") == 0) {
            ev->kind = GS_SCN_EV_PCIE_RESTORE;
            return 0;
        }
        if (strcmp(a, "drop") != 0)
            return gs_scn_err(c, "pcie: expected drop [N] or restore");
        ev->kind = GS_SCN_EV_PCIE_DROP;
        return scn_count_arg(c, w, n, i + 2, &ev->arg);
    }
    return gs_scn_err(c, "unknown event '%.40s' (xid ecc retire remap throttle pcie lost back proc)", k);
}

/* at T [gpu=SEL] proc ID mem +X | exit | start */
static int scn_event_proc(struct gs_scn_ctx *c, double at, int gpu, char **w, int n, int i)
{
    if (i + 2 > n)
        return gs_scn_err(c, "proc event: expected 'proc ID mem +X', 'proc ID exit' or 'proc ID start'");
    int pi = scn_find_proc(c, w[i + 1], gpu);
    if (pi < 0)
        return -1;
    const char *what = i + 2 < n ? w[i + 2] : "";
    if (strcmp(what, "exit") == 0 || strcmp(what, "start") == 0) {
        *(what[0] == 'e' ? &c->s->procs[pi].exit : &c->s->procs[pi].start) = at;
        return 0;
    }
    double x;
    if (strcmp(what, "mem") != 0 || i + 3 >= n)
        return gs_scn_err(c, "proc event: expected mem +X, exit or start");
    if (gs_scn_const(c, "mem", w[i + 3][0] == '+' ? w[i + 3] + 1 : w[i + 3], &x) < 0)
        return -1;
    if (c->s->nevents >= GS_SCN_MAX_EVENTS)
        return gs_scn_err(c, "too many events (at most %d)", GS_SCN_MAX_EVENTS);
    struct gs_scn_event *ev = &c->s->events[c->s->nevents++];
    *ev = (struct gs_scn_event){.at = at, .gpu = c->s->procs[pi].gpu, .kind = GS_SCN_EV_PROC_MEM,
                                .amount = x, .proc = pi};
    return 0;
}

int gs_scn_line_at(struct gs_scn_ctx *c, char **w, int n)
{
    double at;
    uint64_t mask = 0;
    int i = 2, have_gpu = 0;
    if (n < 3)
        return gs_scn_err(c, "at: expected 'at TIME [gpu=SEL] EVENT ...'");
    if (gs_scn_const(c, "at", w[1], &at) < 0)
        return -1;
    if (at < 0)
        return gs_scn_err(c, "at: time must not be negative");
    if (strncmp(w[2], "gpu=", 4) == 0) {
        if (gs_scn_selection(c, w[2] + 4, 0, &mask) < 0)
            return -1;
        have_gpu = 1;
        i = 3;
    }
    if (i >= n)
        return gs_scn_err(c, "at: missing the event");
    if (strcmp(w[i], "proc") == 0)
        return scn_event_proc(c, at, have_gpu ? __builtin_ctzll(mask) : -1, w, n, i);
    if (!have_gpu)
        return gs_scn_err(c, "at: GPU events need gpu=SEL before the event");
    struct gs_scn_event tmpl = {.at = at};
    if (scn_event_kind(c, &tmpl, w, n, i) < 0)
        return -1;
    for (int g = 0; g < GS_SCN_MAX_GPUS; g++) {
        if (!(mask & (1ull << g)))
            continue;
        if (tmpl.kind == GS_SCN_EV_LOST && at < c->s->gpus[g].lost_at)
            c->s->gpus[g].lost_at = at;
        if (tmpl.kind == GS_SCN_EV_BACK && at < c->s->gpus[g].back_at)
            c->s->gpus[g].back_at = at;
        if (c->s->nevents >= GS_SCN_MAX_EVENTS)
            return gs_scn_err(c, "too many events (at most %d)", GS_SCN_MAX_EVENTS);
        tmpl.gpu = g;
        c->s->events[c->s->nevents++] = tmpl;
    }
    return 0;
}

/* ---- fault lines ---------------------------------------------------------------- */

int gs_scn_line_fault(struct gs_scn_ctx *c, char **w, int n)
{
    char sub[GS_SCN_ERR_LEN];
    if (gs_scn_parse_fault_words(c->s, w + 1, n - 1, sub, sizeof(sub)) < 0)
        return gs_scn_err(c, "%s", sub);
    struct gs_scn_fault *f = &c->s->faults[c->s->nfaults - 1];
    if (f->gpu >= c->s->ngpus && f->gpu >= 0)
        return gs_scn_err(c, "fault: GPU %d is not defined", f->gpu);
    return 0;
}
