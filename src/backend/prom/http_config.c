/* SPDX-License-Identifier: MIT */
/*
 * http_config.c - Prometheus' http_config YAML (see http_config.h):
 *   1. messages that name the file, the line and the key
 *   2. scalars: strings, booleans, paths
 *   3. the sections (basic_auth, authorization, tls_config) and the top level
 *   4. the checks of the whole file, loading
 *   5. applying it to a libcurl handle
 * YAML is libyaml's (the document API: every node keeps its line).
 */
#include "backend/prom/http_config.h"

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

#define HC_MAX_FILE (1u << 20)    /* the config file */
#define HC_MAX_SECRET (64u << 10) /* a password_file or credentials_file */

struct hc_parse {
    struct gs_http_config *c;
    yaml_document_t *doc;
    const char *name;    /* the file, for messages */
    char *basedir;       /* for relative paths ("" : the current directory) */
    const yaml_node_t *key; /* the key being read: where messages point when given no node */
    struct gs_err *err;
};

/* ---- 1. messages -------------------------------------------------------------------------- */

static int hc_line(const yaml_node_t *n)
{
    return n ? (int)n->start_mark.line + 1 : 1;
}

static int hc_fail(struct hc_parse *p, const yaml_node_t *at, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int hc_fail(struct hc_parse *p, const yaml_node_t *at, const char *key, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    gs_err_set(p->err, GS_E_PARSE, "%s:%d: %s%s%s", p->name, hc_line(at ? at : p->key), key ? key : "", key ? ": " : "",
               what);
    gs_err_hint(p->err, "the file is Prometheus' http_config in YAML (basic_auth, authorization, "
                        "bearer_token_file, tls_config); docs/FLEET.md shows an example");
    return -GS_E_PARSE;
}

/* ---- 2. scalars --------------------------------------------------------------------------- */

static const char *hc_scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A string value into *dst (once: a key given twice is an error). */
static int hc_str(struct hc_parse *p, const yaml_node_t *v, const char *key, char **dst)
{
    const char *s = hc_scalar(v);
    if (!s)
        return hc_fail(p, v, key, "expected a string value, not a list or a mapping");
    if (*dst)
        return hc_fail(p, v, key, "given twice");
    if (strlen(s) != v->data.scalar.length)
        return hc_fail(p, v, key, "the value holds a NUL byte");
    *dst = strdup(s);
    return *dst ? 0 : gs_err_set(p->err, GS_E_NOMEM, "out of memory reading %s", p->name);
}

/* A path: relative to the file's directory, as Prometheus resolves them. */
static int hc_path(struct hc_parse *p, const yaml_node_t *v, const char *key, char **dst)
{
    int rc = hc_str(p, v, key, dst);
    if (rc < 0)
        return rc;
    if (!(*dst)[0])
        return hc_fail(p, v, key, "an empty path");
    if ((*dst)[0] != '/' && p->basedir[0]) {
        char *full = NULL;
        if (asprintf(&full, "%s/%s", p->basedir, *dst) < 0)
            return gs_err_set(p->err, GS_E_NOMEM, "out of memory reading %s", p->name);
        free(*dst);
        *dst = full;
    }
    return 0;
}

static int hc_bool(struct hc_parse *p, const yaml_node_t *v, const char *key, bool *dst)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    const char *s = hc_scalar(v);
    for (size_t i = 0; s && i < 3; i++) {
        if (!strcasecmp(s, yes[i]))
            return (*dst = true), 0;
        if (!strcasecmp(s, no[i]))
            return (*dst = false), 0;
    }
    return hc_fail(p, v, key, "expected true or false, not \"%.40s\"", s ? s : "(a list or mapping)");
}

/* ---- 3. sections -------------------------------------------------------------------------- */

typedef int (*hc_key_fn)(struct hc_parse *p, const char *key, yaml_node_t *v);

/* Call fn for every key of the mapping m (a section named `what`). */
static int hc_each(struct hc_parse *p, yaml_node_t *m, const char *what, hc_key_fn fn)
{
    if (!m || m->type != YAML_MAPPING_NODE)
        return hc_fail(p, m, what, "expected a mapping of keys");
    for (yaml_node_pair_t *kv = m->data.mapping.pairs.start; kv < m->data.mapping.pairs.top; kv++) {
        yaml_node_t *k = yaml_document_get_node(p->doc, kv->key);
        yaml_node_t *v = yaml_document_get_node(p->doc, kv->value);
        const char *key = hc_scalar(k);
        if (!key)
            return hc_fail(p, k, what, "a key that is not a plain string");
        p->key = k;
        int rc = fn(p, key, v);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int hc_set_auth(struct hc_parse *p, const char *key, enum gs_http_auth a)
{
    if (p->c->auth != GS_HTTP_AUTH_NONE)
        return hc_fail(p, NULL, key, "only one of basic_auth, authorization, bearer_token and "
                                  "bearer_token_file may be given (the first is at line %d)",
                       p->c->auth_line);
    p->c->auth = a;
    p->c->auth_line = hc_line(p->key);
    return 0;
}

static int hc_basic_key(struct hc_parse *p, const char *key, yaml_node_t *v)
{
    if (!strcmp(key, "username"))
        return hc_str(p, v, "basic_auth.username", &p->c->username);
    if (!strcmp(key, "password"))
        return hc_str(p, v, "basic_auth.password", &p->c->password);
    if (!strcmp(key, "password_file"))
        return hc_path(p, v, "basic_auth.password_file", &p->c->password_file);
    if (!strcmp(key, "username_file"))
        return hc_fail(p, NULL, "basic_auth.username_file", "not supported by gpuscope: give username");
    return hc_fail(p, NULL, key, "unknown key in basic_auth (username, password, password_file)");
}

static int hc_authz_key(struct hc_parse *p, const char *key, yaml_node_t *v)
{
    if (!strcmp(key, "type"))
        return hc_str(p, v, "authorization.type", &p->c->auth_type);
    if (!strcmp(key, "credentials"))
        return hc_str(p, v, "authorization.credentials", &p->c->credentials);
    if (!strcmp(key, "credentials_file"))
        return hc_path(p, v, "authorization.credentials_file", &p->c->credentials_file);
    return hc_fail(p, NULL, key, "unknown key in authorization (type, credentials, credentials_file)");
}

static int hc_tls_key(struct hc_parse *p, const char *key, yaml_node_t *v)
{
    if (!strcmp(key, "ca_file"))
        return hc_path(p, v, "tls_config.ca_file", &p->c->ca_file);
    if (!strcmp(key, "cert_file"))
        return hc_path(p, v, "tls_config.cert_file", &p->c->cert_file);
    if (!strcmp(key, "key_file"))
        return hc_path(p, v, "tls_config.key_file", &p->c->key_file);
    if (!strcmp(key, "server_name"))
        return hc_str(p, v, "tls_config.server_name", &p->c->server_name);
    if (!strcmp(key, "insecure_skip_verify"))
        return hc_bool(p, v, "tls_config.insecure_skip_verify", &p->c->insecure_skip_verify);
    if (!strcmp(key, "ca") || !strcmp(key, "cert") || !strcmp(key, "key") || !strcmp(key, "min_version") ||
        !strcmp(key, "max_version"))
        return hc_fail(p, NULL, key, "not supported by gpuscope: use ca_file, cert_file and key_file");
    return hc_fail(p, NULL, key, "unknown key in tls_config (ca_file, cert_file, key_file, server_name, "
                              "insecure_skip_verify)");
}

static int hc_top_key(struct hc_parse *p, const char *key, yaml_node_t *v)
{
    static const char *const refused[] = {"oauth2", "proxy_url", "no_proxy", "proxy_from_environment",
                                          "proxy_connect_header", "http_headers", "enable_http2"};
    int rc;

    if (!strcmp(key, "basic_auth")) {
        if ((rc = hc_set_auth(p, key, GS_HTTP_AUTH_BASIC)) < 0)
            return rc;
        return hc_each(p, v, key, hc_basic_key);
    }
    if (!strcmp(key, "authorization")) {
        if ((rc = hc_set_auth(p, key, GS_HTTP_AUTH_HEADER)) < 0)
            return rc;
        return hc_each(p, v, key, hc_authz_key);
    }
    if (!strcmp(key, "bearer_token") || !strcmp(key, "bearer_token_file")) {
        if ((rc = hc_set_auth(p, key, GS_HTTP_AUTH_HEADER)) < 0)
            return rc;
        if (key[12] == '_')
            return hc_path(p, v, key, &p->c->credentials_file);
        return hc_str(p, v, key, &p->c->credentials);
    }
    if (!strcmp(key, "tls_config"))
        return hc_each(p, v, key, hc_tls_key);
    if (!strcmp(key, "follow_redirects"))
        return hc_bool(p, v, key, &p->c->follow_redirects);
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (!strcmp(key, refused[i]))
            return hc_fail(p, NULL, key, "not supported by gpuscope (the server must be reached directly)");
    return hc_fail(p, NULL, key, "unknown key (Prometheus' http_config has basic_auth, authorization, "
                              "bearer_token, bearer_token_file, tls_config, follow_redirects)");
}

/* ---- 4. the whole file -------------------------------------------------------------------- */

static int hc_check(struct hc_parse *p, yaml_node_t *root)
{
    struct gs_http_config *c = p->c;

    if (c->auth == GS_HTTP_AUTH_BASIC) {
        if (!c->username)
            return hc_fail(p, root, "basic_auth", "username is required (line %d)", c->auth_line);
        if (c->password && c->password_file)
            return hc_fail(p, root, "basic_auth", "password and password_file exclude each other");
    }
    if (c->auth == GS_HTTP_AUTH_HEADER) {
        if (c->credentials && c->credentials_file)
            return hc_fail(p, root, "authorization", "credentials and credentials_file exclude each other");
        if (!c->credentials && !c->credentials_file)
            return hc_fail(p, root, "authorization", "credentials or credentials_file is required (line %d)",
                           c->auth_line);
        if (c->auth_type && !strcasecmp(c->auth_type, "basic"))
            return hc_fail(p, root, "authorization.type", "cannot be Basic: use basic_auth");
        if (c->auth_type && (!c->auth_type[0] || strpbrk(c->auth_type, " \t\r\n:")))
            return hc_fail(p, root, "authorization.type", "must be one word such as Bearer");
    }
    if (c->credentials && strpbrk(c->credentials, "\r\n"))
        return hc_fail(p, root, "credentials", "holds a line break");
    if (!c->cert_file != !c->key_file)
        return hc_fail(p, root, "tls_config", "cert_file and key_file go together");
    return 0;
}

static char *hc_dirname(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash)
        return strdup("");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static int hc_parse_doc(struct hc_parse *p, const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    int rc = 0;

    if (!yaml_parser_initialize(&parser))
        return gs_err_set(p->err, GS_E_NOMEM, "out of memory reading %s", p->name);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        gs_err_set(p->err, GS_E_PARSE, "%s:%d: not valid YAML: %s", p->name, (int)parser.problem_mark.line + 1,
                   parser.problem ? parser.problem : "unreadable");
        yaml_parser_delete(&parser);
        return -GS_E_PARSE;
    }
    p->doc = &doc;
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    const char *s = hc_scalar(root);
    /* an empty file (or one holding only comments, or "{}") is no settings */
    if (root && !(s && !s[0] && root->data.scalar.style == YAML_PLAIN_SCALAR_STYLE))
        rc = hc_each(p, root, "the file", hc_top_key);
    if (rc == 0)
        rc = hc_check(p, root);
    p->doc = NULL;
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return rc;
}

int gs_http_config_parse(struct gs_http_config **out, const char *text, size_t len, const char *path,
                         struct gs_err *err)
{
    struct hc_parse p = {.name = path ? path : "<text>", .err = err};
    int rc = -GS_E_NOMEM;

    *out = NULL;
    p.c = calloc(1, sizeof(*p.c));
    p.basedir = hc_dirname(path);
    if (!p.c || !p.basedir || !(p.c->path = strdup(p.name))) {
        gs_err_set(err, GS_E_NOMEM, "out of memory reading %s", p.name);
        goto fail;
    }
    p.c->follow_redirects = true;
    if ((rc = hc_parse_doc(&p, text, len)) < 0)
        goto fail;
    free(p.basedir);
    *out = p.c;
    return 0;
fail:
    free(p.basedir);
    gs_http_config_free(p.c);
    return rc;
}

/* Read a regular file of at most max bytes into a NUL-terminated buffer. */
static int hc_read_file(const char *path, size_t max, char **out, size_t *len, const char *what,
                        struct gs_err *err)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO, "cannot read %s %s: %s", what, path,
                          strerror(errno));
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
        close(fd);
        return gs_err_set(err, GS_E_IO, "%s %s is not a regular file of at most %zu KiB", what, path,
                          max >> 10);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
    int saved = errno;
    close(fd);
    if (n < 0) {
        free(buf);
        return gs_err_set(err, buf ? GS_E_IO : GS_E_NOMEM, "cannot read %s %s: %s", what, path,
                          strerror(saved));
    }
    buf[n] = '\0';
    *out = buf;
    *len = (size_t)n;
    return 0;
}

int gs_http_config_load(struct gs_http_config **out, const char *path, struct gs_err *err)
{
    char *text = NULL;
    size_t len = 0;

    *out = NULL;
    int rc = hc_read_file(path, HC_MAX_FILE, &text, &len, "the HTTP config", err);
    if (rc < 0) {
        gs_err_hint(err, "--prometheus-config takes a YAML file in Prometheus' http_config format");
        return rc;
    }
    rc = gs_http_config_parse(out, text, len, path, err);
    free(text);
    return rc;
}

void gs_http_config_free(struct gs_http_config *c)
{
    if (!c)
        return;
    if (c->password)
        explicit_bzero(c->password, strlen(c->password));
    if (c->credentials)
        explicit_bzero(c->credentials, strlen(c->credentials));
    free(c->path);
    free(c->username);
    free(c->password);
    free(c->password_file);
    free(c->auth_type);
    free(c->credentials);
    free(c->credentials_file);
    free(c->ca_file);
    free(c->cert_file);
    free(c->key_file);
    free(c->server_name);
    free(c);
}

/* ---- 5. applying it ----------------------------------------------------------------------- */

/* A secret from a file, white space around it trimmed (Prometheus does the same). */
static int hc_secret(const struct gs_http_config *c, const char *file, struct gs_http_req *rq, struct gs_err *err)
{
    size_t len = 0;
    char *s = NULL;
    int rc = hc_read_file(file, HC_MAX_SECRET, &s, &len, "the secret file", err);
    if (rc < 0) {
        gs_err_hint(err, "named in %s", c->path);
        return rc;
    }
    size_t b = strspn(s, " \t\r\n"), e = len;
    while (e > b && strchr(" \t\r\n", s[e - 1]))
        e--;
    memmove(s, s + b, e - b);
    memset(s + (e - b), 0, len - (e - b) + 1);
    if (strpbrk(s, "\r\n")) {
        explicit_bzero(s, len);
        free(s);
        return gs_err_set(err, GS_E_PARSE, "the secret file %s (named in %s) holds more than one line", file,
                          c->path);
    }
    rq->secret = s;
    return 0;
}

static int hc_apply_auth(const struct gs_http_config *c, CURL *h, struct gs_http_req *rq, struct gs_err *err)
{
    int rc;
    const char *cred = c->auth == GS_HTTP_AUTH_BASIC ? c->password : c->credentials;
    const char *file = c->auth == GS_HTTP_AUTH_BASIC ? c->password_file : c->credentials_file;

    if (c->auth == GS_HTTP_AUTH_NONE)
        return 0;
    if (file) {
        if ((rc = hc_secret(c, file, rq, err)) < 0)
            return rc;
        cred = rq->secret;
    }
    if (c->auth == GS_HTTP_AUTH_BASIC) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERNAME, c->username);
        curl_easy_setopt(h, CURLOPT_PASSWORD, cred ? cred : "");
        return 0;
    }
    char *line = NULL;
    if (asprintf(&line, "Authorization: %s %s", c->auth_type ? c->auth_type : "Bearer", cred ? cred : "") < 0)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    struct curl_slist *l = curl_slist_append(rq->headers, line);
    explicit_bzero(line, strlen(line));
    free(line);
    if (!l)
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    rq->headers = l;
    return 0;
}

/* server_name: the URL's host becomes server_name (the TLS name and Host:),
 * and curl connects to the host the URL named. */
static int hc_apply_url(const struct gs_http_config *c, CURL *h, const char *url, struct gs_http_req *rq,
                        struct gs_err *err)
{
    char *host = NULL, *port = NULL, *line = NULL;
    CURLU *u = NULL;
    int rc = -GS_E_USAGE;

    if (!c || !c->server_name) {
        if (!(rq->url = strdup(url)))
            return gs_err_set(err, GS_E_NOMEM, "out of memory");
        curl_easy_setopt(h, CURLOPT_URL, rq->url);
        return 0;
    }
    if (!(u = curl_url()) || curl_url_set(u, CURLUPART_URL, url, 0) ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) || curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) {
        gs_err_set(err, GS_E_USAGE, "%s: not a URL with a host", url);
        goto out;
    }
    rc = -GS_E_NOMEM;
    if (curl_url_set(u, CURLUPART_HOST, c->server_name, 0) || curl_url_get(u, CURLUPART_URL, &rq->url, 0) ||
        asprintf(&line, "%s:%s:%s:%s", c->server_name, port, host, port) < 0 ||
        !(rq->connect_to = curl_slist_append(NULL, line))) {
        gs_err_set(err, GS_E_USAGE, "%s: tls_config.server_name \"%s\" does not make a URL", c->path,
                   c->server_name);
        rc = -GS_E_USAGE;
        goto out;
    }
    curl_easy_setopt(h, CURLOPT_URL, rq->url);
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, rq->connect_to);
    rc = 0;
out:
    free(line);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return rc;
}

int gs_http_config_apply(const struct gs_http_config *c, CURL *h, const char *url, struct gs_http_req *rq,
                         struct gs_err *err)
{
    int rc = hc_apply_url(c, h, url, rq, err);
    if (rc < 0 || !c)
        return rc;
    if ((rc = hc_apply_auth(c, h, rq, err)) < 0)
        return rc;
    if (rq->headers)
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, rq->headers);
    if (c->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (c->cert_file) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
    }
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, c->insecure_skip_verify ? 0L : 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, c->insecure_skip_verify ? 0L : 2L);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, c->follow_redirects ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    return 0;
}

void gs_http_req_free(struct gs_http_req *rq)
{
    curl_slist_free_all(rq->headers);
    curl_slist_free_all(rq->connect_to);
    curl_free(rq->url);
    if (rq->secret) {
        explicit_bzero(rq->secret, strlen(rq->secret));
        free(rq->secret);
    }
    memset(rq, 0, sizeof(*rq));
}

void gs_http_config_describe(const struct gs_http_config *c, char *buf, size_t len)
{
    if (!c)
        snprintf(buf, len, "no credentials");
    else if (c->auth == GS_HTTP_AUTH_NONE)
        snprintf(buf, len, "no credentials (config %s)", c->path);
    else if (c->auth == GS_HTTP_AUTH_BASIC)
        snprintf(buf, len, "basic auth as \"%s\" (config %s)", c->username, c->path);
    else
        snprintf(buf, len, "%s credentials%s%s (config %s)", c->auth_type ? c->auth_type : "Bearer",
                 c->credentials_file ? " from " : "", c->credentials_file ? c->credentials_file : "", c->path);
}
