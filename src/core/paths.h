/* SPDX-License-Identifier: MIT */
/*
 * paths.h - find the files that ship with gpuscope (simulator, scenarios,
 * subcommand modules) whether it runs from the build tree or is installed.
 */
#ifndef GS_PATHS_H
#define GS_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Tries, in order: <dir of the running binary>/<rel_build>,
 * <that dir>/../<rel_install>, then GS_PREFIX/<rel_install>.
 * Returns 0 and fills out (len bytes), or -1 when none is readable. */
int gs_path_shipped(const char *rel_build, const char *rel_install, char *out, unsigned len);

/* The running binary's own path (/proc/self/exe): 0, or -1 when it cannot be read. */
int gs_path_exe(char *out, size_t len);

/* Where the history database lives when no --db is given: the one answer for
 * record, report, run, mark, baseline and doctor (docs/RECORD.md).
 *   root (euid 0), unless $GPUSCOPE_DB_USER_PATHS is set non-empty: /var/lib/gpuscope/history.db;
 *   else $XDG_STATE_HOME/gpuscope/history.db when $XDG_STATE_HOME is absolute (the XDG
 *   Base Directory spec says a relative one is invalid and to be ignored);
 *   else $HOME/.local/state/gpuscope/history.db.
 * Returns 0 and fills buf, or -1 when none applies (no HOME) or buf is too small. */
int gs_path_history_db(char *buf, size_t len);
/* The same decision from explicit inputs (gs_path_history_db passes geteuid() == 0
 * and the three variables): for tests. */
int gs_path_history_db_for(bool root, const char *user_paths, const char *xdg_state, const char *home, char *buf,
                           size_t len);

#endif /* GS_PATHS_H */
