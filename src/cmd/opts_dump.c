/* SPDX-License-Identifier: MIT */
/*
 * opts_dump.c - `gpuscope --dump-options`: every command's option table as
 * JSON, which scripts/gen-cli turns into the man pages' OPTIONS sections and
 * the shell completions (`make gen`). Hidden; not an interface for users.
 */
#include "cmd/opts_dump.h"

#include <jansson.h>
#include <string.h>

static const char *comp_name(enum gs_opt_comp c)
{
    static const char *const names[] = { "none", "file", "dir", "choices", "gpu", "fields", "command" };
    return (size_t)c < sizeof(names) / sizeof(names[0]) ? names[c] : "none";
}

/* The words of "a b c", or of the metavariable's "a|b|c". */
static json_t *choices(const struct gs_opt *o)
{
    json_t *a = json_array();
    const char *s = o->choices ? o->choices : o->arg ? o->arg : "";
    const char *sep = o->choices ? " " : "|";
    while (*s) {
        size_t len = strcspn(s, sep);
        if (len)
            json_array_append_new(a, json_stringn(s, len));
        s += len + (s[len] != 0);
    }
    return a;
}

static json_t *opt_json(const struct gs_opt *o)
{
    json_t *j = json_pack("{s:s?, s:s?, s:s?, s:s, s:b, s:b, s:b, s:b, s:b}", "long", o->lng, "arg", o->arg,
                          "help", o->help, "complete", comp_name(o->comp), "repeat", !!(o->flags & GS_OPT_REPEAT),
                          "hidden", !!(o->flags & GS_OPT_HIDDEN), "list", !!(o->flags & GS_OPT_LIST),
                          "optional", !!(o->flags & GS_OPT_OPTIONAL), "rest", !!(o->flags & GS_OPT_REST));
    if (!j)
        return NULL;
    if (o->shrt)
        json_object_set_new(j, "short", json_stringn(&o->shrt, 1));
    if (o->comp == GS_COMP_CHOICES)
        json_object_set_new(j, "choices", choices(o));
    if (o->comp == GS_COMP_FIELDS && o->choices)
        json_object_set_new(j, "fields", json_string(o->choices));
    if (o->section)
        json_object_set_new(j, "section", json_string(o->section));
    if (o->man)
        json_object_set_new(j, "man", json_string(o->man));
    return j;
}

static json_t *cli_json(const struct gs_cli *cli)
{
    json_t *opts = json_array();
    for (size_t k = 0; k < cli->nopts; k++)
        json_array_append_new(opts, opt_json(&cli->opts[k]));
    return json_pack("{s:s?, s:s?, s:s?, s:s?, s:o}", "name", cli->name, "usage", cli->usage, "about", cli->about,
                     "footer", cli->footer, "options", opts);
}

int gs_cli_dump(FILE *out, const struct gs_cli *global, const struct gs_cli_entry *e, size_t n)
{
    json_t *cmds = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(cmds, json_pack("{s:s, s:s, s:o}", "name", e[i].name, "summary", e[i].summary,
                                              "cli", e[i].cli ? cli_json(e[i].cli) : json_null()));
    json_t *root = json_pack("{s:o, s:o}", "global", cli_json(global), "commands", cmds);
    int rc = root && json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 ? 0 : -1;
    fputc('\n', out);
    json_decref(root);
    return rc;
}
