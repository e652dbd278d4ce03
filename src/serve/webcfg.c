/* SPDX-License-Identifier: MIT */
/*
 * webcfg.c - the exporter-toolkit web configuration subset (see webcfg.h):
 *   1. scalars: quoting and comments
 *   2. the keys of each section, list items
 *   3. the line parser (two-level block mappings, lists of scalars)
 *   4. the checks of the whole file, the GnuTLS priority string
 *   5. loading files (regular files only); the bcrypt hashes are bcrypt.c's
 */
#include "serve/webcfg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/vec.h"
#include "serve/webtls.h"

enum wc_section { WC_NONE, WC_TLS, WC_HTTP, WC_USERS };
enum wc_list { WL_NONE, WL_CIPHERS, WL_CURVES, WL_SANS };

#define WC_MAX_SUITES 32
#define WC_MAX_CURVES 8
#define WC_MAX_SANS 64

struct wc_user {
    char *name;
    char *hash;
};

struct gs_webcfg {
    char *name;                          /* the file, for messages */
    char *cert_file, *key_file, *ca_file; /* resolved paths, NULL: not given */
    int cert_line, key_line, ca_line, auth_line; /* where they were given, for messages */
    int tls_line;                        /* the first key that only makes sense with TLS */
    char *cert_pem, *key_pem, *ca_pem;   /* contents after gs_webcfg_load */
    int min_tls, max_tls;                /* 10 to 13 */
    bool prefer_server;                  /* prefer_server_cipher_suites (default true) */
    enum gs_wc_client_auth client_auth;
    struct gs_wc_suite suites[WC_MAX_SUITES];
    unsigned nsuites;
    const char *curves[WC_MAX_CURVES];   /* GnuTLS group elements, static strings */
    unsigned ncurves;
    char *sans[WC_MAX_SANS];
    unsigned nsans;
    struct wc_user *users;
    unsigned nusers;
    size_t users_cap;
    unsigned seen;                       /* 1 << enum wc_section of sections met */
    char prio[640];
};

struct wc_parse {
    struct gs_webcfg *c;
    const char *name;    /* file name for messages */
    const char *basedir; /* for relative paths, or NULL */
    int line;
    enum wc_section sec;
    int child_indent;    /* indentation of the current section's keys, -1 before the first */
    enum wc_list list;   /* a block list is open under this key */
    int list_indent;     /* ... whose items are indented at least this much */
    const char *list_key;
    struct gs_err *err;
};

/* fmt is always a literal with exactly two %s (a and b, NULL printing as ""):
 * the one format the tree cannot check, so the warning is off here only. */
static int wc_fail(struct wc_parse *p, const char *fmt, const char *a, const char *b)
{
    char what[256];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    snprintf(what, sizeof(what), fmt, a ? a : "", b ? b : "");
#pragma GCC diagnostic pop
    gs_err_set(p->err, GS_E_PARSE, "%s:%d: %s", p->name, p->line, what);
    gs_err_hint(p->err, "see docs/SERVE.md (web configuration) for the keys gpuscope reads");
    return -GS_E_PARSE;
}

static int wc_nomem(struct wc_parse *p)
{
    return gs_err_set(p->err, GS_E_NOMEM, "out of memory");
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

/* ---- 2. section keys ----------------------------------------------------------------------- */

static int wc_tls_version(struct wc_parse *p, const char *key, const char *v, int *out)
{
    static const char *const names[] = { "TLS10", "TLS11", "TLS12", "TLS13" };
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, names[i])) {
            *out = 10 + i;
            return 0;
        }
    return wc_fail(p, "%s: unknown TLS version \"%s\" (TLS10, TLS11, TLS12 or TLS13)", key, v);
}

static int wc_client_auth(struct wc_parse *p, const char *v)
{
    static const struct {
        const char *name;
        enum gs_wc_client_auth v;
    } types[] = {
        { "NoClientCert", GS_WC_NO_CLIENT_CERT },
        { "RequestClientCert", GS_WC_REQUEST_CLIENT_CERT },
        { "RequireAnyClientCert", GS_WC_REQUIRE_ANY_CLIENT_CERT },
        { "RequireClientCert", GS_WC_REQUIRE_ANY_CLIENT_CERT }, /* exporter-toolkit's old spelling */
        { "VerifyClientCertIfGiven", GS_WC_VERIFY_CLIENT_CERT_IF_GIVEN },
        { "RequireAndVerifyClientCert", GS_WC_REQUIRE_AND_VERIFY },
    };
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (!strcmp(v, types[i].name)) {
            p->c->client_auth = types[i].v;
            p->c->auth_line = p->line;
            return 0;
        }
    return wc_fail(p, "client_auth_type: unknown value \"%s\" (NoClientCert, RequestClientCert, "
                      "RequireAnyClientCert, VerifyClientCertIfGiven or RequireAndVerifyClientCert)%s",
                   v, NULL);
}

static int wc_file_key(struct wc_parse *p, const char *key, const char *v, char **dst, int *line)
{
    if (*dst)
        return wc_fail(p, "duplicate key %s%s", key, NULL);
    if (!*v)
        return wc_fail(p, "%s needs a file name%s", key, NULL);
    *dst = wc_path(p, v);
    *line = p->line;
    return *dst ? 0 : wc_nomem(p);
}

/* One item of a list under key (block "- x" or flow "[x, y]"). */
static int wc_list_item(struct wc_parse *p, enum wc_list l, const char *v)
{
    struct gs_webcfg *c = p->c;
    if (!*v)
        return wc_fail(p, "empty item in %s%s", p->list_key, NULL);
    if (l == WL_CIPHERS) {
        struct gs_wc_suite s;
        int rc = gs_webtls_suite(v, &s);
        if (rc < 0)
            return wc_fail(p, "cipher_suites: unknown or insecure cipher suite \"%s\" (Go's tls.CipherSuites() "
                              "names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)%s",
                           v, NULL);
        if (rc == 0) /* a TLS 1.3 suite: not configurable, as in Go */
            return 0;
        if (c->nsuites == WC_MAX_SUITES)
            return wc_fail(p, "cipher_suites: too many entries%s%s", NULL, NULL);
        c->suites[c->nsuites++] = s;
        return 0;
    }
    if (l == WL_CURVES) {
        const char *g = gs_webtls_curve(v);
        if (!g)
            return wc_fail(p, "curve_preferences: unknown curve \"%s\" (CurveP256, CurveP384, CurveP521 or X25519)%s",
                           v, NULL);
        for (unsigned i = 0; i < c->ncurves; i++)
            if (c->curves[i] == g)
                return 0;
        if (c->ncurves < WC_MAX_CURVES)
            c->curves[c->ncurves++] = g;
        return 0;
    }
    if (c->nsans == WC_MAX_SANS)
        return wc_fail(p, "client_allowed_sans: too many entries%s%s", NULL, NULL);
    if (!(c->sans[c->nsans] = strdup(v)))
        return wc_nomem(p);
    c->nsans++;
    return 0;
}

/* A flow list "[a, 'b', c]" (one line). */
static int wc_flow_list(struct wc_parse *p, enum wc_list l, char *v)
{
    size_t n = strlen(v);
    const char *why = NULL;
    if (n < 2 || v[n - 1] != ']')
        return wc_fail(p, "%s: a flow list must end with ']' on the same line%s", p->list_key, NULL);
    v[n - 1] = '\0';
    char *inner = v + 1 + strspn(v + 1, " \t");
    if (!*inner) /* [] */
        return 0;
    for (char *item = inner, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        item += strspn(item, " \t");
        if (wc_scalar(item, &why) < 0)
            return wc_fail(p, "%s%s", why, NULL);
        int rc = wc_list_item(p, l, item);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int wc_tls_list(struct wc_parse *p, const char *key, char *v, int indent)
{
    enum wc_list l = !strcmp(key, "cipher_suites")       ? WL_CIPHERS
                     : !strcmp(key, "curve_preferences") ? WL_CURVES
                                                         : WL_SANS;
    p->list_key = l == WL_CIPHERS ? "cipher_suites" : l == WL_CURVES ? "curve_preferences" : "client_allowed_sans";
    if (!p->c->tls_line)
        p->c->tls_line = p->line;
    if (v[0] == '[')
        return wc_flow_list(p, l, v);
    if (*v)
        return wc_fail(p, "%s must be a list (\"- item\" lines below it, or [a, b])%s", key, NULL);
    p->list = l;
    p->list_indent = indent;
    return 0;
}

static int wc_tls_key(struct wc_parse *p, const char *key, char *v, int indent)
{
    struct gs_webcfg *c = p->c;
    bool b;
    if (!strcmp(key, "cert_file"))
        return wc_file_key(p, key, v, &c->cert_file, &c->cert_line);
    if (!strcmp(key, "key_file"))
        return wc_file_key(p, key, v, &c->key_file, &c->key_line);
    if (!strcmp(key, "client_ca_file")) {
        if (!c->tls_line)
            c->tls_line = p->line;
        return wc_file_key(p, key, v, &c->ca_file, &c->ca_line);
    }
    if (!strcmp(key, "cipher_suites") || !strcmp(key, "curve_preferences") || !strcmp(key, "client_allowed_sans"))
        return wc_tls_list(p, key, v, indent);
    if (!*v)
        return wc_fail(p, "%s needs a value (nested mappings are not supported)%s", key, NULL);
    if (!strcmp(key, "min_version"))
        return wc_tls_version(p, key, v, &c->min_tls);
    if (!strcmp(key, "max_version"))
        return wc_tls_version(p, key, v, &c->max_tls);
    if (!strcmp(key, "client_auth_type")) {
        if (!c->tls_line)
            c->tls_line = p->line;
        return wc_client_auth(p, v);
    }
    if (!strcmp(key, "prefer_server_cipher_suites")) {
        if (!wc_bool(v, &b))
            return wc_fail(p, "%s: expected true or false, got \"%s\"", key, v);
        c->prefer_server = b;
        return 0;
    }
    if (!strcmp(key, "cert") || !strcmp(key, "key") || !strcmp(key, "client_ca"))
        return wc_fail(p, "tls_server_config.%s (inline PEM) is not supported by gpuscope: use %s_file", key, key);
    return wc_fail(p, "unknown key \"%s\" in tls_server_config%s", key, NULL);
}

static int wc_http_key(struct wc_parse *p, const char *key, const char *v)
{
    bool b;
    if (!strcmp(key, "headers"))
        return wc_fail(p, "http_server_config.headers is not supported by gpuscope%s%s", NULL, NULL);
    if (!*v)
        return wc_fail(p, "%s needs a value (nested mappings are not supported)%s", key, NULL);
    if (!strcmp(key, "http2")) /* libmicrohttpd speaks HTTP/1.1 only; the setting is moot */
        return wc_bool(v, &b) ? 0 : wc_fail(p, "%s: expected true or false, got \"%s\"", key, v);
    return wc_fail(p, "unknown key \"%s\" in http_server_config%s", key, NULL);
}

static int wc_user_key(struct wc_parse *p, const char *user, const char *hash)
{
    struct gs_webcfg *c = p->c;
    char cost[8];
    if (!*user)
        return wc_fail(p, "empty user name%s%s", NULL, NULL);
    if (gs_webcfg_user_hash(c, user))
        return wc_fail(p, "user \"%s\" is listed twice%s", user, NULL);
    if (!gs_bcrypt_hash_valid(hash))
        return wc_fail(p, "the password of user \"%s\" is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 "
                          "characters; make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n')%s",
                       user, NULL);
    if (gs_bcrypt_cost(hash) > GS_BCRYPT_MAX_COST) {
        snprintf(cost, sizeof(cost), "%d", gs_bcrypt_cost(hash));
        return wc_fail(p, "the password hash of user \"%s\" has bcrypt cost %s: gpuscope takes at most 14 "
                          "(each check would take seconds; 10 is usual: htpasswd -nBC 10 \"\" | tr -d ':\\n')",
                       user, cost);
    }
    struct wc_user *u = gs_vec_grow(c->users, &c->users_cap, (size_t)c->nusers + 1, sizeof(*u));
    if (!u)
        return wc_nomem(p);
    c->users = u;
    u[c->nusers].name = strdup(user);
    u[c->nusers].hash = strdup(hash);
    if (!u[c->nusers].name || !u[c->nusers].hash) {
        free(u[c->nusers].name);
        free(u[c->nusers].hash);
        return wc_nomem(p);
    }
    c->nusers++;
    return 0;
}

/* ---- 3. lines ----------------------------------------------------------------------------- */

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
        return wc_fail(p, "rate_limit is not supported by gpuscope (see --max-connections-per-ip)%s%s", NULL,
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
    if (**val != '[' && wc_scalar(*val, &why) < 0)
        return wc_fail(p, "%s%s", why, NULL);
    if (**val == '[') { /* a flow list: only its trailing comment goes */
        char *hash = strstr(*val, " #");
        if (hash)
            *hash = '\0';
        size_t n = strlen(*val);
        while (n && ((*val)[n - 1] == ' ' || (*val)[n - 1] == '\t'))
            (*val)[--n] = '\0';
    }
    return 0;
}

/* "- item" of the open block list, or the end of that list. Returns 1 when consumed. */
static int wc_list_line(struct wc_parse *p, char *t, int indent)
{
    const char *why = NULL;
    if (p->list == WL_NONE)
        return 0;
    if (indent < p->list_indent || *t != '-' || (t[1] != ' ' && t[1] != '\0')) {
        p->list = WL_NONE; /* the list ended: this line is a key */
        return 0;
    }
    char *v = t + 1 + strspn(t + 1, " \t");
    if (wc_scalar(v, &why) < 0)
        return wc_fail(p, "%s%s", why, NULL);
    int rc = wc_list_item(p, p->list, v);
    return rc < 0 ? rc : 1;
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
    int rc = wc_list_line(p, t, indent);
    if (rc != 0)
        return rc < 0 ? rc : 0;
    if (*t == '-' && (t[1] == ' ' || !t[1]))
        return wc_fail(p, "unexpected list item%s%s", NULL, NULL);
    char *key = NULL, *val = NULL;
    rc = wc_split(p, t, &key, &val);
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
    if (p->sec == WC_TLS)
        return wc_tls_key(p, key, val, indent);
    if (p->sec == WC_HTTP)
        return wc_http_key(p, key, val);
    return wc_user_key(p, key, val);
}

/* ---- 4. the whole file ---------------------------------------------------------------------- */

static int wc_fail_at(struct wc_parse *p, int line, const char *what)
{
    if (line > 0)
        gs_err_set(p->err, GS_E_PARSE, "%s:%d: %s", p->name, line, what);
    else
        gs_err_set(p->err, GS_E_PARSE, "%s: %s", p->name, what);
    gs_err_hint(p->err, "see docs/SERVE.md (web configuration)");
    return -GS_E_PARSE;
}

/* What the keys of tls_server_config ask for, together. */
static int wc_check_tls(struct wc_parse *p)
{
    struct gs_webcfg *c = p->c;
    bool verify = c->client_auth == GS_WC_VERIFY_CLIENT_CERT_IF_GIVEN || c->client_auth == GS_WC_REQUIRE_AND_VERIFY;
    if (!!c->cert_file != !!c->key_file || (c->tls_line && !c->cert_file))
        return wc_fail_at(p, c->cert_line ? c->cert_line : c->key_line ? c->key_line : c->tls_line,
                          "tls_server_config needs both cert_file and key_file");
    if (c->ca_file && c->client_auth == GS_WC_NO_CLIENT_CERT)
        return wc_fail_at(p, c->ca_line, "client_ca_file is set but client_auth_type is NoClientCert (the "
                                         "default): say which client certificates to ask for");
    if (verify && !c->ca_file)
        return wc_fail_at(p, c->auth_line, "client_auth_type asks to verify client certificates: set "
                                           "client_ca_file to the CA that signs them");
    if (c->nsans && !verify)
        return wc_fail_at(p, c->auth_line, "client_allowed_sans needs client_auth_type "
                                           "RequireAndVerifyClientCert or VerifyClientCertIfGiven");
    if (c->min_tls > c->max_tls)
        return wc_fail_at(p, 0, "min_version is above max_version");
    return 0;
}

size_t gs_webcfg_priorities_for(const struct gs_webcfg *c, const struct gs_wc_suite *only, char *buf, size_t cap)
{
    static const char *const vers[] = { "+VERS-TLS1.0", "+VERS-TLS1.1", "+VERS-TLS1.2", "+VERS-TLS1.3" };
    const struct gs_wc_suite *suites = only ? only : c->suites;
    unsigned nsuites = only ? 1 : c->nsuites;
    size_t n = (size_t)snprintf(buf, cap, "NORMAL:-VERS-ALL");
    char part[48];

#define PRIO_ADD(...) (n += n < cap ? (size_t)snprintf(buf + n, cap - n, __VA_ARGS__) : 0)
    for (int v = c->max_tls; v >= c->min_tls; v--)
        PRIO_ADD(":%s", vers[v - 10]);
    if (!nsuites) {
        /* forward-secret AEAD suites only (no static RSA, no CBC) */
        PRIO_ADD(":-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:+CHACHA20-POLY1305:-MAC-ALL:+AEAD"
                 ":-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA");
    } else {
        PRIO_ADD(":-CIPHER-ALL:-MAC-ALL:-KX-ALL");
        for (unsigned i = 0; i < nsuites; i++)
            for (int k = 0; k < 3; k++) {
                const struct gs_wc_suite *su = &suites[i];
                const char *el = gs_webtls_part_name(k, k == 0 ? su->kx : k == 1 ? su->cipher : su->mac);
                snprintf(part, sizeof(part), ":+%s", el ? el : "");
                if (el && n < cap && !strstr(buf, part)) /* each part once, in the list's order */
                    PRIO_ADD("%s", part);
            }
    }
    PRIO_ADD(":-GROUP-ALL");
    if (!c->ncurves)
        PRIO_ADD(":+GROUP-X25519:+GROUP-SECP256R1:+GROUP-SECP384R1:+GROUP-SECP521R1");
    for (unsigned i = 0; i < c->ncurves; i++)
        PRIO_ADD(":+%s", c->curves[i]);
    if (c->prefer_server)
        PRIO_ADD(":%%SERVER_PRECEDENCE");
#undef PRIO_ADD
    return n;
}

static int wc_check(struct wc_parse *p)
{
    struct gs_webcfg *c = p->c;
    int rc = wc_check_tls(p);
    if (rc < 0)
        return rc;
    if (!c->cert_file && !c->nusers)
        return wc_fail_at(p, 0, "asks for neither TLS (tls_server_config with cert_file and key_file) nor "
                                "basic auth (basic_auth_users): gpuscope will not start unprotected on a "
                                "web config; drop --web.config.file to serve plain HTTP");
    if (gs_webcfg_priorities_for(c, NULL, c->prio, sizeof(c->prio)) >= sizeof(c->prio))
        return wc_fail_at(p, c->tls_line, "too many cipher suites and curves");
    return 0;
}

int gs_webcfg_parse(struct gs_webcfg **out, const char *text, size_t len, const char *name,
                    const char *basedir, struct gs_err *err)
{
    struct gs_webcfg *c = calloc(1, sizeof(*c));
    char *copy = strndup(text, len);
    int rc = 0;
    *out = NULL;
    if (!c || !copy || !(c->name = strdup(name))) {
        if (c)
            free(c->name);
        free(c);
        free(copy);
        return gs_err_set(err, GS_E_NOMEM, "out of memory");
    }
    c->min_tls = 12;
    c->max_tls = 13;
    c->prefer_server = true;
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

/* ---- 5. files and passwords ------------------------------------------------------------ */

/* The contents of a regular file (a directory, FIFO or device is refused:
 * fopen of a directory "succeeds" and reads nothing, which would be an empty
 * config). what names it in messages. */
static char *wc_read_file(const char *path, size_t max, struct gs_err *err, const char *what)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        gs_err_set(err, errno == EACCES ? GS_E_PERMISSION : GS_E_IO, "cannot read %s %s: %s", what, path,
                   strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        gs_err_set(err, GS_E_IO, "%s %s is %s, not a file", what, path,
                   S_ISDIR(st.st_mode) ? "a directory" : "not a regular file");
        close(fd);
        return NULL;
    }
    if ((size_t)st.st_size > max) {
        gs_err_set(err, GS_E_PARSE, "%s %s is too large (%lld bytes)", what, path, (long long)st.st_size);
        close(fd);
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = 0;
    ssize_t r = 0;
    while (buf && n < max && (r = read(fd, buf + n, max - n)) > 0)
        n += (size_t)r;
    int e = errno;
    close(fd);
    if (!buf || r < 0) {
        gs_err_set(err, buf ? GS_E_IO : GS_E_NOMEM, "cannot read %s %s: %s", what, path,
                   buf ? strerror(e) : "out of memory");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* A file the config names, read; an error says where the config named it. */
static char *wc_read_named(const struct gs_webcfg *c, const char *path, int line, size_t max, const char *what,
                           struct gs_err *err)
{
    char *text = wc_read_file(path, max, err, what);
    if (!text) {
        char msg[sizeof(err->msg)];
        snprintf(msg, sizeof(msg), "%s", err->msg);
        gs_err_set(err, (enum gs_errc)err->code, "%s:%d: %s", c->name, line, msg);
    }
    return text;
}

static int wc_load_pem(struct gs_webcfg *c, struct gs_err *err)
{
    if (!(c->cert_pem = wc_read_named(c, c->cert_file, c->cert_line, 1 << 20, "cert_file", err)) ||
        !(c->key_pem = wc_read_named(c, c->key_file, c->key_line, 1 << 20, "key_file", err)) ||
        (c->ca_file && !(c->ca_pem = wc_read_named(c, c->ca_file, c->ca_line, 1 << 22, "client_ca_file", err))))
        return -err->code;
    return gs_webtls_check(c, err);
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
    }
    for (unsigned i = 0; i < c->nsans; i++)
        free(c->sans[i]);
    free(c->users);
    free(c->name);
    free(c->cert_file);
    free(c->key_file);
    free(c->ca_file);
    free(c->cert_pem);
    if (c->key_pem)
        explicit_bzero(c->key_pem, strlen(c->key_pem));
    free(c->key_pem);
    free(c->ca_pem);
    free(c);
}

bool gs_webcfg_has_tls(const struct gs_webcfg *c) { return c && c->cert_file; }
bool gs_webcfg_has_auth(const struct gs_webcfg *c) { return c && c->nusers; }
const char *gs_webcfg_name(const struct gs_webcfg *c) { return c->name; }
const char *gs_webcfg_cert_pem(const struct gs_webcfg *c) { return c->cert_pem; }
const char *gs_webcfg_key_pem(const struct gs_webcfg *c) { return c->key_pem; }
const char *gs_webcfg_client_ca_pem(const struct gs_webcfg *c) { return c->ca_pem; }
const char *gs_webcfg_cert_file(const struct gs_webcfg *c) { return c->cert_file; }
const char *gs_webcfg_key_file(const struct gs_webcfg *c) { return c->key_file; }
const char *gs_webcfg_client_ca_file(const struct gs_webcfg *c) { return c->ca_file; }

int gs_webcfg_line(const struct gs_webcfg *c, enum gs_wc_line which)
{
    return which == GS_WC_LINE_CERT ? c->cert_line : which == GS_WC_LINE_KEY ? c->key_line : c->ca_line;
}
const char *gs_webcfg_tls_priorities(const struct gs_webcfg *c) { return c->prio; }
bool gs_webcfg_prefer_server(const struct gs_webcfg *c) { return c->prefer_server; }
int gs_webcfg_max_tls(const struct gs_webcfg *c) { return c->max_tls; }
enum gs_wc_client_auth gs_webcfg_client_auth(const struct gs_webcfg *c) { return c->client_auth; }
unsigned gs_webcfg_nsans(const struct gs_webcfg *c) { return c->nsans; }
const char *gs_webcfg_san(const struct gs_webcfg *c, unsigned i) { return i < c->nsans ? c->sans[i] : NULL; }
unsigned gs_webcfg_nusers(const struct gs_webcfg *c) { return c->nusers; }

const struct gs_wc_suite *gs_webcfg_suites(const struct gs_webcfg *c, unsigned *n)
{
    *n = c->nsuites;
    return c->suites;
}

const char *gs_webcfg_user_name(const struct gs_webcfg *c, unsigned i)
{
    return i < c->nusers ? c->users[i].name : NULL;
}

const char *gs_webcfg_user_hash_at(const struct gs_webcfg *c, unsigned i)
{
    return i < c->nusers ? c->users[i].hash : NULL;
}

const char *gs_webcfg_user_hash(const struct gs_webcfg *c, const char *user)
{
    for (unsigned i = 0; i < c->nusers; i++)
        if (!strcmp(c->users[i].name, user))
            return c->users[i].hash;
    return NULL;
}
