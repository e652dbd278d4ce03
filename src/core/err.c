/* SPDX-License-Identifier: MIT */
/* err.c - filling and printing struct gs_err (see err.h). */
#include "core/err.h"

#include <stdio.h>
#include <string.h>

int gs_err_set(struct gs_err *err, enum gs_errc code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = (int)code;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        err->hint[0] = '\0';
        va_end(ap);
    }
    return -(int)code;
}

void gs_err_hint(struct gs_err *err, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    vsnprintf(err->hint, sizeof(err->hint), fmt, ap);
    va_end(ap);
}

void gs_err_clear(struct gs_err *err)
{
    if (!err)
        return;
    err->code = GS_OK;
    err->msg[0] = '\0';
    err->hint[0] = '\0';
}

void gs_err_print(const struct gs_err *err)
{
    if (!err || err->code == GS_OK)
        return;
    fprintf(stderr, "gpuscope: %s\n", err->msg);
    if (err->hint[0])
        fprintf(stderr, "  hint: %s\n", err->hint);
}

const char *gs_errc_name(enum gs_errc code)
{
    static const char *const names[] = {
        [GS_OK] = "ok",
        [GS_E_USAGE] = "usage",
        [GS_E_NO_LIBRARY] = "no-library",
        [GS_E_NO_DRIVER] = "no-driver",
        [GS_E_NO_DEVICE] = "no-device",
        [GS_E_PERMISSION] = "no-permission",
        [GS_E_GPU_LOST] = "gpu-lost",
        [GS_E_NOMEM] = "out-of-memory",
        [GS_E_IO] = "io",
        [GS_E_BACKEND] = "backend",
        [GS_E_PARSE] = "parse",
        [GS_E_INTERNAL] = "internal",
    };
    if ((unsigned)code < sizeof(names) / sizeof(names[0]) && names[code])
        return names[code];
    return "unknown";
}
