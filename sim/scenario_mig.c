/* SPDX-License-Identifier: MIT */
/*
 * scenario_mig.c - the `mig` lines of the scenario parser: MIG GPU instances
 * of a GPU (profile, ID, placement, compute instances) and their readings.
 * Stand-alone parser code; the profile is checked against the GPU's profile
 * table when the simulator loads (sim_mig.c), since that depends on the GPU.
 *
 *   mig 0 profile=3g.40gb util=noise(80,10) tensor_active=60
 *   mig 0 count=2 profile=1g.10gb placement=6
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_int.h"

/* The GPU readings an instance has of its own (idle by default: util 0, activity
 * following util, memory from its processes); the rest are the GPU's. */
static const char *const scn_mig_readings[] = {
    "util", "mem_util", "memory_used", "enc", "dec", "gr_active", "sm_active", "sm_occupancy",
    "tensor_active", "dram_active", "fp64_active", "fp32_active", "fp16_active", NULL,
};

/* "1g.10gb", "3g.40gb", "1g.10gb+me": Ng.NNgb with an optional +suffix. */
static int scn_mig_profile_ok(const char *v)
{
    const char *p = v;
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    if (strncmp(p, "g.", 2) != 0 || !isdigit((unsigned char)p[2]))
        return 0;
    p += 2;
    while (isdigit((unsigned char)*p))
        p++;
    if (strncmp(p, "gb", 2) != 0)
        return 0;
    p += 2;
    if (*p == '+')
        for (p++; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '.')
                return 0;
    return *p == '\0' && strlen(v) < sizeof(((struct gs_scn_mig *)0)->profile);
}

static int scn_mig_int(struct gs_scn_ctx *c, const char *k, const char *v, int lo, int hi, int *out)
{
    double x;
    if (gs_scn_const(c, k, v, &x) < 0)
        return -1;
    if (x < lo || x > hi || x != (int)x)
        return gs_scn_err(c, "%s=%s: expected a whole number %d-%d", k, v, lo, hi);
    *out = (int)x;
    return 0;
}

static int scn_mig_attr(struct gs_scn_ctx *c, struct gs_scn_mig *m, int *count, const char *k, const char *v)
{
    if (strcmp(k, "profile") == 0) {
        if (!scn_mig_profile_ok(v))
            return gs_scn_err(c, "profile=%s: expected a GPU instance profile such as 1g.10gb, 3g.40gb or 1g.10gb+me", v);
        snprintf(m->profile, sizeof(m->profile), "%s", v);
        return 0;
    }
    if (strcmp(k, "gi") == 0)
        return scn_mig_int(c, k, v, 0, 63, &m->gi);
    if (strcmp(k, "placement") == 0)
        return scn_mig_int(c, k, v, 0, 7, &m->placement);
    if (strcmp(k, "cis") == 0)
        return scn_mig_int(c, k, v, 1, 8, &m->cis);
    if (strcmp(k, "count") == 0)
        return scn_mig_int(c, k, v, 1, 8, count);
    for (int i = 0; scn_mig_readings[i]; i++)
        if (strcmp(scn_mig_readings[i], k) == 0)
            return gs_scn_gpu_num_attr(c, &m->cfg, k, v) < 0 ? -1 : 0;
    return gs_scn_err(c, "unknown mig attribute '%s' (profile gi placement cis count, and the readings "
                         "util mem_util memory_used enc dec gr_active sm_active sm_occupancy tensor_active "
                         "dram_active fp64_active fp32_active fp16_active)", k);
}

int gs_scn_line_mig(struct gs_scn_ctx *c, char **w, int n)
{
    struct gs_scn *s = c->s;
    uint64_t mask;
    if (n < 3)
        return gs_scn_err(c, "mig: expected a GPU selection and profile=NAME (e.g. mig 0 profile=1g.10gb)");
    if (gs_scn_selection(c, w[1], 0, &mask) < 0)
        return -1;
    for (int g = 0; g < GS_SCN_MAX_GPUS; g++) {
        if (!(mask & (1ull << g)))
            continue;
        struct gs_scn_mig t = {.gpu = g, .line = c->at.line, .gi = -1, .placement = -1, .cis = 1};
        int count = 1;
        t.cfg = s->gpus[g]; /* the GPU's expressions, but an instance's own readings start idle */
        for (int k = 0; scn_mig_readings[k]; k++)
            if (gs_scn_gpu_num_default(c, &t.cfg, scn_mig_readings[k]) < 0)
                return -1;
        for (int j = 2; j < n; j++) {
            char *eq = strchr(w[j], '=');
            if (!eq)
                return gs_scn_err(c, "mig: expected key=value, got '%s'", w[j]);
            *eq = '\0';
            int rc = scn_mig_attr(c, &t, &count, w[j], eq + 1);
            *eq = '=';
            if (rc < 0)
                return -1;
        }
        if (!t.profile[0])
            return gs_scn_err(c, "mig: profile= is required (e.g. profile=1g.10gb)");
        if (count > 1 && (t.gi >= 0 || t.placement >= 0))
            return gs_scn_err(c, "mig: count= cannot be combined with gi= or placement=");
        if (!s->migs && !(s->migs = calloc(GS_SCN_MAX_MIGS, sizeof(*s->migs)))) /* at the first mig line */
            return gs_scn_err(c, "out of memory");
        for (int r = 0; r < count; r++) {
            if (s->nmigs >= GS_SCN_MAX_MIGS)
                return gs_scn_err(c, "too many MIG instances (at most %d in a scenario)", GS_SCN_MAX_MIGS);
            s->migs[s->nmigs++] = t;
        }
    }
    return 0;
}
