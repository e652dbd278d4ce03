/* SPDX-License-Identifier: MIT */
/* html_esc.c - escaping for the HTML reports (html_esc.h). */
#include "record/html_esc.h"

#include <jansson.h>
#include <stdlib.h>

void gs_html_esc(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*s, out);
        }
    }
}

void gs_html_jstr(FILE *out, const char *s)
{
    json_t *j = json_string(s ? s : "");
    char *d = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ESCAPE_SLASH) : NULL;
    fputs(d ? d : "\"\"", out);
    free(d);
    json_decref(j);
}
