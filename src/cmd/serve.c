/* SPDX-License-Identifier: MIT */
/*
 * serve.c - `gpuscope serve`: its option table (cmd/opts.h: parsing, --help,
 * the man page and the completions from one place), then gs_serve_run() in
 * src/serve/. The exporter is a drop-in for dcgm-exporter (port 9400, DCGM
 * metric names, its option spellings beside ours); docs/SERVE.md.
 */
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "core/jobmap.h"
#include "k8s/kubelet.h"
#include "serve/serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

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

static int set_listen(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
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

static int set_interval(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_ms("--interval", v, 10, "10ms", &o->interval_ms, err);
}

static int set_hostlabel(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
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

static int set_nohost(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    (void)v, (void)err;
    o->hostname_label = NULL;
    return 0;
}

static int set_no_om(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    (void)v, (void)err;
    o->openmetrics = false;
    return 0;
}

static int set_maxconn(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_uint("--max-connections", v, 1, 100000, &o->max_connections, err);
}

static int set_maxconn_ip(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_uint("--max-connections-per-ip", v, 0, 100000, &o->max_connections_per_ip, err);
}

static int set_timeout(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_uint("--timeout", v, 1, 3600, &o->timeout_s, err);
}

static int set_threads(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_uint("--threads", v, 1, 64, &o->threads, err);
}

/* ---- Kubernetes pods from the kubelet (dcgm-exporter's option names) ---- */

static int set_kube_socket(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    if (strlen(v) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return gs_err_set(err, GS_E_USAGE,
                          "--pod-resources-kubelet-socket '%.40s...': longer than a UNIX socket path can be "
                          "(%zu bytes)",
                          v, sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
    o->kubelet_socket = v;
    return 0;
}

static int set_kube_interval(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_ms("--kubelet-interval", v, 100, "100ms", &o->kubelet_interval_ms, err);
}

static int set_kube_timeout(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    return parse_ms("--kubelet-timeout", v, 10, "10ms", &o->kubelet_timeout_ms, err);
}

static int set_idtype(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
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

static int set_jobdir(void *ctx, const char *const *vals, struct gs_err *err)
{
    struct gs_serve_opts *o = ctx;
    const char *v = vals[0];
    if (!*v)
        return gs_err_set(err, GS_E_USAGE, "--hpc-job-mapping-dir: empty; give the directory the Slurm prolog "
                          "writes (docs/SLURM.md), e.g. " GS_JOBMAP_DEFAULT_DIR);
    o->hpc_job_dir = v;
    return 0;
}

#define STR(member) GS_OPT_STORE_STR(struct gs_serve_opts, member)

static const struct gs_opt serve_opts[] = {
    { "--listen", 0, "[HOST]:PORT", set_listen,
      "address to serve on (default :9400, dcgm-exporter's port; [::1]:9400 for IPv6)",
      .man = "The address to serve on (default :9400, dcgm-exporter's port;\n"
             ".Li [::1]:9400\n"
             "for IPv6)." },
    { "--address", 0, "[HOST]:PORT", set_listen, "the same as --listen (exporter-toolkit's spelling)" },
    { "--interval", 0, "DURATION", set_interval,
      "sampling period, e.g. 1s (default) or 500ms; scrapes read the latest sample",
      .man = "The sampling period, such as 1s (the default) or 500ms." },
    { "--collect-interval", 0, "DURATION", set_interval, "the same as --interval (dcgm-exporter's spelling)" },
    { "--web.config.file", 0, "FILE", NULL,
      "exporter-toolkit web config: TLS certificate and key, basic auth users (bcrypt)", .comp = GS_COMP_FILE,
      STR(web_config),
      .man = "An exporter-toolkit web configuration: TLS certificate and key, basic\n"
             "authentication users (bcrypt)." },
    { "--web-config-file", 0, "FILE", NULL, "the same as --web.config.file (dcgm-exporter's spelling)",
      .comp = GS_COMP_FILE, STR(web_config) },
    { "--hostname-label", 0, "NAME", set_hostlabel,
      "Hostname (default, dcgm-exporter <= 4.8.2), hostname (>= 4.8.3) or none", .comp = GS_COMP_CHOICES,
      .choices = "Hostname hostname none",
      .man = "The host label's name:\n"
             ".Cm Hostname\n"
             "(the default, as dcgm-exporter up to 4.8.2),\n"
             ".Cm hostname\n"
             "(4.8.3 on) or\n"
             ".Cm none ." },
    { "--no-hostname", 0, NULL, set_nohost, "no host name label on DCGM series (dcgm-exporter -n)",
      .man = "No host name label on the DCGM series (dcgm-exporter's\n"
             ".Fl n ) ." },
    { "--hostname", 0, "NAME", NULL, "value of the host name label (default $NODE_NAME, else the host name)",
      STR(hostname),
      .man = "The host label's value (default\n"
             ".Ev NODE_NAME ,\n"
             "else the host name)." },
    { "--process-cmdline", 0, NULL, NULL,
      "add the full command line as label cmdline on per-process series\n(it may hold secrets)",
      GS_OPT_STORE_TRUE(struct gs_serve_opts, process_cmdline),
      .man = "Add each process's full command line as label\n"
             ".Cm cmdline\n"
             "on per-process series; it may hold secrets, so it is off by default." },
    { "--host-root", 0, "DIR", NULL,
      "prefix for the host's /var/log/pods and /var/log/containers\n(default $GPUSCOPE_ROOT or none)",
      .comp = GS_COMP_DIR, STR(host_root),
      .man = "Where the host's\n"
             ".Pa /var/log/pods\n"
             "and\n"
             ".Pa /var/log/containers\n"
             "are visible (default\n"
             ".Ev GPUSCOPE_ROOT ,\n"
             "else none)." },
    { "--max-connections", 0, "N", set_maxconn,
      "concurrent HTTP connections (default 64); beyond, the oldest idle one is closed",
      .man = "Concurrent HTTP connections (default 64); beyond, the oldest idle one is closed." },
    { "--max-connections-per-ip", 0, "N", set_maxconn_ip,
      "concurrent connections from one client address (default 8, 0: no limit)",
      .man = "Concurrent connections from one client address (default 8, 0: no limit)." },
    { "--timeout", 0, "SECONDS", set_timeout,
      "a request must arrive whole within this, and idle connections close\nafter it (default 10)",
      .man = "A request must arrive whole within this, and idle connections close after it\n"
             "(default 10)." },
    { "--threads", 0, "N", set_threads, "HTTP threads (default 2)",
      .man = "HTTP threads (default 2)." },
    { "--no-openmetrics", 0, NULL, set_no_om, "always answer Prometheus text 0.0.4, even when OpenMetrics is asked for",
      .man = "Always answer Prometheus text 0.0.4, even when OpenMetrics is asked for." },
    { "--pod-resources-kubelet-socket", 0, "PATH", set_kube_socket,
      "the kubelet's pod-resources socket for pod labels\n(default " GS_KUBELET_SOCKET ", used when present; none: off)",
      .comp = GS_COMP_FILE,
      .man = "The kubelet's pod-resources socket\n"
             ".Po default\n"
             ".Pa /var/lib/kubelet/pod-resources/kubelet.sock ,\n"
             "used when present;\n"
             ".Cm none :\n"
             "off\n"
             ".Pc ." },
    { "--kubelet-interval", 0, "DURATION", set_kube_interval, "how often to ask the kubelet (default 5s)",
      .man = "How often to ask the kubelet (default 5s)." },
    { "--kubelet-timeout", 0, "DURATION", set_kube_timeout, "how long one answer may take (default 3s)",
      .man = "How long one answer may take (default 3s)." },
    { "--kubernetes-virtual-gpus", 0, NULL, NULL,
      "a DCGM series per pod sharing a GPU (time-slicing, MPS), with label vgpu,\nas dcgm-exporter",
      GS_OPT_STORE_TRUE(struct gs_serve_opts, virtual_gpus),
      .man = "A DCGM series per pod sharing a GPU (time-slicing, MPS), with label\n"
             ".Cm vgpu ,\n"
             "as dcgm-exporter does." },
    { "--kubernetes-gpu-id-type", 0, "TYPE", set_idtype,
      "how the device plugin names GPUs: uid (UUIDs, default) or device-name\n(nvidia<index>, GKE)",
      .comp = GS_COMP_CHOICES, .choices = "uid device-name",
      .man = "How the device plugin names GPUs:\n"
             ".Cm uid\n"
             "(UUIDs, the default) or\n"
             ".Cm device-name ." },
    { "--nvidia-resource-names", 0, "LIST", NULL,
      "more resource names that are NVIDIA GPUs (comma-separated),\ne.g. nvidia.com/gpu.shared",
      STR(resource_names),
      .man = "More resource names that are NVIDIA GPUs, comma-separated." },
    { "--hpc-job-mapping-dir", 0, "DIR", set_jobdir,
      "label DCGM series with hpc_job from the GPU -> job files in DIR\n"
      "(dcgm-exporter's; default $DCGM_HPC_JOB_MAPPING_DIR, else jobs from the processes'\nSlurm cgroups)", .comp = GS_COMP_DIR,
      .man = "dcgm-exporter's HPC job mapping: a file per GPU index in\n"
             ".Ar DIR\n"
             "(or\n"
             ".Ar gpu . Ns Ar gi\n"
             "for a MIG GPU instance) lists the IDs of the jobs on it, one per line; each DCGM\n"
             "series of that GPU is repeated per job with the label\n"
             ".Cm hpc_job .\n"
             "Without it, the Slurm jobs of the GPU's processes (from their cgroups) give the\n"
             "label.\n"
             ".Xr gpuscope-slurm 1\n"
             "writes the files." },
};

/* Found by main() as the module's symbol `serve_cli` (cmd/opts.h). */
const struct gs_cli serve_cli = {
    .name = "serve",
    .usage = "gpuscope serve [options]",
    .about = "Prometheus exporter, a drop-in for dcgm-exporter: /metrics, /health, /api/v1/snapshot.",
    .opts = serve_opts,
    .nopts = GS_NOPTS(serve_opts),
    .footer = "Stops on SIGINT or SIGTERM; SIGHUP reloads the web config. See docs/SERVE.md for every metric.",
};

int cmd_serve(int argc, char **argv, const struct gs_cmd_ctx *ctx)
{
    struct gs_serve_opts o = GS_SERVE_OPTS_INIT;
    struct gs_err err = { 0 };

    o.nvml_lib = ctx->nvml_lib;
    int rc = gs_cli_parse(&serve_cli, argc, argv, &o, &err);
    if (rc == GS_OPT_DONE)
        return GS_EXIT_OK;
    if (rc < 0) {
        gs_err_print(&err);
        return GS_EXIT_USAGE;
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
