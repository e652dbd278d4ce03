/* SPDX-License-Identifier: MIT */
/*
 * roots.h - where /proc and /sys are, and paths built under them. Tests and
 * containers move both: $GPUSCOPE_PROC_ROOT replaces /proc; $GPUSCOPE_SYS_ROOT
 * is a prefix under which every sysfs reader (DRM, the PCI scan, NVML's slot
 * lookup) finds sys/ (and the DRM backend usr/share/libdrm/). One name, one
 * meaning: a root holds sys/, as a container's or a chroot's does. An empty
 * variable counts as unset. A path is built whole or not
 * at all: one that does not fit its buffer is an error, never a cut path.
 * Roots are returned borrowed (the environment's or a static string), without
 * a trailing slash added or removed.
 */
#ifndef GS_LIB_ROOTS_H
#define GS_LIB_ROOTS_H

#include <stddef.h>

#define GS_PROC_DEFAULT "/proc"

/* A module's proc_root option: root when non-NULL and non-empty, else "/proc".
 * For code that is handed its root (hostproc, DRM clients, health checks). */
const char *gs_proc_root(const char *root);
/* The root a command or the sampler reads: override (a proc_root option) when
 * non-empty, else $GPUSCOPE_PROC_ROOT when non-empty, else "/proc". */
const char *gs_proc_root_env(const char *override);
/* $GPUSCOPE_SYS_ROOT, or "" for the real one: /sys is "<root>/sys". */
const char *gs_sys_root(void);

/* printf into buf (cap bytes). Returns 0, or -ENAMETOOLONG (errno set, buf "")
 * when the path would not fit: a cut path must never be opened. */
int gs_path(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "<gs_sys_root()>/sys/<rel>" into buf; 0 or -ENAMETOOLONG as gs_path. */
int gs_sys_path(char *buf, size_t cap, const char *rel);

#endif
