/* SPDX-License-Identifier: MIT */
/*
 * err.h - errors as values. Functions that can fail return 0 or a negative
 * enum gs_errc, and fill a caller-owned struct gs_err with a sentence a person
 * can act on. Nothing is kept in globals (STYLE.md 2.11 item 2): a scrape and a
 * sample running at once each carry their own.
 */
#ifndef GS_ERR_H
#define GS_ERR_H

#include <stdarg.h>

/* Error classes. The process exit code of a command is derived from these
 * (see docs/EXIT-CODES in the README), so keep the values stable. */
enum gs_errc {
    GS_OK = 0,
    GS_E_USAGE = 1,        /* bad flag, field or argument */
    GS_E_NO_LIBRARY = 2,   /* libnvidia-ml.so.1 not found / not loadable */
    GS_E_NO_DRIVER = 3,    /* library present, kernel driver absent or mismatched */
    GS_E_NO_DEVICE = 4,    /* no GPU (or none matches -i) */
    GS_E_PERMISSION = 5,   /* no permission to a device or file */
    GS_E_GPU_LOST = 6,     /* GPU fell off the bus */
    GS_E_NOMEM = 7,
    GS_E_IO = 8,           /* file, pipe or /proc trouble */
    GS_E_BACKEND = 9,      /* any other error reported by the vendor library */
    GS_E_PARSE = 10,       /* malformed input file (scenario, config, rules) */
    GS_E_INTERNAL = 11,
};

/* A filled-in error: what failed (msg) and what to do about it (hint). */
struct gs_err {
    int code;          /* enum gs_errc (positive), GS_OK when nothing failed */
    char msg[384];     /* "NVML library not found: tried libnvidia-ml.so.1, ..." */
    char hint[512];    /* "Install the NVIDIA driver, or in a container ..." ("" if none) */
};

/* Record an error; returns -code so callers can write `return gs_err_set(...)`.
 * err may be NULL (the error is then only returned). */
int gs_err_set(struct gs_err *err, enum gs_errc code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Add or replace the "what to do" part of an error already set. */
void gs_err_hint(struct gs_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gs_err_clear(struct gs_err *err);
/* Print "gpuscope: <msg>\n  hint: <hint>\n" to stderr. */
void gs_err_print(const struct gs_err *err);
/* Short stable name of an error class ("no-driver", "gpu-lost", ...). */
const char *gs_errc_name(enum gs_errc code);

#endif /* GS_ERR_H */
