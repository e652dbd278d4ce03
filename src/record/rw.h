/* SPDX-License-Identifier: MIT */
/*
 * rw.h - `record --remote-write`: the record module's Prometheus remote-write
 * 1.0 sender. The history database is the queue: a sender thread reads the
 * samples after a persisted watermark (table remote_write), encodes them as
 * the series `gpuscope serve` exposes (serve's metric tables), compresses
 * them with snappy and POSTs them with libcurl; the watermark moves only when
 * the receiver acknowledged (or refused for good) a batch. docs/RECORD.md,
 * "Long-term storage in Prometheus".
 */
#ifndef GS_RECORD_RW_H
#define GS_RECORD_RW_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "backend/prom/http_config.h"
#include "record/store.h"

/* ---- configuration (rw_config.c) --------------------------------------------------- */
#define GS_RW_MAX_HEADERS 16
#define GS_RW_MAX_RELABEL 16
#define GS_RW_MAX_SRC 8

struct gs_rw_relabel {
    bool keep;                   /* action keep (else drop) */
    regex_t re;                  /* anchored at both ends, as Prometheus anchors its RE2 */
    char *src[GS_RW_MAX_SRC];    /* source_labels (default __name__) */
    size_t nsrc;
    char sep[16];                /* separator (default ";") */
};

struct gs_rw_cfg {
    char *url;                   /* the endpoint (required) */
    char *config_path;           /* the file it came from, or NULL */
    char *headers[GS_RW_MAX_HEADERS]; /* "Name: value" lines */
    size_t nheaders;
    struct gs_rw_relabel relabel[GS_RW_MAX_RELABEL];
    size_t nrelabel;
    uint32_t max_samples;        /* samples per request (queue_config.max_samples_per_send) */
    int64_t min_backoff_ms, max_backoff_ms, timeout_ms;
    /* the client (basic_auth, authorization, bearer_token_file, tls_config): Prometheus'
     * http_config, parsed and applied by src/backend/prom/http_config.c; NULL: none */
    struct gs_http_config *http;
};
#define GS_RW_DEFAULT_MAX_SAMPLES 10000

/* Defaults for url (may be NULL: the file must give it). */
void gs_rw_cfg_init(struct gs_rw_cfg *c);
/* Read a remote_write-shaped YAML file (one entry of Prometheus' remote_write list, or a
 * list holding one, or a document with a remote_write: key). Errors name the file, line and key. */
int gs_rw_cfg_load(struct gs_rw_cfg *c, const char *path, struct gs_err *err);
/* The same from memory (the fuzzer's entry); name stands for the file in messages. */
int gs_rw_cfg_parse(struct gs_rw_cfg *c, const char *name, const char *text, size_t len, struct gs_err *err);
void gs_rw_cfg_free(struct gs_rw_cfg *c);
/* The URL with any user:password@ removed (what is stored and printed). */
void gs_rw_url_public(const char *url, char *out, size_t len);

/* ---- encoding (rw_encode.c) -------------------------------------------------------- */
/* One sample row as the database holds it (values in the stored units). */
struct gs_rw_row {
    int64_t t;
    int gpu;                     /* gpu.id */
    uint16_t have;               /* bit per enum gs_col: a value (not NULL) */
    int64_t v[GS_COL_COUNT];
};

struct gs_rw_gpu {
    int id, idx;
    char uuid[96], name[96], pci[32];
};

struct gs_rw_enc;
int gs_rw_enc_new(struct gs_rw_enc **out, const char *hostname, const struct gs_rw_cfg *cfg, struct gs_err *err);
void gs_rw_enc_free(struct gs_rw_enc *e);
/* Describe (or re-describe) GPU g; rows of unknown GPUs are not sent. */
int gs_rw_enc_gpu(struct gs_rw_enc *e, const struct gs_rw_gpu *g);
bool gs_rw_enc_knows(const struct gs_rw_enc *e, int gpu);
/* Samples row r adds to a request (values whose series write_relabel_configs keep). */
size_t gs_rw_enc_count(const struct gs_rw_enc *e, const struct gs_rw_row *r);
/* rows -> a snappy-compressed WriteRequest. *out stays valid until the next call. */
int gs_rw_encode(struct gs_rw_enc *e, const struct gs_rw_row *rows, size_t n, const void **out, size_t *len,
                 size_t *nsamples, struct gs_err *err);
/* The same, not compressed (tests). */
int gs_rw_encode_raw(struct gs_rw_enc *e, const struct gs_rw_row *rows, size_t n, const void **out,
                     size_t *len, size_t *nsamples, struct gs_err *err);
/* The family name that database column col is sent as (serve's tables). */
const char *gs_rw_col_name(int col);

/* ---- sending (rw_http.c) ----------------------------------------------------------- */
enum gs_rw_verdict { GS_RW_OK, GS_RW_RETRY, GS_RW_DROP };
struct gs_rw_http;
int gs_rw_http_new(struct gs_rw_http **out, const struct gs_rw_cfg *cfg, struct gs_err *err);
void gs_rw_http_free(struct gs_rw_http *h);
/* POST body; *retry_after_ms is the server's Retry-After (or -1); why says what failed. */
enum gs_rw_verdict gs_rw_http_post(struct gs_rw_http *h, const void *body, size_t len, int64_t *retry_after_ms,
                                   char *why, size_t whylen, volatile int *abort_flag);

/* ---- the sender thread (rw_queue.c) ------------------------------------------------ */
struct gs_rw;
/* Start sending what db_path holds from start_ms on (or from the watermark a previous run left). */
int gs_rw_start(struct gs_rw **out, const struct gs_rw_cfg *cfg, const char *db_path, int64_t start_ms,
                bool quiet, struct gs_err *err);
/* A tick was stored: send soon. */
void gs_rw_notify(struct gs_rw *rw);
/* Send what is queued for up to drain_ms (retrying failures meanwhile), then stop the thread. */
void gs_rw_stop(struct gs_rw *rw, int64_t drain_ms);
/* `record --status`: the queue of each remote-write URL of db_path, on out. */
int gs_rw_status(const char *db_path, FILE *out, struct gs_err *err);

#endif /* GS_RECORD_RW_H */
