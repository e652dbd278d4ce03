/* SPDX-License-Identifier: MIT */
/* test_ui_xid.c - top's Xid badges: words for common codes, the per-GPU tally from
 * samples and (for GPUs without a sample, e.g. lost) from the snapshot's events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/model.h"
#include "ui/xid.h"

static void test_words(void **state)
{
    (void)state;
    assert_string_equal(gs_xid_words(79), "fell off the bus");
    assert_string_equal(gs_xid_words(48), "double-bit ECC error");
    assert_true(gs_xid_severe(79));
    assert_true(gs_xid_severe(95));
    assert_false(gs_xid_severe(13));
    assert_false(gs_xid_severe(94));
    assert_null(gs_xid_words(12345));
    assert_false(gs_xid_severe(12345));
}

static void two_gpus(struct gs_snapshot *s)
{
    gs_snapshot_init(s);
    s->ngpus = 2;
    s->gpus = calloc(2, sizeof(*s->gpus));
    assert_non_null(s->gpus);
    s->gpus[0].st.index = 0;
    s->gpus[1].st.index = 1;
}

static void test_tally(void **state)
{
    struct gs_snapshot s;
    struct gs_xid_track t = { 0 };
    char b[96];

    (void)state;
    two_gpus(&s);
    /* GPU 0 samples fine and counts its own Xids; its events must not count twice */
    gs_sample_mark(&s.gpus[0].s, GS_F_XID, GS_ST_OK);
    s.gpus[0].s.xid_count = 2;
    s.gpus[0].s.xid_last = 13;
    s.gpus[0].s.xid_last_ms = 1000;
    s.events[0] = (struct gs_event){ 1000, 0, GS_EV_XID, 13 };
    /* GPU 1 is lost: no sample, only the event says what happened */
    s.gpus[1].state = GS_GPU_LOST;
    s.events[1] = (struct gs_event){ 2000, 1, GS_EV_XID, 79 };
    s.events[2] = (struct gs_event){ 2000, 1, GS_EV_ECC_DBE, 0 };
    s.nevents = 3;
    assert_int_equal(gs_xid_track_update(&t, &s), 0);
    assert_int_equal(t.v[0].count, 2);
    assert_int_equal(t.v[1].count, 1);
    assert_int_equal(t.v[1].last, 79);
    assert_non_null(strstr(gs_xid_badge(&t, 0, b, sizeof(b)), "Xid 13 x2 app error"));
    assert_non_null(strstr(gs_xid_badge(&t, 1, b, sizeof(b)), "Xid 79 fell off the bus"));
    /* next tick: no new events, counts stay */
    s.nevents = 0;
    assert_int_equal(gs_xid_track_update(&t, &s), 0);
    assert_int_equal(t.v[1].count, 1);
    assert_string_equal(gs_xid_badge(&t, 5, b, sizeof(b)), "");
    gs_xid_track_release(&t);
    gs_snapshot_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_words),
        cmocka_unit_test(test_tally),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
