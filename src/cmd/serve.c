/* SPDX-License-Identifier: MIT */
/*
 * serve.c - `gpuscope serve`: option parsing from one table (help and parsing
 * cannot drift apart), then gs_serve_run() in src/serve/. The exporter is a
 * drop-in for dcgm-exporter (port 9400, DCGM metric names); docs/SERVE.md.
 */
#include "cmd/cmd.h"
#include "core/jobmap.h"
#include "k8s/kubelet.h"
#include "serve/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

struct sopt {
    const char *lng;   /* "--listen" */
    const char *alias; /* another spelling (dcgm-exporter's or exporter-toolkit's) or NULL */
    const char *arg;   /* metavariable, NULL for a flag */
    int (*set)(struct gs_serve_opts *o, const char *val, struct gs_err *err);
    const char *help;
};

static int parse_uint(const char *opt, const char *val, unsigned lo, unsigned hi, unsigned *out,
                      struct gs_err *err)
{
    char *end;
    long v = strtol(val, &end, 10);
    if (!*val || *end || v < (long)lo || v > (long)hi)
        return gs_err_set(err, GS_E_USAGE, "%s '%s': expected a whole number from %u to %u", opt, val,
                          lo, hi);
    *out = (unsigned)v;
    return 0;
}

static int set_listen(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    char host[256];
    unsigned port;
    o->listen = v;
    return gs_http_parse_listen(v, host, sizeof(host), &port, err);
}

/* 1s, 500ms, 2.5s, or plain milliseconds, from lo_ms to 1h */
static int parse_ms(const char *opt, const char *v, double lo_ms, const char *lo, uint32_t *out,
                    struct gs_err *err)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v)
        x = -1;
    else if (!strcmp(end, "s"))
        x *= 1000;
    else if (strcmp(end, "ms") && *end)
        x = -1;
    if (x < lo_ms || x > 3600 * 1000)
        return gs_err_set(err, GS_E_USAGE, "%s '%s': expected a duration from %s to 1h, e.g. 1s or 500ms", opt,
                          v, lo);
    *out = (uint32_t)x;
    return 0;
}

static int set_interval(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_ms("--interval", v, 10, "10ms", &o->interval_ms, err);
}

static int set_webcfg(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)err;
    o->web_config = v;
    return 0;
}

static int set_hostlabel(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    if (!strcmp(v, "Hostname") || !strcmp(v, "hostname"))
        o->hostname_label = v;
    else if (!strcmp(v, "none"))
        o->hostname_label = NULL;
    else
        return gs_err_set(err, GS_E_USAGE,
                          "--hostname-label '%s': expected Hostname (dcgm-exporter <= 4.8.2), hostname "
                          "(>= 4.8.3) or none",
                          v);
    return 0;
}

static int set_nohost(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)v, (void)err;
    o->hostname_label = NULL;
    return 0;
}

static int set_hostname(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)err;
    o->hostname = v;
    return 0;
}

static int set_cmdline(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)v, (void)err;
    o->process_cmdline = true;
    return 0;
}

static int set_no_om(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)v, (void)err;
    o->openmetrics = false;
    return 0;
}

static int set_root(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)err;
    o->host_root = v;
    return 0;
}

static int set_maxconn(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_uint("--max-connections", v, 1, 100000, &o->max_connections, err);
}

static int set_maxconn_ip(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_uint("--max-connections-per-ip", v, 0, 100000, &o->max_connections_per_ip, err);
}

static int set_timeout(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_uint("--timeout", v, 1, 3600, &o->timeout_s, err);
}

static int set_threads(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_uint("--threads", v, 1, 64, &o->threads, err);
}

/* ---- Kubernetes pods from the kubelet (dcgm-exporter's option names) ---- */

static int set_kube_socket(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    if (strlen(v) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return gs_err_set(err, GS_E_USAGE,
                          "--pod-resources-kubelet-socket '%.40s...': longer than a UNIX socket path can be "
                          "(%zu bytes)",
                          v, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
    o->kubelet_socket = v;
    return 0;
}

static int set_kube_interval(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_ms("--kubelet-interval", v, 100, "100ms", &o->kubelet_interval_ms, err);
}

static int set_kube_timeout(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    return parse_ms("--kubelet-timeout", v, 10, "10ms", &o->kubelet_timeout_ms, err);
}

static int set_resnames(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)err;
    o->resource_names = v;
    return 0;
}

static int set_vgpus(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    (void)v, (void)err;
    o->virtual_gpus = true;
    return 0;
}

static int set_idtype(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    if (!strcmp(v, "uid") || !strcmp(v, "device-name")) {
        o->gpu_id_device_name = v[0] == 'd';
        return 0;
    }
    return gs_err_set(err, GS_E_USAGE,
                      "--kubernetes-gpu-id-type '%s': expected uid (GPU UUIDs, NVIDIA's device plugin) or "
                      "device-name (nvidia0, GKE's device plugin)",
                      v);
}

/* ---- HPC jobs (dcgm-exporter's option) ---- */

static int set_jobdir(struct gs_serve_opts *o, const char *v, struct gs_err *err)
{
    if (!*v)
        return gs_err_set(err, GS_E_USAGE, "--hpc-job-mapping-dir: empty; give the directory the Slurm prolog "
                          "writes (docs/SLURM.md), e.g. " GS_JOBMAP_DEFAULT_DIR);
    o->hpc_job_dir = v;
    return 0;
}

static const struct sopt sopts[] = {
    { "--listen", "--address", "[HOST]:PORT", set_listen,
      "address to serve on (default :9400, dcgm-exporter's port; [::1]:9400 for IPv6)" },
    { "--interval", "--collect-interval", "DURATION", set_interval,
      "sampling period, e.g. 1s (default) or 500ms; scrapes read the latest sample" },
    { "--web.config.file", "--web-config-file", "FILE", set_webcfg,
      "exporter-toolkit web config: TLS certificate and key, basic auth users (bcrypt)" },
    { "--hostname-label", NULL, "NAME", set_hostlabel,
      "Hostname (default, dcgm-exporter <= 4.8.2), hostname (>= 4.8.3) or none" },
    { "--no-hostname", NULL, NULL, set_nohost, "no host name label on DCGM series (dcgm-exporter -n)" },
    { "--hostname", NULL, "NAME", set_hostname, "value of the host name label (default $NODE_NAME, else the host name)" },
    { "--process-cmdline", NULL, NULL, set_cmdline,
      "add the full command line as label cmdline on per-process series (it may hold secrets)" },
    { "--host-root", NULL, "DIR", set_root,
      "prefix for the host's /var/log/pods and /var/log/containers (default $GPUSCOPE_ROOT or none)" },
    { "--max-connections", NULL, "N", set_maxconn,
      "concurrent HTTP connections (default 64); beyond, the oldest idle one is closed" },
    { "--max-connections-per-ip", NULL, "N", set_maxconn_ip,
      "concurrent connections from one client address (default 8, 0: no limit)" },
    { "--timeout", NULL, "SECONDS", set_timeout,
      "a request must arrive whole within this, and idle connections close after it (default 10)" },
    { "--threads", NULL, "N", set_threads, "HTTP threads (default 2)" },
    { "--no-openmetrics", NULL, NULL, set_no_om,
      "always answer Prometheus text 0.0.4, even when OpenMetrics is asked for" },
    { "--pod-resources-kubelet-socket", NULL, "PATH", set_kube_socket,
      "the kubelet's pod-resources socket for pod labels (default " GS_KUBELET_SOCKET
      ", used when present; none: off)" },
    { "--kubelet-interval", NULL, "DURATION", set_kube_interval, "how often to ask the kubelet (default 5s)" },
    { "--kubelet-timeout", NULL, "DURATION", set_kube_timeout, "how long one answer may take (default 3s)" },
    { "--kubernetes-virtual-gpus", NULL, NULL, set_vgpus,
      "a DCGM series per pod sharing a GPU (time-slicing, MPS), with label vgpu, as dcgm-exporter" },
    { "--kubernetes-gpu-id-type", NULL, "TYPE", set_idtype,
      "how the device plugin names GPUs: uid (UUIDs, default) or device-name (nvidia<index>, GKE)" },
    { "--nvidia-resource-names", NULL, "LIST", set_resnames,
      "more resource names that are NVIDIA GPUs (comma-separated), e.g. nvidia.com/gpu.shared" },
    { "--hpc-job-mapping-dir", NULL, "DIR", set_jobdir,
      "label DCGM series with hpc_job from the GPU -> job files in DIR (dcgm-exporter's; default "
      "$DCGM_HPC_JOB_MAPPING_DIR, else jobs from the processes' Slurm cgroups)" },
};

#define NOPTS (sizeof(sopts) / sizeof(sopts[0]))

static void serve_usage(FILE *out)
{
    fprintf(out, "usage: gpuscope serve [options]\n\n"
                 "Prometheus exporter, a drop-in for dcgm-exporter: /metrics, /health, /api/v1/snapshot.\n\n"
                 "options:\n");
    for (size_t i = 0; i < NOPTS; i++) {
        char left[64];
        snprintf(left, sizeof(left), "%s%s%s", sopts[i].lng, sopts[i].arg ? "=" : "",
                 sopts[i].arg ? sopts[i].arg : "");
        fprintf(out, "  %-30s %s\n", left, sopts[i].help);
        if (sopts[i].alias)
            fprintf(out, "  %-30s same as %s\n", sopts[i].alias, sopts[i].lng);
    }
    fprintf(out, "\nStops on SIGINT or SIGTERM; SIGHUP reloads the web config. See docs/SERVE.md for every metric.\n");
}

/* argv[i] -> option, value (from "--x=v" or the next argument); advances *i. */
static int serve_opt(struct gs_serve_opts *o, int argc, char **argv, int *i, struct gs_err *err)
{
    const char *a = argv[*i];
    size_t n = strcspn(a, "=");
    for (size_t k = 0; k < NOPTS; k++) {
        const struct sopt *s = &sopts[k];
        bool match = (strlen(s->lng) == n && !strncmp(a, s->lng, n)) ||
                     (s->alias && strlen(s->alias) == n && !strncmp(a, s->alias, n));
        if (!match)
            continue;
        const char *val = a[n] == '=' ? a + n + 1 : NULL;
        if (!s->arg && val)
            return gs_err_set(err, GS_E_USAGE, "%s takes no value", s->lng);
        if (s->arg && !val) {
            if (*i + 1 >= argc)
                return gs_err_set(err, GS_E_USAGE, "%s needs a value (%s)", s->lng, s->arg);
            val = argv[++*i];
        }
        return s->set(o, val, err);
    }
    return gs_err_set(err, GS_E_USAGE, "unknown option '%s'; see 'gpuscope serve --help'", a);
}

int cmd_serve(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_serve_opts o = GS_SERVE_OPTS_INIT;
    struct gs_err err = { 0 };

    o.nvml_lib = ctx->nvml_lib;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            serve_usage(stdout);
            return GS_EXIT_OK;
        }
        if (serve_opt(&o, argc, argv, &i, &err) < 0) {
            gs_err_print(&err);
            return GS_EXIT_USAGE;
        }
    }
    const char *jobdir = getenv("DCGM_HPC_JOB_MAPPING_DIR"); /* dcgm-exporter's variable for the option */
    if (!o.hpc_job_dir && jobdir && *jobdir)
        o.hpc_job_dir = jobdir;
    if (gs_serve_run(&o, &err) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }
    return GS_EXIT_OK;
}
