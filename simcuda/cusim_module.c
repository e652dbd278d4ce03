/* SPDX-License-Identifier: MIT */
/*
 * cusim_module.c - cuModuleLoadData(Ex) as the driver's PTX JIT answers it,
 * without compiling anything: the text must start with .version (else
 * CUDA_ERROR_INVALID_PTX), a version newer than this driver reads is
 * CUDA_ERROR_UNSUPPORTED_PTX_VERSION, a .target above the GPU's compute
 * capability is CUDA_ERROR_INVALID_PTX, and every .entry must be a kernel the
 * simulator has a C equivalent for, with the parameter count of its C
 * equivalent (src/burn/kernels.h). The JIT's error log goes where
 * CU_JIT_ERROR_LOG_BUFFER points, as the driver writes it.
 */
#include "cusim.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The newest PTX ISA each driver version reads (major * 10 + minor). */
static int ptx_max_for(int driver)
{
    static const struct { int driver, ptx; } t[] = {
        { 10010, 64 }, { 10020, 65 }, { 11000, 70 }, { 11010, 71 }, { 11020, 72 }, { 11030, 73 },
        { 11040, 74 }, { 11050, 75 }, { 11060, 76 }, { 11070, 77 }, { 11080, 78 }, { 12000, 80 },
        { 12010, 81 }, { 12020, 82 }, { 12030, 83 }, { 12040, 84 }, { 12050, 85 }, { 12080, 87 },
        { 12090, 88 }, { 13000, 90 },
    };
    int best = 60;
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (driver >= t[i].driver)
            best = t[i].ptx;
    return best;
}

static void jit_log(unsigned nopts, const CUjit_option *opts, void **values, const char *text)
{
    char *buf = NULL;
    size_t cap = 0, at = (size_t)-1;
    for (unsigned i = 0; opts && values && i < nopts; i++) {
        if (opts[i] == CU_JIT_ERROR_LOG_BUFFER)
            buf = values[i];
        else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
            cap = (size_t)(uintptr_t)values[i];
            at = i;
        }
    }
    if (!buf || !cap)
        return;
    int n = snprintf(buf, cap, "%s", text);
    if (at != (size_t)-1)
        values[at] = (void *)(uintptr_t)((size_t)n < cap ? (size_t)n + 1 : cap);
}

/* Skip blanks and // comments. */
static const char *skip(const char *p)
{
    for (;;) {
        while (*p && isspace((unsigned char)*p))
            p++;
        if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        return p;
    }
}

/* Parameters between the '(' after an entry name and its ')'. */
static int count_params(const char *p)
{
    int n = 0;
    const char *end = strchr(p, ')');
    for (const char *q = strstr(p, ".param"); q && end && q < end; q = strstr(q + 6, ".param"))
        n++;
    return end ? n : -1;
}

struct ptx_check {
    CUresult r;
    char log[256];
    int nent;
    int kernels[CUSIM_MAX_ENTRIES];
};

static void ptx_entries(const char *text, struct ptx_check *pc)
{
    int depth = 0;
    for (const char *p = text; *p; p++)
        depth += *p == '{' ? 1 : *p == '}' ? -1 : 0;
    if (depth != 0) {
        pc->r = CUDA_ERROR_INVALID_PTX;
        snprintf(pc->log, sizeof(pc->log), "ptxas fatal   : Unexpected end of file (unbalanced braces)");
        return;
    }
    for (const char *p = strstr(text, ".entry"); p && pc->r == CUDA_SUCCESS; p = strstr(p + 6, ".entry")) {
        char name[64];
        const char *q = skip(p + 6);
        size_t n = 0;
        while ((isalnum((unsigned char)q[n]) || q[n] == '_' || q[n] == '$') && n < sizeof(name) - 1)
            n++;
        snprintf(name, sizeof(name), "%.*s", (int)n, q);
        int k = gs_burn_kernel_by_entry(name);
        if (k < 0 || pc->nent == CUSIM_MAX_ENTRIES) {
            pc->r = CUDA_ERROR_INVALID_PTX;
            snprintf(pc->log, sizeof(pc->log), "gpuscope-cudasim: no C equivalent for entry '%s'", name);
        } else if (count_params(q + n) != (int)gs_burn_kernels[k].nparams) {
            pc->r = CUDA_ERROR_INVALID_PTX;
            snprintf(pc->log, sizeof(pc->log), "gpuscope-cudasim: entry '%s' has %d parameters, its C equivalent %u",
                     name, count_params(q + n), gs_burn_kernels[k].nparams);
        } else {
            pc->kernels[pc->nent++] = k;
        }
    }
    if (pc->r == CUDA_SUCCESS && pc->nent == 0) {
        pc->r = CUDA_ERROR_INVALID_PTX;
        snprintf(pc->log, sizeof(pc->log), "ptxas fatal   : no .entry in the module");
    }
}

static void ptx_check(const char *text, const struct cusim_dev *d, struct ptx_check *pc)
{
    int maj, min, sm;
    const char *p = skip(text);
    memset(pc, 0, sizeof(*pc));
    if (strncmp(p, ".version", 8) || sscanf(p + 8, " %d.%d", &maj, &min) != 2) {
        pc->r = CUDA_ERROR_INVALID_PTX;
        snprintf(pc->log, sizeof(pc->log), "ptxas application ptx input, line 1; fatal   : Parsing error near "
                 "'%.16s': syntax error", p);
        return;
    }
    if (maj * 10 + min > ptx_max_for(gs_cusim.cuda->driver_version)) {
        pc->r = CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
        snprintf(pc->log, sizeof(pc->log), "ptxas application ptx input, line 1; fatal   : Unsupported .version "
                 "%d.%d; current version is '%d.%d'", maj, min, ptx_max_for(gs_cusim.cuda->driver_version) / 10,
                 ptx_max_for(gs_cusim.cuda->driver_version) % 10);
        return;
    }
    const char *t = strstr(p, ".target");
    if (!t || sscanf(t + 7, " sm_%d", &sm) != 1) {
        pc->r = CUDA_ERROR_INVALID_PTX;
        snprintf(pc->log, sizeof(pc->log), "ptxas fatal   : missing .target directive");
        return;
    }
    if (sm > d->cc_major * 10 + d->cc_minor) {
        pc->r = CUDA_ERROR_INVALID_PTX;
        snprintf(pc->log, sizeof(pc->log), "ptxas fatal   : SM version specified by .target is higher than default "
                 "SM version assumed");
        return;
    }
    ptx_entries(p, pc);
}

CUresult cuModuleLoadDataEx(CUmodule *mod, const void *image, unsigned int nopts, CUjit_option *opts,
                            void **values)
{
    struct CUctx_st *c;
    if (!mod || !image)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = gs_cusim_enter_ctx(&c);
    if (r != CUDA_SUCCESS)
        return r;
    if ((r = gs_cusim_fault("cuModuleLoadDataEx", c->dev)) != CUDA_SUCCESS)
        return gs_cusim_leave(r);
    struct ptx_check pc;
    ptx_check(image, &gs_cusim.dev[c->dev], &pc);
    if (pc.r != CUDA_SUCCESS) {
        jit_log(nopts, opts, values, pc.log);
        return gs_cusim_leave(pc.r);
    }
    struct CUmod_st *m = calloc(1, sizeof(*m));
    if (!m)
        return gs_cusim_leave(CUDA_ERROR_OUT_OF_MEMORY);
    m->ctx = c;
    m->next = c->mods;
    c->mods = m;
    for (int i = 0; i < pc.nent; i++)
        m->funcs[m->nfuncs++] = (struct CUfunc_st){ .mod = m, .kernel = pc.kernels[i] };
    jit_log(nopts, opts, values, "");
    *mod = m;
    return gs_cusim_leave(CUDA_SUCCESS);
}

CUresult cuModuleLoadData(CUmodule *mod, const void *image)
{
    return cuModuleLoadDataEx(mod, image, 0, NULL, NULL);
}

CUresult cuModuleUnload(CUmodule mod)
{
    if (!mod)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = gs_cusim_enter();
    if (r != CUDA_SUCCESS)
        return r;
    for (struct CUctx_st *c = gs_cusim.ctxs; c; c = c->next)
        for (struct CUmod_st **pp = &c->mods; *pp; pp = &(*pp)->next)
            if (*pp == mod) {
                *pp = mod->next;
                free(mod);
                return gs_cusim_leave(CUDA_SUCCESS);
            }
    return gs_cusim_leave(CUDA_ERROR_INVALID_HANDLE); /* unknown, or gone with its context */
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule mod, const char *name)
{
    if (!fn || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!mod)
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = gs_cusim_enter();
    if (r != CUDA_SUCCESS)
        return r;
    for (int i = 0; i < mod->nfuncs; i++)
        if (!strcmp(gs_burn_kernels[mod->funcs[i].kernel].entry, name)) {
            *fn = &mod->funcs[i];
            return gs_cusim_leave(CUDA_SUCCESS);
        }
    return gs_cusim_leave(CUDA_ERROR_NOT_FOUND);
}
