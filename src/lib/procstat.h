/* SPDX-License-Identifier: MIT */
/*
 * procstat.h - the one /proc/PID/stat parser (proc(5)), and the field readers
 * the other /proc text parsers share. A process names itself, so comm may hold
 * spaces, '(' and ')': it runs from the first '(' to the LAST ')', and the
 * fields after it are taken by position. Every function takes a length and
 * never reads past it; the text need not be NUL-terminated (fuzzed:
 * fuzz/fuzz_proc_stat.c).
 */
#ifndef GS_LIB_PROCSTAT_H
#define GS_LIB_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>

/* The fields of /proc/PID/stat gpuscope uses, numbered as in proc(5). */
struct gs_proc_stat {
    char comm[17];        /* 2: as the kernel wrote it (not sanitised), cut to 16 bytes */
    char state;           /* 3: R, S, D, Z, T, I... */
    uint32_t ppid, pgid;  /* 4, 5 */
    uint64_t cpu_ticks;   /* 14 utime + 15 stime, clock ticks */
    uint64_t start_ticks; /* 22 starttime, clock ticks since boot */
    uint64_t rss_pages;   /* 24 rss, pages */
};

/* Parse stat text [buf, buf + len). Returns 0, or -1 with *out all zero (never
 * half-filled) when a field up to rss is missing, not a number, or too big. */
int gs_proc_stat_parse(const char *buf, size_t len, struct gs_proc_stat *out);

/* Field readers over [s, end): each returns where it stopped, or NULL. */
/* An unsigned decimal up to the first non-digit: at least one digit, no overflow. */
const char *gs_proc_u64(const char *s, const char *end, uint64_t *out);
/* Past one space-separated field (leading spaces skipped); NULL at the end of the line. */
const char *gs_proc_skip_field(const char *s, const char *end);
/* A whole space-separated unsigned field ("12x" is not one). */
const char *gs_proc_field_u64(const char *s, const char *end, uint64_t *out);

#endif
