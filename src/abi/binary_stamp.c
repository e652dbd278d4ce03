/* SPDX-License-Identifier: MIT */
/*
 * binary_stamp.c - the binary's own ABI stamp (core/abi.h), which core's module
 * loader (core/module.c) compares with each module's before using it.
 */
#include "abi/layout.h"

const struct gs_abi_stamp gs_binary_abi = GS_ABI_STAMP_INIT;
