/* SPDX-License-Identifier: MIT */
/*
 * opts.c - table-driven option parsing and help (opts.h).
 */
#include "cmd/opts.h"

#include <string.h>

static int nvalues(const struct gs_opt *o)
{
    return !o->arg ? 0 : strchr(o->arg, ' ') ? 2 : 1;
}

static const struct gs_opt *find(const struct gs_opt *t, size_t n, const char *a, size_t len)
{
    for (size_t k = 0; k < n; k++) {
        if (strlen(t[k].lng) == len && !strncmp(a, t[k].lng, len))
            return &t[k];
        if (t[k].shrt && len == 2 && a[0] == '-' && a[1] == t[k].shrt)
            return &t[k];
    }
    return NULL;
}

int gs_opts_parse(const struct gs_opt *t, size_t n, int argc, char **argv, void *ctx, const char *cmd,
                  struct gs_err *err)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        size_t len = a[0] == '-' && a[1] == '-' ? strcspn(a, "=") : strlen(a);
        const struct gs_opt *o = find(t, n, a, len);
        if (!o)
            return gs_err_set(err, GS_E_USAGE, "%s: unknown option '%s' (see gpuscope %s --help)", cmd, a, cmd);
        const char *v[2] = { NULL, NULL };
        int need = nvalues(o);
        if (a[len] == '=') {
            if (need != 1)
                return gs_err_set(err, GS_E_USAGE, "%s %s", o->lng, need ? "takes two values" : "takes no value");
            v[0] = a + len + 1;
        } else {
            for (int k = 0; k < need; k++) {
                if (i + 1 >= argc)
                    return gs_err_set(err, GS_E_USAGE, "%s needs %s", o->lng, o->arg);
                v[k] = argv[++i];
            }
        }
        int rc = o->set(ctx, v, err);
        if (rc != 0)
            return rc;
    }
    return 0;
}

void gs_opts_help(FILE *out, const struct gs_opt *t, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char left[64], shrt[8] = "";
        const struct gs_opt *o = &t[k];
        if (o->shrt)
            snprintf(shrt, sizeof(shrt), "-%c, ", o->shrt);
        snprintf(left, sizeof(left), "%s%s%s%s", shrt, o->lng, o->arg ? (strchr(o->arg, ' ') ? " " : "=") : "",
                 o->arg ? o->arg : "");
        fprintf(out, "  %-24s %s\n", left, o->help);
    }
}
