/* SPDX-License-Identifier: MIT */
/*
 * test_jobmap.c - dcgm-exporter's HPC job mapping directory (core/jobmap.h):
 * the file parser and name rule as dcgm-exporter's hpc.go and hpc_test.go
 * ("When all GPU have job files", "rejects float-like strings"), the bounds it
 * lacks, the directory watcher's re-reads, and the prolog/epilog writer.
 * Read against NVIDIA/dcgm-exporter at d5e5f510a1b6 (2026-05-12):
 * internal/pkg/transformation/hpc.go and hpc_test.go.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/jobmap.h"

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_parse(void **state)
{
    static struct gs_jobmap_ids ids;
    char big[200];
    (void)state;
    gs_jobmap_parse("job1-1\njob2-1\n", 14, &ids); /* hpc_test.go's GPU 1 file */
    assert_int_equal(ids.n, 2);
    assert_string_equal(ids.id[0], "job1-1");
    assert_string_equal(ids.id[1], "job2-1");
    gs_jobmap_parse("job3.0-0", 8, &ids); /* no final newline */
    assert_int_equal(ids.n, 1);
    assert_string_equal(ids.id[0], "job3.0-0");
    const char crlf[] = "12\r\n\n  13 \t\n12\n";
    gs_jobmap_parse(crlf, sizeof(crlf) - 1, &ids);
    assert_int_equal(ids.n, 2);
    assert_int_equal(ids.rejected, 0);
    assert_string_equal(ids.id[1], "13");
    memset(big, '7', sizeof(big));
    big[sizeof(big) - 1] = '\n';
    gs_jobmap_parse(big, sizeof(big), &ids);
    assert_int_equal(ids.n, 0);
    assert_int_equal(ids.rejected, 1);
    assert_int_equal(ids.bad_line, 1);
    const char bin[] = "ok\n\x01\x02\n\xc3\xa9t\xc3\xa9\nmy job\n";
    gs_jobmap_parse(bin, sizeof(bin) - 1, &ids);
    assert_int_equal(ids.n, 1);
    assert_int_equal(ids.rejected, 3);
    assert_int_equal(ids.bad_line, 2);
    const char nul[] = "a\0b\n";
    gs_jobmap_parse(nul, sizeof(nul) - 1, &ids);
    assert_int_equal(ids.n, 0);
}

static void test_too_many(void **state)
{
    static struct gs_jobmap_ids ids;
    char buf[100 * 8];
    size_t n = 0;
    (void)state;
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%d\n", i + 1);
    gs_jobmap_parse(buf, n, &ids);
    assert_int_equal(ids.n, GS_JOBMAP_JOBS_MAX);
    assert_int_equal(ids.rejected, 100 - GS_JOBMAP_JOBS_MAX);
    assert_int_equal(ids.bad_line, GS_JOBMAP_JOBS_MAX + 1);
}

static void test_names(void **state)
{
    static const char *const good[] = { "0", "1", "42", "0.0", "2.1", "3.10" };
    static const char *const bad[] = { "foo", "bar.txt", ".gitkeep", "1e5", "NaN", "Inf", "+3", "-2",
                                       ".5", "1.2.3", "0.1.2", "", "1.", "1234567890", "0.tmp" };
    uint32_t gpu, gi;
    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_true(gs_jobmap_name(good[i], &gpu, &gi));
    assert_true(gs_jobmap_name("3.10", &gpu, &gi));
    assert_int_equal(gpu, 3);
    assert_int_equal(gi, 10);
    assert_true(gs_jobmap_name("7", &gpu, &gi));
    assert_int_equal(gi, UINT32_MAX);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (gs_jobmap_name(bad[i], &gpu, &gi))
            fail_msg("'%s' taken as a mapping file name", bad[i]);
}

static char *scratch(void)
{
    char *d = strdup("/tmp/gs-jobmap-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static void test_dir_rereads(void **state)
{
    char *d = scratch(), sub[512];
    (void)state;
    put(d, "0", "job1-0\n");
    put(d, "1", "job1-1\njob2-1\n");
    put(d, "3.0", "job3.0-0");
    put(d, "foo", "nope\n");
    snprintf(sub, sizeof(sub), "%s/iamdir", d);
    assert_int_equal(mkdir(sub, 0755), 0);
    struct gs_jobmap_dir *w = gs_jobmap_dir_new(d, "test");
    struct gs_jobmap *m = gs_jobmap_dir_tick(w);
    assert_non_null(m);
    assert_int_equal(m->n, 3);
    const struct gs_jobmap_gpu *e = gs_jobmap_find(m, 1, UINT32_MAX);
    assert_non_null(e);
    assert_int_equal(e->njobs, 2);
    assert_string_equal(e->jobs[1], "job2-1");
    assert_null(gs_jobmap_find(m, 2, UINT32_MAX));
    assert_null(gs_jobmap_find(m, 3, UINT32_MAX));
    assert_non_null(gs_jobmap_find(m, 3, 0));
    assert_int_equal(gs_jobmap_dir_reads(w), 1);
    assert_ptr_equal(gs_jobmap_dir_tick(w), m); /* nothing changed: not read again */
    assert_int_equal(gs_jobmap_dir_reads(w), 1);
    struct gs_jobmap *kept = gs_jobmap_ref(m);
    put(d, "2", "99\n");
    m = gs_jobmap_dir_tick(w);
    assert_int_equal(gs_jobmap_dir_reads(w), 2);
    assert_non_null(gs_jobmap_find(m, 2, UINT32_MAX));
    assert_null(gs_jobmap_find(kept, 2, UINT32_MAX)); /* an older map is immutable */
    gs_jobmap_unref(kept);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
    assert_null(gs_jobmap_dir_tick(w));
    assert_int_equal(mkdir(d, 0755), 0);
    assert_null(gs_jobmap_dir_tick(w)); /* back, but empty */
    put(d, "0", "5\n");
    assert_non_null(gs_jobmap_find(gs_jobmap_dir_tick(w), 0, UINT32_MAX));
    gs_jobmap_dir_free(w);
    assert_int_equal(system(cmd), 0);
    free(d);
}

static void test_writer(void **state)
{
    struct gs_err err = { 0 };
    char *d = scratch(), path[512], buf[256];
    (void)state;
    assert_int_equal(gs_jobmap_add(d, 0, "101", &err), 0);
    assert_int_equal(gs_jobmap_add(d, 0, "102", &err), 0);
    assert_int_equal(gs_jobmap_add(d, 0, "101", &err), 0); /* twice: listed once */
    assert_int_equal(gs_jobmap_add(d, 1, "102", &err), 0);
    snprintf(path, sizeof(path), "%s/0", d);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, "101\n102\n");
    assert_int_equal(gs_jobmap_remove(d, 0, "101", &err), 0);
    assert_int_equal(gs_jobmap_remove(d, 0, "101", &err), 0); /* an epilog run twice */
    assert_int_equal(gs_jobmap_remove(d, 0, "102", &err), 0);
    assert_int_equal(access(path, F_OK), -1); /* no job left: no file */
    assert_true(gs_jobmap_add(d, 0, "bad id", &err) < 0);
    assert_non_null(strstr(err.msg, "bad id"));
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_too_many),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_dir_rereads),
        cmocka_unit_test(test_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
