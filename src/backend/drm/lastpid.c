/* SPDX-License-Identifier: MIT */
/*
 * lastpid.c - the kernel's last PID from <proc>/loadavg, which tells the DRM
 * client scan (clients.c) whether a new process can have appeared since /proc
 * was last listed; trusted only where <proc> is our own PID namespace's.
 */
#include "backend/drm/lastpid.h"

#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "backend/drm/sysval.h"

#define LASTPID_PROC_MAGIC 0x9fa0 /* procfs's statfs f_type */

/* The last PID the kernel gave out (loadavg's fifth field), or -1. */
int64_t gs_drm_last_pid(int fd)
{
    char buf[128];
    ssize_t n = fd >= 0 ? gs_sysval_pread(fd, buf, sizeof(buf) - 1) : -1;
    if (n <= 0)
        return -1;
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        n--;
    int64_t v = 0, mul = 1;
    ssize_t i = n;
    for (; i > 0 && buf[i - 1] >= '0' && buf[i - 1] <= '9' && mul <= INT64_C(100000000000); i--, mul *= 10)
        v += (buf[i - 1] - '0') * mul;
    return i < n && i > 0 && buf[i - 1] == ' ' ? v : -1;
}

/* Does <proc>'s loadavg speak for <proc>'s PIDs? Its last PID is the reader's
 * PID namespace's: on procfs, trust it only when <proc> is that namespace's
 * (our own status there shows one NSpid, ours). A fixture tree's writer keeps
 * it for the tree (drmsim). The fd, or -1 (list every tick). */
int gs_drm_open_loadavg(int root_fd)
{
    struct statfs sfs;
    char buf[4096];

    if (fstatfs(root_fd, &sfs) == 0 && sfs.f_type == LASTPID_PROC_MAGIC) {
        int fd = gs_sysval_open(root_fd, "self/status");
        ssize_t n = fd >= 0 ? gs_sysval_pread(fd, buf, sizeof(buf) - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            return -1;
        buf[n] = '\0';
        const char *ns = strstr(buf, "\nNSpid:");
        char *end;
        if (!ns)
            return -1;
        long pid = strtol(ns + 7, &end, 10);
        while (*end == ' ' || *end == '\t')
            end++;
        if (pid != (long)getpid() || *end != '\n')
            return -1;
    }
    int fd = gs_sysval_open(root_fd, "loadavg");
    return fd >= 0 && gs_drm_last_pid(fd) >= 0 ? fd : (fd >= 0 ? close(fd) : 0, -1);
}
