/* SPDX-License-Identifier: MIT */
/*
 * test_paths.c - where the history database lives: one decision
 * (gs_path_history_db, core/paths.h) for every reader and writer. Record's
 * gs_store_default_path and doctor used to decide apart and disagreed as root
 * with GPUSCOPE_DB_USER_PATHS and with a relative XDG_STATE_HOME.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/paths.h"
#include "record/store.h"

struct dbcase {
    bool root;
    const char *user_paths, *xdg, *home; /* NULL: unset */
    const char *want;                    /* NULL: no default (-1) */
};

static const struct dbcase cases[] = {
    { true, NULL, NULL, "/root", "/var/lib/gpuscope/history.db" },
    { true, NULL, "/x/state", "/root", "/var/lib/gpuscope/history.db" },
    { true, "", "/x/state", "/root", "/var/lib/gpuscope/history.db" },
    { true, "1", "/x/state", "/root", "/x/state/gpuscope/history.db" },
    { true, "1", NULL, "/root", "/root/.local/state/gpuscope/history.db" },
    { true, "1", "rel/state", "/root", "/root/.local/state/gpuscope/history.db" },
    { true, "1", NULL, NULL, NULL },
    { false, NULL, "/x/state", "/home/u", "/x/state/gpuscope/history.db" },
    { false, NULL, "rel/state", "/home/u", "/home/u/.local/state/gpuscope/history.db" },
    { false, NULL, "", "/home/u", "/home/u/.local/state/gpuscope/history.db" },
    { false, NULL, NULL, "/home/u", "/home/u/.local/state/gpuscope/history.db" },
    { false, "1", NULL, "/home/u", "/home/u/.local/state/gpuscope/history.db" },
    { false, NULL, "rel/state", "", NULL },
    { false, NULL, NULL, NULL, NULL },
};

static void set_or_unset(const char *name, const char *v)
{
    if (v)
        setenv(name, v, 1);
    else
        unsetenv(name);
}

static void test_history_db_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct dbcase *c = &cases[i];
        char got[256] = "";
        int rc = gs_path_history_db_for(c->root, c->user_paths, c->xdg, c->home, got, sizeof(got));
        if (!c->want) {
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, 0);
        assert_string_equal(got, c->want);
    }
}

/* The record module's answer and the core's (doctor's) are the same in every
 * case this process can be in (its own euid), through the real environment. */
static void test_record_and_doctor_agree(void **state)
{
    (void)state;
    bool root = geteuid() == 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct dbcase *c = &cases[i];
        char core[256] = "", rec[256] = "", want[256] = "";
        set_or_unset("GPUSCOPE_DB_USER_PATHS", c->user_paths);
        set_or_unset("XDG_STATE_HOME", c->xdg);
        set_or_unset("HOME", c->home);
        int rc_want = gs_path_history_db_for(root, c->user_paths, c->xdg, c->home, want, sizeof(want));
        int rc_core = gs_path_history_db(core, sizeof(core));
        int rc_rec = gs_store_default_path(rec, sizeof(rec));
        assert_int_equal(rc_core, rc_want);
        assert_int_equal(rc_rec, rc_want);
        if (rc_want == 0) {
            assert_string_equal(core, want);
            assert_string_equal(rec, want);
        }
    }
}

static void test_history_db_too_long(void **state)
{
    char small[16];
    (void)state;
    assert_int_equal(gs_path_history_db_for(false, NULL, "/x", NULL, small, sizeof(small)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_history_db_table),
        cmocka_unit_test(test_record_and_doctor_agree),
        cmocka_unit_test(test_history_db_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
