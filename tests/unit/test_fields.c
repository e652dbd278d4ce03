/* SPDX-License-Identifier: MIT */
/* test_fields.c - nvidia-smi field names, aliases, value spellings and CSV rows (format/fields.c, format/csv.c). */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "format/fields.h"
#include "format/format.h"
#include "snap_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct gs_snapshot snap;

static int setup(void **state)
{
    (void)state;
    setenv("TZ", "UTC", 1);
    fixture_snapshot(&snap);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    gs_snapshot_release(&snap);
    return 0;
}

/* Format field `name` of GPU `gpu` (proc: index into its processes, or -1). */
static const char *fmt(const char *name, unsigned gpu, int proc, unsigned flags)
{
    static char buf[600];
    static struct gs_fieldlist fl; /* static: reused, its buffer stays reachable */
    struct gs_err err = {0};
    enum gs_query_kind kind = proc >= 0 ? GS_QUERY_COMPUTE_APPS : GS_QUERY_GPU;
    struct gs_field_ctx ctx = {&snap, &snap.gpus[gpu], proc >= 0 ? &snap.gpus[gpu].procs[proc] : NULL};

    assert_int_equal(gs_fieldlist_parse(&fl, kind, name, &err), 0);
    gs_field_format(fl.defs[0], &ctx, flags, buf, sizeof(buf));
    return buf;
}

static void test_value_kinds(void **state)
{
    (void)state;
    assert_string_equal(fmt("utilization.gpu", 0, -1, 0), "38 %");
    assert_string_equal(fmt("memory.used", 0, -1, 0), "32362 MiB");
    assert_string_equal(fmt("memory.total", 0, -1, 0), "81559 MiB");
    assert_string_equal(fmt("power.draw", 0, -1, 0), "627.40 W");
    assert_string_equal(fmt("enforced.power.limit", 0, -1, 0), "700.00 W");
    assert_string_equal(fmt("power.min_limit", 0, -1, 0), "200.00 W");
    assert_string_equal(fmt("temperature.gpu", 0, -1, 0), "52");
    assert_string_equal(fmt("clocks.current.graphics", 0, -1, 0), "1980 MHz");
    assert_string_equal(fmt("pstate", 0, -1, 0), "P0");
    assert_string_equal(fmt("persistence_mode", 0, -1, 0), "Enabled");
    assert_string_equal(fmt("mig.mode.current", 0, -1, 0), "Disabled");
    assert_string_equal(fmt("retired_pages.pending", 0, -1, 0), "No");
    assert_string_equal(fmt("remapped_rows.pending", 0, -1, 0), "Yes");
    assert_string_equal(fmt("clocks_event_reasons.sw_power_cap", 0, -1, 0), "Active");
    assert_string_equal(fmt("clocks_event_reasons.hw_slowdown", 0, -1, 0), "Not Active");
    assert_string_equal(fmt("clocks_event_reasons.active", 0, -1, 0), "0x0000000000000004");
    assert_string_equal(fmt("clocks_event_reasons.supported", 0, -1, 0), "0x00000000000001FF");
    assert_string_equal(fmt("pci.device_id", 0, -1, 0), "0x233010DE");
    assert_string_equal(fmt("pci.bus", 0, -1, 0), "0x3B");
    assert_string_equal(fmt("pci.domain", 0, -1, 0), "0x0000");
    assert_string_equal(fmt("pci.bus_id", 0, -1, 0), "00000000:3B:00.0");
    assert_string_equal(fmt("compute_cap", 0, -1, 0), "9.0");
    assert_string_equal(fmt("compute_mode", 0, -1, 0), "Exclusive_Process");
    assert_string_equal(fmt("timestamp", 0, -1, 0), "2026/07/03 22:11:09.763");
    assert_string_equal(fmt("driver_version", 0, -1, 0), "550.54.15");
    assert_string_equal(fmt("count", 0, -1, 0), "2");
    assert_string_equal(fmt("index", 1, -1, 0), "1");
    assert_string_equal(fmt("fan.speed", 0, -1, 0), "[N/A]"); /* no fans: passively cooled */
}

static void test_watts_round_half_up(void **state)
{
    (void)state;
    snap.gpus[0].s.power_mw = 68435;
    assert_string_equal(fmt("power.draw", 0, -1, 0), "68.44 W");
    snap.gpus[0].s.power_mw = 999995;
    assert_string_equal(fmt("power.draw", 0, -1, 0), "1000.00 W");
    snap.gpus[0].s.power_mw = 627400;
}

static void test_nounits(void **state)
{
    (void)state;
    assert_string_equal(fmt("utilization.gpu", 0, -1, GS_FIELD_NOUNITS), "38");
    assert_string_equal(fmt("memory.used", 0, -1, GS_FIELD_NOUNITS), "32362");
    assert_string_equal(fmt("power.draw", 0, -1, GS_FIELD_NOUNITS), "627.40");
    assert_string_equal(fmt("used_gpu_memory", 0, 0, GS_FIELD_NOUNITS), "30000");
    /* statuses are not units */
    assert_string_equal(fmt("power.draw", 1, -1, GS_FIELD_NOUNITS), "[N/A]");
}

static void test_not_a_value_spellings(void **state)
{
    (void)state;
    assert_string_equal(fmt("power.draw", 1, -1, 0), "[N/A]"); /* R440+ spelling of "not supported" */
    assert_string_equal(fmt("memory.used", 1, -1, 0), "[GPU is lost]");
    assert_string_equal(fmt("utilization.gpu", 1, -1, 0), "[N/A]");
    assert_string_equal(fmt("temperature.gpu", 1, -1, 0), "[Unknown Error]");
    assert_string_equal(fmt("serial", 1, -1, 0), "[Insufficient Permissions]");
    assert_string_equal(fmt("fan.speed", 1, -1, 0), "[N/A]");
    assert_string_equal(fmt("pcie.throughput.tx", 0, -1, 0), "[N/A]"); /* not sampled */
    /* known to nvidia-smi, not read by gpuscope */
    assert_string_equal(fmt("kmd_version", 0, -1, 0), "[N/A]");
    assert_string_equal(fmt("power_smoothing.enabled", 0, -1, 0), "[N/A]");
}

static void test_aliases_and_headers(void **state)
{
    static struct gs_fieldlist fl; /* static: reused, its buffer stays reachable */
    struct gs_err err = {0};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    (void)state;

    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU,
                                        " gpu_name, clocks.gr,clocks_throttle_reasons.sw_power_cap ,,"
                                        "gpu.power.current_limit,MEMORY.USED,retired_pages.sbe",
                                        &err),
                     0);
    assert_int_equal(fl.n, 6);
    gs_csv_write_header(f, &fl, &snap);
    fclose(f);
    assert_string_equal(out,
                        "name, clocks.current.graphics [MHz], clocks_event_reasons.sw_power_cap, "
                        "enforced.power.limit [W], memory.used [MiB], retired_pages.single_bit_ecc.count\n");
    free(out);
    assert_string_equal(fmt("clocks_throttle_reasons.active", 0, -1, 0), "0x0000000000000004");
    assert_string_equal(fmt("name", 0, 0, 0), "/usr/bin/python"); /* process_name alias; argv[0] from /proc */
    assert_string_equal(fmt("process_name", 0, 2, 0),
                        "/opt/app/bin/server --port 80");       /* the driver's name */
    assert_string_equal(fmt("process_name", 0, 1, 0), "[N/A]"); /* neither */
    assert_string_equal(fmt("used_memory", 0, 0, 0), "30000 MiB");
}

/* Spellings by driver branch: [Not Supported] before R440, the throttle names before R535. */
static void test_driver_eras(void **state)
{
    static struct gs_fieldlist fl;
    struct gs_err err = {0};
    char saved[80], *out = NULL;
    size_t len = 0;
    (void)state;

    snprintf(saved, sizeof(saved), "%s", snap.sys.driver_version);
    assert_int_equal(gs_driver_major("418.43"), 418);
    assert_int_equal(gs_driver_major("550.54.15"), 550);
    assert_int_equal(gs_driver_major(""), 0);
    snprintf(snap.sys.driver_version, sizeof(snap.sys.driver_version), "418.43");
    assert_string_equal(fmt("power.draw", 1, -1, 0), "[Not Supported]");
    assert_string_equal(fmt("utilization.gpu", 1, -1, 0), "[N/A]"); /* no value now: [N/A] in every era */
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "clocks_event_reasons.gpu_idle,"
                                                           "clocks_throttle_reasons.active", &err), 0);
    gs_csv_write_header(f, &fl, &snap);
    fclose(f);
    assert_string_equal(out, "clocks_throttle_reasons.gpu_idle, clocks_throttle_reasons.active\n");
    free(out);
    snprintf(snap.sys.driver_version, sizeof(snap.sys.driver_version), "535.54.03");
    out = NULL;
    f = open_memstream(&out, &len);
    gs_csv_write_header(f, &fl, &snap);
    fclose(f);
    assert_string_equal(out, "clocks_event_reasons.gpu_idle, clocks_event_reasons.active\n");
    free(out);
    snprintf(snap.sys.driver_version, sizeof(snap.sys.driver_version), "%s", saved);
}

/* Any number of fields (nvidia-smi has no limit; 241 names on R610). */
static void test_long_field_list(void **state)
{
    static struct gs_fieldlist fl;
    struct gs_err err = {0};
    char *spec = malloc(1000 * 16);
    size_t used = 0;
    (void)state;

    for (int i = 0; i < 1000; i++)
        used += (size_t)snprintf(spec + used, 1000 * 16 - used, "%smemory.used", i ? "," : "");
    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, spec, &err), 0);
    assert_int_equal(fl.n, 1000);
    free(spec);
    gs_fieldlist_free(&fl);
}

static void test_unknown_field_suggests(void **state)
{
    static struct gs_fieldlist fl; /* static: reused, its buffer stays reachable */
    struct gs_err err = {0};
    (void)state;

    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "index,utilizaton.gpu", &err), -GS_E_USAGE);
    assert_int_equal(err.code, GS_E_USAGE);
    assert_non_null(strstr(err.msg, "'utilizaton.gpu'"));
    assert_non_null(strstr(err.msg, "--query-gpu"));
    assert_non_null(strstr(err.hint, "did you mean 'utilization.gpu'"));

    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "temperature", &err), -GS_E_USAGE);
    assert_non_null(strstr(err.hint, "'temperature.gpu'"));
    assert_non_null(strstr(err.hint, "'temperature.memory'"));

    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "xyzzyplugh", &err), -GS_E_USAGE);
    assert_null(strstr(err.hint, "did you mean"));
    assert_non_null(strstr(err.hint, "--help-query-gpu"));

    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_COMPUTE_APPS, "pid,used_gpu_mem", &err), -GS_E_USAGE);
    assert_non_null(strstr(err.hint, "'used_gpu_memory'"));
    /* a GPU field is not a compute-apps field */
    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_COMPUTE_APPS, "utilization.gpu", &err), -GS_E_USAGE);
    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, " , ", &err), -GS_E_USAGE);
}

static void test_edit_distance(void **state)
{
    (void)state;
    assert_int_equal(gs_edit_distance("kitten", "sitting", 5), 3);
    assert_int_equal(gs_edit_distance("abc", "abc", 2), 0);
    assert_int_equal(gs_edit_distance("", "abc", 5), 3);
    assert_int_equal(gs_edit_distance("abcdefgh", "a", 2), 3); /* capped: cap + 1 */
}

static void test_want_and_unread(void **state)
{
    static struct gs_fieldlist fl; /* static: reused, its buffer stays reachable */
    struct gs_err err = {0};
    (void)state;

    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "index,name,uuid", &err), 0);
    assert_false(gs_fmask_any(gs_fieldlist_want(&fl)));
    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "memory.used,clocks_event_reasons.gpu_idle", &err),
                     0);
    struct gs_fmask expect = gs_fmask_of(GS_F_MEM_USED);
    gs_fmask_set(&expect, GS_F_THROTTLE);
    assert_true(gs_fmask_eq(gs_fieldlist_want(&fl), expect));
    assert_false(gs_fieldlist_wants_slow(&fl));
    assert_int_equal(gs_fieldlist_unread(&fl, NULL, NULL), 0);
    assert_int_equal(gs_fieldlist_parse(&fl, GS_QUERY_GPU, "pcie.throughput.rx,power_smoothing.enabled,hostname", &err),
                     0);
    assert_true(gs_fieldlist_wants_slow(&fl));
    assert_int_equal(gs_fieldlist_unread(&fl, NULL, NULL), 2);
}

static char *csv(const char *spec, enum gs_query_kind kind, unsigned flags)
{
    static struct gs_fieldlist fl; /* static: reused, its buffer stays reachable */
    struct gs_err err = {0};
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);

    assert_int_equal(gs_fieldlist_parse(&fl, kind, spec, &err), 0);
    if (!(flags & GS_CSV_NOHEADER))
        gs_csv_write_header(f, &fl, &snap);
    gs_csv_write_rows(f, &snap, &fl, flags);
    fclose(f);
    return out;
}

static void test_csv_rows(void **state)
{
    char *out;
    (void)state;

    out = csv("index,name,utilization.gpu,memory.used,power.draw", GS_QUERY_GPU, 0);
    assert_string_equal(out, "index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n"
                             "0, NVIDIA H100 80GB HBM3, 38 %, 32362 MiB, 627.40 W\n"
                             "1, NVIDIA H100 80GB HBM3, [N/A], [GPU is lost], [N/A]\n");
    free(out);
    out = csv("index,utilization.gpu,memory.used", GS_QUERY_GPU, GS_CSV_NOHEADER | GS_CSV_NOUNITS);
    assert_string_equal(out, "0, 38, 32362\n1, [N/A], [GPU is lost]\n");
    free(out);
    /* compute apps: compute processes only (not the graphics-only 777) */
    out = csv("timestamp,gpu_bus_id,pid,process_name,used_gpu_memory", GS_QUERY_COMPUTE_APPS, 0);
    assert_string_equal(
        out, "timestamp, gpu_bus_id, pid, process_name, used_gpu_memory [MiB]\n"
             "2026/07/03 22:11:09.763, 00000000:3B:00.0, 4242, /usr/bin/python, 30000 MiB\n"
             "2026/07/03 22:11:09.763, 00000000:3B:00.0, 31337, /opt/app/bin/server --port 80, [N/A]\n");
    free(out);
}

static void line_count(void *arg, const char *text)
{
    (void)text;
    (*(unsigned *)arg)++;
}

static void test_help_lists_everything(void **state)
{
    unsigned n = 0;
    (void)state;
    gs_fields_help(GS_QUERY_GPU, line_count, &n);
    assert_true(n >= 241);
    n = 0;
    gs_fields_help(GS_QUERY_COMPUTE_APPS, line_count, &n);
    assert_int_equal(n, 8 + 2); /* nvidia-smi's 8, and gpu_instance_id, compute_instance_id */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_kinds),
        cmocka_unit_test(test_watts_round_half_up),
        cmocka_unit_test(test_nounits),
        cmocka_unit_test(test_not_a_value_spellings),
        cmocka_unit_test(test_aliases_and_headers),
        cmocka_unit_test(test_driver_eras),
        cmocka_unit_test(test_long_field_list),
        cmocka_unit_test(test_unknown_field_suggests),
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_want_and_unread),
        cmocka_unit_test(test_csv_rows),
        cmocka_unit_test(test_help_lists_everything),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
