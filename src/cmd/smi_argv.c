/* SPDX-License-Identifier: MIT */
/*
 * smi_argv.c - nvidia-smi's option spellings into the table parser's
 * (smi_argv.h). nvidia-smi reads "-lms 500" as one option and "-i=0" as -i
 * with the value 0; getopt-style parsers, cmd/opts.c's among them, read
 * "-l" "ms" and "-i" "=0". Scripts written for nvidia-smi use both.
 */
#include "cmd/smi_argv.h"

#include <stdlib.h>
#include <string.h>

/* The row for the option named by a (up to '=' when it has one), or NULL. */
static const struct gs_opt *row_of(const struct gs_cli *cli, const char *a)
{
    size_t len = strcspn(a, "=");
    for (size_t k = 0; k < cli->nopts; k++) {
        const struct gs_opt *o = &cli->opts[k];
        if (!o->lng)
            continue;
        if (strlen(o->lng) == len && !strncmp(o->lng, a, len))
            return o;
        if (len == 2 && a[0] == '-' && a[1] == o->shrt && a[1] != '-')
            return o;
    }
    return NULL;
}

/* The value-taking row with "--NAME" standing for "-lms" ("-lms" -> "--loop-ms"). */
static const char *multi_short(const char *a, size_t len)
{
    return len == 4 && !strncmp(a, "-lms", 4) ? "--loop-ms" : NULL;
}

int gs_smi_argv(const struct gs_cli *cli, int argc, char **argv, char ***out)
{
    char **v = malloc(((size_t)argc * 2 + 1) * sizeof(*v));
    int n = 0;
    if (!v)
        return -1;
    v[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t len = strcspn(a, "=");
        const char *lng = multi_short(a, len);
        const struct gs_opt *o = row_of(cli, lng ? lng : a);
        if (!strcmp(a, "--")) {
            while (i < argc)
                v[n++] = argv[i++];
            break;
        }
        if (o && o->arg && (lng || (a[1] != '-' && a[len] == '='))) {
            v[n++] = (char *)o->lng; /* "-lms" -> "--loop-ms"; "-i=0" -> "--id" "0" */
            if (a[len] == '=')
                v[n++] = argv[i] + len + 1;
            else if (i + 1 < argc)
                v[n++] = argv[++i];
            continue;
        }
        v[n++] = argv[i];
        if (o && o->arg && !(o->flags & GS_OPT_OPTIONAL) && !a[len] && i + 1 < argc)
            v[n++] = argv[++i]; /* the value of "-i 0" or "--id 0": left alone */
    }
    v[n] = NULL;
    *out = v;
    return n;
}
