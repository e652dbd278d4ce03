/* SPDX-License-Identifier: MIT */
/* test_ui_view.c - top's pure view logic: chart rendering into a cell grid, history rings,
 * layout choice by terminal size, number formats, settings file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model.h"
#include "ui/chart.h"
#include "ui/conf.h"
#include "ui/fmt.h"
#include "ui/hist.h"
#include "ui/rows.h"

static void row_of(struct gs_grid *g, int y, char *out)
{
    gs_grid_row(g, y, out, 256);
}

static void test_chart_ascii(void **state)
{
    char cells[2 * 5][GS_CELL_BYTES], r0[256], r1[256];
    struct gs_grid g = { 5, 2, cells };
    const uint8_t vals[] = { 0, 25, 50, 75, 100, GS_HIST_NONE, 100 };
    (void)state;
    /* 7 values, 5 cells: the newest five (50 75 100 none 100) are shown, newest at the right */
    gs_chart_render(vals, 7, GS_GLYPH_ASCII, &g);
    row_of(&g, 0, r0);
    row_of(&g, 1, r1);
    assert_string_equal(r0, " .# #"); /* 2 rows x 2 levels: 75 % fills 3 of 4 */
    assert_string_equal(r1, "### #");
    /* fewer values than cells: right-aligned, blank on the left */
    gs_chart_render(vals + 3, 2, GS_GLYPH_ASCII, &g);
    row_of(&g, 0, r0);
    row_of(&g, 1, r1);
    assert_string_equal(r0, "   .#");
    assert_string_equal(r1, "   ##");
}

static void test_chart_braille_and_blocks(void **state)
{
    char cells[2][GS_CELL_BYTES], r0[256];
    struct gs_grid g = { 2, 1, cells };
    const uint8_t full[] = { 100, 100, 100, 100 };
    const uint8_t half[] = { 0, 50, 100, 1 };
    (void)state;
    gs_chart_render(full, 4, GS_GLYPH_BRAILLE, &g);
    row_of(&g, 0, r0);
    assert_string_equal(r0, "\u28ff\u28ff"); /* all eight dots */
    gs_chart_render(half, 4, GS_GLYPH_BRAILLE, &g);
    row_of(&g, 0, r0);
    /* cell 0: left empty, right 2 dots (0x80|0x20); cell 1: left full (0x47), right 1 dot (0x80) */
    assert_string_equal(r0, "\u28a0\u28c7");
    gs_chart_render(half, 4, GS_GLYPH_BLOCK, &g); /* one sample per cell: 100, 1 */
    row_of(&g, 0, r0);
    assert_string_equal(r0, "\u2588\u2581");
    assert_int_equal(gs_chart_samples(10, GS_GLYPH_BRAILLE), 20);
    assert_int_equal(gs_chart_samples(10, GS_GLYPH_ASCII), 10);
}

static void fill_gpu(struct gs_gpu *g, uint32_t util, uint32_t power_w)
{
    g->state = GS_GPU_OK;
    g->s.gpu_util_pct = util;
    g->s.power_mw = power_w * 1000;
    g->s.power_limit_mw = 700000;
    g->s.mem_used_bytes = 40ull << 30;
    g->s.mem_total_bytes = 80ull << 30;
    g->s.temp_gpu_c = 87;
    g->st.temp_slowdown_c = 87;
    gs_static_mark(&g->st, GS_S_TEMP_SLOWDOWN, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_GPU_UTIL, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_POWER, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_POWER_LIMIT, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_MEM_USED, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_MEM_TOTAL, GS_ST_OK);
    gs_sample_mark(&g->s, GS_F_TEMP_GPU, GS_ST_OK);
}

static void test_hist_ring(void **state)
{
    struct gs_hist h = { 0 };
    struct gs_gpu gpus[2];
    struct gs_snapshot snap = { .ngpus = 2, .gpus = gpus };
    uint8_t out[8];
    (void)state;
    memset(gpus, 0, sizeof(gpus));
    assert_int_equal(gs_hist_resize(&h, 2, 4), 0);
    for (uint32_t i = 0; i < 6; i++) {
        fill_gpu(&gpus[0], i * 10, 350);
        fill_gpu(&gpus[1], 99, 700);
        gpus[1].state = i == 5 ? GS_GPU_LOST : GS_GPU_OK;
        gs_hist_push(&h, &snap);
    }
    assert_int_equal(gs_hist_series(&h, 0, (unsigned)gs_chart_metric_index("util"), out, 8), 4); /* bounded by cap */
    assert_memory_equal(out, ((uint8_t[]){ 20, 30, 40, 50 }), 4);
    assert_int_equal(gs_hist_series(&h, 1, (unsigned)gs_chart_metric_index("util"), out, 2), 2);
    assert_int_equal(out[0], 99);
    assert_int_equal(out[1], GS_HIST_NONE); /* lost GPU: a gap */
    gs_hist_series(&h, 0, (unsigned)gs_chart_metric_index("power"), out, 1);
    assert_int_equal(out[0], 50);
    gs_hist_series(&h, 0, (unsigned)gs_chart_metric_index("mem"), out, 1);
    assert_int_equal(out[0], 50);
    gs_hist_series(&h, 0, (unsigned)gs_chart_metric_index("temp"), out, 1);
    assert_int_equal(out[0], 100);
    /* growing keeps the newest samples, shrinking keeps the newest that fit */
    assert_int_equal(gs_hist_resize(&h, 2, 10), 0);
    assert_int_equal(gs_hist_series(&h, 0, (unsigned)gs_chart_metric_index("util"), out, 8), 4);
    assert_memory_equal(out, ((uint8_t[]){ 20, 30, 40, 50 }), 4);
    assert_int_equal(gs_hist_resize(&h, 2, 2), 0);
    assert_int_equal(gs_hist_series(&h, 0, (unsigned)gs_chart_metric_index("util"), out, 8), 2);
    assert_memory_equal(out, ((uint8_t[]){ 40, 50 }), 2);
    assert_int_equal(gs_hist_series(&h, 5, (unsigned)gs_chart_metric_index("util"), out, 8), 0);
    gs_hist_release(&h);
}

/* The chart metric table: names, the title's value in each unit, and `g`
 * skipping a metric no GPU gives. */
static void test_chart_metrics(void **state)
{
    struct gs_gpu gpus[2];
    struct gs_snapshot snap = { .ngpus = 2, .gpus = gpus };
    char b[64];
    (void)state;
    memset(gpus, 0, sizeof(gpus));
    fill_gpu(&gpus[0], 95, 639);
    fill_gpu(&gpus[1], 12, 0);
    unsigned util = (unsigned)gs_chart_metric_index("util"), mem = (unsigned)gs_chart_metric_index("mem"),
             temp = (unsigned)gs_chart_metric_index("temp"), power = (unsigned)gs_chart_metric_index("power");
    assert_int_equal(gs_chart_metric_index("nonsense"), -1);
    assert_string_equal(gs_chart_metrics[util].title, "utilization");
    gs_chart_metric_text(util, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_string_equal(b, "95%");
    gs_chart_metric_text(mem, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_non_null(strstr(b, " of "));
    gs_chart_metric_text(temp, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_string_equal(b, "87C of 87C slowdown");
    gs_static_mark(&gpus[0].st, GS_S_TEMP_SLOWDOWN, GS_ST_NOT_SUPPORTED);
    gs_chart_metric_text(temp, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_string_equal(b, "87C of 100C");
    gpus[0].s.power_mw = 639500; /* halves up */
    gs_chart_metric_text(power, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_string_equal(b, "640W of 700W limit");
    gs_sample_mark(&gpus[0].s, GS_F_GPU_UTIL, GS_ST_NOT_SUPPORTED);
    gs_chart_metric_text(util, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_string_equal(b, "N/A");
    /* `g` cycles through what some GPU gives: power on neither GPU is skipped */
    assert_int_equal(gs_chart_metric_next(temp, &snap), power);
    for (int i = 0; i < 2; i++)
        gs_sample_mark(&gpus[i].s, GS_F_POWER, GS_ST_NOT_SUPPORTED);
    assert_int_equal(gs_chart_metric_next(temp, &snap), util);
    assert_int_equal(gs_chart_metric_next(util, &snap), mem);
    /* GPM activity: a chart per ratio, only where some GPU has it (here GPU 1's SM active) */
    unsigned sm = (unsigned)gs_chart_metric_index("sm");
    assert_true(gs_chart_metric_index("tensor") >= 0 && gs_chart_metric_index("dram") >= 0);
    gpus[1].s.prof[GS_PROF_SM_ACTIVE] = 0.904;
    gs_sample_mark(&gpus[1].s, GS_F_PROF_SM_ACTIVE, GS_ST_OK);
    assert_int_equal(gs_chart_metric_next(temp, &snap), sm);
    assert_int_equal(gs_chart_metric_next(sm, &snap), util);
    gs_chart_metric_text(sm, &gpus[1].st, &gpus[1].s, b, sizeof(b));
    assert_string_equal(b, "90%");
    assert_int_equal(gs_hist_value(&gpus[1].st, &gpus[1].s, sm), 90);
    gs_chart_metric_text(sm, &gpus[0].st, &gpus[0].s, b, sizeof(b));
    assert_string_equal(b, "N/A");
    assert_int_equal(gs_hist_value(&gpus[0].st, &gpus[0].s, sm), GS_HIST_NONE);
}

static void test_pmem_growth(void **state)
{
    struct gs_pmem pm = { 0 };
    struct gs_gpu gpu;
    struct gs_snapshot snap = { .ngpus = 1, .gpus = &gpu };
    uint32_t mib[GS_PMEM_SLOTS];
    (void)state;
    memset(&gpu, 0, sizeof(gpu));
    struct gs_proc *p = gs_gpu_add_proc(&gpu);
    p->pid = 42;
    for (int i = 0; i < 50; i++) {
        p->gpu_mem_bytes = (uint64_t)(100 + i) << 20;
        gs_pmem_update(&pm, &snap, 1000 + i); /* one point every GS_PMEM_STEP_S seconds */
    }
    uint32_t n = gs_pmem_series(&pm, 42, 0, mib);
    assert_int_equal(n, 10);
    assert_int_equal(mib[0], 100);
    assert_int_equal(mib[n - 1], 145);
    gpu.nprocs = 0; /* the process ends: forgotten at the next step */
    gs_pmem_update(&pm, &snap, 2000);
    assert_int_equal(gs_pmem_series(&pm, 42, 0, mib), 0);
    gs_pmem_release(&pm);
    free(gpu.procs);
}

/* The search starts where the last one ended: each (pid, gpu) keeps its own ring
 * whatever the order of the snapshot, and the same PID on two GPUs is two. */
static void test_pmem_order(void **state)
{
    struct gs_pmem pm = { 0 };
    struct gs_gpu gpus[2];
    struct gs_snapshot snap = { .ngpus = 2, .gpus = gpus };
    uint32_t mib[GS_PMEM_SLOTS];
    (void)state;
    memset(gpus, 0, sizeof(gpus));
    for (uint32_t pid = 1; pid <= 5; pid++)
        gs_gpu_add_proc(&gpus[0])->pid = pid;
    gs_gpu_add_proc(&gpus[1])->pid = 3;
    for (int step = 0; step < 3; step++) {
        for (uint32_t i = 0; i < gpus[0].nprocs; i++) /* reversed at every step */
            gpus[0].procs[i].pid = step % 2 ? 5 - i : 1 + i;
        for (uint32_t i = 0; i < gpus[0].nprocs; i++)
            gpus[0].procs[i].gpu_mem_bytes = (uint64_t)(gpus[0].procs[i].pid * 100 + step) << 20;
        gpus[1].procs[0].gpu_mem_bytes = (uint64_t)(900 + step) << 20;
        if (step == 2) /* a new process in the middle */
            gpus[0].procs[2].pid = 7;
        gs_pmem_update(&pm, &snap, 1000 + step * GS_PMEM_STEP_S);
    }
    assert_int_equal(gs_pmem_series(&pm, 1, 0, mib), 3);
    assert_int_equal(mib[0], 100);
    assert_int_equal(mib[2], 102);
    assert_int_equal(gs_pmem_series(&pm, 5, 0, mib), 3);
    assert_int_equal(mib[1], 501);
    assert_int_equal(gs_pmem_series(&pm, 3, 1, mib), 3);
    assert_int_equal(mib[0], 900);
    assert_int_equal(mib[2], 902);
    assert_int_equal(gs_pmem_series(&pm, 3, 0, mib), 0); /* replaced by 7 at the last step */
    assert_int_equal(gs_pmem_series(&pm, 7, 0, mib), 1);
    assert_int_equal(mib[0], 302);
    gs_pmem_release(&pm);
    free(gpus[0].procs);
    free(gpus[1].procs);
}

static void test_layout_pick(void **state)
{
    struct gs_layout l;
    (void)state;
    /* 200x60: two GPU panes per row, then a grid of 4 x 2 boxed charts of the width */
    gs_layout_pick(&l, 60, 200, 8, GS_LAYOUT_AUTO, 1);
    assert_int_equal(l.kind, GS_LAYOUT_FULL);
    assert_int_equal(l.gpus_shown, 8);
    assert_int_equal(l.gpu_cols, 2);
    assert_int_equal(l.pane_w, 100);
    assert_int_equal(l.cgrid_cols, 4);
    assert_int_equal(l.cgrid_rows, 2);
    assert_int_equal(l.cbox_w, 50);
    assert_true(l.cbox_h >= GS_CHART_BOX_MIN_H && l.cbox_h <= GS_CHART_BOX_MAX_H);
    assert_int_equal(l.chart_w, 50 - GS_CHART_AXIS_W - 1);
    assert_int_equal(l.chart_h, l.cbox_h - 2);
    assert_int_equal(l.cgrid_y, 1 + 4 * 3);
    assert_int_equal(l.table_y, l.cgrid_y + 2 * l.cbox_h);
    assert_int_equal(l.table_y + l.table_h + 1, 60);
    assert_true(l.table_h >= 60 / 3);
    /* 160x50: the same shape, 40-column boxes */
    gs_layout_pick(&l, 50, 160, 8, GS_LAYOUT_AUTO, 1);
    assert_int_equal(l.gpu_cols, 2);
    assert_int_equal(l.cgrid_cols, 4);
    assert_int_equal(l.cbox_w, 40);
    /* 120x40: one GPU per row, the chart beside it (no room for a grid) */
    gs_layout_pick(&l, 40, 120, 8, GS_LAYOUT_AUTO, 1);
    assert_int_equal(l.kind, GS_LAYOUT_FULL);
    assert_int_equal(l.gpu_cols, 1);
    assert_int_equal(l.cgrid_cols, 0);
    assert_true(l.chart_w > 0 && l.chart_h == 3);
    assert_int_equal(l.table_y, 1 + 8 * 3);
    assert_int_equal(l.table_y + l.table_h + 1, 40);
    gs_layout_pick(&l, 24, 80, 8, GS_LAYOUT_AUTO, 1);
    assert_int_equal(l.kind, GS_LAYOUT_LINE);
    assert_int_equal(l.gpus_shown, 8);
    assert_true(l.table_h >= 6);
    gs_layout_pick(&l, 24, 80, 1, GS_LAYOUT_AUTO, 1);
    assert_int_equal(l.kind, GS_LAYOUT_FULL); /* charts below the GPU at 80 columns */
    assert_int_equal(l.gpu_h, 5);
    assert_int_equal(l.chart_h, 2);
    gs_layout_pick(&l, 40, 120, 16, GS_LAYOUT_AUTO, 1);
    assert_int_equal(l.kind, GS_LAYOUT_LINE);
    assert_int_equal(l.gpus_shown, 16);
    gs_layout_pick(&l, 24, 80, 16, GS_LAYOUT_AUTO, 0); /* 16 GPUs at 80x24: one line each */
    assert_int_equal(l.kind, GS_LAYOUT_LINE);
    assert_int_equal(l.gpus_shown, 16);
    assert_true(l.table_h >= 2);
    gs_layout_pick(&l, 16, 80, 16, GS_LAYOUT_AUTO, 0); /* too few rows: some GPUs summarised */
    assert_true(l.gpus_shown < 16);
    assert_true(l.table_h >= 2);
    gs_layout_pick(&l, 60, 200, 4, GS_LAYOUT_COMPACT, 1);
    assert_int_equal(l.kind, GS_LAYOUT_COMPACT);
    assert_int_equal(l.chart_w, 0);
    gs_layout_pick(&l, 5, 20, 8, GS_LAYOUT_AUTO, 1); /* tiny: never negative */
    assert_true(l.table_h >= 0 && l.gpus_shown >= 1);
}

static void test_formats(void **state)
{
    char b[32];
    (void)state;
    assert_string_equal(gs_fmt_bytes(0, b, sizeof(b)), "0B");
    assert_string_equal(gs_fmt_bytes(512ull << 20, b, sizeof(b)), "512M");
    assert_string_equal(gs_fmt_bytes(80ull << 30, b, sizeof(b)), "80.0G");
    assert_string_equal(gs_fmt_bytes(3ull << 29, b, sizeof(b)), "1.50G");
    assert_string_equal(gs_fmt_age(59, b, sizeof(b)), "59s");
    assert_string_equal(gs_fmt_age(754, b, sizeof(b)), "12:34");
    assert_string_equal(gs_fmt_age(3 * 3600 + 4 * 60 + 5, b, sizeof(b)), "3:04:05");
    assert_string_equal(gs_fmt_age(12 * 86400 + 4 * 3600, b, sizeof(b)), "12d04h");
    assert_int_equal(gs_bar_fill(10, 0), 0);
    assert_int_equal(gs_bar_fill(10, 55), 6);
    assert_int_equal(gs_bar_fill(10, 250), 10);
    assert_int_equal(gs_bar_fill(10, -1), 0);
}

static void assert_conf_eq(const struct gs_top_conf *a, const struct gs_top_conf *b)
{
    assert_int_equal(a->interval_ms, b->interval_ms);
    assert_int_equal(a->sort_col, b->sort_col);
    assert_int_equal(a->sort_desc, b->sort_desc);
    assert_int_equal(a->tree, b->tree);
    assert_int_equal(a->theme, b->theme);
    assert_int_equal(a->metric, b->metric);
    assert_int_equal(a->chart, b->chart);
    assert_int_equal(a->layout, b->layout);
    assert_int_equal(a->ascii, b->ascii);
}

static void test_conf(void **state)
{
    struct gs_top_conf c, d;
    char text[1024], path[256];
    (void)state;
    gs_top_conf_defaults(&c);
    assert_int_equal(gs_top_conf_parse(&c, "# hi\n interval_ms = 250 \nsort=cpu\ntree = yes\n"
                                           "theme=mono\nbogus=1\nlayout = line\ninterval_ms=5\n"
                                           "no equals sign\n"), 3);
    assert_int_equal(c.interval_ms, 250);
    assert_int_equal(c.sort_col, GS_COL_CPU);
    assert_true(c.tree);
    assert_int_equal(c.theme, GS_THEME_MONO);
    assert_int_equal(c.layout, GS_LAYOUT_LINE);
    gs_top_conf_format(&c, text, sizeof(text));
    gs_top_conf_defaults(&d);
    assert_int_equal(gs_top_conf_parse(&d, text), 0);
    assert_conf_eq(&c, &d);
    snprintf(path, sizeof(path), "/tmp/gs-conf-%d/x/top.conf", (int)getpid());
    assert_int_equal(gs_top_conf_save(&c, path), 0);
    gs_top_conf_defaults(&d);
    assert_int_equal(gs_top_conf_load(&d, path), 0);
    assert_conf_eq(&c, &d);
    unlink(path);
    assert_int_equal(gs_interval_step(1000, 1), 2000);
    assert_int_equal(gs_interval_step(1000, -1), 500);
    assert_int_equal(gs_interval_step(100, -1), 100);
    assert_int_equal(gs_interval_step(10000, 1), 10000);
    setenv("XDG_CONFIG_HOME", "/x", 1);
    assert_int_equal(gs_top_conf_path(path, sizeof(path)), 0);
    assert_string_equal(path, "/x/gpuscope/top.conf");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chart_ascii),   cmocka_unit_test(test_chart_braille_and_blocks),
        cmocka_unit_test(test_hist_ring),     cmocka_unit_test(test_pmem_growth),
        cmocka_unit_test(test_pmem_order),
        cmocka_unit_test(test_chart_metrics),
        cmocka_unit_test(test_layout_pick),   cmocka_unit_test(test_formats),
        cmocka_unit_test(test_conf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
