/* SPDX-License-Identifier: MIT */
/*
 * exit.h - what every command shares below the command layer: the context
 * main() hands a subcommand, and the process exit codes (documented in
 * README.md). In core so that the layers that run a command's work (format,
 * burn, smixml, the modules) need nothing from src/cmd/.
 */
#ifndef GS_EXIT_H
#define GS_EXIT_H

#include <stdbool.h>

/* What main() has worked out before calling a subcommand. */
struct gs_cmd_ctx {
    bool demo;               /* --demo: running on the bundled simulator */
    const char *nvml_lib;    /* library to load (NULL: default search) */
};

/* Exit codes shared by all subcommands. */
enum gs_exit {
    GS_EXIT_OK = 0,
    GS_EXIT_FAILURE = 1,     /* runtime failure not covered below */
    GS_EXIT_USAGE = 2,       /* bad flag, field or argument */
    GS_EXIT_NO_NVML = 3,     /* NVML library or driver unusable */
    GS_EXIT_NO_GPU = 4,      /* no GPU found, or none matched -i */
    GS_EXIT_PARTIAL = 5,     /* output produced, but some GPU or field failed (e.g. GPU lost) */
};
/* Map an error class (enum gs_errc, either sign) to the exit code above. */
int gs_exit_from_errc(int errc);

#endif /* GS_EXIT_H */
