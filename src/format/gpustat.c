/* SPDX-License-Identifier: MIT */
/*
 * gpustat.c - gpustat's face: its one line per GPU and its --json, byte for
 * byte as gpustat 1.1.1 (the current release; wookayin/gpustat, gpustat/core.py)
 * prints them, from a snapshot. Spacing, "MB" (really MiB), "??" for an unknown reading,
 * "(Not Supported)" when the driver lists no processes, "((GPU is lost))", the
 * colours blessed emits for an xterm-256color terminal, and the JSON keys,
 * order and indentation of its json.dump(indent=4).
 *
 * Where gpustat hides a process that /proc cannot show (another PID
 * namespace, a PID that is gone), this face still lists it with "?" for what
 * the host cannot tell: its memory is held all the same (docs/GPUSTAT.md).
 */
#include "format/format.h"

#include <jansson.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIB (1024ull * 1024ull)
#define GPUSTAT_NAME_WIDTH 16 /* DEFAULT_GPUNAME_WIDTH */

/* blessed's sequences for xterm-256color (gpustat's choice when TERM is
 * unset); "normal" is gpustat's own "\033[0;10m" with --force-color,
 * terminfo's sgr0 when a terminal was found. An 8-colour TERM (xterm, screen,
 * linux) spells colour 24 "\033[324m" (its setaf, unclamped); TERM=dumb has
 * no colour at all, only gpustat's normal. */
struct gcolors {
    const char *normal, *cyan, *blue, *red, *bold_red, *bold_cyan, *yellow, *bold_yellow, *bold_black, *green,
        *bold_green, *magenta, *bold_magenta, *cmd, *bold, *bold_white;
};

static const struct gcolors gc_forced = {
    "\033[0;10m",         "\033[36m",         "\033[34m",           "\033[31m",         "\033[1m\033[31m",
    "\033[1m\033[36m",    "\033[33m",         "\033[1m\033[33m",    "\033[1m\033[30m",  "\033[32m",
    "\033[1m\033[32m",    "\033[35m",         "\033[1m\033[35m",    "\033[38;5;24m",    "\033[1m",
    "\033[1m\033[37m",
};
static const struct gcolors gc_plain = {"", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""};

/* ---- small text helpers --------------------------------------------------------------- */

/* Code points in a UTF-8 string (Python's len()). */
static size_t u8_len(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The byte offset where the last `keep` code points of s start. */
static const char *u8_tail(const char *s, size_t keep)
{
    size_t n = u8_len(s);
    for (; *s && n > keep; s++)
        if (((unsigned char)s[1] & 0xC0) != 0x80)
            n--;
    return s;
}

/* util.shorten_left(text, width, "…"), left-aligned and padded to width. */
static void put_name(FILE *out, const char *name, int width)
{
    size_t len = u8_len(name), w = (size_t)width;

    if (len <= w) {
        fprintf(out, "%s%*s", name, (int)(w - len), "");
    } else if (w == 1) {
        fputs("…", out);
    } else {
        fprintf(out, "…%s", u8_tail(name, w - 1));
    }
}

/* f"{v:>{w}}" of an int, or of "??" when the reading is not there. */
static void put_num(FILE *out, bool have, long long v, int w)
{
    if (have)
        fprintf(out, "%*lld", w, v);
    else
        fprintf(out, "%*s", w, "??");
}

/* util.bytes2human */
static void bytes2human(char *buf, size_t len, unsigned long long b)
{
    static const char *const suffix[] = {"B", "KB", "MB", "GB", "TB", "PB"};
    unsigned i = 0;

    while (b > 9999 && i < 6) {
        b >>= 10;
        i++;
    }
    snprintf(buf, len, "%llu%s", b, suffix[i >= 6 ? 5 : i]);
}

/* ---- one process ------------------------------------------------------------------------ */

/* argv[0] of the command line: its length in p's command line. */
static size_t argv0_len(const struct gs_text *t, const struct gs_proc *p)
{
    size_t n = strlen(gs_proc_cmdline(t, p));
    for (size_t i = 0; i < n; i++)
        if (gs_proc_cmdline_sep(t, p, i))
            return i;
    return n;
}

static bool has_cmdline(const struct gs_text *t, const struct gs_proc *p)
{
    return gs_proc_has(p, GS_P_COMM) && gs_proc_cmdline(t, p)[0];
}

/* gpustat's "command": basename of argv[0] ("?" for a zombie or kernel thread);
 * for a process /proc cannot see, the driver's name, first word, basename. */
static void proc_command(const struct gs_text *t, const struct gs_proc *p, char *buf, size_t len)
{
    const char *s = NULL;
    size_t n = 0;

    if (has_cmdline(t, p)) {
        s = gs_proc_cmdline(t, p);
        n = argv0_len(t, p);
    } else if (!gs_proc_has(p, GS_P_COMM) && gs_proc_has(p, GS_P_NAME) && p->name[0]) {
        s = p->name;
        n = strcspn(p->name, " ");
    }
    if (!s) {
        snprintf(buf, len, "?");
        return;
    }
    const char *base = s;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/')
            base = s + i + 1;
    snprintf(buf, len, "%.*s", (int)(s + n - base), base);
}

static const char *proc_user(const struct gs_proc *p)
{
    return gs_proc_has(p, GS_P_USER) ? p->user : "?";
}

/* psutil's cpu_percent(): rounded to 0.1. Over the last tick when known, else
 * since the process started (what ps prints): no sleeping to measure. */
static bool proc_cpu(const struct gs_proc *p, const struct gs_snapshot *snap, double *pct)
{
    if (gs_proc_has(p, GS_P_CPU)) {
        *pct = p->cpu_pct;
    } else if (gs_proc_has(p, GS_P_CPU_TIME) && gs_proc_has(p, GS_P_START)) {
        double age = (double)snap->wall.tv_sec + snap->wall.tv_nsec * 1e-9 - (double)p->start_time;
        *pct = age > 0 ? 100.0 * (double)p->cpu_time_ns * 1e-9 / age : 0.0;
    } else {
        return false;
    }
    /* Python's round(x, 1): the correctly rounded decimal, ties to even */
    char buf[64];
    snprintf(buf, sizeof(buf), "%.1f", *pct);
    *pct = strtod(buf, NULL);
    return true;
}

static void put_proc(FILE *out, const struct gs_text *t, const struct gs_proc *p, const struct gs_gpustat_opts *o, const struct gcolors *c)
{
    char cmd[GS_CMDLINE_MAX];

    fputc(' ', out);
    if (!o->show_cmd || o->show_user)
        fprintf(out, "%s%s%s", c->bold_black, proc_user(p), c->normal);
    if (o->show_cmd) {
        proc_command(t, p, cmd, sizeof(cmd));
        fprintf(out, "%s%s%s%s", !o->show_cmd || o->show_user ? ":" : "", c->cyan, cmd, c->normal);
    }
    if (o->show_pid)
        fprintf(out, "/%u", p->pid);
    if (gs_proc_has(p, GS_P_GPU_MEM) && p->gpu_mem_bytes >= MIB)
        fprintf(out, "(%s%lluM%s)", c->yellow, (unsigned long long)(p->gpu_mem_bytes / MIB), c->normal);
    else if (gs_proc_has(p, GS_P_GPU_MEM) && p->gpu_mem_bytes)
        fprintf(out, "(%s0M%s)", c->yellow, c->normal);
    else
        fprintf(out, "(%s?M%s)", c->yellow, c->normal);
}

/* util.prettify_commandline: argv[0]'s directory, its basename in cyan, the
 * arguments; the driver's name (or "?") when /proc cannot show the command. */
static void put_cmdline(FILE *out, const struct gs_text *t, const struct gs_proc *p, const struct gcolors *c)
{
    const char *s = has_cmdline(t, p) ? gs_proc_cmdline(t, p) : gs_proc_has(p, GS_P_NAME) && !gs_proc_has(p, GS_P_COMM) ? p->name : "?";
    size_t n0 = has_cmdline(t, p) ? argv0_len(t, p) : strlen(s);
    size_t slash = 0;

    for (size_t i = 0; i < n0; i++)
        if (s[i] == '/')
            slash = i + 1;
    size_t head = slash; /* os.path.split: the head without its trailing slashes, unless all slashes */
    size_t lead = strspn(s, "/");
    while (head > 1 && s[head - 1] == '/' && lead < head)
        head--;
    fputs(c->cmd, out);
    if (head)
        fprintf(out, "%.*s%s", (int)head, s, s[head - 1] == '/' ? "" : "/");
    fprintf(out, "%s%.*s%s%s", c->cyan, (int)(n0 - slash), s + slash, c->cmd, s + n0);
}

static void put_full_proc(FILE *out, const struct gs_text *t, const struct gs_proc *p, const struct gs_snapshot *snap, bool last,
                          const struct gcolors *c)
{
    char mem[32];
    double cpu;

    bytes2human(mem, sizeof(mem), gs_proc_has(p, GS_P_RSS) ? p->rss_bytes : 0);
    fprintf(out, "%s %s─ %6u ", c->normal, last ? "└" : "├", p->pid);
    if (proc_cpu(p, snap, &cpu))
        fprintf(out, "%s(%s%4.0f%%%s, %s%6s%s)", c->normal, c->green, cpu, c->normal, c->yellow, mem, c->normal);
    else
        fprintf(out, "%s(%s%4s%%%s, %s%6s%s)", c->normal, c->green, "--", c->normal, c->yellow, mem, c->normal);
    fprintf(out, "%s: %s", c->normal, c->cmd);
    put_cmdline(out, t, p, c);
    fputs(c->normal, out);
}

/* ---- one GPU ---------------------------------------------------------------------------- */

/* gpustat's readings of one GPU: what its entry dict holds. */
struct gentry {
    bool valid;                    /* false: InvalidGPU (lost, unreadable) */
    const char *name;
    bool has_temp, has_fan, has_util, has_enc, has_dec, has_power, has_limit, has_mem;
    long long temp, fan, util, enc, dec, power_w, limit_w, mem_used, mem_total;
};

static void gpu_entry(const struct gs_gpu *g, struct gentry *e)
{
    const struct gs_sample *s = &g->s;

    memset(e, 0, sizeof(*e));
    e->valid = g->state == GS_GPU_OK;
    if (!e->valid) {
        e->name = g->state == GS_GPU_LOST ? "((GPU is lost))" : "((Unknown Error))";
        return;
    }
    e->name = gs_static_has(&g->st, GS_S_NAME) ? g->st.name : "";
    e->has_temp = gs_sample_has(s, GS_F_TEMP_GPU), e->temp = s->temp_gpu_c;
    e->has_fan = gs_sample_has(s, GS_F_FAN_SPEED) && s->fan_count > 0, e->fan = s->fan_speed_pct[0];
    e->has_util = gs_sample_has(s, GS_F_GPU_UTIL), e->util = s->gpu_util_pct;
    e->has_enc = gs_sample_has(s, GS_F_ENC_UTIL), e->enc = s->enc_util_pct;
    e->has_dec = gs_sample_has(s, GS_F_DEC_UTIL), e->dec = s->dec_util_pct;
    e->has_power = gs_sample_has(s, GS_F_POWER), e->power_w = s->power_mw / 1000;
    e->has_limit = gs_sample_has(s, GS_F_POWER_ENFORCED), e->limit_w = s->power_enforced_limit_mw / 1000;
    e->has_mem = gs_sample_has(s, GS_F_MEM_USED) && gs_sample_has(s, GS_F_MEM_TOTAL);
    e->mem_used = (long long)(s->mem_used_bytes / MIB);
    e->mem_total = (long long)(s->mem_total_bytes / MIB);
}

/* gpustat's _conditional(): the colour when the test holds, another when not,
 * bold black when the reading is missing (its test raised). */
static const char *cond(const struct gcolors *c, bool have, bool test, const char *yes, const char *no)
{
    return !have ? c->bold_black : test ? yes : no;
}

/* gpustat 1.1.1's power part: ",  DRAW / LIMIT W", or ",  DRAW W" for -P draw */
static void put_power(FILE *out, const struct gentry *e, const struct gs_gpustat_opts *o, const struct gcolors *c)
{
    /* CPowU: magenta under 40 % of the limit; bold without a limit; bold black
     * when the draw is missing but the limit is not (float(None) raised) */
    const char *cu = !e->has_limit ? c->bold_magenta
                     : !e->has_power || e->limit_w == 0
                         ? c->bold_black
                         : ((double)e->power_w / (double)e->limit_w < 0.4 ? c->magenta : c->bold_magenta);

    fprintf(out, ",  %s", cu);
    put_num(out, e->has_power, e->power_w, 3);
    fprintf(out, "%s ", c->normal);
    if (strstr(o->power, "limit")) {
        fprintf(out, "/ %s", c->magenta);
        put_num(out, e->has_limit, e->limit_w, 3);
        fprintf(out, "%s %sW%s", c->normal, c->magenta, c->normal);
    } else {
        fprintf(out, "%sW%s", cu, c->normal);
    }
}

/* " (E:  88 %  D:  67 %)": the parts joined by two spaces */
static void put_codec(FILE *out, const struct gentry *e, const struct gs_gpustat_opts *o, const struct gcolors *c)
{
    bool enc = strstr(o->codec, "enc"), dec = strstr(o->codec, "dec");

    fputs(" (", out);
    if (enc) {
        fprintf(out, "%sE: %s%s", c->bold, c->normal, cond(c, e->has_enc, e->enc < 50, c->green, c->bold_green));
        put_num(out, e->has_enc, e->enc, 3);
        fprintf(out, " %%%s", c->normal);
    }
    if (dec) {
        fprintf(out, "%s%sD: %s%s", enc ? "  " : "", c->bold, c->normal,
                cond(c, e->has_dec, e->dec < 50, c->green, c->bold_green));
        put_num(out, e->has_dec, e->dec, 3);
        fprintf(out, " %%%s", c->normal);
    }
    fputc(')', out);
}

static void put_readings(FILE *out, const struct gentry *e, const struct gs_gpustat_opts *o, const struct gcolors *c)
{
    fputs(cond(c, e->has_temp, e->temp < 50, c->red, c->bold_red), out);
    put_num(out, e->has_temp, e->temp, 3);
    fprintf(out, "°C%s, ", c->normal);
    if (o->show_fan) {
        fputs(cond(c, e->has_fan, e->fan < 30, c->cyan, c->bold_cyan), out);
        put_num(out, e->has_fan, e->fan, 3);
        fprintf(out, " %%%s, ", c->normal);
    }
    fputs(cond(c, e->has_util, e->util < 30, c->green, c->bold_green), out);
    put_num(out, e->has_util, e->util, 3);
    fprintf(out, " %%%s", c->normal);
    if (o->codec && o->codec[0])
        put_codec(out, e, o, c);
    if (o->power && o->power[0])
        put_power(out, e, o, c);
    fprintf(out, " | %s%s", c->cyan, e->valid ? c->bold_yellow : c->bold_black);
    put_num(out, e->has_mem, e->mem_used, 5);
    fprintf(out, "%s / %s", c->normal, e->valid ? c->yellow : c->bold_black);
    put_num(out, e->has_mem, e->mem_total, 5);
    fprintf(out, "%s MB", c->normal);
}

static void put_gpu(FILE *out, const struct gs_snapshot *snap, const struct gs_gpu *g, int name_w,
                    const struct gs_gpustat_opts *o, const struct gcolors *c)
{
    struct gentry e;

    gpu_entry(g, &e);
    if (gs_static_has(&g->st, GS_S_HOST)) /* a GPU of the fleet: [node:index on it] */
        fprintf(out, "%s[%s:%u]%s ", c->cyan, g->st.host, g->st.host_index, c->normal);
    else
        fprintf(out, "%s[%u]%s ", c->cyan, g->st.index, c->normal);
    if (name_w != 0) {
        fputs(e.valid ? c->blue : c->red, out);
        put_name(out, e.name, name_w);
        fprintf(out, "%s |", c->normal);
    }
    put_readings(out, &e, o, c);
    if (o->no_processes)
        return;
    fputs(" |", out);
    if (!e.valid || g->procs_status != GS_ST_OK) {
        fputs(" (Not Supported)", out);
        return;
    }
    for (uint32_t i = 0; i < g->nprocs; i++)
        put_proc(out, &g->text, &g->procs[i], o, c);
    for (uint32_t i = 0; o->show_full_cmd && i < g->nprocs; i++) {
        fputs(o->eol, out);
        put_full_proc(out, &g->text, &g->procs[i], snap, i + 1 == g->nprocs, c);
    }
}

static int name_width(const struct gs_snapshot *snap, const struct gs_gpustat_opts *o)
{
    size_t w = 0;

    if (o->gpuname_width >= 0)
        return o->gpuname_width;
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        struct gentry e;
        gpu_entry(&snap->gpus[i], &e);
        size_t n = u8_len(e.name);
        w = n > w ? n : w;
    }
    return (int)w;
}

static void put_header(FILE *out, const struct gs_snapshot *snap, int name_w, const struct gcolors *c)
{
    struct tm tm;
    time_t sec = snap->wall.tv_sec;
    char when[64] = "";
    int width = (name_w ? name_w : GPUSTAT_NAME_WIDTH) + 3; /* len("[?]") */

    /* locale.nl_langinfo(D_T_FMT) in the C locale Python leaves LC_TIME in */
    if (localtime_r(&sec, &tm))
        strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
    const char *host = snap->sys.hostname;
    int pad = width - (int)u8_len(host);
    fprintf(out, "%s%s%*s%s  %s  %s%s%s", c->bold_white, host, pad > 0 ? pad : 0, "", c->normal, when, c->bold_black,
            snap->sys.driver_version[0] ? snap->sys.driver_version : "None", c->normal);
}

/* The palette blessed would use for this TERM. */
static void palette(const struct gs_gpustat_opts *o, struct gcolors *c)
{
    const char *term = getenv("TERM");

    *c = gc_forced;
    if (o->color_auto)
        c->normal = "\033(B\033[m"; /* xterm-256color's sgr0, blessed's normal on a terminal */
    if (term && !strcmp(term, "dumb")) {
        *c = gc_plain;
        c->normal = o->color_auto ? "" : gc_forced.normal;
    } else if (term && term[0] && !strstr(term, "256color")) {
        c->cmd = "\033[324m";
    }
}

int gs_gpustat_write(FILE *out, const struct gs_snapshot *snap, const struct gs_gpustat_opts *o)
{
    struct gcolors pal;
    const struct gcolors *c = &gc_plain;

    if (o->color) {
        palette(o, &pal);
        c = &pal;
    }
    int name_w = name_width(snap, o);

    if (!o->no_header) {
        put_header(out, snap, name_w, c);
        fputs(o->eol, out);
    }
    for (uint32_t i = 0; i < snap->ngpus; i++) {
        put_gpu(out, snap, &snap->gpus[i], name_w, o, c);
        fputs(o->eol, out);
    }
    if (snap->ngpus == 0)
        fprintf(out, "%s(No GPUs are available)%s\n", c->yellow, c->normal);
    return ferror(out) ? -GS_E_IO : 0;
}

/* ---- --json ------------------------------------------------------------------------------- */

/* A JSON string as Python's json.dump writes it (ensure_ascii): jansson's
 * escaping; bytes that are not UTF-8 become '?'. */
static void put_jstr(FILE *out, const char *s)
{
    size_t plain = 0;
    while ((unsigned char)s[plain] >= 0x20 && (unsigned char)s[plain] < 0x7f && s[plain] != '"' && s[plain] != '\\')
        plain++;
    if (!s[plain]) { /* nothing to escape: most names, users, commands */
        fprintf(out, "\"%s\"", s);
        return;
    }
    json_t *j = json_string(s);
    char *txt;

    if (!j) {
        char buf[GS_CMDLINE_MAX];
        size_t i = 0;
        for (; s[i] && i + 1 < sizeof(buf); i++)
            buf[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
        buf[i] = '\0';
        j = json_string(buf);
    }
    txt = j ? json_dumps(j, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
    for (char *e = txt; e && (e = strstr(e, "\\u")); e += 2) /* Python writes \u00e9, jansson \u00E9 */
        for (int k = 2; k < 6 && e[k]; k++)
            e[k] = (char)(e[k] >= 'A' && e[k] <= 'F' ? e[k] - 'A' + 'a' : e[k]);
    fputs(txt ? txt : "null", out);
    free(txt);
    json_decref(j);
}

static void put_jint(FILE *out, const char *ind, const char *key, bool have, long long v, bool comma)
{
    fprintf(out, "%s\"%s\": ", ind, key);
    if (have)
        fprintf(out, "%lld", v);
    else
        fputs("null", out);
    fputs(comma ? ",\n" : "\n", out);
}

/* full_command: argv as a list (the driver's name, or "?", when /proc cannot tell). */
static void put_jargv(FILE *out, const struct gs_text *t, const struct gs_proc *p, const char *ind)
{
    char arg[GS_CMDLINE_MAX];
    const char *cmdline = gs_proc_cmdline(t, p);
    size_t n = 0, len = strlen(cmdline);

    fputs("[\n", out);
    if (!has_cmdline(t, p)) {
        fprintf(out, "%s    ", ind);
        put_jstr(out, gs_proc_has(p, GS_P_NAME) && !gs_proc_has(p, GS_P_COMM) ? p->name : "?");
        fprintf(out, "\n%s]", ind);
        return;
    }
    for (size_t i = 0; i <= len; i++) {
        bool sep = i == len || gs_proc_cmdline_sep(t, p, i);
        if (!sep) {
            arg[n++] = cmdline[i];
            continue;
        }
        arg[n] = '\0';
        fprintf(out, "%s    ", ind);
        put_jstr(out, arg);
        fputs(i == len ? "\n" : ",\n", out);
        n = 0;
    }
    fprintf(out, "%s]", ind);
}

static void put_jproc(FILE *out, const struct gs_text *t, const struct gs_proc *p, const struct gs_snapshot *snap, bool last)
{
    static const char *const ind = "                    ";
    char cmd[GS_CMDLINE_MAX];
    double cpu;

    proc_command(t, p, cmd, sizeof(cmd));
    fprintf(out, "                {\n%s\"username\": ", ind);
    put_jstr(out, proc_user(p));
    fprintf(out, ",\n%s\"command\": ", ind);
    put_jstr(out, cmd);
    fprintf(out, ",\n%s\"full_command\": ", ind);
    put_jargv(out, t, p, ind);
    fputs(",\n", out);
    put_jint(out, ind, "gpu_memory_usage", gs_proc_has(p, GS_P_GPU_MEM) && p->gpu_mem_bytes,
             (long long)(p->gpu_mem_bytes / MIB), true);
    fprintf(out, "%s\"cpu_percent\": ", ind);
    if (proc_cpu(p, snap, &cpu))
        fprintf(out, "%.1f,\n", cpu);
    else
        fputs("null,\n", out);
    put_jint(out, ind, "cpu_memory_usage", gs_proc_has(p, GS_P_RSS), (long long)p->rss_bytes, true);
    put_jint(out, ind, "pid", true, p->pid, false);
    fprintf(out, "                }%s\n", last ? "" : ",");
}

static void put_jgpu(FILE *out, const struct gs_snapshot *snap, const struct gs_gpu *g, bool last)
{
    static const char *const ind = "            ";
    struct gentry e;

    gpu_entry(g, &e);
    fprintf(out, "        {\n%s\"index\": %u,\n", ind, g->st.index);
    if (e.valid) {
        fprintf(out, "%s\"uuid\": ", ind);
        put_jstr(out, g->st.uuid);
        fputs(",\n", out);
    }
    fprintf(out, "%s\"name\": ", ind);
    put_jstr(out, e.name);
    fputs(",\n", out);
    if (e.valid) { /* an InvalidGPU has only index, name and processes */
        put_jint(out, ind, "temperature.gpu", e.has_temp, e.temp, true);
        put_jint(out, ind, "fan.speed", e.has_fan, e.fan, true);
        put_jint(out, ind, "utilization.gpu", e.has_util, e.util, true);
        put_jint(out, ind, "utilization.enc", e.has_enc, e.enc, true);
        put_jint(out, ind, "utilization.dec", e.has_dec, e.dec, true);
        put_jint(out, ind, "power.draw", e.has_power, e.power_w, true);
        put_jint(out, ind, "enforced.power.limit", e.has_limit, e.limit_w, true);
        put_jint(out, ind, "memory.used", e.has_mem, e.mem_used, true);
        put_jint(out, ind, "memory.total", e.has_mem, e.mem_total, true);
    }
    fprintf(out, "%s\"processes\": ", ind);
    if (!e.valid || g->procs_status != GS_ST_OK) {
        fputs("null\n", out);
    } else if (g->nprocs == 0) {
        fputs("[]\n", out);
    } else {
        fputs("[\n", out);
        for (uint32_t i = 0; i < g->nprocs; i++)
            put_jproc(out, &g->text, &g->procs[i], snap, i + 1 == g->nprocs);
        fprintf(out, "%s]\n", ind);
    }
    fprintf(out, "        }%s\n", last ? "" : ",");
}

/* datetime.now().isoformat(): local time, microseconds unless zero. */
static void put_query_time(FILE *out, const struct gs_snapshot *snap)
{
    struct tm tm;
    time_t sec = snap->wall.tv_sec;
    char when[32] = "";
    long us = snap->wall.tv_nsec / 1000;

    if (localtime_r(&sec, &tm))
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    if (us)
        fprintf(out, "\"%s.%06ld\"", when, us);
    else
        fprintf(out, "\"%s\"", when);
}

int gs_gpustat_json_write(FILE *out, const struct gs_snapshot *snap)
{
    fputs("{\n    \"hostname\": ", out);
    put_jstr(out, snap->sys.hostname);
    fputs(",\n    \"driver_version\": ", out);
    if (snap->sys.driver_version[0])
        put_jstr(out, snap->sys.driver_version);
    else
        fputs("null", out);
    fputs(",\n    \"query_time\": ", out);
    put_query_time(out, snap);
    fputs(",\n    \"gpus\": ", out);
    if (snap->ngpus == 0) {
        fputs("[]\n}\n", out);
        return ferror(out) ? -GS_E_IO : 0;
    }
    fputs("[\n", out);
    for (uint32_t i = 0; i < snap->ngpus; i++)
        put_jgpu(out, snap, &snap->gpus[i], i + 1 == snap->ngpus);
    fputs("    ]\n}\n", out);
    return ferror(out) ? -GS_E_IO : 0;
}

/* ---- when the query cannot start ------------------------------------------------------------ */

int gs_gpustat_open_failed(const struct gs_gpustat_opts *o, bool json, const struct gs_err *err, bool selected)
{
    if (err->code == GS_E_NO_DEVICE && !selected) {
        /* gpustat 1.1: no crash without GPUs, a header and a notice */
        struct gs_snapshot snap;
        gs_snapshot_init(&snap);
        clock_gettime(CLOCK_REALTIME, &snap.wall);
        if (gethostname(snap.sys.hostname, sizeof(snap.sys.hostname)) != 0)
            snap.sys.hostname[0] = '\0';
        snap.sys.hostname[sizeof(snap.sys.hostname) - 1] = '\0';
        int rc = json ? gs_gpustat_json_write(stdout, &snap) : gs_gpustat_write(stdout, &snap, o);
        gs_snapshot_release(&snap);
        return rc < 0 ? 1 : 0;
    }
    fputs("Error on querying NVIDIA devices. Use --debug flag to see more details.\n", stderr);
    gs_err_print(err);
    return 1;
}
