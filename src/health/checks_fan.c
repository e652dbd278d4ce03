/* SPDX-License-Identifier: MIT */
/*
 * checks_fan.c - thermal.fan_stuck: a fan that does not respond (at its
 * minimum while hot, flat while the temperature climbs toward slowdown, or one
 * reading for fan_flat_s while the temperature moves). Heuristics; the
 * thresholds are in struct gs_health_cfg, docs/HEALTH.md gives the reasoning.
 */
#include "health/health_priv.h"

#include <stdint.h>

static void fan_advice(struct gs_finding *f)
{
    hf_set(f->cause, sizeof(f->cause), "a failed or blocked fan, or a manual fan setting / fan curve that does not "
           "follow temperature");
    hf_set(f->action, sizeof(f->action), "check the fan (nvidia-smi -q -d TEMPERATURE,PERFORMANCE; nvidia-settings "
           "fan control); replace it before the GPU throttles");
}

/* A fan that does not respond: at (or below) its minimum, or 0, while the GPU
 * runs within fan_hot_margin_c of slowdown for fan_stuck_min_s; or flat while
 * the temperature climbs fan_rise_c toward slowdown. A constant reading at a
 * steady temperature is a fan controller holding its point: normal. */
static bool check_fan(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    int32_t idx = (int32_t)g->st.index;
    if (!gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) || g->st.temp_slowdown_c <= 0)
        return false;
    int32_t hot = g->st.temp_slowdown_c - h->cfg.fan_hot_margin_c;
    uint32_t fmin = gs_static_has(&g->st, GS_S_FAN_MINMAX) ? g->st.fan_min_pct : 0;
    const struct hsample *first_hot = NULL, *last = NULL, *coolest = NULL;
    bool low_all = true;
    uint32_t fan_max_since_coolest = 0;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct hsample *x = hg_at(h, g, i);
        if (!hs_in_window(h, x) || !gs_fmask_has(x->valid, GS_F_TEMP_GPU) || !gs_fmask_has(x->valid, GS_F_FAN_SPEED))
            continue;
        last = x;
        if (!coolest || x->temp_c < coolest->temp_c) {
            coolest = x;
            fan_max_since_coolest = x->fan_pct;
        } else if (x->fan_pct > fan_max_since_coolest) {
            fan_max_since_coolest = x->fan_pct;
        }
        if (x->temp_c >= hot) {
            first_hot = first_hot ? first_hot : x;
            low_all = low_all && x->fan_pct <= fmin;
        } else {
            first_hot = NULL; /* the hot stretch must run to the latest sample */
            low_all = true;
        }
    }
    if (!last)
        return false;
    double hot_s = first_hot ? (double)(last->t_ms - first_hot->t_ms) / 1000.0 : 0;
    double climb_s = (double)(last->t_ms - coolest->t_ms) / 1000.0;
    struct gs_finding *f;
    if (first_hot && low_all && hot_s >= h->cfg.fan_stuck_min_s) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.fan_stuck", "GPU %d: fan at %u%% (its minimum) while hot",
                   idx, last->fan_pct);
        f->value = last->fan_pct;
        hf_set(f->evidence, sizeof(f->evidence), "fan at or below %u%% (the controller's minimum%s) for %.0f s while "
               "the GPU was at %d C or more (slowdown %d C)", fmin, gs_static_has(&g->st, GS_S_FAN_MINMAX) ? "" :
               " is unknown: 0", hot_s, hot, g->st.temp_slowdown_c);
    } else if (last->temp_c >= hot && last->temp_c - coolest->temp_c >= (int)h->cfg.fan_rise_c &&
               climb_s >= h->cfg.fan_stuck_min_s && fan_max_since_coolest <= coolest->fan_pct &&
               last->fan_pct < 90) {
        f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.fan_stuck",
                   "GPU %d: fan stays at %u%% while the temperature climbs", idx, last->fan_pct);
        f->value = last->fan_pct;
        hf_set(f->evidence, sizeof(f->evidence), "temperature %d -> %d C over %.0f s (slowdown %d C) while the fan "
               "never rose above %u%%", coolest->temp_c, last->temp_c, climb_s, g->st.temp_slowdown_c,
               coolest->fan_pct);
    } else {
        return false;
    }
    fan_advice(f);
    return true;
}

/* A fan whose reading has not changed for fan_flat_s while the temperature moved
 * fan_rise_c or more (up or down): a stuck tachometer or a fan that no longer
 * follows its curve, whatever the temperature. At 100 % a fan cannot rise; at its
 * minimum only once the GPU is warm (curves hold the minimum while cool). */
static void check_fan_flat(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    const struct hsample *last = NULL, *from = NULL;
    int32_t tmin = INT32_MAX, tmax = INT32_MIN;
    for (uint32_t i = g->count; i-- > 0;) { /* newest first: the stretch of one reading */
        const struct hsample *x = hg_at(h, g, i);
        if (!hs_in_window(h, x) || !gs_fmask_has(x->valid, GS_F_TEMP_GPU) || !gs_fmask_has(x->valid, GS_F_FAN_SPEED))
            continue;
        if (last && x->fan_pct != last->fan_pct)
            break;
        last = last ? last : x;
        from = x;
        tmin = x->temp_c < tmin ? x->temp_c : tmin;
        tmax = x->temp_c > tmax ? x->temp_c : tmax;
    }
    if (!last || last->fan_pct >= 100 || (double)(last->t_ms - from->t_ms) / 1000.0 < h->cfg.fan_flat_s ||
        tmax - tmin < (int32_t)h->cfg.fan_rise_c)
        return;
    uint32_t fmin = gs_static_has(&g->st, GS_S_FAN_MINMAX) ? g->st.fan_min_pct : 0;
    int32_t warm = g->st.temp_slowdown_c - h->cfg.fan_hot_margin_c - (int32_t)h->cfg.fan_rise_c;
    if (last->fan_pct <= fmin && !(gs_static_has(&g->st, GS_S_TEMP_SLOWDOWN) && tmax >= warm))
        return;
    int32_t idx = (int32_t)g->st.index;
    struct gs_finding *f = hf_new(out, GS_SEV_WARNING, idx, 0, "thermal.fan_stuck",
                                  "GPU %d: fan reading fixed at %u%% while the temperature moves", idx, last->fan_pct);
    f->value = last->fan_pct;
    hf_set(f->evidence, sizeof(f->evidence), "the fan read %u%% in every sample for %.0f s while the temperature "
           "ranged %d-%d C", last->fan_pct, (double)(last->t_ms - from->t_ms) / 1000.0, tmin, tmax);
    fan_advice(f);
}

void hc_fan(struct gs_health *h, const struct hgpu *g, struct gs_findings *out)
{
    if (!check_fan(h, g, out))
        check_fan_flat(h, g, out);
}
