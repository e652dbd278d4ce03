/* SPDX-License-Identifier: MIT */
/* test_ui_feed.c - top's health engine configuration (ui/feed.c) holds enough history for the
 * checks whose badges top shows: the idle-memory check's 5 minutes and the leak check's minute,
 * at the fastest evaluation rate (one per GS_FEED_EVAL_MS). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "health/health.h"
#include "ui/feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One GPU, idle, with one process holding mem_mib. */
static void idle_snapshot(struct gs_snapshot *snap, uint64_t mem_mib)
{
    gs_snapshot_init(snap);
    snap->ngpus = 1;
    snap->gpus = calloc(1, sizeof(*snap->gpus));
    struct gs_gpu *g = &snap->gpus[0];
    g->st.index = 0;
    snprintf(g->st.uuid, sizeof(g->st.uuid), "GPU-feed-test");
    gs_static_mark(&g->st, GS_S_UUID, GS_ST_OK);
    g->s.gpu_util_pct = 0;
    g->s.mem_total_bytes = 81559ull << 20;
    g->s.mem_used_bytes = (mem_mib + 500) << 20;
    gs_sample_mark(&g->s, GS_F_GPU_UTIL, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_MEM_USED, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_MEM_TOTAL, GS_ST_OK);
    g->state = GS_GPU_OK;
    g->procs_status = GS_ST_OK;
    struct gs_proc *p = gs_gpu_add_proc(g);
    p->pid = 4242;
    p->type = GS_PROC_COMPUTE;
    p->gpu_mem_bytes = mem_mib << 20;
    gs_proc_set(p, GS_P_GPU_MEM);
}

static bool has_code(const struct gs_findings *f, const char *code)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].code, code))
            return true;
    return false;
}

/* Idle for 330 s, evaluated every 0.9 s (top at -d 0.1): the idle-memory
 * finding appears, as it does in doctor and watch. */
static void test_idle_memory_within_history(void **state)
{
    struct gs_health_cfg hc;
    struct gs_snapshot snap;
    struct gs_findings f = {0};
    (void)state;

    gs_feed_health_cfg(&hc);
    struct gs_health *h = gs_health_new(&hc);
    assert_non_null(h);
    idle_snapshot(&snap, 4096);
    bool seen_early = false;
    for (int64_t t = 0; t <= 330000; t += GS_FEED_EVAL_MS) {
        assert_int_equal(gs_health_add(h, &snap, t), 0);
        gs_health_eval(h, &f);
        if (t < (int64_t)hc.idle_min_s * 1000 && has_code(&f, "proc.idle_memory"))
            seen_early = true;
    }
    assert_false(seen_early); /* not before its 5 minutes */
    assert_true(has_code(&f, "proc.idle_memory"));
    gs_findings_free(&f);
    gs_health_free(h);
    gs_snapshot_release(&snap);
}

/* The process history spans the leak check's minute at that rate. */
static void test_proc_history_spans_a_minute(void **state)
{
    struct gs_health_cfg hc;
    (void)state;

    gs_feed_health_cfg(&hc);
    assert_true((hc.proc_ring_samples - 1) * GS_FEED_EVAL_MS >= 60000);
    assert_true((hc.ring_samples - 1) * GS_FEED_EVAL_MS >= hc.idle_min_s * 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_memory_within_history),
        cmocka_unit_test(test_proc_history_spans_a_minute),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
