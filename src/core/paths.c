/* SPDX-License-Identifier: MIT */
/* paths.c - locate shipped files relative to the running binary (see paths.h). */
#include "core/paths.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

int gs_path_exe(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return 0;
}

static int exe_dir(char *out, size_t len)
{
    if (gs_path_exe(out, len) < 0)
        return -1;
    char *slash = strrchr(out, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

static int try_path(const char *cand, char *out, unsigned len)
{
    if (access(cand, R_OK) != 0)
        return -1;
    return (size_t)snprintf(out, len, "%s", cand) < len ? 0 : -1;
}

int gs_path_shipped(const char *rel_build, const char *rel_install, char *out, unsigned len)
{
    char dir[PATH_MAX];
    char cand[PATH_MAX + 256];

    if (exe_dir(dir, sizeof(dir)) == 0) {
        snprintf(cand, sizeof(cand), "%s/%s", dir, rel_build);
        if (try_path(cand, out, len) == 0)
            return 0;
        snprintf(cand, sizeof(cand), "%s/../%s", dir, rel_install);
        if (try_path(cand, out, len) == 0)
            return 0;
    }
    snprintf(cand, sizeof(cand), "%s/%s", GS_PREFIX, rel_install);
    return try_path(cand, out, len);
}

int gs_path_history_db_for(bool root, const char *user_paths, const char *xdg_state, const char *home, char *buf,
                           size_t len)
{
    int n;

    if (root && !(user_paths && *user_paths))
        n = snprintf(buf, len, "/var/lib/gpuscope/history.db");
    else if (xdg_state && xdg_state[0] == '/') /* the XDG spec: a relative value is ignored */
        n = snprintf(buf, len, "%s/gpuscope/history.db", xdg_state);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.local/state/gpuscope/history.db", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int gs_path_history_db(char *buf, size_t len)
{
    return gs_path_history_db_for(geteuid() == 0, getenv("GPUSCOPE_DB_USER_PATHS"), getenv("XDG_STATE_HOME"),
                                  getenv("HOME"), buf, len);
}
