/* SPDX-License-Identifier: MIT */
/*
 * test_hostproc.c - host process facts (src/core/hostproc.c): the cgroup
 * parser (the stat parser's are in test_procstat.c), the fixture tree
 * tests/fixtures/proc (docker, containerd, cri-o, podman, plain, odd comm,
 * missing PID, truncated stat), per-tick
 * caching and eviction on generated trees, and live checks on the real /proc
 * of this test process (CPU % after burning CPU, a child that exits, a
 * one-shot read giving what a full read gives).
 * Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/hostproc.h"

/* The text arena the filled processes' command lines go into (one for the whole
 * file, as a GPU's is for its processes; reachable, so no leak is reported). */
static struct gs_text tx;
#define CMDP(p) gs_proc_cmdline(&tx, (p))
#define CMD(p) gs_proc_cmdline(&tx, &(p))

#define FIXTURE_ROOT "tests/fixtures/proc"
#define FIXTURE_BTIME 1700000000
#define NOW_S 1700010000

#define HEX_A "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"
#define HEX_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HEX_C "aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899"
#define HEX_D "5b2a1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b"

static long clk_tck(void)
{
    return sysconf(_SC_CLK_TCK);
}

static struct gs_proc proc_for(uint32_t pid)
{
    struct gs_proc p;

    memset(&p, 0, sizeof(p));
    p.pid = pid;
    return p;
}

/* ---- cgroup parser ------------------------------------------------------------------- */

struct cg_case {
    const char *text;
    const char *id;
    const char *runtime;
    const char *pod;
};

static void check_cgroup(const struct cg_case *c)
{
    struct gs_proc p = proc_for(1);

    assert_int_equal(gs_hostproc_parse_cgroup(c->text, strlen(c->text), &p), 0);
    assert_true(gs_proc_has(&p, GS_P_CONTAINER));
    assert_true(gs_proc_has(&p, GS_P_POD));
    if (strcmp(p.container_id, c->id) || strcmp(p.container_runtime, c->runtime) ||
        strcmp(p.pod_uid, c->pod))
        fail_msg("cgroup %s\n got id=%s runtime=%s pod=%s", c->text, p.container_id,
                 p.container_runtime, p.pod_uid);
}

static void test_cgroup_shapes(void **state)
{
    static const struct cg_case cases[] = {
        { "12:pids:/docker/" HEX_A "\n1:name=systemd:/docker/" HEX_A "\n", HEX_A, "docker", "" },
        { "0::/system.slice/docker-" HEX_A ".scope\n", HEX_A, "docker", "" },
        { "11:memory:/kubepods/burstable/pod1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d/" HEX_B "\n", HEX_B, "",
          "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" },
        { "0::/kubepods/pod1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d/" HEX_B "\n", HEX_B, "",
          "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" },
        { "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b3c4d_5e6f_7a8b_9c0d_"
          "1e2f3a4b5c6d.slice/cri-containerd-" HEX_B ".scope\n",
          HEX_B, "containerd", "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" },
        { "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0f1e2d3c_4b5a_6978_8a9b_"
          "acbdcefd0e1f.slice/crio-" HEX_C ".scope\n",
          HEX_C, "cri-o", "0f1e2d3c-4b5a-6978-8a9b-acbdcefd0e1f" },
        /* cri-o's conmon: in the pod, not in the container */
        { "0::/kubepods.slice/kubepods-pod0f1e2d3c_4b5a_6978_8a9b_acbdcefd0e1f.slice/crio-conmon-" HEX_C
          ".scope\n",
          "", "", "0f1e2d3c-4b5a-6978-8a9b-acbdcefd0e1f" },
        { "0::/machine.slice/libpod-" HEX_D ".scope/container\n", HEX_D, "podman", "" },
        { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" HEX_A ".scope\n", HEX_A,
          "docker", "" },
        /* kind: a node container holding kubepods; the innermost container wins */
        { "0::/docker/" HEX_A "/kubepods/besteffort/pod0f1e2d3c-4b5a-6978-8a9b-acbdcefd0e1f/" HEX_B "\n",
          HEX_B, "", "0f1e2d3c-4b5a-6978-8a9b-acbdcefd0e1f" },
        /* private cgroup namespace: paths relative to our root */
        { "0::/../../kubepods-burstable-pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d.slice/cri-containerd-" HEX_B
          ".scope\n",
          HEX_B, "containerd", "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d" },
        { "0::/user.slice/user-1000.slice/session-3.scope\n", "", "", "" },
        { "0::/\n", "", "", "" },
        /* hybrid: v1 controllers at / and the real path later; no trailing newline */
        { "3:cpuset:/\n0::/system.slice/docker-" HEX_A ".scope", HEX_A, "docker", "" },
        /* not 64 hex: not an id */
        { "0::/docker/" HEX_A "0\n0::/docker-" "ABCDEF" ".scope\n", "", "", "" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_cgroup(&cases[i]);
}

/* Slurm jobs: real /proc/PID/cgroup contents of job steps (cgroup v1 with
 * task/cgroup, Slurm 22.05+'s cgroup/v2) and of things that are not jobs. */
struct slurm_case {
    const char *text;
    uint32_t job;
    const char *step;
};

static void test_cgroup_slurm(void **state)
{
    static const struct slurm_case cases[] = {
        { "12:devices:/slurm/uid_1000/job_1234/step_0/task_0\n11:memory:/slurm/uid_1000/job_1234/step_0/task_0\n"
          "4:freezer:/slurm/uid_1000/job_1234/step_0\n1:name=systemd:/system.slice/slurmd.service\n",
          1234, "0" },
        { "5:freezer:/slurm/uid_0/job_77/step_batch\n", 77, "batch" },
        { "5:freezer:/slurm_node07/uid_0/job_77/step_extern\n", 77, "extern" },
        { "0::/system.slice/slurmstepd.scope/job_4294967294/step_0/user/task_0\n", 4294967294u, "0" },
        { "0::/system.slice/slurmstepd.scope/job_31/step_batch/user/task_0", 31, "batch" },
        { "0::/system.slice/slurmstepd.scope/job_31/step_interactive/user/task_0\n", 31, "interactive" },
        { "0::/system.slice/slurmstepd.scope/job_31/step_extern/slurm\n", 31, "extern" },
        { "0::/system.slice/gpu07_slurmstepd.scope/job_9/step_2/user/task_1\n", 9, "2" },
        { "0::/system.slice/slurmstepd.scope/job_12\n", 12, "" },
        /* not jobs: the daemons, other schedulers, look-alikes without the anchor */
        { "0::/system.slice/slurmd.service\n", 0, "" },
        { "0::/system.slice/slurmstepd.scope/system\n", 0, "" },
        { "1:name=systemd:/slurm/uid_1000\n", 0, "" },
        { "0::/system.slice/docker-" HEX_A ".scope\n", 0, "" },
        { "0::/kubepods.slice/kubepods-pod1a2b3c4d_5e6f_7a8b_9c0d_1e2f3a4b5c6d.slice/cri-containerd-" HEX_B
          ".scope\n", 0, "" },
        { "0::/user.slice/user-1000.slice/session-3.scope\n", 0, "" },
        { "0::/user.slice/user-1000.slice/user@1000.service/app.slice/job_5/step_0\n", 0, "" },
        { "0::/pbs_jobs.service/jobid/123.server\n", 0, "" },
        { "0::/system.slice/myslurmstepd.scope/job_5/step_0\n", 0, "" },
        { "4:cpuset:/slurm/uid_x/job_5/step_0\n", 0, "" },
        { "4:cpuset:/slurm/uid_1/job_0/step_0\n", 0, "" },
        { "4:cpuset:/slurm/uid_1/job_99999999999/step_0\n", 0, "" },
        { "4:cpuset:/slurm/uid_1/job_12a/step_0\n", 0, "" },
        /* a step name that is not one (upper case, too long) is left out, the job kept */
        { "0::/system.slice/slurmstepd.scope/job_8/step_BAD\n", 8, "" },
        { "0::/system.slice/slurmstepd.scope/job_8/step_0123456789012345678901234\n", 8, "" },
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct gs_proc p = proc_for(1);
        assert_int_equal(gs_hostproc_parse_cgroup(cases[i].text, strlen(cases[i].text), &p), 0);
        assert_true(gs_proc_has(&p, GS_P_SLURM));
        if (p.slurm_job != cases[i].job || strcmp(p.slurm_step, cases[i].step))
            fail_msg("cgroup %s\n got job=%u step=%s", cases[i].text, p.slurm_job, p.slurm_step);
    }
}

static void test_cgroup_malformed(void **state)
{
    static const char *const bad[] = { "", "\n\n", "garbage", "0:/no-second-colon\n", "0::relative\n" };
    struct gs_proc p = proc_for(1);
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        p.valid = UINT32_MAX;
        assert_int_equal(gs_hostproc_parse_cgroup(bad[i], strlen(bad[i]), &p), -1);
        assert_false(gs_proc_has(&p, GS_P_CONTAINER));
        assert_false(gs_proc_has(&p, GS_P_POD));
        assert_string_equal(p.container_id, "");
    }
}

/* ---- the fixture tree ---------------------------------------------------------------- */

struct fixture {
    struct gs_hostproc *hp;
    struct gs_proc procs[9];
};

static int fixture_setup(void **state)
{
    static const uint32_t pids[] = { 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1001 };
    struct fixture *f = calloc(1, sizeof(*f));

    if (!f || gs_hostproc_open(&f->hp, FIXTURE_ROOT) < 0)
        return -1;
    gs_hostproc_begin(f->hp, UINT64_C(1000000000), NOW_S);
    for (size_t i = 0; i < 9; i++) {
        f->procs[i] = proc_for(pids[i]);
        f->procs[i].gpu_mem_bytes = 7; /* NVML's fields: must survive the fill */
        f->procs[i].valid = 1u << GS_P_GPU_MEM;
        gs_hostproc_fill(f->hp, &tx, &f->procs[i]);
    }
    gs_hostproc_end(f->hp);
    *state = f;
    return 0;
}

static int fixture_teardown(void **state)
{
    struct fixture *f = *state;

    gs_hostproc_close(f->hp);
    free(f);
    return 0;
}

static void test_fixture_docker_v1(void **state)
{
    struct fixture *f = *state;
    struct gs_proc *p = &f->procs[0];

    assert_int_equal(p->host_vis, GS_HOST_VISIBLE);
    assert_true(gs_proc_has(p, GS_P_GPU_MEM));
    assert_int_equal(p->gpu_mem_bytes, 7);
    assert_string_equal(p->comm, "python3");
    assert_string_equal(CMDP(p), "python3 train.py --epochs 100");
    assert_true(gs_proc_has(p, GS_P_USER));
    assert_int_equal(p->uid, 0);
    assert_string_equal(p->user, "root");
    assert_int_equal(p->ppid, 900);
    assert_int_equal(p->pgid, 1001);
    assert_int_equal(p->rss_bytes, 2560ull * (uint64_t)sysconf(_SC_PAGESIZE));
    assert_true(gs_proc_has(p, GS_P_START));
    assert_int_equal(p->start_time, FIXTURE_BTIME + 12345 / clk_tck());
    assert_int_equal(p->age_s, (uint64_t)(NOW_S - p->start_time));
    assert_false(gs_proc_has(p, GS_P_CPU)); /* one tick: no delta yet */
    assert_string_equal(p->container_id, HEX_A);
    assert_string_equal(p->container_runtime, "docker");
    assert_string_equal(p->pod_uid, "");
    /* the same PID on a second GPU: same facts from the tick cache */
    assert_string_equal(CMD(f->procs[8]), CMDP(p));
    assert_int_equal(f->procs[8].valid, p->valid);
}

static void test_fixture_k8s(void **state)
{
    struct fixture *f = *state;
    struct gs_proc *c = &f->procs[1], *o = &f->procs[2];

    assert_int_equal(c->host_vis, GS_HOST_VISIBLE);
    assert_string_equal(c->user, "nobody");
    assert_string_equal(CMDP(c), "torchrun --nproc-per-node=8 pretrain.py");
    assert_string_equal(c->container_runtime, "containerd");
    assert_string_equal(c->container_id, HEX_B);
    assert_string_equal(c->pod_uid, "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d");
    assert_int_equal(c->rss_bytes, 1048576ull * (uint64_t)sysconf(_SC_PAGESIZE));
    assert_string_equal(o->container_runtime, "cri-o");
    assert_string_equal(o->container_id, HEX_C);
    assert_string_equal(o->pod_uid, "0f1e2d3c-4b5a-6978-8a9b-acbdcefd0e1f");
    assert_int_equal(o->uid, 4242);
    assert_string_equal(o->user, "4242"); /* no passwd entry: the number */
    assert_string_equal(f->procs[7].container_runtime, "podman");
    assert_string_equal(f->procs[7].container_id, HEX_D);
}

static void test_fixture_plain_and_odd(void **state)
{
    struct fixture *f = *state;
    struct gs_proc *plain = &f->procs[3], *odd = &f->procs[4];

    assert_string_equal(CMDP(plain), "/usr/bin/blender -b scene.blend");
    assert_true(gs_proc_has(plain, GS_P_CONTAINER));
    assert_string_equal(plain->container_id, "");
    assert_string_equal(plain->pod_uid, "");
    assert_string_equal(odd->comm, "a) (b");
    assert_int_equal(odd->ppid, 1001);
    assert_int_equal(odd->start_time, FIXTURE_BTIME + 900000 / clk_tck());
    assert_int_equal(odd->rss_bytes, 10ull * (uint64_t)sysconf(_SC_PAGESIZE));
}

static void test_fixture_missing_and_truncated(void **state)
{
    struct fixture *f = *state;
    struct gs_proc *gone = &f->procs[5], *trunc = &f->procs[6];

    assert_int_equal(gone->host_vis, GS_HOST_NOT_VISIBLE);
    assert_int_equal(gone->valid, 1u << GS_P_GPU_MEM); /* no host field, NVML's kept */
    assert_int_equal(trunc->host_vis, GS_HOST_VISIBLE);
    assert_string_equal(trunc->comm, "trunc");
    assert_string_equal(CMDP(trunc), "train --fast");
    assert_true(gs_proc_has(trunc, GS_P_USER));
    assert_false(gs_proc_has(trunc, GS_P_RSS));
    assert_false(gs_proc_has(trunc, GS_P_START));
    assert_false(gs_proc_has(trunc, GS_P_PARENT));
    assert_false(gs_proc_has(trunc, GS_P_CPU));
}

static void test_missing_root(void **state)
{
    struct gs_hostproc *hp;
    struct gs_proc p = proc_for(1);
    (void)state;
    assert_int_equal(gs_hostproc_open(&hp, "/nonexistent/proc/root"), 0);
    gs_hostproc_begin(hp, 1, NOW_S);
    gs_hostproc_fill(hp, &tx, &p);
    gs_hostproc_end(hp);
    assert_int_equal(p.host_vis, GS_HOST_NOT_VISIBLE);
    assert_int_equal(p.valid, 0);
    gs_hostproc_close(hp);
}

/* ---- generated trees: caching, recycling, eviction, CPU % ------------------------------- */

struct tree {
    char root[64];
};

static void write_file(const struct tree *t, uint32_t pid, const char *name, const void *data, size_t len)
{
    char path[256];
    int fd;

    snprintf(path, sizeof(path), "%s/%u", t->root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%u/%s", t->root, pid, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, len), (ssize_t)len);
    close(fd);
}

static void write_stat(const struct tree *t, uint32_t pid, const char *comm, uint64_t cpu_ticks,
                       uint64_t start_ticks)
{
    char buf[256];
    int n = snprintf(buf, sizeof(buf), "%u (%s) S 1 %u %u 0 -1 0 0 0 0 0 %llu 0 0 0 20 0 1 0 %llu 1000 50\n",
                     pid, comm, pid, pid, (unsigned long long)cpu_ticks, (unsigned long long)start_ticks);
    write_file(t, pid, "stat", buf, (size_t)n);
}

static void write_proc(const struct tree *t, uint32_t pid, const char *cmd, uint64_t start_ticks)
{
    static const char status[] = "Name:\tx\nUid:\t0\t0\t0\t0\n";
    static const char cgroup[] = "0::/system.slice/docker-" HEX_A ".scope\n";

    write_stat(t, pid, "worker", 0, start_ticks);
    write_file(t, pid, "cmdline", cmd, strlen(cmd) + 1);
    write_file(t, pid, "status", status, sizeof(status) - 1);
    write_file(t, pid, "cgroup", cgroup, sizeof(cgroup) - 1);
}

static void remove_proc(const struct tree *t, uint32_t pid)
{
    static const char *const names[] = { "stat", "cmdline", "status", "cgroup", "comm" };
    char path[256];

    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof(path), "%s/%u/%s", t->root, pid, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/%u", t->root, pid);
    rmdir(path);
}

static int tree_setup(void **state)
{
    struct tree *t = calloc(1, sizeof(*t));
    char path[128];

    if (!t)
        return -1;
    snprintf(t->root, sizeof(t->root), "/tmp/gs-hostproc-XXXXXX");
    if (!mkdtemp(t->root))
        return -1;
    snprintf(path, sizeof(path), "%s/stat", t->root);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    fprintf(fp, "cpu 1 2 3\nbtime %d\n", FIXTURE_BTIME);
    fclose(fp);
    *state = t;
    return 0;
}

static int tree_teardown(void **state)
{
    struct tree *t = *state;
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
    if (system(cmd) != 0)
        return -1;
    free(t);
    return 0;
}

/* One tick holding just pid: returns the filled process. */
static struct gs_proc tick_one(struct gs_hostproc *hp, uint64_t now_ns, uint32_t pid)
{
    struct gs_proc p = proc_for(pid);

    gs_hostproc_begin(hp, now_ns, NOW_S);
    gs_hostproc_fill(hp, &tx, &p);
    gs_hostproc_end(hp);
    return p;
}

/* A one-shot reads only the files its output prints: the table (user and short
 * name) neither stat nor cmdline. Here both are directories, which read as an
 * error: reading either would mark the process gone, as the full read does. */
static void test_once_reads_only_printed(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    char path[256];

    write_proc(t, 2101, "job --secret", 100);
    write_file(t, 2101, "comm", "worker\n", 7);
    static const char *const unreadable[] = { "stat", "cmdline" };
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/2101/%s", t->root, unreadable[i]);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkdir(path, 0755), 0);
    }
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    gs_hostproc_once(hp, (1u << GS_P_USER) | (1u << GS_P_COMM) | GS_HOSTPROC_NO_CMDLINE);
    struct gs_proc p = tick_one(hp, 1000, 2101);
    assert_int_equal(p.host_vis, GS_HOST_VISIBLE);
    assert_true(gs_proc_has(&p, GS_P_USER) && gs_proc_has(&p, GS_P_COMM));
    assert_string_equal(p.user, "root");
    assert_string_equal(p.comm, "worker");
    assert_string_equal(CMD(p), "");
    assert_false(gs_proc_has(&p, GS_P_START));
    gs_hostproc_close(hp);
    /* the detector works: with the command line wanted, the same tree reads as gone */
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    gs_hostproc_once(hp, (1u << GS_P_USER) | (1u << GS_P_COMM));
    p = tick_one(hp, 1000, 2101);
    assert_int_not_equal(p.host_vis, GS_HOST_VISIBLE);
    gs_hostproc_close(hp);
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/2101/%s", t->root, unreadable[i]);
        rmdir(path);
    }
}

static void test_once_per_tick(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    struct gs_proc a = proc_for(2001), b = proc_for(2001);

    write_proc(t, 2001, "job --x", 100);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    gs_hostproc_begin(hp, 1000, NOW_S);
    gs_hostproc_fill(hp, &tx, &a);
    remove_proc(t, 2001); /* a second read this tick would see nothing */
    gs_hostproc_fill(hp, &tx, &b);
    gs_hostproc_end(hp);
    assert_int_equal(b.host_vis, GS_HOST_VISIBLE);
    assert_string_equal(CMD(b), "job --x");
    assert_string_equal(b.container_runtime, "docker");
    /* next tick: gone, and we had seen it, so it exited; what it was is kept */
    b = tick_one(hp, 2000, 2001);
    assert_int_equal(b.host_vis, GS_HOST_EXITED);
    assert_string_equal(CMD(b), "job --x");
    assert_false(gs_proc_has(&b, GS_P_CPU));
    assert_false(gs_proc_has(&b, GS_P_RSS));
    gs_hostproc_close(hp);
}

static void test_identity_cache_and_recycle(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    struct gs_proc p;

    write_proc(t, 2002, "first", 500);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    p = tick_one(hp, 1000, 2002);
    assert_string_equal(CMD(p), "first");
    /* same PID + start time: the command line is not read again */
    write_file(t, 2002, "cmdline", "changed", 8);
    p = tick_one(hp, 2000, 2002);
    assert_string_equal(CMD(p), "first");
    /* comm may change (prctl): it is re-read, the command line stays cached
     * (a process that execs loses its GPU context, so NVML shows a new one) */
    write_stat(t, 2002, "newname", 0, 500);
    p = tick_one(hp, 3000, 2002);
    assert_string_equal(CMD(p), "first");
    assert_string_equal(p.comm, "newname");
    /* a recycled PID (new start time) is a new process */
    write_file(t, 2002, "cmdline", "second", 7);
    write_stat(t, 2002, "newname", 0, 900);
    p = tick_one(hp, 4000, 2002);
    assert_string_equal(CMD(p), "second");
    assert_false(gs_proc_has(&p, GS_P_CPU)); /* no delta across processes */
    assert_int_equal(p.start_time, FIXTURE_BTIME + 900 / clk_tck());
    gs_hostproc_close(hp);
}

static void test_eviction(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    struct gs_proc p;

    write_proc(t, 2003, "before", 500);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    p = tick_one(hp, 1000, 2003);
    assert_string_equal(CMD(p), "before");
    gs_hostproc_begin(hp, 2000, NOW_S); /* a tick without 2003 forgets it */
    gs_hostproc_end(hp);
    write_file(t, 2003, "cmdline", "after", 6);
    p = tick_one(hp, 3000, 2003);
    assert_string_equal(CMD(p), "after");
    /* forgotten, then absent: never seen by this handle, so "not visible" */
    gs_hostproc_begin(hp, 4000, NOW_S);
    gs_hostproc_end(hp);
    remove_proc(t, 2003);
    p = tick_one(hp, 5000, 2003);
    assert_int_equal(p.host_vis, GS_HOST_NOT_VISIBLE);
    gs_hostproc_close(hp);
}

static void test_cpu_pct(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    struct gs_proc p;
    long hz = clk_tck();

    write_proc(t, 2004, "busy", 500);
    write_stat(t, 2004, "worker", 1000, 500);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    p = tick_one(hp, UINT64_C(10000000000), 2004);
    assert_false(gs_proc_has(&p, GS_P_CPU));
    /* one CPU-second in two seconds: 50 % */
    write_stat(t, 2004, "worker", 1000 + (uint64_t)hz, 500);
    p = tick_one(hp, UINT64_C(12000000000), 2004);
    assert_true(gs_proc_has(&p, GS_P_CPU));
    assert_float_equal(p.cpu_pct, 50.0, 1e-9);
    /* four cores busy for a second: 400 % */
    write_stat(t, 2004, "worker", 1000 + 5 * (uint64_t)hz, 500);
    p = tick_one(hp, UINT64_C(13000000000), 2004);
    assert_float_equal(p.cpu_pct, 400.0, 1e-9);
    gs_hostproc_close(hp);
}

/* Many PIDs coming and going: the table grows and deletes without losing any. */
static void test_table_churn(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    enum { N = 300, BASE = 30000 };

    for (uint32_t i = 0; i < N; i++)
        write_proc(t, BASE + i * 7, "w", 100 + i);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    gs_hostproc_begin(hp, 1000, NOW_S);
    for (uint32_t i = 0; i < N; i++) {
        struct gs_proc p = proc_for(BASE + i * 7);
        gs_hostproc_fill(hp, &tx, &p);
        assert_int_equal(p.host_vis, GS_HOST_VISIBLE);
    }
    gs_hostproc_end(hp);
    for (uint32_t i = 0; i < N; i++)
        remove_proc(t, BASE + i * 7);
    /* keep the even ones (still known: "exited"), forget the odd ones */
    gs_hostproc_begin(hp, 2000, NOW_S);
    for (uint32_t i = 0; i < N; i += 2) {
        struct gs_proc p = proc_for(BASE + i * 7);
        gs_hostproc_fill(hp, &tx, &p);
        assert_int_equal(p.host_vis, GS_HOST_EXITED);
    }
    gs_hostproc_end(hp);
    gs_hostproc_begin(hp, 3000, NOW_S);
    for (uint32_t i = 0; i < N; i++) {
        struct gs_proc p = proc_for(BASE + i * 7);
        gs_hostproc_fill(hp, &tx, &p);
        assert_int_equal(p.host_vis, i % 2 ? GS_HOST_NOT_VISIBLE : GS_HOST_EXITED);
    }
    gs_hostproc_end(hp);
    gs_hostproc_close(hp);
}

static void test_no_permission(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    struct gs_proc p;
    char path[256];

    if (geteuid() == 0)
        skip(); /* root reads mode-000 files */
    write_proc(t, 2005, "secret", 100);
    snprintf(path, sizeof(path), "%s/2005/stat", t->root);
    chmod(path, 0);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    p = tick_one(hp, 1000, 2005);
    assert_int_equal(p.host_vis, GS_HOST_NO_PERMISSION);
    assert_int_equal(p.valid, 0);
    gs_hostproc_close(hp);
}

/* ---- live: the real /proc ------------------------------------------------------------- */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void burn_cpu_ms(unsigned ms)
{
    struct timespec a, b;
    volatile uint64_t x = 0;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    do {
        for (int i = 0; i < 100000; i++)
            x += (uint64_t)i * x + 1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_live_self(void **state)
{
    struct gs_hostproc *hp;
    struct gs_proc p = proc_for((uint32_t)getpid());
    struct passwd *pw = getpwuid(getuid());
    (void)state;
    assert_int_equal(gs_hostproc_open(&hp, NULL), 0);
    uint64_t wall0 = mono_ns(), cpu0 = cpu_ns();
    gs_hostproc_begin(hp, wall0, time(NULL));
    gs_hostproc_fill(hp, &tx, &p);
    gs_hostproc_end(hp);
    assert_int_equal(p.host_vis, GS_HOST_VISIBLE);
    assert_int_equal(p.uid, getuid());
    if (pw)
        assert_string_equal(p.user, pw->pw_name);
    assert_non_null(strstr(CMD(p), "test_hostproc"));
    assert_int_equal(p.ppid, (uint32_t)getppid());
    assert_int_equal(p.pgid, (uint32_t)getpgrp());
    assert_true(p.rss_bytes > 0);
    assert_true(gs_proc_has(&p, GS_P_START));
    assert_true(p.age_s < 3600); /* this process started moments ago */
    burn_cpu_ms(300);
    uint64_t wall1 = mono_ns(), cpu1 = cpu_ns();
    gs_hostproc_begin(hp, wall1, time(NULL));
    gs_hostproc_fill(hp, &tx, &p);
    gs_hostproc_end(hp);
    assert_true(gs_proc_has(&p, GS_P_CPU));
    /* one thread burning: ~100 % of a core on an idle machine, what the
     * scheduler gave us on a shared one: compare with our own CPU clock over
     * the same span (the fills' own cost and the reading's moment aside) */
    double want = 100.0 * (double)(cpu1 - cpu0) / (double)(wall1 - wall0);
    if (p.cpu_pct < want - 10.0 || p.cpu_pct > want + 10.0 || p.cpu_pct > 130.0)
        fail_msg("cpu_pct %.1f after burning 300 ms; this process's own clocks say %.1f", p.cpu_pct, want);
    gs_hostproc_close(hp);
}

static void test_live_child_exits(void **state)
{
    struct gs_hostproc *hp;
    pid_t child = fork();
    struct gs_proc p;
    (void)state;
    assert_true(child >= 0);
    if (child == 0) {
        pause();
        _exit(0);
    }
    assert_int_equal(gs_hostproc_open(&hp, NULL), 0);
    p = tick_one(hp, mono_ns(), (uint32_t)child);
    assert_int_equal(p.host_vis, GS_HOST_VISIBLE);
    assert_int_equal(p.ppid, (uint32_t)getpid());
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    p = tick_one(hp, mono_ns(), (uint32_t)child);
    assert_int_equal(p.host_vis, GS_HOST_EXITED);
    assert_false(gs_proc_has(&p, GS_P_RSS));
    /* a PID beyond any pid_max is simply not visible */
    p = tick_one(hp, mono_ns(), UINT32_C(0x7ffffff0));
    assert_int_equal(p.host_vis, GS_HOST_NOT_VISIBLE);
    gs_hostproc_close(hp);
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    assert_non_null(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* A child that sleeps as uid (when we are root and uid is not 0), made
 * dumpable or not by prctl (dumpable >= 0): the files in a non-dumpable
 * process's /proc directory belong to root. Returns its PID once it is set. */
static pid_t sleeping_child(uid_t uid, int dumpable)
{
    int fds[2];
    char c = 0;
    pid_t child;

    assert_int_equal(pipe(fds), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(fds[0]);
        if (uid != 0 && getuid() == 0 && setresuid(uid, uid, uid) < 0)
            _exit(1);
        if (dumpable >= 0)
            prctl(PR_SET_DUMPABLE, dumpable, 0, 0, 0);
        if (write(fds[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(fds[1]);
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    return child;
}

/* A one-shot read (gs_hostproc_once) gives what a full read gives (no CPU %:
 * that needs two readings) and keeps no descriptor open; asked for user and
 * command alone (the table), it gives those. */
static void check_once_light(pid_t child, uid_t want_uid, const struct gs_proc *full)
{
    struct gs_hostproc *hp;
    struct gs_proc b = proc_for((uint32_t)child);

    assert_int_equal(gs_hostproc_open(&hp, NULL), 0);
    gs_hostproc_once(hp, (1u << GS_P_USER) | (1u << GS_P_COMM));
    int before = open_fds();
    gs_hostproc_begin(hp, mono_ns(), time(NULL));
    gs_hostproc_fill(hp, &tx, &b);
    gs_hostproc_end(hp);
    assert_int_equal(open_fds(), before);
    assert_int_equal(b.host_vis, GS_HOST_VISIBLE);
    assert_true(gs_proc_has(&b, GS_P_USER) && gs_proc_has(&b, GS_P_COMM));
    assert_int_equal(b.uid, want_uid);
    assert_string_equal(b.user, full->user);
    assert_string_equal(b.comm, full->comm);
    assert_string_equal(CMD(b), CMDP(full));
    gs_hostproc_close(hp);
}

static void check_once_matches(pid_t child, uid_t want_uid)
{
    struct gs_hostproc *full, *once;
    struct gs_proc a = proc_for((uint32_t)child), b = proc_for((uint32_t)child);

    assert_int_equal(gs_hostproc_open(&full, NULL), 0);
    assert_int_equal(gs_hostproc_open(&once, NULL), 0);
    gs_hostproc_once(once, 0);
    gs_hostproc_begin(full, mono_ns(), time(NULL));
    gs_hostproc_fill(full, &tx, &a);
    gs_hostproc_end(full);
    int before = open_fds();
    gs_hostproc_begin(once, mono_ns(), time(NULL));
    gs_hostproc_fill(once, &tx, &b);
    gs_hostproc_end(once);
    assert_int_equal(open_fds(), before);
    assert_int_equal(b.host_vis, GS_HOST_VISIBLE);
    assert_true(gs_proc_has(&b, GS_P_USER));
    assert_int_equal(b.uid, want_uid);
    assert_int_equal(a.uid, b.uid);
    assert_string_equal(a.user, b.user);
    assert_string_equal(a.comm, b.comm);
    assert_string_equal(CMD(a), CMD(b));
    assert_int_equal(a.ppid, b.ppid);
    assert_int_equal(a.pgid, b.pgid);
    assert_int_equal(a.start_time, b.start_time);
    assert_string_equal(a.container_id, b.container_id);
    assert_false(gs_proc_has(&b, GS_P_CPU));
    assert_true(gs_proc_has(&b, GS_P_RSS));
    check_once_light(child, want_uid, &a);
    gs_hostproc_close(full);
    gs_hostproc_close(once);
}

static void test_live_once(void **state)
{
    pid_t child = sleeping_child(0, -1);
    (void)state;

    check_once_matches(child, getuid());
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    if (getuid() != 0)
        return; /* the other users' cases need root to switch uids */
    /* another user, dumpable: its directory's owner says who */
    child = sleeping_child(65534, 1);
    check_once_matches(child, 65534);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    /* another user, not dumpable (its files are root's, its directory is not) */
    child = sleeping_child(65534, 0);
    check_once_matches(child, 65534);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
}

int main(void)
{
    const struct CMUnitTest parsers[] = {
        cmocka_unit_test(test_cgroup_shapes),
        cmocka_unit_test(test_cgroup_malformed),
        cmocka_unit_test(test_cgroup_slurm),
    };
    const struct CMUnitTest fixture[] = {
        cmocka_unit_test_setup_teardown(test_fixture_docker_v1, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_k8s, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_plain_and_odd, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_fixture_missing_and_truncated, fixture_setup, fixture_teardown),
        cmocka_unit_test(test_missing_root),
    };
    const struct CMUnitTest trees[] = {
        cmocka_unit_test_setup_teardown(test_once_per_tick, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_once_reads_only_printed, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_identity_cache_and_recycle, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_eviction, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_pct, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_table_churn, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_no_permission, tree_setup, tree_teardown),
    };
    const struct CMUnitTest live[] = {
        cmocka_unit_test(test_live_self),
        cmocka_unit_test(test_live_child_exits),
        cmocka_unit_test(test_live_once),
    };
    int failed = 0;

    failed += cmocka_run_group_tests_name("hostproc parsers", parsers, NULL, NULL);
    failed += cmocka_run_group_tests_name("hostproc fixture tree", fixture, NULL, NULL);
    failed += cmocka_run_group_tests_name("hostproc generated trees", trees, NULL, NULL);
    failed += cmocka_run_group_tests_name("hostproc live /proc", live, NULL, NULL);
    return failed ? 1 : 0;
}
