/* SPDX-License-Identifier: MIT */
/* test_pyhook.c - the Python hook's channel reader: replies parsed and checked,
 * devices matched to GPUs (UUID, PCI bus id, CUDA_VISIBLE_DEVICES, index), states,
 * stacks as text; the sampler's cache against real UNIX sockets served by a
 * thread here: it never waits (a hook that does not answer costs a snapshot
 * nothing and ends as an error), answers arrive with their age, the one-shot mode
 * waits a bounded time, a socket of another process is refused, one listing of the
 * directory per snapshot finds a socket among many PIDs and refuses an unsafe directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/pyhook.h"

#define STATS(devs)                                                                                          \
    "{\"proto\":\"gpuscope-pyhook/1\",\"op\":\"stats\",\"pid\":%u,\"start_ticks\":1,\"time_unix_ms\":2,"   \
    "\"python\":\"3.11.2\",\"torch\":\"2.3.0\",\"cuda_initialized\":true,\"alloc_conf\":\"max_split_size_mb:128\"," \
    "\"cuda_visible_devices\":%s,\"devices\":[" devs "]}\n"

static const char dev0[] = "{\"index\":0,\"allocated_bytes\":1048576,\"reserved_bytes\":4194304,"
                           "\"inactive_split_bytes\":1024,\"max_allocated_bytes\":2097152,\"alloc_retries\":3,\"ooms\":1}";

static void test_parse(void **state)
{
    (void)state;
    struct gs_pyhook_stats s;
    char buf[2048], why[200];
    snprintf(buf, sizeof(buf), STATS("%s"), 4242u, "null", dev0);
    assert_int_equal(gs_pyhook_parse_stats(buf, strlen(buf), &s, why, sizeof(why)), 0);
    assert_int_equal(s.pid, 4242);
    assert_string_equal(s.torch, "2.3.0");
    assert_true(s.cuda_initialized);
    assert_false(s.has_cvd);
    assert_string_equal(s.alloc_conf, "max_split_size_mb:128");
    assert_int_equal(s.ndevs, 1);
    assert_int_equal(s.devs[0].reserved, 4194304);
    assert_int_equal(s.devs[0].alloc_retries, 3);
    static const char *const bad[][2] = {
        { "not json", "not JSON" },
        { "{\"proto\":\"other/1\",\"pid\":1}", "not a gpuscope-pyhook/1 reply" },
        { "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":-1}", "pid" },
        { "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":1,\"devices\":{}}", "devices is not an array" },
        { "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":1,\"devices\":[{\"index\":0,\"reserved_bytes\":\"x\"}]}", "reserved_bytes" },
        { "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":1,\"devices\":[{\"allocated_bytes\":9,\"reserved_bytes\":4}]}",
          "more allocated than reserved" },
        { "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":1,\"torch\":3}", "wrong type" },
        { "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":1,\"pid\":2}", "not JSON" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(gs_pyhook_parse_stats(bad[i][0], strlen(bad[i][0]), &s, why, sizeof(why)), -1);
        if (!strstr(why, bad[i][1]))
            fail_msg("'%s': '%s' does not say '%s'", bad[i][0], why, bad[i][1]);
        assert_int_equal(s.ndevs, 0);
    }
}

static void test_device_match(void **state)
{
    (void)state;
    struct gs_pyhook_stats s;
    struct gs_static g0 = { .index = 0 }, g1 = { .index = 1 }, g2 = { .index = 2 };
    char buf[2048];
    snprintf(g1.uuid, sizeof(g1.uuid), "%s", "GPU-11111111-2222-3333-4444-555555555555");
    snprintf(g1.pci_bus_id, sizeof(g1.pci_bus_id), "%s", "00000000:3B:00.0");
    snprintf(g2.uuid, sizeof(g2.uuid), "%s", "GPU-abcdef00-2222-3333-4444-555555555555");
    /* no identity, no CUDA_VISIBLE_DEVICES: torch's index is NVML's */
    snprintf(buf, sizeof(buf), STATS("%s"), 1u, "null", dev0);
    assert_int_equal(gs_pyhook_parse_stats(buf, strlen(buf), &s, NULL, 0), 0);
    assert_non_null(gs_pyhook_device_for(&s, &g0));
    assert_null(gs_pyhook_device_for(&s, &g1));
    /* CUDA_VISIBLE_DEVICES=2,1: cuda:0 is NVML's GPU 2; UUID prefixes work too */
    snprintf(buf, sizeof(buf), STATS("%s"), 1u, "\"2,1\"", dev0);
    gs_pyhook_parse_stats(buf, strlen(buf), &s, NULL, 0);
    assert_null(gs_pyhook_device_for(&s, &g0));
    assert_non_null(gs_pyhook_device_for(&s, &g2));
    snprintf(buf, sizeof(buf), STATS("%s"), 1u, "\"GPU-abcdef00, 1\"", dev0);
    gs_pyhook_parse_stats(buf, strlen(buf), &s, NULL, 0);
    assert_non_null(gs_pyhook_device_for(&s, &g2));
    /* a device that names itself: by UUID (any case) or by PCI bus id, never by index */
    snprintf(buf, sizeof(buf), STATS("{\"index\":0,\"reserved_bytes\":1,\"uuid\":\"gpu-11111111-2222-3333-4444-555555555555\"}"),
             1u, "null");
    gs_pyhook_parse_stats(buf, strlen(buf), &s, NULL, 0);
    assert_non_null(gs_pyhook_device_for(&s, &g1));
    assert_null(gs_pyhook_device_for(&s, &g0));
    snprintf(buf, sizeof(buf), STATS("{\"index\":0,\"reserved_bytes\":1,\"pci_bus_id\":\"0000:3b:00.0\"}"), 1u, "null");
    gs_pyhook_parse_stats(buf, strlen(buf), &s, NULL, 0);
    assert_non_null(gs_pyhook_device_for(&s, &g1));
    /* applied: figures on the matching GPU only, states say why elsewhere */
    struct gs_proc p0 = { 0 }, p1 = { 0 };
    gs_pyhook_apply(&s, &g0, 10, &p0);
    gs_pyhook_apply(&s, &g1, 10, &p1);
    assert_int_equal(p0.pyhook_state, GS_PYHOOK_ST_NO_DEVICE);
    assert_false(gs_proc_has(&p0, GS_P_TORCH));
    assert_true(gs_proc_has(&p0, GS_P_PYHOOK));
    assert_int_equal(p1.pyhook_state, GS_PYHOOK_ST_OK);
    assert_true(gs_proc_has(&p1, GS_P_TORCH));
    assert_string_equal(p1.torch_alloc_conf, "max_split_size_mb:128");
    const char *notorch = "{\"proto\":\"gpuscope-pyhook/1\",\"pid\":1,\"torch\":null}";
    gs_pyhook_parse_stats(notorch, strlen(notorch), &s, NULL, 0);
    memset(&p0, 0, sizeof(p0));
    gs_pyhook_apply(&s, &g0, 0, &p0);
    assert_int_equal(p0.pyhook_state, GS_PYHOOK_ST_NO_TORCH);
}

static void test_stacks(void **state)
{
    (void)state;
    const char *r = "{\"proto\":\"gpuscope-pyhook/1\",\"op\":\"stacks\",\"pid\":1,\"threads\":[{\"name\":\"MainThread\","
                    "\"native_id\":7,\"omitted_frames\":2,\"frames\":[{\"file\":\"train.py\",\"line\":42,\"func\":\"step\","
                    "\"code\":\"loss = model(x)\\u001b[2J\"}]}]}";
    char out[512], small[40], why[100];
    unsigned n;
    assert_int_equal(gs_pyhook_format_stacks(r, strlen(r), out, sizeof(out), &n, why, sizeof(why)), 0);
    assert_int_equal(n, 1);
    assert_string_equal(out, "Thread MainThread (native 7):\n  ... 2 outer frames not shown\n  train.py:42 in step\n"
                             "    loss = model(x)?[2J\n");
    assert_int_equal(gs_pyhook_format_stacks(r, strlen(r), small, sizeof(small), &n, why, sizeof(why)), 0);
    assert_int_equal(strlen(small), sizeof(small) - 1);
    assert_int_equal(gs_pyhook_format_stacks("[]", 2, out, sizeof(out), &n, why, sizeof(why)), -1);
}

/* ---- a hook served by a thread of this test --------------------------------------------- */
struct server {
    int fd;
    char dir[40], path[96];
    int delay_ms;               /* before answering; -1: never answer */
    unsigned answered;
    pthread_t th;
    volatile int stop;
};

static void *serve(void *arg)
{
    struct server *sv = arg;
    char req[64], reply[2048];
    while (!sv->stop) {
        int c = accept(sv->fd, NULL, NULL);
        if (c < 0)
            continue;
        ssize_t n = read(c, req, sizeof(req));
        (void)n;
        if (sv->delay_ms < 0) { /* hold the connection, say nothing */
            while (!sv->stop)
                usleep(10000);
            close(c);
            break;
        }
        usleep((useconds_t)sv->delay_ms * 1000);
        int len = snprintf(reply, sizeof(reply), STATS("%s"), (unsigned)getpid(), "null", dev0);
        if (send(c, reply, (size_t)len, MSG_NOSIGNAL) == len)
            sv->answered++;
        close(c);
    }
    return NULL;
}

static void server_start(struct server *sv, int delay_ms)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    memset(sv, 0, sizeof(*sv));
    sv->delay_ms = delay_ms;
    snprintf(sv->dir, sizeof(sv->dir), "/tmp/gs-pyhook-test-%d", (int)getpid());
    mkdir(sv->dir, 0700);
    setenv("GPUSCOPE_PYHOOK_DIR", sv->dir, 1);
    snprintf(sv->path, sizeof(sv->path), "%s/%d.sock", sv->dir, (int)getpid());
    unlink(sv->path);
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sv->path);
    sv->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_int_equal(bind(sv->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    chmod(sv->path, 0600);
    assert_int_equal(listen(sv->fd, 8), 0);
    struct timeval tv = { 0, 50000 };
    setsockopt(sv->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    pthread_create(&sv->th, NULL, serve, sv);
}

static void server_stop(struct server *sv)
{
    sv->stop = 1;
    pthread_join(sv->th, NULL);
    close(sv->fd);
    unlink(sv->path);
    rmdir(sv->dir);
    unsetenv("GPUSCOPE_PYHOOK_DIR");
}

/* A snapshot of one GPU with this test process on it. */
static void snap_with_me(struct gs_snapshot *snap)
{
    gs_snapshot_init(snap);
    snap->gpus = calloc(1, sizeof(*snap->gpus));
    snap->ngpus = 1;
    struct gs_proc *p = gs_gpu_add_proc(&snap->gpus[0]);
    p->pid = (uint32_t)getpid();
    p->uid = getuid();
    gs_proc_set(p, GS_P_USER);
}

static double since_ms(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

static void test_cache_async(void **state)
{
    (void)state;
    struct server sv;
    struct gs_pyhook *h;
    struct gs_snapshot snap;
    struct timespec t0;
    server_start(&sv, 0);
    assert_int_equal(gs_pyhook_open(&h, GS_PYHOOK_ASYNC), 0);
    snap_with_me(&snap);
    struct gs_proc *p = &snap.gpus[0].procs[0];
    for (int i = 0; i < 200 && !gs_proc_has(p, GS_P_TORCH); i++) { /* the answer arrives on a later tick */
        p->valid = 1u << GS_P_USER;
        gs_pyhook_snapshot(h, &snap);
        usleep(5000);
    }
    assert_true(gs_proc_has(p, GS_P_TORCH));
    assert_int_equal(p->torch_reserved_bytes, 4194304);
    assert_int_equal(p->torch_ooms, 1);
    assert_true(p->pyhook_age_ms < 2000);
    unsigned asked = sv.answered;
    for (int i = 0; i < 20; i++) /* cached: not asked again within 1 s (20 quick snapshots) */
        gs_pyhook_snapshot(h, &snap);
    assert_int_equal(sv.answered, asked);
    gs_pyhook_close(h);
    server_stop(&sv);
    /* a hook that never answers costs a snapshot nothing, and becomes an error after 2 s */
    server_start(&sv, -1);
    gs_pyhook_open(&h, GS_PYHOOK_ASYNC);
    double worst = 0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (since_ms(&t0) < 2600) {
        struct timespec s0;
        clock_gettime(CLOCK_MONOTONIC, &s0);
        p->valid = 1u << GS_P_USER;
        p->pyhook_state = 0;
        gs_pyhook_snapshot(h, &snap);
        double d = since_ms(&s0);
        worst = d > worst ? d : worst;
        usleep(20000);
    }
    assert_true(worst < 1000); /* never waits for the answer (a blocking read would take the 2 s timeout) */
    assert_int_equal(p->pyhook_state, GS_PYHOOK_ST_ERROR);
    assert_false(gs_proc_has(p, GS_P_TORCH));
    gs_pyhook_close(h);
    server_stop(&sv);
    gs_snapshot_release(&snap);
}

static void test_cache_inline(void **state)
{
    (void)state;
    struct server sv;
    struct gs_pyhook *h;
    struct gs_snapshot snap;
    struct timespec t0;
    server_start(&sv, 30);
    gs_pyhook_open(&h, GS_PYHOOK_INLINE);
    snap_with_me(&snap);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gs_pyhook_snapshot(h, &snap);
    assert_true(gs_proc_has(&snap.gpus[0].procs[0], GS_P_TORCH)); /* one-shot: the answer is in this snapshot */
    assert_true(since_ms(&t0) < 1500);
    gs_pyhook_close(h);
    server_stop(&sv);
    server_start(&sv, -1);
    gs_pyhook_open(&h, GS_PYHOOK_INLINE);
    snap.gpus[0].procs[0].valid = 1u << GS_P_USER;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gs_pyhook_snapshot(h, &snap);
    double d = since_ms(&t0);
    assert_true(d >= 240 && d < 1500); /* bounded: 250 ms, not the 2 s per-request timeout */
    assert_false(gs_proc_has(&snap.gpus[0].procs[0], GS_P_TORCH));
    gs_pyhook_close(h);
    server_stop(&sv);
    gs_snapshot_release(&snap);
}

static void test_refuse(void **state)
{
    (void)state;
    struct server sv;
    char *reply;
    size_t len;
    struct gs_err err = { 0 };
    server_start(&sv, 0);
    /* the socket is named for another PID: its peer (this process) is not that PID */
    char other[160];
    snprintf(other, sizeof(other), "%s/1.sock", sv.dir);
    assert_int_equal(link(sv.path, other) == 0 || symlink(sv.path, other) == 0, 1);
    assert_true(gs_pyhook_request(1, getuid(), "stats", 500, &reply, &len, &err) < 0);
    unlink(other);
    /* the right one answers */
    assert_int_equal(gs_pyhook_request((uint32_t)getpid(), getuid(), "stats", 1000, &reply, &len, &err), 0);
    assert_non_null(strstr(reply, "gpuscope-pyhook/1"));
    free(reply);
    /* a directory others can write into is not trusted */
    chmod(sv.dir, 0777);
    assert_true(gs_pyhook_request((uint32_t)getpid(), getuid(), "stats", 500, &reply, &len, &err) < 0);
    assert_non_null(strstr(err.msg, "no gpuscope Python hook"));
    chmod(sv.dir, 0700);
    server_stop(&sv);
}

/* One snapshot lists the hook directory once: a socket among many PIDs (and files
 * named PID.sock that are not sockets) is found; a directory others can write into, or
 * reached through a symbolic link, is not trusted. */
static void test_cache_many(void **state)
{
    (void)state;
    struct server sv;
    struct gs_pyhook *h;
    struct gs_snapshot snap;
    char path[160], link_path[64];
    const uint32_t fake0 = 3000000000u; /* above any pid_max: no process of these PIDs exists */
    server_start(&sv, 0);
    for (uint32_t i = 0; i < 300; i++) { /* listed, but regular files */
        snprintf(path, sizeof(path), "%s/%u.sock", sv.dir, fake0 + i);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
    snprintf(path, sizeof(path), "%s/notes.txt", sv.dir);
    fclose(fopen(path, "w"));
    snap_with_me(&snap);
    for (uint32_t i = 0; i < 400; i++) { /* 200 with a file, 200 without, then this process */
        struct gs_proc *p = gs_gpu_add_proc(&snap.gpus[0]);
        p->pid = fake0 + 100 + i;
        p->uid = getuid();
        gs_proc_set(p, GS_P_USER);
    }
    struct gs_proc tmp = snap.gpus[0].procs[0]; /* this process last */
    snap.gpus[0].procs[0] = snap.gpus[0].procs[snap.gpus[0].nprocs - 1];
    snap.gpus[0].procs[snap.gpus[0].nprocs - 1] = tmp;
    struct gs_proc *me = &snap.gpus[0].procs[snap.gpus[0].nprocs - 1];
    assert_int_equal(gs_pyhook_open(&h, GS_PYHOOK_INLINE), 0);
    gs_pyhook_snapshot(h, &snap);
    assert_true(gs_proc_has(me, GS_P_TORCH));
    assert_int_equal(me->torch_reserved_bytes, 4194304);
    for (uint32_t k = 0; k + 1 < snap.gpus[0].nprocs; k++) {
        assert_false(gs_proc_has(&snap.gpus[0].procs[k], GS_P_PYHOOK));
        assert_int_equal(snap.gpus[0].procs[k].pyhook_state, GS_PYHOOK_ST_NONE);
    }
    gs_pyhook_close(h);
    /* others can write into the directory: nothing in it is trusted */
    chmod(sv.dir, 0777);
    me->valid = 1u << GS_P_USER;
    me->pyhook_state = 0;
    assert_int_equal(gs_pyhook_open(&h, GS_PYHOOK_INLINE), 0);
    gs_pyhook_snapshot(h, &snap);
    assert_false(gs_proc_has(me, GS_P_TORCH));
    assert_int_equal(me->pyhook_state, GS_PYHOOK_ST_NONE);
    gs_pyhook_close(h);
    chmod(sv.dir, 0700);
    /* the directory through a symbolic link: refused as lstat() refused it */
    snprintf(link_path, sizeof(link_path), "%s-link", sv.dir);
    unlink(link_path);
    assert_int_equal(symlink(sv.dir, link_path), 0);
    setenv("GPUSCOPE_PYHOOK_DIR", link_path, 1);
    assert_int_equal(gs_pyhook_open(&h, GS_PYHOOK_INLINE), 0);
    gs_pyhook_snapshot(h, &snap);
    assert_false(gs_proc_has(me, GS_P_TORCH));
    gs_pyhook_close(h);
    unlink(link_path);
    /* and the same directory again, found */
    setenv("GPUSCOPE_PYHOOK_DIR", sv.dir, 1);
    assert_int_equal(gs_pyhook_open(&h, GS_PYHOOK_INLINE), 0);
    gs_pyhook_snapshot(h, &snap);
    assert_true(gs_proc_has(me, GS_P_TORCH));
    gs_pyhook_close(h);
    for (uint32_t i = 0; i < 300; i++) {
        snprintf(path, sizeof(path), "%s/%u.sock", sv.dir, fake0 + i);
        unlink(path);
    }
    snprintf(path, sizeof(path), "%s/notes.txt", sv.dir);
    unlink(path);
    server_stop(&sv);
    gs_snapshot_release(&snap);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),        cmocka_unit_test(test_device_match), cmocka_unit_test(test_stacks),
        cmocka_unit_test(test_cache_async),  cmocka_unit_test(test_cache_inline), cmocka_unit_test(test_refuse),
        cmocka_unit_test(test_cache_many),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
