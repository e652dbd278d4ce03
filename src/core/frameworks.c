/* SPDX-License-Identifier: MIT */
/*
 * frameworks.c - installed ML frameworks and their CUDA builds (frameworks.h).
 * Reads a few small text files per candidate directory; glob() for the
 * python3.N parts of the usual paths.
 */
#include "core/frameworks.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/file.h"

/* The quoted value after the first `key` ... '=' or ':' on a line: cuda = '12.1', 'cuda_version': '12.2'. */
bool gs_frameworks_quoted(const char *text, const char *key, char *out, size_t cap)
{
    for (const char *p = text; (p = strstr(p, key)) != NULL; p += strlen(key)) {
        const char *q = p + strlen(key);
        if (p > text && (p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z')))
            continue; /* a longer name ending in key */
        const char *eol = strchr(q, '\n');
        const char *quote = strpbrk(q, "'\"");
        if (!quote || (eol && quote > eol))
            continue;
        const char *end = strchr(quote + 1, *quote);
        if (!end || (eol && end > eol))
            continue;
        snprintf(out, cap, "%.*s", (int)(end - quote - 1), quote + 1);
        return true;
    }
    return false;
}

static void add(struct gs_framework *out, size_t *n, size_t cap, const char *name, const char *ver, const char *cuda,
                const char *path)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(out[i].path, path))
            return; /* the same directory through two search paths */
    if (*n >= cap)
        return;
    struct gs_framework *f = &out[(*n)++];
    snprintf(f->name, sizeof(f->name), "%s", name);
    snprintf(f->version, sizeof(f->version), "%s", ver);
    snprintf(f->cuda, sizeof(f->cuda), "%s", strcmp(cuda, "None") ? cuda : "");
    snprintf(f->path, sizeof(f->path), "%s", path);
}

static void scan_dir(const char *dir, struct gs_framework *out, size_t *n, size_t cap)
{
    char path[512], text[8192], ver[40], cuda[16];
    snprintf(path, sizeof(path), "%s/torch/version.py", dir);
    if (gs_file_read_small(path, text, sizeof(text)) > 0 && gs_frameworks_quoted(text, "__version__", ver, sizeof(ver))) {
        if (!gs_frameworks_quoted(text, "cuda", cuda, sizeof(cuda)))
            cuda[0] = '\0';
        snprintf(path, sizeof(path), "%s/torch", dir);
        add(out, n, cap, "torch", ver, cuda, path);
    }
    snprintf(path, sizeof(path), "%s/tensorflow/python/platform/build_info.py", dir);
    if (gs_file_read_small(path, text, sizeof(text)) > 0) {
        if (!gs_frameworks_quoted(text, "cuda_version", cuda, sizeof(cuda)))
            cuda[0] = '\0';
        snprintf(path, sizeof(path), "%s/tensorflow", dir);
        add(out, n, cap, "tensorflow", "", cuda, path);
    }
    DIR *dp = opendir(dir);
    struct dirent *e;
    while (dp && (e = readdir(dp)) != NULL) {
        int major;
        char v[40];
        /* cupy_cuda12x-13.3.0.dist-info */
        if (sscanf(e->d_name, "cupy_cuda%dx-%39[^-]", &major, v) == 2 && strstr(e->d_name, ".dist-info")) {
            char *d = strstr(v, ".dist");
            if (d)
                *d = '\0';
            snprintf(cuda, sizeof(cuda), "%d", major);
            snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
            add(out, n, cap, "cupy", v, cuda, path);
        }
    }
    if (dp)
        closedir(dp);
}

static void scan_glob(const char *pattern, struct gs_framework *out, size_t *n, size_t cap, char *searched,
                      size_t slen)
{
    glob_t g;
    size_t l = strlen(searched);
    snprintf(searched + l, slen - l, "%s%s", l ? ", " : "", pattern);
    if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        scan_dir(g.gl_pathv[i], out, n, cap);
    globfree(&g);
}

size_t gs_frameworks_find(const char *extra, struct gs_framework *out, size_t cap, char *searched, size_t slen)
{
    static const char *const std_dirs[] = {
        "/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
        "/usr/local/lib/python3*/site-packages", "/opt/conda/lib/python3*/site-packages",
    };
    const char *env = getenv("GPUSCOPE_PYTHON_PATH");
    char buf[1024], pat[600];
    size_t n = 0;
    searched[0] = '\0';
    for (int pass = 0; pass < 2; pass++) {
        const char *list = pass == 0 ? extra : env;
        if (!list || !*list)
            continue;
        snprintf(buf, sizeof(buf), "%s", list);
        char *save = NULL;
        for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save))
            scan_glob(d, out, &n, cap, searched, slen);
    }
    if (env && *env)
        return n; /* tests and containers: only where we were told */
    for (size_t i = 0; i < sizeof(std_dirs) / sizeof(std_dirs[0]); i++)
        scan_glob(std_dirs[i], out, &n, cap, searched, slen);
    const char *roots[3] = { getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX"), getenv("HOME") };
    for (int i = 0; i < 3; i++) {
        if (!roots[i] || !*roots[i])
            continue;
        snprintf(pat, sizeof(pat), "%s/%slib/python3*/site-packages", roots[i], i == 2 ? ".local/" : "");
        scan_glob(pat, out, &n, cap, searched, slen);
    }
    return n;
}
