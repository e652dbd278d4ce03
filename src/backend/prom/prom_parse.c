/* SPDX-License-Identifier: MIT */
/*
 * prom_parse.c - Prometheus' /api/v1 answers into struct gs_prom_result
 * (see prom_priv.h): the envelope and its errors, labels (repaired UTF-8,
 * bounded), points; the scrape interval from /api/v1/status/config.
 * JSON is jansson's, YAML libyaml's.
 */
#include "backend/prom/prom_priv.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/utf8.h"

/* ---- labels and points -------------------------------------------------------------------- */

/* A label name or value from the server: valid UTF-8, at most GS_PROM_LABEL_MAX
 * bytes ("..." ends one that was cut). */
static char *pp_text(const char *src, size_t srclen)
{
    char prefix[GS_PROM_LABEL_MAX + 1];
    char buf[3 * GS_PROM_LABEL_MAX + 1];
    size_t n = srclen < GS_PROM_LABEL_MAX ? srclen : GS_PROM_LABEL_MAX;

    memcpy(prefix, src, n);
    prefix[n] = '\0'; /* a NUL inside the value ends it: jansson allows one, C strings do not */
    size_t out = gs_utf8_repair(buf, sizeof(buf), prefix);
    if (srclen > GS_PROM_LABEL_MAX || out > GS_PROM_LABEL_MAX) {
        size_t k = GS_PROM_LABEL_MAX - 3;
        while (k > 0 && ((unsigned char)buf[k] & 0xC0) == 0x80)
            k--;
        memcpy(buf + k, "...", 4);
    }
    return strdup(buf);
}

static int pp_labels(json_t *metric, struct gs_prom_series *s)
{
    const char *key;
    json_t *v;
    size_t n = json_is_object(metric) ? json_object_size(metric) : 0;

    if (n > GS_PROM_MAX_LABELS)
        n = GS_PROM_MAX_LABELS;
    s->names = calloc(n ? n : 1, sizeof(char *));
    s->values = calloc(n ? n : 1, sizeof(char *));
    if (!s->names || !s->values)
        return -GS_E_NOMEM;
    if (!n)
        return 0;
    json_object_foreach(metric, key, v)
    {
        if (s->nlabels == n)
            break;
        const char *val = json_is_string(v) ? json_string_value(v) : "";
        size_t vlen = json_is_string(v) ? json_string_length(v) : 0;
        char *kn = pp_text(key, strlen(key)), *kv = pp_text(val, vlen);
        if (!kn || !kv) {
            free(kn);
            free(kv);
            return -GS_E_NOMEM;
        }
        s->names[s->nlabels] = kn;
        s->values[s->nlabels++] = kv;
    }
    return 0;
}

/* [t, "v"] into *t and *v. 0, or -1 when it is not such a pair. */
static int pp_point(json_t *p, double *t, double *v)
{
    json_t *jt = json_array_get(p, 0), *jv = json_array_get(p, 1);
    const char *s = json_string_value(jv);
    char *end = NULL;

    if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_number(jt) || !s)
        return -1;
    *t = json_number_value(jt);
    *v = strtod(s, &end);
    if (end == s || *end)
        return -1;
    return 0;
}

static int pp_points(json_t *e, bool matrix, struct gs_prom_series *s)
{
    json_t *arr = matrix ? json_object_get(e, "values") : NULL, *p;
    size_t i, n = matrix ? json_array_size(arr) : 1;

    if (matrix && !json_is_array(arr))
        return -1;
    s->t = malloc((n ? n : 1) * sizeof(double));
    s->v = malloc((n ? n : 1) * sizeof(double));
    if (!s->t || !s->v)
        return -GS_E_NOMEM;
    if (!matrix)
        return pp_point(json_object_get(e, "value"), &s->t[0], &s->v[0]) < 0 ? -1 : (s->npoints = 1, 0);
    json_array_foreach(arr, i, p)
    {
        if (pp_point(p, &s->t[i], &s->v[i]) < 0)
            return -1;
        s->npoints++;
    }
    return 0;
}

/* ---- the envelope ------------------------------------------------------------------------- */

/* The first bytes of an answer that is not the API's, for the message. */
static void pp_snippet(const char *body, size_t len, char *out, size_t cap)
{
    char raw[81];
    size_t n = len < 80 ? len : 80;
    for (size_t i = 0; i < n; i++)
        raw[i] = (body[i] == '\n' || body[i] == '\r' || body[i] == '\0') ? ' ' : body[i];
    raw[n] = '\0';
    gs_utf8_repair(out, cap, raw);
}

static int pp_not_api(const char *body, size_t len, long http, const char *what, struct gs_err *err)
{
    char snip[256];
    pp_snippet(body, len, snip, sizeof(snip));
    gs_err_set(err, GS_E_BACKEND, "the answer to %s is not Prometheus' API JSON (HTTP %ld%s%s%s)", what, http,
               len ? ", begins \"" : ", empty", snip, len ? "\"" : "");
    gs_err_hint(err, "give the server's base URL (http://host:9090, without /api/v1 or /graph); Prometheus, "
                     "VictoriaMetrics, Thanos and Mimir answer the same API");
    return -GS_E_BACKEND;
}

static int pp_api_error(json_t *root, long http, const char *what, struct gs_err *err)
{
    const char *type = json_string_value(json_object_get(root, "errorType"));
    const char *msg = json_string_value(json_object_get(root, "error"));
    char text[300];

    gs_utf8_repair(text, sizeof(text), msg ? msg : "(no error text)");
    if ((type && !strcmp(type, "bad_data")) || http == 400 || http == 422) {
        gs_err_set(err, GS_E_USAGE, "Prometheus refused %s: %s", what, text);
        gs_err_hint(err, "if you gave --match, check its label matchers (such as '{cluster=\"a\"}')");
        return -GS_E_USAGE;
    }
    gs_err_set(err, GS_E_BACKEND, "Prometheus could not answer %s (HTTP %ld, %s): %s", what, http,
               type ? type : "error", text);
    if (type && !strcmp(type, "timeout"))
        gs_err_hint(err, "the query timed out on the server: narrow it with --match");
    return -GS_E_BACKEND;
}

static int pp_results(json_t *res, const char *rtype, const char *what, struct gs_prom_result *out,
                      struct gs_err *err)
{
    bool matrix = !strcmp(rtype, "matrix");
    json_t *e;
    size_t i;

    if (!strcmp(rtype, "scalar")) {
        out->s = calloc(1, sizeof(*out->s));
        if (!out->s || pp_labels(NULL, out->s) < 0 || !(out->s->t = malloc(sizeof(double))) ||
            !(out->s->v = malloc(sizeof(double))))
            return (out->n = out->s ? 1 : 0), gs_err_set(err, GS_E_NOMEM, "out of memory reading %s", what);
        out->n = 1;
        if (pp_point(res, out->s->t, out->s->v) < 0)
            return gs_err_set(err, GS_E_BACKEND, "the answer to %s holds a malformed scalar", what);
        out->s->npoints = 1;
        return 0;
    }
    if ((!matrix && strcmp(rtype, "vector")) || !json_is_array(res))
        return gs_err_set(err, GS_E_BACKEND, "the answer to %s is a \"%.20s\" result, not a vector or matrix",
                          what, rtype);
    out->s = calloc(json_array_size(res) ? json_array_size(res) : 1, sizeof(*out->s));
    if (!out->s)
        return gs_err_set(err, GS_E_NOMEM, "out of memory reading %s", what);
    json_array_foreach(res, i, e)
    {
        struct gs_prom_series *s = &out->s[out->n++];
        int rc = pp_labels(json_object_get(e, "metric"), s);
        if (rc == 0)
            rc = pp_points(e, matrix, s);
        if (rc == -GS_E_NOMEM)
            return gs_err_set(err, GS_E_NOMEM, "out of memory reading %s", what);
        if (rc < 0 || !json_is_object(e))
            return gs_err_set(err, GS_E_BACKEND, "the answer to %s holds a malformed series (number %zu)", what,
                              i + 1);
    }
    return 0;
}

int gs_prom_parse(const char *body, size_t len, long http, const char *what, struct gs_prom_result *out,
                  struct gs_err *err)
{
    json_error_t jerr;
    int rc;

    memset(out, 0, sizeof(*out));
    json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, &jerr);
    const char *status = json_string_value(json_object_get(root, "status"));
    if (!root || !status) {
        json_decref(root);
        return pp_not_api(body, len, http, what, err);
    }
    if (strcmp(status, "success") || http >= 300) {
        rc = pp_api_error(root, http, what, err);
        goto out;
    }
    json_t *data = json_object_get(root, "data");
    const char *rtype = json_string_value(json_object_get(data, "resultType"));
    if (!rtype) {
        rc = pp_not_api(body, len, http, what, err);
        goto out;
    }
    rc = pp_results(json_object_get(data, "result"), rtype, what, out, err);
out:
    json_decref(root);
    if (rc < 0)
        gs_prom_result_free(out);
    return rc;
}

void gs_prom_result_free(struct gs_prom_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        struct gs_prom_series *s = &r->s[i];
        for (size_t j = 0; j < s->nlabels; j++) {
            free(s->names[j]);
            free(s->values[j]);
        }
        free(s->names);
        free(s->values);
        free(s->t);
        free(s->v);
    }
    free(r->s);
    memset(r, 0, sizeof(*r));
}

const char *gs_prom_label(const struct gs_prom_series *s, const char *name)
{
    for (size_t i = 0; s && i < s->nlabels; i++)
        if (!strcmp(s->names[i], name))
            return s->values[i];
    return NULL;
}

/* ---- the scrape interval ------------------------------------------------------------------ */

double gs_prom_duration_s(const char *s)
{
    static const struct { const char *unit; double s; } units[] = {
        {"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 604800}, {"y", 31536000}};
    double total = 0;

    if (!s || !*s)
        return -1;
    while (*s) {
        char *end;
        if (*s < '0' || *s > '9')
            return -1;
        double n = strtod(s, &end);
        size_t i;
        for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
            size_t ul = strlen(units[i].unit);
            if (!strncmp(end, units[i].unit, ul) && !(ul == 1 && end[0] == 'm' && end[1] == 's'))
                break;
        }
        if (i == sizeof(units) / sizeof(units[0]))
            return -1;
        total += n * units[i].s;
        s = end + strlen(units[i].unit);
    }
    return total;
}

static yaml_node_t *pp_yaml_get(yaml_document_t *d, yaml_node_t *m, const char *key)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *kv = m->data.mapping.pairs.start; kv < m->data.mapping.pairs.top; kv++) {
        yaml_node_t *k = yaml_document_get_node(d, kv->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return yaml_document_get_node(d, kv->value);
    }
    return NULL;
}

double gs_prom_parse_scrape_interval(const char *body, size_t len)
{
    json_t *root = json_loadb(body, len, 0, NULL);
    const char *y = json_string_value(json_object_get(json_object_get(root, "data"), "yaml"));
    yaml_parser_t parser;
    yaml_document_t doc;
    double s = 0;

    if (!y || !yaml_parser_initialize(&parser)) {
        json_decref(root);
        return 0;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)y, strlen(y));
    if (yaml_parser_load(&parser, &doc)) {
        yaml_node_t *g = pp_yaml_get(&doc, yaml_document_get_root_node(&doc), "global");
        yaml_node_t *v = pp_yaml_get(&doc, g, "scrape_interval");
        if (v && v->type == YAML_SCALAR_NODE)
            s = gs_prom_duration_s((const char *)v->data.scalar.value);
        yaml_document_delete(&doc);
    }
    yaml_parser_delete(&parser);
    json_decref(root);
    return s > 0 ? s : 0;
}
