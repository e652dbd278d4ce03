/* SPDX-License-Identifier: MIT */
/*
 * hostproc_parse.c - the text parsers of the host-facts module (see
 * hostproc_priv.h): statm, cgroup (v1 and v2: docker, containerd, cri-o,
 * podman paths, Kubernetes pod UIDs and Slurm jobs), status (Uid), cmdline, and the boot
 * time in /proc/stat (/proc/PID/stat is lib/procstat.c's). No I/O except
 * gs_hp_read_btime's read loop; every parser takes a length and never reads
 * past it (fuzzed: fuzz/fuzz_cgroup.c).
 */
#include "core/hostproc_priv.h"
#include "lib/procstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copy a string into a fixed field, truncating (the fields are display text). */
void gs_hp_copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);

    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Terminal safety: a process chooses its own comm and argv, so control bytes
 * (escape sequences) must not reach a terminal through our output. */
void gs_hp_sanitize(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

static bool hp_is_hex64(const char *s, size_t len)
{
    if (len != 64)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

/* One path segment: "<prefix><64hex>[.scope]" or a bare 64-hex id. */
static bool hp_cgroup_container(const char *seg, size_t len, const char *parent, size_t plen,
                                struct gs_proc *p)
{
    static const struct { const char *prefix, *runtime; } kinds[] = {
        { "docker-", "docker" },   { "cri-containerd-", "containerd" }, { "crio-", "cri-o" },
        { "libpod-", "podman" },   { "nerdctl-", "containerd" },
    };
    const char *runtime = NULL;

    if (len > 6 && !memcmp(seg + len - 6, ".scope", 6))
        len -= 6;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !runtime; i++) {
        size_t pl = strlen(kinds[i].prefix);
        if (len > pl && !memcmp(seg, kinds[i].prefix, pl) && hp_is_hex64(seg + pl, len - pl)) {
            runtime = kinds[i].runtime;
            seg += pl;
            len -= pl;
        }
    }
    if (!runtime && hp_is_hex64(seg, len)) /* cgroupfs layouts: the parent may name it */
        runtime = (plen == 6 && !memcmp(parent, "docker", 6)) ? "docker" : "";
    if (!runtime)
        return false;
    memcpy(p->container_id, seg, 64);
    p->container_id[64] = '\0';
    gs_hp_copy_str(p->container_runtime, sizeof(p->container_runtime), runtime);
    return true;
}

/* "pod<uid>" anywhere in the path (dcgm-exporter's rule: not anchored at
 * /kubepods, since custom cgroup roots nest it), '_' -> '-'. */
static bool hp_cgroup_pod(const char *path, size_t len, struct gs_proc *p)
{
    for (const char *s = path; (s = memmem(s, (size_t)(path + len - s), "pod", 3)); s += 3) {
        const char *u = s + 3, *e = u;
        while (e < path + len && ((*e >= '0' && *e <= '9') || (*e >= 'a' && *e <= 'f') ||
                                  *e == '-' || *e == '_'))
            e++;
        size_t n = (size_t)(e - u);
        if (n < 32 || n > 36)
            continue;
        for (size_t i = 0; i < n; i++)
            p->pod_uid[i] = u[i] == '_' ? '-' : u[i];
        p->pod_uid[n] = '\0';
        return true;
    }
    return false;
}

/* A path segment "<key>_<value>" (key given with its '_'): value's bounds. */
static bool hp_seg_kv(const char *seg, size_t len, const char *key, const char **v, size_t *vlen)
{
    size_t kl = strlen(key);
    if (len <= kl || memcmp(seg, key, kl))
        return false;
    *v = seg + kl;
    *vlen = len - kl;
    return true;
}

static bool hp_all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return n > 0;
}

/* Segments after a Slurm anchor: [uid_U/]job_J[/step_S]. need_uid: cgroup v1's
 * /slurm/uid_U/job_J, v2's slurmstepd.scope/job_J has none. */
static bool hp_slurm_job(const char *s, const char *end, bool need_uid, struct gs_proc *p)
{
    const char *seg[3], *v;
    size_t len[3], vlen;
    unsigned n = 0;
    uint64_t job = 0;

    for (; n < 3 && s < end; n++) {
        const char *slash = memchr(s, '/', (size_t)(end - s));
        const char *e = slash ? slash : end;
        seg[n] = s;
        len[n] = (size_t)(e - s);
        s = e + 1;
    }
    unsigned k = 0;
    if (need_uid && !(k < n && hp_seg_kv(seg[k], len[k], "uid_", &v, &vlen) && hp_all_digits(v, vlen)))
        return false;
    k += need_uid;
    if (!(k < n && hp_seg_kv(seg[k], len[k], "job_", &v, &vlen) && hp_all_digits(v, vlen) && vlen <= 10))
        return false;
    for (size_t i = 0; i < vlen; i++)
        job = job * 10 + (uint64_t)(v[i] - '0');
    if (job == 0 || job > UINT32_MAX)
        return false;
    p->slurm_job = (uint32_t)job;
    p->slurm_step[0] = '\0';
    k++;
    if (k < n && hp_seg_kv(seg[k], len[k], "step_", &v, &vlen) && vlen < sizeof(p->slurm_step)) {
        bool word = true;
        for (size_t i = 0; i < vlen; i++)
            word &= (v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'z') || v[i] == '_';
        if (word) {
            memcpy(p->slurm_step, v, vlen);
            p->slurm_step[vlen] = '\0';
        }
    }
    return true;
}

/* A Slurm job in a cgroup path: cgroup v1's /slurm[_<node>]/uid_U/job_J/step_S/...,
 * or Slurm 22.05+'s cgroup v2 /system.slice/[<node>_]slurmstepd.scope/job_J/step_S/...
 * (anchored on those segments, so other schedulers' "job_" names do not count). */
static bool hp_cgroup_slurm(const char *path, size_t len, struct gs_proc *p)
{
    const char *end = path + len;
    for (const char *s = path; s < end;) {
        const char *slash = memchr(s, '/', (size_t)(end - s));
        const char *e = slash ? slash : end;
        size_t n = (size_t)(e - s);
        bool v1 = (n == 5 && !memcmp(s, "slurm", 5)) || (n > 6 && !memcmp(s, "slurm_", 6));
        bool v2 = n >= 16 && !memcmp(e - 16, "slurmstepd.scope", 16) && (n == 16 || e[-17] == '_');
        if ((v1 || v2) && e < end && hp_slurm_job(e + 1, end, v1, p))
            return true;
        s = e + 1;
    }
    return false;
}

/* The path of one "hierarchy-id:controllers:path" line: innermost container wins. */
static void hp_cgroup_path(const char *path, size_t len, struct gs_proc *p, bool *have_ctr,
                           bool *have_pod)
{
    const char *end = path + len, *parent = "";
    size_t plen = 0;

    if (!p->slurm_job)
        hp_cgroup_slurm(path, len, p);
    if (!*have_pod)
        *have_pod = hp_cgroup_pod(path, len, p);
    if (*have_ctr)
        return;
    for (const char *s = path; s < end;) {
        const char *slash = memchr(s, '/', (size_t)(end - s));
        const char *e = slash ? slash : end;
        if (hp_cgroup_container(s, (size_t)(e - s), parent, plen, p))
            *have_ctr = true; /* keep going: a nested one (kind, dind) is more specific */
        parent = s;
        plen = (size_t)(e - s);
        s = e + 1;
    }
}

/* Valid bits are set when the file parsed: "" then means "not in a container/pod". */
int gs_hostproc_parse_cgroup(const char *buf, size_t len, struct gs_proc *p)
{
    const char *end = buf + len;
    bool have_ctr = false, have_pod = false, any_line = false;

    p->container_id[0] = p->container_runtime[0] = p->pod_uid[0] = p->slurm_step[0] = '\0';
    p->slurm_job = 0;
    p->valid &= ~((1u << GS_P_CONTAINER) | (1u << GS_P_POD) | (1u << GS_P_SLURM));
    for (const char *line = buf; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *e = nl ? nl : end;
        const char *c1 = memchr(line, ':', (size_t)(e - line));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(e - c1 - 1)) : NULL;
        if (c2 && c2 + 1 < e && c2[1] == '/') {
            any_line = true;
            hp_cgroup_path(c2 + 1, (size_t)(e - c2 - 1), p, &have_ctr, &have_pod);
        }
        line = e + 1;
    }
    if (!any_line)
        return -1;
    gs_proc_set(p, GS_P_CONTAINER);
    gs_proc_set(p, GS_P_POD);
    gs_proc_set(p, GS_P_SLURM);
    return 0;
}

/* The real uid from /proc/PID/status ("Uid:\treal\teffective\tsaved\tfs"), as
 * gpustat and nvitop (psutil) report it. */
int gs_hp_parse_status_uid(const char *buf, size_t len, uint32_t *uid)
{
    const char *end = buf + len;
    const char *s = memmem(buf, len, "\nUid:", 5);
    uint64_t v;

    if (!s)
        return -1;
    for (s += 5; s < end && (*s == '\t' || *s == ' '); s++)
        ;
    if (!gs_proc_u64(s, end, &v) || v > UINT32_MAX)
        return -1;
    *uid = (uint32_t)v;
    return 0;
}

/* Consume the complete lines in buf[0..*have): 0 once "btime N" is found. A
 * line longer than the buffer (intr on big machines) is dropped up to its newline. */
static int hp_btime_lines(char *buf, size_t cap, size_t *have, bool *skipping, int64_t *out)
{
    char *line = buf, *nl;
    size_t rest;

    while ((nl = memchr(line, '\n', *have - (size_t)(line - buf)))) {
        uint64_t v;
        if (!*skipping && !strncmp(line, "btime ", 6) && gs_proc_u64(line + 6, nl, &v) &&
            v <= INT64_MAX) {
            *out = (int64_t)v;
            return 0;
        }
        *skipping = false;
        line = nl + 1;
    }
    rest = *have - (size_t)(line - buf);
    if (rest >= cap - 1) {
        *skipping = true;
        rest = 0;
    }
    memmove(buf, line, rest);
    *have = rest;
    return -1;
}

/* Boot time from <root>/stat, read once per handle through fd (closed by the caller). */
int gs_hp_read_btime(int fd, int64_t *out)
{
    char buf[4096];
    size_t have = 0;
    bool skipping = false, eof = false;
    int rc = -1;

    while (rc < 0 && !eof) {
        /* have < sizeof(buf) - 1 here: hp_btime_lines leaves room. */
        ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            eof = true;
            buf[have++] = '\n'; /* a last line without its newline */
        } else {
            have += (size_t)n;
        }
        rc = hp_btime_lines(buf, sizeof(buf), &have, &skipping, out);
    }
    return rc;
}

/* RSS from PID/statm ("size resident shared ..." in pages). */
int gs_hp_parse_statm_rss(const char *buf, size_t len, uint64_t *pages)
{
    const char *end = buf + len, *s = gs_proc_skip_field(buf, end);

    return s && gs_proc_field_u64(s, end, pages) ? 0 : -1;
}

void gs_hp_set_cmdline(struct hp_host *h, char *buf, size_t n)
{
    uint8_t sep[GS_CMDLINE_MAX / 8] = {0};
    size_t nsep = 0;

    gs_hp_clear_cmdline(h);
    while (n > 0 && (buf[n - 1] == '\0' || buf[n - 1] == ' '))
        n--;
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\0')
            continue;
        buf[i] = ' ';
        if (i < GS_CMDLINE_MAX) {
            sep[i / 8] |= (uint8_t)(1u << (i % 8));
            nsep = i / 8 + 1;
        }
    }
    buf[n] = '\0';
    gs_hp_sanitize(buf);
    size_t len = strnlen(buf, GS_CMDLINE_MAX - 1);
    if (len == 0 && nsep == 0)
        return;
    char *t = malloc(len + 1 + nsep);
    if (!t)
        return;
    memcpy(t, buf, len);
    t[len] = '\0';
    memcpy(t + len + 1, sep, nsep);
    h->cmdline = t;
    h->cmdline_len = (uint32_t)len;
    h->cmdline_sep_bytes = (uint32_t)nsep;
}

void gs_hp_clear_cmdline(struct hp_host *h)
{
    free(h->cmdline);
    h->cmdline = NULL;
    h->cmdline_len = h->cmdline_sep_bytes = 0;
}
