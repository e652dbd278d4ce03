/* SPDX-License-Identifier: MIT */
/* module.c - dlopen() the module of a heavy subcommand (see module.h), checking its ABI stamp (abi.h). */
#include "core/module.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/abi.h"
#include "core/paths.h"

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

/* "gpuscope 0.1.0, headers 0123456789abcdef, layout 0123456789abcdef" */
static void describe(const struct gs_abi_stamp *st, char *buf, size_t len)
{
    snprintf(buf, len, "gpuscope %.*s, headers %.*s, layout %016llx", (int)sizeof(st->version), st->version,
             (int)sizeof(st->headers), st->headers, (unsigned long long)st->layout);
}

static bool stamp_matches(const struct gs_abi_stamp *st)
{
    return st->magic == gs_binary_abi.magic && st->size == gs_binary_abi.size &&
           !memcmp(st->version, gs_binary_abi.version, sizeof(st->version)) &&
           !memcmp(st->headers, gs_binary_abi.headers, sizeof(st->headers)) && st->layout == gs_binary_abi.layout;
}

/* Fill err when the module loaded as h is not from this binary's build. */
static int check_stamp(void *h, const char *name, const char *path, struct gs_err *err)
{
    const struct gs_abi_stamp *st = dlsym(h, GS_ABI_SYMBOL);
    char self[PATH_MAX], mine[128], theirs[128];

    if (st && stamp_matches(st))
        return 0;
    if (gs_path_exe(self, sizeof(self)) < 0)
        snprintf(self, sizeof(self), "(unknown path)");
    describe(&gs_binary_abi, mine, sizeof(mine));
    if (!st)
        snprintf(theirs, sizeof(theirs), "no ABI stamp: built by an older gpuscope");
    else if (st->magic != GS_ABI_MAGIC || st->size != sizeof(*st))
        snprintf(theirs, sizeof(theirs), "an ABI stamp of another format");
    else
        describe(st, theirs, sizeof(theirs));
    gs_err_set(err, GS_E_INTERNAL, "the '%s' module %s does not match this binary %s", name, path, self);
    gs_err_hint(err,
                "module: %s; binary: %s. A module from another build would misread the binary's data, so it "
                "is not loaded: rebuild with 'make', or reinstall ('make install' or the package) so that both "
                "come from one build",
                theirs, mine);
    return -GS_E_INTERNAL;
}

/* dlopen() failed: say why, and whether the module is from another build (a
 * module built against other headers often misses a symbol the binary lost). */
static void explain_dlopen(const char *name, const char *path, const char *why, struct gs_err *err)
{
    void *lazy = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
    if (lazy && check_stamp(lazy, name, path, err) < 0) {
        dlclose(lazy);
        return;
    }
    if (lazy)
        dlclose(lazy);
    gs_err_set(err, GS_E_INTERNAL, "cannot load the '%s' module %s: %s", name, path, why);
    gs_err_hint(err, "install its libraries ('make deps' in the source tree) or rebuild with 'make'");
}

void *gs_module_symbol(const char *name, const char *symbol, struct gs_err *err)
{
    char rel_build[128], rel_install[160], path[PATH_MAX];

    snprintf(rel_build, sizeof(rel_build), "modules/%s.so", name);
    snprintf(rel_install, sizeof(rel_install), "lib/gpuscope/modules/%s.so", name);
    if (gs_path_shipped(rel_build, rel_install, path, sizeof(path)) < 0) {
        gs_err_set(err, GS_E_INTERNAL, "the '%s' module (%s.so) was not found beside the binary or in %s/%s",
                   name, name, GS_PREFIX, "lib/gpuscope/modules");
        gs_err_hint(err, "run 'make' in the source tree, or reinstall gpuscope ('make install')");
        return NULL;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        char why[512];
        snprintf(why, sizeof(why), "%s", dlerror());
        explain_dlopen(name, path, why, err);
        return NULL;
    }
    /* The first module found is the one: a mismatch is refused, never skipped
     * for another copy further down the search path. */
    if (check_stamp(h, name, path, err) < 0) {
        dlclose(h);
        return NULL;
    }
    void *sym = dlsym(h, symbol);
    if (!sym) {
        gs_err_set(err, GS_E_INTERNAL, "the '%s' module %s lacks %s", name, path, symbol);
        gs_err_hint(err, "the module does not match this binary: rebuild with 'make'");
        dlclose(h);
        return NULL;
    }
    return sym; /* the module stays loaded for the life of the process */
}

gs_cmd_fn gs_module_load(const char *name, const char *symbol, struct gs_err *err)
{
    void *sym = gs_module_symbol(name, symbol, err);
    /* POSIX lets a data pointer hold a function address returned by dlsym. */
    gs_cmd_fn fn;
    memcpy(&fn, &sym, sizeof(fn));
    return fn;
}
