/* SPDX-License-Identifier: MIT */
/*
 * pystack.h - top's view inside a Python process (the detail view's block):
 * PyTorch's allocator breakdown from gpuscope's Python hook, and its threads'
 * Python stacks on request, fetched on a worker thread (from the hook, else by
 * sampling with Debian's austin) so that neither the UI nor the sampler waits.
 */
#ifndef GS_UI_PYSTACK_H
#define GS_UI_PYSTACK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "core/model.h"

/* One fetch at a time; the UI reads it under mu. Shared with the worker, which
 * frees it if the UI went away first (refs). */
struct gs_pystack {
    pthread_mutex_t mu;
    int refs;
    bool running;
    uint32_t pid;               /* whose stacks text holds */
    char *text;                 /* malloc'ed, or NULL */
    char source[80];            /* "the Python hook", "austin (1 s of samples)", or why not */
    time_t at;
};

/* Start fetching pid's stacks (uid: the process's user) unless a fetch runs. */
void gs_pystack_fetch(struct gs_pystack **ps, uint32_t pid, uint32_t uid, const char *austin);
/* The UI is done with it (the worker frees it when it finishes). */
void gs_pystack_release(struct gs_pystack *ps);

/* austin's collapsed stacks (-a: "Thread TID;func (file:line);... USEC") summarised
 * per thread (its most frequent stack, outermost first) into out. Returns threads. */
unsigned gs_pystack_austin_text(const char *collapsed, char *out, size_t len);

/* The PyTorch block's words: "allocated 40.1 GiB, cache 18.0 GiB (inactive split
 * 2.1 GiB), reserved 58.1 GiB, outside PyTorch 3.1 GiB, max allocated ...". */
void gs_pytorch_line(const struct gs_proc *p, char *out, size_t len);
/* The breakdown bar of width w over the process's GPU memory: '#' allocated,
 * '%' inactive split, '=' other cache, '.' outside PyTorch (ASCII; the UI maps
 * them to block glyphs). */
void gs_pytorch_bar(const struct gs_proc *p, char *out, unsigned w);

#endif /* GS_UI_PYSTACK_H */
