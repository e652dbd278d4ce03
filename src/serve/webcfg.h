/* SPDX-License-Identifier: MIT */
/*
 * webcfg.h - the exporter-toolkit web configuration file (--web.config.file),
 * the YAML that Prometheus exporters and dcgm-exporter accept:
 *
 *   tls_server_config:
 *     cert_file: server.crt      # relative paths: against the file's directory
 *     key_file: server.key
 *     min_version: TLS12         # TLS12 (default) or TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...          # bcrypt hashes ($2a$, $2b$, $2y$)
 *
 * Only that subset of YAML (block mappings two levels deep, plain or quoted
 * scalars, comments) is read. Keys the toolkit knows but gpuscope does not
 * implement (client certificates, custom headers, rate limits, inline certs)
 * are errors, not silently ignored, so a file never promises protection it
 * does not get. Errors name the file and line.
 */
#ifndef GS_SERVE_WEBCFG_H
#define GS_SERVE_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

struct gs_webcfg;

/* Read and check path (certificate and key files are read too). */
int gs_webcfg_load(struct gs_webcfg **out, const char *path, struct gs_err *err);
/* Parse text; name is used in messages, basedir resolves relative paths
 * (NULL: as given). Files named in it are not read (gs_webcfg_load does that). */
int gs_webcfg_parse(struct gs_webcfg **out, const char *text, size_t len, const char *name,
                    const char *basedir, struct gs_err *err);
void gs_webcfg_free(struct gs_webcfg *c);

bool gs_webcfg_has_tls(const struct gs_webcfg *c);
bool gs_webcfg_has_auth(const struct gs_webcfg *c);
/* PEM contents (after gs_webcfg_load), and the resolved paths. */
const char *gs_webcfg_cert_pem(const struct gs_webcfg *c);
const char *gs_webcfg_key_pem(const struct gs_webcfg *c);
const char *gs_webcfg_cert_file(const struct gs_webcfg *c);
const char *gs_webcfg_key_file(const struct gs_webcfg *c);
/* GnuTLS priority string for min_version/max_version. */
const char *gs_webcfg_tls_priorities(const struct gs_webcfg *c);
/* Number of users and the bcrypt hash of a user (NULL if none), for tests. */
unsigned gs_webcfg_nusers(const struct gs_webcfg *c);
const char *gs_webcfg_user_hash(const struct gs_webcfg *c, const char *user);

/* Basic auth check; thread-safe. Unknown users cost the same as known ones
 * (checked against a dummy hash). A success is remembered per user so that
 * Prometheus's scrapes do not pay bcrypt's cost (~70 ms at cost 10) each time. */
bool gs_webcfg_check_user(struct gs_webcfg *c, const char *user, const char *password);

/* password against a bcrypt hash with crypt(3) (libxcrypt); constant-time compare. */
bool gs_bcrypt_verify(const char *password, const char *hash);
/* Syntactically a bcrypt hash: $2a$/$2b$/$2y$, two-digit cost, 53 more characters. */
bool gs_bcrypt_hash_valid(const char *hash);

#endif /* GS_SERVE_WEBCFG_H */
