/* SPDX-License-Identifier: MIT */
/*
 * opts.h - every command's command line from one table, so that parsing,
 * --help, the man pages' OPTIONS sections and the shell completions cannot
 * drift apart (the last two are generated from the tables: `make gen`).
 *
 * A row (struct gs_opt) is an option: long name, optional one-letter alias,
 * the metavariable (NULL: a flag; "A B": two values), the setter and the help
 * line; then, by designated initializer, what completes its value (.comp), its
 * flags and the rest. A row whose .lng is NULL is an operand (a word that is
 * not an option: `slurm prolog`, `mark TEXT...`, `run -- COMMAND...`).
 * "--name=value", "--name value", "-xVALUE", "-x VALUE" and clustered flags
 * ("-qC") all work; options and operands may be mixed in any order (as
 * getopt_long's), and "--" ends the options. The setters check the values.
 *
 * Registering a command ("foo"), in src/cmd/foo.c:
 *
 *   static int o_interval(void *ctx, const char *const *v, struct gs_err *err)
 *   {
 *       struct foo_args *a = ctx;
 *       if (gs_parse_duration_ms(v[0], &a->interval_ms) < 0)
 *           return gs_err_set(err, GS_E_USAGE, "--interval: '%s' is not a duration", v[0]);
 *       return 0;
 *   }
 *   static const struct gs_opt foo_opts[] = {
 *       { "--interval", 'd', "DUR", o_interval, "between samples (default 1s)" },
 *       { "--db", 0, "FILE", NULL, "the history database", .comp = GS_COMP_FILE,
 *         GS_OPT_STORE_STR(struct foo_args, db) },
 *       { "--format", 'f', "text|json", o_format, "output", .comp = GS_COMP_CHOICES },
 *       { NULL, 0, "TEXT", o_word, "the words to store", .flags = GS_OPT_REPEAT },
 *   };
 *   const struct gs_cli foo_cli = {
 *       .name = "foo",
 *       .usage = "gpuscope foo [options] TEXT...",
 *       .about = "What foo does, in a sentence or two.",
 *       .opts = foo_opts, .nopts = GS_NOPTS(foo_opts),
 *   };
 *   int cmd_foo(int argc, char **argv, const struct gs_cmd_ctx *ctx)
 *   {
 *       struct foo_args a = { ... defaults ... };
 *       struct gs_err err = { 0 };
 *       int rc = gs_cli_parse(&foo_cli, argc, argv, &a, &err);
 *       if (rc == GS_OPT_DONE) return GS_EXIT_OK;          (--help printed)
 *       if (rc < 0) return gs_cli_fail(&foo_cli, &err);    ("gpuscope foo: ...", exit 2)
 *       ...
 *
 * then declare `extern const struct gs_cli foo_cli;` in src/cmd/cmd.h, and in
 * src/main.c's commands[] give the row `.cli = &foo_cli` when foo is linked into
 * the binary; for a command in a module (.fn NULL) leave .cli NULL: main finds
 * the symbol `foo_cli` in the module, as it finds `cmd_foo`. Then `make gen`
 * rewrites man/gpuscope-foo.1's OPTIONS section and completions/ from the
 * table (tests/cli/0157 fails until the checked-in files match).
 *
 * -h/--help need no row: gs_cli_parse prints gs_cli_help() on stdout and
 * returns GS_OPT_DONE. A table's own "--help" (or -h) row takes precedence.
 * Where the page should say more than the help line, a row's .man holds that
 * text in mdoc (moved from the page: `make gen` writes it back there).
 */
#ifndef GS_CMD_OPTS_H
#define GS_CMD_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "core/err.h"

/* What completes an option's value (or an operand) in the shells. */
enum gs_opt_comp {
    GS_COMP_NONE = 0, /* free text: nothing is offered */
    GS_COMP_FILE,     /* a file name */
    GS_COMP_DIR,      /* a directory */
    GS_COMP_CHOICES,  /* one of .choices (space-separated), or of .arg's "a|b|c" when .choices is NULL */
    GS_COMP_GPU,      /* GPU ids (index, UUID, PCI bus id) from a quick `gpuscope query` */
    GS_COMP_FIELDS,   /* the first column of `gpuscope CMD <.choices>`, e.g. .choices = "--help-query-gpu" */
    GS_COMP_COMMAND,  /* a command line of its own (run -- COMMAND ARGS): the shell completes it */
};

enum gs_opt_flags {
    GS_OPT_REPEAT = 1 << 0,   /* may be given more than once (help and man say so); for an operand: any number */
    GS_OPT_HIDDEN = 1 << 1,   /* parsed, but in no help, man page or completion (an old spelling) */
    GS_OPT_LIST = 1 << 2,     /* the value is a comma-separated list: the shells complete each element */
    GS_OPT_OPTIONAL = 1 << 3, /* the value is optional: only "--name=value" or "-xVALUE" give one (v[0] NULL) */
    GS_OPT_REST = 1 << 4,     /* operand: this word and every one after it, unparsed (v = them, NULL-ended) */
};

struct gs_opt {
    const char *lng;    /* "--window"; NULL: an operand */
    char shrt;          /* 'i' for -i, or 0 */
    const char *arg;    /* "DUR", "xid N" (two words: two values), or NULL for a flag */
    /* v[0] (and v[1]) are the values (NULL for a flag). Returns 0 to go on,
     * GS_OPT_DONE to stop with exit 0 (--help, --explain), or a negative errc. */
    int (*set)(void *ctx, const char *const *v, struct gs_err *err);
    const char *help;   /* one line ('\n' continues it, indented); "(repeatable)" is added for GS_OPT_REPEAT */
    /* --- added for the generated help, pages and completions; all optional --- */
    enum gs_opt_comp comp;
    const char *choices; /* GS_COMP_CHOICES: "a b c" (NULL: .arg's "a|b|c"); GS_COMP_FIELDS: the help option */
    unsigned flags;      /* enum gs_opt_flags */
    const char *section; /* a heading printed before this row ("test options (virtual time):") */
    const char *man;     /* the man page's body for this option, in mdoc ('\n' between lines), where it
                          * says more than .help (which is the body otherwise) */
    /* With .set NULL: store(ctx + off, v, err), e.g. GS_OPT_STORE_STR(struct a, db). */
    int (*store)(void *field, const char *const *v, struct gs_err *err);
    size_t off;
};
#define GS_OPT_DONE 1
#define GS_NOPTS(t) (sizeof(t) / sizeof((t)[0]))

/* The generic stores: the value into a `const char *` member, true into a `bool` member. */
int gs_opt_str(void *field, const char *const *v, struct gs_err *err);
int gs_opt_true(void *field, const char *const *v, struct gs_err *err);
/* A whole number from lo to hi into *out, or GS_E_USAGE: "OPT: 'V' is not a number from LO to HI". */
int gs_opt_long(const char *opt, const char *v, long lo, long hi, long *out, struct gs_err *err);
#define GS_OPT_STORE_STR(type, member) .store = gs_opt_str, .off = offsetof(type, member)
#define GS_OPT_STORE_TRUE(type, member) .store = gs_opt_true, .off = offsetof(type, member)

/* A command's command line: what --help prints, and the table. */
struct gs_cli {
    const char *name;   /* "report": messages say "report: unknown option ..." */
    const char *usage;  /* "gpuscope report [options]"; '\n' between several forms */
    const char *about;  /* the paragraph(s) after the usage lines (or NULL) */
    const struct gs_opt *opts;
    size_t nopts;
    const char *footer; /* printed after the options (exit codes, see also), or NULL */
};

/* A parse error (or any usage error) as "gpuscope NAME: msg" (and its hint) on
 * stderr; returns the exit status for err's class (GS_EXIT_USAGE for GS_E_USAGE). */
int gs_cli_fail(const struct gs_cli *cli, const struct gs_err *err);

/* Parse argv[1..] against cli's table; ctx goes to every setter. Returns 0,
 * GS_OPT_DONE (--help printed, or a setter said so) or a negative errc with err
 * naming the option: unknown option, missing or unexpected value, a word no
 * operand row takes. Missing operands are the command's to check. */
int gs_cli_parse(const struct gs_cli *cli, int argc, char **argv, void *ctx, struct gs_err *err);
/* --help: usage lines, about, the options (gs_opts_help), footer. */
void gs_cli_help(FILE *out, const struct gs_cli *cli);

/* The same on a bare table (no built-in --help); cmd names the command in messages. */
int gs_opts_parse(const struct gs_opt *t, size_t n, int argc, char **argv, void *ctx, const char *cmd,
                  struct gs_err *err);
/* The options block of --help, from the table (operands and hidden rows left out). */
void gs_opts_help(FILE *out, const struct gs_opt *t, size_t n);

#endif /* GS_CMD_OPTS_H */
