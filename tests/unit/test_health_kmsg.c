/* SPDX-License-Identifier: MIT */
/* test_health_kmsg.c - the kernel-log Xid parser on the corpus tests/fixtures/kmsg/
 * (every documented format plus noise), single lines, and the Xid catalog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "health/health.h"
#include "health/kmsg.h"

struct want {
    uint32_t xid, dom, bus, dev, pid;
    const char *name;
    int gi, ci;
    const char *msg_prefix;
};

static const struct want corpus[] = {
    { 13, 0, 0x18, 0, 4242, "python", -1, -1, "Graphics SM Warp Exception" },
    { 43, 0, 0x18, 0, 4242, "python", -1, -1, "Ch 00000008" },
    { 31, 0, 0x2a, 0, 1946, "train.py", -1, -1, "channel 0x00000002" },
    { 94, 4, 0x01, 0, 777, "vllm", 5, -1, "Contained: CE User Channel" },
    { 95, 8, 0x02, 0, 0, "", 3, 1, "Uncontained: LTC TAG" },
    { 79, 0, 0x3a, 0, 3311, "python3", -1, -1, "GPU has fallen off the bus." },
    { 154, 0, 0x3a, 0, 3311, "python3", -1, -1, "GPU recovery action changed" },
    { 14, 0, 0x03, 0, 0, "", -1, -1, "Channel 00000001" },
    { 32, 0, 0x03, 0, 0, "", -1, -1, "Channel ID 00000005" },
    { 31, 0, 0x03, 0, 0, "", -1, -1, "Ch 00000010, engmask 00000101" },
    { 43, 0, 0x03, 0, 0, "", -1, -1, "Ch 00000020" },
    { 48, 0, 0x5d, 0, 0, "", -1, -1, "An uncorrectable double bit error" },
    { 63, 0, 0x5d, 0, 901, "python", -1, -1, "Row Remapper" },
    { 119, 0x18, 0x00, 0, 5501, "nvidia-smi", -1, -1, "Timeout after 6s" },
    { 74, 0, 0x9a, 0, 1200, "torchrun", -1, -1, "NVLink: fatal error" },
    { 79, 0, 0x01, 0, 0, "", -1, -1, "GPU has fallen off the bus." },
    { 79, 0, 0xab, 0, 0, "", -1, -1, "GPU has fallen off the bus." },
    { GS_XID_INIT_FAILED, 0, 0xd8, 0, 0, "", -1, -1, "RmInitAdapter failed! (0x26:0xffff:1227)" },
};

/* tests/fixtures/kmsg/public-reports.txt: lines from public bug reports (sources in the file). */
static const struct want reports[] = {
    { 79, 0, 0xb3, 0, 0, "", -1, -1, "GPU has fallen off the bus." },  /* three-line form, address on line 1 */
    { GS_XID_INIT_FAILED, 0, 0x0a, 0, 0, "", -1, -1, "RmInitAdapter failed! (0x24:0x72:1568)" },
    { GS_XID_INIT_FAILED, 0, 0x0a, 0, 0, "", -1, -1, "RmInitAdapter failed!" },
    { GS_XID_INIT_FAILED, 0, 0x98, 0, 0, "", -1, -1, "RmInitAdapter failed! (0x62:0x65:1792)" },
    { 119, 0, 0x61, 0, 1346198, "nvidia-smi", -1, -1, "Timeout waiting for RPC from GSP!" },
    { 119, 0, 0x61, 0, 1346198, "nvidia-smi", -1, -1, "Timeout waiting for RPC from GSP!" },
    { 79, 0, 0x44, 0, 0, "", -1, -1, "GPU has fallen off the bus." },
};

static void check_file(const char *path, size_t lines, const struct want *want, size_t nwant)
{
    struct gs_kmsg_log log = { 0 };
    struct gs_err err = { 0 };
    assert_int_equal(gs_kmsg_read(path, &log, &err), 0);
    assert_int_equal(log.lines, lines);
    assert_int_equal(log.n, nwant);
    for (size_t i = 0; i < log.n; i++) {
        const struct gs_xid *x = &log.v[i];
        const struct want *w = &want[i];
        assert_int_equal(x->xid, w->xid);
        assert_true(x->has_pci);
        assert_int_equal(x->pci_domain, w->dom);
        assert_int_equal(x->pci_bus, w->bus);
        assert_int_equal(x->pci_device, w->dev);
        assert_int_equal(x->pid, w->pid);
        assert_string_equal(x->name, w->name);
        assert_int_equal(x->gi, w->gi);
        assert_int_equal(x->ci, w->ci);
        assert_memory_equal(x->msg, w->msg_prefix, strlen(w->msg_prefix));
    }
    gs_kmsg_free(&log);
}

static void test_corpus(void **state)
{
    (void)state;
    check_file("tests/fixtures/kmsg/formats.txt", 29, corpus, sizeof(corpus) / sizeof(corpus[0]));
    check_file("tests/fixtures/kmsg/public-reports.txt", 20, reports, sizeof(reports) / sizeof(reports[0]));
}

/* /dev/kmsg keeps a multi-line message in one record, newlines escaped. */
static void test_kmsg_record_multiline(void **state)
{
    static const char rec[] = "3,812,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) "
                              "installed in this system has\\x0aNVRM: fallen off the bus and is not responding to commands.";
    struct gs_xid x;
    (void)state;
    assert_int_equal(gs_kmsg_parse_line(rec, strlen(rec), &x), 2);
    assert_int_equal(x.xid, 79);
    assert_true(x.has_pci);
    assert_int_equal(x.pci_bus, 0xb3);
}

static void test_timestamps(void **state)
{
    struct gs_xid x;
    const char *a = "[  130.456250] [  T1946] NVRM: Xid (PCI:0000:2a:00): 31, pid=1, name=a, m";
    const char *b = "6,2231,1500123456,-;NVRM: Xid (PCI:0000:3a:00): 79, GPU has fallen off the bus.";
    const char *c = "Feb 01 14:25:31 host kernel: NVRM: Xid (PCI:0000:3a:00): 79, GPU has fallen off the bus.";
    (void)state;
    assert_int_equal(gs_kmsg_parse_line(a, strlen(a), &x), 1);
    assert_true(x.ts_s > 130.45 && x.ts_s < 130.46);
    assert_int_equal(gs_kmsg_parse_line(b, strlen(b), &x), 1);
    assert_true(x.ts_s > 1500.12 && x.ts_s < 1500.13);
    assert_int_equal(x.pid, 0); /* pid/name absent on this driver */
    assert_string_equal(x.msg, "GPU has fallen off the bus.");
    assert_int_equal(gs_kmsg_parse_line(c, strlen(c), &x), 1);
    assert_true(x.ts_s < 0);
}

static void test_noise_and_garbage(void **state)
{
    static const char *const lines[] = {
        "", "NVRM", "NVRM: Xid (", "NVRM: Xid ()", "NVRM: Xid (PCI:0000:18:00): ", "NVRM: Xid (x): -3, a",
        "NVRM: Xid (PCI:0000:18:00): 12345678, overlong code", "random line mentioning Xid 79",
        "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32",
        "NVRM: GPU 0000:d8:00.0: rm_init_adapter failed, device minor number 0", /* the companion line */
    };
    struct gs_xid x;
    (void)state;
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        assert_int_equal(gs_kmsg_parse_line(lines[i], strlen(lines[i]), &x), 0);
    /* a location without PCI still yields the code */
    const char *odd = "NVRM: Xid (GPU-deadbeef): 45, pid=1, name=x, Ch 00000001";
    assert_int_equal(gs_kmsg_parse_line(odd, strlen(odd), &x), 1);
    assert_int_equal(x.xid, 45);
    assert_false(x.has_pci);
    /* RmInitAdapter with and without an address */
    const char *init = "NVRM: GPU 0000:d8:00.0: RmInitAdapter failed! (0x26:0xffff:1227)";
    assert_int_equal(gs_kmsg_parse_line(init, strlen(init), &x), 3);
    assert_int_equal(x.pci_bus, 0xd8);
    const char *init_old = "NVRM: RmInitAdapter failed! (0x26:0xffff:1227)";
    assert_int_equal(gs_kmsg_parse_line(init_old, strlen(init_old), &x), 3);
    assert_false(x.has_pci);
}

/* A line is not NUL-terminated: numbers that run to the end of the buffer must not be read past it
 * (fuzz_kmsg found strtoul doing so). Each text is placed at the very end of a page followed by an
 * inaccessible one, so a read past the end faults. */
static void test_numbers_at_buffer_end(void **state)
{
    (void)state;
    static const char *texts[] = {
        "NVRM: GPU 0000:18:00",                       /* the address's device digits end the buffer */
        "NVRM: GPU 0000:18:0000000",                  /* 7 digits then the end */
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=12345",  /* the pid's digits end it */
        "NVRM: Xid (PCI:0000:3b:00 GPU-I:12345",      /* a MIG tag's digits end it */
        "[ 12345.678",                                 /* a timestamp without its bracket */
        "[ 12345.678] NVRM: GPU 0000:18:00.0: GPU has fallen off the bus. 0000:1",
    };
    long page = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(m != MAP_FAILED);
    assert_int_equal(mprotect(m + page, (size_t)page, PROT_NONE), 0);
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        size_t n = strlen(texts[i]);
        char *p = m + page - n;
        memcpy(p, texts[i], n);
        struct gs_kmsg_log log = { 0 };
        gs_kmsg_parse_buf(&log, p, n);
        gs_kmsg_free(&log);
    }
    /* and what is found at the very end is still read right */
    const char *fallen = "NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.";
    size_t n = strlen(fallen);
    memcpy(m + page - n, fallen, n);
    struct gs_kmsg_log log = { 0 };
    gs_kmsg_parse_buf(&log, m + page - n, n);
    assert_int_equal(log.n, 1);
    assert_int_equal(log.v[0].xid, 79);
    assert_true(log.v[0].has_pci);
    assert_int_equal(log.v[0].pci_bus, 0x18);
    gs_kmsg_free(&log);
    munmap(m, (size_t)page * 2);
}

static void test_catalog(void **state)
{
    (void)state;
    const struct gs_xid_info *x = gs_xid_lookup(79);
    assert_non_null(x);
    assert_int_equal(x->severity, GS_SEV_CRITICAL);
    assert_non_null(gs_xid_lookup(8));
    assert_non_null(gs_xid_lookup(158));
    assert_int_equal(gs_xid_lookup(43)->severity, GS_SEV_INFO);
    assert_int_equal(gs_xid_lookup(94)->severity, GS_SEV_WARNING);
    assert_null(gs_xid_lookup(185));
    assert_null(gs_xid_lookup(0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_kmsg_record_multiline),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_noise_and_garbage),
        cmocka_unit_test(test_numbers_at_buffer_end),
        cmocka_unit_test(test_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
