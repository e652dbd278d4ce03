/* SPDX-License-Identifier: MIT */
/*
 * kmsg.h - Xid lines from the kernel log: one parser for every format the
 * driver has printed (docs/HEALTH.md, reference health.md 1.2) and a reader of
 * /dev/kmsg (non-blocking, since boot), falling back to `dmesg`, or of a file.
 */
#ifndef GS_KMSG_H
#define GS_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "health/health.h"

/* Parse one log line (any prefix: /dev/kmsg record, dmesg, dmesg -T, journald).
 * Returns 1 and fills x for an Xid line, 2 for a "GPU has fallen off the bus"
 * companion line without an Xid (x->xid = 79; x->continued when the address
 * is on an earlier line of a three-line message), 3 for "RmInitAdapter
 * failed" (x->xid = GS_XID_INIT_FAILED), 0 for anything else. */
int gs_kmsg_parse_line(const char *line, size_t len, struct gs_xid *x);

struct gs_kmsg_log {
    struct gs_xid *v;       /* the Xids, oldest first (bounded: GS_KMSG_MAX) */
    size_t n, cap;
    size_t dropped;         /* Xids beyond the bound */
    size_t lines;           /* lines read */
    char source[64];        /* "/dev/kmsg", "dmesg", or the file name */
    /* the address of a "NVRM: The NVIDIA GPU <bdf>" line, for the next lines */
    uint32_t carry_domain, carry_bus, carry_device;
    int carry_lines;
};
#define GS_KMSG_MAX 4096

/* Read the kernel log: path NULL = /dev/kmsg, then `dmesg`; else that file
 * (a saved dmesg, journal or /dev/kmsg dump). Returns 0 or a negative
 * enum gs_errc (err says why, e.g. no permission: CAP_SYSLOG). */
int gs_kmsg_read(const char *path, struct gs_kmsg_log *log, struct gs_err *err);
/* Parse a buffer of lines into log (used by gs_kmsg_read and the fuzzer). */
void gs_kmsg_parse_buf(struct gs_kmsg_log *log, const char *buf, size_t len);
void gs_kmsg_free(struct gs_kmsg_log *log);

/* Following the kernel log as it grows (watch): what was there at open is
 * skipped, each read takes the new lines without blocking. /dev/kmsg (path
 * NULL) is opened at its end; a file is read from its end on, from its start
 * again when it shrinks (rotated or truncated); a partial last line waits for
 * its newline. */
struct gs_kmsg_tail {
    int fd;
    bool devkmsg;
    long long off;          /* file: bytes consumed */
    char part[8192];        /* file: an unfinished last line */
    size_t plen;
    char source[64];
};
int gs_kmsg_tail_open(struct gs_kmsg_tail *t, const char *path, struct gs_err *err);
/* Append the Xids of the lines added since the last read to log (log->n grows). */
int gs_kmsg_tail_read(struct gs_kmsg_tail *t, struct gs_kmsg_log *log, struct gs_err *err);
void gs_kmsg_tail_close(struct gs_kmsg_tail *t);

#endif /* GS_KMSG_H */
