/* SPDX-License-Identifier: MIT */
/*
 * mark.c - `gpuscope mark "epoch 3 starts"`: an annotation in the history
 * database at the current time (shown on report time axes). Works while a
 * recorder runs (SQLite WAL: one more short write transaction).
 * `gpuscope mark --from-fifo PATH` stays running and turns each line written
 * to the FIFO into an annotation, until SIGINT/SIGTERM.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
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

struct margs {
    const char *db, *fifo;
    long gpu;
    int64_t t;
    char text[1024];
    bool words; /* TEXT was given */
};

#define M ((struct margs *)ctx)
static int o_id(void *ctx, const char *const *v, struct gs_err *err)
{
    return gs_opt_long("--id", v[0], 0, 1023, &M->gpu, err);
}
static int o_at(void *ctx, const char *const *v, struct gs_err *err)
{
    char why[256];
    if (gs_parse_time_why(v[0], M->t, &M->t, why, sizeof(why)) < 0)
        return gs_err_set(err, GS_E_USAGE, "bad --at '%s': %s", v[0], why);
    return 0;
}
/* The words of TEXT, joined by spaces. */
static int o_word(void *ctx, const char *const *v, struct gs_err *err)
{
    size_t n = strlen(M->text);
    (void)err;
    snprintf(M->text + n, sizeof(M->text) - n, "%s%s", M->words ? " " : "", v[0]);
    M->words = true;
    return 0;
}
#undef M

static const struct gs_opt mark_opts[] = {
    { NULL, 0, "TEXT", o_word, "the annotation (several words are joined by spaces)", .flags = GS_OPT_REPEAT },
    { "--db", 0, "FILE", NULL, "history database (default: where 'gpuscope record' writes)", .comp = GS_COMP_FILE,
      GS_OPT_STORE_STR(struct margs, db),
      .man = "The history database (default: where\n"
        ".Xr gpuscope-record 1\n"
        "writes)." },
    { "--id", 'i', "GPU", o_id, "the annotation belongs to this GPU (default: the whole machine)",
      .comp = GS_COMP_GPU,
      .man = "The annotation belongs to this GPU (default: the whole machine)." },
    { "--at", 0, "TIME", o_at, "stamp it at TIME instead of now (as report --from)",
      .man = "Stamp it at\n"
        ".Ar TIME\n"
        "instead of now." },
    { "--from-fifo", 0, "PATH", NULL, "create the FIFO PATH (if absent) and store each line written to it\n"
      "(echo \"epoch 3\" > PATH) until Ctrl-C / SIGTERM", .comp = GS_COMP_FILE,
      GS_OPT_STORE_STR(struct margs, fifo),
      .man = "Create the FIFO\n"
        ".Ar PATH\n"
        "when absent, and store each line written to it until\n"
        ".Dv SIGINT\n"
        "or\n"
        ".Dv SIGTERM ." },
};

const struct gs_cli mark_cli = {
    .name = "mark",
    .usage = "gpuscope mark [--db FILE] [-i GPU] [--at TIME] TEXT...\n"
             "gpuscope mark [--db FILE] [-i GPU] --from-fifo PATH",
    .about = "Add an annotation (\"epoch 3 starts\") to the history at the current time.",
    .opts = mark_opts,
    .nopts = GS_NOPTS(mark_opts),
};

int cmd_mark(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct margs a = { .gpu = -1, .t = gs_now_ms() };
    struct gs_err err = { 0 };
    char path[1024];
    (void)ctx;
    int prc = gs_cli_parse(&mark_cli, argc, argv, &a, &err);
    if (prc)
        return prc > 0 ? GS_EXIT_OK : gs_cli_fail(&mark_cli, &err);
    const char *db = a.db, *fifo = a.fifo;
    int gpu = (int)a.gpu;
    if (!a.words && !fifo) {
        fprintf(stderr, "gpuscope mark: what to write? usage: gpuscope mark TEXT\n");
        return GS_EXIT_USAGE;
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
    if (gs_store_open(&st, &so, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_FAILURE;
    }
    int rc = GS_EXIT_OK;
    if (fifo) {
        rc = mark_from_fifo(st, fifo, gpu);
    } else if (gs_store_event(st, a.t, gpu, "mark", 0, 0, a.text, &err) < 0) {
        gs_err_print(&err);
        rc = GS_EXIT_FAILURE;
    }
    gs_store_close(st);
    return rc;
}
