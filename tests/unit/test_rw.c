/* SPDX-License-Identifier: MIT */
/*
 * test_rw.c - remote write's encoding and config: the WriteRequest gpuscope
 * sends, snappy-decompressed and unpacked with protoc-c, holds the series
 * serve names (DCGM_FI_*, gpuscope_*) with sorted labels, each series' samples
 * in time order with the stored values in exported units, NULLs absent;
 * write_relabel_configs keep/drop; config errors name file, line and key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "record/remote.pb-c.h"
#include "record/rw.h"

static const struct gs_rw_gpu gpu0 = { .id = 0, .idx = 0, .uuid = "GPU-aaaa", .name = "NVIDIA H100", .pci = "0000:18:00.0" };
static const struct gs_rw_gpu gpu1 = { .id = 1, .idx = 1, .uuid = "GPU-bbbb", .name = "NVIDIA H100", .pci = "0000:2A:00.0" };

static void row(struct gs_rw_row *r, int64_t t, int gpu, int64_t util, int64_t power_dw)
{
    memset(r, 0, sizeof(*r));
    r->t = t;
    r->gpu = gpu;
    r->v[GS_COL_UTIL] = util;
    r->v[GS_COL_POWER] = power_dw;
    r->v[GS_COL_MEM_USED] = 1024;
    r->v[GS_COL_PCIE_RX] = 3;
    r->v[GS_COL_ENERGY] = 999; /* a delta: never sent */
    r->have = 1u << GS_COL_UTIL | 1u << GS_COL_POWER | 1u << GS_COL_MEM_USED | 1u << GS_COL_PCIE_RX |
              1u << GS_COL_ENERGY;
}

static Prometheus__WriteRequest *decode(const void *buf, size_t len)
{
    size_t raw_len;
    assert_int_equal(snappy_uncompressed_length(buf, len, &raw_len), SNAPPY_OK);
    char *raw = malloc(raw_len);
    assert_non_null(raw);
    assert_int_equal(snappy_uncompress(buf, len, raw, &raw_len), SNAPPY_OK);
    Prometheus__WriteRequest *wr = prometheus__write_request__unpack(NULL, raw_len, (const uint8_t *)raw);
    free(raw);
    assert_non_null(wr);
    return wr;
}

static const char *label(const Prometheus__TimeSeries *ts, const char *name)
{
    for (size_t i = 0; i < ts->n_labels; i++)
        if (!strcmp(ts->labels[i]->name, name))
            return ts->labels[i]->value;
    return NULL;
}

static const Prometheus__TimeSeries *series(const Prometheus__WriteRequest *wr, const char *name, const char *gpu)
{
    for (size_t i = 0; i < wr->n_timeseries; i++)
        if (!strcmp(label(wr->timeseries[i], "__name__"), name) && !strcmp(label(wr->timeseries[i], "gpu"), gpu))
            return wr->timeseries[i];
    return NULL;
}

static void test_encode(void **state)
{
    (void)state;
    struct gs_rw_cfg cfg;
    struct gs_err err = { 0 };
    struct gs_rw_enc *e;
    gs_rw_cfg_init(&cfg);
    assert_int_equal(gs_rw_enc_new(&e, "node7", &cfg, &err), 0);
    gs_rw_enc_gpu(e, &gpu0);
    gs_rw_enc_gpu(e, &gpu1); /* a second GPU after the first: the first's labels stay valid */
    struct gs_rw_row rows[4];
    row(&rows[0], 1000, 0, 10, 2505);
    row(&rows[1], 1000, 1, 20, 1000);
    row(&rows[2], 2000, 0, 11, 2506);
    row(&rows[3], 2000, 1, 21, 1001);
    rows[3].have &= (uint16_t)~(1u << GS_COL_UTIL); /* NULL: no sample, never a 0 */
    assert_int_equal(gs_rw_enc_count(e, &rows[0]), 4);
    const void *buf;
    size_t len, n;
    assert_int_equal(gs_rw_encode(e, rows, 4, &buf, &len, &n, &err), 0);
    assert_int_equal(n, 15);
    Prometheus__WriteRequest *wr = decode(buf, len);
    assert_int_equal(wr->n_timeseries, 8);
    for (size_t i = 0; i < wr->n_timeseries; i++) { /* labels sorted, unique; samples in time order */
        const Prometheus__TimeSeries *ts = wr->timeseries[i];
        for (size_t k = 1; k < ts->n_labels; k++)
            assert_true(strcmp(ts->labels[k - 1]->name, ts->labels[k]->name) < 0);
        for (size_t k = 1; k < ts->n_samples; k++)
            assert_true(ts->samples[k - 1]->timestamp < ts->samples[k]->timestamp);
        assert_string_equal(label(ts, "Hostname"), "node7");
        assert_string_equal(label(ts, "instance"), "node7");
    }
    const Prometheus__TimeSeries *u0 = series(wr, "DCGM_FI_DEV_GPU_UTIL", "0");
    assert_non_null(u0);
    assert_string_equal(label(u0, "UUID"), "GPU-aaaa");
    assert_string_equal(label(u0, "device"), "nvidia0");
    assert_string_equal(label(u0, "modelName"), "NVIDIA H100");
    assert_string_equal(label(u0, "pci_bus_id"), "0000:18:00.0");
    assert_int_equal(u0->n_samples, 2);
    assert_true(u0->samples[0]->value == 10 && u0->samples[0]->timestamp == 1000);
    assert_true(u0->samples[1]->value == 11 && u0->samples[1]->timestamp == 2000);
    assert_int_equal(series(wr, "DCGM_FI_DEV_GPU_UTIL", "1")->n_samples, 1);
    const Prometheus__TimeSeries *p0 = series(wr, "DCGM_FI_DEV_POWER_USAGE", "0");
    assert_true(p0->samples[0]->value == 250.5 && p0->samples[1]->value == 250.6);
    assert_true(series(wr, "DCGM_FI_DEV_FB_USED", "1")->samples[0]->value == 1024);
    const Prometheus__TimeSeries *rx = series(wr, "gpuscope_pcie_rx_bytes_per_second", "1");
    assert_non_null(rx);
    assert_string_equal(label(rx, "uuid"), "GPU-bbbb");
    assert_null(label(rx, "UUID"));
    assert_true(rx->samples[0]->value == 3 * 1000 * 1024);
    assert_null(series(wr, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "0"));
    prometheus__write_request__free_unpacked(wr, NULL);
    gs_rw_enc_free(e);
    gs_rw_cfg_free(&cfg);
}

static const char cfg_text[] =
    "# one remote_write entry\n"
    "url: http://127.0.0.1:9/api/v1/write\n"
    "remote_timeout: 5s\n"
    "headers:\n"
    "  X-Scope-OrgID: team-a\n"
    "basic_auth:\n"
    "  username: alice\n"
    "  password: s3cret\n"
    "write_relabel_configs:\n"
    "  - source_labels: [__name__]\n"
    "    regex: DCGM_FI_DEV_(GPU_UTIL|POWER_USAGE)\n"
    "    action: keep\n"
    "  - source_labels: [__name__, gpu]\n"
    "    regex: DCGM_FI_DEV_POWER_USAGE;1\n"
    "    action: drop\n"
    "queue_config:\n"
    "  max_samples_per_send: 500\n"
    "  min_backoff: 100ms\n";

static void test_relabel(void **state)
{
    (void)state;
    struct gs_rw_cfg cfg;
    struct gs_err err = { 0 };
    gs_rw_cfg_init(&cfg);
    assert_int_equal(gs_rw_cfg_parse(&cfg, "rw.yml", cfg_text, strlen(cfg_text), &err), 0);
    assert_string_equal(cfg.url, "http://127.0.0.1:9/api/v1/write");
    assert_int_equal(cfg.timeout_ms, 5000);
    assert_int_equal(cfg.max_samples, 500);
    assert_int_equal(cfg.min_backoff_ms, 100);
    assert_int_equal(cfg.nheaders, 1);
    assert_string_equal(cfg.headers[0], "X-Scope-OrgID: team-a");
    assert_non_null(cfg.http);
    assert_string_equal(cfg.http->username, "alice");
    struct gs_rw_enc *e;
    assert_int_equal(gs_rw_enc_new(&e, "h", &cfg, &err), 0);
    gs_rw_enc_gpu(e, &gpu0);
    gs_rw_enc_gpu(e, &gpu1);
    struct gs_rw_row rows[2];
    row(&rows[0], 1000, 0, 10, 2505);
    row(&rows[1], 1000, 1, 20, 1000);
    assert_int_equal(gs_rw_enc_count(e, &rows[0]), 2); /* util and power */
    assert_int_equal(gs_rw_enc_count(e, &rows[1]), 1); /* power of GPU 1 dropped */
    const void *buf;
    size_t len, n;
    assert_int_equal(gs_rw_encode(e, rows, 2, &buf, &len, &n, &err), 0);
    Prometheus__WriteRequest *wr = decode(buf, len);
    assert_int_equal(wr->n_timeseries, 3);
    assert_null(series(wr, "DCGM_FI_DEV_POWER_USAGE", "1"));
    assert_non_null(series(wr, "DCGM_FI_DEV_POWER_USAGE", "0"));
    prometheus__write_request__free_unpacked(wr, NULL);
    gs_rw_enc_free(e);
    gs_rw_cfg_free(&cfg);
}

static void bad(const char *text, const char *want)
{
    struct gs_rw_cfg cfg;
    struct gs_err err = { 0 };
    gs_rw_cfg_init(&cfg);
    assert_true(gs_rw_cfg_parse(&cfg, "rw.yml", text, strlen(text), &err) < 0);
    if (!strstr(err.msg, want))
        fail_msg("'%s' does not say '%s'", err.msg, want);
    gs_rw_cfg_free(&cfg);
}

static void test_config_errors(void **state)
{
    (void)state;
    bad("url: http://x/\nheaders:\n  Content-Encoding: gzip\n", "rw.yml:3: headers: Content-Encoding");
    bad("url: http://x/\nheaders:\n  X-A: \"a\\nb\"\n", "rw.yml:3: X-A:");
    bad("url: http://x/\nwrite_relabel_configs:\n  - action: labeldrop\n", "rw.yml:3: action: 'labeldrop'");
    bad("url: http://x/\nwrite_relabel_configs:\n  - action: keep\n    regex: \"(\"\n", "rw.yml:4: regex:");
    bad("url: http://x/\nwrite_relabel_configs:\n  - action: keep\n    regex: \"a++++\"\n", "rw.yml:4: regex:");
    bad("url: http://x/\nqueue_config:\n  max_shards: 4\n", "rw.yml:3: max_shards:");
    bad("url: http://x/\nqueue_config:\n  max_samples_per_send: 0\n", "rw.yml:3: max_samples_per_send:");
    bad("url: http://x/\nsend_exemplars: true\n", "rw.yml:2: send_exemplars:");
    bad("url: http://x/\nbogus: 1\n", "rw.yml:2: bogus: unknown remote_write key");
    bad("url: http://x/\ntls_config:\n  ca_fil: x\n", "rw.yml:3: ca_fil");
    bad("- url: http://x/\n", "rw.yml:1: remote_write:");
    bad("url: [\n", "rw.yml:");
}

static void test_url_public(void **state)
{
    (void)state;
    char b[128];
    gs_rw_url_public("https://u:p@h:9/api/v1/write", b, sizeof(b));
    assert_string_equal(b, "https://h:9/api/v1/write");
    gs_rw_url_public("http://h/x@y", b, sizeof(b));
    assert_string_equal(b, "http://h/x@y");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_relabel),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_url_public),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
