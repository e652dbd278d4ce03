/* SPDX-License-Identifier: MIT */
/*
 * pyhook.c - `gpuscope pyhook`: the opt-in Python hook from a shell.
 *   env            the lines that make Python processes started from here load it
 *   path           the directory to put on PYTHONPATH
 *   stats PID      PyTorch's allocator figures of a hooked process (--json: as sent)
 *   stacks PID     every thread's Python stack (--json: as sent)
 * Options and operands from its table (cmd/opts.h); src/core/pyhook.c does
 * the talking; docs/PYHOOK.md has the protocol.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "core/pyhook.h"
#include "lib/bytes.h"
#include "lib/roots.h"

/* What the command line says: the action, its PID, --json. */
struct pyargs {
    const char *action; /* env, path, stats, stacks (hello: the raw handshake, for tests) */
    const char *pid;
    bool json;
};

static int o_action(void *ctx, const char *const *v, struct gs_err *err)
{
    static const char *const actions[] = { "env", "path", "stats", "stacks", "hello" };
    for (size_t k = 0; k < sizeof(actions) / sizeof(actions[0]); k++)
        if (!strcmp(v[0], actions[k])) {
            ((struct pyargs *)ctx)->action = actions[k];
            return 0;
        }
    return gs_err_set(err, GS_E_USAGE, "pyhook: unknown action '%s' (env, path, stats PID, stacks PID)", v[0]);
}

static const struct gs_opt pyhook_opts[] = {
    { "--json", 0, NULL, NULL, "print the answer as the process sent it", GS_OPT_STORE_TRUE(struct pyargs, json) },
    { NULL, 0, "env|path|stats|stacks", o_action, "what to do", .comp = GS_COMP_CHOICES,
      .man = "What to do:\n"
             ".Bl -tag -width Ds\n"
             ".It Cm env\n"
             "Print the shell lines that load the hook into processes started afterwards:\n"
             ".Dl eval \\(dq$(gpuscope pyhook env)\\(dq\n"
             ".Xr gpuscope-run 1\n"
             ".Fl -python\n"
             "does the same for one job.\n"
             ".It Cm path\n"
             "Print the directory to put first on\n"
             ".Ev PYTHONPATH .\n"
             ".It Cm stats Ar PID\n"
             "Ask a hooked process for its allocator figures.\n"
             ".It Cm stacks Ar PID\n"
             "Ask it for every thread's Python stack.\n"
             ".El" },
    { NULL, 0, "PID", NULL, "the hooked process (stats, stacks)", GS_OPT_STORE_STR(struct pyargs, pid),
      .man = "The process ID of a hooked process, for\n"
             ".Cm stats\n"
             "and\n"
             ".Cm stacks ." },
};

const struct gs_cli pyhook_cli = {
    .name = "pyhook",
    .usage = "gpuscope pyhook env\ngpuscope pyhook path\ngpuscope pyhook stats PID [--json]\n"
             "gpuscope pyhook stacks PID [--json]",
    .about = "gpuscope's opt-in hook for Python processes: once loaded, a process answers on a\n"
             "socket only its user and root can reach, with PyTorch's CUDA allocator figures\n"
             "(allocated, reserved, cache, peaks, retries, OOMs) and its threads' Python stacks.\n"
             "top, query, serve, record and doctor read them.\n\n"
             "  env          print the shell lines that load it:  eval \"$(gpuscope pyhook env)\"\n"
             "               (or start the job with: gpuscope run --python -- python train.py)\n"
             "  path         the directory to put first on PYTHONPATH\n"
             "  stats PID    ask a hooked process for its allocator figures\n"
             "  stacks PID   ask it for every thread's Python stack",
    .opts = pyhook_opts,
    .nopts = GS_NOPTS(pyhook_opts),
};

/* Single-quoted for sh. */
static void sh_quote(const char *s)
{
    putchar('\'');
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", stdout);
        else
            putchar(*s);
    putchar('\'');
}

static void print_stats(const struct gs_pyhook_stats *s)
{
    char a[32], b[32], c[32], d[32], e[32];
    printf("PID %u: Python %s, %s%s%s\n", s->pid, s->python, s->has_torch ? "torch " : "torch not imported",
           s->has_torch ? s->torch : "", !s->has_torch ? "" : s->cuda_initialized ? ", CUDA initialized" : ", CUDA not initialized");
    printf("  PYTORCH_CUDA_ALLOC_CONF=%s%s\n", s->alloc_conf, s->has_alloc_conf ? "" : "(unset)");
    if (s->has_cvd)
        printf("  CUDA_VISIBLE_DEVICES=%s\n", s->cvd);
    if (s->error[0])
        printf("  the hook could not read torch: %s\n", s->error);
    for (unsigned i = 0; i < s->ndevs; i++) {
        const struct gs_torch_dev *v = &s->devs[i];
        printf("  cuda:%d %s%s%s: allocated %s, reserved %s (cache %s, of which inactive split %s), max allocated %s,"
               " %llu allocation retries, %llu OOMs\n", v->index, v->name, v->uuid[0] ? " " : "", v->uuid,
               gs_fmt_size(v->allocated, a, sizeof(a)), gs_fmt_size(v->reserved, b, sizeof(b)),
               gs_fmt_size(v->reserved - v->allocated, c, sizeof(c)), gs_fmt_size(v->inactive_split, d, sizeof(d)),
               gs_fmt_size(v->max_allocated, e, sizeof(e)),
               (unsigned long long)v->alloc_retries, (unsigned long long)v->ooms);
    }
}

static int ask(uint32_t pid, const char *op, bool json)
{
    char path[64], why[200];
    struct stat st;
    struct gs_err err = { 0 };
    char *reply;
    size_t len;
    if (gs_path(path, sizeof(path), "%s/%u", gs_proc_root(NULL), pid) < 0 || stat(path, &st) < 0) {
        fprintf(stderr, "gpuscope pyhook: no process %u\n", pid);
        return GS_EXIT_FAILURE;
    }
    if (gs_pyhook_request(pid, st.st_uid, op, 3000, &reply, &len, &err) < 0) {
        gs_err_print(&err);
        return GS_EXIT_FAILURE;
    }
    int rc = GS_EXIT_OK;
    if (json) {
        fputs(reply, stdout);
    } else if (!strcmp(op, "stats")) {
        struct gs_pyhook_stats s;
        if (gs_pyhook_parse_stats(reply, len, &s, why, sizeof(why)) < 0) {
            fprintf(stderr, "gpuscope pyhook: process %u answered something else: %s\n", pid, why);
            rc = GS_EXIT_FAILURE;
        } else {
            print_stats(&s);
        }
    } else {
        size_t cap = len + 4096;
        char *text = malloc(cap);
        unsigned n;
        if (!text || gs_pyhook_format_stacks(reply, len, text, cap, &n, why, sizeof(why)) < 0) {
            fprintf(stderr, "gpuscope pyhook: process %u answered something else: %s\n", pid, text ? why : "out of memory");
            rc = GS_EXIT_FAILURE;
        } else {
            printf("PID %u: %u threads\n%s", pid, n, text);
        }
        free(text);
    }
    free(reply);
    return rc;
}

static int env_or_path(const char *action)
{
    char dir[4096];
    if (gs_pyhook_python_dir(dir, sizeof(dir)) < 0) {
        fprintf(stderr, "gpuscope pyhook: the hook's Python files are not installed (python/hook in the source "
                        "tree, share/gpuscope/python-hook when installed)\n");
        return GS_EXIT_FAILURE;
    }
    if (!strcmp(action, "path")) {
        printf("%s\n", dir);
        return GS_EXIT_OK;
    }
    fputs("export PYTHONPATH=", stdout);
    sh_quote(dir);
    fputs("${PYTHONPATH:+:$PYTHONPATH}\nexport GPUSCOPE_PYHOOK=1\n", stdout);
    return GS_EXIT_OK;
}

int cmd_pyhook(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct pyargs a = { 0 };
    struct gs_err err = { 0 };
    (void)ctx;
    int rc = gs_cli_parse(&pyhook_cli, argc, argv, &a, &err);
    if (rc == GS_OPT_DONE)
        return GS_EXIT_OK;
    if (rc < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
    }
    bool env = a.action && (!strcmp(a.action, "env") || !strcmp(a.action, "path"));
    if (!a.action || env == !!a.pid) { /* env and path take no PID; stats and stacks need one */
        gs_cli_help(stderr, &pyhook_cli);
        return GS_EXIT_USAGE;
    }
    if (env)
        return env_or_path(a.action);
    char *end;
    unsigned long pid = strtoul(a.pid, &end, 10);
    if (*end || !pid || pid > 0x7fffffff) {
        fprintf(stderr, "gpuscope pyhook: '%s' is not a PID\n", a.pid);
        return GS_EXIT_USAGE;
    }
    return ask((uint32_t)pid, a.action, a.json || !strcmp(a.action, "hello"));
}
