/* SPDX-License-Identifier: MIT */
/*
 * mark.c - `gpuscope mark "epoch 3 starts"`: an annotation in the history
 * database at the current time (shown on report time axes). Works while a
 * recorder runs (SQLite WAL: one more short write transaction).
 * `gpuscope mark --from-fifo PATH` stays running and turns each line written
 * to the FIFO into an annotation, until SIGINT/SIGTERM.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "record/record.h"

static volatile sig_atomic_t mark_stop;

static void mark_on_signal(int sig)
{
    (void)sig;
    mark_stop = 1;
}

struct mark_ctx { struct gs_store *st; int gpu; int failed; };

static void mark_line(void *ctx, const char *line)
{
    struct mark_ctx *m = ctx;
    struct gs_err err = { 0 };
    if (gs_store_event(m->st, gs_now_ms(), m->gpu, "mark", 0, 0, line, &err) < 0) {
        gs_err_print(&err);
        m->failed++;
    }
}

/* Lines from the FIFO until a signal; those written before it are stored too. */
static int mark_from_fifo(struct gs_store *st, const char *fifo, int gpu)
{
    struct gs_annot a;
    struct gs_err err = { 0 };
    struct mark_ctx m = { st, gpu, 0 };
    if (gs_annot_open(&a, fifo, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_FAILURE;
    }
    struct sigaction sa = { 0 };
    sa.sa_handler = mark_on_signal; /* no SA_RESTART: poll() returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    fprintf(stderr, "gpuscope mark: each line written to %s becomes an annotation (Ctrl-C stops)\n", fifo);
    while (!mark_stop)
        gs_annot_poll(&a, -1, mark_line, &m);
    gs_annot_poll(&a, 0, mark_line, &m);
    gs_annot_close(&a);
    return m.failed ? GS_EXIT_FAILURE : GS_EXIT_OK;
}

static void mark_usage(void)
{
    printf("usage: gpuscope mark [--db FILE] [-i GPU] [--at TIME] TEXT...\n"
           "       gpuscope mark [--db FILE] [-i GPU] --from-fifo PATH\n\n"
           "Add an annotation (\"epoch 3 starts\") to the history at the current time.\n"
           "With --from-fifo, create the FIFO PATH (if absent) and store each line written to it\n"
           "(echo \"epoch 3\" > PATH) until Ctrl-C / SIGTERM.\n");
}

int cmd_mark(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    static const struct option lo[] = { { "db", 1, NULL, 'D' }, { "id", 1, NULL, 'i' }, { "at", 1, NULL, 'a' },
                                        { "from-fifo", 1, NULL, 'F' }, { "help", 0, NULL, 'h' },
                                        { NULL, 0, NULL, 0 } };
    const char *db = NULL, *fifo = NULL;
    char path[1024], why[256];
    int c, gpu = -1;
    int64_t t = gs_now_ms();
    (void)ctx;
    while ((c = getopt_long(argc, argv, "i:h", lo, NULL)) != -1) {
        switch (c) {
        case 'D': db = optarg; break;
        case 'i': gpu = (int)strtol(optarg, NULL, 10); break;
        case 'F': fifo = optarg; break;
        case 'a':
            if (gs_parse_time_why(optarg, t, &t, why, sizeof(why)) < 0) {
                fprintf(stderr, "gpuscope mark: bad --at '%s': %s\n", optarg, why);
                return GS_EXIT_USAGE;
            }
            break;
        case 'h': mark_usage(); return GS_EXIT_OK;
        default: return GS_EXIT_USAGE;
        }
    }
    if (optind >= argc && !fifo) {
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
    if (gs_store_open(&st, &so, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_FAILURE;
    }
    int rc = GS_EXIT_OK;
    if (fifo) {
        rc = mark_from_fifo(st, fifo, gpu);
    } else if (gs_store_event(st, t, gpu, "mark", 0, 0, text, &err) < 0) {
        gs_err_print(&err);
        rc = GS_EXIT_FAILURE;
    }
    gs_store_close(st);
    return rc;
}
