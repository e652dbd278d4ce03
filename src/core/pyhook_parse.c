/* SPDX-License-Identifier: MIT */
/*
 * pyhook_parse.c - the Python hook's answers (docs/PYHOOK.md) turned into
 * gpuscope's model: a "stats" reply into struct gs_pyhook_stats (every field
 * checked for type and range: the process on the other end is not trusted),
 * its devices matched to GPUs, a "stacks" reply into text. Pure functions
 * (jansson only), fuzzed by fuzz/fuzz_pyhook.c.
 */
#include "core/pyhook.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PROTO "gpuscope-pyhook/1"

const char *gs_pyhook_state_name(enum gs_pyhook_state st)
{
    static const char *const names[] = { "none", "no_torch", "no_cuda", "no_device", "ok", "error" };
    return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "error";
}

static int why_set(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int why_set(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (why && len)
        vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Optional string member: "" when absent or null; -1 when present with another type. */
static int get_str(json_t *o, const char *key, char *dst, size_t cap, bool *present)
{
    json_t *v = json_object_get(o, key);
    dst[0] = '\0';
    if (present)
        *present = false;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    snprintf(dst, cap, "%s", json_string_value(v));
    for (char *c = dst; *c; c++) /* shown on terminals: no control characters */
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    if (present)
        *present = true;
    return 0;
}

/* Optional non-negative integer member: 0 when absent. */
static int get_u64(json_t *o, const char *key, uint64_t *dst)
{
    json_t *v = json_object_get(o, key);
    *dst = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *dst = (uint64_t)json_integer_value(v);
    return 0;
}

static int parse_dev(json_t *d, struct gs_torch_dev *out, char *why, size_t whylen)
{
    uint64_t idx;
    memset(out, 0, sizeof(*out));
    if (!json_is_object(d))
        return why_set(why, whylen, "%s", "a device is not an object");
    static const struct { const char *key; size_t off; } nums[] = {
        { "allocated_bytes", offsetof(struct gs_torch_dev, allocated) },
        { "reserved_bytes", offsetof(struct gs_torch_dev, reserved) },
        { "inactive_split_bytes", offsetof(struct gs_torch_dev, inactive_split) },
        { "max_allocated_bytes", offsetof(struct gs_torch_dev, max_allocated) },
        { "max_reserved_bytes", offsetof(struct gs_torch_dev, max_reserved) },
        { "alloc_retries", offsetof(struct gs_torch_dev, alloc_retries) },
        { "ooms", offsetof(struct gs_torch_dev, ooms) },
    };
    if (get_u64(d, "index", &idx) < 0 || idx > 1024)
        return why_set(why, whylen, "%s", "a device index is not a small non-negative integer");
    out->index = (int)idx;
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
        if (get_u64(d, nums[i].key, (uint64_t *)((char *)out + nums[i].off)) < 0)
            return why_set(why, whylen, "device field '%s' is not a non-negative integer", nums[i].key);
    if (get_str(d, "uuid", out->uuid, sizeof(out->uuid), NULL) < 0 ||
        get_str(d, "pci_bus_id", out->pci_bus_id, sizeof(out->pci_bus_id), NULL) < 0 ||
        get_str(d, "name", out->name, sizeof(out->name), NULL) < 0)
        return why_set(why, whylen, "%s", "a device's uuid, pci_bus_id or name is not a string");
    if (out->allocated > out->reserved && out->reserved) /* not what a caching allocator can report */
        return why_set(why, whylen, "%s", "a device has more allocated than reserved");
    return 0;
}

int gs_pyhook_parse_stats(const char *buf, size_t len, struct gs_pyhook_stats *out, char *why, size_t whylen)
{
    json_error_t je;
    memset(out, 0, sizeof(*out));
    if (len > GS_PYHOOK_STATS_MAX)
        return why_set(why, whylen, "%s", "the reply is too long");
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &je);
    int rc = -1;
    uint64_t pid, ticks, t;
    bool present;
    if (!root)
        return why_set(why, whylen, "not JSON: %s", je.text);
    json_t *proto = json_object_get(root, "proto"), *devs = json_object_get(root, "devices");
    if (!json_is_object(root) || !json_is_string(proto) || strcmp(json_string_value(proto), PROTO)) {
        why_set(why, whylen, "%s", "not a " PROTO " reply");
        goto out;
    }
    if (get_u64(root, "pid", &pid) < 0 || pid == 0 || pid > UINT32_MAX || get_u64(root, "start_ticks", &ticks) < 0 ||
        get_u64(root, "time_unix_ms", &t) < 0) {
        why_set(why, whylen, "%s", "pid, start_ticks or time_unix_ms is not a non-negative integer");
        goto out;
    }
    out->pid = (uint32_t)pid;
    out->start_ticks = ticks;
    out->time_ms = (int64_t)t;
    json_t *cuda = json_object_get(root, "cuda_initialized");
    if ((cuda && !json_is_boolean(cuda)) || get_str(root, "python", out->python, sizeof(out->python), NULL) < 0 ||
        get_str(root, "torch", out->torch, sizeof(out->torch), &out->has_torch) < 0 ||
        get_str(root, "alloc_conf", out->alloc_conf, sizeof(out->alloc_conf), &out->has_alloc_conf) < 0 ||
        get_str(root, "cuda_visible_devices", out->cvd, sizeof(out->cvd), &out->has_cvd) < 0 ||
        get_str(root, "error", out->error, sizeof(out->error), &present) < 0) {
        why_set(why, whylen, "%s", "a field has the wrong type");
        goto out;
    }
    out->cuda_initialized = cuda && json_is_true(cuda);
    if (devs && !json_is_null(devs) && !json_is_array(devs)) {
        why_set(why, whylen, "%s", "devices is not an array");
        goto out;
    }
    for (size_t i = 0; devs && i < json_array_size(devs); i++) {
        if (out->ndevs == GS_PYHOOK_MAX_DEVS)
            break;
        if (parse_dev(json_array_get(devs, i), &out->devs[out->ndevs], why, whylen) < 0)
            goto out;
        out->ndevs++;
    }
    rc = 0;
out:
    json_decref(root);
    if (rc < 0)
        memset(out, 0, sizeof(*out));
    return rc;
}

/* ---- which device is which GPU -------------------------------------------------------- */
/* "00000000:3B:00.0", "0000:3b:00.0" and "3b:00.0" are the same PCI function. */
static bool same_pci(const char *a, const char *b)
{
    unsigned ad = 0, ab, adev, af = 0, bd = 0, bb, bdev, bf = 0;
    if (!*a || !*b)
        return false;
    if (sscanf(a, "%x:%x:%x.%x", &ad, &ab, &adev, &af) < 3 && (ad = 0, sscanf(a, "%x:%x.%x", &ab, &adev, &af) < 2))
        return false;
    if (sscanf(b, "%x:%x:%x.%x", &bd, &bb, &bdev, &bf) < 3 && (bd = 0, sscanf(b, "%x:%x.%x", &bb, &bdev, &bf) < 2))
        return false;
    return ad == bd && ab == bb && adev == bdev && af == bf;
}

/* Entry number pos of a CUDA_VISIBLE_DEVICES list into tok; false past its end. */
static bool cvd_entry(const char *cvd, int pos, char *tok, size_t cap)
{
    const char *p = cvd;
    for (int i = 0;; i++) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, ",");
        if (i == pos) {
            snprintf(tok, cap, "%.*s", (int)n, p);
            char *e = tok + strlen(tok);
            while (e > tok && e[-1] == ' ')
                *--e = '\0';
            return *tok != '\0';
        }
        if (!p[n])
            return false;
        p += n + 1;
    }
}

const struct gs_torch_dev *gs_pyhook_device_for(const struct gs_pyhook_stats *s, const struct gs_static *gpu)
{
    for (unsigned i = 0; i < s->ndevs; i++)
        if (s->devs[i].uuid[0] && gpu->uuid[0] && !strcasecmp(s->devs[i].uuid, gpu->uuid))
            return &s->devs[i];
    for (unsigned i = 0; i < s->ndevs; i++)
        if (same_pci(s->devs[i].pci_bus_id, gpu->pci_bus_id))
            return &s->devs[i];
    for (unsigned i = 0; i < s->ndevs; i++) {
        const struct gs_torch_dev *d = &s->devs[i];
        if (d->uuid[0] || d->pci_bus_id[0])
            continue; /* it said who it is, and it is not this GPU */
        char tok[96];
        if (!s->has_cvd) {
            if ((unsigned)d->index == gpu->index)
                return d;
        } else if (cvd_entry(s->cvd, d->index, tok, sizeof(tok))) {
            char *end;
            long n = strtol(tok, &end, 10);
            if (isdigit((unsigned char)tok[0]) && !*end && n == (long)gpu->index)
                return d;
            if (!strncasecmp(tok, "GPU-", 4) && gpu->uuid[0] && !strncasecmp(gpu->uuid, tok, strlen(tok)))
                return d; /* a UUID prefix, as CUDA accepts */
        }
    }
    return NULL;
}

void gs_pyhook_apply(const struct gs_pyhook_stats *s, const struct gs_static *gpu, uint32_t age_ms,
                     struct gs_proc *p)
{
    const struct gs_torch_dev *d = gs_pyhook_device_for(s, gpu);
    gs_proc_set(p, GS_P_PYHOOK);
    p->pyhook_age_ms = age_ms;
    snprintf(p->torch_alloc_conf, sizeof(p->torch_alloc_conf), "%s", s->alloc_conf);
    p->pyhook_state = !s->has_torch           ? GS_PYHOOK_ST_NO_TORCH
                      : !s->cuda_initialized  ? GS_PYHOOK_ST_NO_CUDA
                      : !d                    ? GS_PYHOOK_ST_NO_DEVICE
                                              : GS_PYHOOK_ST_OK;
    if (p->pyhook_state != GS_PYHOOK_ST_OK)
        return;
    gs_proc_set(p, GS_P_TORCH);
    p->torch_allocated_bytes = d->allocated;
    p->torch_reserved_bytes = d->reserved;
    p->torch_inactive_split_bytes = d->inactive_split;
    p->torch_max_allocated_bytes = d->max_allocated;
    p->torch_max_reserved_bytes = d->max_reserved;
    p->torch_alloc_retries = d->alloc_retries;
    p->torch_ooms = d->ooms;
}

/* ---- stacks as text ---------------------------------------------------------------------- */
struct outbuf { char *p; size_t len, used; };

static void put(struct outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct outbuf *o, const char *fmt, ...)
{
    va_list ap;
    if (o->used + 1 >= o->len)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(o->p + o->used, o->len - o->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->used = o->used + (size_t)n < o->len ? o->used + (size_t)n : o->len - 1;
}

static const char *s_or(json_t *o, const char *key, const char *dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : dflt;
}

int gs_pyhook_format_stacks(const char *buf, size_t len, char *out, size_t outlen, unsigned *nthreads,
                            char *why, size_t whylen)
{
    json_error_t je;
    struct outbuf o = { out, outlen, 0 };
    if (outlen)
        out[0] = '\0';
    *nthreads = 0;
    if (len > GS_PYHOOK_STACKS_MAX)
        return why_set(why, whylen, "%s", "the reply is too long");
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &je);
    if (!root)
        return why_set(why, whylen, "not JSON: %s", je.text);
    json_t *threads = json_object_get(root, "threads");
    if (!json_is_object(root) || strcmp(s_or(root, "proto", ""), PROTO) || !json_is_array(threads)) {
        json_decref(root);
        return why_set(why, whylen, "%s", "not a " PROTO " stacks reply");
    }
    for (size_t i = 0; i < json_array_size(threads); i++) {
        json_t *t = json_array_get(threads, i), *frames = json_object_get(t, "frames");
        json_t *nid = json_object_get(t, "native_id"), *omit = json_object_get(t, "omitted_frames");
        if (!json_is_object(t) || !json_is_array(frames))
            continue;
        ++*nthreads;
        put(&o, "Thread %s", s_or(t, "name", "?"));
        if (json_is_integer(nid))
            put(&o, " (native %lld)", (long long)json_integer_value(nid));
        if (json_is_true(json_object_get(t, "hook")))
            put(&o, " [gpuscope's hook, answering]");
        put(&o, ":\n");
        if (json_is_integer(omit) && json_integer_value(omit) > 0)
            put(&o, "  ... %lld outer frames not shown\n", (long long)json_integer_value(omit));
        for (size_t k = 0; k < json_array_size(frames); k++) {
            json_t *f = json_array_get(frames, k), *line = json_object_get(f, "line");
            if (!json_is_object(f))
                continue;
            put(&o, "  %s:%lld in %s\n", s_or(f, "file", "?"), json_is_integer(line) ? (long long)json_integer_value(line) : 0,
                s_or(f, "func", "?"));
            const char *code = s_or(f, "code", "");
            if (*code)
                put(&o, "    %s\n", code);
        }
    }
    for (char *c = out; c && *c; c++) /* for terminals */
        if ((unsigned char)*c < 0x20 && *c != '\n')
            *c = '?';
    json_decref(root);
    return 0;
}
