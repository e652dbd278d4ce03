/* SPDX-License-Identifier: MIT */
/*
 * report_js.c - the HTML report's chart script (src/record/report.js) as a
 * NUL-terminated string in the record module, put there by the assembler
 * (.incbin): the script stays a plain .js file that editors and linters read.
 * The Makefile makes this object depend on report.js.
 */
__asm__(".section .rodata\n"
        ".global gs_report_js\n"
        ".hidden gs_report_js\n"
        ".type gs_report_js, @object\n"
        "gs_report_js:\n"
        ".incbin \"src/record/report.js\"\n"
        ".byte 0\n"
        ".size gs_report_js, . - gs_report_js\n"
        ".previous\n");
