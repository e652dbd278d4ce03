/* SPDX-License-Identifier: MIT */
/*
 * module.h - subcommands that need heavy libraries live in loadable modules.
 *
 * `gpuscope serve` needs libmicrohttpd (and through it GnuTLS and its chain)
 * and `gpuscope top` needs ncursesw. Linking them into the binary costs every
 * run of `gpuscope query` about 2 ms and 4 MiB just to load them, against a
 * one-shot budget of 5 ms and 4 MiB. So those subcommands are built as
 * modules (build/modules/<name>.so, installed in PREFIX/lib/gpuscope/modules)
 * that main() dlopen()s only when that subcommand runs. A module resolves the
 * core's gs_* functions from the executable (linked with -rdynamic).
 */
#ifndef GS_MODULE_H
#define GS_MODULE_H

#include "core/err.h"

struct gs_cmd_ctx;
typedef int (*gs_cmd_fn)(int argc, char **argv, const struct gs_cmd_ctx *ctx);

/* Load module `name` and return its entry point `symbol`, or NULL with err
 * filled (module missing or broken: says where it looked and what to do). */
gs_cmd_fn gs_module_load(const char *name, const char *symbol, struct gs_err *err);

/* Load module `name` (as gs_module_load) and return the address of any symbol it
 * exports, or NULL with err filled. For core commands that use a module's
 * library only sometimes (doctor reads the recorder's SQLite history through
 * record.so when a database exists). The module stays loaded. */
void *gs_module_symbol(const char *name, const char *symbol, struct gs_err *err);

#endif /* GS_MODULE_H */
