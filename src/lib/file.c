/* SPDX-License-Identifier: MIT */
/* file.c - small files read whole in one call (file.h). */
#include "lib/file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

ssize_t gs_file_read_small(const char *path, char *buf, size_t cap)
{
    if (cap == 0) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return -1;
    }
    buf[n] = '\0';
    return n;
}
