/* SPDX-License-Identifier: MIT */
/*
 * annotate.c - annotations from a FIFO: a training script writes lines
 * (`echo "epoch 3" > PATH`) and each becomes a `mark` event. Used by
 * `gpuscope record --annotate-fifo PATH` (read between ticks) and
 * `gpuscope mark --from-fifo PATH` (a process of its own).
 * The FIFO is created (mode 0620) when absent and opened read-write, so it
 * never reads end-of-file when a writer closes it; lines are at most 1000
 * bytes (longer ones are cut), empty lines are ignored. A FIFO that another
 * user owns is refused (checked on the opened descriptor, so a symlink or a
 * swap after the check changes nothing): whoever owns it decides who can
 * write annotations into the history, and could read them.
 */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int annot_not_fifo(const char *path, struct gs_err *err)
{
    gs_err_set(err, GS_E_USAGE, "annotation FIFO %s exists and is not a FIFO", path);
    gs_err_hint(err, "Remove it, or name another path: gpuscope creates the FIFO itself.");
    return -GS_E_USAGE;
}

int gs_annot_open(struct gs_annot *a, const char *path, struct gs_err *err)
{
    struct stat sb;
    memset(a, 0, sizeof(*a));
    a->fd = -1;
    if (mkfifo(path, 0620) < 0 && errno != EEXIST)
        return gs_err_set(err, GS_E_IO, "annotation FIFO %s: cannot create it: %s", path, strerror(errno));
    if (stat(path, &sb) == 0 && !S_ISFIFO(sb.st_mode)) /* do not open (and block on) a device */
        return annot_not_fifo(path, err);
    a->fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (a->fd < 0)
        return gs_err_set(err, GS_E_IO, "annotation FIFO %s: cannot open it: %s", path, strerror(errno));
    if (fstat(a->fd, &sb) < 0 || !S_ISFIFO(sb.st_mode)) {
        gs_annot_close(a);
        return annot_not_fifo(path, err);
    }
    if (sb.st_uid != geteuid()) {
        gs_annot_close(a);
        gs_err_set(err, GS_E_PERMISSION, "annotation FIFO %s belongs to another user (uid %u): refused", path,
                   (unsigned)sb.st_uid);
        gs_err_hint(err, "Its owner decides who writes annotations and could read them: remove it, or name a "
                         "path in a directory only you can write (e.g. /run/gpuscope/annotate).");
        return -GS_E_PERMISSION;
    }
    return 0;
}

/* Wait up to timeout_ms (-1: forever) for input; call cb once per complete line.
 * Returns the number of lines, or -1 when interrupted by a signal. */
int gs_annot_poll(struct gs_annot *a, int timeout_ms, void (*cb)(void *ctx, const char *line), void *ctx)
{
    struct pollfd pfd = { .fd = a->fd, .events = POLLIN };
    int rc = poll(&pfd, 1, timeout_ms);
    if (rc < 0)
        return errno == EINTR ? -1 : 0;
    int lines = 0;
    for (;;) {
        ssize_t n = read(a->fd, a->buf + a->len, sizeof(a->buf) - 1 - a->len);
        if (n <= 0)
            break;
        a->len += (size_t)n;
        char *start = a->buf, *nl;
        while ((nl = memchr(start, '\n', a->len - (size_t)(start - a->buf)))) {
            *nl = '\0';
            if (nl > start && nl[-1] == '\r')
                nl[-1] = '\0';
            if (*start) {
                cb(ctx, start);
                lines++;
            }
            start = nl + 1;
        }
        a->len -= (size_t)(start - a->buf);
        memmove(a->buf, start, a->len);
        if (a->len >= sizeof(a->buf) - 1) { /* an over-long line: keep its start */
            a->buf[a->len] = '\0';
            cb(ctx, a->buf);
            lines++;
            a->len = 0;
        }
    }
    return lines;
}

void gs_annot_close(struct gs_annot *a)
{
    if (a->fd >= 0)
        close(a->fd);
    a->fd = -1;
}
