/* SPDX-License-Identifier: MIT */
/*
 * sim_procs.c - processes of the simulator: PID resolution (synthetic, self,
 * GPUSCOPE_SIM_PIDS, spawned children), the running-process lists with NVML's
 * count negotiation and 16/24/32-byte entries, the detail list, per-process
 * utilization samples and nvmlSystemGetProcessName.
 */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIM_PHANTOM_PID_BASE 3900000u /* PIDs of processes added by grow= faults */

/* ---- PIDs and children ----------------------------------------------------------- */

/* Is this process a spawned child? pid=spawn, or pid=auto (no pid= given)
 * under GPUSCOPE_SIM_SPAWN=1 (what --demo sets: live processes on screen). */
int gs_sim_spawns(const struct gs_scn_proc *sp)
{
    const char *env = getenv("GPUSCOPE_SIM_SPAWN");

    return sp->pid_kind == GS_PID_SPAWN ||
           (sp->pid_kind == GS_PID_AUTO && env && !strcmp(env, "1") && sp->kill == INFINITY);
}

/* pid=env processes take their PIDs from text ("123,456,..."), in order;
 * the others theirs from the scenario unless only_env (a list read again). */
static void sim_assign_pids(const char *env, int only_env)
{
    unsigned pids[4096];
    int npids = 0, next = 0;
    gs_sim.has_kill = 0;
    for (const char *p = env ? env : ""; *p && npids < 4096;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        if (v > 0)
            pids[npids++] = (unsigned)v;
        p = *end == ',' ? end + 1 : end;
    }
    for (int i = 0; i < gs_sim.scn->nprocs; i++) {
        const struct gs_scn_proc *sp = &gs_sim.scn->procs[i];
        struct sim_proc_rt *rt = &gs_sim.procs[i];
        if (sp->kill < INFINITY)
            gs_sim.has_kill = 1;
        if (only_env && sp->pid_kind != GS_PID_ENV)
            continue; /* a spawned child keeps its PID */
        if (sp->pid_kind == GS_PID_SELF)
            rt->pid = (unsigned)getpid();
        else if (sp->pid_kind == GS_PID_ENV && npids > 0)
            rt->pid = pids[next++ % npids]; /* reused cyclically when too few are given */
        else if (sp->pid_kind == GS_PID_ENV || gs_sim_spawns(sp))
            rt->pid = 3800000u + (unsigned)i; /* no PID given / not spawned yet */
        else
            rt->pid = sp->pid;
    }
}

/* Make /proc/self/cmdline say `name` (the whole command line, spaces and
 * all), as setproctitle(3) does: the text goes over the argument area and
 * on into the environment's, and the last byte of the argument area is not
 * a NUL, which tells the kernel to read on. A forked child's own copy. */
static void sim_child_cmdline(const char *name)
{
    char buf[1024], *p;
    unsigned long long v[4] = { 0, 0, 0, 0 };
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    p = strrchr(buf, ')');
    for (int field = 2; p && *p && field < 52; field++) { /* fields 48..51: arg and env areas */
        p = strchr(p + 1, ' ');
        if (p && field >= 47 && field <= 50)
            v[field - 47] = strtoull(p + 1, NULL, 10);
    }
    char *start = (char *)(uintptr_t)v[0];
    char *env_end = (char *)(uintptr_t)v[3];
    size_t len = strlen(name), room = env_end > start ? (size_t)(env_end - start) : 0;
    if (!start || v[1] <= v[0] || room < 2 || v[2] != v[1])
        return;
    if (len >= room)
        len = room - 1;
    /* a name longer than the argument area covers its last byte with a
     * character: the kernel then reads on to the first NUL */
    memset(start, 0, room);
    memcpy(start, name, len);
}

/* GPUSCOPE_SIM_PIDS_FILE: the same list in a file, read again whenever it
 * changes (a soak test's churn of short-lived live processes). */
static void sim_pids_file(int only_env)
{
    const char *path = getenv("GPUSCOPE_SIM_PIDS_FILE");
    struct stat sb;
    char buf[32768];
    if (!path || stat(path, &sb) < 0)
        return;
    long long m = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
    if (m == gs_sim.pids_mtime_ns && (long long)sb.st_size == gs_sim.pids_size)
        return;
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == ' ')
            *p = ',';
    gs_sim.pids_mtime_ns = m;
    gs_sim.pids_size = (long long)sb.st_size;
    sim_assign_pids(buf, only_env);
}

void gs_sim_resolve_pids(void)
{
    gs_sim.pids_mtime_ns = gs_sim.pids_size = -1;
    sim_assign_pids(getenv("GPUSCOPE_SIM_PIDS"), 0);
    sim_pids_file(0);
}

/* The child: dies with the thread that forked it, does nothing, holds no fds,
 * and shows the scenario's process name as its comm and command line. */
static void sim_child(pid_t parent, const char *name, int ready)
{
    int fd = open("/dev/null", O_RDWR);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0);
    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2);
    }
    for (int i = 3; i < 1024; i++)
        if (i != ready)
            close(i);
    if (name) {
        prctl(PR_SET_NAME, name);
        sim_child_cmdline(name);
    }
    if (ready >= 0 && write(ready, "1", 1) < 0) {
        /* the parent then waits for our exit instead */
    }
    close(ready);
    for (;;)
        pause();
}

/* The process group of a spawned child's group= label: the first child of a
 * label leads a new group, later ones join it (0: no label, inherit ours). */
static pid_t sim_group_leader(int upto, const char *group)
{
    for (int k = 0; group && k < upto; k++) {
        const struct gs_scn_proc *o = &gs_sim.scn->procs[k];
        if (gs_sim_spawns(o) && o->group && !strcmp(o->group, group) && gs_sim.procs[k].child > 0)
            return gs_sim.procs[k].child;
    }
    return 0;
}

void gs_sim_procs_start(void)
{
    for (int i = 0; i < gs_sim.scn->nprocs; i++) {
        const struct gs_scn_proc *sp = &gs_sim.scn->procs[i];
        if (!gs_sim_spawns(sp))
            continue;
        pid_t parent = getpid(), leader = sim_group_leader(i, sp->group);
        int ready[2] = { -1, -1 };
        if (pipe2(ready, O_CLOEXEC) < 0)
            ready[0] = ready[1] = -1;
        pid_t child = fork();
        /* group=: one group per label; the demo's processes (pid=auto spawned) are
         * separate jobs, each its own group; pid=spawn without a label: ours */
        bool own = sp->group || sp->pid_kind == GS_PID_AUTO;
        if (child == 0) {
            if (own)
                setpgid(0, leader); /* 0: lead a new group */
            sim_child(parent, sp->name, ready[1]);
        }
        if (child > 0 && own)
            setpgid(child, leader ? leader : child); /* both sides, so no race decides it */
        if (ready[1] >= 0)
            close(ready[1]);
        if (ready[0] >= 0) { /* named before anyone looks at it (or dead) */
            char b;
            while (child > 0 && read(ready[0], &b, 1) < 0 && errno == EINTR) {
            }
            close(ready[0]);
        }
        if (child > 0) {
            gs_sim.procs[i].child = child;
            gs_sim.procs[i].pid = (unsigned)child;
        } else {
            fprintf(stderr, "gpuscope-sim: cannot spawn a child for process %d\n", i);
        }
    }
}

static void sim_reap(struct sim_proc_rt *rt)
{
    if (rt->child > 0) {
        kill(rt->child, SIGKILL);
        waitpid(rt->child, NULL, 0);
        rt->child = 0;
    }
}

void gs_sim_procs_stop(void)
{
    if (!gs_sim.scn || !gs_sim.procs)
        return;
    for (int i = 0; i < gs_sim.scn->nprocs; i++)
        sim_reap(&gs_sim.procs[i]);
}

void gs_sim_procs_tick(double t)
{
    sim_pids_file(1);
    if (!gs_sim.has_kill)
        return;
    for (int i = 0; i < gs_sim.scn->nprocs; i++) {
        struct sim_proc_rt *rt = &gs_sim.procs[i];
        if (!rt->killed && t >= gs_sim.scn->procs[i].kill && gs_sim.scn->procs[i].pid_kind == GS_PID_SPAWN) {
            sim_reap(rt);
            rt->killed = 1;
        }
    }
}

/* ---- values ------------------------------------------------------------------------- */

int gs_sim_proc_visible(const struct sim_call *c, int i)
{
    const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
    return c->t >= p->start && c->t < p->exit;
}

/* A process's memory at the call's t: asked by the process lists and by the
 * GPU's used memory (their sum), so it is kept per process for the last t. */
unsigned long long gs_sim_proc_mem(const struct sim_call *c, int i)
{
    const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
    const struct gs_scn *s = gs_sim.scn;
    struct sim_proc_rt *rt = &gs_sim.procs[i];
    if (!p->mem)
        return NVML_VALUE_NOT_AVAILABLE_ULL;
    if (rt->mem_ok && rt->mem_t == c->t)
        return rt->mem_v;
    struct gs_scn_env env = {.gpu = c->gpu->cfg, .salt = (unsigned)i * 104729u + 17u};
    double v = gs_scn_eval(p->mem, c->t, &env);
    for (int e = 0; e < s->nevents && s->events[e].at <= c->t; e++)
        if (s->events[e].kind == GS_SCN_EV_PROC_MEM && s->events[e].proc == i)
            v += s->events[e].amount;
    rt->mem_t = c->t;
    rt->mem_v = v > 0 ? (unsigned long long)v : 0;
    rt->mem_ok = 1;
    return rt->mem_v;
}

unsigned gs_sim_proc_util(const struct sim_call *c, int i, int which)
{
    const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
    const struct gs_scn_expr *e = which == 0 ? p->sm : which == 1 ? p->memutil : which == 2 ? p->enc : p->dec;
    struct gs_scn_env env = {.gpu = c->gpu->cfg, .salt = (unsigned)i * 104729u + 29u * (unsigned)which};
    double v = e ? gs_scn_eval(e, c->t, &env) : 0.0;
    return v <= 0 ? 0 : v >= 1e6 ? 1000000u : (unsigned)(v + 0.5);
}

/* ---- process lists ------------------------------------------------------------------- */

struct sim_entry {
    unsigned pid;
    unsigned long long mem;
    unsigned gi, ci;
};

/* Collect the processes of one list (type bit) on the call's GPU, phantoms last. */
static unsigned sim_collect(struct sim_call *c, unsigned type, struct sim_entry *out, unsigned cap)
{
    unsigned n = 0;
    gs_sim_procs_tick(c->t);
    for (int k = gs_sim.by_gpu_start[c->gpu->index]; k < gs_sim.by_gpu_start[c->gpu->index + 1]; k++) {
        int i = gs_sim.by_gpu[k];
        const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
        if (!(p->types & type) || !gs_sim_proc_visible(c, i) || !gs_sim_mig_proc_in(c, i))
            continue;
        if (n < cap)
            out[n] = (struct sim_entry){gs_sim.procs[i].pid, gs_sim_proc_mem(c, i), p->gi, p->ci};
        n++;
    }
    for (unsigned k = 0; type == GS_SCN_PROC_COMPUTE && !c->mig && k < c->gpu->grow; k++, n++)
        if (n < cap)
            out[n] = (struct sim_entry){SIM_PHANTOM_PID_BASE + (unsigned)c->gpu->index * 1024u + k,
                                        256ull << 20, NVML_INSTANCE_ID_NONE, NVML_INSTANCE_ID_NONE};
    return n;
}

static void sim_write_entry(void *infos, unsigned idx, size_t size, const struct sim_entry *e)
{
    unsigned char *base = (unsigned char *)infos + (size_t)idx * size;
    if (size == sizeof(nvmlProcessInfo_v1_t)) {
        nvmlProcessInfo_v1_t v = {.pid = e->pid, .usedGpuMemory = e->mem};
        memcpy(base, &v, sizeof(v));
    } else if (size == sizeof(nvmlProcessInfo_v2_t)) {
        nvmlProcessInfo_v2_t v = {e->pid, e->mem, e->gi, e->ci};
        memcpy(base, &v, sizeof(v));
    } else {
        nvmlProcessDetail_v1_t v = {e->pid, e->mem, e->gi, e->ci, 0};
        memcpy(base, &v, sizeof(v));
    }
}

/* The count negotiation shared by all running-process symbols; the caller has
 * begun the call. Ends the call and returns its result. */
static nvmlReturn_t sim_proc_list_locked(struct sim_call *c, unsigned type, unsigned *count, void *infos,
                                         size_t entry_size)
{
    static struct sim_entry entries[GS_SCN_MAX_PROCS + 1024]; /* used under the lock */
    if (!count)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    unsigned n = sim_collect(c, type, entries, sizeof(entries) / sizeof(entries[0]));
    if (*count < n) {
        *count = n;
        return gs_sim_end(c, NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n > 0 && !infos)
        return gs_sim_end(c, NVML_ERROR_INVALID_ARGUMENT);
    for (unsigned i = 0; i < n; i++)
        sim_write_entry(infos, i, entry_size, &entries[i]);
    *count = n;
    return gs_sim_end(c, NVML_SUCCESS);
}

static nvmlReturn_t sim_proc_list(enum sim_sym sym, nvmlDevice_t dev, unsigned type, unsigned *count,
                                  void *infos, size_t entry_size)
{
    struct sim_call c;
    nvmlReturn_t r = gs_sim_begin_dev(&c, sym, dev, GS_SCN_F_PROCS);
    if (r != NVML_SUCCESS)
        return r;
    /* r535early writes 32-byte records through _v3 (decided under the lock) */
    return sim_proc_list_locked(&c, type, count, infos, entry_size ? entry_size : gs_sim.v3_entry_bytes);
}

#define SIM_PROC_FN(fam, suffix, typebit, size)                                                  \
    nvmlReturn_t nvmlDeviceGet##fam##RunningProcesses##suffix(nvmlDevice_t device,               \
                                                              unsigned int *infoCount,          \
                                                              SIM_PROC_T##suffix *infos)         \
    {                                                                                            \
        return sim_proc_list(SIM_SYM_nvmlDeviceGet##fam##RunningProcesses##suffix, device,      \
                             typebit, infoCount, infos, size);                                  \
    }
#define SIM_PROC_T nvmlProcessInfo_v1_t
#define SIM_PROC_T_v2 nvmlProcessInfo_v2_t
#define SIM_PROC_T_v3 nvmlProcessInfo_t

SIM_PROC_FN(Compute, , GS_SCN_PROC_COMPUTE, sizeof(nvmlProcessInfo_v1_t))
SIM_PROC_FN(Compute, _v2, GS_SCN_PROC_COMPUTE, sizeof(nvmlProcessInfo_v2_t))
SIM_PROC_FN(Compute, _v3, GS_SCN_PROC_COMPUTE, 0)
SIM_PROC_FN(Graphics, , GS_SCN_PROC_GRAPHICS, sizeof(nvmlProcessInfo_v1_t))
SIM_PROC_FN(Graphics, _v2, GS_SCN_PROC_GRAPHICS, sizeof(nvmlProcessInfo_v2_t))
SIM_PROC_FN(Graphics, _v3, GS_SCN_PROC_GRAPHICS, 0)
SIM_PROC_FN(MPSCompute, , GS_SCN_PROC_MPS, sizeof(nvmlProcessInfo_v1_t))
SIM_PROC_FN(MPSCompute, _v2, GS_SCN_PROC_MPS, sizeof(nvmlProcessInfo_v2_t))
SIM_PROC_FN(MPSCompute, _v3, GS_SCN_PROC_MPS, 0)

nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, nvmlProcessDetailList_v1_t *plist)
{
    static const unsigned types[3] = {GS_SCN_PROC_COMPUTE, GS_SCN_PROC_GRAPHICS, GS_SCN_PROC_MPS};
    SIM_BEGIN_DEV(nvmlDeviceGetRunningProcessDetailList, device, GS_SCN_F_PROCS);
    if (!plist)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    if (plist->version != nvmlProcessDetailList_v1)
        return gs_sim_end(&c, NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    if (plist->mode > 2)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    return sim_proc_list_locked(&c, types[plist->mode], &plist->numProcArrayEntries, plist->procArray,
                                sizeof(nvmlProcessDetail_v1_t));
}

nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, nvmlConfComputeMemSizeInfo_t *info)
{
    SIM_BEGIN_DEV(nvmlDeviceGetConfComputeMemSizeInfo, device, -1);
    (void)info;
    return gs_sim_end(&c, NVML_ERROR_NOT_SUPPORTED); /* confidential computing is off */
}

/* ---- process name ------------------------------------------------------------------------ */

static int sim_read_comm(unsigned pid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%u/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(out, 1, len - 1, f);
    fclose(f);
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return 0;
}

nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    char buf[256];
    SIM_BEGIN(nvmlSystemGetProcessName);
    if (!name || length == 0)
        return gs_sim_end(&c, NVML_ERROR_INVALID_ARGUMENT);
    gs_sim_procs_tick(c.t);
    for (int i = 0; i < gs_sim.scn->nprocs; i++) {
        const struct gs_scn_proc *p = &gs_sim.scn->procs[i];
        if (gs_sim.procs[i].pid != pid)
            continue;
        if (gs_sim.procs[i].killed || p->hidden) /* hidden: not in the caller's PID namespace */
            return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
        if (p->name)
            return gs_sim_end(&c, gs_sim_copy_str(name, length, p->name));
        break;
    }
    if (sim_read_comm(pid, buf, sizeof(buf)) < 0)
        return gs_sim_end(&c, NVML_ERROR_NOT_FOUND);
    return gs_sim_end(&c, gs_sim_copy_str(name, length, buf));
}
