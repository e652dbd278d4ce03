/* SPDX-License-Identifier: MIT */
/* test_health_checks.c - each health check on synthetic windows of snapshots:
 * the planted problem is found (right code, GPU, PID) and steady healthy data
 * gives no finding; the regression and sawtooth detectors on their own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health/health.h"

#define MIB (1ull << 20)

/* A healthy H100-like GPU at 90 % with one training process. */
static void healthy_gpu(struct gs_gpu *g, uint32_t idx)
{
    memset(g, 0, sizeof(*g));
    struct gs_static *st = &g->st;
    st->index = idx;
    snprintf(st->uuid, sizeof(st->uuid), "GPU-%08x-0000-0000-0000-000000000000", idx);
    st->pci_bus = 0x18 + idx;
    st->temp_slowdown_c = 87;
    st->power_default_limit_mw = 700000;
    st->pcie_max_gen = 5;
    st->pcie_max_width = 16;
    for (int f = 0; f < GS_S_COUNT; f++)
        gs_static_mark(st, f, GS_ST_OK);
    struct gs_sample *s = &g->s;
    s->mem_total_bytes = 81559 * MIB;
    s->mem_used_bytes = 60000 * MIB;
    s->gpu_util_pct = 90;
    s->temp_gpu_c = 65;
    s->power_mw = 600000;
    s->power_enforced_limit_mw = 700000;
    s->clock_sm_mhz = 1900;
    s->throttle_reasons = GS_THROTTLE_SW_POWER_CAP; /* normal under load */
    s->pcie_gen = 5;
    s->pcie_width = 16;
    s->persistence_mode = 1;
    s->fan_count = 1;
    s->fan_speed_pct[0] = 55;
    for (int f = 0; f < GS_F_COUNT; f++)
        gs_sample_mark(s, f, GS_ST_OK);
    g->procs_status = GS_ST_OK;
    g->state = GS_GPU_OK;
    struct gs_proc *p = gs_gpu_add_proc(g);
    p->pid = 1000 + idx;
    p->gpu_mem_bytes = 59000 * MIB;
    p->sm_util_pct = 88;
    p->host_vis = GS_HOST_NOT_VISIBLE;
    snprintf(p->name, sizeof(p->name), "python train.py");
    p->pgid = 900; /* one job: the ranks share a process group */
    p->ppid = 899;
    gs_proc_set(p, GS_P_PARENT);
    gs_proc_set(p, GS_P_GPU_MEM);
    gs_proc_set(p, GS_P_SM_UTIL);
    gs_proc_set(p, GS_P_NAME);
}

typedef void (*mutate_fn)(struct gs_snapshot *snap, int t_s);

static struct gs_health *run_window(int ngpus, int seconds, mutate_fn mutate, struct gs_findings *out,
                                    const struct gs_health_cfg *cfg_in)
{
    struct gs_health_cfg cfg;
    if (cfg_in)
        cfg = *cfg_in;
    else
        gs_health_cfg_default(&cfg);
    struct gs_health *h = gs_health_new(&cfg);
    assert_non_null(h);
    for (int t = 0; t <= seconds; t++) {
        struct gs_snapshot snap;
        gs_snapshot_init(&snap);
        snap.ngpus = (uint32_t)ngpus;
        snap.gpus = calloc((size_t)ngpus, sizeof(*snap.gpus));
        for (int i = 0; i < ngpus; i++)
            healthy_gpu(&snap.gpus[i], (uint32_t)i);
        if (mutate)
            mutate(&snap, t);
        assert_int_equal(gs_health_add(h, &snap, (int64_t)t * 1000), 0);
        gs_snapshot_release(&snap);
    }
    gs_health_eval(h, out);
    return h;
}

static void expect_only(const struct gs_findings *f, const char *code, int gpu, uint32_t pid)
{
    for (size_t i = 0; i < f->n; i++)
        fprintf(stderr, "  finding: %s gpu=%d pid=%u %s\n", f->v[i].code, f->v[i].gpu, f->v[i].pid, f->v[i].title);
    assert_int_equal(f->n, 1);
    assert_string_equal(f->v[0].code, code);
    assert_int_equal(f->v[0].gpu, gpu);
    assert_int_equal(f->v[0].pid, pid);
}

static void check(int ngpus, int seconds, mutate_fn m, const char *code, int gpu, uint32_t pid)
{
    struct gs_findings f = { 0 };
    struct gs_health *h = run_window(ngpus, seconds, m, &f, NULL);
    if (code)
        expect_only(&f, code, gpu, pid);
    else
        assert_int_equal(f.n, 0);
    gs_findings_free(&f);
    gs_health_free(h);
}

/* ---- healthy -------------------------------------------------------------------------- */

static void m_noise(struct gs_snapshot *s, int t)
{
    for (uint32_t i = 0; i < s->ngpus; i++) {
        struct gs_gpu *g = &s->gpus[i];
        g->s.gpu_util_pct = 85 + (uint32_t)((t * 7 + i * 3) % 15);
        g->s.temp_gpu_c = 60 + (t % 9);
        g->procs[0].gpu_mem_bytes = (57000 + (uint64_t)((t * 131) % 7000)) * MIB;
    }
}

static void test_healthy_steady(void **state)
{
    (void)state;
    check(8, 600, m_noise, NULL, 0, 0);
}

/* ---- processes -------------------------------------------------------------------------- */

static void m_leak(struct gs_snapshot *s, int t)
{
    s->gpus[1].procs[0].gpu_mem_bytes = (4096 + 20 * (uint64_t)t) * MIB;
}

static void m_slow_growth(struct gs_snapshot *s, int t)
{
    s->gpus[1].procs[0].gpu_mem_bytes = (4096 + 5 * (uint64_t)t) * MIB;
}

static void m_plateau(struct gs_snapshot *s, int t)
{
    s->gpus[1].procs[0].gpu_mem_bytes = (4096 + 40 * (uint64_t)(t < 50 ? t : 50)) * MIB;
}

static void m_saw_mem(struct gs_snapshot *s, int t)
{
    s->gpus[1].procs[0].gpu_mem_bytes = (20000 + 150 * (uint64_t)(t % 45)) * MIB;
}

static void test_leak(void **state)
{
    (void)state;
    check(2, 120, m_leak, "proc.memory_leak", 1, 1001);
    check(2, 120, m_slow_growth, NULL, 0, 0);
    check(2, 120, m_plateau, NULL, 0, 0);
    check(2, 120, m_saw_mem, NULL, 0, 0);
    check(2, 40, m_leak, NULL, 0, 0); /* too short a window to call it */
}

/* Thousands of short-lived processes: the window keeps at most max_procs
 * rings (a forgotten process's ring is freed, not kept in its tombstone). */
static void test_proc_churn_bounded(void **state)
{
    (void)state;
    struct gs_health_cfg cfg;
    gs_health_cfg_default(&cfg);
    cfg.ring_samples = 30; /* a process is forgotten 30 s after it was last seen */
    cfg.max_procs = 64;
    cfg.proc_ring_samples = 8;
    struct gs_health *h = gs_health_new(&cfg);
    assert_non_null(h);
    size_t none = 0, one = 0;
    for (int t = 0; t <= 3000; t++) {
        struct gs_snapshot snap;
        gs_snapshot_init(&snap);
        snap.ngpus = 1;
        snap.gpus = calloc(1, sizeof(*snap.gpus));
        healthy_gpu(&snap.gpus[0], 0);
        snap.gpus[0].nprocs = t == 0 ? 0 : 1;
        for (int k = 0; t > 1 && k < 4; k++) { /* then 4 new PIDs a second */
            struct gs_proc *p = gs_gpu_add_proc(&snap.gpus[0]);
            p->pid = 100000u + (uint32_t)(t * 4 + k);
            snprintf(p->name, sizeof(p->name), "job-%d", t * 4 + k);
            gs_proc_set(p, GS_P_NAME);
        }
        assert_int_equal(gs_health_add(h, &snap, (int64_t)t * 1000), 0);
        gs_snapshot_release(&snap);
        if (t == 0)
            none = gs_health_mem_bytes(h);
        else if (t == 1)
            one = gs_health_mem_bytes(h); /* one process: one ring more */
        else if (gs_health_mem_bytes(h) > none + 64 * (one - none))
            fail_msg("t=%d: %zu bytes > %zu + 64 x %zu", t, gs_health_mem_bytes(h), none, one - none);
    }
    assert_true(one > none);
    gs_health_free(h);
}

static void m_idle(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.gpu_util_pct = 0;
    s->gpus[0].procs[0].gpu_mem_bytes = 1024 * MIB;
    snprintf(s->gpus[0].procs[0].name, sizeof(s->gpus[0].procs[0].name), "python -m ipykernel_launcher");
}

static void m_busy_alone(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[2].s.gpu_util_pct = 100;
    s->gpus[2].nprocs = 0;
}

static void test_idle_and_busy(void **state)
{
    (void)state;
    check(2, 400, m_idle, "proc.idle_memory", 0, 1000);
    check(2, 200, m_idle, NULL, 0, 0); /* not yet 5 minutes */
    check(3, 30, m_busy_alone, "gpu.busy_no_process", 2, 0);
}

static void m_saw(struct gs_snapshot *s, int t)
{
    for (uint32_t i = 0; i < s->ngpus; i++)
        s->gpus[i].s.gpu_util_pct = (t % 20) < 12 ? 96 : 2;
}

static void test_input_stall(void **state)
{
    (void)state;
    check(1, 90, m_saw, "proc.input_stall", 0, 1000);
}

static void m_lag(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[3].s.gpu_util_pct = 45;
}

/* Two unrelated jobs with the same process name: GPUs 0-1 one job, 2-3 another (idle-ish). */
static void m_two_jobs(struct gs_snapshot *s, int t)
{
    (void)t;
    for (uint32_t i = 0; i < s->ngpus; i++) {
        snprintf(s->gpus[i].procs[0].name, sizeof(s->gpus[i].procs[0].name), "python3");
        s->gpus[i].procs[0].pgid = i < 2 ? 900 : 950;
    }
    s->gpus[2].s.gpu_util_pct = 30;
    s->gpus[3].s.gpu_util_pct = 35;
}

static void m_lag_two(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[1].s.gpu_util_pct = 40;
}

static void m_no_identity(struct gs_snapshot *s, int t)
{
    (void)t;
    for (uint32_t i = 0; i < s->ngpus; i++)
        s->gpus[i].procs[0].valid &= ~(1u << GS_P_PARENT);
    s->gpus[3].s.gpu_util_pct = 45;
}

static void test_lagging(void **state)
{
    (void)state;
    check(4, 30, m_lag, "job.gpu_lagging", 3, 1003);
    check(4, 30, m_two_jobs, NULL, 0, 0);    /* same name, different process groups: two jobs */
    check(2, 30, m_lag_two, NULL, 0, 0);     /* one peer is not enough to call a rank slow */
    check(4, 30, m_no_identity, NULL, 0, 0); /* no identity we trust: no job */
    struct gs_findings f = { 0 };
    struct gs_health *h = run_window(4, 30, m_lag, &f, NULL);
    assert_non_null(strstr(f.v[0].evidence, "process group 900"));
    assert_non_null(strstr(f.v[0].evidence, "1003 on GPU 3"));
    gs_findings_free(&f);
    gs_health_free(h);
}

/* ---- GPU checks --------------------------------------------------------------------------- */

static void m_hw_thermal(struct gs_snapshot *s, int t)
{
    if (t >= 10) {
        s->gpus[1].s.throttle_reasons |= GS_THROTTLE_HW_THERMAL | GS_THROTTLE_HW_SLOWDOWN;
        s->gpus[1].s.temp_gpu_c = 88;
        s->gpus[1].s.clock_sm_mhz = 900;
        s->gpus[1].s.fan_speed_pct[0] = 100; /* the fan does what it can */
    }
}

static void m_near_slowdown(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.temp_gpu_c = 84;
}

static void m_ecc(struct gs_snapshot *s, int t)
{
    if (t >= 3)
        s->gpus[0].s.ecc_vol_uncorrected = 2;
}

static void m_remap(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[1].s.remap_pending = 1;
}

static void m_width(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.pcie_width = 8;
}

static void m_gen(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.pcie_gen = 3;
}

static void m_gen_idle(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.pcie_gen = 1; /* links idle down: only judged under load */
    s->gpus[0].s.gpu_util_pct = 0;
    s->gpus[0].nprocs = 0;
}

/* the link trained down at idle, read every 5 s by the read schedule: under load only the
 * readings of the same tick count, so a stale idle generation is no finding */
static void m_gen_stale(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.pcie_gen = t % 5 ? 1 : 5;
    s->gpus[0].s.age_ms[GS_F_PCIE_GEN] = (uint32_t)(t % 5) * 1000;
}

/* a 4 s doctor window at 1 s: four readings of the link under load, all below the maximum */
static void m_gen_short(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[1].s.pcie_gen = 3;
    s->gpus[0].s.pcie_gen = 2; /* GPU 0 idle at gen 2: trained down on purpose */
    s->gpus[0].s.gpu_util_pct = 0;
    s->gpus[0].nprocs = 0;
}

static void m_replay(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.pcie_replay_count = (uint32_t)t; /* 60/min, gen5 x16 allows 31 */
}

static void m_power(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.power_enforced_limit_mw = 400000;
}

static void m_persist(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.persistence_mode = 0;
}

static void test_gpu_checks(void **state)
{
    (void)state;
    check(2, 60, m_hw_thermal, "thermal.hw_slowdown", 1, 0);
    check(1, 20, m_near_slowdown, "thermal.near_slowdown", 0, 0);
    check(1, 10, m_ecc, "ecc.uncorrectable", 0, 0);
    check(2, 5, m_remap, "ecc.remap_pending", 1, 0);
    check(1, 5, m_width, "pcie.width_degraded", 0, 0);
    check(1, 10, m_gen, "pcie.gen_degraded", 0, 0);
    check(1, 30, m_gen_idle, NULL, 0, 0);
    check(1, 30, m_gen_stale, NULL, 0, 0);
    check(2, 4, m_gen_short, "pcie.gen_degraded", 1, 0);
    check(1, 120, m_replay, "pcie.replay_rate", 0, 0);
    check(1, 5, m_power, "power.limit_reduced", 0, 0);
    check(1, 5, m_persist, "config.persistence_off", 0, 0);
}

static void m_xid(struct gs_snapshot *s, int t)
{
    if (t == 3) {
        s->nevents = 1;
        s->events[0] = (struct gs_event){ .time_ms = 3000, .gpu = 1, .kind = GS_EV_XID, .data = 79 };
    }
    if (t >= 4) {
        s->gpus[1].state = GS_GPU_LOST;
        s->gpus[1].nprocs = 0;
    }
}

static void m_lost(struct gs_snapshot *s, int t)
{
    if (t >= 4)
        s->gpus[1].state = GS_GPU_LOST;
}

static void test_xid_and_lost(void **state)
{
    (void)state;
    check(4, 20, m_xid, "xid.79", 1, 0);
    check(4, 20, m_lost, "gpu.lost", 1, 0);
    check(4, 400, m_xid, "gpu.lost", 1, 0); /* the event fades after xid_hold_s, the lost GPU stays */
}

static void test_kmsg_xid_by_pci(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(4, 2, NULL, &f, NULL);
    struct gs_xid x = { .xid = 48, .gpu = GS_NO_GPU, .has_pci = true, .pci_bus = 0x1a, .pid = 77, .ts_s = 12 };
    snprintf(x.name, sizeof(x.name), "python");
    gs_health_add_kmsg(h, &x, 1);
    gs_health_add_kmsg(h, &x, 1);
    gs_health_eval(h, &f);
    expect_only(&f, "xid.48", 2, 77);
    assert_int_equal(f.v[0].severity, GS_SEV_CRITICAL);
    assert_non_null(strstr(f.v[0].evidence, "2 occurrences"));
    gs_findings_free(&f);
    gs_health_free(h);
}

/* The same Xid from NVML's events (GPU 1, t=3 s) and from the kernel log (GPU 1's PCI
 * address): one finding, counted once, both sources named. */
static void test_xid_dedup_sources(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(4, 10, m_xid, &f, NULL);
    struct gs_xid x = { .xid = 79, .gpu = GS_NO_GPU, .has_pci = true, .pci_bus = 0x19, .ts_s = 30 };
    gs_health_add_kmsg(h, &x, 1);
    gs_health_eval(h, &f);
    expect_only(&f, "xid.79", 1, 0);
    assert_non_null(strstr(f.v[0].evidence, "1 occurrence (NVML event, kernel log)"));
    gs_findings_free(&f);
    gs_health_free(h);
}

/* Kernel-log Xids that watch reads as they appear fade like NVML events; a whole-log
 * read (doctor: since boot) stays. */
static void test_kmsg_live_fades(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(2, 2, NULL, &f, NULL);
    struct gs_xid x = { .xid = 31, .gpu = GS_NO_GPU, .has_pci = true, .pci_bus = 0x18, .ts_s = 5 };
    gs_health_add_kmsg_live(h, &x, 1);
    gs_health_eval(h, &f);
    expect_only(&f, "xid.31", 0, 0);
    struct gs_snapshot snap;
    gs_snapshot_init(&snap);
    snap.ngpus = 2;
    snap.gpus = calloc(2, sizeof(*snap.gpus));
    healthy_gpu(&snap.gpus[0], 0);
    healthy_gpu(&snap.gpus[1], 1);
    gs_health_add(h, &snap, 400 * 1000); /* past xid_hold_s */
    gs_health_eval(h, &f);
    assert_int_equal(f.n, 0);
    gs_health_add_kmsg(h, &x, 1);        /* the same line from a whole-log read */
    gs_health_add(h, &snap, 800 * 1000);
    gs_health_eval(h, &f);
    expect_only(&f, "xid.31", 0, 0);
    gs_snapshot_release(&snap);
    gs_findings_free(&f);
    gs_health_free(h);
}

static void test_count_and_driver(void **state)
{
    struct gs_findings f = { 0 };
    struct gs_health_cfg cfg;
    (void)state;
    gs_health_cfg_default(&cfg);
    cfg.expect_gpus = 8;
    struct gs_health *h = run_window(7, 1, NULL, &f, &cfg);
    expect_only(&f, "gpu.count_low", GS_NO_GPU, 0);
    gs_health_free(h);

    h = gs_health_new(&cfg);
    struct gs_err err;
    gs_err_set(&err, GS_E_NO_DRIVER, "NVML: Driver/library version mismatch");
    gs_health_set_open_error(h, &err);
    gs_health_eval(h, &f);
    expect_only(&f, "driver.version_mismatch", GS_NO_GPU, 0);
    gs_findings_free(&f);
    gs_health_free(h);
}

/* ---- CUDA_VISIBLE_DEVICES with a fixture /proc ------------------------------------------- */

static char proc_root[64];

static void m_visible(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[1].procs[0].host_vis = GS_HOST_VISIBLE;
    s->gpus[0].procs[0].host_vis = GS_HOST_VISIBLE;
}

static void write_environ(uint32_t pid, const char *env, size_t len)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%u", proc_root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/%u/environ", proc_root, pid);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fwrite(env, 1, len, fp);
    fclose(fp);
}

static void test_visible_devices(void **state)
{
    struct gs_findings f = { 0 };
    struct gs_health_cfg cfg;
    (void)state;
    snprintf(proc_root, sizeof(proc_root), "/tmp/gs-health-procXXXXXX");
    assert_non_null(mkdtemp(proc_root));
    static const char e0[] = "HOME=/root\0CUDA_VISIBLE_DEVICES=GPU-00000000\0";            /* GPU 0: fine */
    static const char e1[] = "CUDA_VISIBLE_DEVICES=GPU-00000000-0000\0PATH=/bin\0";         /* on GPU 1: outside */
    write_environ(1000, e0, sizeof(e0) - 1);
    write_environ(1001, e1, sizeof(e1) - 1);
    gs_health_cfg_default(&cfg);
    cfg.proc_root = proc_root;
    struct gs_health *h = run_window(2, 3, m_visible, &f, &cfg);
    expect_only(&f, "proc.outside_visible_devices", 1, 1001);
    gs_findings_free(&f);
    gs_health_free(h);
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", proc_root);
    assert_int_equal(system(cmd), 0);
}


/* ---- fans, throttle time, counters (issue 12) ------------------------------------------------ */

static void m_fan_healthy(struct gs_snapshot *s, int t)
{
    (void)t;
    /* a controller holding 73-75 % at 82 C; a constant 30 % at 75 C under a power cap */
    s->gpus[0].st.temp_slowdown_c = 92;
    s->gpus[0].s.temp_gpu_c = 82;
    s->gpus[0].s.fan_speed_pct[0] = 73 + (uint32_t)(t % 3);
    s->gpus[1].s.temp_gpu_c = 75;
    s->gpus[1].s.fan_speed_pct[0] = 30;
    s->gpus[1].st.fan_min_pct = 30;
}

static void m_fan_zero_hot(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.temp_gpu_c = 81;
    s->gpus[0].s.fan_speed_pct[0] = 0;
}

static void m_fan_flat_climb(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.temp_gpu_c = 66 + t / 8; /* 66 -> 81 C over two minutes */
    s->gpus[0].s.fan_speed_pct[0] = 40;
}

static void m_fan_follows(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.temp_gpu_c = 66 + t / 8;
    s->gpus[0].s.fan_speed_pct[0] = 40 + (uint32_t)t / 4;
}

/* a fan stuck at 45 % for two minutes while the load swings the temperature 60 <-> 72 C */
static void m_fan_flat_swing(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.temp_gpu_c = 60 + ((t / 20) % 2 ? 12 : (t % 20) * 12 / 20);
    s->gpus[0].s.fan_speed_pct[0] = 45;
}

/* a cool GPU whose fan holds its minimum while the temperature moves 35 -> 47 C: a fan curve */
static void m_fan_min_cool(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.temp_gpu_c = 35 + t / 10;
    s->gpus[0].s.fan_speed_pct[0] = 30;
    s->gpus[0].st.fan_min_pct = 30;
}

static void test_fan(void **state)
{
    (void)state;
    check(2, 300, m_fan_healthy, NULL, 0, 0);
    check(1, 90, m_fan_zero_hot, "thermal.fan_stuck", 0, 0);
    check(1, 30, m_fan_zero_hot, NULL, 0, 0); /* not long enough */
    check(1, 120, m_fan_flat_climb, "thermal.fan_stuck", 0, 0);
    check(1, 120, m_fan_follows, NULL, 0, 0);
    check(1, 120, m_fan_flat_swing, "thermal.fan_stuck", 0, 0);
    check(1, 60, m_fan_flat_swing, NULL, 0, 0); /* not 90 s yet */
    check(1, 130, m_fan_min_cool, NULL, 0, 0);
}

/* A 300 ms HW thermal slowdown every 10 s: the 1 s samples never see the bit,
 * the violation counter (ns) does. */
static void m_short_hw(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.violation_ns[GS_VIOL_HW_THERMAL] = (uint64_t)(t / 10) * 300000000ull;
    s->gpus[0].s.violation_ns[GS_VIOL_POWER] = (uint64_t)t * 900000000ull; /* power cap: normal */
}

static void m_brake_counter(struct gs_snapshot *s, int t)
{
    s->gpus[1].s.violation_ns[GS_VIOL_HW_POWER_BRAKE] = t > 20 ? (uint64_t)(t - 20) * 1000000000ull : 0;
}

static void test_violation_counters(void **state)
{
    (void)state;
    check(1, 60, m_short_hw, "thermal.hw_slowdown", 0, 0);
    check(1, 8, m_short_hw, NULL, 0, 0); /* no slowdown yet: counter flat */
    check(2, 60, m_brake_counter, "power.hw_power_brake", 1, 0);
    struct gs_findings f = { 0 };
    struct gs_health *h = run_window(1, 60, m_short_hw, &f, NULL);
    assert_true(fabs(f.v[0].value - 1.8) < 0.01); /* 6 x 300 ms, exact */
    assert_non_null(strstr(f.v[0].evidence, "violation counter"));
    gs_findings_free(&f);
    gs_health_free(h);
}

static void m_hw_now(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.throttle_reasons |= GS_THROTTLE_HW_SLOWDOWN;
    s->gpus[1].s.throttle_reasons |= GS_THROTTLE_SW_THERMAL;
    gs_sample_mark(&s->gpus[0].s, GS_F_VIOL_HW_THERMAL, GS_ST_NOT_SUPPORTED);
}

static void test_quick_instant(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(3, 0, m_hw_now, &f, NULL); /* one snapshot */
    assert_int_equal(f.n, 2);
    assert_string_equal(f.v[0].code, "thermal.hw_slowdown");
    assert_string_equal(f.v[1].code, "thermal.sw_slowdown");
    assert_non_null(strstr(f.v[0].evidence, "active now"));
    gs_findings_free(&f);
    gs_health_free(h);
}

static void m_sbe_storm(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.ecc_vol_corrected = (uint64_t)(t / 5) * 20; /* refreshed every 5 s: 240/min */
}

static void m_sbe_trickle(struct gs_snapshot *s, int t)
{
    s->gpus[0].s.ecc_vol_corrected = 3 + (uint64_t)(t / 20);
}

static void m_retire(struct gs_snapshot *s, int t)
{
    s->gpus[1].s.remap_corr_rows = t > 10 ? 2 : 1;
}

static void m_ecc_pending(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[0].s.ecc_mode_current = 1;
    s->gpus[0].s.ecc_mode_pending = 0;
}

static void test_memory_rates(void **state)
{
    (void)state;
    check(1, 60, m_sbe_storm, "ecc.sbe_storm", 0, 0);
    check(1, 120, m_sbe_trickle, NULL, 0, 0);
    check(2, 30, m_retire, "ecc.retire_rate", 1, 0);
    check(1, 2, m_ecc_pending, "config.ecc_pending", 0, 0);
}

static void m_nvlink(struct gs_snapshot *s, int t)
{
    for (uint32_t i = 0; i < s->ngpus; i++)
        s->gpus[i].s.nvlink_count = 18;
    s->gpus[0].s.nvlink_down_mask = 1u << 5;      /* one of 18 down */
    s->gpus[1].s.nvlink_down_mask = 0x3FFFF;      /* all down: no bridge, not a finding */
    s->gpus[2].s.nvlink_replay = (uint64_t)t / 10; /* replays growing */
}

static void test_nvlink(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(3, 30, m_nvlink, &f, NULL);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.v[0].code, "nvlink.down");
    assert_int_equal(f.v[0].gpu, 0);
    assert_non_null(strstr(f.v[0].evidence, "links 5 inactive"));
    assert_string_equal(f.v[1].code, "nvlink.errors");
    assert_int_equal(f.v[1].gpu, 2);
    gs_findings_free(&f);
    gs_health_free(h);
}

static struct gs_pci_dev pcidev(uint32_t bus, uint64_t cor, uint64_t fatal)
{
    struct gs_pci_dev d = { .domain = 0, .bus = bus, .vendor = 0x10de, .device_id = 0x2330, .class_code = 0x030200,
                            .has_aer = true, .aer_cor = cor, .aer_fatal = fatal };
    snprintf(d.bdf, sizeof(d.bdf), "0000:%02x:00.0", bus);
    return d;
}

static void test_pci_and_aer(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(2, 0, NULL, &f, NULL); /* GPUs at buses 0x18, 0x19 */
    struct gs_pci_dev d[3] = { pcidev(0x18, 5, 0), pcidev(0x19, 0, 0), pcidev(0x3b, 0, 0) };
    gs_health_add_pci(h, d, 3);
    gs_health_eval(h, &f);
    expect_only(&f, "gpu.missing_from_nvml", GS_NO_GPU, 0);
    assert_non_null(strstr(f.v[0].title, "0000:3b:00.0"));
    gs_health_free(h);
    /* correctable errors growing fast, and a fatal one since boot */
    h = gs_health_new(&(struct gs_health_cfg){ 0 });
    gs_health_free(h);
    struct gs_health_cfg cfg;
    gs_health_cfg_default(&cfg);
    h = gs_health_new(&cfg);
    struct gs_snapshot snap;
    for (int t = 0; t <= 60; t += 60) {
        gs_snapshot_init(&snap);
        snap.ngpus = 2;
        snap.gpus = calloc(2, sizeof(*snap.gpus));
        healthy_gpu(&snap.gpus[0], 0);
        healthy_gpu(&snap.gpus[1], 1);
        gs_health_add(h, &snap, t * 1000);
        gs_snapshot_release(&snap);
        struct gs_pci_dev e[2] = { pcidev(0x18, 100 + (uint64_t)t * 10, 0), pcidev(0x19, 0, t ? 1 : 0) };
        gs_health_add_pci(h, e, 2);
    }
    gs_health_eval(h, &f);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.v[0].code, "pcie.aer_uncorrectable"); /* critical first */
    assert_int_equal(f.v[0].gpu, 1);
    assert_string_equal(f.v[1].code, "pcie.aer_correctable");
    assert_int_equal(f.v[1].gpu, 0);
    gs_findings_free(&f);
    gs_health_free(h);
}

static void m_busy_empty(struct gs_snapshot *s, int t)
{
    (void)t;
    s->gpus[1].s.gpu_util_pct = 100;
    s->gpus[1].nprocs = 0;
    s->gpus[1].st.minor_number = 1;
    s->gpus[0].st.minor_number = 0;
}

static void test_holders(void **state)
{
    struct gs_findings f = { 0 };
    uint64_t minors = 0;
    (void)state;
    struct gs_health *h = run_window(2, 3, m_busy_empty, &f, NULL);
    assert_true(gs_health_holders_wanted(h, &minors));
    assert_int_equal(minors, 2); /* only /dev/nvidia1 needs a look */
    struct gs_dev_holder v[3] = { { 4242, 1, "python" }, { 77, 1, "nvidia-persiste" }, { 88, 0, "python" } };
    gs_health_add_holders(h, v, 3);
    gs_health_eval(h, &f);
    expect_only(&f, "proc.hidden_holder", 1, 4242);
    assert_null(strstr(f.v[0].evidence, "nvidia-persiste"));
    gs_findings_free(&f);
    gs_health_free(h);
}

static void test_xid119_caller(void **state)
{
    struct gs_findings f = { 0 };
    (void)state;
    struct gs_health *h = run_window(1, 0, NULL, &f, NULL);
    struct gs_xid x = { .xid = 119, .gpu = GS_NO_GPU, .has_pci = true, .pci_bus = 0x18, .pid = 5501, .ts_s = 9 };
    snprintf(x.name, sizeof(x.name), "nvidia-smi");
    gs_health_add_kmsg(h, &x, 1);
    gs_health_eval(h, &f);
    expect_only(&f, "xid.119", 0, 0); /* the caller is not the culprit: no PID on the finding */
    assert_non_null(strstr(f.v[0].evidence, "5501 (nvidia-smi) was the caller"));
    gs_findings_free(&f);
    gs_health_free(h);
}

static void test_unevaluated(void **state)
{
    struct gs_findings f = { 0 };
    struct gs_unevaluated u[16];
    (void)state;
    struct gs_health *h = run_window(4, 10, NULL, &f, NULL);
    size_t n = gs_health_unevaluated(h, u, 16);
    bool leak = false, fan = false, lag = false;
    for (size_t i = 0; i < n; i++) {
        leak |= !strcmp(u[i].code, "proc.memory_leak") && u[i].need_s == 60 && fabs(u[i].have_s - 10) < 0.01;
        fan |= !strcmp(u[i].code, "thermal.fan_stuck");
        lag |= !strcmp(u[i].code, "job.gpu_lagging");
    }
    assert_true(leak && fan);
    assert_false(lag); /* 10 s is what it needs */
    gs_health_free(h);
    h = run_window(4, 600, NULL, &f, NULL);
    assert_int_equal(gs_health_unevaluated(h, u, 16), 0);
    gs_findings_free(&f);
    gs_health_free(h);
}

/* Every finding's value is its evidence's headline number, never a silent 0. */
static void test_values(void **state)
{
    (void)state;
    mutate_fn ms[] = { m_hw_thermal, m_ecc, m_remap, m_width, m_replay, m_power, m_brake_counter, m_sbe_storm,
                       m_retire, m_nvlink, m_short_hw };
    for (size_t k = 0; k < sizeof(ms) / sizeof(ms[0]); k++) {
        struct gs_findings f = { 0 };
        struct gs_health *h = run_window(3, 90, ms[k], &f, NULL);
        for (size_t i = 0; i < f.n; i++) {
            if (f.v[i].value == 0)
                fprintf(stderr, "zero value: %s %s\n", f.v[i].code, f.v[i].evidence);
            assert_true(f.v[i].value != 0);
        }
        gs_findings_free(&f);
        gs_health_free(h);
    }
}

/* ---- detectors ---------------------------------------------------------------------------- */

static void test_linreg(void **state)
{
    double x[50], y[50];
    struct gs_linreg r;
    (void)state;
    for (int i = 0; i < 50; i++) {
        x[i] = 1000 + i;
        y[i] = 3 * x[i] + 7;
    }
    assert_true(gs_linreg(x, y, 50, &r));
    assert_true(fabs(r.slope - 3) < 1e-9);
    assert_true(r.r2 > 0.999999);
    assert_false(gs_linreg(x, y, 2, &r));
    for (int i = 0; i < 50; i++)
        y[i] = (i % 2) ? 10 : -10;
    assert_true(gs_linreg(x, y, 50, &r));
    assert_true(r.r2 < 0.1);
}

static void test_sawtooth_detector(void **state)
{
    double t[120], u[120];
    struct gs_saw saw;
    struct gs_health_cfg cfg;
    (void)state;
    gs_health_cfg_default(&cfg);
    for (int i = 0; i < 120; i++) {
        t[i] = i;
        u[i] = (i % 20) < 12 ? 95 : 3;
    }
    assert_true(gs_sawtooth(t, u, 120, &cfg, &saw));
    assert_true(fabs(saw.period_s - 20) < 0.01);
    assert_true(fabs(saw.idle_share - 0.4) < 0.05);
    for (int i = 0; i < 120; i++) /* steady busy */
        u[i] = 90 + (i % 7);
    assert_false(gs_sawtooth(t, u, 120, &cfg, &saw));
    for (int i = 0; i < 120; i++) /* slow wave (evaluation job): mostly in between */
        u[i] = 62 + 22 * sin(2 * M_PI * i / 90.0);
    assert_false(gs_sawtooth(t, u, 120, &cfg, &saw));
    for (int i = 0; i < 120; i++) /* irregular bursts */
        u[i] = ((i * i * 7) % 13) < 5 ? 95 : 2;
    assert_false(gs_sawtooth(t, u, 120, &cfg, &saw));
    /* a 4 s window at 100 ms on a 2 s sawtooth: a cycle and a half, found as such */
    for (int i = 0; i <= 40; i++) {
        t[i] = i * 0.1;
        u[i] = (i + 3) % 20 < 10 ? 95 : 2;
    }
    assert_true(gs_sawtooth(t, u, 41, &cfg, &saw));
    assert_true(saw.short_window);
    assert_true(saw.edges >= 3);
    assert_true(fabs(saw.period_s - 2) < 0.15);
    for (int i = 0; i <= 40; i++) /* one busy burst in the window: not a sawtooth */
        u[i] = i >= 12 && i < 25 ? 95 : 2;
    assert_false(gs_sawtooth(t, u, 41, &cfg, &saw));
    for (int i = 0; i <= 40; i++) /* busy 0.4 s, idle 1.4 s, busy 0.5 s, idle 0.3 s: irregular */
        u[i] = (i >= 4 && i < 18) || (i >= 23 && i < 26) ? 2 : 95;
    assert_false(gs_sawtooth(t, u, 41, &cfg, &saw));
    for (int i = 0; i <= 40; i++) /* a 20 s sawtooth seen for 4 s: one edge, nothing to say */
        u[i] = i < 25 ? 95 : 2;
    assert_false(gs_sawtooth(t, u, 41, &cfg, &saw));
}

/* A findings list that cannot grow counts what it lost, and a clear forgets it:
 * the evaluation can then say it is incomplete instead of passing for whole. */
static void test_findings_lost(void **state)
{
    struct gs_finding one;
    /* a full list whose next growth overflows: refused before any allocation */
    size_t full = SIZE_MAX / sizeof(struct gs_finding);
    struct gs_findings f = { .v = &one, .n = full, .cap = full };
    (void)state;
    assert_null(gs_findings_add(&f));
    assert_null(gs_findings_add(&f));
    assert_int_equal(f.lost, 2);
    assert_ptr_equal(f.v, &one);
    gs_findings_clear(&f);
    assert_int_equal(f.lost, 0);
    assert_int_equal(f.n, 0);
    f.v = NULL;
    f.cap = 0;
    assert_non_null(gs_findings_add(&f));
    assert_int_equal(f.n, 1);
    assert_int_equal(f.lost, 0);
    gs_findings_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_findings_lost),
        cmocka_unit_test(test_healthy_steady),   cmocka_unit_test(test_leak),
        cmocka_unit_test(test_idle_and_busy),    cmocka_unit_test(test_input_stall),
        cmocka_unit_test(test_lagging),          cmocka_unit_test(test_gpu_checks),
        cmocka_unit_test(test_xid_and_lost),     cmocka_unit_test(test_kmsg_xid_by_pci),
        cmocka_unit_test(test_xid_dedup_sources), cmocka_unit_test(test_kmsg_live_fades),
        cmocka_unit_test(test_count_and_driver), cmocka_unit_test(test_visible_devices),
        cmocka_unit_test(test_linreg),           cmocka_unit_test(test_sawtooth_detector),
        cmocka_unit_test(test_fan),              cmocka_unit_test(test_violation_counters),
        cmocka_unit_test(test_quick_instant),    cmocka_unit_test(test_memory_rates),
        cmocka_unit_test(test_nvlink),           cmocka_unit_test(test_pci_and_aer),
        cmocka_unit_test(test_holders),          cmocka_unit_test(test_xid119_caller),
        cmocka_unit_test(test_unevaluated),      cmocka_unit_test(test_values),
        cmocka_unit_test(test_proc_churn_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
