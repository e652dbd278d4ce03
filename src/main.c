/* SPDX-License-Identifier: MIT */
/*
 * main.c - global options, then argv[1] -> commands[] (git's git.c). Nothing
 * else lives here: each subcommand is in src/cmd/<name>.c.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/opts_dump.h"
#include "core/demo.h"
#include "core/err.h"
#include "core/module.h"
#include "version.h"

/* A subcommand is a function linked into the binary, or, for those that need
 * heavy libraries, the symbol `cmd_<name>` of a loadable module (module.h). */
struct cmd {
    const char *name;
    gs_cmd_fn fn;       /* NULL: load from the module named `module` */
    const char *module;
    unsigned flags;
    const char *summary;
    /* Its option table (cmd/opts.h): &<name>_cli when linked in; NULL for a module's
     * command (then the module's symbol `<name>_cli`) or one not on a table yet. */
    const struct gs_cli *cli;
};

static const struct cmd commands[] = {
    { "query", cmd_query, NULL, 0, "snapshot or stream GPU and process readings (nvidia-smi/gpustat style)",
      &query_cli },
    { "gpustat", cmd_gpustat, NULL, 0, "gpustat's output and flags (also when invoked as 'gpustat')", &gpustat_cli },
    { "smi", cmd_smi, NULL, 0, "nvidia-smi's outputs: table, -L, -q, -q -x, dmon, pmon (also as argv[0] nvidia-smi)",
      &smi_cli },
    { "top", NULL, "top", CMD_LONG_RUNNING, "the live view: GPUs, history charts, processes (htop/nvtop style)" },
    { "serve", NULL, "serve", CMD_LONG_RUNNING,
      "Prometheus exporter, a drop-in for dcgm-exporter (/metrics on :9400)" },
    { "doctor", cmd_doctor, NULL, 0, "diagnose GPU health: Xids, ECC, PCIe, thermals, leaks, stalls (exit 6/7)",
      &doctor_cli },
    { "watch", NULL, "watch", CMD_LONG_RUNNING, "alert on health rules: log, exec hook, webhook (Slack, Alertmanager)" },
    { "record", NULL, "record", CMD_LONG_RUNNING, "record GPU history into an SQLite database (report reads it)" },
    { "report", NULL, "record", 0, "history as an HTML report, terminal charts, CSV or NDJSON" },
    { "run", NULL, "record", CMD_LONG_RUNNING, "run a command and summarize its GPU use, like time(1)" },
    { "mark", NULL, "record", 0, "annotate the history (\"epoch 3 starts\")" },
    { "baseline", NULL, "record", 0, "save what normal looks like, and diff against it" },
    { "slurm", NULL, "record", 0, "Slurm prolog/epilog: job mapping files, per-job GPU summaries" },
    { "pyhook", cmd_pyhook, NULL, 0, "the opt-in Python hook: PyTorch allocator figures and stacks of a process",
      &pyhook_cli },
    { "burn", cmd_burn, NULL, CMD_LONG_RUNNING, "verified stress test with a PASS/WARN/FAIL verdict per GPU (exit 6/7)",
      &burn_cli },
};

/* Without a command: the live view on a terminal, a query snapshot otherwise
 * (so `gpuscope | less` and scripts still get text). */
static const char *default_command(void)
{
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO) ? "top" : "query";
}

/* The global options, for --help and the generated pages: main() parses them
 * by hand, as they stop at the command's name. */
static const struct gs_opt global_opts[] = {
    { "--demo", 0, "SCENARIO", NULL,
      "run on the bundled NVML simulator (8 simulated H100-class GPUs);\n"
      "--demo=mixed: NVIDIA (NVML simulator), AMD and Intel (DRM simulator)",
      .comp = GS_COMP_CHOICES, .choices = "mixed", .flags = GS_OPT_OPTIONAL,
      .man = "Run on the bundled NVML simulator: eight simulated H100-class GPUs under a\n"
             "training load, marked as simulated wherever they are shown.\n"
             ".Fl -demo Ns = Ns Cm mixed :\n"
             "a mixed machine, NVIDIA (the NVML simulator), AMD and Intel (the DRM simulator)." },
    { "--version", 0, NULL, NULL, "print the version", .man = "Print the version and exit." },
    { "--help", 'h', NULL, NULL, "this help" },
    { NULL, 0, "COMMAND", NULL, "the command (below), and its options", .flags = GS_OPT_REST },
};
static const struct gs_cli global_cli = {
    .name = "gpuscope",
    .usage = "gpuscope [--demo[=SCENARIO]] [--version] [--help] <command> [options]",
    .opts = global_opts,
    .nopts = GS_NOPTS(global_opts),
};

static void usage(FILE *out)
{
    fprintf(out, "usage: %s\n\ncommands:\n", global_cli.usage);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nglobal options:\n");
    gs_opts_help(out, global_opts, GS_NOPTS(global_opts));
    fprintf(out, "\n'gpuscope <command> --help' describes a command. Without a command: 'top' on a\n"
                 "terminal, 'query' otherwise.\n");
}

/* gpuscope --dump-options: every table, loading the modules that hold theirs
 * (a module that does not load is an error, not a command without a table). */
static int dump_options(void)
{
    struct gs_cli_entry e[sizeof(commands) / sizeof(commands[0])];
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        char symbol[64];
        struct gs_err err = { 0 };
        e[i] = (struct gs_cli_entry){ commands[i].name, commands[i].summary, commands[i].cli };
        if (e[i].cli || !commands[i].module)
            continue;
        snprintf(symbol, sizeof(symbol), "cmd_%s", commands[i].name);
        if (!gs_module_symbol(commands[i].module, symbol, &err)) {
            gs_err_print(&err);
            return gs_exit_from_errc(err.code);
        }
        snprintf(symbol, sizeof(symbol), "%s_cli", commands[i].name);
        e[i].cli = gs_module_symbol(commands[i].module, symbol, &err); /* NULL: not on a table yet */
    }
    return gs_cli_dump(stdout, &global_cli, e, sizeof(e) / sizeof(e[0])) < 0 ? GS_EXIT_FAILURE : GS_EXIT_OK;
}

static const struct cmd *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

/* Invoked under another tool's name (a symlink or a copy named so), the binary
 * is that tool: its command line goes to the command of its face, unchanged. */
static const struct {
    const char *argv0;
    const char *command;
} faces[] = {
    { "gpustat", "gpustat" },
    { "nvidia-smi", "smi" },
};

static const struct cmd *face_of(const char *argv0)
{
    const char *base = strrchr(argv0, '/');

    base = base ? base + 1 : argv0;
    for (size_t i = 0; i < sizeof(faces) / sizeof(faces[0]); i++)
        if (!strcmp(faces[i].argv0, base))
            return find_command(faces[i].command);
    return NULL;
}

int main(int argc, char **argv)
{
    struct gs_cmd_ctx ctx = { 0 };
    struct gs_err err = { 0 };
    const char *demo = NULL;
    int i = 1;
    const struct cmd *face = argc > 0 ? face_of(argv[0]) : NULL;

    if (face) {
        argv[0] = (char *)face->name;
        return face->fn(argc, argv, &ctx);
    }
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--demo") || !strncmp(argv[i], "--demo=", 7)) {
            ctx.demo = true;
            demo = argv[i][6] == '=' ? argv[i] + 7 : NULL;
        } else if (!strcmp(argv[i], "--version")) {
            printf("gpuscope %s\n", GS_VERSION);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return GS_EXIT_OK;
        } else if (!strcmp(argv[i], "--dump-options")) {
            return dump_options();
        } else {
            break; /* an option of the default command */
        }
    }
    if (ctx.demo && gs_demo_setup(demo, &err) < 0) {
        gs_err_print(&err);
        return gs_exit_from_errc(err.code);
    }

    const struct cmd *c = NULL;
    if (i < argc && argv[i][0] != '-') {
        c = find_command(argv[i]);
        if (!c) {
            fprintf(stderr, "gpuscope: '%s' is not a gpuscope command. See 'gpuscope --help'.\n",
                    argv[i]);
            return GS_EXIT_USAGE;
        }
        i++;
    } else {
        c = find_command(default_command());
    }
    gs_cmd_fn fn = c->fn;
    if (!fn) {
        char symbol[64];
        snprintf(symbol, sizeof(symbol), "cmd_%s", c->name);
        fn = gs_module_load(c->module, symbol, &err);
        if (!fn) {
            gs_err_print(&err);
            return gs_exit_from_errc(err.code);
        }
    }
    /* The subcommand sees argv[0] = its own name, like git builtins. */
    argv[i - 1] = (char *)c->name;
    return fn(argc - (i - 1), argv + (i - 1), &ctx);
}
