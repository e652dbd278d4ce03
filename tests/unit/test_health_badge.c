/* SPDX-License-Identifier: MIT */
/* test_health_badge.c - findings in plain words (health/badge.c) and top's per-GPU
 * health badges (ui/hbadge.c): the worst finding per GPU, "+N" for the rest, findings
 * the LOST/Xid/ECC badges show left out, and the dirty flag that makes top redraw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"
#include "ui/hbadge.h"

static struct gs_finding mk(enum gs_sev sev, int32_t gpu, uint32_t pid, const char *code)
{
    struct gs_finding f;
    memset(&f, 0, sizeof(f));
    f.severity = (uint8_t)sev;
    f.gpu = gpu;
    f.pid = pid;
    snprintf(f.code, sizeof(f.code), "%s", code);
    return f;
}

static void test_words(void **state)
{
    char b[64];
    (void)state;
    struct gs_finding f = mk(GS_SEV_WARNING, 0, 0, "thermal.hw_slowdown");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "HW slowdown");
    f = mk(GS_SEV_WARNING, 1, 1234, "proc.memory_leak");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "memory leak pid 1234");
    f = mk(GS_SEV_WARNING, 1, 0, "ecc.remap_pending");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "row remap pending");
    f = mk(GS_SEV_CRITICAL, 1, 0, "xid.79");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "Xid 79 fell off the bus");
    f = mk(GS_SEV_WARNING, 1, 0, "xid.99999");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "Xid 99999 (see the Xid catalog)");
    f = mk(GS_SEV_CRITICAL, GS_NO_GPU, 0, "driver.version_mismatch");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "driver: version_mismatch");
    f = mk(GS_SEV_INFO, 0, 0, "new.check");
    assert_string_equal(gs_finding_words(&f, b, sizeof(b)), "new.check");
    assert_string_equal(gs_finding_words(&f, b, 4), "new");
}

static void test_badges(void **state)
{
    struct gs_snapshot s;
    struct gs_hbadges hb = { 0 };
    struct gs_findings f = { 0 };
    (void)state;
    gs_snapshot_init(&s);
    s.ngpus = 3;
    s.gpus = calloc(3, sizeof(*s.gpus));
    assert_non_null(s.gpus);
    for (uint32_t i = 0; i < 3; i++)
        s.gpus[i].st.index = i;
    /* sorted worst first, as gs_health_eval leaves them */
    *gs_findings_add(&f) = mk(GS_SEV_CRITICAL, 1, 0, "xid.79");          /* shown by the Xid badge */
    *gs_findings_add(&f) = mk(GS_SEV_CRITICAL, 1, 0, "gpu.lost");        /* shown by the LOST badge */
    *gs_findings_add(&f) = mk(GS_SEV_CRITICAL, 2, 0, "ecc.remap_failed");
    *gs_findings_add(&f) = mk(GS_SEV_WARNING, GS_NO_GPU, 0, "gpu.count_low");
    *gs_findings_add(&f) = mk(GS_SEV_WARNING, 0, 0, "thermal.hw_slowdown");
    *gs_findings_add(&f) = mk(GS_SEV_WARNING, 0, 4321, "proc.memory_leak");
    *gs_findings_add(&f) = mk(GS_SEV_WARNING, 2, 7, "proc.input_stall");
    assert_int_equal(gs_hbadges_update(&hb, &s, &f), 0);
    assert_int_equal(hb.n, 3);
    assert_string_equal(hb.v[0].text, "HW slowdown +1");
    assert_int_equal(hb.v[0].severity, GS_SEV_WARNING);
    assert_string_equal(hb.v[1].text, "");
    assert_int_equal(hb.v[1].severity, GS_SEV_NONE);
    assert_string_equal(hb.v[2].text, "row remap failed +1");
    assert_int_equal(hb.v[2].severity, GS_SEV_CRITICAL);
    assert_int_equal(hb.total, 7);
    assert_int_equal(hb.worst, GS_SEV_CRITICAL);
    assert_true(hb.v[0].dirty && hb.v[1].dirty && hb.v[2].dirty);

    /* the same findings again: nothing to redraw; one gone: only that GPU */
    for (uint32_t i = 0; i < 3; i++)
        hb.v[i].dirty = false;
    gs_hbadges_update(&hb, &s, &f);
    assert_false(hb.v[0].dirty || hb.v[1].dirty || hb.v[2].dirty);
    f.v[5] = f.v[6];
    f.n--;
    gs_hbadges_update(&hb, &s, &f);
    assert_string_equal(hb.v[0].text, "HW slowdown");
    assert_true(hb.v[0].dirty);
    assert_false(hb.v[1].dirty || hb.v[2].dirty);

    /* no findings: every badge empty */
    gs_findings_clear(&f);
    gs_hbadges_update(&hb, &s, &f);
    assert_string_equal(hb.v[2].text, "");
    assert_int_equal(hb.total, 0);
    gs_hbadges_release(&hb);
    gs_findings_free(&f);
    gs_snapshot_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_badges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
