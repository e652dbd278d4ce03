/* SPDX-License-Identifier: MIT */
/*
 * fuzz_smi_argv.c - libFuzzer harness for gs_smi_argv (cmd/smi_argv.h), which
 * rewrites nvidia-smi's -lms and -i=0 before query's and smi's option table
 * reads argv. The input is argv, its words separated by NUL bytes.
 * Invariants: at most twice the words plus the terminating NULL; every word
 * out is a word in, the tail of one after its '=', or a row's long name; after
 * a leading "--" nothing is rewritten.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/smi_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXW 64

static int known(const struct gs_cli *cli, char **in, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if (w >= in[i] && w <= in[i] + strlen(in[i]))
            return 1;
    for (size_t k = 0; k < cli->nopts; k++)
        if (cli->opts[k].lng && w == cli->opts[k].lng)
            return 1;
    return 0;
}

static void check(const struct gs_cli *cli, int argc, char **argv)
{
    char **out;
    int n = gs_smi_argv(cli, argc, argv, &out);
    if (n < 0)
        return;
    if (n > 2 * argc || out[n] || out[0] != argv[0])
        abort();
    for (int i = 1; i < n; i++)
        if (!known(cli, argv, argc, out[i]))
            abort();
    if (argc > 1 && !strcmp(argv[1], "--")) {
        if (n != argc)
            abort();
        for (int i = 0; i < argc; i++)
            if (out[i] != argv[i])
                abort();
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf, *argv[MAXW + 1];
    int argc = 0;

    if (size > 4096)
        return 0;
    buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    argv[argc++] = (char *)"query";
    for (size_t i = 0; i <= size && argc < MAXW;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    check(&query_cli, argc, argv);
    check(&smi_cli, argc, argv);
    free(buf);
    return 0;
}
