/* SPDX-License-Identifier: MIT */
/*
 * rw_config.c - `record --remote-write-config FILE`: one entry of Prometheus'
 * remote_write list, its keys at the top level, parsed with libyaml. This
 * file reads what remote_write adds (url, remote_timeout, headers,
 * write_relabel_configs keep/drop, queue_config); the client keys
 * (basic_auth, authorization, bearer_token_file, tls_config, ...) go to the
 * shared http_config parser. Every error names the file, line and key.
 */
#include "record/rw.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

void gs_rw_cfg_init(struct gs_rw_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->max_samples = GS_RW_DEFAULT_MAX_SAMPLES;
    c->min_backoff_ms = 30; /* Prometheus' queue_config defaults */
    c->max_backoff_ms = 5000;
    c->timeout_ms = 30000;  /* remote_timeout */
}

void gs_rw_cfg_free(struct gs_rw_cfg *c)
{
    free(c->url);
    free(c->config_path);
    for (size_t i = 0; i < c->nheaders; i++)
        free(c->headers[i]);
    for (size_t i = 0; i < c->nrelabel; i++) {
        regfree(&c->relabel[i].re);
        for (size_t k = 0; k < c->relabel[i].nsrc; k++)
            free(c->relabel[i].src[k]);
    }
    gs_http_config_free(c->http);
    memset(c, 0, sizeof(*c));
}

struct rw_doc {
    yaml_document_t d;
    const char *file;
    struct gs_err *err;
};

__attribute__((format(printf, 4, 5)))
static int rw_bad(struct rw_doc *p, const yaml_node_t *n, const char *key, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return gs_err_set(p->err, GS_E_PARSE, "%s:%lu: %s: %s", p->file, n ? (unsigned long)n->start_mark.line + 1 : 0,
                      key, what);
}

static const char *rw_scalar(struct rw_doc *p, const yaml_node_t *n, const char *key)
{
    if (!n || n->type != YAML_SCALAR_NODE) {
        rw_bad(p, n, key, "%s", "expected a single value");
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static int rw_dup(struct rw_doc *p, const yaml_node_t *n, const char *key, char **out)
{
    const char *s = rw_scalar(p, n, key);
    if (!s)
        return -GS_E_PARSE;
    free(*out);
    if (!(*out = strdup(s)))
        return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
    return 0;
}

static int rw_duration(struct rw_doc *p, const yaml_node_t *n, const char *key, int64_t *ms)
{
    const char *s = rw_scalar(p, n, key);
    if (!s)
        return -GS_E_PARSE;
    if (!strcmp(s, "0") || !strcmp(s, "0s")) {
        *ms = 0;
        return 0;
    }
    size_t l = strlen(s);
    if (l > 2 && !strcmp(s + l - 2, "ms")) { /* Prometheus durations also take ms */
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s + l - 2 && !errno && v >= 0) {
            *ms = v;
            return 0;
        }
    } else if (gs_parse_duration_ms(s, ms) == 0 && *ms >= 0) {
        return 0;
    }
    return rw_bad(p, n, key, "'%s' is not a duration (30s, 5m, 100ms)", s);
}

/* Headers Prometheus reserves for itself (the protocol, the client): refused, as it does. */
static bool rw_reserved_header(const char *h)
{
    static const char *const r[] = { "Authorization", "Host", "Content-Encoding", "Content-Length",
                                     "Content-Type", "User-Agent", "Connection", "Keep-Alive",
                                     "Proxy-Authenticate", "Proxy-Authorization", "Www-Authenticate",
                                     "Accept-Encoding", "X-Prometheus-Remote-Write-Version",
                                     "X-Prometheus-Remote-Read-Version", "Transfer-Encoding", "Expect" };
    for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
        if (!strcasecmp(h, r[i]))
            return true;
    return false;
}

static int rw_headers(struct rw_doc *p, struct gs_rw_cfg *c, const yaml_node_t *m)
{
    if (m->type != YAML_MAPPING_NODE)
        return rw_bad(p, m, "headers", "%s", "expected a mapping of header names to values");
    for (yaml_node_pair_t *it = m->data.mapping.pairs.start; it < m->data.mapping.pairs.top; it++) {
        const yaml_node_t *kn = yaml_document_get_node(&p->d, it->key);
        const yaml_node_t *vn = yaml_document_get_node(&p->d, it->value);
        const char *k = rw_scalar(p, kn, "headers"), *v = k ? rw_scalar(p, vn, k) : NULL;
        if (!v)
            return -GS_E_PARSE;
        for (const char *q = k; *q; q++)
            if (!isgraph((unsigned char)*q) || *q == ':')
                return rw_bad(p, kn, "headers", "'%s' is not a header name", k);
        if (!*k)
            return rw_bad(p, kn, "headers", "%s", "an empty header name");
        if (rw_reserved_header(k))
            return rw_bad(p, kn, "headers", "%s is set by gpuscope itself (as Prometheus refuses it too)", k);
        if (strpbrk(v, "\r\n"))
            return rw_bad(p, vn, k, "%s", "a header value cannot hold a line break");
        if (c->nheaders == GS_RW_MAX_HEADERS)
            return rw_bad(p, kn, "headers", "more than %s headers", "16");
        char *line;
        if (asprintf(&line, "%s: %s", k, v) < 0)
            return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
        c->headers[c->nheaders++] = line;
    }
    return 0;
}

/* A quantifier right after another ("a++", "a*{2}") is undefined in POSIX ERE and makes
 * glibc's regcomp take memory exponential in the run: refused, as RE2 refuses "a**". */
static bool rw_regex_sane(const char *re)
{
    bool after_q = false, in_br = false;
    for (const char *c = re; *c; c++) {
        if (in_br) {
            in_br = *c != ']' || c[-1] == '[' || (c[-1] == '^' && c[-2] == '[');
            continue;
        }
        bool q = *c == '*' || *c == '+' || *c == '?' || *c == '{';
        if (q && after_q)
            return false;
        if (*c == '{')
            c += strcspn(c, "}") - (c[strcspn(c, "}")] ? 0 : 1);
        if (*c == '\\' && c[1])
            c++;
        in_br = *c == '[';
        after_q = q;
    }
    return strlen(re) <= 1024;
}

static int rw_relabel_one(struct rw_doc *p, struct gs_rw_relabel *rl, const yaml_node_t *m)
{
    const char *regex = "(.*)", *action = "replace";
    const yaml_node_t *an = m, *rn = m;
    snprintf(rl->sep, sizeof(rl->sep), ";");
    if (m->type != YAML_MAPPING_NODE)
        return rw_bad(p, m, "write_relabel_configs", "%s", "each entry is a mapping (action, source_labels, regex)");
    for (yaml_node_pair_t *it = m->data.mapping.pairs.start; it < m->data.mapping.pairs.top; it++) {
        const yaml_node_t *kn = yaml_document_get_node(&p->d, it->key);
        const yaml_node_t *vn = yaml_document_get_node(&p->d, it->value);
        const char *k = rw_scalar(p, kn, "write_relabel_configs");
        if (!k)
            return -GS_E_PARSE;
        if (!strcmp(k, "source_labels")) {
            if (vn->type != YAML_SEQUENCE_NODE)
                return rw_bad(p, vn, k, "%s", "expected a list of label names");
            for (yaml_node_item_t *i = vn->data.sequence.items.start; i < vn->data.sequence.items.top; i++) {
                if (rl->nsrc == GS_RW_MAX_SRC)
                    return rw_bad(p, vn, k, "more than %s labels", "8");
                if (rw_dup(p, yaml_document_get_node(&p->d, *i), k, &rl->src[rl->nsrc]) < 0)
                    return -GS_E_PARSE;
                rl->nsrc++;
            }
        } else if (!strcmp(k, "separator")) {
            const char *s = rw_scalar(p, vn, k);
            if (!s)
                return -GS_E_PARSE;
            snprintf(rl->sep, sizeof(rl->sep), "%s", s);
        } else if (!strcmp(k, "regex")) {
            if (!(regex = rw_scalar(p, vn, k)))
                return -GS_E_PARSE;
            rn = vn;
        } else if (!strcmp(k, "action")) {
            if (!(action = rw_scalar(p, vn, k)))
                return -GS_E_PARSE;
            an = vn;
        } else {
            return rw_bad(p, kn, k, "%s", "not supported: gpuscope's write_relabel_configs take action keep or "
                                         "drop with source_labels, separator and regex");
        }
    }
    if (strcmp(action, "keep") && strcmp(action, "drop"))
        return rw_bad(p, an, "action", "'%s' is not supported (keep or drop)", action);
    rl->keep = !strcmp(action, "keep");
    if (!rl->nsrc && !(rl->src[rl->nsrc++] = strdup("__name__")))
        return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
    if (!rw_regex_sane(regex))
        return rw_bad(p, rn, "regex", "'%.80s': a repeated quantifier or over 1024 characters", regex);
    char *anch;
    if (asprintf(&anch, "^(%s)$", regex) < 0)
        return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
    int rc = regcomp(&rl->re, anch, REG_EXTENDED | REG_NOSUB);
    free(anch);
    if (rc) {
        char why[200];
        regerror(rc, &rl->re, why, sizeof(why));
        return rw_bad(p, rn, "regex", "%s (POSIX extended syntax)", why);
    }
    return 0;
}

static int rw_relabels(struct rw_doc *p, struct gs_rw_cfg *c, const yaml_node_t *s)
{
    if (s->type != YAML_SEQUENCE_NODE)
        return rw_bad(p, s, "write_relabel_configs", "%s", "expected a list");
    for (yaml_node_item_t *i = s->data.sequence.items.start; i < s->data.sequence.items.top; i++) {
        if (c->nrelabel == GS_RW_MAX_RELABEL)
            return rw_bad(p, s, "write_relabel_configs", "more than %s rules", "16");
        struct gs_rw_relabel *rl = &c->relabel[c->nrelabel];
        memset(rl, 0, sizeof(*rl));
        int rc = rw_relabel_one(p, rl, yaml_document_get_node(&p->d, *i));
        if (rc < 0) { /* free what this rule holds; a compiled regex is never left behind here */
            for (size_t k = 0; k < rl->nsrc; k++)
                free(rl->src[k]);
            return rc;
        }
        c->nrelabel++;
    }
    return 0;
}

static int rw_queue_cfg(struct rw_doc *p, struct gs_rw_cfg *c, const yaml_node_t *m)
{
    if (m->type != YAML_MAPPING_NODE)
        return rw_bad(p, m, "queue_config", "%s", "expected a mapping");
    for (yaml_node_pair_t *it = m->data.mapping.pairs.start; it < m->data.mapping.pairs.top; it++) {
        const yaml_node_t *kn = yaml_document_get_node(&p->d, it->key);
        const yaml_node_t *vn = yaml_document_get_node(&p->d, it->value);
        const char *k = rw_scalar(p, kn, "queue_config");
        int rc = 0;
        if (!k)
            return -GS_E_PARSE;
        if (!strcmp(k, "max_samples_per_send")) {
            const char *s = rw_scalar(p, vn, k);
            char *end;
            if (!s)
                return -GS_E_PARSE;
            errno = 0;
            long long v = strtoll(s, &end, 10);
            if (*end || errno || v < 1 || v > 100000)
                return rw_bad(p, vn, k, "'%s' is not a number of samples from 1 to 100000", s);
            c->max_samples = (uint32_t)v;
        } else if (!strcmp(k, "min_backoff")) {
            rc = rw_duration(p, vn, k, &c->min_backoff_ms);
        } else if (!strcmp(k, "max_backoff")) {
            rc = rw_duration(p, vn, k, &c->max_backoff_ms);
        } else if (!strcmp(k, "capacity") || !strcmp(k, "max_shards") || !strcmp(k, "min_shards") ||
                   !strcmp(k, "batch_send_deadline") || !strcmp(k, "retry_on_http_429") ||
                   !strcmp(k, "sample_age_limit")) {
            return rw_bad(p, kn, k, "%s", "has no meaning here: the database is the queue and one sender sends it in "
                                          "order (remove it)");
        } else {
            return rw_bad(p, kn, k, "%s", "unknown queue_config key (max_samples_per_send, min_backoff, max_backoff)");
        }
        if (rc < 0)
            return rc;
    }
    if (c->min_backoff_ms < 1 || c->max_backoff_ms < c->min_backoff_ms)
        return rw_bad(p, m, "queue_config", "%s", "min_backoff must be > 0 and at most max_backoff");
    return 0;
}

/* Keys of the client that the shared http_config parser reads. */
static bool rw_client_key(const char *k)
{
    static const char *const ck[] = { "basic_auth", "authorization", "bearer_token", "bearer_token_file",
                                      "tls_config", "follow_redirects", "proxy_url", "oauth2", "sigv4",
                                      "azuread", "enable_http2", "no_proxy", "proxy_from_environment",
                                      "proxy_connect_header" };
    for (size_t i = 0; i < sizeof(ck) / sizeof(ck[0]); i++)
        if (!strcmp(k, ck[i]))
            return true;
    return false;
}

/* Blank the lines [from, to] of text (newlines kept, so the client parser's line numbers stay true). */
static void rw_blank(char *text, size_t len, size_t from, size_t to)
{
    size_t line = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            line++;
            continue;
        }
        if (line >= from && line <= to)
            text[i] = ' ';
    }
}

static int rw_key(struct rw_doc *p, struct gs_rw_cfg *c, const char *k, const yaml_node_t *kn,
                  const yaml_node_t *vn)
{
    if (!strcmp(k, "url"))
        return rw_dup(p, vn, k, &c->url);
    if (!strcmp(k, "name"))
        return rw_scalar(p, vn, k) ? 0 : -GS_E_PARSE;
    if (!strcmp(k, "remote_timeout"))
        return rw_duration(p, vn, k, &c->timeout_ms);
    if (!strcmp(k, "headers"))
        return rw_headers(p, c, vn);
    if (!strcmp(k, "write_relabel_configs"))
        return rw_relabels(p, c, vn);
    if (!strcmp(k, "queue_config"))
        return rw_queue_cfg(p, c, vn);
    if (!strcmp(k, "metadata_config") || !strcmp(k, "send_exemplars") || !strcmp(k, "send_native_histograms") ||
        !strcmp(k, "protobuf_message") || !strcmp(k, "round_robin_dns"))
        return rw_bad(p, kn, k, "%s", "not supported by gpuscope's remote write (remove it)");
    return rw_bad(p, kn, k, "%s", "unknown remote_write key");
}

static int rw_walk(struct rw_doc *p, struct gs_rw_cfg *c, char *client, size_t len)
{
    yaml_node_t *root = yaml_document_get_root_node(&p->d);
    if (!root)
        return 0; /* an empty file: the URL comes from --remote-write */
    if (root->type != YAML_MAPPING_NODE)
        return rw_bad(p, root, "remote_write", "%s", "expected a mapping (url:, headers:, tls_config:, ...): one "
                                                     "entry of Prometheus' remote_write list, keys at the top");
    for (yaml_node_pair_t *it = root->data.mapping.pairs.start; it < root->data.mapping.pairs.top; it++) {
        const yaml_node_t *kn = yaml_document_get_node(&p->d, it->key);
        const yaml_node_t *vn = yaml_document_get_node(&p->d, it->value);
        const char *k = rw_scalar(p, kn, "remote_write");
        if (!k)
            return -GS_E_PARSE;
        if (rw_client_key(k))
            continue;
        if (kn->start_mark.line != vn->start_mark.line && vn->type == YAML_SCALAR_NODE)
            return rw_bad(p, kn, k, "%s", "put the value on the key's line");
        int rc = rw_key(p, c, k, kn, vn);
        if (rc < 0)
            return rc;
        size_t end = vn->end_mark.line;
        if (vn->end_mark.column == 0 && end > kn->start_mark.line)
            end--; /* a block value ends at the start of the next key's line */
        rw_blank(client, len, kn->start_mark.line, end);
    }
    return 0;
}

int gs_rw_cfg_parse(struct gs_rw_cfg *c, const char *name, const char *text, size_t len, struct gs_err *err)
{
    struct rw_doc p = { .file = name ? name : "<text>", .err = err };
    yaml_parser_t ps;
    char *client = malloc(len + 1);
    if (!client || !yaml_parser_initialize(&ps)) {
        free(client);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    memcpy(client, text, len);
    client[len] = '\0';
    yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
    int rc;
    if (!yaml_parser_load(&ps, &p.d)) {
        rc = gs_err_set(err, GS_E_PARSE, "%s:%lu: %s", p.file, (unsigned long)ps.problem_mark.line + 1,
                        ps.problem ? ps.problem : "not YAML");
        yaml_parser_delete(&ps);
        free(client);
        return rc;
    }
    rc = rw_walk(&p, c, client, len);
    if (rc == 0) /* what is left: the client keys, on their own lines */
        rc = gs_http_config_parse(&c->http, client, len, name, err);
    yaml_document_delete(&p.d);
    yaml_parser_delete(&ps);
    free(client);
    return rc;
}

int gs_rw_cfg_load(struct gs_rw_cfg *c, const char *path, struct gs_err *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO is refused, not waited on */
    struct stat sb;
    if (fd < 0)
        return gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO,
                          "cannot read the remote-write config %s: %m", path);
    if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return gs_err_set(err, GS_E_PARSE, "the remote-write config %s is not a regular file", path);
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
    int big = buf && n == 1 << 20 && fgetc(f) != EOF;
    fclose(f);
    if (!buf)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    int rc = big ? gs_err_set(err, GS_E_PARSE, "%s: larger than 1 MiB: not a remote-write config", path)
                 : gs_rw_cfg_parse(c, path, buf, n, err);
    free(buf);
    if (rc == 0 && !(c->config_path = strdup(path)))
        rc = gs_err_set(err, GS_E_NOMEM, "out of memory");
    return rc;
}
