/* SPDX-License-Identifier: MIT */
/*
 * test_hostproc.c - host process facts (src/core/hostproc.c): the stat and
 * cgroup parsers, the fixture tree tests/fixtures/proc (docker, containerd,
 * cri-o, podman, plain, odd comm, missing PID, truncated stat), per-tick
 * caching and eviction on generated trees, and live checks on the real /proc
 * of this test process (CPU % after burning CPU, a child that exits).
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
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/hostproc.h"

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

/* ---- stat parser -------------------------------------------------------------------- */

static int parse_stat_str(const char *s, struct gs_proc_stat *st)
{
    return gs_hostproc_parse_stat(s, strlen(s), st);
}

static void test_stat_plain(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(parse_stat_str("42 (bash) S 7 42 42 34816 42 4194304 1 2 3 4 150 25 0 0 20 0 1 0 "
                                    "999 12345 678 18446744073709551615 1 1 0\n",
                                    &st),
                     0);
    assert_string_equal(st.comm, "bash");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.ppid, 7);
    assert_int_equal(st.pgid, 42);
    assert_int_equal(st.cpu_ticks, 175);
    assert_int_equal(st.start_ticks, 999);
    assert_int_equal(st.rss_pages, 678);
}

static void test_stat_comm_parens(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    /* negative priority/nice and tty fields in between are skipped, not parsed */
    assert_int_equal(parse_stat_str("5 (a) (b) c) R 1 5 5 0 -1 0 0 0 0 0 3 4 -1 -2 -100 -20 1 0 77 1 2", &st),
                     0);
    assert_string_equal(st.comm, "a) (b) c");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.cpu_ticks, 7);
    assert_int_equal(st.start_ticks, 77);
    assert_int_equal(st.rss_pages, 2);
    assert_int_equal(parse_stat_str("6 ()) Z 1 6 6 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5 0 0", &st), 0);
    assert_string_equal(st.comm, ")");
    assert_int_equal(st.state, 'Z');
}

static void test_stat_long_comm_truncated(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(parse_stat_str("9 (kworker/u64:3-events_unbound) I 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 "
                                    "3 0 0",
                                    &st),
                     0);
    assert_int_equal(strlen(st.comm), 16);
    assert_memory_equal(st.comm, "kworker/u64:3-ev", 16);
}

static void test_stat_malformed(void **state)
{
    static const char *const bad[] = {
        "",
        "1 (x",
        "1 x) S 1 1",
        "1 (x) S 1 10",                                           /* truncated */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0",      /* no rss */
        "1 (x) S a 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",    /* ppid not a number */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1x 1 0 0 20 0 1 0 5 0 1",   /* junk in utime */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 1 0 0 20 0 1 0 5 0 1", /* overflow */
        "1 (x) S 4294967296 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",          /* ppid > u32 */
        "1 (x)S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",
        ") (",
    };
    struct gs_proc_stat st;
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&st, 0x55, sizeof(st));
        assert_int_equal(parse_stat_str(bad[i], &st), -1);
        assert_int_equal(st.cpu_ticks, 0); /* cleared, never half-filled */
    }
}

static void test_stat_not_nul_terminated(void **state)
{
    const char full[] = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 12345";
    struct gs_proc_stat st;
    (void)state;
    /* the length bounds the parse: cutting the last digits changes rss */
    assert_int_equal(gs_hostproc_parse_stat(full, sizeof(full) - 1 - 3, &st), 0);
    assert_int_equal(st.rss_pages, 12);
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
        gs_hostproc_fill(f->hp, &f->procs[i]);
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
    assert_string_equal(p->cmdline, "python3 train.py --epochs 100");
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
    assert_string_equal(f->procs[8].cmdline, p->cmdline);
    assert_int_equal(f->procs[8].valid, p->valid);
}

static void test_fixture_k8s(void **state)
{
    struct fixture *f = *state;
    struct gs_proc *c = &f->procs[1], *o = &f->procs[2];

    assert_int_equal(c->host_vis, GS_HOST_VISIBLE);
    assert_string_equal(c->user, "nobody");
    assert_string_equal(c->cmdline, "torchrun --nproc-per-node=8 pretrain.py");
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

    assert_string_equal(plain->cmdline, "/usr/bin/blender -b scene.blend");
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
    assert_string_equal(trunc->cmdline, "train --fast");
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
    gs_hostproc_fill(hp, &p);
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
    gs_hostproc_fill(hp, &p);
    gs_hostproc_end(hp);
    return p;
}

static void test_once_per_tick(void **state)
{
    struct tree *t = *state;
    struct gs_hostproc *hp;
    struct gs_proc a = proc_for(2001), b = proc_for(2001);

    write_proc(t, 2001, "job --x", 100);
    assert_int_equal(gs_hostproc_open(&hp, t->root), 0);
    gs_hostproc_begin(hp, 1000, NOW_S);
    gs_hostproc_fill(hp, &a);
    remove_proc(t, 2001); /* a second read this tick would see nothing */
    gs_hostproc_fill(hp, &b);
    gs_hostproc_end(hp);
    assert_int_equal(b.host_vis, GS_HOST_VISIBLE);
    assert_string_equal(b.cmdline, "job --x");
    assert_string_equal(b.container_runtime, "docker");
    /* next tick: gone, and we had seen it, so it exited; what it was is kept */
    b = tick_one(hp, 2000, 2001);
    assert_int_equal(b.host_vis, GS_HOST_EXITED);
    assert_string_equal(b.cmdline, "job --x");
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
    assert_string_equal(p.cmdline, "first");
    /* same PID + start time: the command line is not read again */
    write_file(t, 2002, "cmdline", "changed", 8);
    p = tick_one(hp, 2000, 2002);
    assert_string_equal(p.cmdline, "first");
    /* comm may change (prctl): it is re-read, the command line stays cached
     * (a process that execs loses its GPU context, so NVML shows a new one) */
    write_stat(t, 2002, "newname", 0, 500);
    p = tick_one(hp, 3000, 2002);
    assert_string_equal(p.cmdline, "first");
    assert_string_equal(p.comm, "newname");
    /* a recycled PID (new start time) is a new process */
    write_file(t, 2002, "cmdline", "second", 7);
    write_stat(t, 2002, "newname", 0, 900);
    p = tick_one(hp, 4000, 2002);
    assert_string_equal(p.cmdline, "second");
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
    assert_string_equal(p.cmdline, "before");
    gs_hostproc_begin(hp, 2000, NOW_S); /* a tick without 2003 forgets it */
    gs_hostproc_end(hp);
    write_file(t, 2003, "cmdline", "after", 6);
    p = tick_one(hp, 3000, 2003);
    assert_string_equal(p.cmdline, "after");
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
        gs_hostproc_fill(hp, &p);
        assert_int_equal(p.host_vis, GS_HOST_VISIBLE);
    }
    gs_hostproc_end(hp);
    for (uint32_t i = 0; i < N; i++)
        remove_proc(t, BASE + i * 7);
    /* keep the even ones (still known: "exited"), forget the odd ones */
    gs_hostproc_begin(hp, 2000, NOW_S);
    for (uint32_t i = 0; i < N; i += 2) {
        struct gs_proc p = proc_for(BASE + i * 7);
        gs_hostproc_fill(hp, &p);
        assert_int_equal(p.host_vis, GS_HOST_EXITED);
    }
    gs_hostproc_end(hp);
    gs_hostproc_begin(hp, 3000, NOW_S);
    for (uint32_t i = 0; i < N; i++) {
        struct gs_proc p = proc_for(BASE + i * 7);
        gs_hostproc_fill(hp, &p);
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

static void test_live_self(void **state)
{
    struct gs_hostproc *hp;
    struct gs_proc p = proc_for((uint32_t)getpid());
    struct passwd *pw = getpwuid(getuid());
    (void)state;
    assert_int_equal(gs_hostproc_open(&hp, NULL), 0);
    gs_hostproc_begin(hp, mono_ns(), time(NULL));
    gs_hostproc_fill(hp, &p);
    gs_hostproc_end(hp);
    assert_int_equal(p.host_vis, GS_HOST_VISIBLE);
    assert_int_equal(p.uid, getuid());
    if (pw)
        assert_string_equal(p.user, pw->pw_name);
    assert_non_null(strstr(p.cmdline, "test_hostproc"));
    assert_int_equal(p.ppid, (uint32_t)getppid());
    assert_int_equal(p.pgid, (uint32_t)getpgrp());
    assert_true(p.rss_bytes > 0);
    assert_true(gs_proc_has(&p, GS_P_START));
    assert_true(p.age_s < 3600); /* this process started moments ago */
    burn_cpu_ms(300);
    gs_hostproc_begin(hp, mono_ns(), time(NULL));
    gs_hostproc_fill(hp, &p);
    gs_hostproc_end(hp);
    assert_true(gs_proc_has(&p, GS_P_CPU));
    /* one thread burning: ~100 %; less when the machine is shared, and the
     * kernel counts in clock ticks (10 ms), so allow a few over */
    if (p.cpu_pct < 20.0 || p.cpu_pct > 130.0)
        fail_msg("cpu_pct %.1f after burning 300 ms", p.cpu_pct);
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

int main(void)
{
    const struct CMUnitTest parsers[] = {
        cmocka_unit_test(test_stat_plain),
        cmocka_unit_test(test_stat_comm_parens),
        cmocka_unit_test(test_stat_long_comm_truncated),
        cmocka_unit_test(test_stat_malformed),
        cmocka_unit_test(test_stat_not_nul_terminated),
        cmocka_unit_test(test_cgroup_shapes),
        cmocka_unit_test(test_cgroup_malformed),
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
        cmocka_unit_test_setup_teardown(test_identity_cache_and_recycle, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_eviction, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_cpu_pct, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_table_churn, tree_setup, tree_teardown),
        cmocka_unit_test_setup_teardown(test_no_permission, tree_setup, tree_teardown),
    };
    const struct CMUnitTest live[] = {
        cmocka_unit_test(test_live_self),
        cmocka_unit_test(test_live_child_exits),
    };
    int failed = 0;

    failed += cmocka_run_group_tests_name("hostproc parsers", parsers, NULL, NULL);
    failed += cmocka_run_group_tests_name("hostproc fixture tree", fixture, NULL, NULL);
    failed += cmocka_run_group_tests_name("hostproc generated trees", trees, NULL, NULL);
    failed += cmocka_run_group_tests_name("hostproc live /proc", live, NULL, NULL);
    return failed ? 1 : 0;
}
