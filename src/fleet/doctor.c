/* SPDX-License-Identifier: MIT */
/*
 * doctor.c - `gpuscope doctor --prometheus URL`: the fleet's health on one
 * screen, from six PromQL queries whatever the fleet's size (exported as
 * gs_fleet_doctor, prom_api.h):
 *   1. the state now: ECC, page retirement, row remapping, clock-event
 *      (throttle) reasons, temperature against the slowdown threshold
 *   2. Xids in the last hour (dcgm-exporter's last-Xid gauge), with the words
 *      and actions of the health engine's Xid catalog
 *   3. GPUs missing against the node's usual count (GPUs seen in the last day)
 *   4. utilization pinned at 99 % or more, unchanged over the window
 * Each finding names the node and the GPU and says what to do; the codes are
 * the health engine's where the check is the same (ecc.remap_failed, xid.79).
 */
#include "backend/prom/prom_priv.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "health/health.h"

#define FD_BY "Hostname,hostname,instance,gpu,UUID"
#define FD_NODE "Hostname,hostname,instance"

struct fd_finding {
    struct gs_finding f;
    char host[GS_PROM_LABEL_MAX + 1];
    long gpu;            /* -1: the node */
};

struct fd {
    struct gs_prom *p;
    const struct gs_fleet_doctor_opts *o;
    char base[800];       /* {GPU_I_ID="",--match} */
    struct fd_finding *v;
    size_t n, cap;
    size_t gpus;          /* GPUs with series now */
    size_t nodes;
};

/* ---- findings ----------------------------------------------------------------------------- */

static const char *fd_host(const struct gs_prom_series *s)
{
    const char *h = gs_prom_label(s, "Hostname");
    if (!h || !h[0])
        h = gs_prom_label(s, "hostname");
    if (!h || !h[0])
        h = gs_prom_label(s, "instance");
    return h && h[0] ? h : "?";
}

static long fd_gpu(const struct gs_prom_series *s)
{
    const char *g = gs_prom_label(s, "gpu");
    char *end;
    long n = g && *g ? strtol(g, &end, 10) : -1;
    return g && *g && !*end && n >= 0 ? n : -1;
}

static struct gs_finding *fd_add(struct fd *d, enum gs_sev sev, const char *host, long gpu, const char *code)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 32;
        struct fd_finding *v = realloc(d->v, cap * sizeof(*v));
        if (!v)
            return NULL;
        d->v = v;
        d->cap = cap;
    }
    struct fd_finding *x = &d->v[d->n++];
    memset(x, 0, sizeof(*x));
    snprintf(x->host, sizeof(x->host), "%s", host);
    x->gpu = gpu;
    x->f.severity = (uint8_t)sev;
    x->f.gpu = (int32_t)gpu;
    snprintf(x->f.code, sizeof(x->f.code), "%s", code);
    return &x->f;
}

#define FD_PUT(buf, ...) snprintf((buf), sizeof(buf), __VA_ARGS__)

/* ---- 1. the state now --------------------------------------------------------------------- */

struct fd_gpu_state {
    const char *host;
    long gpu;
    double v[9];          /* by fd_state_names order, NaN: no series */
};

static const char *const fd_state_names[9] = {
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ROW_REMAP_FAILURE", "DCGM_FI_DEV_ROW_REMAP_PENDING",
    "DCGM_FI_DEV_RETIRED_PENDING", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS",
    "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_SLOWDOWN_TEMP", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS",
};
enum { FS_DBE, FS_REMAP_FAIL, FS_REMAP_PEND, FS_RETIRED_PEND, FS_REMAP_UNC, FS_REASONS, FS_TEMP, FS_SLOW, FS_REMAP_COR };

static void fd_memory(struct fd *d, const struct fd_gpu_state *g)
{
    struct gs_finding *f;
    if (g->v[FS_DBE] > 0 && (f = fd_add(d, GS_SEV_CRITICAL, g->host, g->gpu, "ecc.uncorrectable"))) {
        FD_PUT(f->title, "uncorrectable ECC errors");
        FD_PUT(f->evidence, "%.0f volatile uncorrectable ECC errors since the driver loaded", g->v[FS_DBE]);
        FD_PUT(f->cause, "a double-bit (uncorrectable) memory error; the application that read it received an error");
        FD_PUT(f->action, "reset the GPU (or reboot the node); run field diagnostics if errors recur");
    }
    if (g->v[FS_REMAP_FAIL] > 0 && (f = fd_add(d, GS_SEV_CRITICAL, g->host, g->gpu, "ecc.remap_failed"))) {
        FD_PUT(f->title, "row remapping failed");
        FD_PUT(f->evidence, "row remapping failure flag set; %.0f uncorrectable, %.0f correctable rows remapped",
               isnan(g->v[FS_REMAP_UNC]) ? 0 : g->v[FS_REMAP_UNC], isnan(g->v[FS_REMAP_COR]) ? 0 : g->v[FS_REMAP_COR]);
        FD_PUT(f->cause, "a bank ran out of spare rows, or a remapped row failed again");
        FD_PUT(f->action, "drain the node's GPU and run NVIDIA field diagnostics: a confirmed failure flag meets the "
                          "RMA criteria");
    } else if (g->v[FS_REMAP_PEND] > 0 && (f = fd_add(d, GS_SEV_WARNING, g->host, g->gpu, "ecc.remap_pending"))) {
        FD_PUT(f->title, "row remap pending a GPU reset");
        FD_PUT(f->evidence, "row remap pending (flag %.0f)", g->v[FS_REMAP_PEND]);
        FD_PUT(f->cause, "a memory row was marked for remapping; it takes effect at the next GPU reset");
        FD_PUT(f->action, "reset the GPU when its jobs are done (nvidia-smi -r, or drain and reboot the node)");
    }
    if (g->v[FS_RETIRED_PEND] > 0 && (f = fd_add(d, GS_SEV_WARNING, g->host, g->gpu, "ecc.retired_pending"))) {
        FD_PUT(f->title, "page retirement pending");
        FD_PUT(f->evidence, "retired pages pending (flag 1)");
        FD_PUT(f->cause, "a memory page was retired; it takes effect when the driver reloads or the GPU resets");
        FD_PUT(f->action, "reset the GPU or reload the driver when its jobs are done");
    }
}

static void fd_thermal(struct fd *d, const struct fd_gpu_state *g)
{
    double r = g->v[FS_REASONS];
    uint64_t bits = isfinite(r) && r >= 0 && r < 1e18 ? (uint64_t)r : 0;
    struct gs_finding *f;
    char temp[80] = "";

    if (!isnan(g->v[FS_TEMP]))
        snprintf(temp, sizeof(temp), "; %.0f C%s%.0f C", g->v[FS_TEMP], isnan(g->v[FS_SLOW]) ? "" : ", slowdown at ",
                 isnan(g->v[FS_SLOW]) ? NAN : g->v[FS_SLOW]);
    if (isnan(g->v[FS_SLOW]) && !isnan(g->v[FS_TEMP]))
        snprintf(temp, sizeof(temp), "; %.0f C", g->v[FS_TEMP]);
    if (bits & (GS_THROTTLE_HW_SLOWDOWN | GS_THROTTLE_HW_THERMAL | GS_THROTTLE_HW_POWER_BRAKE)) {
        bool brake = (bits & GS_THROTTLE_HW_POWER_BRAKE) && !(bits & (GS_THROTTLE_HW_SLOWDOWN | GS_THROTTLE_HW_THERMAL));
        if (!(f = fd_add(d, GS_SEV_WARNING, g->host, g->gpu, brake ? "power.hw_power_brake" : "thermal.hw_slowdown")))
            return;
        FD_PUT(f->title, "%s", brake ? "hardware power brake" : "hardware slowdown");
        FD_PUT(f->evidence, "clock-event reasons 0x%llx now (%s%s%s)%s", (unsigned long long)bits,
               bits & GS_THROTTLE_HW_SLOWDOWN ? "HW slowdown " : "", bits & GS_THROTTLE_HW_THERMAL ? "HW thermal " : "",
               bits & GS_THROTTLE_HW_POWER_BRAKE ? "HW power brake" : "", temp);
        FD_PUT(f->cause, "the GPU cut its clocks by half or more: too hot (cooling fault), or power-delivery protection");
        FD_PUT(f->action, "drain the GPU; check fans, inlet temperature, airflow, the BMC event log and PSUs; compare "
                          "with the node's other GPUs (one GPU: that slot or card; all: chassis or facility)");
    } else if (bits & GS_THROTTLE_SW_THERMAL) {
        if (!(f = fd_add(d, GS_SEV_WARNING, g->host, g->gpu, "thermal.sw_slowdown")))
            return;
        FD_PUT(f->title, "software thermal slowdown");
        FD_PUT(f->evidence, "clock-event reasons 0x%llx now (SW thermal)%s", (unsigned long long)bits, temp);
        FD_PUT(f->cause, "the GPU reached its maximum operating temperature under load");
        FD_PUT(f->action, "check fans, inlet temperature and airflow; compare with the node's other GPUs");
    } else if (!isnan(g->v[FS_TEMP]) && !isnan(g->v[FS_SLOW]) && g->v[FS_SLOW] > 0 &&
               g->v[FS_TEMP] >= g->v[FS_SLOW] - 5 && (f = fd_add(d, GS_SEV_WARNING, g->host, g->gpu, "thermal.near_slowdown"))) {
        FD_PUT(f->title, "%.0f C, %.0f C from slowdown", g->v[FS_TEMP], g->v[FS_SLOW] - g->v[FS_TEMP]);
        FD_PUT(f->evidence, "%.0f C with the slowdown threshold at %.0f C", g->v[FS_TEMP], g->v[FS_SLOW]);
        FD_PUT(f->cause, "cooling barely keeps up: the next load step throttles it");
        FD_PUT(f->action, "check fans, inlet temperature and airflow before it throttles");
    }
    if ((bits & GS_THROTTLE_SW_POWER_CAP) && (f = fd_add(d, GS_SEV_INFO, g->host, g->gpu, "power.sw_cap"))) {
        FD_PUT(f->title, "held at its power limit");
        FD_PUT(f->evidence, "clock-event reasons 0x%llx now (SW power cap)", (unsigned long long)bits);
        FD_PUT(f->cause, "the workload draws the configured power limit: normal under full load");
        FD_PUT(f->action, "nothing, unless the limit was lowered by mistake (compare with the default limit)");
    }
}

static int fd_find_state(struct fd_gpu_state *v, size_t n, const char *host, long gpu)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].gpu == gpu && !strcmp(v[i].host, host))
            return (int)i;
    return -1;
}

static int fd_state(struct fd *d, struct gs_err *err)
{
    struct gs_prom_result r;
    char q[2048], names[600] = "";
    for (size_t k = 0; k < 9; k++)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", k ? "|" : "", fd_state_names[k]);
    snprintf(q, sizeof(q), "max by (__name__," FD_BY ") ({__name__=~\"%s\",%s)", names, d->base + 1);
    int rc = gs_prom_query(d->p, q, 0, &r, err);
    if (rc < 0)
        return rc;
    struct fd_gpu_state *v = calloc(r.n ? r.n : 1, sizeof(*v));
    size_t n = 0;
    if (!v) {
        gs_prom_result_free(&r);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < r.n; i++) {
        const char *name = gs_prom_label(&r.s[i], "__name__"), *host = fd_host(&r.s[i]);
        long gpu = fd_gpu(&r.s[i]);
        int at = gpu < 0 ? -1 : fd_find_state(v, n, host, gpu);
        if (gpu < 0 || !name)
            continue;
        if (at < 0) {
            at = (int)n++;
            v[at].host = host;
            v[at].gpu = gpu;
            for (size_t k = 0; k < 9; k++)
                v[at].v[k] = NAN;
        }
        for (size_t k = 0; k < 9; k++)
            if (!strcmp(name, fd_state_names[k]) && r.s[i].npoints)
                v[at].v[k] = r.s[i].v[0];
    }
    for (size_t i = 0; i < n; i++) {
        fd_memory(d, &v[i]);
        fd_thermal(d, &v[i]);
    }
    free(v);
    gs_prom_result_free(&r);
    return 0;
}

/* ---- 2. Xids, 3. missing GPUs, 4. pinned utilization --------------------------------------- */

static int fd_xids(struct fd *d, struct gs_err *err)
{
    struct gs_prom_result r;
    char q[1024];
    snprintf(q, sizeof(q), "max by (" FD_BY ") (max_over_time(DCGM_FI_DEV_XID_ERRORS%s[1h]) > 0)", d->base);
    int rc = gs_prom_query(d->p, q, 0, &r, err);
    for (size_t i = 0; rc == 0 && i < r.n; i++) {
        if (!r.s[i].npoints || !(r.s[i].v[0] >= 1 && r.s[i].v[0] < 100000))
            continue;
        uint32_t xid = (uint32_t)r.s[i].v[0];
        const struct gs_xid_info *x = gs_xid_lookup(xid);
        char code[32];
        snprintf(code, sizeof(code), "xid.%u", xid);
        struct gs_finding *f = fd_add(d, x ? (enum gs_sev)x->severity : GS_SEV_WARNING, fd_host(&r.s[i]),
                                      fd_gpu(&r.s[i]), code);
        if (!f)
            break;
        f->value = xid;
        FD_PUT(f->title, "Xid %u%s%s", xid, x ? ": " : "", x ? x->words : "");
        FD_PUT(f->evidence, "Xid %u is the highest the GPU reported in the last hour (DCGM_FI_DEV_XID_ERRORS)", xid);
        FD_PUT(f->cause, "%s", x ? x->meaning : "an Xid gpuscope's catalog does not know");
        FD_PUT(f->action, "%s", x ? x->action : "look it up in NVIDIA's Xid catalog; read the node's kernel log "
                                               "(gpuscope doctor on the node explains it)");
    }
    if (rc == 0)
        gs_prom_result_free(&r);
    return rc;
}

/* GPUs per node: seen in the last day, and with a series now. */
static int fd_missing(struct fd *d, struct gs_err *err)
{
    struct gs_prom_result day, now;
    char q[1024];
    snprintf(q, sizeof(q), "count by (" FD_NODE ") (max_over_time(DCGM_FI_DEV_GPU_UTIL%s[1d]))", d->base);
    int rc = gs_prom_query(d->p, q, 0, &day, err);
    if (rc < 0)
        return rc;
    snprintf(q, sizeof(q), "count by (" FD_NODE ") (DCGM_FI_DEV_GPU_UTIL%s)", d->base);
    if ((rc = gs_prom_query(d->p, q, 0, &now, err)) < 0) {
        gs_prom_result_free(&day);
        return rc;
    }
    d->nodes = now.n;
    for (size_t i = 0; i < now.n; i++)
        d->gpus += now.s[i].npoints ? (size_t)now.s[i].v[0] : 0;
    for (size_t i = 0; i < day.n; i++) {
        const char *host = fd_host(&day.s[i]), *inst = gs_prom_label(&day.s[i], "instance");
        double usual = day.s[i].npoints ? day.s[i].v[0] : 0, have = 0;
        for (size_t j = 0; j < now.n; j++) {
            const char *i2 = gs_prom_label(&now.s[j], "instance");
            if (!strcmp(fd_host(&now.s[j]), host) && !strcmp(i2 ? i2 : "", inst ? inst : "") && now.s[j].npoints)
                have = now.s[j].v[0];
        }
        if (have >= usual)
            continue;
        struct gs_finding *f = fd_add(d, have ? GS_SEV_CRITICAL : GS_SEV_WARNING, host, -1,
                                      have ? "fleet.gpu_missing" : "fleet.node_missing");
        if (!f)
            break;
        f->value = usual - have;
        FD_PUT(f->title, "%s", have ? "GPUs missing" : "no GPU series now");
        FD_PUT(f->evidence, "%.0f of its %.0f GPUs (seen in the last day) have series now", have, usual);
        FD_PUT(f->cause, "%s", have ? "a GPU fell off the bus, or the driver no longer lists it"
                                    : "the node's exporter stopped or cannot be scraped, or the node left the fleet");
        FD_PUT(f->action, "%s", have ? "run gpuscope doctor on the node (it lists the GPUs on the PCI bus and the "
                                       "kernel log's Xid 79); reseat or RMA the GPU"
                                     : "check the scrape target (up == 0 in Prometheus) and the node; if it was "
                                       "retired on purpose, ignore this for a day");
    }
    gs_prom_result_free(&day);
    gs_prom_result_free(&now);
    return 0;
}

static int fd_pinned(struct fd *d, struct gs_err *err)
{
    struct gs_prom_result r;
    char q[3072], w[32];
    long long s = d->o->window_s > 0 ? (long long)d->o->window_s : 900;
    snprintf(w, sizeof(w), "%llds", s);
    snprintf(q, sizeof(q), "max by (" FD_BY ") (DCGM_FI_DEV_GPU_UTIL%s >= 99 and stddev_over_time(DCGM_FI_DEV_GPU_UTIL%s[%s]) "
             "== 0 and count_over_time(DCGM_FI_DEV_GPU_UTIL%s[%s]) >= 5)", d->base, d->base, w, d->base, w);
    int rc = gs_prom_query(d->p, q, 0, &r, err);
    for (size_t i = 0; rc == 0 && i < r.n; i++) {
        struct gs_finding *f = fd_add(d, GS_SEV_WARNING, fd_host(&r.s[i]), fd_gpu(&r.s[i]), "util.pinned");
        if (!f)
            break;
        f->value = r.s[i].npoints ? r.s[i].v[0] : 0;
        FD_PUT(f->title, "utilization pinned at %.0f %%", f->value);
        FD_PUT(f->evidence, "utilization %.0f %% at every reading of the last %s, not one change", f->value, w);
        FD_PUT(f->cause, "a hung kernel or a job stuck in a spin (real work moves the figure), or an exporter "
                         "that repeats a frozen value");
        FD_PUT(f->action, "check the job's progress (its log, step rate); kill it if it is hung; if the GPU stays "
                          "pinned with no process, reset it");
    }
    if (rc == 0)
        gs_prom_result_free(&r);
    return rc;
}

/* ---- printing ----------------------------------------------------------------------------- */

static int fd_cmp(const void *a, const void *b)
{
    const struct fd_finding *x = a, *y = b;
    if (x->f.severity != y->f.severity)
        return y->f.severity - x->f.severity;
    int h = strcmp(x->host, y->host);
    return h ? h : (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static void fd_text(const struct fd *d, FILE *out)
{
    static const char *const head[] = {"", "INFO", "WARNING", "CRITICAL"};
    unsigned last = 99;

    fprintf(out, "Fleet health from %s: %zu GPUs on %zu nodes now, %zu finding%s\n", gs_prom_url(d->p), d->gpus,
            d->nodes, d->n, d->n == 1 ? "" : "s");
    for (size_t i = 0; i < d->n; i++) {
        const struct fd_finding *x = &d->v[i];
        char who[GS_PROM_LABEL_MAX + 32];
        if (x->f.severity != last)
            fprintf(out, "\n%s\n", head[x->f.severity & 3]);
        last = x->f.severity;
        if (x->gpu >= 0)
            snprintf(who, sizeof(who), "%s GPU %ld", x->host, x->gpu);
        else
            snprintf(who, sizeof(who), "%s", x->host);
        fprintf(out, "  %s: %s [%s]\n      %s\n      cause: %s\n      do: %s\n", who, x->f.title, x->f.code,
                x->f.evidence, x->f.cause, x->f.action);
    }
    if (!d->n)
        fprintf(out, "\nNo finding: no Xid in the last hour, no ECC or remapping failure, no throttling, no GPU "
                     "missing, no pinned utilization.\n");
}

static int fd_json(const struct fd *d, FILE *out)
{
    json_t *root = json_pack("{s:s, s:s, s:I, s:I}", "schema", "gpuscope.fleet-doctor/1", "url", gs_prom_url(d->p),
                             "nodes", (json_int_t)d->nodes, "gpus", (json_int_t)d->gpus);
    json_t *arr = json_array();
    for (size_t i = 0; root && arr && i < d->n; i++) {
        const struct fd_finding *x = &d->v[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:o, s:s, s:s, s:s, s:s, s:f}", "severity",
                                             gs_sev_name((enum gs_sev)x->f.severity), "code", x->f.code, "host",
                                             x->host, "gpu", x->gpu >= 0 ? json_integer(x->gpu) : json_null(),
                                             "title", x->f.title, "evidence", x->f.evidence, "cause", x->f.cause,
                                             "action", x->f.action, "value", x->f.value));
    }
    if (!root || !arr) {
        json_decref(root);
        json_decref(arr);
        return -GS_E_NOMEM;
    }
    json_object_set_new(root, "findings", arr);
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_ENSURE_ASCII) < 0 ? -GS_E_IO : 0;
    fputc('\n', out);
    json_decref(root);
    return rc;
}

int gs_fleet_doctor(const struct gs_fleet_doctor_opts *o, FILE *out, struct gs_err *err)
{
    struct fd d = {.o = o};
    int rc = gs_prom_open(&d.p, &o->prom, err);
    if (rc < 0)
        return rc;
    const char *m = gs_prom_matchers(d.p);
    snprintf(d.base, sizeof(d.base), "{GPU_I_ID=\"\"%s%s}", m[0] ? "," : "", m);
    if ((rc = fd_missing(&d, err)) == 0 && d.gpus == 0 && d.n == 0) {
        gs_err_set(err, GS_E_NO_DEVICE, "no GPU series at %s%s%s%s (DCGM_FI_DEV_GPU_UTIL of gpuscope serve or "
                   "dcgm-exporter)", gs_prom_url(d.p), m[0] ? " matching {" : "", m, m[0] ? "}" : "");
        gs_err_hint(err, "scrape `gpuscope serve` or dcgm-exporter on every node from this server, or widen --match");
        rc = -GS_E_NO_DEVICE;
    }
    if (rc == 0)
        rc = fd_state(&d, err);
    if (rc == 0)
        rc = fd_xids(&d, err);
    if (rc == 0)
        rc = fd_pinned(&d, err);
    if (rc == 0) {
        qsort(d.v, d.n, sizeof(*d.v), fd_cmp);
        rc = o->json ? fd_json(&d, out) : (fd_text(&d, out), 0);
    }
    int worst = 0;
    for (size_t i = 0; i < d.n; i++)
        worst = d.v[i].f.severity > worst ? d.v[i].f.severity : worst;
    free(d.v);
    gs_prom_close(d.p);
    return rc < 0 ? rc : worst;
}
