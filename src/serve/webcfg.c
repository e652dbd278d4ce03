/* SPDX-License-Identifier: MIT */
/*
 * webcfg.c - the exporter-toolkit web configuration subset (see webcfg.h):
 *   1. scalars: quoting and comments
 *   2. the line parser (two-level block mappings)
 *   3. the keys of each section
 *   4. loading files, bcrypt checks
 */
#include "serve/webcfg.h"

#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum wc_section { WC_NONE, WC_TLS, WC_HTTP, WC_USERS };

struct wc_user {
    char *name;
    char *hash;
    char *cached;   /* last password that verified, or NULL (guarded by lock) */
};

struct gs_webcfg {
    char *cert_file, *key_file;  /* resolved paths, NULL: no TLS */
    char *cert_pem, *key_pem;    /* contents after gs_webcfg_load */
    int min_tls, max_tls;        /* 12 or 13 */
    struct wc_user *users;
    unsigned nusers;
    unsigned seen;               /* 1 << enum wc_section of sections met */
    char dummy_hash[128];        /* checked for unknown users */
    pthread_mutex_t lock;
    char prio[96];
};

struct wc_parse {
    struct gs_webcfg *c;
    const char *name;    /* file name for messages */
    const char *basedir; /* for relative paths, or NULL */
    int line;
    enum wc_section sec;
    int child_indent;    /* indentation of the current section's keys, -1 before the first */
    struct gs_err *err;
};

static int wc_fail(struct wc_parse *p, const char *fmt, const char *a, const char *b)
{
    char what[256];
    snprintf(what, sizeof(what), fmt, a ? a : "", b ? b : "");
    gs_err_set(p->err, GS_E_PARSE, "%s:%d: %s", p->name, p->line, what);
    gs_err_hint(p->err, "see docs/SERVE.md (web configuration) for the keys gpuscope reads");
    return -GS_E_PARSE;
}

/* ---- 1. scalars ------------------------------------------------------------------------- */

/* Unquote/trim the scalar s (modified in place); strips a trailing comment.
 * Returns 0, or -1 with *why set. */
static int wc_scalar(char *s, const char **why)
{
    size_t n = strlen(s);
    if (s[0] == '"' || s[0] == '\'') {
        char q = s[0], *w = s;
        size_t i = 1;
        for (; i < n; i++) {
            if (s[i] == q && q == '\'' && s[i + 1] == '\'') {
                *w++ = '\'';
                i++;
            } else if (s[i] == q) {
                break;
            } else if (s[i] == '\\' && q == '"' && i + 1 < n) {
                char e = s[++i];
                *w++ = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            } else {
                *w++ = s[i];
            }
        }
        if (i >= n) {
            *why = "unterminated quoted string";
            return -1;
        }
        const char *rest = s + i + 1;
        rest += strspn(rest, " \t");
        if (*rest && *rest != '#') {
            *why = "text after a quoted string";
            return -1;
        }
        *w = '\0';
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
            s[i] = '\0';
            break;
        }
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return 0;
}

static bool wc_bool(const char *v, bool *out)
{
    if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
        *out = true;
    else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
        *out = false;
    else
        return false;
    return true;
}

static char *wc_path(struct wc_parse *p, const char *v)
{
    char *out = NULL;
    if (v[0] == '/' || !p->basedir || !p->basedir[0])
        return strdup(v);
    if (asprintf(&out, "%s/%s", p->basedir, v) < 0)
        return NULL;
    return out;
}

/* ---- 3. section keys ----------------------------------------------------------------------- */

static int wc_tls_version(struct wc_parse *p, const char *key, const char *v, int *out)
{
    if (!strcmp(v, "TLS12"))
        *out = 12;
    else if (!strcmp(v, "TLS13"))
        *out = 13;
    else if (!strcmp(v, "TLS10") || !strcmp(v, "TLS11"))
        return wc_fail(p, "%s %s is not supported by gpuscope (TLS12 or TLS13)", key, v);
    else
        return wc_fail(p, "%s: unknown TLS version \"%s\" (TLS12 or TLS13)", key, v);
    return 0;
}

static int wc_tls_key(struct wc_parse *p, const char *key, const char *v)
{
    struct gs_webcfg *c = p->c;
    bool b;
    if (!strcmp(key, "cert_file") || !strcmp(key, "key_file")) {
        char **dst = key[0] == 'c' ? &c->cert_file : &c->key_file;
        if (*dst)
            return wc_fail(p, "duplicate key %s%s", key, NULL);
        if (!*v)
            return wc_fail(p, "%s needs a file name%s", key, NULL);
        *dst = wc_path(p, v);
        return *dst ? 0 : gs_err_set(p->err, GS_E_NOMEM, "out of memory");
    }
    if (!strcmp(key, "min_version"))
        return wc_tls_version(p, key, v, &c->min_tls);
    if (!strcmp(key, "max_version"))
        return wc_tls_version(p, key, v, &c->max_tls);
    if (!strcmp(key, "client_auth_type")) {
        if (!strcmp(v, "NoClientCert"))
            return 0;
        return wc_fail(p, "client_auth_type %s: client certificates are not supported by gpuscope%s", v,
                       NULL);
    }
    if (!strcmp(key, "prefer_server_cipher_suites"))
        return wc_bool(v, &b) ? 0 : wc_fail(p, "%s: expected true or false, got \"%s\"", key, v);
    if (!strcmp(key, "cert") || !strcmp(key, "key") || !strcmp(key, "client_ca_file") ||
        !strcmp(key, "client_ca") || !strcmp(key, "client_allowed_sans") ||
        !strcmp(key, "cipher_suites") || !strcmp(key, "curve_preferences"))
        return wc_fail(p, "tls_server_config.%s is not supported by gpuscope%s", key, NULL);
    return wc_fail(p, "unknown key \"%s\" in tls_server_config%s", key, NULL);
}

static int wc_http_key(struct wc_parse *p, const char *key, const char *v)
{
    bool b;
    if (!strcmp(key, "http2")) /* libmicrohttpd speaks HTTP/1.1 only; the setting is moot */
        return wc_bool(v, &b) ? 0 : wc_fail(p, "%s: expected true or false, got \"%s\"", key, v);
    if (!strcmp(key, "headers"))
        return wc_fail(p, "http_server_config.headers is not supported by gpuscope%s%s", NULL, NULL);
    return wc_fail(p, "unknown key \"%s\" in http_server_config%s", key, NULL);
}

static int wc_user_key(struct wc_parse *p, const char *user, const char *hash)
{
    struct gs_webcfg *c = p->c;
    if (!*user)
        return wc_fail(p, "empty user name%s%s", NULL, NULL);
    if (gs_webcfg_user_hash(c, user))
        return wc_fail(p, "user \"%s\" is listed twice%s", user, NULL);
    if (!gs_bcrypt_hash_valid(hash))
        return wc_fail(p, "the password of user \"%s\" is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 "
                          "characters; make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n')%s",
                       user, NULL);
    struct wc_user *u = realloc(c->users, (c->nusers + 1) * sizeof(*u));
    if (!u)
        return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
    c->users = u;
    u[c->nusers].name = strdup(user);
    u[c->nusers].hash = strdup(hash);
    u[c->nusers].cached = NULL;
    if (!u[c->nusers].name || !u[c->nusers].hash) {
        free(u[c->nusers].name);
        free(u[c->nusers].hash);
        return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
    }
    c->nusers++;
    return 0;
}

/* ---- 2. lines ----------------------------------------------------------------------------- */

static int wc_top_key(struct wc_parse *p, const char *key, const char *v)
{
    enum wc_section s;
    if (!strcmp(key, "tls_server_config"))
        s = WC_TLS;
    else if (!strcmp(key, "http_server_config"))
        s = WC_HTTP;
    else if (!strcmp(key, "basic_auth_users"))
        s = WC_USERS;
    else if (!strcmp(key, "rate_limit"))
        return wc_fail(p, "rate_limit is not supported by gpuscope (use --max-connections)%s%s", NULL,
                       NULL);
    else
        return wc_fail(p, "unknown key \"%s\" (expected tls_server_config, http_server_config or "
                          "basic_auth_users)%s",
                       key, NULL);
    if (p->c->seen & (1u << s))
        return wc_fail(p, "duplicate key %s%s", key, NULL);
    p->c->seen |= 1u << s;
    if (*v && strcmp(v, "{}") && strcmp(v, "null") && strcmp(v, "~"))
        return wc_fail(p, "%s must be a mapping (its keys indented below it), not \"%s\"", key, v);
    p->sec = s;
    p->child_indent = -1;
    return 0;
}

/* Split "key: value" (key plain or quoted). Returns 0 or fails. */
static int wc_split(struct wc_parse *p, char *s, char **key, char **val)
{
    const char *why = NULL;
    char *colon;
    if (s[0] == '"' || s[0] == '\'') {
        char *close = strchr(s + 1, s[0]);
        if (!close)
            return wc_fail(p, "unterminated quoted key%s%s", NULL, NULL);
        colon = close + 1;
        if (*colon != ':')
            return wc_fail(p, "expected ':' after the quoted key%s%s", NULL, NULL);
        *close = '\0';
        *key = s + 1;
    } else {
        colon = s;
        while ((colon = strchr(colon, ':')) && colon[1] && colon[1] != ' ' && colon[1] != '\t')
            colon++;
        if (!colon)
            return wc_fail(p, "expected \"key: value\", got \"%s\"%s", s, NULL);
        *key = s;
        char *e = colon;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        *e = '\0';
    }
    *val = colon + 1;
    *val += strspn(*val, " \t");
    if (wc_scalar(*val, &why) < 0)
        return wc_fail(p, "%s%s", why, NULL);
    return 0;
}

static int wc_line(struct wc_parse *p, char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '\r')
        s[--n] = '\0';
    int indent = (int)strspn(s, " \t");
    if (memchr(s, '\t', (size_t)indent))
        return wc_fail(p, "tab in indentation (YAML allows spaces only)%s%s", NULL, NULL);
    char *t = s + indent;
    if (!*t || *t == '#' || (indent == 0 && (!strcmp(t, "---") || !strcmp(t, "..."))))
        return 0;
    if (*t == '-' && (t[1] == ' ' || !t[1]))
        return wc_fail(p, "unexpected list item%s%s", NULL, NULL);
    char *key = NULL, *val = NULL;
    int rc = wc_split(p, t, &key, &val);
    if (rc < 0)
        return rc;
    if (indent == 0)
        return wc_top_key(p, key, val);
    if (p->sec == WC_NONE)
        return wc_fail(p, "indented key \"%s\" outside a section%s", key, NULL);
    if (p->child_indent < 0)
        p->child_indent = indent;
    if (indent != p->child_indent)
        return wc_fail(p, "unexpected indentation at \"%s\" (gpuscope reads two levels only)%s", key,
                       NULL);
    if (!*val && p->sec != WC_USERS)
        return wc_fail(p, "%s needs a value (nested mappings are not supported)%s", key, NULL);
    if (p->sec == WC_TLS)
        return wc_tls_key(p, key, val);
    if (p->sec == WC_HTTP)
        return wc_http_key(p, key, val);
    return wc_user_key(p, key, val);
}

static int wc_check(struct wc_parse *p)
{
    struct gs_webcfg *c = p->c;
    p->line = 0;
    if (!!c->cert_file != !!c->key_file) {
        gs_err_set(p->err, GS_E_PARSE, "%s: tls_server_config needs both cert_file and key_file",
                   p->name);
        return -GS_E_PARSE;
    }
    if (c->min_tls > c->max_tls) {
        gs_err_set(p->err, GS_E_PARSE, "%s: min_version is above max_version", p->name);
        return -GS_E_PARSE;
    }
    snprintf(c->prio, sizeof(c->prio), "NORMAL:-VERS-ALL%s%s",
             c->max_tls >= 13 ? ":+VERS-TLS1.3" : "", c->min_tls <= 12 ? ":+VERS-TLS1.2" : "");
    return 0;
}

int gs_webcfg_parse(struct gs_webcfg **out, const char *text, size_t len, const char *name,
                    const char *basedir, struct gs_err *err)
{
    struct gs_webcfg *c = calloc(1, sizeof(*c));
    char *copy = strndup(text, len);
    int rc = 0;
    *out = NULL;
    if (!c || !copy) {
        free(c);
        free(copy);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    pthread_mutex_init(&c->lock, NULL);
    c->min_tls = 12;
    c->max_tls = 13;
    struct wc_parse p = { .c = c, .name = name, .basedir = basedir, .err = err, .sec = WC_NONE };
    if (strlen(copy) != len)
        rc = gs_err_set(err, GS_E_PARSE, "%s: contains a NUL byte", name);
    for (char *line = copy, *next; rc == 0 && line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        p.line++;
        rc = wc_line(&p, line);
    }
    if (rc == 0)
        rc = wc_check(&p);
    free(copy);
    if (rc < 0) {
        gs_webcfg_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* ---- 4. files and passwords ------------------------------------------------------------ */

static char *wc_read_file(const char *path, size_t max, struct gs_err *err, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO, "cannot read %s %s: %s", what,
                   path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    bool toobig = buf && n == max && fgetc(f) != EOF;
    fclose(f);
    if (!buf || toobig) {
        free(buf);
        gs_err_set(err, toobig ? GS_E_PARSE : GS_E_NOMEM, "%s %s is too large", what, path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static int wc_load_pem(struct gs_webcfg *c, struct gs_err *err)
{
    c->cert_pem = wc_read_file(c->cert_file, 1 << 20, err, "cert_file");
    if (!c->cert_pem)
        return -err->code;
    c->key_pem = wc_read_file(c->key_file, 1 << 20, err, "key_file");
    if (!c->key_pem)
        return -err->code;
    if (!strstr(c->cert_pem, "-----BEGIN CERTIFICATE"))
        return gs_err_set(err, GS_E_PARSE, "cert_file %s is not a PEM certificate", c->cert_file);
    if (!strstr(c->key_pem, "-----BEGIN") || !strstr(c->key_pem, "PRIVATE KEY"))
        return gs_err_set(err, GS_E_PARSE, "key_file %s is not a PEM private key", c->key_file);
    return 0;
}

int gs_webcfg_load(struct gs_webcfg **out, const char *path, struct gs_err *err)
{
    char *text = wc_read_file(path, 1 << 20, err, "web config file");
    char *dir = strdup(path);
    int rc;
    *out = NULL;
    if (!text || !dir) {
        free(text);
        free(dir);
        return text ? gs_err_set(err, GS_E_NOMEM, "out of memory") : -err->code;
    }
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    rc = gs_webcfg_parse(out, text, strlen(text), path, slash ? dir : NULL, err);
    if (rc == 0 && (*out)->cert_file)
        rc = wc_load_pem(*out, err);
    if (rc == 0 && (*out)->nusers) /* unknown users pay the same bcrypt cost as the first user */
        snprintf((*out)->dummy_hash, sizeof((*out)->dummy_hash), "%s", (*out)->users[0].hash);
    if (rc < 0) {
        gs_webcfg_free(*out);
        *out = NULL;
    }
    free(text);
    free(dir);
    return rc;
}

void gs_webcfg_free(struct gs_webcfg *c)
{
    if (!c)
        return;
    for (unsigned i = 0; i < c->nusers; i++) {
        free(c->users[i].name);
        free(c->users[i].hash);
        free(c->users[i].cached);
    }
    free(c->users);
    free(c->cert_file);
    free(c->key_file);
    free(c->cert_pem);
    free(c->key_pem);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

bool gs_webcfg_has_tls(const struct gs_webcfg *c) { return c && c->cert_file; }
bool gs_webcfg_has_auth(const struct gs_webcfg *c) { return c && c->nusers; }
const char *gs_webcfg_cert_pem(const struct gs_webcfg *c) { return c->cert_pem; }
const char *gs_webcfg_key_pem(const struct gs_webcfg *c) { return c->key_pem; }
const char *gs_webcfg_cert_file(const struct gs_webcfg *c) { return c->cert_file; }
const char *gs_webcfg_key_file(const struct gs_webcfg *c) { return c->key_file; }
const char *gs_webcfg_tls_priorities(const struct gs_webcfg *c) { return c->prio; }
unsigned gs_webcfg_nusers(const struct gs_webcfg *c) { return c->nusers; }

const char *gs_webcfg_user_hash(const struct gs_webcfg *c, const char *user)
{
    for (unsigned i = 0; i < c->nusers; i++)
        if (!strcmp(c->users[i].name, user))
            return c->users[i].hash;
    return NULL;
}

bool gs_bcrypt_hash_valid(const char *h)
{
    static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) || h[3] != '$')
        return false;
    if (h[4] < '0' || h[4] > '3' || h[5] < '0' || h[5] > '9' || h[6] != '$')
        return false;
    int cost = (h[4] - '0') * 10 + (h[5] - '0');
    return cost >= 4 && cost <= 31 && strspn(h + 7, b64) == 53;
}

/* Constant-time equality of two NUL-terminated strings of possibly different lengths. */
static bool wc_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = la != lb;
    for (size_t i = 0; i < la; i++)
        d |= (unsigned char)(a[i] ^ b[i < lb ? i : 0]);
    return d == 0;
}

bool gs_bcrypt_verify(const char *password, const char *hash)
{
    if (!gs_bcrypt_hash_valid(hash))
        return false;
    struct crypt_data *cd = calloc(1, sizeof(*cd));
    if (!cd)
        return false;
    /* crypt_rn: libxcrypt, NULL on failure (and not intercepted by ASan, whose crypt_r
     * interceptor crashes in threads libmicrohttpd starts) */
    const char *out = crypt_rn(password, hash, cd, (int)sizeof(*cd));
    bool ok = out && out[0] == '$' && wc_equal(out, hash);
    explicit_bzero(cd, sizeof(*cd));
    free(cd);
    return ok;
}

bool gs_webcfg_check_user(struct gs_webcfg *c, const char *user, const char *password)
{
    struct wc_user *u = NULL;
    for (unsigned i = 0; i < c->nusers; i++)
        if (!strcmp(c->users[i].name, user))
            u = &c->users[i];
    if (!u) {
        if (c->dummy_hash[0])
            (void)gs_bcrypt_verify(password, c->dummy_hash);
        return false;
    }
    pthread_mutex_lock(&c->lock);
    bool hit = u->cached && wc_equal(u->cached, password);
    pthread_mutex_unlock(&c->lock);
    if (hit)
        return true;
    if (!gs_bcrypt_verify(password, u->hash))
        return false;
    char *copy = strdup(password);
    pthread_mutex_lock(&c->lock);
    free(u->cached);
    u->cached = copy;
    pthread_mutex_unlock(&c->lock);
    return true;
}
