/* SPDX-License-Identifier: MIT */
/*
 * test_scenario.c - unit tests of the simulator's scenario parser (sim/scenario*.c,
 * linked alone): directives, GPU selections and overrides, value functions and
 * units, processes, events, fault lines, and errors that name file:line.
 * Run from the repository root (the shipped scenarios are parsed too).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario.h"
#include "sim_syms.h"

static struct gs_scn *parse_ok(const char *text)
{
    char err[GS_SCN_ERR_LEN] = "";
    struct gs_scn *s = gs_scn_new();
    assert_non_null(s);
    int rc = gs_scn_parse_buf(s, text, strlen(text), "t.scn", err, sizeof(err));
    if (rc != 0)
        fail_msg("unexpected parse error: %s", err);
    return s;
}

/* Parse text that must fail; returns the message. */
static const char *parse_err(const char *text)
{
    static char err[GS_SCN_ERR_LEN];
    struct gs_scn *s = gs_scn_new();
    err[0] = '\0';
    assert_int_equal(gs_scn_parse_buf(s, text, strlen(text), "t.scn", err, sizeof(err)), -1);
    gs_scn_free(s);
    return err;
}

static double value_at(const char *text, double t)
{
    char err[GS_SCN_ERR_LEN];
    struct gs_scn_expr *e;
    struct gs_scn *s = gs_scn_new();
    if (gs_scn_parse_value(s, text, 1, &e, err, sizeof(err)) != 0)
        fail_msg("value '%s': %s", text, err);
    double v = gs_scn_eval(e, t, NULL);
    gs_scn_free(s);
    return v;
}

static double gpu_num(const struct gs_scn *s, int gpu, enum gs_scn_num n, double t)
{
    struct gs_scn_env env = {.gpu = &s->gpus[gpu], .salt = (unsigned)gpu};
    return gs_scn_eval(s->gpus[gpu].num[n], t, &env);
}

static void test_system_and_gpus(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("# a comment\n"
                                "name unit\n"
                                "system driver=535.104.05 cuda=12.2 init_error=DRIVER_NOT_LOADED\n"
                                "gpu count=4 name=\"NVIDIA H100 80GB HBM3\" memory_total=80GiB  # trailing\n"
                                "gpu 2 memory_total=40GiB \\\n"
                                "      power_limit=350W\n"
                                "gpu 1,3 unsupported=fan,ecc\n");
    assert_string_equal(s->name, "unit");
    assert_string_equal(s->driver_version, "535.104.05");
    assert_int_equal(s->cuda_version, 12020);
    assert_int_equal(s->init_error, 9);
    assert_int_equal(s->ngpus, 4);
    assert_string_equal(s->gpus[3].str[GS_SCN_S_NAME], "NVIDIA H100 80GB HBM3");
    assert_true(gpu_num(s, 0, GS_SCN_N_MEM_TOTAL, 0) == 80.0 * 1073741824.0);
    assert_true(gpu_num(s, 2, GS_SCN_N_MEM_TOTAL, 0) == 40.0 * 1073741824.0);
    assert_true(gpu_num(s, 2, GS_SCN_N_POWER_LIMIT, 0) == 350000.0);
    /* defaults follow other attributes: enforced limit = limit */
    assert_true(gpu_num(s, 2, GS_SCN_N_POWER_ENFORCED, 0) == 350000.0);
    assert_true(gpu_num(s, 1, GS_SCN_N_BUS, 0) == 0x2a);
    assert_true(s->gpus[1].unsupported & (1ull << GS_SCN_F_FAN));
    assert_true(s->gpus[3].unsupported & (1ull << GS_SCN_F_ECC));
    assert_false(s->gpus[0].unsupported & (1ull << GS_SCN_F_FAN));
    gs_scn_free(s);
}

static void test_unsupported_all_minus(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("gpu 0 unsupported=all,-memory,-util\n");
    assert_true(s->gpus[0].unsupported & (1ull << GS_SCN_F_POWER));
    assert_false(s->gpus[0].unsupported & (1ull << GS_SCN_F_MEMORY));
    assert_false(s->gpus[0].unsupported & (1ull << GS_SCN_F_UTIL));
    gs_scn_free(s);
}

static void test_enums_and_cc(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("gpu 0 arch=hopper brand=geforce cc=8.9 compute_mode=exclusive_process "
                                "throttle=sw_power_cap|hw_slowdown ecc=off\n");
    assert_true(gpu_num(s, 0, GS_SCN_N_ARCH, 0) == 9);
    assert_true(gpu_num(s, 0, GS_SCN_N_BRAND, 0) == 5);
    assert_true(gpu_num(s, 0, GS_SCN_N_CC_MAJOR, 0) == 8 && gpu_num(s, 0, GS_SCN_N_CC_MINOR, 0) == 9);
    assert_true(gpu_num(s, 0, GS_SCN_N_COMPUTE_MODE, 0) == 3);
    assert_true(gpu_num(s, 0, GS_SCN_N_THROTTLE, 0) == 0xC);
    assert_true(gpu_num(s, 0, GS_SCN_N_ECC, 0) == 0);
    assert_true(gpu_num(s, 0, GS_SCN_N_ECC_PENDING, 0) == 0);
    gs_scn_free(s);
}

static void test_values_units(void **state)
{
    (void)state;
    assert_true(value_at("80GiB", 0) == 85899345920.0);
    assert_true(value_at("700W", 0) == 700000.0);
    assert_true(value_at("1.5min", 0) == 90.0);
    assert_true(value_at("250ms", 0) == 0.25);
    assert_true(value_at("0x1F", 0) == 31.0);
    assert_true(value_at("on", 0) == 1.0 && value_at("off", 0) == 0.0);
    assert_true(value_at("t", 12.5) == 12.5);
}

static void test_values_functions(void **state)
{
    (void)state;
    assert_true(value_at("ramp(10,20,5,15)", 0) == 10.0);
    assert_true(value_at("ramp(10,20,5,15)", 10) == 15.0);
    assert_true(value_at("ramp(10,20,5,15)", 99) == 20.0);
    assert_true(value_at("linear(4GiB,20MiB)", 10) == 4294967296.0 + 200.0 * 1048576.0);
    assert_true(value_at("linear(1,2,10)", 5) == 1.0);
    assert_true(fabs(value_at("sine(50,10,60)", 15) - 60.0) < 1e-9);
    assert_true(fabs(value_at("saw(0,100,10)", 2.5) - 25.0) < 1e-9);
    assert_true(value_at("square(1,9,10)", 2) == 9.0);
    assert_true(value_at("square(1,9,10)", 7) == 1.0);
    assert_true(value_at("square(1,9,10,0.8)", 7) == 9.0);
    assert_true(value_at("step(3,7,5)", 4.999) == 3.0 && value_at("step(3,7,5)", 5) == 7.0);
    assert_true(value_at("clamp(150,0,100)", 0) == 100.0);
    assert_true(value_at("add(1,2,3,4,5,6)", 0) == 21.0);
    assert_true(value_at("mul(2,3W)", 0) == 6000.0);
    assert_true(value_at("min(4,2,9)", 0) == 2.0 && value_at("max(4,2,9)", 0) == 9.0);
    assert_true(value_at("add( 1 , mul( 2 , 3 ) )", 0) == 7.0);
}

static void test_values_noise(void **state)
{
    (void)state;
    double lo = 1e9, hi = -1e9;
    for (int i = 0; i < 2000; i++) {
        double v = value_at("noise(90,5,3)", i * 0.37);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    assert_true(lo >= 85.0 && hi <= 95.0);
    assert_true(hi - lo > 5.0); /* it does move */
    /* deterministic for the same seed and time, different for another seed */
    assert_true(value_at("noise(0,1,3)", 7.3) == value_at("noise(0,1,3)", 7.3));
    assert_true(value_at("noise(0,1,3)", 7.3) != value_at("noise(0,1,4)", 7.3));
    /* smooth: small time steps make small changes */
    assert_true(fabs(gs_scn_noise(1, 3.0) - gs_scn_noise(1, 3.001)) < 0.01);
}

static void test_value_variables(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("gpu 0 util=ramp(0,100,0,10) power=add(100W,mul(util,5W))\n");
    assert_true(gpu_num(s, 0, GS_SCN_N_POWER, 5) == 100000.0 + 50.0 * 5000.0);
    gs_scn_free(s);
    /* a cycle evaluates to a finite value instead of recursing forever */
    s = parse_ok("gpu 0 util=power power=util\n");
    assert_true(isfinite(gpu_num(s, 0, GS_SCN_N_POWER, 1)));
    gs_scn_free(s);
}

static void test_procs(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("system pid_base=5000\n"
                                "gpu count=2\n"
                                "proc all count=3 type=compute+graphics name=\"python train.py\" mem=2GiB sm=90\n"
                                "proc 1 pid=self type=mps mem=na start=5 exit=10 id=me\n"
                                "proc 0 pid=4242 count=2\n"
                                "proc 1 pid=4300 name=/usr/bin/nvidia-cuda-mps-server\n");
    assert_int_equal(s->nprocs, 10);
    assert_int_equal(s->procs[0].pid, 5000);
    assert_int_equal(s->procs[5].pid, 5005);
    assert_int_equal(s->procs[5].gpu, 1);
    assert_int_equal(s->procs[0].types, GS_SCN_PROC_COMPUTE | GS_SCN_PROC_GRAPHICS);
    assert_string_equal(s->procs[2].name, "python train.py");
    assert_int_equal(s->procs[6].pid_kind, GS_PID_SELF);
    assert_null(s->procs[6].mem);
    assert_true(s->procs[6].start == 5 && s->procs[6].exit == 10);
    assert_int_equal(s->procs[7].pid, 4242);
    assert_int_equal(s->procs[8].pid, 4243);
    assert_int_equal(s->procs[0].gi, 0xFFFFFFFFu);
    gs_scn_free(s);
}

static void test_events(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("gpu count=4\n"
                                "proc 1 id=leaky mem=1GiB\n"
                                "at 30s gpu=0 throttle on hw_thermal|sw_thermal\n"
                                "at 5 gpu=2-3 xid 79\n"
                                "at 5 gpu=2 lost\n"
                                "at 1min gpu=1 ecc dbe 2\n"
                                "at 10 proc leaky mem +2GiB\n"
                                "at 20 proc leaky exit\n"
                                "at 12 gpu=0 pcie drop 1\n"
                                "at 13 gpu=0 remap unc 1\n");
    assert_int_equal(s->nevents, 8);
    for (int i = 1; i < s->nevents; i++)
        assert_true(s->events[i - 1].at <= s->events[i].at);
    assert_int_equal(s->events[0].kind, GS_SCN_EV_XID);
    assert_int_equal(s->events[0].arg, 79);
    assert_true(s->gpus[2].lost_at == 5.0);
    assert_true(isinf(s->gpus[3].lost_at));
    assert_int_equal(s->events[s->nevents - 1].kind, GS_SCN_EV_ECC_DBE);
    assert_true(s->procs[0].exit == 20.0);
    gs_scn_free(s);
}

static void test_faults(void **state)
{
    (void)state;
    char err[GS_SCN_ERR_LEN];
    struct gs_scn *s = parse_ok("gpu count=2\nfault nvmlDeviceGetPowerUsage gpu=1 call=3 error=GPU_IS_LOST persist\n");
    assert_int_equal(s->nfaults, 1);
    assert_int_equal(s->faults[0].sym, SIM_SYM_nvmlDeviceGetPowerUsage);
    assert_int_equal(s->faults[0].gpu, 1);
    assert_int_equal(s->faults[0].call, 3);
    assert_int_equal(s->faults[0].error, 15);
    assert_int_equal(s->faults[0].persist, 1);
    assert_int_equal(gs_scn_parse_faults(s, "nvmlDeviceGetPcieThroughput delay=20 always; "
                                            "fault * gpu=0 error=NVML_ERROR_UNKNOWN;;"
                                            "nvmlInit_v2 error=9",
                                         "GPUSCOPE_SIM_FAULTS", err, sizeof(err)),
                     0);
    assert_int_equal(s->nfaults, 4);
    assert_int_equal(s->faults[1].delay_ms, 20);
    assert_int_equal(s->faults[1].persist, 1);
    assert_int_equal(s->faults[2].sym, -1);
    assert_int_equal(s->faults[2].error, 999);
    assert_int_equal(s->faults[3].error, 9);
    assert_int_equal(gs_scn_parse_faults(s, "nvmlDeviceGetPowerUsage error=BOGUS", "ENV", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "ENV: item 1"));
    assert_non_null(strstr(err, "BOGUS"));
    assert_int_equal(gs_scn_parse_faults(s, "x; nvmlNoSuchThing error=UNKNOWN", "ENV", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not an NVML function"));
    gs_scn_free(s);
}

/* MPS clients need their GPU's server in the compute list, as a driver shows it. */
static void test_mps_needs_server(void **state)
{
    (void)state;
    const char *e = parse_err("gpu count=2\nproc 0 name=nvidia-cuda-mps-server\nproc 1 type=mps\n");
    assert_non_null(strstr(e, "t.scn:3: proc 1 type=mps: no MPS server in GPU 1's compute list"));
    e = parse_err("gpu 0\nproc 0 type=graphics name=nvidia-cuda-mps-server\nproc 0 type=mps\n");
    assert_non_null(strstr(e, "t.scn:3: "));
    /* a server that starts after its client, or exits before it, is not one */
    e = parse_err("gpu 0\nproc 0 name=nvidia-cuda-mps-server start=5\nproc 0 type=mps start=2\n");
    assert_non_null(strstr(e, "t.scn:3: "));
    e = parse_err("gpu 0\nproc 0 name=nvidia-cuda-mps-server exit=5\nproc 0 type=mps\n");
    assert_non_null(strstr(e, "t.scn:3: "));
    e = parse_err("gpu 0\nproc 0 hidden=yes\n");
    assert_non_null(strstr(e, "hidden=yes: expected 0 or 1"));
    struct gs_scn *s = parse_ok("gpu 0\nproc 0 hidden=1 pid=4100\nproc 0 type=mps start=1 exit=9\n");
    assert_true(s->procs[0].hidden);
    assert_false(s->procs[1].hidden);
    gs_scn_free(s);
    s = parse_ok("gpu 0\nproc 0 type=mps id=c\nproc 0 name=nvidia-cuda-mps-server\n");
    gs_scn_free(s);
}

static void test_errors_name_file_line(void **state)
{
    (void)state;
    const char *e = parse_err("gpu count=1\n\nbogus line\n");
    assert_string_equal(e, "t.scn:3: unknown directive 'bogus' (expected name, system, gpu, proc, mig, at, fault, pcidev or cuda)");
    e = parse_err("gpu count=1\ngpu 0 \\\n  util=noise(1\n");
    assert_non_null(strstr(e, "t.scn:2: "));
    e = parse_err("gpu 0 util=frobnicate(1,2)\n");
    assert_non_null(strstr(e, "t.scn:1: bad value 'frobnicate(1,2)': unknown function 'frobnicate'"));
    e = parse_err("gpu 0 util=ramp(1,2)\n");
    assert_non_null(strstr(e, "ramp() takes 4 to 4 arguments, got 2"));
    e = parse_err("gpu 0 memory_total=80Gib\n");
    assert_non_null(strstr(e, "unknown unit 'Gib'"));
    e = parse_err("gpu 0 name=\"unterminated\n");
    assert_non_null(strstr(e, "t.scn:1: unterminated"));
    e = parse_err("gpu 0 colour=blue\n");
    assert_non_null(strstr(e, "unknown GPU attribute 'colour'"));
    e = parse_err("gpu 0\nproc 3 mem=1GiB\n");
    assert_non_null(strstr(e, "t.scn:2: GPU 3 is not defined"));
    e = parse_err("gpu 0 unsupported=fan,warp_drive\n");
    assert_non_null(strstr(e, "unknown feature 'warp_drive'"));
    e = parse_err("gpu 0\nat soon gpu=0 xid 79\n");
    assert_non_null(strstr(e, "t.scn:2: "));
    e = parse_err("gpu 0\nat 5 xid 79\n");
    assert_non_null(strstr(e, "need gpu=SEL"));
    e = parse_err("gpu 0\nfault nvmlDeviceGetPowerUsage call=0 error=UNKNOWN\n");
    assert_non_null(strstr(e, "t.scn:2: fault: bad word 'call=0'"));
    e = parse_err("gpu 0\nproc 0 pid=self kill=3\n");
    assert_non_null(strstr(e, "kill= needs pid=spawn"));
    e = parse_err("gpu 0 util=noise(1,2)(\n");
    assert_non_null(strstr(e, "t.scn:1: "));
    e = parse_err("gpu 70\n");
    assert_non_null(strstr(e, "bad GPU selection"));
}

static void test_binary_garbage_is_an_error_not_a_crash(void **state)
{
    (void)state;
    static const char junk[] = "gpu 0 name=\"a\0b\"\n\xff\xfe gpu\n";
    char err[GS_SCN_ERR_LEN];
    struct gs_scn *s = gs_scn_new();
    assert_int_equal(gs_scn_parse_buf(s, junk, sizeof(junk) - 1, "j.scn", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "j.scn:2:"));
    gs_scn_free(s);
}

static void test_shipped_scenarios_parse(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob("sim/scenarios/*.scn", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 9);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        char err[GS_SCN_ERR_LEN];
        struct gs_scn *s = gs_scn_new();
        if (gs_scn_parse_file(s, g.gl_pathv[i], err, sizeof(err)) != 0)
            fail_msg("%s", err);
        gs_scn_free(s);
    }
    globfree(&g);
}

static void test_missing_file(void **state)
{
    (void)state;
    char err[GS_SCN_ERR_LEN];
    struct gs_scn *s = gs_scn_new();
    assert_int_equal(gs_scn_parse_file(s, "/nonexistent/x.scn", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent/x.scn: cannot open"));
    gs_scn_free(s);
}

static void test_name_tables(void **state)
{
    (void)state;
    assert_int_equal(gs_scn_error_code("GPU_IS_LOST"), 15);
    assert_int_equal(gs_scn_error_code("nvml_error_no_permission"), 4);
    assert_int_equal(gs_scn_error_code("18"), 18);
    assert_int_equal(gs_scn_error_code("12345"), -1);
    assert_string_equal(gs_scn_error_name(999), "UNKNOWN");
    assert_int_equal(gs_scn_feature_code("encoder"), GS_SCN_F_ENCODER);
    assert_string_equal(gs_scn_feature_name(GS_SCN_F_FAN), "fan");
    assert_int_equal(gs_scn_sym_code("nvmlInit_v2"), SIM_SYM_nvmlInit_v2);
    assert_string_equal(gs_scn_sym_name(SIM_SYM_nvmlShutdown), "nvmlShutdown");
    assert_int_equal(gs_scn_num_code("util"), GS_SCN_N_UTIL);
}

/* mig lines: instances start idle, set their own readings, keep the GPU's
 * others, and their profiling activity follows their utilization unless given. */
static void test_mig_lines(void **state)
{
    (void)state;
    struct gs_scn *s = parse_ok("gpu 0-1 arch=hopper util=50 temp=40 mig=on\n"
                                "mig 0 profile=3g.40gb placement=4 util=80 tensor_active=30\n"
                                "mig 0-1 count=2 profile=1g.10gb\n"
                                "mig 1 profile=1g.10gb+me gi=13 cis=1 memory_used=1GiB\n");
    assert_int_equal(s->nmigs, 6);
    const struct gs_scn_mig *m = &s->migs[0];
    struct gs_scn_env env = {.gpu = &m->cfg, .salt = 0};
    assert_string_equal(m->profile, "3g.40gb");
    assert_int_equal(m->placement, 4);
    assert_int_equal(m->gi, -1);
    assert_int_equal(m->cis, 1);
    assert_true(gs_scn_eval(m->cfg.num[GS_SCN_N_UTIL], 0, &env) == 80);
    assert_true(gs_scn_eval(m->cfg.num[GS_SCN_N_TEMP], 0, &env) == 40);            /* the GPU's */
    assert_true(gs_scn_eval(m->cfg.num[GS_SCN_N_GR_ACTIVE], 0, &env) == 80);       /* follows its util */
    assert_true(fabs(gs_scn_eval(m->cfg.num[GS_SCN_N_SM_ACTIVE], 0, &env) - 80 * 0.93) < 1e-9);
    assert_true(gs_scn_eval(m->cfg.num[GS_SCN_N_TENSOR_ACTIVE], 0, &env) == 30);
    assert_null(m->cfg.num[GS_SCN_N_MEM_USED]);                                     /* from its processes */
    struct gs_scn_env env1 = {.gpu = &s->migs[1].cfg, .salt = 0};
    assert_true(gs_scn_eval(s->migs[1].cfg.num[GS_SCN_N_UTIL], 0, &env1) == 0); /* idle, not the GPU's 50 */
    assert_true(gs_scn_eval(s->migs[1].cfg.num[GS_SCN_N_GR_ACTIVE], 0, &env1) == 0);
    assert_int_equal(s->migs[1].gpu, 0);
    assert_int_equal(s->migs[3].gpu, 1);
    assert_int_equal(s->migs[5].gi, 13);
    assert_non_null(s->migs[5].cfg.num[GS_SCN_N_MEM_USED]);
    assert_true(gpu_num(s, 0, GS_SCN_N_GR_ACTIVE, 0) == 50);
    gs_scn_free(s);
    assert_string_equal(parse_err("gpu 0\nmig 0 util=5\n"), "t.scn:2: mig: profile= is required (e.g. profile=1g.10gb)");
    assert_string_equal(parse_err("gpu 0\nmig 0 profile=big\n"),
                        "t.scn:2: profile=big: expected a GPU instance profile such as 1g.10gb, 3g.40gb or 1g.10gb+me");
    assert_string_equal(parse_err("gpu 0\nmig 1 profile=1g.10gb\n"),
                        "t.scn:2: GPU 1 is not defined (define it with a gpu line first)");
    assert_string_equal(parse_err("gpu 0\nmig 0 profile=1g.10gb count=2 gi=3\n"),
                        "t.scn:2: mig: count= cannot be combined with gi= or placement=");
    assert_string_equal(parse_err("gpu 0\nmig 0 profile=1g.10gb placement=9\n"),
                        "t.scn:2: placement=9: expected a whole number 0-7");
    assert_non_null(strstr(parse_err("gpu 0\nmig 0 profile=1g.10gb power=5W\n"), "unknown mig attribute 'power'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_and_gpus),
        cmocka_unit_test(test_unsupported_all_minus),
        cmocka_unit_test(test_enums_and_cc),
        cmocka_unit_test(test_values_units),
        cmocka_unit_test(test_values_functions),
        cmocka_unit_test(test_values_noise),
        cmocka_unit_test(test_value_variables),
        cmocka_unit_test(test_procs),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_mps_needs_server),
        cmocka_unit_test(test_errors_name_file_line),
        cmocka_unit_test(test_binary_garbage_is_an_error_not_a_crash),
        cmocka_unit_test(test_shipped_scenarios_parse),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_name_tables),
        cmocka_unit_test(test_mig_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
