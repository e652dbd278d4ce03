/* SPDX-License-Identifier: MIT */
/*
 * webtls.h - the web config's TLS side on GnuTLS (webtls.c): Go's names for
 * cipher suites and curves, the checks of certificate, key and client CA at
 * load, and what each TLS connection is held to (client certificates as
 * client_auth_type asks, only the listed cipher suites). gnutls_session_t is
 * passed as void * so that callers need not include GnuTLS.
 */
#ifndef GS_SERVE_WEBTLS_H
#define GS_SERVE_WEBTLS_H

#include <stdbool.h>

#include "core/err.h"
#include "serve/webcfg.h"

/* Look up a Go cipher suite name ("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"):
 * 1 and its GnuTLS parts, 0 for a TLS 1.3 name (not configurable, as in Go),
 * -1 unknown or insecure (Go's InsecureCipherSuites). */
int gs_webtls_suite(const char *name, struct gs_wc_suite *out);
/* GnuTLS's priority element for part 0 (kx), 1 (cipher) or 2 (mac) of a suite. */
const char *gs_webtls_part_name(int part, int value);
/* A Go curve name (CurveP256, CurveP384, CurveP521, X25519) as a GnuTLS
 * priority element ("GROUP-SECP256R1"), or NULL. */
const char *gs_webtls_curve(const char *name);

/* The GnuTLS checks of a loaded config: the key matches the certificate, the
 * client CA file holds certificates. Errors name the file and its key's line. */
int gs_webtls_check(const struct gs_webcfg *c, struct gs_err *err);

/* A new TLS connection (before its handshake): ask for client certificates
 * as client_auth_type says, verify them in the handshake, allow only the
 * listed cipher suites. */
void gs_webtls_session_setup(const struct gs_webcfg *c, void *session);
/* Whether the connection's client certificate satisfies client_auth_type,
 * client_ca_file and client_allowed_sans (checked again on a connection's
 * first request, which also covers resumed sessions). */
bool gs_webtls_peer_ok(const struct gs_webcfg *c, void *session);
/* The config of a session's connection (provided by http.c), or NULL. */
const struct gs_webcfg *gs_webtls_session_cfg(void *session);

#endif /* GS_SERVE_WEBTLS_H */
