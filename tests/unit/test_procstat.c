/* SPDX-License-Identifier: MIT */
/*
 * test_procstat.c - the one /proc/PID/stat parser (lib/procstat.h) and the
 * field readers the other /proc parsers share: comm with spaces, parentheses
 * and a newline (taken to the LAST ')'), a long comm cut, fields by position
 * with signed ones skipped, malformed and truncated text rejected without a
 * half-filled result, the length bounding the parse, overflow at the field
 * limits, and this test process's own /proc/self/stat.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "lib/procstat.h"

static int parse_stat_str(const char *s, struct gs_proc_stat *st)
{
    return gs_proc_stat_parse(s, strlen(s), st);
}

static void test_stat_plain(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(parse_stat_str("42 (bash) S 7 42 42 34816 42 4194304 1 2 3 4 150 25 0 0 20 0 1 0 "
                                    "999 12345 678 18446744073709551615 1 1 0\n",
                                    &st),
                     0);
    assert_string_equal(st.comm, "bash");
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.ppid, 7);
    assert_int_equal(st.pgid, 42);
    assert_int_equal(st.cpu_ticks, 175);
    assert_int_equal(st.start_ticks, 999);
    assert_int_equal(st.rss_pages, 678);
}

static void test_stat_comm_parens(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    /* negative priority/nice and tty fields in between are skipped, not parsed */
    assert_int_equal(parse_stat_str("5 (a) (b) c) R 1 5 5 0 -1 0 0 0 0 0 3 4 -1 -2 -100 -20 1 0 77 1 2", &st),
                     0);
    assert_string_equal(st.comm, "a) (b) c");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.cpu_ticks, 7);
    assert_int_equal(st.start_ticks, 77);
    assert_int_equal(st.rss_pages, 2);
    assert_int_equal(parse_stat_str("6 ()) Z 1 6 6 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5 0 0", &st), 0);
    assert_string_equal(st.comm, ")");
    assert_int_equal(st.state, 'Z');
    assert_int_equal(parse_stat_str("7 () S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 5 0 3", &st), 0);
    assert_string_equal(st.comm, "");
    assert_int_equal(st.rss_pages, 3);
}

/* A comm that imitates the fields after it: only the last ')' ends it. */
static void test_stat_comm_fake_fields(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(parse_stat_str("8 (x) S 99 99) R 3 8 8 0 -1 0 0 0 0 0 10 20 0 0 20 0 1 0 500 0 9", &st),
                     0);
    assert_string_equal(st.comm, "x) S 99 99");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, 3);
    assert_int_equal(st.cpu_ticks, 30);
    assert_int_equal(st.start_ticks, 500);
    /* a newline and a tab in comm are kept raw: callers sanitise for display */
    assert_int_equal(parse_stat_str("9 (a\nb\tc) S 1 9 9 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 4", &st), 0);
    assert_string_equal(st.comm, "a\nb\tc");
    assert_int_equal(st.rss_pages, 4);
}

static void test_stat_long_comm_truncated(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(parse_stat_str("9 (kworker/u64:3-events_unbound) I 2 0 0 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 "
                                    "3 0 0",
                                    &st),
                     0);
    assert_int_equal(strlen(st.comm), 16);
    assert_memory_equal(st.comm, "kworker/u64:3-ev", 16);
}

static void test_stat_malformed(void **state)
{
    static const char *const bad[] = {
        "",
        "1 (x",
        "1 x) S 1 1",
        "1 (x) S 1 10",                                           /* truncated */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0",      /* no rss */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 \n1",  /* rss after the line's end */
        "1 (x) S a 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",    /* ppid not a number */
        "1 (x) S -1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",   /* negative ppid */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1x 1 0 0 20 0 1 0 5 0 1",   /* junk in utime */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 99999999999999999999 1 0 0 20 0 1 0 5 0 1", /* overflow */
        "1 (x) S 1 1 1 0 -1 0 0 0 0 0 18446744073709551615 1 0 0 20 0 1 0 5 0 1", /* utime + stime */
        "1 (x) S 4294967296 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",          /* ppid > u32 */
        "1 (x) S 1 4294967296 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",          /* pgid > u32 */
        "1 (x)S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",
        "1 (x) SS 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1",   /* state is one letter */
        ") (",
        ")",
        "(",
    };
    struct gs_proc_stat st;
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&st, 0x55, sizeof(st));
        assert_int_equal(parse_stat_str(bad[i], &st), -1);
        /* cleared, never half-filled */
        assert_int_equal(st.cpu_ticks, 0);
        assert_int_equal(st.ppid, 0);
        assert_int_equal(st.comm[0], '\0');
    }
}

static void test_stat_limits(void **state)
{
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(parse_stat_str("1 (x) S 4294967295 4294967295 1 0 -1 0 0 0 0 0 18446744073709551614 1 0 0 20 "
                                    "0 1 0 18446744073709551615 0 18446744073709551615",
                                    &st),
                     0);
    assert_int_equal(st.ppid, UINT32_MAX);
    assert_int_equal(st.pgid, UINT32_MAX);
    assert_true(st.cpu_ticks == UINT64_MAX);
    assert_true(st.start_ticks == UINT64_MAX);
    assert_true(st.rss_pages == UINT64_MAX);
}

static void test_stat_not_nul_terminated(void **state)
{
    const char full[] = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 12345";
    struct gs_proc_stat st;
    (void)state;
    /* the length bounds the parse: cutting the last digits changes rss */
    assert_int_equal(gs_proc_stat_parse(full, sizeof(full) - 1 - 3, &st), 0);
    assert_int_equal(st.rss_pages, 12);
    /* a ')' past the length is not seen: the comm's end is the one inside */
    const char two[] = "1 (x) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 7 (y) Z";
    assert_int_equal(gs_proc_stat_parse(two, strlen(two) - 6, &st), 0);
    assert_string_equal(st.comm, "x");
    assert_int_equal(st.rss_pages, 7);
}

/* This process's own stat, as the kernel writes it. */
static void test_stat_self(void **state)
{
    char buf[1024];
    struct gs_proc_stat st;
    (void)state;
    assert_int_equal(prctl(PR_SET_NAME, "gs t(e)st) x", 0, 0, 0), 0);
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof(buf));
    close(fd);
    assert_true(n > 0);
    assert_int_equal(gs_proc_stat_parse(buf, (size_t)n, &st), 0);
    assert_string_equal(st.comm, "gs t(e)st) x");
    assert_int_equal(st.state, 'R');
    assert_int_equal(st.ppid, (uint32_t)getppid());
    assert_int_equal(st.pgid, (uint32_t)getpgrp());
    assert_true(st.start_ticks > 0);
    assert_true(st.rss_pages > 0);
}

static void test_field_readers(void **state)
{
    const char s[] = "  12 x7 18446744073709551615 18446744073709551616\n9";
    const char *end = s + sizeof(s) - 1, *p;
    uint64_t v = 0;
    (void)state;
    p = gs_proc_field_u64(s, end, &v);
    assert_non_null(p);
    assert_int_equal(v, 12);
    assert_null(gs_proc_field_u64(p, end, &v)); /* "x7" */
    p = gs_proc_skip_field(p, end);
    assert_non_null(p);
    p = gs_proc_field_u64(p, end, &v);
    assert_non_null(p);
    assert_true(v == UINT64_MAX);
    assert_null(gs_proc_field_u64(p, end, &v)); /* one past UINT64_MAX */
    p = gs_proc_skip_field(p, end);
    assert_non_null(p);
    assert_int_equal(*p, '\n');
    assert_null(gs_proc_skip_field(p, end)); /* the line ends here */
    assert_null(gs_proc_u64(s, s, &v));      /* no digit */
    assert_non_null(gs_proc_u64("7x", (const char *)"7x" + 2, &v));
    assert_int_equal(v, 7); /* u64 stops at the first non-digit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_plain),
        cmocka_unit_test(test_stat_comm_parens),
        cmocka_unit_test(test_stat_comm_fake_fields),
        cmocka_unit_test(test_stat_long_comm_truncated),
        cmocka_unit_test(test_stat_malformed),
        cmocka_unit_test(test_stat_limits),
        cmocka_unit_test(test_stat_not_nul_terminated),
        cmocka_unit_test(test_stat_self),
        cmocka_unit_test(test_field_readers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
