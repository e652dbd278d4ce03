/* SPDX-License-Identifier: MIT */
/* test_burn.c - burn's parts that need no GPU: the CPU reference of the
 * kernels (against values worked out independently here), the PTX entries
 * against the kernel table, option parsing, the monitor's counting, and every
 * verdict rule on synthetic records (each planted reason gives its finding on
 * its GPU and nothing else; healthy records give none). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burn/burn_priv.h"
#include "burn/kernels.h"
#include "scenario_cuda.h"

static float f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof(f));
    return f;
}

/* No trips: the sum of the start values, which are exact dyadic numbers. */
static void test_ref_rot_start(void **state)
{
    (void)state;
    for (uint32_t tid = 0; tid < 300; tid += 37) {
        double want = 0;
        for (uint32_t p = 0; p < 4; p++) {
            double k = (double)((tid * 4 + p + 5) & 0xFFFF);
            want += (1 + k / 65536) + (0.5 - k / 131072);
        }
        assert_true(fabs(f32(gs_burn_ref_rot32(tid, 0, 5)) - want) < 1e-5);
        uint64_t b = gs_burn_ref_rot64(tid, 0, 5);
        double d;
        memcpy(&d, &b, sizeof(d));
        assert_true(fabs(d - want) < 1e-12);
    }
}

/* Rotations keep the magnitude: after many trips the values stay bounded and
 * differ from the start; the same inputs give the same bits; inputs differ by thread. */
static void test_ref_rot_iterates(void **state)
{
    (void)state;
    uint32_t a = gs_burn_ref_rot32(3, 2000, 1), b = gs_burn_ref_rot32(3, 2000, 1);
    assert_int_equal(a, b);
    assert_true(isfinite(f32(a)) && fabs(f32(a)) < 8);
    assert_true(a != gs_burn_ref_rot32(3, 0, 1));
    assert_true(a != gs_burn_ref_rot32(4, 2000, 1));
    assert_true(gs_burn_ref_rot64(3, 2000, 1) != gs_burn_ref_rot64(3, 1999, 1));
}

/* The mma reference against C + A*B computed here from kernels.h's formulas. */
static void test_ref_mma(void **state)
{
    (void)state;
    for (uint32_t seed = 0; seed < 9; seed += 4)
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint32_t out[4];
            gs_burn_ref_mma(lane, seed, out);
            for (int r = 0; r < 4; r++) {
                int n = 2 * (int)(lane % 4) + (r & 1), d = (int)((11u * (unsigned)n + seed) % 9u) - 4;
                for (int k = 0; k < 16; k++)
                    d += ((int)((5u * (unsigned)k + seed) % 7u) - 3) * ((int)((3u * (unsigned)k + 5u * (unsigned)n + seed) % 7u) - 3);
                assert_true(f32(out[r]) == 4.0f * (float)d);
            }
        }
}

static void test_ref_mem(void **state)
{
    (void)state;
    assert_int_equal(gs_burn_ref_mem(12345, 0x55555555u, GS_BURN_MEM_MODE_CONST), 0x55555555u);
    assert_int_equal(gs_burn_ref_mem(7, 0, GS_BURN_MEM_MODE_ADDRESS), 7);
    uint64_t w = (3ull << 32) | 9;
    assert_int_equal(gs_burn_ref_mem(w, 0, GS_BURN_MEM_MODE_ADDRESS), 9u ^ (3u * 0x9E3779B9u));
    /* the inverse pattern inverts every word: moving inversions */
    assert_int_equal(gs_burn_ref_mem(w, ~0u, GS_BURN_MEM_MODE_ADDRESS), ~gs_burn_ref_mem(w, 0, GS_BURN_MEM_MODE_ADDRESS));
}

/* Every kernel of the table is in its module's PTX with as many .param as the
 * table says, and the scenario parser knows it (cuda corrupt kernel=). */
static void test_ptx_entries(void **state)
{
    (void)state;
    for (int k = 0; k < GS_BK__COUNT; k++) {
        const struct gs_burn_kernel_info *ki = &gs_burn_kernels[k];
        const char *ptx = !strcmp(ki->module, "mma") ? gs_burn_ptx_mma : gs_burn_ptx_base;
        char entry[80];
        snprintf(entry, sizeof(entry), ".visible .entry %s(", ki->entry);
        const char *p = strstr(ptx, entry);
        assert_non_null(p);
        const char *end = strchr(p, ')');
        unsigned n = 0;
        for (const char *q = strstr(p, ".param"); q && q < end; q = strstr(q + 1, ".param"))
            n++;
        assert_int_equal(n, ki->nparams);
        assert_true(gs_scn_cuda_kernel_known(ki->entry));
        assert_int_equal(gs_burn_kernel_by_entry(ki->entry), k);
    }
    assert_int_equal(gs_burn_kernel_by_entry("gs_burn_nope"), -1);
    assert_non_null(strstr(gs_burn_ptx_mma, ".target sm_80"));
}

static void test_options(void **state)
{
    (void)state;
    struct gs_burn_opts o;
    struct gs_err err = { 0 };
    unsigned m;
    gs_burn_opts_default(&o);
    assert_int_equal(o.workloads, GS_BURN_WL_ALL);
    assert_int_equal(gs_burn_parse_workloads("compute,memory", &m, &err), 0);
    assert_int_equal(m, (1u << GS_BW_FP32) | (1u << GS_BW_FP64) | (1u << GS_BW_MEMORY));
    assert_int_equal(gs_burn_parse_workloads("tensor,gpu", &m, &err), -GS_E_USAGE);
    assert_non_null(strstr(err.msg, "'gpu'"));
    assert_int_equal(gs_burn_threshold_set(&o.th, "sibling_ratio=0.8", &err), 0);
    assert_true(o.th.sibling_ratio == 0.8);
    assert_int_equal(gs_burn_threshold_set(&o.th, "slowdown_margin_c=-3", &err), 0);
    assert_int_equal(o.th.slowdown_margin_c, -3);
    assert_int_equal(gs_burn_threshold_set(&o.th, "warmup_s", &err), -GS_E_USAGE);
    assert_int_equal(gs_burn_threshold_set(&o.th, "load_util_pct=101", &err), -GS_E_USAGE);
}

/* ---- verdict rules ------------------------------------------------------------------- */

static struct gs_burn_opts opts;

static void healthy(struct burn_gpu *g, int index)
{
    memset(g, 0, sizeof(*g));
    g->index = index;
    g->ordinal = index;
    snprintf(g->name, sizeof(g->name), "NVIDIA H100 80GB HBM3");
    snprintf(g->pci, sizeof(g->pci), "00000000:%02X:00.0", 0x18 + index);
    g->st.temp_slowdown_c = 87;
    g->st.clock_max_sm_mhz = 1980;
    g->st.pcie_max_gen = 5;
    g->st.pcie_max_width = 16;
    g->st.valid = ~0ull;
    for (int wl = 0; wl < GS_BW__COUNT; wl++) {
        g->w[wl].selected = g->w[wl].supported = true;
        g->w[wl].iterations = 10;
        g->w[wl].work = 1e13;
        g->w[wl].gpu_s = 1;
    }
    g->mon.temp_ok = g->mon.power_ok = true;
    g->mon.temp_max_c = 75;
    g->mon.clk_min_mhz = 1800;
    g->mon.clk_max_mhz = 1980;
    g->mon.clock_judged = g->mon.pcie_judged = 50;
}

/* The codes found, "gpu:code,..." in order. */
static const char *codes(struct burn_gpu *g, int n, bool interrupted)
{
    static char buf[512];
    struct gs_findings f = { 0 };
    size_t k = 0;
    gs_burn_verdict(&opts, g, n, interrupted, &f);
    buf[0] = '\0';
    for (size_t i = 0; i < f.n; i++)
        k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%d:%s", i ? "," : "", f.v[i].gpu, f.v[i].code);
    gs_findings_free(&f);
    return buf;
}

static void test_verdict_healthy(void **state)
{
    (void)state;
    struct burn_gpu g[3];
    for (int i = 0; i < 3; i++)
        healthy(&g[i], i);
    assert_string_equal(codes(g, 3, false), "");
}

static void test_verdict_fail_rules(void **state)
{
    (void)state;
    struct burn_gpu g[8];
    for (int i = 0; i < 8; i++)
        healthy(&g[i], i);
    g[0].w[GS_BW_FP64].mismatches = 3, g[0].w[GS_BW_FP64].first_bad_iter = 4;
    g[1].cuda_error = CUDA_ERROR_LAUNCH_FAILED;
    snprintf(g[1].cuda_call, sizeof(g[1].cuda_call), "cuEventSynchronize");
    g[1].mon.lost = true;
    g[1].mon.nxids = 1, g[1].mon.xid_code[0] = 79, g[1].mon.xid_count[0] = 1;
    g[2].mon.nxids = 1, g[2].mon.xid_code[0] = 48, g[2].mon.xid_count[0] = 2;
    g[3].mon.ecc_unc = 2;
    g[4].mon.remap_failed = true;
    g[5].mon.throttle_s[6] = 3;   /* HW thermal */
    g[6].mon.throttle_s[7] = 1;   /* HW power brake */
    g[7].mon.throttle_s[3] = 1;   /* HW slowdown */
    g[7].mon.throttle_s[2] = 30;  /* SW power cap: normal under a burn */
    assert_string_equal(codes(g, 8, false),
                        "0:burn.wrong_result,1:burn.cuda_error,1:gpu.lost,2:xid.48,3:ecc.uncorrectable,"
                        "4:ecc.remap_failed,5:thermal.hw_thermal,6:power.hw_power_brake,7:thermal.hw_slowdown");
    struct gs_findings f = { 0 };
    gs_burn_verdict(&opts, g, 8, false, &f);
    assert_int_equal(gs_burn_gpu_worst(&f, 2), GS_SEV_CRITICAL);
    assert_string_equal(gs_burn_verdict_word(gs_burn_gpu_worst(&f, 2)), "FAIL");
    assert_non_null(strstr(f.v[0].evidence, "fp64: 3 wrong words in 10 iterations (first in iteration 4"));
    gs_findings_free(&f);
}

static void test_verdict_warn_rules(void **state)
{
    (void)state;
    struct burn_gpu g[4];
    for (int i = 0; i < 4; i++)
        healthy(&g[i], i);
    g[0].mon.temp_max_c = 87;                       /* at the slowdown threshold */
    g[1].mon.pcie_low = 40, g[1].mon.pcie_gen_seen = 4, g[1].mon.pcie_width_seen = 16;
    g[2].mon.clock_low = 30, g[2].mon.clk_min_mhz = 900;
    g[3].w[GS_BW_TENSOR].work = 0.8e13;             /* 20 % below its siblings' median */
    assert_string_equal(codes(g, 4, false), "0:thermal.at_slowdown,1:pcie.below_max,2:clocks.low,3:burn.slow_sibling");
    /* PCIe replays: gen 5 x16 expects at most ceil(16 x 1.92) = 31 a minute */
    g[1].mon.replay_ok = true, g[1].mon.replay_first = 100, g[1].mon.replay_last = 100 + 32;
    g[1].mon.replay_first_s = 5, g[1].mon.replay_last_s = 65, g[1].mon.replay_gen = 5, g[1].mon.replay_width = 16;
    assert_string_equal(codes(g, 4, false),
                        "0:thermal.at_slowdown,1:pcie.below_max,1:pcie.replay_rate,2:clocks.low,3:burn.slow_sibling");
    g[1].mon.replay_last = 100 + 31; /* at the limit */
    assert_string_equal(codes(g, 4, false), "0:thermal.at_slowdown,1:pcie.below_max,2:clocks.low,3:burn.slow_sibling");
    g[1].mon.replay_last = 100 + 1000, g[1].mon.replay_last_s = 20; /* under 30 s: too short to judge a rate */
    assert_string_equal(codes(g, 4, false), "0:thermal.at_slowdown,1:pcie.below_max,2:clocks.low,3:burn.slow_sibling");
    g[1].mon.replay_last_s = 65;
    opts.th.pcie_replay_factor = 0;
    opts.th.slowdown_margin_c = -1;
    opts.th.pcie_low_share = 0;
    opts.th.clock_low_ratio = 0;
    opts.th.sibling_ratio = 0.7;
    assert_string_equal(codes(g, 4, false), "");
    gs_burn_opts_default(&opts);
    /* a GPU alone or of another model has no siblings; fewer than half low samples is no warning */
    snprintf(g[3].name, sizeof(g[3].name), "NVIDIA A100-SXM4-80GB");
    g[0].mon.temp_max_c = 86, g[1].mon.pcie_low = 20, g[2].mon.clock_low = 10, g[1].mon.replay_ok = false;
    assert_string_equal(codes(g, 4, false), "");
}

static void test_verdict_progress(void **state)
{
    (void)state;
    struct burn_gpu g[2];
    healthy(&g[0], 0);
    healthy(&g[1], 1);
    g[0].w[GS_BW_MEMORY].iterations = 0, g[0].w[GS_BW_MEMORY].gpu_s = 0;
    g[1].ordinal = -1;                              /* CUDA does not see it */
    g[1].w[GS_BW_TENSOR].supported = false;
    snprintf(g[1].w[GS_BW_TENSOR].skip_why, sizeof(g[1].w[GS_BW_TENSOR].skip_why), "needs sm_80");
    assert_string_equal(codes(g, 2, false), "0:burn.no_progress,1:burn.not_tested,1:burn.workload_skipped");
    /* interrupted: an unfinished workload is not a failure */
    assert_string_equal(codes(g, 2, true), "1:burn.not_tested,1:burn.workload_skipped");
}

/* The monitor: baselines, HW reason seconds, loaded samples, Xids, the lost GPU. */
static void test_monitor(void **state)
{
    (void)state;
    struct burn_gpu g;
    struct gs_gpu sg;
    struct gs_snapshot snap;
    healthy(&g, 0);
    memset(&g.mon, 0, sizeof(g.mon));
    memset(&sg, 0, sizeof(sg));
    memset(&snap, 0, sizeof(snap));
    sg.st = g.st;
    enum gs_field ok[] = { GS_F_ECC_VOL_UNCORR, GS_F_REMAP_UNCORR, GS_F_REMAP_FAILED, GS_F_TEMP_GPU, GS_F_POWER,
                           GS_F_THROTTLE, GS_F_GPU_UTIL, GS_F_CLOCK_SM, GS_F_PCIE_GEN, GS_F_PCIE_WIDTH };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        gs_sample_mark(&sg.s, ok[i], GS_ST_OK);
    sg.s.ecc_vol_uncorrected = 5;
    sg.s.gpu_util_pct = 100, sg.s.clock_sm_mhz = 1980, sg.s.pcie_gen = 5, sg.s.pcie_width = 16;
    sg.s.temp_gpu_c = 60;
    for (int t = 0; t <= 20; t++) {
        sg.s.throttle_reasons = t >= 10 && t < 13 ? GS_THROTTLE_HW_SLOWDOWN : 0;
        if (t == 15)
            sg.s.ecc_vol_uncorrected = 6;
        if (t == 16) {
            snap.nevents = 1;
            snap.events[0] = (struct gs_event){ .gpu = 0, .kind = GS_EV_XID, .data = 43 };
        } else {
            snap.nevents = 0;
        }
        gs_burn_monitor_tick(&opts, &g, &sg, &snap, t, t ? 1 : 0);
    }
    assert_int_equal(g.mon.ecc_unc_base, 5);
    assert_int_equal(g.mon.ecc_unc, 6);
    assert_true(g.mon.throttle_s[3] == 3 && g.mon.hw_first_s[3] == 10);
    assert_int_equal(g.mon.loaded, 21);
    assert_int_equal(g.mon.clock_judged, 16); /* t >= warmup_s (5) */
    assert_int_equal(g.mon.nxids, 1);
    assert_int_equal(g.mon.xid_code[0], 43);
    sg.state = GS_GPU_LOST;
    gs_burn_monitor_tick(&opts, &g, &sg, &snap, 21, 1);
    assert_true(g.mon.lost && g.mon.lost_s == 21);
}

static void test_rate_str(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(gs_burn_rate_str(51.2e12, false, b, sizeof(b)), "51.20 TFLOP/s");
    assert_string_equal(gs_burn_rate_str(3.97e9, false, b, sizeof(b)), "3.97 GFLOP/s");
    assert_string_equal(gs_burn_rate_str(2.75e12, true, b, sizeof(b)), "2750 GB/s");
    assert_string_equal(gs_burn_rate_str(0.2e9, true, b, sizeof(b)), "200.0 MB/s");
}

static int setup(void **state)
{
    (void)state;
    gs_burn_opts_default(&opts);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ref_rot_start),   cmocka_unit_test(test_ref_rot_iterates),
        cmocka_unit_test(test_ref_mma),         cmocka_unit_test(test_ref_mem),
        cmocka_unit_test(test_ptx_entries),     cmocka_unit_test(test_options),
        cmocka_unit_test_setup(test_verdict_healthy, setup), cmocka_unit_test_setup(test_verdict_fail_rules, setup),
        cmocka_unit_test_setup(test_verdict_warn_rules, setup), cmocka_unit_test_setup(test_verdict_progress, setup),
        cmocka_unit_test_setup(test_monitor, setup), cmocka_unit_test(test_rate_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
