/* SPDX-License-Identifier: MIT */
/*
 * pystack.c - the parts of top's Python block without curses (see pystack.h):
 * the PyTorch breakdown in words and as a bar, the stack fetch on a worker
 * thread (the hook's "stacks", else austin for a second), austin's collapsed
 * output summarised per thread.
 */
#include "ui/pystack.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/err.h"
#include "core/pyhook.h"
#include "lib/bytes.h"
#include "lib/vec.h"

extern char **environ;

void gs_pytorch_line(const struct gs_proc *p, char *out, size_t len)
{
    char a[24], c[24], s[24], r[24], o[24], m[24];
    uint64_t cache = p->torch_reserved_bytes > p->torch_allocated_bytes ? p->torch_reserved_bytes - p->torch_allocated_bytes : 0;
    uint64_t outside = gs_proc_has(p, GS_P_GPU_MEM) && p->gpu_mem_bytes > p->torch_reserved_bytes
                           ? p->gpu_mem_bytes - p->torch_reserved_bytes : 0;
    snprintf(out, len, "allocated %s, cache %s (inactive split %s), reserved %s, outside PyTorch %s, max allocated %s,"
             " %llu retries, %llu OOMs", gs_fmt_size(p->torch_allocated_bytes, a, sizeof(a)),
             gs_fmt_size(cache, c, sizeof(c)), gs_fmt_size(p->torch_inactive_split_bytes, s, sizeof(s)),
             gs_fmt_size(p->torch_reserved_bytes, r, sizeof(r)),
             gs_proc_has(p, GS_P_GPU_MEM) ? gs_fmt_size(outside, o, sizeof(o)) : "?",
             gs_fmt_size(p->torch_max_allocated_bytes, m, sizeof(m)),
             (unsigned long long)p->torch_alloc_retries, (unsigned long long)p->torch_ooms);
}

void gs_pytorch_bar(const struct gs_proc *p, char *out, unsigned w)
{
    uint64_t total = gs_proc_has(p, GS_P_GPU_MEM) && p->gpu_mem_bytes > p->torch_reserved_bytes ? p->gpu_mem_bytes
                                                                                                  : p->torch_reserved_bytes;
    uint64_t cuts[3] = { p->torch_allocated_bytes,
                         p->torch_allocated_bytes + p->torch_inactive_split_bytes, p->torch_reserved_bytes };
    for (unsigned i = 0; i < w; i++) {
        uint64_t at = total ? (uint64_t)((double)total * (i + 0.5) / w) : 0;
        out[i] = !total ? ' ' : at < cuts[0] ? '#' : at < cuts[1] ? '%' : at < cuts[2] ? '=' : '.';
    }
    out[w] = '\0';
}

/* ---- austin ------------------------------------------------------------------------------ */
struct astack { char thread[32]; const char *frames; size_t flen; unsigned long long weight; };

static int by_thread_weight(const void *a, const void *b)
{
    const struct astack *x = a, *y = b;
    int c = strcmp(x->thread, y->thread);
    return c ? c : x->weight < y->weight ? 1 : x->weight > y->weight ? -1 : 0;
}

unsigned gs_pystack_austin_text(const char *collapsed, char *out, size_t len)
{
    size_t cap = 0, n = 0, used = 0;
    struct astack *v = gs_vec_grow(NULL, &cap, 256, sizeof(*v));
    unsigned threads = 0;
    if (len)
        out[0] = '\0';
    for (const char *l = collapsed; v && l && *l;) {
        const char *e = strchr(l, '\n'), *end = e ? e : l + strlen(l);
        const char *sp = end;
        while (sp > l && sp[-1] != ' ')
            sp--;
        const char *semi = memchr(l, ';', (size_t)(end - l));
        if (!strncmp(l, "Thread ", 7) && semi && sp > semi) {
            struct astack a = { "", semi + 1, (size_t)(sp - 1 - (semi + 1)), strtoull(sp, NULL, 10) };
            snprintf(a.thread, sizeof(a.thread), "%.*s", (int)(semi - l - 7 < 31 ? semi - l - 7 : 31), l + 7);
            bool merged = false;
            for (size_t i = 0; i < n && !merged; i++)
                if (!strcmp(v[i].thread, a.thread) && v[i].flen == a.flen && !memcmp(v[i].frames, a.frames, a.flen)) {
                    v[i].weight += a.weight;
                    merged = true;
                }
            if (!merged && n == cap) {
                struct astack *nv = gs_vec_grow(v, &cap, n + 1, sizeof(*v));
                if (!nv) { /* out of memory: no summary rather than one of some stacks only */
                    free(v);
                    return 0;
                }
                v = nv;
            }
            if (!merged)
                v[n++] = a;
        }
        l = e ? e + 1 : end;
    }
    if (!v)
        return 0;
    qsort(v, n, sizeof(*v), by_thread_weight);
    for (size_t i = 0; i < n; i++) {
        if (i && !strcmp(v[i].thread, v[i - 1].thread))
            continue; /* the thread's most frequent stack only */
        unsigned long long all = 0;
        for (size_t k = i; k < n && !strcmp(v[k].thread, v[i].thread); k++)
            all += v[k].weight;
        threads++;
        used += (size_t)snprintf(out + used, used < len ? len - used : 0, "Thread 0x%s (its most frequent stack, "
                                 "%.0f %% of its samples):\n", v[i].thread, all ? 100.0 * v[i].weight / all : 0);
        for (const char *f = v[i].frames; f < v[i].frames + v[i].flen;) {
            const char *semi = memchr(f, ';', (size_t)(v[i].frames + v[i].flen - f));
            const char *fe = semi ? semi : v[i].frames + v[i].flen;
            used += (size_t)snprintf(out + used, used < len ? len - used : 0, "  %.*s\n", (int)(fe - f), f);
            f = semi ? semi + 1 : fe;
        }
    }
    if (used >= len && len)
        out[len - 1] = '\0';
    free(v);
    return threads;
}

/* Sample pid with austin for about a second; its stdout (malloc'ed) or NULL with why. */
static char *run_austin(const char *austin, uint32_t pid, char *why, size_t whylen)
{
    int out[2], err[2];
    char pidarg[16];
    snprintf(pidarg, sizeof(pidarg), "%u", pid);
    if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        return NULL;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    char *const argv[] = { (char *)austin, (char *)"-a", (char *)"-i", (char *)"10000", (char *)"-p", pidarg, NULL };
    pid_t child;
    int rc = posix_spawnp(&child, austin, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    close(err[1]);
    if (rc != 0) {
        snprintf(why, whylen, "cannot run %s: %s", austin, strerror(rc));
        close(out[0]);
        close(err[0]);
        return NULL;
    }
    size_t cap = 0, used = 0, eused = 0;
    char *buf = gs_vec_grow(NULL, &cap, 1 << 16, 1), ebuf[512];
    bool nomem = !buf;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool signalled = false;
    for (int open = 2; open && buf;) {
        struct pollfd pf[2] = { { out[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
        poll(pf, 2, 100);
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (el > 1.0 && !signalled) {
            kill(child, SIGINT); /* austin prints what it has and exits */
            signalled = true;
        }
        if (el > 4.0)
            kill(child, SIGKILL);
        for (int k = 0; k < 2; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP)))
                continue;
            char tmp[4096];
            ssize_t r = read(pf[k].fd, tmp, sizeof(tmp));
            if (r <= 0) {
                if (pf[k].fd >= 0)
                    open--;
                close(k ? err[0] : out[0]);
                if (k) err[0] = -1; else out[0] = -1;
                continue;
            }
            if (k == 1) {
                size_t take = (size_t)r < sizeof(ebuf) - 1 - eused ? (size_t)r : sizeof(ebuf) - 1 - eused;
                memcpy(ebuf + eused, tmp, take);
                eused += take;
            } else if (used + (size_t)r < (4u << 20)) {
                char *n = gs_vec_grow(buf, &cap, used + (size_t)r + 1, 1);
                if (!n) {
                    free(buf);
                    buf = NULL;
                    nomem = true;
                    break;
                }
                buf = n;
                memcpy(buf + used, tmp, (size_t)r);
                used += (size_t)r;
            }
        }
    }
    if (out[0] >= 0)
        close(out[0]);
    if (err[0] >= 0)
        close(err[0]);
    int st = 0;
    waitpid(child, &st, 0);
    ebuf[eused] = '\0';
    if (buf)
        buf[used] = '\0';
    if (!buf || !used) {
        char *nl = strchr(ebuf, '\n');
        if (nl)
            *nl = '\0';
        if (nomem)
            snprintf(why, whylen, "out of memory for austin's output");
        else
            snprintf(why, whylen, "austin could not sample it (%.200s)", ebuf[0] ? ebuf : "no samples");
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- the worker ------------------------------------------------------------------------- */
struct job { struct gs_pystack *ps; uint32_t pid, uid; char austin[256]; };

static void put_result(struct gs_pystack *ps, char *text, const char *source)
{
    pthread_mutex_lock(&ps->mu);
    free(ps->text);
    ps->text = text;
    snprintf(ps->source, sizeof(ps->source), "%s", source);
    ps->at = time(NULL);
    ps->running = false;
    bool last = --ps->refs == 0;
    pthread_mutex_unlock(&ps->mu);
    if (last) {
        free(ps->text);
        pthread_mutex_destroy(&ps->mu);
        free(ps);
    }
}

static void *fetch_main(void *arg)
{
    struct job *j = arg;
    struct gs_err err = { 0 };
    char why[300], *reply = NULL, *text = NULL;
    size_t len;
    unsigned n;
    if (gs_pyhook_request(j->pid, j->uid, "stacks", 3000, &reply, &len, &err) == 0) {
        text = malloc(len + 4096);
        if (text && gs_pyhook_format_stacks(reply, len, text, len + 4096, &n, why, sizeof(why)) == 0) {
            free(reply);
            put_result(j->ps, text, "the Python hook");
            free(j);
            return NULL;
        }
        free(text);
        text = NULL;
        snprintf(err.msg, sizeof(err.msg), "the hook answered something else: %s", why);
    }
    free(reply);
    if (j->austin[0]) {
        char *raw = run_austin(j->austin, j->pid, why, sizeof(why));
        if (raw && (text = malloc(65536)) && gs_pystack_austin_text(raw, text, 65536) > 0) {
            free(raw);
            put_result(j->ps, text, "austin (1 s of samples)");
            free(j);
            return NULL;
        }
        free(raw);
        free(text);
        text = NULL;
        if (!raw && strlen(why) < sizeof(err.msg))
            snprintf(err.msg, sizeof(err.msg), "%s", why);
    }
    if (asprintf(&text, "No Python stacks for process %u: %s\n\nTo see them, start it with gpuscope's Python hook:\n"
                 "  gpuscope run --python -- python train.py\nor, for a process started otherwise (a launcher, a "
                 "notebook), before it starts:\n  eval \"$(gpuscope pyhook env)\"\n%s", j->pid, err.msg,
                 j->austin[0] ? "" : "(Debian's austin, where installed and permitted to attach, samples "
                 "processes without the hook.)\n") < 0)
        text = NULL;
    put_result(j->ps, text, "not available");
    free(j);
    return NULL;
}

void gs_pystack_fetch(struct gs_pystack **pps, uint32_t pid, uint32_t uid, const char *austin)
{
    struct gs_pystack *ps = *pps;
    if (!ps) {
        if (!(ps = calloc(1, sizeof(*ps))))
            return;
        pthread_mutex_init(&ps->mu, NULL);
        ps->refs = 1;
        *pps = ps;
    }
    struct job *j = calloc(1, sizeof(*j));
    pthread_mutex_lock(&ps->mu);
    if (ps->running || !j) {
        pthread_mutex_unlock(&ps->mu);
        free(j);
        return;
    }
    ps->running = true;
    ps->pid = pid;
    snprintf(ps->source, sizeof(ps->source), "fetching...");
    ps->refs++;
    pthread_mutex_unlock(&ps->mu);
    j->ps = ps;
    j->pid = pid;
    j->uid = uid;
    snprintf(j->austin, sizeof(j->austin), "%s", austin ? austin : "");
    pthread_attr_t at;
    pthread_t th;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    /* the worker must not take the signals the UI waits for: they stay blocked in it */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    if (pthread_create(&th, &at, fetch_main, j) != 0) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        put_result(ps, strdup("cannot start a thread to fetch the stacks"), "not available"); /* the worker's ref */
        free(j);
    } else {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    pthread_attr_destroy(&at);
}

void gs_pystack_release(struct gs_pystack *ps)
{
    if (!ps)
        return;
    pthread_mutex_lock(&ps->mu);
    bool last = --ps->refs == 0;
    pthread_mutex_unlock(&ps->mu);
    if (last) {
        free(ps->text);
        pthread_mutex_destroy(&ps->mu);
        free(ps);
    }
}
