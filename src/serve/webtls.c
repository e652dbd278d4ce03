/* SPDX-License-Identifier: MIT */
/*
 * webtls.c - the web config's TLS side on GnuTLS (libmicrohttpd's TLS
 * library), with exporter-toolkit's semantics:
 *   1. names: Go's cipher suite and curve names -> GnuTLS's
 *   2. checks at load: the key matches the certificate, the client CA file
 *      holds certificates (errors name the file and its line)
 *   3. per connection: client certificates as client_auth_type asks
 *      (requested or required in the handshake, verified against
 *      client_ca_file for the TLS client purpose, client_allowed_sans), and
 *      only the listed cipher suites (the handshake is ended otherwise)
 */
#include "serve/webtls.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- 1. names -------------------------------------------------------------------------- */

/* Go's tls.CipherSuites() for TLS 1.0-1.2 (the secure list; InsecureCipherSuites are refused),
 * with their IANA numbers (which Go's constants are) and GnuTLS's parts. */
static const struct {
    const char *go;
    struct gs_wc_suite s;
} webtls_suites[] = {
    { "TLS_RSA_WITH_AES_128_CBC_SHA", { 0x002F, GNUTLS_KX_RSA, GNUTLS_CIPHER_AES_128_CBC, GNUTLS_MAC_SHA1 } },
    { "TLS_RSA_WITH_AES_256_CBC_SHA", { 0x0035, GNUTLS_KX_RSA, GNUTLS_CIPHER_AES_256_CBC, GNUTLS_MAC_SHA1 } },
    { "TLS_RSA_WITH_AES_128_GCM_SHA256", { 0x009C, GNUTLS_KX_RSA, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_AEAD } },
    { "TLS_RSA_WITH_AES_256_GCM_SHA384", { 0x009D, GNUTLS_KX_RSA, GNUTLS_CIPHER_AES_256_GCM, GNUTLS_MAC_AEAD } },
    { "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
      { 0xC009, GNUTLS_KX_ECDHE_ECDSA, GNUTLS_CIPHER_AES_128_CBC, GNUTLS_MAC_SHA1 } },
    { "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
      { 0xC00A, GNUTLS_KX_ECDHE_ECDSA, GNUTLS_CIPHER_AES_256_CBC, GNUTLS_MAC_SHA1 } },
    { "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", { 0xC013, GNUTLS_KX_ECDHE_RSA, GNUTLS_CIPHER_AES_128_CBC, GNUTLS_MAC_SHA1 } },
    { "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", { 0xC014, GNUTLS_KX_ECDHE_RSA, GNUTLS_CIPHER_AES_256_CBC, GNUTLS_MAC_SHA1 } },
    { "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
      { 0xC02B, GNUTLS_KX_ECDHE_ECDSA, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_AEAD } },
    { "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
      { 0xC02C, GNUTLS_KX_ECDHE_ECDSA, GNUTLS_CIPHER_AES_256_GCM, GNUTLS_MAC_AEAD } },
    { "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", { 0xC02F, GNUTLS_KX_ECDHE_RSA, GNUTLS_CIPHER_AES_128_GCM, GNUTLS_MAC_AEAD } },
    { "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", { 0xC030, GNUTLS_KX_ECDHE_RSA, GNUTLS_CIPHER_AES_256_GCM, GNUTLS_MAC_AEAD } },
    { "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
      { 0xCCA9, GNUTLS_KX_ECDHE_ECDSA, GNUTLS_CIPHER_CHACHA20_POLY1305, GNUTLS_MAC_AEAD } },
    { "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
      { 0xCCA8, GNUTLS_KX_ECDHE_RSA, GNUTLS_CIPHER_CHACHA20_POLY1305, GNUTLS_MAC_AEAD } },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int gs_webtls_suite(const char *name, struct gs_wc_suite *out)
{
    static const char *const tls13[] = { "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                                         "TLS_CHACHA20_POLY1305_SHA256" };
    for (size_t i = 0; i < NELEM(webtls_suites); i++)
        if (!strcmp(name, webtls_suites[i].go)) {
            *out = webtls_suites[i].s;
            return 1;
        }
    for (size_t i = 0; i < NELEM(tls13); i++)
        if (!strcmp(name, tls13[i]))
            return 0;
    return -1;
}

const char *gs_webtls_part_name(int part, int value)
{
    switch (part) {
    case 0:
        return gnutls_kx_get_name((gnutls_kx_algorithm_t)value);
    case 1:
        return gnutls_cipher_get_name((gnutls_cipher_algorithm_t)value);
    default:
        return value == GNUTLS_MAC_AEAD ? "AEAD" : gnutls_mac_get_name((gnutls_mac_algorithm_t)value);
    }
}

const char *gs_webtls_curve(const char *name)
{
    static const char *const map[][2] = {
        { "CurveP256", "GROUP-SECP256R1" },
        { "CurveP384", "GROUP-SECP384R1" },
        { "CurveP521", "GROUP-SECP521R1" },
        { "X25519", "GROUP-X25519" },
    };
    for (size_t i = 0; i < NELEM(map); i++)
        if (!strcmp(name, map[i][0]))
            return map[i][1];
    return NULL;
}

/* ---- 2. checks at load ------------------------------------------------------------------------ */

/* FILE:LINE: what (fmt and its arguments), then GnuTLS's words for gnutls_rc (0: none). */
static int webtls_fail(const struct gs_webcfg *c, int line, struct gs_err *err, int gnutls_rc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int webtls_fail(const struct gs_webcfg *c, int line, struct gs_err *err, int gnutls_rc, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    gs_err_set(err, GS_E_PARSE, "%s:%d: %s%s%s", gs_webcfg_name(c), line, what, gnutls_rc ? ": " : "",
               gnutls_rc ? gnutls_strerror(gnutls_rc) : "");
    return -GS_E_PARSE;
}

/* The certificates in a PEM text; <0 GnuTLS error. *n counts them. */
static int webtls_certs(const char *pem, gnutls_x509_crt_t **crts, unsigned *n)
{
    gnutls_datum_t d = { (unsigned char *)(uintptr_t)pem, (unsigned)strlen(pem) };
    *crts = NULL;
    *n = 0;
    return gnutls_x509_crt_list_import2(crts, n, &d, GNUTLS_X509_FMT_PEM, 0);
}

static void webtls_certs_free(gnutls_x509_crt_t *crts, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        gnutls_x509_crt_deinit(crts[i]);
    gnutls_free(crts);
}

/* A server certificate past its end is served (as Go does), but said. */
static void webtls_warn_expiry(const struct gs_webcfg *c, gnutls_x509_crt_t crt)
{
    time_t end = gnutls_x509_crt_get_expiration_time(crt);
    if (end != (time_t)-1 && end < time(NULL)) {
        struct tm tm;
        char when[32] = "?";
        if (gmtime_r(&end, &tm))
            strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
        fprintf(stderr, "gpuscope serve: warning: cert_file %s expired on %s; clients that check it will refuse "
                        "to connect\n", gs_webcfg_cert_file(c), when);
    }
}

static int webtls_check_pair(const struct gs_webcfg *c, struct gs_err *err)
{
    gnutls_certificate_credentials_t cred = NULL;
    gnutls_x509_crt_t *crts;
    gnutls_x509_privkey_t key = NULL;
    unsigned n;
    int rc = webtls_certs(gs_webcfg_cert_pem(c), &crts, &n);
    if (rc < 0 || n == 0)
        return webtls_fail(c, gs_webcfg_line(c, GS_WC_LINE_CERT), err, rc < 0 ? rc : 0,
                           "cert_file %s holds no PEM certificate", gs_webcfg_cert_file(c));
    webtls_warn_expiry(c, crts[0]);
    webtls_certs_free(crts, n);
    gnutls_datum_t kd = { (unsigned char *)(uintptr_t)gs_webcfg_key_pem(c), (unsigned)strlen(gs_webcfg_key_pem(c)) };
    if ((rc = gnutls_x509_privkey_init(&key)) == 0)
        rc = gnutls_x509_privkey_import2(key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
    gnutls_x509_privkey_deinit(key);
    if (rc < 0)
        return webtls_fail(c, gs_webcfg_line(c, GS_WC_LINE_KEY), err, rc,
                           "key_file %s is not an unencrypted PEM private key", gs_webcfg_key_file(c));
    gnutls_datum_t cd = { (unsigned char *)(uintptr_t)gs_webcfg_cert_pem(c), (unsigned)strlen(gs_webcfg_cert_pem(c)) };
    if ((rc = gnutls_certificate_allocate_credentials(&cred)) == 0)
        rc = gnutls_certificate_set_x509_key_mem2(cred, &cd, &kd, GNUTLS_X509_FMT_PEM, NULL, 0);
    gnutls_certificate_free_credentials(cred);
    if (rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH)
        return webtls_fail(c, gs_webcfg_line(c, GS_WC_LINE_KEY), err, 0, "key_file %s does not match cert_file %s",
                           gs_webcfg_key_file(c), gs_webcfg_cert_file(c));
    if (rc < 0)
        return webtls_fail(c, gs_webcfg_line(c, GS_WC_LINE_CERT), err, rc, "cert_file %s and key_file %s cannot be used",
                           gs_webcfg_cert_file(c), gs_webcfg_key_file(c));
    return 0;
}

int gs_webtls_check(const struct gs_webcfg *c, struct gs_err *err)
{
    int rc = webtls_check_pair(c, err);
    if (rc < 0 || !gs_webcfg_client_ca_pem(c))
        return rc;
    gnutls_x509_crt_t *crts;
    unsigned n;
    rc = webtls_certs(gs_webcfg_client_ca_pem(c), &crts, &n);
    if (rc < 0 || n == 0)
        return webtls_fail(c, gs_webcfg_line(c, GS_WC_LINE_CA), err, rc < 0 ? rc : 0,
                           "client_ca_file %s holds no PEM certificate", gs_webcfg_client_ca_file(c));
    webtls_certs_free(crts, n);
    return 0;
}

/* ---- 3. per connection -------------------------------------------------------------------------- */

/* Does one of crt's subject alternative names equal one of the allowed ones
 * exactly (DNS, e-mail, URI, or an IP address in its text form)? */
static bool webtls_san_allowed(const struct gs_webcfg *c, gnutls_x509_crt_t crt)
{
    for (unsigned i = 0;; i++) {
        char buf[512], text[INET6_ADDRSTRLEN];
        size_t len = sizeof(buf) - 1;
        int type = gnutls_x509_crt_get_subject_alt_name(crt, i, buf, &len, NULL);
        if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
            return false;
        if (type < 0)
            continue; /* too long or malformed: not a match */
        buf[len] = '\0';
        const char *name = buf;
        if (type == GNUTLS_SAN_IPADDRESS) {
            if (!inet_ntop(len == 16 ? AF_INET6 : AF_INET, buf, text, sizeof(text)))
                continue;
            name = text;
        } else if (type != GNUTLS_SAN_DNSNAME && type != GNUTLS_SAN_RFC822NAME && type != GNUTLS_SAN_URI) {
            continue;
        }
        for (unsigned k = 0; k < gs_webcfg_nsans(c); k++)
            if (!strcmp(name, gs_webcfg_san(c, k)))
                return true;
    }
}

bool gs_webtls_peer_ok(const struct gs_webcfg *c, void *session)
{
    gnutls_session_t s = session;
    enum gs_wc_client_auth a = gs_webcfg_client_auth(c);
    unsigned n = 0, status = 1;
    const gnutls_datum_t *peers = gnutls_certificate_get_peers(s, &n);

    if (a == GS_WC_NO_CLIENT_CERT || a == GS_WC_REQUEST_CLIENT_CERT)
        return true;
    if (!peers || !n)
        return a == GS_WC_VERIFY_CLIENT_CERT_IF_GIVEN;
    if (a == GS_WC_REQUIRE_ANY_CLIENT_CERT)
        return true;
    /* verify against client_ca_file for the TLS client purpose, as Go does */
    gnutls_typed_vdata_st purpose = { GNUTLS_DT_KEY_PURPOSE_OID, (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT, 0 };
    if (gnutls_certificate_verify_peers(s, &purpose, 1, &status) < 0 || status != 0)
        return false;
    if (!gs_webcfg_nsans(c))
        return true;
    gnutls_x509_crt_t crt;
    bool ok = false;
    if (gnutls_x509_crt_init(&crt) == 0) {
        ok = gnutls_x509_crt_import(crt, &peers[0], GNUTLS_X509_FMT_DER) == 0 && webtls_san_allowed(c, crt);
        gnutls_x509_crt_deinit(crt);
    }
    return ok;
}

/* During the handshake: the client's certificate as client_auth_type asks
 * (GnuTLS itself ends the handshake when a required one is missing). */
static int webtls_verify_cb(gnutls_session_t s)
{
    const struct gs_webcfg *c = gs_webtls_session_cfg(s);
    return c && gs_webtls_peer_ok(c, s) ? 0 : GNUTLS_E_CERTIFICATE_ERROR;
}

/* ---- the exact cipher suites of cipher_suites ----
 * GnuTLS's priority strings combine kx, cipher and MAC parts freely, so a
 * suite made of listed parts is not necessarily listed. So, when
 * cipher_suites is given: on the ClientHello, pick the suite as Go would
 * (the first listed one the client offers, or the client's first listed one
 * without prefer_server_cipher_suites) and give the session a priority string
 * with that suite's parts only; and on the ServerHello check the suite
 * chosen (read from the message: GnuTLS's getters only report it once the
 * new keys are in use). TLS 1.3 suites are not configurable, as in Go. */

#define WEBTLS_MAX_OFFER 128

struct webtls_hello {
    unsigned ids[WEBTLS_MAX_OFFER]; /* the client's suites, in its order */
    unsigned n;
    bool tls13;                      /* supported_versions offers TLS 1.3 */
};

static unsigned webtls_u16(const unsigned char *d)
{
    return (unsigned)d[0] << 8 | d[1];
}

/* supported_versions (RFC 8446 4.2.1): a one-byte length, then versions. */
static bool webtls_offers_tls13(const unsigned char *d, size_t len)
{
    for (size_t k = 1; len && k + 1 < len && k + 1 <= (size_t)d[0]; k += 2)
        if (webtls_u16(d + k) == 0x0304)
            return true;
    return false;
}

/* ClientHello body: legacy_version, random, session id, suites, compression, extensions. */
static bool webtls_parse_hello(const gnutls_datum_t *m, struct webtls_hello *h)
{
    const unsigned char *d = m->data;
    size_t len = m->size, at = 34;
    memset(h, 0, sizeof(*h));
    if (!d || len < at + 1 || len < (at += 1 + d[at]) + 2)
        return false;
    size_t cl = webtls_u16(d + at);
    at += 2;
    if (len < at + cl || cl % 2)
        return false;
    for (size_t i = 0; i < cl && h->n < WEBTLS_MAX_OFFER; i += 2)
        h->ids[h->n++] = webtls_u16(d + at + i);
    at += cl;
    if (len < at + 1 || len < (at += 1 + d[at]))
        return false;
    if (len < at + 2)
        return true; /* no extensions */
    size_t end = at + 2 + webtls_u16(d + at);
    for (at += 2, end = end > len ? len : end; at + 4 <= end;) {
        unsigned type = webtls_u16(d + at);
        size_t l = webtls_u16(d + at + 2);
        at += 4;
        if (at + l > end)
            break;
        if (type == 0x002b)
            h->tls13 = webtls_offers_tls13(d + at, l);
        at += l;
    }
    return true;
}

/* Can the listed suites' ciphers carry TLS 1.3 (which GnuTLS limits to them too)? */
static bool webtls_tls13_possible(const struct gs_webcfg *c, const struct gs_wc_suite *v, unsigned n)
{
    if (gs_webcfg_max_tls(c) < 13)
        return false;
    for (unsigned i = 0; i < n; i++)
        if (v[i].mac == GNUTLS_MAC_AEAD)
            return true;
    return false;
}

static const struct gs_wc_suite *webtls_choose(const struct gs_webcfg *c, const struct gs_wc_suite *v, unsigned n,
                                               const struct webtls_hello *h)
{
    if (gs_webcfg_prefer_server(c)) {
        for (unsigned i = 0; i < n; i++)
            for (unsigned k = 0; k < h->n; k++)
                if (h->ids[k] == v[i].iana)
                    return &v[i];
        return NULL;
    }
    for (unsigned k = 0; k < h->n; k++)
        for (unsigned i = 0; i < n; i++)
            if (h->ids[k] == v[i].iana)
                return &v[i];
    return NULL;
}

static int webtls_on_client_hello(gnutls_session_t s, const struct gs_webcfg *c, const struct gs_wc_suite *v,
                                  unsigned n, const gnutls_datum_t *msg)
{
    struct webtls_hello h;
    char prio[640];
    if (!webtls_parse_hello(msg, &h))
        return GNUTLS_E_UNEXPECTED_PACKET;
    if (h.tls13 && webtls_tls13_possible(c, v, n))
        return 0;
    const struct gs_wc_suite *pick = webtls_choose(c, v, n, &h);
    if (!pick)
        return GNUTLS_E_NO_CIPHER_SUITES;
    gs_webcfg_priorities_for(c, pick, prio, sizeof(prio));
    return gnutls_priority_set_direct(s, prio, NULL) < 0 ? GNUTLS_E_INTERNAL_ERROR : 0;
}

static int webtls_on_server_hello(const struct gs_wc_suite *v, unsigned n, const gnutls_datum_t *msg)
{
    if (!msg || msg->size < 35 || msg->size < 35u + msg->data[34] + 2)
        return GNUTLS_E_UNEXPECTED_PACKET_LENGTH;
    unsigned id = webtls_u16(msg->data + 35 + msg->data[34]);
    if ((id & 0xFF00) == 0x1300) /* TLS 1.3 */
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (v[i].iana == id)
            return 0;
    return GNUTLS_E_NO_CIPHER_SUITES;
}

static int webtls_suite_hook(gnutls_session_t s, unsigned htype, unsigned when, unsigned incoming,
                             const gnutls_datum_t *msg)
{
    const struct gs_webcfg *c = gs_webtls_session_cfg(s);
    unsigned n = 0;
    const struct gs_wc_suite *v = c ? gs_webcfg_suites(c, &n) : NULL;
    if (!n)
        return 0;
    if (htype == GNUTLS_HANDSHAKE_CLIENT_HELLO && when == GNUTLS_HOOK_PRE && incoming)
        return webtls_on_client_hello(s, c, v, n, msg);
    if (htype == GNUTLS_HANDSHAKE_SERVER_HELLO && when == GNUTLS_HOOK_POST && !incoming)
        return webtls_on_server_hello(v, n, msg);
    return 0;
}

void gs_webtls_session_setup(const struct gs_webcfg *c, void *session)
{
    gnutls_session_t s = session;
    enum gs_wc_client_auth a = gs_webcfg_client_auth(c);
    unsigned n = 0;

    if (a != GS_WC_NO_CLIENT_CERT)
        gnutls_certificate_server_set_request(s, a == GS_WC_REQUIRE_ANY_CLIENT_CERT || a == GS_WC_REQUIRE_AND_VERIFY
                                                     ? GNUTLS_CERT_REQUIRE
                                                     : GNUTLS_CERT_REQUEST);
    else
        gnutls_certificate_server_set_request(s, GNUTLS_CERT_IGNORE);
    if (a == GS_WC_VERIFY_CLIENT_CERT_IF_GIVEN || a == GS_WC_REQUIRE_AND_VERIFY)
        gnutls_session_set_verify_function(s, webtls_verify_cb);
    gs_webcfg_suites(c, &n);
    if (n)
        gnutls_handshake_set_hook_function(s, GNUTLS_HANDSHAKE_ANY, GNUTLS_HOOK_BOTH, webtls_suite_hook);
}
