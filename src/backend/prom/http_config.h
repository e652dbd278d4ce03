/* SPDX-License-Identifier: MIT */
/*
 * http_config.h - Prometheus' `http_config` (the YAML block that
 * promtool --http.config.file, scrape configs and remote_write share), parsed
 * with libyaml and applied to a libcurl easy handle. Nothing fleet-specific:
 * any gpuscope client of an HTTP server that Prometheus users configure this
 * way (the fleet backend, record's remote write) uses it.
 *
 * The file's top level is the http_config itself:
 *
 *     basic_auth:                 # or authorization:, or bearer_token[_file]:
 *       username: alice
 *       password_file: /etc/gpuscope/prom.pass   # or password: "..."
 *     authorization:
 *       type: Bearer              # the default
 *       credentials_file: token   # or credentials: "..."
 *     bearer_token_file: token    # the older spelling of authorization
 *     tls_config:
 *       ca_file: ca.pem
 *       cert_file: client.pem
 *       key_file: client.key
 *       server_name: prom.example # the name the server's certificate must carry
 *       insecure_skip_verify: false
 *     follow_redirects: true
 *
 * As in Prometheus: relative paths are relative to the file's directory;
 * password_file and credentials_file are read at every request (a rotated
 * secret is picked up) with surrounding white space trimmed; basic_auth,
 * authorization and bearer_token* exclude each other; an unknown key is an
 * error, not ignored. Keys Prometheus has that this does not (oauth2,
 * proxy_url, inline tls ca/cert/key...) are refused by name rather than
 * silently dropped. Every error names the file, the line and the key.
 *
 * Usage:
 *
 *     struct gs_http_config *hc = NULL;
 *     if (gs_http_config_load(&hc, path, &err) < 0) ...   // or _parse() on text
 *     struct gs_http_req rq = {0};
 *     if (gs_http_config_apply(hc, curl, url, &rq, &err) < 0) ...  // per request
 *     curl_easy_perform(curl);
 *     gs_http_req_free(&rq);          // after the transfer: curl keeps pointers
 *     gs_http_config_free(hc);
 *
 * hc may be NULL in apply (no credentials, default TLS): the URL is still set.
 */
#ifndef GS_HTTP_CONFIG_H
#define GS_HTTP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "core/err.h"

enum gs_http_auth {
    GS_HTTP_AUTH_NONE = 0,
    GS_HTTP_AUTH_BASIC,   /* basic_auth */
    GS_HTTP_AUTH_HEADER,  /* authorization (or bearer_token*: type Bearer) */
};

/* The parsed file. Strings are NULL when not given; paths are resolved
 * against the file's directory. Read it, do not write it. */
struct gs_http_config {
    char *path;            /* the file ("<text>" for parsed text), for messages */
    enum gs_http_auth auth;
    int auth_line;         /* where the auth block was given */
    char *username;        /* basic_auth */
    char *password;        /* basic_auth password, inline */
    char *password_file;   /* basic_auth password_file */
    char *auth_type;       /* authorization type ("Bearer" when not given) */
    char *credentials;     /* authorization credentials / bearer_token, inline */
    char *credentials_file; /* authorization credentials_file / bearer_token_file */
    char *ca_file;         /* tls_config */
    char *cert_file;
    char *key_file;
    char *server_name;
    bool insecure_skip_verify;
    bool follow_redirects; /* default true, as Prometheus */
};

/* What one request keeps alive until its transfer is done (curl holds
 * pointers into it). Zero-initialise; gs_http_req_free() after the transfer. */
struct gs_http_req {
    struct curl_slist *headers;    /* Authorization */
    struct curl_slist *connect_to; /* server_name: connect to the URL's host, verify this name */
    char *url;        /* the URL given to curl (host rewritten for server_name) */
    char *secret;     /* credentials read from a file, wiped on free */
};

/* Parse text (len bytes, need not be NUL-terminated) read from `path` (for
 * messages and relative paths; NULL: "<text>" and the current directory).
 * 0, or a negative enum gs_errc with err saying "FILE:LINE: key: what". */
int gs_http_config_parse(struct gs_http_config **out, const char *text, size_t len, const char *path,
                         struct gs_err *err);
/* Read and parse the file at path (a regular file of at most 1 MiB). */
int gs_http_config_load(struct gs_http_config **out, const char *path, struct gs_err *err);
void gs_http_config_free(struct gs_http_config *c);

/* Set url, credentials and TLS options of c (may be NULL) on the handle
 * `curl` for one request. A password_file or credentials_file that
 * cannot be read is an error naming it. Free rq after the transfer. */
int gs_http_config_apply(const struct gs_http_config *c, CURL *curl, const char *url, struct gs_http_req *rq,
                         struct gs_err *err);
void gs_http_req_free(struct gs_http_req *rq);

/* A short description of what c sends ("basic auth as alice", "bearer token
 * from FILE", "no credentials"), never the secret itself, for messages. */
void gs_http_config_describe(const struct gs_http_config *c, char *buf, size_t len);

#endif /* GS_HTTP_CONFIG_H */
