/* SPDX-License-Identifier: MIT */
/*
 * baseline.c - `gpuscope baseline save NAME | diff NAME [--since D]`: option
 * parsing, then src/record/baseline.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "record/record.h"

int cmd_baseline(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    enum { O_DB = 256, O_SINCE, O_FROM, O_TO };
    static const struct option lo[] = { { "db", 1, NULL, O_DB }, { "since", 1, NULL, O_SINCE },
                                        { "from", 1, NULL, O_FROM }, { "to", 1, NULL, O_TO },
                                        { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 } };
    const char *db = NULL, *from = NULL, *to = NULL;
    int64_t now = gs_now_ms(), since = 24 * 3600 * 1000LL, from_ms, to_ms = now;
    int c;
    (void)ctx;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case O_DB: db = optarg; break;
        case O_SINCE:
            if (gs_parse_duration_ms(optarg, &since) < 0) {
                fprintf(stderr, "gpuscope baseline: bad --since '%s'\n", optarg);
                return GS_EXIT_USAGE;
            }
            break;
        case O_FROM: from = optarg; break;
        case O_TO: to = optarg; break;
        case 'h':
            printf("usage: gpuscope baseline save NAME [--since 24h | --from T --to T] [--db FILE]\n"
                   "       gpuscope baseline diff NAME [--since 24h | --from T --to T] [--db FILE]\n\n"
                   "Save per-GPU distributions (utilization, temperature, power, SM clock) as NAME,\n"
                   "or compare a range with them and show what changed.\n");
            return GS_EXIT_OK;
        default: return GS_EXIT_USAGE;
        }
    }
    if (argc - optind != 2 || (strcmp(argv[optind], "save") && strcmp(argv[optind], "diff"))) {
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
    struct gs_err err = { 0 };
    const char *name = argv[optind + 1];
    int rc = !strcmp(argv[optind], "save") ? gs_baseline_save(db, name, from_ms, to_ms, &err)
                                           : gs_baseline_diff(db, name, from_ms, to_ms, stdout, &err);
    if (rc < 0) {
        gs_err_print(&err);
        return err.code == GS_E_USAGE ? GS_EXIT_FAILURE : gs_exit_from_errc(err.code);
    }
    if (!strcmp(argv[optind], "save"))
        printf("baseline '%s' saved\n", name);
    return GS_EXIT_OK;
}
