/* SPDX-License-Identifier: MIT */
/* module.c - dlopen() the module of a heavy subcommand (see module.h). */
#include "core/module.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "core/paths.h"

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

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
        gs_err_set(err, GS_E_INTERNAL, "cannot load the '%s' module %s: %s", name, path, dlerror());
        gs_err_hint(err, "install its libraries ('make deps' in the source tree) or rebuild with 'make'");
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
