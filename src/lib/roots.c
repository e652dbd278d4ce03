/* SPDX-License-Identifier: MIT */
/* roots.c - the /proc and /sys roots and path building (roots.h). */
#include "lib/roots.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* An environment variable that is set and not empty, else NULL. */
static const char *env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

const char *gs_proc_root(const char *root)
{
    return root && *root ? root : GS_PROC_DEFAULT;
}

const char *gs_proc_root_env(const char *override)
{
    if (override && *override)
        return override;
    return gs_proc_root(env_set("GPUSCOPE_PROC_ROOT"));
}

const char *gs_sys_root(void)
{
    const char *r = env_set("GPUSCOPE_SYS_ROOT");
    return r ? r : "";
}

int gs_path(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap) {
        if (cap)
            buf[0] = '\0';
        errno = ENAMETOOLONG;
        return -ENAMETOOLONG;
    }
    return 0;
}

int gs_sys_path(char *buf, size_t cap, const char *rel)
{
    return gs_path(buf, cap, "%s/sys/%s", gs_sys_root(), rel);
}
