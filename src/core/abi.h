/* SPDX-License-Identifier: MIT */
/*
 * abi.h - the stamp that ties a module to the binary it was built with.
 *
 * A module (module.h) runs inside the binary and shares its structures: a
 * gs_snapshot filled by the core is read field by field by top.so, serve.so
 * reads gs_sample arrays, record.so fills the gs_history that doctor walks. A
 * module built from other headers would read those structures at the wrong
 * offsets, so every module carries this stamp (src/abi/module_stamp.c is linked
 * into each one, never into the binary) and gs_module_symbol() refuses a module
 * whose stamp differs from the binary's in any field:
 *   version  GS_VERSION of the build;
 *   headers  a hash of the text of every header under src/ (the Makefile writes it
 *            into $(GEN)/abi_hash.h): any change to a declaration, an enum value or
 *            a struct member changes it;
 *   layout   the sizes, alignments and some offsets of the structures that cross the
 *            boundary, as this compiler laid them out (flags such as -m32 or a
 *            packing pragma that leave the text alone change this).
 * This header holds the stamp's format, which core's module loader reads; its
 * value is computed by src/abi/layout.h. The struct's first two members never
 * change, so a binary can read any module's stamp far enough to say what it is.
 */
#ifndef GS_ABI_H
#define GS_ABI_H

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

#define GS_ABI_MAGIC UINT32_C(0x62617367) /* "gsab" in memory order */
#define GS_ABI_SYMBOL "gs_module_abi"

struct gs_abi_stamp {
    uint32_t magic;       /* GS_ABI_MAGIC: this is a gpuscope stamp */
    uint32_t size;        /* sizeof(struct gs_abi_stamp) when it was built */
    char version[24];     /* GS_VERSION */
    char headers[24];     /* GS_ABI_HEADERS: 16 hex digits */
    uint64_t layout;      /* GS_ABI_LAYOUT */
};

/* One term of the layout checksum: item i's value times an odd constant of its own. */
#define GS_ABI_TERM(i, v) ((uint64_t)(v) * (UINT64_C(0x9e3779b97f4a7c15) + 2 * (uint64_t)(i)))
#define GS_ABI_TYPE(i, T) (GS_ABI_TERM(2 * (i), sizeof(T)) + GS_ABI_TERM(2 * (i) + 1, alignof(T)))

/* The stamp's value lives above core, since the structures it measures belong
 * to several layers (health's findings among them): src/abi/layout.h computes
 * it; src/abi/module_stamp.c defines gs_module_abi in every module and
 * src/abi/binary_stamp.c gs_binary_abi in the binary, which module.c compares. */
extern const struct gs_abi_stamp gs_module_abi;
extern const struct gs_abi_stamp gs_binary_abi;

#endif /* GS_ABI_H */
