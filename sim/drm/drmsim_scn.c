/* SPDX-License-Identifier: MIT */
/*
 * drmsim_scn.c - the DRM simulator's scenario files (docs/SIMULATOR.md "The
 * DRM simulator"): the shared reader's lines of words (sim/scenario_read.c:
 * '#' comments, '\' continuations, "quoted" values); `name`, `system`, `card N key=value...`, `proc PID key=value...`
 * and `client PID card=N fd=N id=N engine=value...`. Values are the NVML
 * simulator's expressions of t (sim/scenario_value.c).
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drmsim.h"
#include "scenario_read.h"

struct ds_ctx {
    struct ds_scn *s;
    struct gs_scn_where at; /* the shared reader's file:line (sim/scenario_read.c) */
};

static int ds_err(struct ds_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ds_err(struct ds_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gs_scn_where_verr(&c->at, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *const num_names[DN__COUNT] = {
    [DN_BUSY] = "busy", [DN_MEM_BUSY] = "mem_busy", [DN_VRAM_TOTAL] = "vram_total", [DN_VRAM_USED] = "vram_used",
    [DN_VIS_TOTAL] = "vis_vram_total", [DN_VIS_USED] = "vis_vram_used", [DN_GTT_TOTAL] = "gtt_total",
    [DN_GTT_USED] = "gtt_used", [DN_SCLK] = "sclk", [DN_MCLK] = "mclk", [DN_TEMP_EDGE] = "temp_edge",
    [DN_TEMP_JUNCTION] = "temp_junction", [DN_TEMP_MEM] = "temp_mem", [DN_EDGE_CRIT] = "edge_crit",
    [DN_EDGE_EMERG] = "edge_emerg", [DN_JUNCTION_CRIT] = "junction_crit", [DN_JUNCTION_EMERG] = "junction_emerg",
    [DN_MEM_CRIT] = "mem_crit", [DN_MEM_EMERG] = "mem_emerg", [DN_POWER] = "power", [DN_POWER_CAP] = "power_cap",
    [DN_POWER_CAP_MIN] = "power_cap_min", [DN_POWER_CAP_MAX] = "power_cap_max",
    [DN_POWER_CAP_DEFAULT] = "power_cap_default", [DN_ENERGY_POWER] = "energy_power", [DN_FAN_RPM] = "fan_rpm",
    [DN_FAN_MIN] = "fan_min", [DN_FAN_MAX] = "fan_max", [DN_PWM] = "pwm", [DN_VOLT] = "vddgfx",
    [DN_PCIE_GEN] = "pcie_gen", [DN_PCIE_WIDTH] = "pcie_width", [DN_PCIE_MAX_GEN] = "pcie_max_gen",
    [DN_PCIE_MAX_WIDTH] = "pcie_max_width", [DN_THROTTLE] = "throttle", [DN_RAS_UE] = "ras_ue",
    [DN_RAS_CE] = "ras_ce", [DN_BAD_PAGES] = "bad_pages", [DN_SUSPENDED] = "suspended",
    [DN_ACT_FREQ] = "act_freq", [DN_CUR_FREQ] = "cur_freq", [DN_MIN_FREQ] = "min_freq",
    [DN_MAX_FREQ] = "max_freq", [DN_RP0] = "rp0", [DN_RPN] = "rpn", [DN_RC6] = "rc6",
    [DN_LMEM_TOTAL] = "lmem_total",
};

/* Engine names per driver, in slot order (src/backend/drm/fdinfo.c's tables). */
static const char *const amd_engines[DS_ENGINES] = { "gfx", "compute", "dma", "dec", "enc", "jpeg", "enc_1", "vpe" };
static const char *const intel_engines[DS_ENGINES] = { "render", "copy", "video", "video-enhance", "compute" };

/* ---- values ----------------------------------------------------------------------- */

static int ds_value(struct ds_ctx *c, const char *text, struct gs_scn_expr **out)
{
    char verr[GS_SCN_ERR_LEN];
    if (gs_scn_parse_value(c->s->arena, text, (unsigned)c->at.line * 2654435761u, out, verr, sizeof(verr)) < 0)
        return ds_err(c, "%s", verr);
    return 0;
}

static int ds_const(struct ds_ctx *c, const char *key, const char *text, double *out)
{
    struct gs_scn_expr *e;
    if (ds_value(c, text, &e) < 0)
        return -1;
    if (e->op != GS_OP_CONST)
        return ds_err(c, "%s= must be a constant", key);
    *out = e->k;
    return 0;
}

static char *ds_strdup(struct ds_ctx *c, const char *v)
{
    return gs_scn_arena_strdup(c->s->arena, v, strlen(v));
}

static int ds_levels(struct ds_ctx *c, const char *v, unsigned *levels, unsigned *n)
{
    char *end;
    *n = 0;
    for (const char *p = v; *p;) {
        unsigned long x = strtoul(p, &end, 10);
        if (end == p || *n == DS_MAX_LEVELS)
            return ds_err(c, "bad clock level list '%s' (MHz, comma-separated, at most %d)", v, DS_MAX_LEVELS);
        levels[(*n)++] = (unsigned)x;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return ds_err(c, "bad clock level list '%s'", v);
    }
    return 0;
}

/* ---- card ------------------------------------------------------------------------- */

static int card_ids(struct ds_ctx *c, struct ds_card *k, const char *key, const char *v)
{
    if (!strcmp(key, "pci")) {
        unsigned a, b, d, f;
        if (sscanf(v, "%x:%x:%x.%x", &a, &b, &d, &f) != 4)
            return ds_err(c, "pci= wants DOMAIN:BUS:DEVICE.FUNCTION, got '%s'", v);
        snprintf(k->pci, sizeof(k->pci), "%04x:%02x:%02x.%x", a, b, d, f);
    } else if (!strcmp(key, "subsystem")) {
        if (sscanf(v, "%x:%x", &k->sub_vendor, &k->sub_device) != 2)
            return ds_err(c, "subsystem= wants VENDOR:DEVICE in hex, got '%s'", v);
    } else {
        unsigned *dst = !strcmp(key, "vendor") ? &k->vendor : !strcmp(key, "device") ? &k->device : &k->revision;
        char *end;
        *dst = (unsigned)strtoul(v, &end, 16);
        if (end == v || *end)
            return ds_err(c, "%s= wants a hex number, got '%s'", key, v);
    }
    return 0;
}

static int card_special(struct ds_ctx *c, struct ds_card *k, const char *key, const char *v)
{
    double x = 0;

    if (!strcmp(key, "driver")) {
        if (!strcmp(v, "amdgpu"))
            k->drv = DS_AMDGPU;
        else if (!strcmp(v, "i915"))
            k->drv = DS_I915;
        else if (!strcmp(v, "xe"))
            k->drv = DS_XE;
        else
            return ds_err(c, "driver= is amdgpu, i915 or xe, not '%s'", v);
    } else if (!strcmp(key, "pci") || !strcmp(key, "vendor") || !strcmp(key, "device") || !strcmp(key, "revision") ||
               !strcmp(key, "subsystem")) {
        return card_ids(c, k, key, v);
    } else if (!strcmp(key, "product_name")) {
        k->product_name = ds_strdup(c, v);
    } else if (!strcmp(key, "unique_id")) {
        k->unique_id = ds_strdup(c, v);
    } else if (!strcmp(key, "vbios")) {
        k->vbios = ds_strdup(c, v);
    } else if (!strcmp(key, "serial")) {
        k->serial = ds_strdup(c, v);
    } else if (!strcmp(key, "sclk_levels")) {
        return ds_levels(c, v, k->sclk_levels, &k->nsclk);
    } else if (!strcmp(key, "mclk_levels")) {
        return ds_levels(c, v, k->mclk_levels, &k->nmclk);
    } else if (!strcmp(key, "metrics")) {
        if (sscanf(v, "%u.%u", &k->metrics_format, &k->metrics_content) != 2)
            return ds_err(c, "metrics= wants a gpu_metrics version such as 1.3, got '%s'", v);
    } else if (!strcmp(key, "ras")) {
        k->nras = 0;
        for (const char *p = v; *p && k->nras < DS_MAX_RAS;) {
            size_t n = strcspn(p, ",");
            snprintf(k->ras_blocks[k->nras++], sizeof(k->ras_blocks[0]), "%.*s", (int)n, p);
            p += n + (p[n] == ',');
        }
    } else if (!strcmp(key, "lost_at") || !strcmp(key, "card_minor") || !strcmp(key, "render_minor")) {
        if (ds_const(c, key, v, &x) < 0)
            return -1;
        if (!strcmp(key, "lost_at"))
            k->lost_at = x;
        else if (!strcmp(key, "card_minor"))
            k->card_minor = (int)x;
        else
            k->render_minor = (int)x;
    } else {
        return 1;
    }
    return 0;
}

static int line_card(struct ds_ctx *c, char **w, int n)
{
    char *end;
    long idx = n > 1 ? strtol(w[1], &end, 10) : -1;

    if (n < 2 || *end || idx < 0 || idx >= DS_MAX_CARDS)
        return ds_err(c, "card wants an index 0..%d", DS_MAX_CARDS - 1);
    struct ds_card *k = &c->s->cards[idx];
    if (!k->defined) {
        k->defined = true;
        k->lost_at = INFINITY;
        k->card_minor = (int)idx;
        k->render_minor = 128 + (int)idx;
        if (idx >= c->s->ncards)
            c->s->ncards = (int)idx + 1;
    }
    for (int i = 2; i < n; i++) {
        char *eq = strchr(w[i], '=');
        if (!eq)
            return ds_err(c, "expected key=value, got '%s'", w[i]);
        *eq = '\0';
        int r = card_special(c, k, w[i], eq + 1);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        int ni = -1;
        for (int j = 0; j < DN__COUNT; j++)
            if (num_names[j] && !strcmp(num_names[j], w[i]))
                ni = j;
        if (ni < 0)
            return ds_err(c, "unknown card key '%s'", w[i]);
        if (ds_value(c, eq + 1, &k->num[ni]) < 0)
            return -1;
    }
    return 0;
}

/* ---- processes and clients -------------------------------------------------------- */

static int ds_pid(struct ds_ctx *c, char **w, int n, unsigned *pid)
{
    char *end;
    unsigned long p = n > 1 ? strtoul(w[1], &end, 10) : 0;
    if (n < 2 || *end || p == 0 || p > 99999999)
        return ds_err(c, "%s wants a PID", w[0]);
    *pid = (unsigned)p;
    return 0;
}

static int line_proc(struct ds_ctx *c, char **w, int n)
{
    unsigned pid;

    if (ds_pid(c, w, n, &pid) < 0)
        return -1;
    if (c->s->nprocs == DS_MAX_PROCS)
        return ds_err(c, "too many processes (at most %d)", DS_MAX_PROCS);
    struct ds_proc *p = &c->s->procs[c->s->nprocs++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->ppid = 1;
    p->exit = INFINITY;
    snprintf(p->comm, sizeof(p->comm), "proc%u", pid);
    for (int i = 2; i < n; i++) {
        char *eq = strchr(w[i], '=');
        double x = 0;
        if (!eq)
            return ds_err(c, "expected key=value, got '%s'", w[i]);
        *eq++ = '\0';
        if (!strcmp(w[i], "comm"))
            snprintf(p->comm, sizeof(p->comm), "%.15s", eq);
        else if (!strcmp(w[i], "cmdline"))
            p->cmdline = ds_strdup(c, eq);
        else if (!strcmp(w[i], "cpu") || !strcmp(w[i], "rss")) {
            if (ds_value(c, eq, !strcmp(w[i], "cpu") ? &p->cpu : &p->rss) < 0)
                return -1;
        } else if (!strcmp(w[i], "uid") || !strcmp(w[i], "ppid") || !strcmp(w[i], "start") || !strcmp(w[i], "exit")) {
            if (ds_const(c, w[i], eq, &x) < 0)
                return -1;
            if (!strcmp(w[i], "uid"))
                p->uid = (unsigned)x;
            else if (!strcmp(w[i], "ppid"))
                p->ppid = (unsigned)x;
            else if (!strcmp(w[i], "start"))
                p->start = x;
            else
                p->exit = x;
        } else {
            return ds_err(c, "unknown proc key '%s'", w[i]);
        }
    }
    return 0;
}

static int engine_slot(enum ds_driver drv, const char *name)
{
    const char *const *names = drv == DS_AMDGPU ? amd_engines : intel_engines;
    for (int s = 0; s < DS_ENGINES; s++)
        if (names[s] && !strcmp(names[s], name))
            return s;
    return -1;
}

static int client_key(struct ds_ctx *c, struct ds_client *k, const char *key, const char *v)
{
    double x = 0;
    if (!strcmp(key, "dev_mem") || !strcmp(key, "sys_mem"))
        return ds_value(c, v, !strcmp(key, "dev_mem") ? &k->dev_mem : &k->sys_mem);
    if (!strcmp(key, "name")) {
        k->name = ds_strdup(c, v);
        return 0;
    }
    if (!strcmp(key, "card") || !strcmp(key, "fd") || !strcmp(key, "id") || !strcmp(key, "start") ||
        !strcmp(key, "exit")) {
        if (ds_const(c, key, v, &x) < 0)
            return -1;
        if (!strcmp(key, "card") && !(x >= 0 && x < DS_MAX_CARDS)) /* before the cast: no overflow */
            return ds_err(c, "client: card= wants an index 0..%d", DS_MAX_CARDS - 1);
        if (!strcmp(key, "fd") && !(x >= 0 && x <= INT_MAX))
            return ds_err(c, "client: fd= wants a descriptor number 0..%d", INT_MAX);
        if (!strcmp(key, "card"))
            k->card = (int)x;
        else if (!strcmp(key, "fd"))
            k->fd = (int)x;
        else if (!strcmp(key, "id"))
            k->id = (unsigned long long)x;
        else if (!strcmp(key, "start"))
            k->start = x;
        else
            k->exit = x;
        return 0;
    }
    if (k->card < 0 || k->card >= c->s->ncards || !c->s->cards[k->card].defined)
        return ds_err(c, "client: card= (a defined card) comes before engine values");
    int slot = engine_slot(c->s->cards[k->card].drv, key);
    if (slot < 0)
        return ds_err(c, "unknown client key or engine '%s' for this card's driver", key);
    return ds_value(c, v, &k->eng[slot]);
}

static int line_client(struct ds_ctx *c, char **w, int n)
{
    unsigned pid;

    if (ds_pid(c, w, n, &pid) < 0)
        return -1;
    if (c->s->nclients == DS_MAX_CLIENTS)
        return ds_err(c, "too many clients (at most %d)", DS_MAX_CLIENTS);
    struct ds_client *k = &c->s->clients[c->s->nclients++];
    memset(k, 0, sizeof(*k));
    k->pid = pid;
    k->card = -1;
    k->fd = -1;
    k->exit = INFINITY;
    for (int i = 2; i < n; i++) {
        if (!strcmp(w[i], "dup")) {
            k->dup = true;
            continue;
        }
        char *eq = strchr(w[i], '=');
        if (!eq)
            return ds_err(c, "expected key=value, got '%s'", w[i]);
        *eq = '\0';
        if (client_key(c, k, w[i], eq + 1) < 0)
            return -1;
    }
    if (k->card < 0 || k->fd < 0)
        return ds_err(c, "client wants card= and fd=");
    if (k->card >= c->s->ncards || !c->s->cards[k->card].defined)
        return ds_err(c, "client: card=%d is not a card defined above", k->card);
    return 0;
}

/* ---- lines ------------------------------------------------------------------------ */

static int ds_line(void *arg, char *line)
{
    struct ds_ctx *c = arg;
    char *w[GS_SCN_MAX_WORDS];
    int n = gs_scn_split(&c->at, line, w);

    if (n <= 0)
        return n;
    if (!strcmp(w[0], "name") && n == 2) {
        snprintf(c->s->name, sizeof(c->s->name), "%s", w[1]);
        return 0;
    }
    if (!strcmp(w[0], "source"))
        return 0; /* where a layout or a value comes from: documentation */
    if (!strcmp(w[0], "nvml_pids"))
        return 0; /* for gpuscope --demo: the PIDs its NVML twin scenario's pid=env processes take */
    if (!strcmp(w[0], "system")) {
        for (int i = 1; i < n; i++)
            if (!strncmp(w[i], "kernel=", 7))
                snprintf(c->s->kernel, sizeof(c->s->kernel), "%s", w[i] + 7);
            else
                return ds_err(c, "unknown system key '%s'", w[i]);
        return 0;
    }
    if (!strcmp(w[0], "ids")) { /* a line of libdrm's amdgpu.ids: DEVICE REVISION "Name" */
        if (n != 4 || c->s->nids == 8)
            return ds_err(c, "ids wants DEVICE REVISION \"Name\" (hex ids; at most 8 lines)");
        snprintf(c->s->ids[c->s->nids++], sizeof(c->s->ids[0]), "%s,\t%s,\t%.100s", w[1], w[2], w[3]);
        return 0;
    }
    if (!strcmp(w[0], "card"))
        return line_card(c, w, n);
    if (!strcmp(w[0], "proc"))
        return line_proc(c, w, n);
    if (!strcmp(w[0], "client"))
        return line_client(c, w, n);
    return ds_err(c, "unknown directive '%s' (name, source, system, ids, nvml_pids, card, proc, client)", w[0]);
}

int ds_parse_buf(struct ds_scn *s, const char *text, size_t len, const char *fname, char *err, size_t errlen)
{
    struct ds_ctx c = { s, { fname, 0, err, errlen } };

    if ((!s->arena && !(s->arena = gs_scn_new())) ||
        (!s->procs && !(s->procs = calloc(DS_MAX_PROCS, sizeof(*s->procs)))) ||
        (!s->clients && !(s->clients = calloc(DS_MAX_CLIENTS, sizeof(*s->clients))))) {
        snprintf(err, errlen, "%s: out of memory", fname);
        return -1;
    }
    int rc = gs_scn_each_line(&c.at, text, len, ds_line, &c);
    if (!s->name[0])
        gs_scn_default_name(fname, s->name, sizeof(s->name));
    return rc;
}

int ds_parse_file(struct ds_scn *s, const char *path, char *err, size_t errlen)
{
    size_t len;
    char *buf = gs_scn_read_file(path, &len, err, errlen);

    if (!buf)
        return -1;
    int rc = ds_parse_buf(s, buf, len, path, err, errlen);
    free(buf);
    return rc;
}

void ds_free(struct ds_scn *s)
{
    gs_scn_free(s->arena);
    free(s->procs);
    free(s->clients);
    memset(s, 0, sizeof(*s));
}
