/* SPDX-License-Identifier: MIT */
/*
 * mark.c - `gpuscope mark "epoch 3 starts"`: an annotation in the history
 * database at the current time (shown on report time axes). Works while a
 * recorder runs (SQLite WAL: one more short write transaction).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "record/record.h"

int cmd_mark(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    static const struct option lo[] = { { "db", 1, NULL, 'D' }, { "id", 1, NULL, 'i' }, { "at", 1, NULL, 'a' },
                                        { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 } };
    const char *db = NULL;
    char path[1024];
    int c, gpu = -1;
    int64_t t = gs_now_ms();
    (void)ctx;
    while ((c = getopt_long(argc, argv, "i:h", lo, NULL)) != -1) {
        switch (c) {
        case 'D': db = optarg; break;
        case 'i': gpu = (int)strtol(optarg, NULL, 10); break;
        case 'a':
            if (gs_parse_time_ms(optarg, t, &t) < 0) {
                fprintf(stderr, "gpuscope mark: bad --at '%s'\n", optarg);
                return GS_EXIT_USAGE;
            }
            break;
        case 'h':
            printf("usage: gpuscope mark [--db FILE] [-i GPU] [--at TIME] TEXT...\n\n"
                   "Add an annotation (\"epoch 3 starts\") to the history at the current time.\n");
            return GS_EXIT_OK;
        default: return GS_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gpuscope mark: what to write? usage: gpuscope mark TEXT\n");
        return GS_EXIT_USAGE;
    }
    char text[1024] = "";
    for (int i = optind; i < argc; i++) {
        size_t n = strlen(text);
        snprintf(text + n, sizeof(text) - n, "%s%s", i > optind ? " " : "", argv[i]);
    }
    if (!db) {
        if (gs_store_default_path(path, sizeof(path)) < 0) {
            fprintf(stderr, "gpuscope mark: no default database location: pass --db FILE\n");
            return GS_EXIT_USAGE;
        }
        db = path;
    }
    struct gs_store_opts so = { .path = db };
    struct gs_store *st;
    struct gs_err err = { 0 };
    if (gs_store_open(&st, &so, &err) < 0 || gs_store_event(st, t, gpu, "mark", 0, 0, text, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_FAILURE;
    }
    gs_store_close(st);
    return GS_EXIT_OK;
}
