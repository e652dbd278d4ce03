/* SPDX-License-Identifier: MIT */
/* test_model.c - the data model's helpers: validity bits, snapshot copy, names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/model.h"

static void test_zeroed_sample_is_not_supported(void **state)
{
    struct gs_sample s;
    (void)state;
    memset(&s, 0, sizeof(s));
    for (int f = 0; f < GS_F_COUNT; f++) {
        assert_false(gs_sample_has(&s, f));
        assert_int_equal(s.status[f], GS_ST_NOT_SUPPORTED);
    }
}

static void test_mark_keeps_mask_and_status_in_step(void **state)
{
    struct gs_sample s = { 0 };
    (void)state;
    gs_sample_mark(&s, GS_F_POWER, GS_ST_OK);
    assert_true(gs_sample_has(&s, GS_F_POWER));
    gs_sample_mark(&s, GS_F_POWER, GS_ST_GPU_LOST);
    assert_false(gs_sample_has(&s, GS_F_POWER));
    assert_int_equal(s.status[GS_F_POWER], GS_ST_GPU_LOST);
    assert_string_equal(gs_status_name(GS_ST_GPU_LOST), "GPU is lost");
    assert_string_equal(gs_status_name(GS_ST_NOT_SUPPORTED), "Not Supported");
}

/* Field sets span more than one 64-bit word: bits past 63 behave like the rest. */
static void test_fmask_spans_words(void **state)
{
    struct gs_fmask m = GS_FMASK_NONE, all = gs_fmask_all();
    unsigned seen[4], n = 0;
    (void)state;

    assert_false(gs_fmask_any(m));
    gs_fmask_set(&m, 3);
    gs_fmask_set(&m, 64);
    gs_fmask_set(&m, GS_F_MAX - 1);
    gs_fmask_set(&m, GS_F_MAX); /* out of range: ignored */
    assert_true(gs_fmask_has(m, 64) && gs_fmask_has(m, 3) && !gs_fmask_has(m, 63));
    assert_false(gs_fmask_has(m, GS_F_MAX));
    GS_FMASK_FOREACH(f, m)
        seen[n++] = f;
    assert_int_equal(n, 3);
    assert_int_equal(seen[0], 3);
    assert_int_equal(seen[1], 64);
    assert_int_equal(seen[2], GS_F_MAX - 1);
    gs_fmask_clear(&m, 64);
    assert_false(gs_fmask_has(m, 64));
    assert_true(gs_fmask_eq(gs_fmask_and(m, gs_fmask_of(3)), gs_fmask_of(3)));
    assert_true(gs_fmask_eq(gs_fmask_minus(gs_fmask_or(m, gs_fmask_of(9)), m), gs_fmask_of(9)));
    n = 0;
    GS_FMASK_FOREACH(f, all)
        n++;
    assert_int_equal(n, GS_F_COUNT);
    assert_false(gs_fmask_has(all, GS_F_COUNT));
}

static void test_snapshot_copy_is_deep(void **state)
{
    struct gs_snapshot a, b;
    (void)state;
    gs_snapshot_init(&a);
    gs_snapshot_init(&b);
    a.ngpus = 2;
    a.gpus = calloc(2, sizeof(*a.gpus));
    assert_non_null(a.gpus);
    for (int i = 0; i < 40; i++)
        gs_gpu_add_proc(&a.gpus[1])->pid = 1000 + (uint32_t)i;
    assert_int_equal(a.gpus[1].nprocs, 40);
    assert_int_equal(gs_snapshot_copy(&b, &a), 0);
    assert_ptr_not_equal(b.gpus[1].procs, a.gpus[1].procs);
    assert_int_equal(b.gpus[1].procs[39].pid, 1039);
    assert_int_equal(b.gpus[1].procs[0].gpu_instance_id, UINT32_MAX);
    assert_int_equal(b.gpus[0].nprocs, 0);
    gs_snapshot_release(&a);
    gs_snapshot_release(&b);
}

/* Command lines and long names live in the GPU's text arena: read back whole
 * with their argv boundaries, copied with the snapshot (the copy stays right
 * when the source is refilled), and an offset outside the arena reads as none. */
static void test_text_arena(void **state)
{
    struct gs_snapshot a, b;
    static const uint8_t sep[] = { 0x20, 0x40 }; /* argv "train", "--lr 0.1", "--x": bits 5 and 14 */
    const char *cmd = "train --lr 0.1 --x";
    (void)state;
    gs_snapshot_init(&a);
    gs_snapshot_init(&b);
    a.ngpus = 1;
    a.gpus = calloc(1, sizeof(*a.gpus));
    assert_non_null(a.gpus);
    struct gs_gpu *g = &a.gpus[0];
    struct gs_proc *p = gs_gpu_add_proc(g), *q = gs_gpu_add_proc(g);
    assert_int_equal(gs_proc_set_cmdline(&g->text, p, cmd, strlen(cmd), sep, sizeof(sep)), 0);
    assert_string_equal(gs_proc_cmdline(&g->text, q), ""); /* none set */
    char name[200];
    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    assert_int_equal(gs_proc_set_long_name(g, q, name, strlen(name)), 0);
    assert_string_equal(gs_proc_cmdline(&g->text, p), cmd);
    assert_true(gs_proc_cmdline_sep(&g->text, p, 5) && gs_proc_cmdline_sep(&g->text, p, 14));
    assert_false(gs_proc_cmdline_sep(&g->text, p, 4) || gs_proc_cmdline_sep(&g->text, p, 10));
    assert_false(gs_proc_cmdline_sep(&g->text, p, 400)); /* past the bits kept: 0 */
    assert_string_equal(gs_proc_name(g, q), name);
    assert_int_equal(gs_snapshot_copy(&b, &a), 0);
    g->text.len = 0; /* the source's next tick */
    assert_int_equal(gs_proc_set_cmdline(&g->text, p, "other", 5, NULL, 0), 0);
    assert_string_equal(gs_proc_cmdline(&b.gpus[0].text, &b.gpus[0].procs[0]), cmd);
    assert_true(gs_proc_cmdline_sep(&b.gpus[0].text, &b.gpus[0].procs[0], 14));
    assert_string_equal(gs_proc_name(&b.gpus[0], &b.gpus[0].procs[1]), name);
    assert_string_equal(gs_proc_cmdline(&g->text, p), "other");
    b.gpus[0].procs[0].cmd_off = b.gpus[0].text.len; /* outside: none, not a read past the end */
    assert_string_equal(gs_proc_cmdline(&b.gpus[0].text, &b.gpus[0].procs[0]), "");
    assert_false(gs_proc_cmdline_sep(&b.gpus[0].text, &b.gpus[0].procs[0], 5));
    assert_int_equal(gs_proc_set_cmdline(&g->text, p, "", 0, NULL, 0), 0); /* cleared */
    assert_string_equal(gs_proc_cmdline(&g->text, p), "");
    /* no room (an arena at its size limit): no command line, and its validity (GS_P_COMM) goes */
    gs_proc_set(p, GS_P_COMM);
    struct gs_text full = { .buf = NULL, .len = UINT32_MAX / 2 + 1, .cap = 0 };
    assert_int_equal(gs_proc_set_cmdline(&full, p, cmd, strlen(cmd), NULL, 0), -1);
    assert_false(gs_proc_has(p, GS_P_COMM));
    assert_int_equal(p->cmd_len, 0);
    gs_snapshot_release(&a);
    gs_snapshot_release(&b);
}

static void test_throttle_and_arch_names(void **state)
{
    char buf[128];
    (void)state;
    assert_string_equal(gs_throttle_str(0, buf, sizeof(buf)), "");
    assert_string_equal(gs_throttle_str(GS_THROTTLE_SW_POWER_CAP | GS_THROTTLE_HW_THERMAL, buf, sizeof(buf)),
                        "SW power cap, HW thermal");
    gs_throttle_str(0x1FF, buf, 20); /* truncation never overflows */
    assert_true(strlen(buf) < 20);
    assert_string_equal(gs_arch_name(9), "Hopper");
    assert_string_equal(gs_arch_name(0xFFFFFFFFu), "Unknown");
}

static void test_err_set_returns_negative_code(void **state)
{
    struct gs_err e;
    (void)state;
    assert_int_equal(gs_err_set(&e, GS_E_NO_DRIVER, "driver %s", "gone"), -GS_E_NO_DRIVER);
    assert_string_equal(e.msg, "driver gone");
    assert_string_equal(e.hint, "");
    gs_err_hint(&e, "load it");
    assert_string_equal(e.hint, "load it");
    assert_string_equal(gs_errc_name(GS_E_GPU_LOST), "gpu-lost");
    assert_int_equal(gs_err_set(NULL, GS_E_IO, "x"), -GS_E_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zeroed_sample_is_not_supported),
        cmocka_unit_test(test_mark_keeps_mask_and_status_in_step),
        cmocka_unit_test(test_fmask_spans_words),
        cmocka_unit_test(test_snapshot_copy_is_deep),
        cmocka_unit_test(test_text_arena),
        cmocka_unit_test(test_throttle_and_arch_names),
        cmocka_unit_test(test_err_set_returns_negative_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
