/* SPDX-License-Identifier: MIT */
/*
 * devholders.c - /dev/nvidiaN holders from /proc/PID/fd (see devholders.h):
 * readlink on each descriptor of each process, no other reads except the
 * holder's comm. Costs roughly one readlink per open file on the machine, so
 * callers run it only when a GPU looks used with no process listed.
 */
#include "core/devholders.h"
#include "lib/roots.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_comm(const char *root, uint32_t pid, char *out, size_t cap)
{
    char path[300];
    int fd = -1;
    if (gs_path(path, sizeof(path), "%s/%u/comm", root, pid) == 0)
        fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, cap - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        n = 0;
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
}

/* The minor of a "/dev/nvidiaN" link target, or -1 (nvidiactl, nvidia-uvm, other files). */
static int nvidia_minor(const char *target)
{
    if (strncmp(target, "/dev/nvidia", 11) || !isdigit((unsigned char)target[11]))
        return -1;
    char *end;
    long v = strtol(target + 11, &end, 10);
    return *end == '\0' && v >= 0 && v < 64 ? (int)v : -1;
}

static size_t scan_pid(const char *root, uint32_t pid, uint64_t minors, struct gs_dev_holder *out, size_t cap)
{
    char dir[300], link[600], target[64];
    uint64_t seen = 0;
    size_t n = 0;
    if (gs_path(dir, sizeof(dir), "%s/%u/fd", root, pid) < 0)
        return 0;
    DIR *dp = opendir(dir);
    if (!dp)
        return 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL && n < cap) {
        if (e->d_name[0] == '.')
            continue;
        if (gs_path(link, sizeof(link), "%s/%s", dir, e->d_name) < 0)
            continue;
        ssize_t k = readlink(link, target, sizeof(target) - 1);
        if (k <= 0)
            continue;
        target[k] = '\0';
        int m = nvidia_minor(target);
        if (m < 0 || !((minors >> m) & 1) || ((seen >> m) & 1))
            continue;
        seen |= UINT64_C(1) << m;
        out[n].pid = pid;
        out[n].minor = (uint32_t)m;
        read_comm(root, pid, out[n].comm, sizeof(out[n].comm));
        n++;
    }
    closedir(dp);
    return n;
}

size_t gs_dev_holders(const char *proc_root, uint64_t minors, struct gs_dev_holder *out, size_t cap)
{
    const char *root = gs_proc_root(proc_root);
    uint32_t self = (uint32_t)getpid();
    size_t n = 0;
    DIR *dp = opendir(root);
    if (!dp || !minors)
        return dp ? (closedir(dp), 0) : 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL && n < cap) {
        char *end;
        unsigned long pid = strtoul(e->d_name, &end, 10);
        if (!isdigit((unsigned char)e->d_name[0]) || *end || pid == self || pid > UINT32_MAX)
            continue;
        n += scan_pid(root, (uint32_t)pid, minors, out + n, cap - n);
    }
    closedir(dp);
    return n;
}
