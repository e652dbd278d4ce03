/* SPDX-License-Identifier: MIT */
/* paths.c - locate shipped files relative to the running binary (see paths.h). */
#include "core/paths.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

static int exe_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
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
