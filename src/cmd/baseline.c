/* SPDX-License-Identifier: MIT */
/*
 * baseline.c - `gpuscope baseline save NAME | diff NAME [--since D]`: option
 * parsing, then src/record/baseline.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "record/record.h"

struct bargs {
    const char *db, *from, *to, *what, *name;
    int64_t since;
};

static int o_since(void *ctx, const char *const *v, struct gs_err *err)
{
    if (gs_parse_duration_ms(v[0], &((struct bargs *)ctx)->since) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --since '%s'", v[0]);
    return 0;
}

#define S(m) GS_OPT_STORE_STR(struct bargs, m)
static const struct gs_opt baseline_opts[] = {
    { NULL, 0, "save|diff", NULL, "save the range's distributions as NAME, or compare the range with NAME",
      .comp = GS_COMP_CHOICES, S(what) },
    { NULL, 0, "NAME", NULL, "the baseline", S(name) },
    { "--since", 0, "DURATION", o_since, "the range: the last DURATION (default 24h)",
      .man = "The last\n"
        ".Ar DURATION\n"
        "(default 24h)." },
    { "--from", 0, "TIME", NULL, "the range from TIME (as report --from)", S(from),
      .man = "An explicit range, as in\n"
        ".Xr gpuscope-report 1 ." },
    { "--to", 0, "TIME", NULL, "the range up to TIME (default now)", S(to) },
    { "--db", 0, "FILE", NULL, "history database (default: where 'gpuscope record' writes)", .comp = GS_COMP_FILE,
      S(db),
      .man = "The history database (default: where\n"
        ".Xr gpuscope-record 1\n"
        "writes)." },
};
#undef S

const struct gs_cli baseline_cli = {
    .name = "baseline",
    .usage = "gpuscope baseline save NAME [--since 24h | --from T --to T] [--db FILE]\n"
             "gpuscope baseline diff NAME [--since 24h | --from T --to T] [--db FILE]",
    .about = "Save per-GPU distributions (utilization, temperature, power, SM clock) as NAME,\n"
             "or compare a range with them and show what changed.",
    .opts = baseline_opts,
    .nopts = GS_NOPTS(baseline_opts),
};

int cmd_baseline(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct bargs a = { .since = 24 * 3600 * 1000LL };
    struct gs_err err = { 0 };
    int64_t now = gs_now_ms(), from_ms, to_ms = now;
    (void)ctx;
    int rc = gs_cli_parse(&baseline_cli, argc, argv, &a, &err);
    if (rc)
        return rc > 0 ? GS_EXIT_OK : gs_cli_fail(&baseline_cli, &err);
    const char *db = a.db, *from = a.from, *to = a.to;
    int64_t since = a.since;
    if (!a.name || (strcmp(a.what, "save") && strcmp(a.what, "diff"))) {
        fprintf(stderr, "gpuscope baseline: usage: gpuscope baseline save|diff NAME [--since DURATION]\n");
        return GS_EXIT_USAGE;
    }
    char why[256];
    if ((to && gs_parse_time_why(to, now, &to_ms, why, sizeof(why)) < 0)) {
        fprintf(stderr, "gpuscope baseline: bad --to '%s': %s\n", to, why);
        return GS_EXIT_USAGE;
    }
    from_ms = to_ms - since;
    if (from && gs_parse_time_why(from, now, &from_ms, why, sizeof(why)) < 0) {
        fprintf(stderr, "gpuscope baseline: bad --from '%s': %s\n", from, why);
        return GS_EXIT_USAGE;
    }
    const char *name = a.name;
    rc = !strcmp(a.what, "save") ? gs_baseline_save(db, name, from_ms, to_ms, &err)
                                           : gs_baseline_diff(db, name, from_ms, to_ms, stdout, &err);
    if (rc < 0) {
        gs_err_print(&err);
        return err.code == GS_E_USAGE ? GS_EXIT_FAILURE : gs_exit_from_errc(err.code);
    }
    if (!strcmp(a.what, "save"))
        printf("baseline '%s' saved\n", name);
    return GS_EXIT_OK;
}
