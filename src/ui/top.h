/* SPDX-License-Identifier: MIT */
/*
 * top.h - `gpuscope top`, the live view: entry point used by src/cmd/top.c.
 */
#ifndef GS_UI_TOP_H
#define GS_UI_TOP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"

struct gs_top_opts {
    uint32_t interval_ms;     /* 0: from the settings file (default 1000) */
    const char *only_ids;     /* -i selection, NULL = all GPUs */
    int layout;               /* enum gs_layout_pref, -1: from the settings file */
    bool ascii;               /* --ascii */
    bool mono;                /* --mono (NO_COLOR is honoured too) */
    bool readonly;            /* --readonly: no signals */
    bool no_save;             /* --no-save: do not write the settings file on exit */
    bool demo;                /* show the simulator badge even if detection fails */
    /* the fleet view (ui/fleet.h): set when --prometheus URL is given */
    const char *prometheus;   /* --prometheus URL */
    const char *prom_config;  /* --prometheus-config FILE */
    const char *match;        /* --match '{cluster="a"}' */
    const char *node;         /* --node HOST: start on that node's GPUs */
    long batch;               /* --batch N: N refreshes as text on stdout, no curses (0: interactive) */
    bool interval_set;        /* -d given: refresh at it instead of the scrape interval */
};

/* Run the live view until the user quits. Returns 0 or a negative gs_errc with
 * err filled (the terminal is restored before returning). */
int gs_top_run(const struct gs_top_opts *o, struct gs_err *err);

#endif /* GS_UI_TOP_H */
