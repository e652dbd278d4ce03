/* SPDX-License-Identifier: MIT */
/*
 * lastpid.h - the kernel's last PID from <proc>/loadavg (lastpid.c), for the
 * DRM client scan's "must /proc be listed this tick?" (clients.c).
 */
#ifndef GS_DRM_LASTPID_H
#define GS_DRM_LASTPID_H

#include <stdint.h>

/* The last PID the kernel gave out (loadavg's fifth field) read from fd, or -1. */
int64_t gs_drm_last_pid(int fd);
/* <proc>/loadavg opened under root_fd when its last PID speaks for <proc>'s PIDs,
 * or -1 (then list /proc every tick). */
int gs_drm_open_loadavg(int root_fd);

#endif /* GS_DRM_LASTPID_H */
