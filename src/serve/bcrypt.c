/* SPDX-License-Identifier: MIT */
/*
 * bcrypt.c - the bcrypt password hashes of the web configuration's basic_auth_users
 * (see webcfg.h): their syntax, their cost, and checking a password against one
 * with crypt(3) (libxcrypt), compared in constant time.
 */
#include <crypt.h>
#include <stdlib.h>
#include <string.h>

#include "serve/webcfg.h"

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

int gs_bcrypt_cost(const char *h)
{
    return (h[4] - '0') * 10 + (h[5] - '0');
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
