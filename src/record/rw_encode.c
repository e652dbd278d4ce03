/* SPDX-License-Identifier: MIT */
/*
 * rw_encode.c - stored sample rows to a Prometheus remote-write WriteRequest
 * (protobuf-c, src/record/remote.proto), snappy block compressed. Series are
 * named and labelled as `gpuscope serve` exposes them: names from serve's
 * tables (src/format/prom_tables.c) by sampler field, DCGM label set for the
 * DCGM_FI_* families and gpu/uuid for gpuscope_*, plus Hostname and instance;
 * labels sorted by name, as the specification demands.
 */
#include "record/rw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <snappy-c.h>

#include "record/remote.pb-c.h"
#include "format/prom_tables.h"

/* Database column -> sampler field, and the factor from the stored unit to the sampler's
 * (serve's tables scale the sampler's unit to the exported one). The energy column holds
 * deltas, not the counter DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION is: not sent. */
static const struct rw_col {
    uint8_t col;
    uint8_t field;
    double to_raw;
} rw_cols[] = {
    { GS_COL_UTIL, GS_F_GPU_UTIL, 1 },       { GS_COL_MEM_UTIL, GS_F_MEM_UTIL, 1 },
    { GS_COL_MEM_USED, GS_F_MEM_USED, 1048576 }, { GS_COL_TEMP, GS_F_TEMP_GPU, 1 },
    { GS_COL_MEM_TEMP, GS_F_TEMP_MEM, 1 },   { GS_COL_POWER, GS_F_POWER, 100 },
    { GS_COL_POWER_LIMIT, GS_F_POWER_ENFORCED, 1000 }, { GS_COL_SM_MHZ, GS_F_CLOCK_SM, 1 },
    { GS_COL_MEM_MHZ, GS_F_CLOCK_MEM, 1 },   { GS_COL_THROTTLE, GS_F_THROTTLE, 1 },
    { GS_COL_PSTATE, GS_F_PSTATE, 1 },       { GS_COL_PCIE_TX, GS_F_PCIE_TX, 1000 },
    { GS_COL_PCIE_RX, GS_F_PCIE_RX, 1000 },  { GS_COL_FAN, GS_F_FAN_SPEED, 1 },
};
#define RW_NCOLS (sizeof(rw_cols) / sizeof(rw_cols[0]))
#define RW_NLABELS 8

/* serve's family for a sampler field: the DCGM one where there is one, else gpuscope's. */
static const struct prom_desc *rw_desc(uint8_t field)
{
    const struct prom_desc *own = NULL;
    for (size_t t = 0; t < gs_prom_ntables; t++) {
        const struct prom_table *tb = &gs_prom_tables[t];
        if (tb->is_static || tb->drm_only)
            continue;
        for (size_t i = 0; i < tb->n; i++)
            if (tb->v[i].field == field) {
                if (tb->v[i].fam.dcgm)
                    return &tb->v[i];
                if (!own)
                    own = &tb->v[i];
            }
    }
    return own;
}

const char *gs_rw_col_name(int col)
{
    for (size_t i = 0; i < RW_NCOLS; i++)
        if (rw_cols[i].col == col) {
            const struct prom_desc *d = rw_desc(rw_cols[i].field);
            return d ? d->fam.name : NULL;
        }
    return NULL;
}

/* One series of one GPU: its sorted labels, whether write_relabel_configs keep it. */
struct rw_series {
    Prometheus__Label lab[RW_NLABELS];
    Prometheus__Label *labp[RW_NLABELS];
    size_t nlab;
    bool send;
    size_t n, at;                /* samples in this request, fill position */
};

struct rw_gpu_slot {
    struct gs_rw_gpu g;
    char dev[32], idx[16];
    struct rw_series s[RW_NCOLS];
};

struct gs_rw_enc {
    char host[256];
    const struct gs_rw_cfg *cfg;
    const struct prom_desc *desc[RW_NCOLS];
    double scale[RW_NCOLS], inv[RW_NCOLS];
    struct rw_gpu_slot **gpus;   /* each slot on its own: series point into it */
    size_t ngpus;
    /* per request, grown as needed */
    Prometheus__Sample *smp;
    Prometheus__Sample **smpp;
    size_t smp_cap;
    Prometheus__TimeSeries *ts;
    Prometheus__TimeSeries **tsp;
    size_t ts_cap;
    uint8_t *raw, *comp;
    size_t raw_cap, comp_cap;
};

int gs_rw_enc_new(struct gs_rw_enc **out, const char *hostname, const struct gs_rw_cfg *cfg, struct gs_err *err)
{
    struct gs_rw_enc *e = calloc(1, sizeof(*e));
    if (!e)
        return gs_err_set(err, GS_E_NOMEM, "remote write: out of memory");
    snprintf(e->host, sizeof(e->host), "%s", hostname ? hostname : "");
    e->cfg = cfg;
    for (size_t i = 0; i < RW_NCOLS; i++) {
        e->desc[i] = rw_desc(rw_cols[i].field);
        double sc = e->desc[i] ? e->desc[i]->scale : 1;
        e->scale[i] = rw_cols[i].to_raw * sc;
        /* dividing by an exact integer keeps decimal values exact (2505 dW -> 250.5 W) */
        double inv = 1.0 / e->scale[i];
        e->inv[i] = e->scale[i] < 1 && inv == rint(inv) ? inv : 0;
    }
    *out = e;
    return 0;
}

void gs_rw_enc_free(struct gs_rw_enc *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->ngpus; i++)
        free(e->gpus[i]);
    free(e->gpus);
    free(e->smp);
    free(e->smpp);
    free(e->ts);
    free(e->tsp);
    free(e->raw);
    free(e->comp);
    free(e);
}

static struct rw_gpu_slot *rw_slot(const struct gs_rw_enc *e, int id)
{
    for (size_t i = 0; i < e->ngpus; i++)
        if (e->gpus[i]->g.id == id)
            return e->gpus[i];
    return NULL;
}

bool gs_rw_enc_knows(const struct gs_rw_enc *e, int gpu)
{
    return rw_slot(e, gpu) != NULL;
}

static int label_cmp(const void *a, const void *b)
{
    return strcmp((*(Prometheus__Label *const *)a)->name, (*(Prometheus__Label *const *)b)->name);
}

static void rw_add_label(struct rw_series *s, const char *name, const char *value)
{
    Prometheus__Label *l = &s->lab[s->nlab];
    prometheus__label__init(l);
    l->name = (char *)name;
    l->value = (char *)value;
    s->labp[s->nlab] = l;
    s->nlab++;
}

/* The value of label name in series s ("" when absent), for write_relabel_configs. */
static const char *rw_label_value(const struct rw_series *s, const char *name)
{
    for (size_t i = 0; i < s->nlab; i++)
        if (!strcmp(s->lab[i].name, name))
            return s->lab[i].value;
    return "";
}

static bool rw_relabel_keep(const struct gs_rw_cfg *cfg, const struct rw_series *s)
{
    for (size_t r = 0; cfg && r < cfg->nrelabel; r++) {
        const struct gs_rw_relabel *rl = &cfg->relabel[r];
        char joined[1024];
        size_t at = 0;
        joined[0] = '\0';
        for (size_t k = 0; k < rl->nsrc; k++) {
            int n = snprintf(joined + at, sizeof(joined) - at, "%s%s", k ? rl->sep : "", rw_label_value(s, rl->src[k]));
            if (n < 0 || (size_t)n >= sizeof(joined) - at)
                break;
            at += (size_t)n;
        }
        bool match = regexec(&rl->re, joined, 0, NULL, 0) == 0;
        if (match != rl->keep)
            return false;
    }
    return true;
}

int gs_rw_enc_gpu(struct gs_rw_enc *e, const struct gs_rw_gpu *g)
{
    struct rw_gpu_slot *sl = rw_slot(e, g->id);
    if (!sl) {
        struct rw_gpu_slot **n = realloc(e->gpus, (e->ngpus + 1) * sizeof(*n));
        if (!n)
            return -GS_E_NOMEM;
        e->gpus = n;
        if (!(sl = malloc(sizeof(*sl))))
            return -GS_E_NOMEM;
        e->gpus[e->ngpus++] = sl;
    }
    memset(sl, 0, sizeof(*sl));
    sl->g = *g;
    snprintf(sl->dev, sizeof(sl->dev), "nvidia%d", g->idx);
    snprintf(sl->idx, sizeof(sl->idx), "%d", g->idx);
    for (size_t i = 0; i < RW_NCOLS; i++) {
        struct rw_series *s = &sl->s[i];
        if (!e->desc[i])
            continue;
        rw_add_label(s, "__name__", e->desc[i]->fam.name);
        rw_add_label(s, "gpu", sl->idx);
        rw_add_label(s, "Hostname", e->host);
        rw_add_label(s, "instance", e->host);
        if (e->desc[i]->fam.dcgm) {
            rw_add_label(s, "UUID", sl->g.uuid);
            rw_add_label(s, "pci_bus_id", sl->g.pci);
            rw_add_label(s, "device", sl->dev);
            rw_add_label(s, "modelName", sl->g.name);
        } else {
            rw_add_label(s, "uuid", sl->g.uuid);
        }
        qsort(s->labp, s->nlab, sizeof(s->labp[0]), label_cmp);
        s->send = rw_relabel_keep(e->cfg, s);
    }
    return 0;
}

size_t gs_rw_enc_count(const struct gs_rw_enc *e, const struct gs_rw_row *r)
{
    const struct rw_gpu_slot *sl = rw_slot(e, r->gpu);
    size_t n = 0;
    for (size_t i = 0; sl && i < RW_NCOLS; i++)
        n += sl->s[i].send && (r->have >> rw_cols[i].col & 1);
    return n;
}

static int rw_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *n = realloc(*p, c * elem);
    if (!n)
        return -GS_E_NOMEM;
    *p = n;
    *cap = c;
    return 0;
}

/* Count samples per series, then lay the series out with their samples in row (time) order. */
static int rw_build(struct gs_rw_enc *e, const struct gs_rw_row *rows, size_t n, Prometheus__WriteRequest *wr,
                    size_t *nsamples)
{
    size_t total = 0, nts = 0;
    for (size_t g = 0; g < e->ngpus; g++)
        for (size_t i = 0; i < RW_NCOLS; i++)
            e->gpus[g]->s[i].n = e->gpus[g]->s[i].at = 0;
    for (size_t r = 0; r < n; r++) {
        struct rw_gpu_slot *sl = rw_slot(e, rows[r].gpu);
        for (size_t i = 0; sl && i < RW_NCOLS; i++)
            if (sl->s[i].send && (rows[r].have >> rw_cols[i].col & 1)) {
                nts += !sl->s[i].n++;
                total++;
            }
    }
    size_t smp_cap = e->smp_cap, ts_cap = e->ts_cap;
    if (rw_grow((void **)&e->smp, &smp_cap, total, sizeof(*e->smp)) < 0 ||
        rw_grow((void **)&e->smpp, &e->smp_cap, total, sizeof(*e->smpp)) < 0 ||
        rw_grow((void **)&e->ts, &ts_cap, nts, sizeof(*e->ts)) < 0 ||
        rw_grow((void **)&e->tsp, &e->ts_cap, nts, sizeof(*e->tsp)) < 0)
        return -GS_E_NOMEM;
    size_t at = 0, k = 0;
    for (size_t g = 0; g < e->ngpus; g++)
        for (size_t i = 0; i < RW_NCOLS; i++) {
            struct rw_series *s = &e->gpus[g]->s[i];
            if (!s->n)
                continue;
            Prometheus__TimeSeries *ts = &e->ts[k];
            prometheus__time_series__init(ts);
            ts->n_labels = s->nlab;
            ts->labels = s->labp;
            ts->n_samples = s->n;
            ts->samples = &e->smpp[at];
            e->tsp[k++] = ts;
            s->at = at;
            at += s->n;
        }
    for (size_t r = 0; r < n; r++) {
        struct rw_gpu_slot *sl = rw_slot(e, rows[r].gpu);
        for (size_t i = 0; sl && i < RW_NCOLS; i++) {
            struct rw_series *s = &sl->s[i];
            if (!s->send || !(rows[r].have >> rw_cols[i].col & 1))
                continue;
            Prometheus__Sample *p = &e->smp[s->at];
            prometheus__sample__init(p);
            double raw = (double)rows[r].v[rw_cols[i].col];
            p->value = e->inv[i] ? raw / e->inv[i] : raw * e->scale[i];
            if (e->desc[i]->fmt == PF_INT)
                p->value = trunc(p->value);
            p->timestamp = rows[r].t;
            e->smpp[s->at++] = p;
        }
    }
    prometheus__write_request__init(wr);
    wr->n_timeseries = nts;
    wr->timeseries = e->tsp;
    *nsamples = total;
    return 0;
}

int gs_rw_encode_raw(struct gs_rw_enc *e, const struct gs_rw_row *rows, size_t n, const void **out, size_t *len,
                     size_t *nsamples, struct gs_err *err)
{
    Prometheus__WriteRequest wr;
    if (rw_build(e, rows, n, &wr, nsamples) < 0 ||
        rw_grow((void **)&e->raw, &e->raw_cap, prometheus__write_request__get_packed_size(&wr) + 1, 1) < 0)
        return gs_err_set(err, GS_E_NOMEM, "remote write: out of memory encoding %zu rows", n);
    *len = prometheus__write_request__pack(&wr, e->raw);
    *out = e->raw;
    return 0;
}

int gs_rw_encode(struct gs_rw_enc *e, const struct gs_rw_row *rows, size_t n, const void **out, size_t *len,
                 size_t *nsamples, struct gs_err *err)
{
    const void *raw;
    size_t rawlen;
    if (gs_rw_encode_raw(e, rows, n, &raw, &rawlen, nsamples, err) < 0)
        return -err->code;
    size_t clen = snappy_max_compressed_length(rawlen);
    if (rw_grow((void **)&e->comp, &e->comp_cap, clen, 1) < 0)
        return gs_err_set(err, GS_E_NOMEM, "remote write: out of memory compressing %zu bytes", rawlen);
    if (snappy_compress(raw, rawlen, (char *)e->comp, &clen) != SNAPPY_OK)
        return gs_err_set(err, GS_E_INTERNAL, "remote write: snappy could not compress %zu bytes", rawlen);
    *out = e->comp;
    *len = clen;
    return 0;
}
