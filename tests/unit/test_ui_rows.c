/* SPDX-License-Identifier: MIT */
/* test_ui_rows.c - top's process table logic: build, filter, sort, tree, on hand-built snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "ui/ancestry.h"
#include "ui/rows.h"

#include <unistd.h>

static struct gs_proc *add(struct gs_gpu *g, uint32_t pid, uint32_t ppid, const char *user,
                           const char *cmd, uint64_t mem_mib, uint32_t sm)
{
    struct gs_proc *p = gs_gpu_add_proc(g);
    p->pid = pid;
    p->ppid = ppid;
    p->pgid = ppid;
    p->type = GS_PROC_COMPUTE;
    snprintf(p->user, sizeof(p->user), "%s", user);
    snprintf(p->comm, sizeof(p->comm), "%.15s", cmd);
    assert_int_equal(gs_proc_set_cmdline(&g->text, p, cmd, strlen(cmd), NULL, 0), 0);
    p->gpu_mem_bytes = mem_mib << 20;
    p->sm_util_pct = sm;
    gs_proc_set(p, GS_P_GPU_MEM);
    gs_proc_set(p, GS_P_SM_UTIL);
    gs_proc_set(p, GS_P_USER);
    gs_proc_set(p, GS_P_COMM);
    gs_proc_set(p, GS_P_PARENT);
    return p;
}

/* GPU 0: 100 (root, parent 1), 101 child of 100, 102 child of 101; GPU 1: 200, 101 again. */
static void make_snap(struct gs_snapshot *s)
{
    gs_snapshot_init(s);
    s->ngpus = 2;
    s->gpus = calloc(2, sizeof(*s->gpus));
    s->gpus[1].st.index = 1;
    add(&s->gpus[0], 100, 1, "alice", "python train.py --rank 0", 1000, 50);
    add(&s->gpus[0], 101, 100, "alice", "python worker.py", 3000, 10);
    add(&s->gpus[0], 102, 101, "bob", "dataloader", 10, 0);
    add(&s->gpus[1], 200, 1, "bob", "jupyter-kernel", 500, 90);
    struct gs_proc *p = add(&s->gpus[1], 101, 100, "alice", "python worker.py", 2000, 20);
    p->valid &= ~(1u << GS_P_SM_UTIL); /* SM % unknown: must sort last */
}

static void pids(const struct gs_rows *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r->n; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%u/%u", i ? " " : "", r->v[i].p->pid,
                                 r->v[i].gpu);
}

static void test_build_and_sort(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    char buf[256];
    (void)state;
    make_snap(&s);
    assert_int_equal(gs_rows_build(&r, &s, NULL), 0);
    assert_int_equal(r.n, 5);
    gs_rows_sort(&r, GS_COL_GMEM, true);
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "101/0 101/1 100/0 200/1 102/0");
    gs_rows_sort(&r, GS_COL_GMEM, false);
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "102/0 200/1 100/0 101/1 101/0");
    gs_rows_sort(&r, GS_COL_SM, true); /* missing SM % last whatever the order */
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "200/1 100/0 101/0 102/0 101/1");
    gs_rows_sort(&r, GS_COL_SM, false);
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "102/0 101/0 100/0 200/1 101/1");
    gs_rows_sort(&r, GS_COL_USER, false);
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "100/0 101/0 101/1 102/0 200/1");
    gs_rows_sort(&r, GS_COL_PID, true);
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "200/1 102/0 101/0 101/1 100/0"); /* ties: PID then GPU ascending */
    assert_int_equal(gs_rows_find(&r, 101, 1), 3);
    assert_int_equal(gs_rows_find(&r, 999, 0), -1);
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

static void test_every_column_sorts(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    (void)state;
    make_snap(&s);
    gs_rows_build(&r, &s, NULL);
    for (int c = 0; c < GS_COL_COUNT; c++) {
        gs_rows_sort(&r, c, false);
        for (size_t i = 1; i < r.n; i++)
            assert_true(gs_row_cmp(&r.v[i - 1], &r.v[i], c) <= 0);
        assert_int_equal(gs_col_by_key(gs_cols[c].key), c);
    }
    assert_int_equal(gs_col_by_key("nope"), -1);
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

/* Many rows with ties and missing values (the numeric columns' merge sort): each
 * neighbour pair in order, value first (missing last in both directions), then PID,
 * then GPU; every row still there. */
static void test_sort_many(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    const enum gs_col cols[] = { GS_COL_GMEM, GS_COL_SM, GS_COL_PID, GS_COL_GPU, GS_COL_TIME };
    (void)state;
    gs_snapshot_init(&s);
    s.ngpus = 4;
    s.gpus = calloc(4, sizeof(*s.gpus));
    srand(7);
    for (uint32_t i = 0; i < 333; i++) {
        struct gs_gpu *g = &s.gpus[rand() % 4];
        struct gs_proc *p = add(g, 1000 + (uint32_t)(rand() % 200), 1, "u", "x", (uint64_t)(rand() % 9), (uint32_t)(rand() % 5));
        p->age_s = (uint64_t)(rand() % 4);
        gs_proc_set(p, GS_P_START);
        if (rand() % 3 == 0)
            p->valid &= ~(1u << GS_P_SM_UTIL);
    }
    assert_int_equal(gs_rows_build(&r, &s, NULL), 0);
    assert_int_equal(r.n, 333);
    for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
        for (int desc = 0; desc < 2; desc++) {
            gs_rows_sort(&r, cols[c], desc);
            uint64_t sum = 0;
            for (size_t i = 0; i < r.n; i++) {
                sum += (uint64_t)r.v[i].p->pid * 7 + r.v[i].gpu;
                if (!i)
                    continue;
                const struct gs_row *a = &r.v[i - 1], *b = &r.v[i];
                int v = gs_row_cmp(a, b, cols[c]); /* missing last already */
                if (a->has_key && b->has_key && desc)
                    v = -v;
                assert_true(v <= 0);
                if (v == 0) /* (the same PID twice on a GPU is possible here: equal then) */
                    assert_true(a->p->pid < b->p->pid || (a->p->pid == b->p->pid && a->gpu <= b->gpu));
            }
            uint64_t want = 0;
            for (uint32_t g = 0; g < s.ngpus; g++)
                for (uint32_t k = 0; k < s.gpus[g].nprocs; k++)
                    want += (uint64_t)s.gpus[g].procs[k].pid * 7 + g;
            assert_true(sum == want);
        }
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

static void test_filter(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    char buf[256];
    (void)state;
    make_snap(&s);
    gs_rows_build(&r, &s, "PYTHON");
    assert_int_equal(r.n, 3);
    gs_rows_build(&r, &s, "user:bob");
    gs_rows_sort(&r, GS_COL_PID, false);
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "102/0 200/1");
    gs_rows_build(&r, &s, "gpu:1 python");
    pids(&r, buf, sizeof(buf));
    assert_string_equal(buf, "101/1");
    gs_rows_build(&r, &s, "pid:102");
    assert_int_equal(r.n, 1);
    gs_rows_build(&r, &s, "  train   rank  ");
    assert_int_equal(r.n, 1);
    gs_rows_build(&r, &s, "type:g");
    assert_int_equal(r.n, 0);
    gs_rows_build(&r, &s, "type:c");
    assert_int_equal(r.n, 5);
    gs_rows_build(&r, &s, "user:bo"); /* user: is exact */
    assert_int_equal(r.n, 0);
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

static void test_tree(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    char buf[256];
    (void)state;
    make_snap(&s);
    gs_rows_build(&r, &s, NULL);
    gs_rows_sort(&r, GS_COL_PID, true);
    assert_int_equal(gs_rows_tree(&r), 0);
    pids(&r, buf, sizeof(buf));
    /* roots in sort order (200, 100); 101 appears twice (two GPUs), both under 100;
     * 102 hangs under the first row of PID 101 (GPU 0's) */
    assert_string_equal(buf, "200/1 100/0 101/0 102/0 101/1");
    assert_int_equal(r.v[0].depth, 0);
    assert_int_equal(r.v[1].depth, 0);
    assert_int_equal(r.v[2].depth, 1);
    assert_false(r.v[2].last_child);
    assert_int_equal(r.v[3].depth, 2);
    assert_true(r.v[3].last_child);
    assert_int_equal(r.v[4].depth, 1);
    assert_true(r.v[4].last_child);
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

static void test_tree_cycle_and_self_parent(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    (void)state;
    gs_snapshot_init(&s);
    s.ngpus = 1;
    s.gpus = calloc(1, sizeof(*s.gpus));
    add(&s.gpus[0], 10, 11, "a", "x", 1, 1);
    add(&s.gpus[0], 11, 10, "a", "y", 1, 1);
    add(&s.gpus[0], 12, 12, "a", "z", 1, 1);
    gs_rows_build(&r, &s, NULL);
    gs_rows_sort(&r, GS_COL_PID, false);
    assert_int_equal(gs_rows_tree(&r), 0);
    assert_int_equal(r.n, 3); /* nobody lost, nobody twice */
    uint32_t sum = 0;
    for (size_t i = 0; i < r.n; i++)
        sum += r.v[i].p->pid;
    assert_int_equal(sum, 33);
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

static void test_tree_with_non_gpu_parent(void **state)
{
    struct gs_snapshot s;
    struct gs_rows r = { 0 };
    struct gs_proc launcher = { 0 };
    (void)state;
    gs_snapshot_init(&s);
    s.ngpus = 1;
    s.gpus = calloc(1, sizeof(*s.gpus));
    gs_proc_set(add(&s.gpus[0], 302, 300, "a", "worker", 2, 1), GS_P_PARENT);
    gs_proc_set(add(&s.gpus[0], 301, 300, "a", "worker", 1, 1), GS_P_PARENT);
    gs_proc_set(add(&s.gpus[0], 303, 1, "a", "other", 3, 1), GS_P_PARENT);
    launcher.pid = 300;
    launcher.ppid = 1;
    gs_proc_set(&launcher, GS_P_PARENT);
    gs_rows_build(&r, &s, NULL);
    gs_rows_sort(&r, GS_COL_PID, false);
    assert_int_equal(gs_rows_tree_with(&r, &launcher, &s.gpus[0].text, 1), 0);
    assert_int_equal(r.n, 4);
    assert_int_equal(r.v[0].pid, 300);
    assert_true(r.v[0].virt);
    assert_int_equal(r.v[0].gpu, GS_ROW_NO_GPU);
    assert_int_equal(r.v[1].pid, 301);
    assert_int_equal(r.v[1].depth, 1);
    assert_int_equal(r.v[2].pid, 302);
    assert_true(r.v[2].last_child);
    assert_int_equal(r.v[3].pid, 303);
    assert_int_equal(r.v[3].depth, 0);
    /* a parent no row points at is not added */
    gs_rows_build(&r, &s, "other");
    launcher.pid = 300;
    assert_int_equal(gs_rows_tree_with(&r, &launcher, &s.gpus[0].text, 1), 0);
    assert_int_equal(r.n, 1);
    gs_rows_release(&r);
    gs_snapshot_release(&s);
}

/* The read of /proc/PID/cmdline as the ancestry should show it (NULs as spaces). */
static void proc_cmdline(pid_t pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    buf[n] = '\0';
}

/* Non-GPU parents keep their command lines in the ancestry's arena; a parent
 * forgotten is dropped from it and the kept ones still read the same. */
static void test_ancestry_command_lines(void **state)
{
    struct gs_snapshot s;
    struct gs_ancestry a = {0};
    char want[GS_CMDLINE_MAX], kept[GS_CMDLINE_MAX];
    (void)state;
    gs_snapshot_init(&s);
    s.ngpus = 1;
    s.gpus = calloc(1, sizeof(*s.gpus));
    assert_non_null(s.gpus);
    gs_proc_set(add(&s.gpus[0], 999998, (uint32_t)getppid(), "a", "worker", 1, 1), GS_P_PARENT);
    struct gs_proc *p = add(&s.gpus[0], 999999, (uint32_t)getpid(), "a", "worker", 1, 1);
    gs_proc_set(p, GS_P_PARENT);
    assert_int_equal(gs_ancestry_update(&a, &s), 0);
    assert_int_equal(a.n, 2);
    assert_int_equal(a.v[0].pid, (uint32_t)getppid());
    assert_int_equal(a.v[1].pid, (uint32_t)getpid());
    proc_cmdline(getpid(), want, sizeof(want)); /* this test's own: a plain path */
    assert_string_equal(gs_proc_cmdline(&a.text, &a.v[1]), want);
    snprintf(kept, sizeof(kept), "%s", gs_proc_cmdline(&a.text, &a.v[0]));
    assert_true(kept[0] != '\0');
    p->ppid = (uint32_t)getppid(); /* this process is no parent any more: forgotten */
    assert_int_equal(gs_ancestry_update(&a, &s), 0);
    assert_int_equal(a.n, 1);
    assert_int_equal(a.v[0].pid, (uint32_t)getppid());
    assert_string_equal(gs_proc_cmdline(&a.text, &a.v[0]), kept);
    assert_int_equal(a.text.len, a.v[0].cmd_len + 1 + a.v[0].cmd_sep_bytes); /* compacted */
    gs_ancestry_release(&a);
    gs_snapshot_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_sort),
        cmocka_unit_test(test_sort_many),
        cmocka_unit_test(test_every_column_sorts),
        cmocka_unit_test(test_filter),
        cmocka_unit_test(test_tree),
        cmocka_unit_test(test_tree_cycle_and_self_parent),
        cmocka_unit_test(test_tree_with_non_gpu_parent),
        cmocka_unit_test(test_ancestry_command_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
