/* SPDX-License-Identifier: MIT */
/* test_json.c - the gpuscope.snapshot/1 JSON (format/json.c): numbers, units in keys, nulls with reasons. */
/* clang-format off */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */
#include "format/format.h"
#include "snap_fixture.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct gs_snapshot snap;
static json_t *root;

/* The indented text, parsed back (the tests read values by path). */
static json_t *parse_snapshot(const struct gs_snapshot *sn)
{
    size_t len = 0;
    char *text = gs_json_text(sn, false, &len);
    json_error_t jerr;
    json_t *v = text ? json_loadb(text, len, 0, &jerr) : NULL;

    free(text);
    return v;
}

static int setup(void **state)
{
    (void)state;
    fixture_snapshot(&snap);
    root = parse_snapshot(&snap);
    return root ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    json_decref(root);
    gs_snapshot_release(&snap);
    return 0;
}

/* The value at a '/'-separated path ("gpus/0/memory/used_bytes"); fails the test if absent. */
static json_t *at(const char *path)
{
    char buf[256];
    char *save = NULL;
    json_t *v = root;

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *t = strtok_r(buf, "/", &save); t && v; t = strtok_r(NULL, "/", &save))
        v = json_is_array(v) ? json_array_get(v, strtoul(t, NULL, 10)) : json_object_get(v, t);
    if (!v)
        fail_msg("no value at %s", path);
    return v;
}

static void test_top_level(void **state)
{
    (void)state;
    assert_string_equal(json_string_value(at("schema")), "gpuscope.snapshot/1");
    assert_string_equal(json_string_value(at("time")), "2026-07-03T22:11:09.763Z");
    assert_int_equal(json_integer_value(at("time_unix_ms")), 1783116669763LL);
    assert_int_equal(json_integer_value(at("sample_duration_us")), 412);
    assert_int_equal(json_integer_value(at("gpu_count")), 2);
    assert_true(json_is_true(at("system/simulated")));
    assert_string_equal(json_string_value(at("system/sim_scenario")), "demo");
    assert_string_equal(json_string_value(at("system/driver_version")), "550.54.15");
    assert_string_equal(json_string_value(at("system/cuda_driver_version")), "12.4");
    assert_true(json_is_null(at("system/nvml_version"))); /* "" -> null */
}

static void test_numbers_are_numbers(void **state)
{
    (void)state;
    assert_int_equal(json_integer_value(at("gpus/0/index")), 0);
    assert_int_equal(json_integer_value(at("gpus/0/memory/total_bytes")), 81559LL << 20);
    assert_int_equal(json_integer_value(at("gpus/0/utilization/gpu_pct")), 38);
    assert_int_equal(json_integer_value(at("gpus/0/temperature/gpu_c")), 52);
    assert_true(json_is_real(at("gpus/0/power/draw_w")));
    assert_true(json_real_value(at("gpus/0/power/draw_w")) == 627.4);
    assert_int_equal(json_integer_value(at("gpus/0/power/energy_mj")), 123456789);
    assert_int_equal(json_integer_value(at("gpus/0/clocks/graphics_mhz")), 1980);
    assert_int_equal(json_integer_value(at("gpus/0/pstate")), 0);
    assert_int_equal(json_integer_value(at("gpus/0/clock_event_reasons/active_mask")), 4);
    assert_string_equal(json_string_value(at("gpus/0/clock_event_reasons/active/0")), "sw_power_cap");
    assert_int_equal(json_integer_value(at("gpus/0/clock_event_reasons/supported_mask")), 0x1FF);
    assert_true(json_is_true(at("gpus/0/ecc/mode_current")));
    assert_true(json_is_true(at("gpus/0/remapped_rows/pending")));
    assert_true(json_is_false(at("gpus/0/retired_pages/pending")));
    assert_string_equal(json_string_value(at("gpus/0/modes/compute")), "exclusive_process");
    assert_string_equal(json_string_value(at("gpus/0/identity/pci_device_id")), "0x233010DE");
    assert_string_equal(json_string_value(at("gpus/0/identity/compute_capability")), "9.0");
    assert_string_equal(json_string_value(at("gpus/0/identity/architecture")), "Hopper");
    assert_string_equal(json_string_value(at("gpus/0/state")), "ok");
    assert_true(json_is_null(at("gpus/0/error")));
}

static void test_nulls_carry_reasons(void **state)
{
    (void)state;
    assert_true(json_is_null(at("gpus/1/power/draw_w")));
    assert_string_equal(json_string_value(at("gpus/1/unavailable/power.draw_w")), "not_supported");
    assert_true(json_is_null(at("gpus/1/memory/used_bytes")));
    assert_string_equal(json_string_value(at("gpus/1/unavailable/memory.used_bytes")), "gpu_lost");
    assert_string_equal(json_string_value(at("gpus/1/unavailable/utilization.gpu_pct")), "not_available");
    assert_string_equal(json_string_value(at("gpus/1/unavailable/temperature.gpu_c")), "error");
    assert_string_equal(json_string_value(at("gpus/1/unavailable/identity.serial")), "no_permission");
    assert_string_equal(json_string_value(at("gpus/1/unavailable/fans_pct")), "not_available");
    assert_string_equal(json_string_value(at("gpus/1/unavailable/processes")), "not_supported");
    assert_true(json_is_null(at("gpus/1/processes")));
    assert_string_equal(json_string_value(at("gpus/1/state")), "lost");
    assert_string_equal(json_string_value(at("gpus/1/error")), "GPU has fallen off the bus");
    /* slow field not sampled on GPU 0; values present have no entry */
    assert_string_equal(json_string_value(at("gpus/0/unavailable/pcie.tx_kbytes_per_s")), "not_sampled");
    assert_null(json_object_get(at("gpus/0/unavailable"), "memory.used_bytes"));
    /* every null in gpu 0's groups is explained */
    const char *key;
    json_t *grp;
    json_object_foreach(at("gpus/0"), key, grp)
    {
        const char *k2;
        json_t *v;
        if (!json_is_object(grp) || !strcmp(key, "unavailable"))
            continue;
        json_object_foreach(grp, k2, v)
        {
            char path[128];
            snprintf(path, sizeof(path), "%s.%s", key, k2);
            if (json_is_null(v))
                assert_non_null(json_object_get(at("gpus/0/unavailable"), path));
        }
    }
}

static void test_processes(void **state)
{
    (void)state;
    assert_int_equal(json_array_size(at("gpus/0/processes")), 3);
    assert_int_equal(json_integer_value(at("gpus/0/processes/0/pid")), 4242);
    assert_string_equal(json_string_value(at("gpus/0/processes/0/type/0")), "compute");
    assert_int_equal(json_integer_value(at("gpus/0/processes/0/gpu_memory_bytes")), 30000LL << 20);
    assert_string_equal(json_string_value(at("gpus/0/processes/0/host/user")), "alice");
    assert_string_equal(json_string_value(at("gpus/0/processes/0/host/cmdline")),
                        "/usr/bin/python train.py --bs 64");
    assert_string_equal(json_string_value(at("gpus/0/processes/0/host/visibility")), "visible");
    /* read fine, not in a container: null without a reason */
    assert_true(json_is_null(at("gpus/0/processes/0/host/container_id")));
    assert_null(json_object_get(at("gpus/0/processes/0/unavailable"), "host.container_id"));
    /* cpu not read (first tick): null with a reason */
    assert_string_equal(json_string_value(at("gpus/0/processes/0/unavailable/host.cpu_pct")),
                        "not_available");
    assert_true(json_is_null(at("gpus/0/processes/0/mig")));
    /* another PID namespace: host facts null, reason "not_visible" */
    assert_string_equal(json_string_value(at("gpus/0/processes/2/host/visibility")), "not_visible");
    assert_true(json_is_null(at("gpus/0/processes/2/host/user")));
    assert_string_equal(json_string_value(at("gpus/0/processes/2/unavailable/host.user")), "not_visible");
    assert_string_equal(json_string_value(at("gpus/0/processes/2/type/1")), "graphics");
    /* the driver's name is known even when /proc cannot see the process */
    assert_string_equal(json_string_value(at("gpus/0/processes/2/name")), "/opt/app/bin/server --port 80");
    assert_true(json_is_null(at("gpus/0/processes/0/name")));
    assert_string_equal(json_string_value(at("gpus/0/processes/0/unavailable/name")), "not_available");
}

static void test_compact_is_one_line(void **state)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    json_error_t jerr;
    (void)state;

    assert_int_equal(gs_json_write(f, &snap, true), 0);
    assert_int_equal(gs_json_write(f, &snap, true), 0);
    fclose(f);
    char *nl = strchr(out, '\n');
    assert_non_null(nl);
    assert_ptr_equal(strchr(nl + 1, '\n'), out + len - 1); /* NDJSON: two lines */
    assert_non_null(strstr(out, "\"draw_w\":627.4,"));     /* no 627.39999999999998 */
    json_t *again = json_loadb(out, (size_t)(nl - out), 0, &jerr);
    assert_non_null(again);
    assert_true(json_equal(again, root));
    json_decref(again);
    free(out);
}

/* The streaming writer's text is exactly what jansson itself prints for the
 * same document (its layout, escaping and reals), indented and compact; a
 * repeated key would be lost in the parse and fail this too. */
static void test_text_is_janssons(void **state)
{
    size_t flags[2] = {JSON_INDENT(2) | JSON_REAL_PRECISION(12), JSON_COMPACT | JSON_REAL_PRECISION(12)};
    (void)state;

    for (int c = 0; c < 2; c++) {
        size_t len = 0;
        char *text = gs_json_text(&snap, c == 1, &len);
        char *again = json_dumps(root, flags[c]);
        assert_non_null(text);
        assert_non_null(again);
        assert_int_equal(strlen(again), len);
        assert_string_equal(text, again);
        free(text);
        free(again);
    }
}

/* A string jansson will not encode (not UTF-8: a command line cut in the
 * middle of a character) is null with its reason, never a broken document. */
static void test_invalid_utf8_is_null_with_reason(void **state)
{
    struct gs_snapshot bad;
    (void)state;

    fixture_snapshot(&bad);
    fixture_cmdline(&bad.gpus[0], &bad.gpus[0].procs[0], "python caf\xc3");
    json_t *doc = parse_snapshot(&bad);
    assert_non_null(doc);
    json_t *p = json_array_get(json_object_get(json_array_get(json_object_get(doc, "gpus"), 0), "processes"), 0);
    assert_true(json_is_null(json_object_get(json_object_get(p, "host"), "cmdline")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(p, "unavailable"), "host.cmdline")),
                        "invalid_utf8");
    json_decref(doc);
    gs_snapshot_release(&bad);
}

/* serve's snapshot: command lines redacted, with a reason; the command name stays. */
static void test_redact_cmdline(void **state)
{
    size_t len = 0;
    json_error_t jerr;
    (void)state;

    char *text = gs_json_text_ex(&snap, true, GS_JSON_REDACT_CMDLINE, &len);
    assert_non_null(text);
    assert_null(strstr(text, "train.py"));
    json_t *doc = json_loadb(text, len, 0, &jerr);
    free(text);
    assert_non_null(doc);
    json_t *p0 = json_array_get(json_object_get(json_array_get(json_object_get(doc, "gpus"), 0), "processes"), 0);
    assert_true(json_is_null(json_object_get(json_object_get(p0, "host"), "cmdline")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(p0, "unavailable"), "host.cmdline")),
                        "redacted");
    assert_string_equal(json_string_value(json_object_get(json_object_get(p0, "host"), "command")), "python");
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_level),           cmocka_unit_test(test_numbers_are_numbers),
        cmocka_unit_test(test_nulls_carry_reasons), cmocka_unit_test(test_processes),
        cmocka_unit_test(test_compact_is_one_line), cmocka_unit_test(test_text_is_janssons),
        cmocka_unit_test(test_invalid_utf8_is_null_with_reason), cmocka_unit_test(test_redact_cmdline),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
