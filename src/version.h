/* SPDX-License-Identifier: MIT */
/* version.h - the one place the version number lives. */
#ifndef GS_VERSION_H
#define GS_VERSION_H
#define GS_VERSION "0.1.0"
#endif
