/* SPDX-License-Identifier: MIT */
/* test_health_torch.c - the health checks on PyTorch's allocator figures (from the
 * Python hook): OOMs, fragmentation (retries; reserved far above allocated in split
 * blocks) with advice that follows the process's PYTORCH_CUDA_ALLOC_CONF, steady
 * growth of live tensors; a steady training job and a caching allocator that grows
 * and stops give nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"

#define MIB (1ull << 20)

struct torch_at { uint64_t alloc, reserved, inactive, retries, ooms; const char *conf; };
typedef struct torch_at (*plan_fn)(int t_s);

/* One GPU, one hooked process; the plan gives its allocator figures at each second. */
static void run(int seconds, plan_fn plan, struct gs_findings *out)
{
    struct gs_health_cfg cfg;
    gs_health_cfg_default(&cfg);
    cfg.check_visible_devices = false;
    struct gs_health *h = gs_health_new(&cfg);
    for (int t = 0; t <= seconds; t++) {
        struct gs_snapshot snap;
        struct gs_gpu g;
        memset(&g, 0, sizeof(g));
        gs_snapshot_init(&snap);
        snap.ngpus = 1;
        snap.gpus = &g;
        g.st.index = 0;
        g.state = GS_GPU_OK;
        g.procs_status = GS_ST_OK;
        g.s.mem_total_bytes = 81559 * MIB;
        g.s.mem_used_bytes = 30000 * MIB;
        g.s.gpu_util_pct = 90;
        for (int f = 0; f < GS_F_COUNT; f++)
            gs_sample_mark(&g.s, f, GS_ST_OK);
        g.s.throttle_reasons = 0;
        g.s.persistence_mode = 1;
        g.s.pcie_gen = g.s.pcie_width = 0;
        g.s.temp_gpu_c = 60;
        g.s.power_mw = 500000;
        g.s.power_enforced_limit_mw = 700000;
        g.s.clock_sm_mhz = 1900;
        g.s.ecc_vol_uncorrected = 0;
        struct gs_proc *p = gs_gpu_add_proc(&g);
        struct torch_at a = plan(t);
        p->pid = 4242;
        p->gpu_mem_bytes = (a.reserved + 600 * MIB);
        p->sm_util_pct = 90;
        snprintf(p->name, sizeof(p->name), "python train.py");
        gs_proc_set(p, GS_P_GPU_MEM);
        gs_proc_set(p, GS_P_NAME);
        gs_proc_set(p, GS_P_PYHOOK);
        gs_proc_set(p, GS_P_TORCH);
        p->pyhook_state = 4; /* GS_PYHOOK_ST_OK (core/pyhook.h) */
        p->torch_allocated_bytes = a.alloc;
        p->torch_reserved_bytes = a.reserved;
        p->torch_inactive_split_bytes = a.inactive;
        p->torch_alloc_retries = a.retries;
        p->torch_ooms = a.ooms;
        snprintf(p->torch_alloc_conf, sizeof(p->torch_alloc_conf), "%s", a.conf ? a.conf : "");
        assert_int_equal(gs_health_add(h, &snap, (int64_t)t * 1000), 0);
        free(g.procs);
    }
    gs_health_eval(h, out);
    gs_health_free(h);
}

static const struct gs_finding *only(const struct gs_findings *f, const char *code)
{
    const struct gs_finding *hit = NULL;
    for (size_t i = 0; i < f->n; i++) {
        fprintf(stderr, "  finding: %s pid=%u %s | %s | %s\n", f->v[i].code, f->v[i].pid, f->v[i].title,
                f->v[i].evidence, f->v[i].action);
        if (!strcmp(f->v[i].code, code))
            hit = &f->v[i];
    }
    assert_int_equal(f->n, 1);
    assert_non_null(hit);
    assert_int_equal(hit->pid, 4242);
    assert_int_equal(hit->gpu, 0);
    return hit;
}

static struct torch_at steady(int t)
{
    return (struct torch_at){ (20000 + (uint64_t)(t % 7) * 300) * MIB, 24000 * MIB, 500 * MIB, 0, 0, NULL };
}

static struct torch_at warmup(int t) /* the cache grows, then stops: normal */
{
    uint64_t r = (uint64_t)(t < 60 ? 4000 + t * 300 : 22000);
    return (struct torch_at){ (r - 2000) * MIB, r * MIB, 200 * MIB, 0, 0, NULL };
}

static struct torch_at retries(int t)
{
    return (struct torch_at){ 20000 * MIB, 24000 * MIB, 3000 * MIB, (uint64_t)(t / 30), 0, NULL };
}

static struct torch_at retries_split(int t)
{
    struct torch_at a = retries(t);
    a.conf = "max_split_size_mb:256";
    return a;
}

static struct torch_at bloated(int t)
{
    (void)t;
    return (struct torch_at){ 8000 * MIB, 30000 * MIB, 12000 * MIB, 0, 0, "expandable_segments:False" };
}

static struct torch_at oom(int t)
{
    return (struct torch_at){ 70000 * MIB, 74000 * MIB, 100 * MIB, 0, t > 50 ? 2 : 0, "expandable_segments:True" };
}

static struct torch_at growth(int t)
{
    return (struct torch_at){ (10000 + (uint64_t)t * 12) * MIB, (12000 + (uint64_t)t * 12) * MIB, 100 * MIB, 0, 0, NULL };
}

static void test_healthy(void **state)
{
    (void)state;
    struct gs_findings f = { 0 };
    run(300, steady, &f);
    assert_int_equal(f.n, 0);
    gs_findings_clear(&f);
    run(300, warmup, &f);
    assert_int_equal(f.n, 0);
    gs_findings_free(&f);
}

static void test_fragmentation(void **state)
{
    (void)state;
    struct gs_findings f = { 0 };
    run(120, retries, &f);
    const struct gs_finding *x = only(&f, "proc.torch_fragmentation");
    assert_int_equal(x->severity, GS_SEV_WARNING);
    assert_non_null(strstr(x->title, "allocation retries"));
    assert_non_null(strstr(x->evidence, "retries went from 0 to 4"));
    assert_non_null(strstr(x->action, "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128"));
    gs_findings_clear(&f);
    run(120, retries_split, &f);
    assert_non_null(strstr(only(&f, "proc.torch_fragmentation")->action, "lower max_split_size_mb"));
    gs_findings_clear(&f);
    run(20, bloated, &f);
    x = only(&f, "proc.torch_fragmentation");
    assert_non_null(strstr(x->title, "reserved far above allocated"));
    assert_non_null(strstr(x->evidence, "cache 22000 MiB, 12000 MiB of it in inactive split blocks"));
    gs_findings_free(&f);
}

static void test_oom(void **state)
{
    (void)state;
    struct gs_findings f = { 0 };
    run(60, oom, &f);
    const struct gs_finding *x = only(&f, "proc.torch_oom");
    assert_int_equal(x->severity, GS_SEV_CRITICAL);
    assert_non_null(strstr(x->action, "already expandable_segments:True"));
    char words[64];
    assert_string_equal(gs_finding_words(x, words, sizeof(words)), "PyTorch OOM pid 4242");
    gs_findings_free(&f);
}

static void test_growth(void **state)
{
    (void)state;
    struct gs_findings f = { 0 };
    run(120, growth, &f);
    /* NVML's total grows as fast (12 MiB/s): proc.memory_leak too; PyTorch says it is live tensors */
    bool torch = false, nvml = false;
    for (size_t i = 0; i < f.n; i++) {
        torch |= !strcmp(f.v[i].code, "proc.torch_growth");
        nvml |= !strcmp(f.v[i].code, "proc.memory_leak");
        if (!strcmp(f.v[i].code, "proc.torch_growth"))
            assert_non_null(strstr(f.v[i].evidence, "allocated 10000 -> 11440 MiB"));
    }
    assert_true(torch);
    assert_true(nvml);
    assert_int_equal(f.n, 2);
    gs_findings_clear(&f);
    run(40, growth, &f); /* too short to call it */
    assert_int_equal(f.n, 0);
    gs_findings_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_healthy), cmocka_unit_test(test_fragmentation), cmocka_unit_test(test_oom),
        cmocka_unit_test(test_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
