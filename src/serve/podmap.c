/* SPDX-License-Identifier: MIT */
/*
 * podmap.c - pod UID and container ID to names, from the kubelet's log
 * directory layout (see podmap.h). Both tables are rebuilt whole on a scan,
 * sorted, and searched with bsearch; a scan is two readdir() passes.
 */
#include "serve/podmap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/vec.h"

#define PODMAP_MISS_RESCAN_NS (5ull * 1000000000ull)
#define PODMAP_RESCAN_NS (60ull * 1000000000ull)

struct podmap_ent {
    char *key;   /* pod UID or container ID */
    char *a;     /* namespace, or container name */
    char *b;     /* pod name (pods only) */
};

struct podmap_tab {
    struct podmap_ent *e;
    unsigned n;
    size_t cap;
    unsigned lost;        /* entries of the last scan left out: out of memory */
};

struct gs_podmap {
    char root[512];
    struct podmap_tab pods, ctrs;
    bool scanned;
    bool missed;          /* a lookup failed since the last scan */
    bool lost_logged;     /* the last scan's out-of-memory was logged */
    uint64_t last_scan_ns;
};

struct gs_podmap *gs_podmap_new(const char *root)
{
    struct gs_podmap *pm = calloc(1, sizeof(*pm));
    if (!pm)
        return NULL;
    snprintf(pm->root, sizeof(pm->root), "%s", root ? root : "");
    return pm;
}

static void podmap_tab_clear(struct podmap_tab *t)
{
    for (unsigned i = 0; i < t->n; i++) {
        free(t->e[i].key);
        free(t->e[i].a);
        free(t->e[i].b);
    }
    t->n = 0;
    t->lost = 0;
}

void gs_podmap_free(struct gs_podmap *pm)
{
    if (!pm)
        return;
    podmap_tab_clear(&pm->pods);
    podmap_tab_clear(&pm->ctrs);
    free(pm->pods.e);
    free(pm->ctrs.e);
    free(pm);
}

static int podmap_cmp(const void *x, const void *y)
{
    return strcmp(((const struct podmap_ent *)x)->key, ((const struct podmap_ent *)y)->key);
}

/* Add (key, a, b) taking the [ptr, len) slices; on OOM the entry is counted in t->lost. */
static void podmap_add(struct podmap_tab *t, const char *key, size_t klen, const char *a, size_t alen,
                       const char *b, size_t blen)
{
    struct podmap_ent *e = gs_vec_grow(t->e, &t->cap, (size_t)t->n + 1, sizeof(*e));
    if (!e) {
        t->lost++;
        return;
    }
    t->e = e;
    e = &t->e[t->n];
    e->key = strndup(key, klen);
    e->a = strndup(a, alen);
    e->b = b ? strndup(b, blen) : NULL;
    if (!e->key || !e->a || (b && !e->b)) {
        free(e->key);
        free(e->a);
        free(e->b);
        t->lost++;
        return;
    }
    t->n++;
}

/* "<namespace>_<pod>_<uid>": '_' cannot occur in namespace or pod names. */
static void podmap_pod_entry(struct gs_podmap *pm, const char *name)
{
    const char *u1 = strchr(name, '_');
    const char *u2 = strrchr(name, '_');
    if (!u1 || u1 == u2 || u1 == name || u2 == u1 + 1 || strlen(u2 + 1) < 32)
        return;
    podmap_add(&pm->pods, u2 + 1, strlen(u2 + 1), name, (size_t)(u1 - name), u1 + 1,
               (size_t)(u2 - u1 - 1));
}

/* "<pod>_<namespace>_<container>-<64 hex id>.log" */
static void podmap_ctr_entry(struct gs_podmap *pm, const char *name)
{
    size_t n = strlen(name);
    if (n < 4 + 64 + 1 || strcmp(name + n - 4, ".log"))
        return;
    const char *id = name + n - 4 - 64;
    if (id[-1] != '-' || strspn(id, "0123456789abcdef") != 64)
        return;
    const char *u1 = strchr(name, '_');
    const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
    if (!u2 || u2 + 1 >= id - 1)
        return;
    podmap_add(&pm->ctrs, id, 64, u2 + 1, (size_t)(id - 1 - (u2 + 1)), NULL, 0);
}

static void podmap_scan_dir(struct gs_podmap *pm, const char *sub,
                            void (*entry)(struct gs_podmap *, const char *))
{
    char path[600];
    snprintf(path, sizeof(path), "%s%s", pm->root, sub);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            entry(pm, de->d_name);
    closedir(d);
}

static void podmap_scan(struct gs_podmap *pm, uint64_t now_ns)
{
    podmap_tab_clear(&pm->pods);
    podmap_tab_clear(&pm->ctrs);
    podmap_scan_dir(pm, "/var/log/pods", podmap_pod_entry);
    podmap_scan_dir(pm, "/var/log/containers", podmap_ctr_entry);
    if (pm->pods.n)
        qsort(pm->pods.e, pm->pods.n, sizeof(*pm->pods.e), podmap_cmp);
    if (pm->ctrs.n)
        qsort(pm->ctrs.e, pm->ctrs.n, sizeof(*pm->ctrs.e), podmap_cmp);
    pm->scanned = true;
    pm->last_scan_ns = now_ns;
    /* Out of memory: entries are missing, so the next miss rescans in 5 s (not 60). */
    unsigned lost = pm->pods.lost + pm->ctrs.lost;
    pm->missed = lost != 0;
    if (lost && !pm->lost_logged)
        fprintf(stderr, "gpuscope serve: pod names: out of memory, %u entr%s of %s/var/log left out; "
                        "rescanning\n", lost, lost == 1 ? "y" : "ies", pm->root);
    pm->lost_logged = lost != 0;
}

void gs_podmap_tick(struct gs_podmap *pm, uint64_t now_ns)
{
    uint64_t age = now_ns - pm->last_scan_ns;
    if (!pm->scanned || age >= PODMAP_RESCAN_NS || (pm->missed && age >= PODMAP_MISS_RESCAN_NS))
        podmap_scan(pm, now_ns);
}

static const struct podmap_ent *podmap_find(struct gs_podmap *pm, const struct podmap_tab *t,
                                            const char *key)
{
    struct podmap_ent k = { .key = (char *)key };
    const struct podmap_ent *e = t->n ? bsearch(&k, t->e, t->n, sizeof(*t->e), podmap_cmp) : NULL;
    if (!e)
        pm->missed = true;
    return e;
}

bool gs_podmap_pod(struct gs_podmap *pm, const char *pod_uid, const char **ns, const char **pod)
{
    const struct podmap_ent *e = podmap_find(pm, &pm->pods, pod_uid);
    if (!e)
        return false;
    *ns = e->a;
    *pod = e->b;
    return true;
}

const char *gs_podmap_container(struct gs_podmap *pm, const char *container_id)
{
    const struct podmap_ent *e = podmap_find(pm, &pm->ctrs, container_id);
    return e ? e->a : NULL;
}

unsigned gs_podmap_npods(const struct gs_podmap *pm)
{
    return pm->pods.n;
}

unsigned gs_podmap_ncontainers(const struct gs_podmap *pm)
{
    return pm->ctrs.n;
}
