/* SPDX-License-Identifier: MIT */
/*
 * webcfg.h - the exporter-toolkit web configuration file (--web.config.file),
 * the YAML that Prometheus exporters and dcgm-exporter accept:
 *
 *   tls_server_config:
 *     cert_file: server.crt      # relative paths: against the file's directory
 *     key_file: server.key
 *     min_version: TLS12         # TLS10 ... TLS13; max_version likewise
 *     cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]   # Go's names
 *     curve_preferences: [X25519, CurveP256]
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: ca.crt
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt hashes ($2a$, $2b$, $2y$)
 *
 * Only that subset of YAML (block mappings two levels deep, plain or quoted
 * scalars, block and flow lists of scalars, comments) is read. Keys the
 * toolkit knows but gpuscope does not implement (custom headers, rate limits,
 * inline certs) are errors, not silently ignored, and so is a file that cannot
 * be used as written (a directory, unreadable, a key that does not match its
 * certificate, a file that asks for neither TLS nor auth): a server never
 * starts without the protection its file asks for. Errors name the file and
 * line. The TLS side (GnuTLS checks, priority strings, client certificates)
 * is in webtls.c.
 */
#ifndef GS_SERVE_WEBCFG_H
#define GS_SERVE_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

/* exporter-toolkit's client_auth_type values (Go's tls.ClientAuthType). */
enum gs_wc_client_auth {
    GS_WC_NO_CLIENT_CERT = 0,
    GS_WC_REQUEST_CLIENT_CERT,        /* ask, accept none, do not verify */
    GS_WC_REQUIRE_ANY_CLIENT_CERT,    /* demand one, do not verify it */
    GS_WC_VERIFY_CLIENT_CERT_IF_GIVEN,/* ask; if one comes, it must verify against client_ca_file */
    GS_WC_REQUIRE_AND_VERIFY,         /* demand one that verifies */
};

/* bcrypt costs above this are refused: each first check of a password would
 * take seconds (cost 14 is about 1 s on a server core; 31 would be days). */
#define GS_BCRYPT_MAX_COST 14

struct gs_webcfg;

/* Read and check path: the file must be a readable regular file; certificate,
 * key and client CA files are read too and checked with GnuTLS (the key must
 * match the certificate). */
int gs_webcfg_load(struct gs_webcfg **out, const char *path, struct gs_err *err);
/* Parse text; name is used in messages, basedir resolves relative paths
 * (NULL: as given). Files named in it are not read (gs_webcfg_load does that). */
int gs_webcfg_parse(struct gs_webcfg **out, const char *text, size_t len, const char *name,
                    const char *basedir, struct gs_err *err);
void gs_webcfg_free(struct gs_webcfg *c);

bool gs_webcfg_has_tls(const struct gs_webcfg *c);
bool gs_webcfg_has_auth(const struct gs_webcfg *c);
const char *gs_webcfg_name(const struct gs_webcfg *c); /* the file, as given */
/* PEM contents (after gs_webcfg_load; client CA NULL when none), and the resolved paths. */
const char *gs_webcfg_cert_pem(const struct gs_webcfg *c);
const char *gs_webcfg_key_pem(const struct gs_webcfg *c);
const char *gs_webcfg_client_ca_pem(const struct gs_webcfg *c);
const char *gs_webcfg_cert_file(const struct gs_webcfg *c);
const char *gs_webcfg_key_file(const struct gs_webcfg *c);
const char *gs_webcfg_client_ca_file(const struct gs_webcfg *c);
/* The line a file was named on, for messages. */
enum gs_wc_line { GS_WC_LINE_CERT, GS_WC_LINE_KEY, GS_WC_LINE_CA };
int gs_webcfg_line(const struct gs_webcfg *c, enum gs_wc_line which);
enum gs_wc_client_auth gs_webcfg_client_auth(const struct gs_webcfg *c);
/* client_allowed_sans: count, and the i-th. */
unsigned gs_webcfg_nsans(const struct gs_webcfg *c);
const char *gs_webcfg_san(const struct gs_webcfg *c, unsigned i);
/* GnuTLS priority string for versions, suites, curves and preference order. */
const char *gs_webcfg_tls_priorities(const struct gs_webcfg *c);
/* A TLS 1.2 cipher suite: its number, and GnuTLS's names of its parts
 * (gnutls_kx_algorithm_t, gnutls_cipher_algorithm_t, gnutls_mac_algorithm_t). */
struct gs_wc_suite {
    unsigned iana; /* the suite's number (Go's constant) */
    int kx, cipher, mac;
};
/* cipher_suites as given (*n = 0: none given, GnuTLS's priority string alone decides). */
const struct gs_wc_suite *gs_webcfg_suites(const struct gs_webcfg *c, unsigned *n);
/* The priority string with only one suite's parts (only: NULL for the
 * config's own); returns its length (>= cap: truncated). */
size_t gs_webcfg_priorities_for(const struct gs_webcfg *c, const struct gs_wc_suite *only, char *buf, size_t cap);
bool gs_webcfg_prefer_server(const struct gs_webcfg *c); /* prefer_server_cipher_suites */
int gs_webcfg_max_tls(const struct gs_webcfg *c);          /* 10 .. 13 */

/* Users: count, the i-th name and bcrypt hash, the hash of a user (NULL if none). */
unsigned gs_webcfg_nusers(const struct gs_webcfg *c);
const char *gs_webcfg_user_name(const struct gs_webcfg *c, unsigned i);
const char *gs_webcfg_user_hash_at(const struct gs_webcfg *c, unsigned i);
const char *gs_webcfg_user_hash(const struct gs_webcfg *c, const char *user);

/* password against a bcrypt hash with crypt(3) (libxcrypt); constant-time compare. */
bool gs_bcrypt_verify(const char *password, const char *hash);
/* Syntactically a bcrypt hash: $2a$/$2b$/$2y$, two-digit cost 4..31, 53 more characters. */
bool gs_bcrypt_hash_valid(const char *hash);
/* The cost of a valid hash. */
int gs_bcrypt_cost(const char *hash);

#endif /* GS_SERVE_WEBCFG_H */
