/* SPDX-License-Identifier: MIT */
/*
 * paths.h - find the files that ship with gpuscope (simulator, scenarios,
 * subcommand modules) whether it runs from the build tree or is installed.
 */
#ifndef GS_PATHS_H
#define GS_PATHS_H

/* Tries, in order: <dir of the running binary>/<rel_build>,
 * <that dir>/../<rel_install>, then GS_PREFIX/<rel_install>.
 * Returns 0 and fills out (len bytes), or -1 when none is readable. */
int gs_path_shipped(const char *rel_build, const char *rel_install, char *out, unsigned len);

#endif /* GS_PATHS_H */
