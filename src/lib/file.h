/* SPDX-License-Identifier: MIT */
/*
 * file.h - small files read whole in one call (sysfs attributes, /proc files,
 * a framework's version file): the one way to do it, NUL-terminated.
 */
#ifndef GS_LIB_FILE_H
#define GS_LIB_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* Up to cap - 1 bytes of path into buf, NUL-terminated; the length, or -1 with
 * errno set (cap must be at least 1). One read: for files the kernel makes in one go. */
ssize_t gs_file_read_small(const char *path, char *buf, size_t cap);

#endif
