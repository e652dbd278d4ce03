/* SPDX-License-Identifier: MIT */
/*
 * test_nvml_mps.c - the MPS list asked only where it can hold something
 * (nvml_procs.c, nvml_mps_due): at every relist while the GPU's compute list
 * holds an MPS server or a process the driver cannot name, while the last MPS
 * answer had entries or was not clean, at a context's first read and once a
 * read period; never on a GPU whose compute processes are all named and none
 * a server. The clients' rows (type, memory) are what the full read gives.
 * Every scenario's memory moves with the clock, so each tick lists again.
 * Tests needing a simulator profile that is not built are skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/sampler.h"
#include "sim_env.h"

#define MPS_SYM "nvmlDeviceGetMPSComputeRunningProcesses_v3"

/* A sampler on a scenario with a file clock at t = 1 (tests advance it). */
struct mps_fx {
    struct sim_fx fx;
    char clk[32];
    int t;
};

static void mps_clock(struct mps_fx *m, int t)
{
    FILE *f = fopen(m->clk, "w");
    assert_non_null(f);
    fprintf(f, "%d\n", t);
    fclose(f);
    m->t = t;
}

static void mps_open(struct mps_fx *m, const char *scn, const char *period_ms)
{
    char env[64];

    m->fx = (struct sim_fx)SIM_FX_INIT;
    snprintf(m->clk, sizeof(m->clk), "/tmp/gs-test-mps-XXXXXX");
    int fd = mkstemp(m->clk);
    assert_true(fd >= 0);
    close(fd);
    mps_clock(m, 1);
    sim_setup("current", sim_write_scenario(scn), NULL);
    snprintf(env, sizeof(env), "file:%s", m->clk);
    setenv("GPUSCOPE_SIM_CLOCK", env, 1);
    setenv("GPUSCOPE_READ_PERIOD_MS", period_ms, 1);
    m->fx.o.want_host = false;
    assert_int_equal(sim_fx_open(&m->fx), 0);
}

static void mps_close(struct mps_fx *m)
{
    sim_fx_close(&m->fx);
    unlink(m->clk);
    unsetenv("GPUSCOPE_SIM_CLOCK");
    unsetenv("GPUSCOPE_READ_PERIOD_MS");
}

/* One tick at the next second; returns the MPS list calls it made. */
static unsigned long long mps_tick(struct mps_fx *m)
{
    unsigned long long n0 = sim_calls(MPS_SYM);

    mps_clock(m, m->t + 1);
    assert_int_equal(sim_fx_snap(&m->fx), 0);
    return sim_calls(MPS_SYM) - n0;
}

static const struct gs_proc *find_pid(const struct gs_gpu *g, uint32_t pid)
{
    for (uint32_t i = 0; i < g->nprocs; i++)
        if (g->procs[i].pid == pid)
            return &g->procs[i];
    return NULL;
}

static void check_client(const struct gs_gpu *g, uint32_t pid, unsigned long long mem)
{
    const struct gs_proc *p = find_pid(g, pid);

    if (!p)
        fail_msg("MPS client %u is not listed", pid);
    assert_int_equal(p->type, GS_PROC_MPS);
    assert_true(gs_proc_has(p, GS_P_GPU_MEM));
    assert_true(p->gpu_mem_bytes == mem);
}

/* GPU 0 runs an MPS server and a client; GPU 1 a named compute job. The MPS
 * list is asked of GPU 0 at every relist, of GPU 1 at the first read only. */
static void test_mps_server_listed(void **state)
{
    struct mps_fx m;
    (void)state;
    NEED_SIM("current");
    mps_open(&m,
             "gpu count=2 util=50\n"
             "proc 0 pid=5000 name=nvidia-cuda-mps-server mem=add(30MiB,mul(t,1MiB))\n"
             "proc 0 pid=5001 type=mps mem=1GiB\n"
             "proc 1 pid=5002 name=\"python train.py\" mem=add(2GiB,mul(t,1MiB))\n",
             "60000");
    unsigned long long n0 = sim_calls(MPS_SYM);
    assert_int_equal(sim_fx_snap(&m.fx), 0);
    assert_int_equal(sim_calls(MPS_SYM) - n0, 2); /* the first read: both GPUs */
    for (int k = 0; k < 4; k++) {
        assert_int_equal(mps_tick(&m), 1);        /* then GPU 0 only */
        assert_int_equal(m.fx.snap.gpus[0].nprocs, 2);
        assert_int_equal(m.fx.snap.gpus[0].procs_age_ms, 0);
        check_client(&m.fx.snap.gpus[0], 5001, 1ull << 30);
        assert_int_equal(find_pid(&m.fx.snap.gpus[0], 5000)->type, GS_PROC_COMPUTE);
        assert_int_equal(m.fx.snap.gpus[1].nprocs, 1);
        assert_int_equal(m.fx.snap.gpus[1].procs_status, GS_ST_OK);
    }
    mps_close(&m);
}

/* A server the driver cannot name (another PID namespace): asked all the same. */
static void test_mps_server_hidden(void **state)
{
    struct mps_fx m;
    (void)state;
    NEED_SIM("current");
    mps_open(&m,
             "gpu 0 util=50\n"
             "proc 0 pid=4100 hidden=1 mem=add(30MiB,mul(t,1MiB))\n"
             "proc 0 pid=4101 type=mps mem=512MiB start=4\n",
             "60000");
    assert_int_equal(sim_fx_snap(&m.fx), 0);
    for (int k = 0; k < 5; k++) {
        assert_int_equal(mps_tick(&m), 1);
        if (m.t >= 4)
            check_client(&m.fx.snap.gpus[0], 4101, 512ull << 20);
        else
            assert_int_equal(m.fx.snap.gpus[0].nprocs, 1);
    }
    mps_close(&m);
}

/* MPS starts while we watch: no MPS calls before the server, and its client
 * is listed at the very tick the server shows in the compute list. */
static void test_mps_clients_appear(void **state)
{
    struct mps_fx m;
    (void)state;
    NEED_SIM("current");
    mps_open(&m,
             "gpu 0 util=50\n"
             "proc 0 pid=5100 name=\"python a.py\" mem=add(1GiB,mul(t,1MiB))\n"
             "proc 0 pid=5101 name=/usr/bin/nvidia-cuda-mps-server mem=30MiB start=5\n"
             "proc 0 pid=5102 type=mps mem=2GiB start=5\n"
             "proc 0 pid=5103 type=mps mem=3GiB start=7\n",
             "60000");
    assert_int_equal(sim_fx_snap(&m.fx), 0);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(mps_tick(&m), 0); /* t = 2..4: nothing could be a server */
        assert_int_equal(m.fx.snap.gpus[0].nprocs, 1);
    }
    assert_int_equal(mps_tick(&m), 1);     /* t = 5: the server and a client */
    assert_int_equal(m.fx.snap.gpus[0].nprocs, 3);
    check_client(&m.fx.snap.gpus[0], 5102, 2ull << 30);
    assert_int_equal(mps_tick(&m), 1);
    assert_int_equal(mps_tick(&m), 1);     /* t = 7: a second client */
    assert_int_equal(m.fx.snap.gpus[0].nprocs, 4);
    check_client(&m.fx.snap.gpus[0], 5103, 3ull << 30);
    mps_close(&m);
}

/* A server the gate cannot tell by its name (a renamed binary): the first read
 * finds clients, so the list is asked while it has entries, and no more once
 * an answer was empty; an answer that was not clean is asked again. */
static void test_mps_last_read_nonempty(void **state)
{
    struct mps_fx m;
    (void)state;
    NEED_SIM("current");
    mps_open(&m,
             "gpu 0 util=50\n"
             "proc 0 pid=5200 name=mps-wrapped mps_server=1 mem=add(30MiB,mul(t,1MiB))\n"
             "proc 0 pid=5201 type=mps mem=1GiB exit=4\n"
             "fault " MPS_SYM " call=3 error=UNKNOWN\n",
             "60000");
    assert_int_equal(sim_fx_snap(&m.fx), 0); /* t = 1: the first read, one client */
    check_client(&m.fx.snap.gpus[0], 5201, 1ull << 30);
    assert_int_equal(mps_tick(&m), 1);       /* t = 2: the last answer had an entry */
    check_client(&m.fx.snap.gpus[0], 5201, 1ull << 30);
    assert_int_equal(mps_tick(&m), 1);       /* t = 3: again, and the call fails */
    assert_int_equal(mps_tick(&m), 1);       /* t = 4: not clean, so asked: empty now */
    assert_int_equal(m.fx.snap.gpus[0].nprocs, 1);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(mps_tick(&m), 0);   /* t = 5..7: empty and no server by name */
        assert_int_equal(m.fx.snap.gpus[0].nprocs, 1);
        assert_int_equal(m.fx.snap.gpus[0].procs_status, GS_ST_OK);
    }
    mps_close(&m);
}

/* The safety net: asked once a read period even where nothing could be a server. */
static void test_mps_safety_net(void **state)
{
    struct mps_fx m;
    struct timespec wait = { 0, 250000000 };
    (void)state;
    NEED_SIM("current");
    mps_open(&m, "gpu 0 util=50\nproc 0 pid=5300 name=\"python b.py\" mem=add(1GiB,mul(t,1MiB))\n", "200");
    assert_int_equal(sim_fx_snap(&m.fx), 0);
    unsigned long long quiet = 0;
    for (int k = 0; k < 3; k++)
        quiet += mps_tick(&m);
    nanosleep(&wait, NULL); /* more than a read period since the last MPS read */
    assert_int_equal(mps_tick(&m), 1);
    /* The three quick ticks could only ask it if this box stalled for a whole period. */
    assert_true(quiet <= 1);
    mps_close(&m);
}

/* A period of 0 (read everything every tick): the MPS list at every relist. */
static void test_mps_period_zero(void **state)
{
    struct mps_fx m;
    (void)state;
    NEED_SIM("current");
    mps_open(&m, "gpu 0 util=50\nproc 0 pid=5400 name=\"python c.py\" mem=add(1GiB,mul(t,1MiB))\n", "0");
    assert_int_equal(sim_fx_snap(&m.fx), 0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(mps_tick(&m), 1);
    mps_close(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mps_server_listed),
        cmocka_unit_test(test_mps_server_hidden),
        cmocka_unit_test(test_mps_clients_appear),
        cmocka_unit_test(test_mps_last_read_nonempty),
        cmocka_unit_test(test_mps_safety_net),
        cmocka_unit_test(test_mps_period_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
