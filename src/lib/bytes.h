/* SPDX-License-Identifier: MIT */
/*
 * bytes.h - a byte count for a person, written one way everywhere (the Python
 * hook's report, top's PyTorch line): MiB below 1 GiB ("768 MiB"), GiB with one
 * decimal from there ("1.0 GiB", "39.5 GiB"). Binary units, as nvidia-smi's.
 * (top's tables use ui/fmt.h's compact gs_fmt_bytes, "1.5G", sized for a column.)
 */
#ifndef GS_LIB_BYTES_H
#define GS_LIB_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Writes b into buf (cut to len, always terminated) and returns buf. */
const char *gs_fmt_size(uint64_t b, char *buf, size_t len);

#endif
