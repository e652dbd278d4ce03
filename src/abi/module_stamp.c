/* SPDX-License-Identifier: MIT */
/*
 * module_stamp.c - the ABI stamp of a module (core/abi.h). The Makefile links
 * this file into every module and never into the binary, which compares it
 * with its own (abi/binary_stamp.c) before it calls anything in the module.
 */
#include "abi/layout.h"

const struct gs_abi_stamp gs_module_abi = GS_ABI_STAMP_INIT;
