/* SPDX-License-Identifier: MIT */
/*
 * fdinfo.c - the DRM fdinfo parser and the key tables of amdgpu, i915 and
 * xe (see fdinfo.h). Engine and region names come from the drivers'
 * fdinfo code: amdgpu_fdinfo.c (amdgpu_ip_name[], pl_name[]),
 * Documentation/gpu/i915.rst "i915 DRM client usage stats" (engine class
 * names; regions system0, local0, stolen-*), xe_drm_client.c's documented
 * example (drm-cycles-rcs/bcs/vcs/vecs/ccs, regions system, gtt, vram0,
 * stolen).
 */
#include "backend/drm/fdinfo.h"

#include <string.h>

/* ---- the drivers' tables ---------------------------------------------------------- */

static const struct gs_fdinfo_engine amdgpu_engines[] = {
    { "gfx", 0 }, { "compute", 1 }, { "dma", 2 }, { "dec", 3 }, { "enc", 4 },
    { "jpeg", 5 }, { "enc_1", 6 }, { "vpe", 7 }, { NULL, 0 },
};
static const struct gs_fdinfo_region amdgpu_regions[] = {
    { "vram", GS_FDINFO_MEM_DEVICE }, { "gtt", GS_FDINFO_MEM_SYSTEM }, { NULL, 0 },
};
const struct gs_fdinfo_keys gs_fdinfo_amdgpu = {
    "amdgpu", 8, { "gfx", "compute", "dma", "dec", "enc", "jpeg", "enc_1", "vpe" },
    amdgpu_engines, amdgpu_regions,
};

static const struct gs_fdinfo_engine i915_engines[] = {
    { "render", 0 }, { "copy", 1 }, { "video", 2 }, { "video-enhance", 3 }, { "compute", 4 }, { NULL, 0 },
};
static const struct gs_fdinfo_region i915_regions[] = {
    { "local*", GS_FDINFO_MEM_DEVICE }, { "system*", GS_FDINFO_MEM_SYSTEM }, { NULL, 0 },
};
const struct gs_fdinfo_keys gs_fdinfo_i915 = {
    "i915", 5, { "render", "copy", "video", "video-enhance", "compute" }, i915_engines, i915_regions,
};

/* xe names engines by hardware class; shown with i915's names so that one
 * Intel GPU reads the same under either driver. */
static const struct gs_fdinfo_engine xe_engines[] = {
    { "rcs", 0 }, { "bcs", 1 }, { "vcs", 2 }, { "vecs", 3 }, { "ccs", 4 }, { NULL, 0 },
};
static const struct gs_fdinfo_region xe_regions[] = {
    { "vram*", GS_FDINFO_MEM_DEVICE }, { "gtt", GS_FDINFO_MEM_SYSTEM }, { "system", GS_FDINFO_MEM_SYSTEM },
    { NULL, 0 },
};
const struct gs_fdinfo_keys gs_fdinfo_xe = {
    "xe", 5, { "render", "copy", "video", "video-enhance", "compute" }, xe_engines, xe_regions,
};

const struct gs_fdinfo_keys *const gs_fdinfo_drivers[] = { &gs_fdinfo_amdgpu, &gs_fdinfo_i915, &gs_fdinfo_xe,
                                                           NULL };

const struct gs_fdinfo_keys *gs_fdinfo_keys_for(const char *driver)
{
    for (unsigned i = 0; gs_fdinfo_drivers[i]; i++)
        if (!strcmp(gs_fdinfo_drivers[i]->driver, driver))
            return gs_fdinfo_drivers[i];
    return NULL;
}

/* ---- values ----------------------------------------------------------------------- */

/* "<digits>[ <unit>]" with unit "", ns, KiB or MiB (the spec's units; the
 * kernel prints bytes bare). Returns false when it is not that. */
static bool fdi_number(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0;
    size_t i = 0;

    if (!n)
        return false;
    for (; i < n && v[i] >= '0' && v[i] <= '9'; i++) {
        unsigned d = (unsigned)(v[i] - '0');
        if (i >= 19 && x > (UINT64_MAX - d) / 10) /* 19 digits always fit */
            return false;
        x = x * 10 + d;
    }
    if (i == 0)
        return false;
    while (i < n && (v[i] == ' ' || v[i] == '\t'))
        i++;
    const char *u = v + i;
    size_t ul = n - i;
    uint64_t mul = 1;
    if (ul == 3 && !memcmp(u, "KiB", 3))
        mul = 1024;
    else if (ul == 3 && !memcmp(u, "MiB", 3))
        mul = 1024 * 1024;
    else if (ul == 3 && !memcmp(u, "GiB", 3))
        mul = UINT64_C(1024) * 1024 * 1024;
    else if (!(ul == 0 || (ul == 2 && !memcmp(u, "ns", 2))))
        return false;
    if (x > UINT64_MAX / mul)
        return false;
    *out = x * mul;
    return true;
}

static void fdi_copy(char *dst, size_t cap, const char *src, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The table of the driver a drm-driver value names (up to a NUL, as a C string). */
static const struct gs_fdinfo_keys *fdi_driver(const char *v, size_t n)
{
    char name[24];

    fdi_copy(name, sizeof(name), v, n);
    return gs_fdinfo_keys_for(name);
}

/* Is key (a C string) the n bytes of s? No library call: this runs ~20 times a fdinfo text. */
static bool fdi_eq(const char *key, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && key[i] && key[i] == s[i])
        i++;
    return i == n && !key[i];
}

static int fdi_engine_slot(const struct gs_fdinfo_keys *k, const char *name, size_t n)
{
    for (const struct gs_fdinfo_engine *e = k->engines; e->key; e++)
        if (e->key[0] == name[0] && fdi_eq(e->key, name, n))
            return e->slot;
    return -1;
}

/* A region table name matches exactly, or as a prefix when it ends in '*'. */
static bool fdi_region_is(const char *rname, const char *name, size_t n)
{
    size_t i = 0;
    while (i < n && rname[i] && rname[i] != '*' && rname[i] == name[i])
        i++;
    if (rname[i] == '*' && !rname[i + 1])
        return true;
    return i == n && !rname[i];
}

static int fdi_region(const struct gs_fdinfo_keys *k, const char *name, size_t n)
{
    for (const struct gs_fdinfo_region *r = k->regions; r->name; r++)
        if (r->name[0] == name[0] && fdi_region_is(r->name, name, n))
            return r->mem;
    return GS_FDINFO_MEM_IGNORE;
}

/* ---- the parser ------------------------------------------------------------------- */

/* One "drm-<key>:<blanks><value>" line: the key without "drm-", the value trimmed. */
struct fdi_line {
    const char *key, *val;
    size_t klen, vlen;
};

/* Does the key start with pfx (n bytes) and go on? Then *rest is what follows. */
static bool fdi_rest(const struct fdi_line *l, const char *pfx, size_t n, const char **rest, size_t *rlen)
{
    if (l->klen <= n || memcmp(l->key, pfx, n) != 0)
        return false;
    *rest = l->key + n;
    *rlen = l->klen - n;
    return true;
}

static bool fdi_is(const struct fdi_line *l, const char *key, size_t n)
{
    return l->klen == n && !memcmp(l->key, key, n);
}

/* Region sizes: drm-resident-<r> wins over its alias drm-memory-<r>, which
 * wins over drm-total-<r> (created, not necessarily backed). */
enum { FDI_RESIDENT, FDI_MEMORY, FDI_TOTAL };
struct fdi_mem {
    uint64_t v[3][3]; /* [mem kind][source] */
    uint8_t seen[3];  /* bit per source */
};

static void fdi_mem_line(const struct gs_fdinfo_keys *k, const struct fdi_line *l, int src, const char *r,
                         size_t rl, struct fdi_mem *m)
{
    uint64_t v;
    int kind = fdi_region(k, r, rl);

    if (kind == GS_FDINFO_MEM_IGNORE || !fdi_number(l->val, l->vlen, &v))
        return;
    m->v[kind][src] += v; /* vram0 + vram1, or system + gtt */
    m->seen[kind] |= (uint8_t)(1u << src);
}

/* drm-engine-<e>, drm-engine-capacity-<e>, drm-cycles-<e>, drm-total-cycles-<e>. */
enum { FDI_NS, FDI_CAPACITY, FDI_CYCLES, FDI_TOTAL_CYCLES };
static void fdi_engine_line(const struct gs_fdinfo_keys *k, const struct fdi_line *l, int what, const char *e,
                            size_t el, struct gs_fdinfo *o)
{
    uint64_t v;
    int slot;

    if (!fdi_number(l->val, l->vlen, &v) || (slot = fdi_engine_slot(k, e, el)) < 0)
        return;
    if (what == FDI_CAPACITY) {
        if (v > 0 && v <= 1024)
            o->capacity[slot] = (uint32_t)v;
    } else if (what == FDI_NS) {
        o->engine_ns[slot] += v; /* amdgpu names dec and enc twice (UVD and VCN) */
        o->have_ns |= 1u << slot;
    } else if (what == FDI_TOTAL_CYCLES) {
        o->total_cycles[slot] = v, o->have_cycles |= 1u << (slot + 16);
    } else {
        o->cycles[slot] = v, o->have_cycles |= 1u << slot;
    }
}

/* One drm- line, dispatched on its key's first letter; only the keys used are
 * looked at (shared-, active-, purgeable- and unknown keys are skipped). Returns
 * false for a line that needs the driver's table before the driver is known. */
/* The driver as the first drm-driver line names it (named: that line was met). */
struct fdi_drv {
    const struct gs_fdinfo_keys *k;
    bool named;
};

static bool fdi_line(const struct fdi_line *l, struct fdi_drv *d, struct gs_fdinfo *o, struct fdi_mem *m)
{
    const char *r;
    size_t rl;
    uint64_t v;
    int eng = -1, mem = -1;

    switch (l->klen ? l->key[0] : 0) {
    case 'd':
        if (!d->named && fdi_is(l, "driver", 6))
            d->k = fdi_driver(l->val, l->vlen), d->named = true;
        return true;
    case 'p':
        if (fdi_is(l, "pdev", 4))
            fdi_copy(o->pdev, sizeof(o->pdev), l->val, l->vlen);
        return true;
    case 'c':
        if (fdi_is(l, "client-id", 9)) {
            if (fdi_number(l->val, l->vlen, &v))
                o->client_id = v, o->has_client_id = true;
            return true;
        }
        if (fdi_is(l, "client-name", 11)) {
            fdi_copy(o->client_name, sizeof(o->client_name), l->val, l->vlen);
            return true;
        }
        if (fdi_rest(l, "cycles-", 7, &r, &rl))
            eng = FDI_CYCLES;
        break;
    case 'e':
        if (fdi_rest(l, "engine-capacity-", 16, &r, &rl))
            eng = FDI_CAPACITY;
        else if (fdi_rest(l, "engine-", 7, &r, &rl))
            eng = FDI_NS;
        break;
    case 't':
        if (fdi_rest(l, "total-cycles-", 13, &r, &rl))
            eng = FDI_TOTAL_CYCLES;
        else if (l->klen >= 8 && !memcmp(l->key, "total-cy", 8))
            return true; /* "total-cycles-" with no engine, or a near miss: not memory */
        else if (fdi_rest(l, "total-", 6, &r, &rl))
            mem = FDI_TOTAL;
        break;
    case 'r':
        if (fdi_rest(l, "resident-", 9, &r, &rl))
            mem = FDI_RESIDENT;
        break;
    case 'm':
        if (fdi_rest(l, "memory-", 7, &r, &rl))
            mem = FDI_MEMORY;
        break;
    default:
        break;
    }
    if (eng < 0 && mem < 0)
        return true;
    if (!d->k)
        return false;
    if (eng >= 0)
        fdi_engine_line(d->k, l, eng, r, rl, o);
    else
        fdi_mem_line(d->k, l, mem, r, rl, m);
    return true;
}

/* Could a key that starts with c (after "drm-") be one fdi_line() uses? Most
 * of a text is shared-, active- and purgeable- lines: they are passed over
 * before their colon is looked for. */
static bool fdi_first_wanted(char c)
{
    return c == 'd' || c == 'p' || c == 'c' || c == 'e' || c == 't' || c == 'r' || c == 'm';
}

/* The drm- line at line (before e), split into key and trimmed value; false
 * when it has no colon or is not a key fdi_line() uses. */
static bool fdi_split(const char *line, const char *e, struct fdi_line *l)
{
    const char *colon = memchr(line + 4, ':', (size_t)(e - line - 4));

    if (!colon)
        return false;
    l->key = line + 4;
    l->klen = (size_t)(colon - l->key);
    if ((l->key[0] == 'd' && l->klen != 6) || (l->key[0] == 'p' && l->klen != 4))
        return false; /* only drm-driver and drm-pdev start so */
    l->val = colon + 1;
    while (l->val < e && (*l->val == ' ' || *l->val == '\t'))
        l->val++;
    l->vlen = (size_t)(e - l->val);
    while (l->vlen && (l->val[l->vlen - 1] == ' ' || l->val[l->vlen - 1] == '\t' || l->val[l->vlen - 1] == '\r'))
        l->vlen--;
    return true;
}

/* One pass over the text's drm- lines. Returns false when some line needed the
 * driver's table before the drm-driver line came (the caller passes again). */
static bool fdi_pass(const char *text, size_t len, struct fdi_drv *d, struct gs_fdinfo *o, struct fdi_mem *m)
{
    const char *p = text, *end = text + len;
    bool all = true;

    while (p < end) {
        const char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        struct fdi_line l;
        p = nl ? nl + 1 : end;
        /* pos, flags, mnt_id, ino, pasid, amd-*: not drm- lines */
        if (e - line < 5 || memcmp(line, "drm-", 4) != 0 || !fdi_first_wanted(line[4]) || !fdi_split(line, e, &l))
            continue;
        if (!fdi_line(&l, d, o, m))
            all = false;
    }
    return all;
}

static void fdi_reset(struct gs_fdinfo *out, struct fdi_mem *m)
{
    memset(out, 0, sizeof(*out));
    memset(m, 0, sizeof(*m));
    for (unsigned i = 0; i < GS_MAX_ENGINES; i++)
        out->capacity[i] = 1;
}

/* One pass: the kernels print drm-driver first (drm_show_fdinfo), so a second
 * pass is needed only for text that names its driver after its counters. */
int gs_fdinfo_parse(const char *text, size_t len, struct gs_fdinfo *out)
{
    struct fdi_drv d = { NULL, false };
    struct fdi_mem m;

    fdi_reset(out, &m);
    if (!fdi_pass(text, len, &d, out, &m) && d.k) {
        fdi_reset(out, &m);
        fdi_pass(text, len, &d, out, &m);
    }
    if (!d.k) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    out->keys = d.k;
    /* cycles count only with their total (xe prints both or neither) */
    uint32_t both = out->have_cycles & (out->have_cycles >> 16) & 0xffffu;
    out->have_cycles = both;
    for (int kind = 1; kind < 3; kind++) {
        int s = m.seen[kind] & 1 ? 0 : m.seen[kind] & 2 ? 1 : m.seen[kind] & 4 ? 2 : -1;
        if (s < 0)
            continue;
        out->mem_bytes[kind] = m.v[kind][s];
        out->has_mem = true;
    }
    return 0;
}
