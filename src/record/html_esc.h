/* SPDX-License-Identifier: MIT */
/*
 * html_esc.h - text into the HTML reports (this machine's, report_html.c, and
 * the fleet's, fleet_report_out.c) safely: element text and attribute values
 * escaped, and JSON strings embedded in a <script> that cannot end it.
 */
#ifndef GS_RECORD_HTML_ESC_H
#define GS_RECORD_HTML_ESC_H

#include <stdio.h>

/* s (NULL: nothing) with < > & " as entities. */
void gs_html_esc(FILE *out, const char *s);
/* s (NULL: "") as a JSON string; jansson escapes "/", so "</script>" cannot appear. */
void gs_html_jstr(FILE *out, const char *s);

#endif
