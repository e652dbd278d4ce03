/* SPDX-License-Identifier: MIT */
/*
 * sysval.c - sysfs text values: parsers and fd readers (see sysval.h).
 * Formats: the kernel's Documentation/ABI/testing/sysfs-bus-pci (link
 * speed), Documentation/gpu/amdgpu/thermal.rst (pp_dpm_*), amdgpu_ras.c
 * (err_count, gpu_vram_bad_pages), Documentation/hwmon/sysfs-interface.rst
 * (plain decimal numbers in milli-units).
 */
#include "backend/drm/sysval.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

/* ---- parsers ---------------------------------------------------------------------- */

static bool sv_blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool sv_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Digits at text[*i..] into *out (overflow fails); at least one digit. */
static int sv_digits(const char *text, size_t len, size_t *i, uint64_t *out)
{
    uint64_t v = 0;
    size_t start = *i;

    while (*i < len && sv_digit(text[*i])) {
        unsigned d = (unsigned)(text[*i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
        (*i)++;
    }
    if (*i == start)
        return -1;
    *out = v;
    return 0;
}

/* Only blanks and one optional trailing newline from i to len (a NUL ends it). */
static bool sv_rest_empty(const char *text, size_t len, size_t i)
{
    while (i < len && sv_blank(text[i]))
        i++;
    if (i < len && text[i] == '\n')
        i++;
    return i >= len || text[i] == '\0';
}

int gs_sysval_u64(const char *text, size_t len, uint64_t *out)
{
    size_t i = 0;

    while (i < len && sv_blank(text[i]))
        i++;
    if (sv_digits(text, len, &i, out) < 0 || !sv_rest_empty(text, len, i))
        return -1;
    return 0;
}

int gs_sysval_i64(const char *text, size_t len, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    uint64_t v;

    while (i < len && sv_blank(text[i]))
        i++;
    if (i < len && (text[i] == '-' || text[i] == '+'))
        neg = text[i++] == '-';
    if (sv_digits(text, len, &i, &v) < 0 || !sv_rest_empty(text, len, i))
        return -1;
    if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return -1;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int gs_sysval_hex(const char *text, size_t len, uint32_t *out)
{
    size_t i = 0;
    uint64_t v = 0;
    size_t start;

    while (i < len && sv_blank(text[i]))
        i++;
    if (i + 1 < len && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X'))
        i += 2;
    for (start = i; i < len; i++) {
        char c = text[i];
        unsigned d;
        if (sv_digit(c))
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        v = v * 16 + d;
        if (v > UINT32_MAX)
            return -1;
    }
    if (i == start || !sv_rest_empty(text, len, i))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int gs_sysval_line(const char *text, size_t len, char *out, size_t cap)
{
    size_t n = 0;

    if (!cap)
        return -1;
    while (n < len && text[n] != '\n' && text[n] != '\0')
        n++;
    while (n > 0 && sv_blank(text[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(out, text, n);
    out[n] = '\0';
    return n ? 0 : -1;
}

/* One pp_dpm line "<idx|S>: <mhz>Mhz [*]" from text[*i..]; advances past it. */
static int sv_dpm_line(const char *text, size_t len, size_t *i, struct gs_dpm *d)
{
    size_t p = *i;
    uint64_t idx = 0, mhz;
    bool sleep = false;

    while (*i < len && text[*i] != '\n')
        (*i)++;
    size_t end = *i;
    if (*i < len)
        (*i)++;
    while (p < end && sv_blank(text[p]))
        p++;
    if (p == end)
        return 0; /* a blank line */
    if (text[p] == 'S')
        sleep = true, p++;
    else if (sv_digits(text, end, &p, &idx) < 0)
        return -1;
    if (p >= end || text[p++] != ':')
        return -1;
    while (p < end && sv_blank(text[p]))
        p++;
    if (sv_digits(text, end, &p, &mhz) < 0 || mhz > UINT32_MAX)
        return -1;
    if (end - p < 3 || strncasecmp(text + p, "mhz", 3) != 0)
        return -1;
    p += 3;
    while (p < end && sv_blank(text[p]))
        p++;
    bool star = p < end && text[p] == '*';
    if (star) {
        d->cur_mhz = (uint32_t)mhz;
        d->has_cur = 1;
    }
    if (!sleep) {
        if (!d->nlevels || mhz < d->min_mhz)
            d->min_mhz = (uint32_t)mhz;
        if (!d->nlevels || mhz > d->max_mhz)
            d->max_mhz = (uint32_t)mhz;
        d->nlevels++;
    }
    return 0;
}

int gs_sysval_dpm(const char *text, size_t len, struct gs_dpm *out)
{
    size_t i = 0;

    memset(out, 0, sizeof(*out));
    while (i < len && text[i] != '\0')
        if (sv_dpm_line(text, len, &i, out) < 0)
            return -1;
    return out->nlevels ? 0 : -1;
}

int gs_sysval_link_gen(const char *text, size_t len, uint32_t *gen)
{
    /* GT/s per generation (sysfs-bus-pci; PCIe 1.0 .. 6.0). */
    static const struct {
        const char *rate;
        uint32_t gen;
    } rates[] = { { "2.5", 1 }, { "5.0", 2 }, { "5", 2 }, { "8.0", 3 }, { "8", 3 }, { "16.0", 4 },
                  { "16", 4 }, { "32.0", 5 }, { "32", 5 }, { "64.0", 6 }, { "64", 6 } };
    size_t i = 0, n;

    while (i < len && sv_blank(text[i]))
        i++;
    for (n = i; n < len && (sv_digit(text[n]) || text[n] == '.'); n++)
        ;
    if (n == i || n - i > 4 || n + 5 > len || memcmp(text + n, " GT/s", 5) != 0)
        return -1;
    for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
        if (strlen(rates[k].rate) == n - i && !memcmp(rates[k].rate, text + i, n - i)) {
            *gen = rates[k].gen;
            return 0;
        }
    }
    return -1;
}

int gs_sysval_ras_count(const char *text, size_t len, uint64_t *ue, uint64_t *ce)
{
    int have = 0;
    size_t i = 0;

    while (i < len && text[i] != '\0') {
        size_t p = i;
        while (i < len && text[i] != '\n')
            i++;
        size_t end = i;
        if (i < len)
            i++;
        if (end - p < 4 || text[p + 2] != ':')
            continue;
        uint64_t *dst = !memcmp(text + p, "ue", 2) ? ue : !memcmp(text + p, "ce", 2) ? ce : NULL;
        if (!dst)
            continue; /* "de:" (deferred) and whatever comes next */
        p += 3;
        while (p < end && sv_blank(text[p]))
            p++;
        if (sv_digits(text, end, &p, dst) < 0)
            return -1;
        have |= dst == ue ? 1 : 2;
    }
    return have == 3 ? 0 : -1;
}

int gs_sysval_bad_pages(const char *text, size_t len, uint32_t *count)
{
    uint32_t n = 0;
    size_t i = 0;

    while (i < len && text[i] != '\0') {
        size_t p = i;
        while (i < len && text[i] != '\n')
            i++;
        size_t end = i;
        if (i < len)
            i++;
        while (p < end && sv_blank(text[p]))
            p++;
        if (p == end)
            continue;
        if (end - p < 3 || text[p] != '0' || (text[p + 1] != 'x' && text[p + 1] != 'X') || !memchr(text + p, ':', end - p))
            return -1;
        n++;
    }
    *count = n;
    return 0;
}

/* ---- readers ---------------------------------------------------------------------- */

int gs_sysval_open(int dirfd, const char *rel)
{
    int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    return fd < 0 ? -errno : fd;
}

ssize_t gs_sysval_pread(int fd, char *buf, size_t cap)
{
    size_t have = 0;

    if (!cap)
        return -EINVAL;
    /* A short read is the end: sysfs runs the attribute's show() again for
     * every read(2), so reading on to see the 0 of EOF would double the cost
     * (and, on amdgpu, the message to the power-management firmware). */
    while (have < cap - 1) {
        size_t want = cap - 1 - have;
        ssize_t n = pread(fd, buf + have, want, (off_t)have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            buf[0] = '\0';
            return -errno;
        }
        have += (size_t)n;
        if ((size_t)n < want)
            break;
    }
    buf[have] = '\0';
    return (ssize_t)have;
}

ssize_t gs_sysval_read_at(int dirfd, const char *rel, char *buf, size_t cap)
{
    int fd = gs_sysval_open(dirfd, rel);
    ssize_t n;

    if (fd < 0) {
        if (cap)
            buf[0] = '\0';
        return fd;
    }
    n = gs_sysval_pread(fd, buf, cap);
    close(fd);
    return n;
}

int gs_sysval_fd_u64(int fd, uint64_t *out)
{
    char buf[32];
    ssize_t n = gs_sysval_pread(fd, buf, sizeof(buf));

    if (n < 0)
        return (int)n;
    return gs_sysval_u64(buf, (size_t)n, out) == 0 ? 0 : -EINVAL;
}

int gs_sysval_fd_i64(int fd, int64_t *out)
{
    char buf[32];
    ssize_t n = gs_sysval_pread(fd, buf, sizeof(buf));

    if (n < 0)
        return (int)n;
    return gs_sysval_i64(buf, (size_t)n, out) == 0 ? 0 : -EINVAL;
}

int gs_sysval_at_u64(int dirfd, const char *rel, uint64_t *out)
{
    char buf[32];
    ssize_t n = gs_sysval_read_at(dirfd, rel, buf, sizeof(buf));

    if (n < 0)
        return (int)n;
    return gs_sysval_u64(buf, (size_t)n, out) == 0 ? 0 : -EINVAL;
}

int gs_sysval_at_i64(int dirfd, const char *rel, int64_t *out)
{
    char buf[32];
    ssize_t n = gs_sysval_read_at(dirfd, rel, buf, sizeof(buf));

    if (n < 0)
        return (int)n;
    return gs_sysval_i64(buf, (size_t)n, out) == 0 ? 0 : -EINVAL;
}

int gs_sysval_at_hex(int dirfd, const char *rel, uint32_t *out)
{
    char buf[32];
    ssize_t n = gs_sysval_read_at(dirfd, rel, buf, sizeof(buf));

    if (n < 0)
        return (int)n;
    return gs_sysval_hex(buf, (size_t)n, out) == 0 ? 0 : -EINVAL;
}

int gs_sysval_at_line(int dirfd, const char *rel, char *out, size_t cap)
{
    char buf[256];
    ssize_t n = gs_sysval_read_at(dirfd, rel, buf, sizeof(buf));

    if (cap)
        out[0] = '\0';
    if (n < 0)
        return (int)n;
    return gs_sysval_line(buf, (size_t)n, out, cap) == 0 ? 0 : -ENODATA;
}
