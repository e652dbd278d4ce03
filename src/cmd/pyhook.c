/* SPDX-License-Identifier: MIT */
/*
 * pyhook.c - `gpuscope pyhook`: the opt-in Python hook from a shell.
 *   env            the lines that make Python processes started from here load it
 *   path           the directory to put on PYTHONPATH
 *   stats PID      PyTorch's allocator figures of a hooked process (--json: as sent)
 *   stacks PID     every thread's Python stack (--json: as sent)
 * src/core/pyhook.c does the talking; docs/PYHOOK.md has the protocol.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/pyhook.h"
#include "lib/bytes.h"
#include "lib/roots.h"

static void pyhook_usage(FILE *out)
{
    fprintf(out,
        "usage: gpuscope pyhook env | path | stats PID [--json] | stacks PID [--json]\n\n"
        "gpuscope's opt-in hook for Python processes: once loaded, a process answers on a\n"
        "socket only its user and root can reach, with PyTorch's CUDA allocator figures\n"
        "(allocated, reserved, cache, peaks, retries, OOMs) and its threads' Python stacks.\n"
        "top, query, serve, record and doctor read them.\n\n"
        "  env          print the shell lines that load it:  eval \"$(gpuscope pyhook env)\"\n"
        "               (or start the job with: gpuscope run --python -- python train.py)\n"
        "  path         the directory to put first on PYTHONPATH\n"
        "  stats PID    ask a hooked process for its allocator figures\n"
        "  stacks PID   ask it for every thread's Python stack\n"
        "  --json       print the answer as the process sent it\n");
}

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

int cmd_pyhook(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    char dir[4096];
    bool json = false;
    (void)ctx;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--json")) {
            json = true;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof(*argv));
            argc--;
            i--;
        }
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        pyhook_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? GS_EXIT_USAGE : GS_EXIT_OK;
    }
    if (!strcmp(argv[1], "env") || !strcmp(argv[1], "path")) {
        if (gs_pyhook_python_dir(dir, sizeof(dir)) < 0) {
            fprintf(stderr, "gpuscope pyhook: the hook's Python files are not installed (python/hook in the source "
                            "tree, share/gpuscope/python-hook when installed)\n");
            return GS_EXIT_FAILURE;
        }
        if (!strcmp(argv[1], "path")) {
            printf("%s\n", dir);
            return GS_EXIT_OK;
        }
        fputs("export PYTHONPATH=", stdout);
        sh_quote(dir);
        fputs("${PYTHONPATH:+:$PYTHONPATH}\nexport GPUSCOPE_PYHOOK=1\n", stdout);
        return GS_EXIT_OK;
    }
    if ((!strcmp(argv[1], "stats") || !strcmp(argv[1], "stacks") || !strcmp(argv[1], "hello")) && argc == 3) {
        char *end;
        unsigned long pid = strtoul(argv[2], &end, 10);
        if (*end || !pid || pid > 0x7fffffff) {
            fprintf(stderr, "gpuscope pyhook: '%s' is not a PID\n", argv[2]);
            return GS_EXIT_USAGE;
        }
        return ask((uint32_t)pid, argv[1], json || !strcmp(argv[1], "hello"));
    }
    pyhook_usage(stderr);
    return GS_EXIT_USAGE;
}
