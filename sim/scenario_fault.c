/* SPDX-License-Identifier: MIT */
/*
 * scenario_fault.c - the name tables of the scenario language (NVML error names,
 * feature names, NVML symbol names) and the parser of fault lines, shared by
 * scenario files and GPUSCOPE_SIM_FAULTS. Stand-alone: no simulator runtime.
 */
#include "scenario.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/nvidia/nvml_abi.h"
#include "sim_syms.h"

static const struct {
    int code;
    const char *name;
} scn_errors[] = {
    {NVML_SUCCESS, "SUCCESS"},
    {NVML_ERROR_UNINITIALIZED, "UNINITIALIZED"},
    {NVML_ERROR_INVALID_ARGUMENT, "INVALID_ARGUMENT"},
    {NVML_ERROR_NOT_SUPPORTED, "NOT_SUPPORTED"},
    {NVML_ERROR_NO_PERMISSION, "NO_PERMISSION"},
    {NVML_ERROR_ALREADY_INITIALIZED, "ALREADY_INITIALIZED"},
    {NVML_ERROR_NOT_FOUND, "NOT_FOUND"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE"},
    {NVML_ERROR_INSUFFICIENT_POWER, "INSUFFICIENT_POWER"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "DRIVER_NOT_LOADED"},
    {NVML_ERROR_TIMEOUT, "TIMEOUT"},
    {NVML_ERROR_IRQ_ISSUE, "IRQ_ISSUE"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "LIBRARY_NOT_FOUND"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "FUNCTION_NOT_FOUND"},
    {NVML_ERROR_CORRUPTED_INFOROM, "CORRUPTED_INFOROM"},
    {NVML_ERROR_GPU_IS_LOST, "GPU_IS_LOST"},
    {NVML_ERROR_RESET_REQUIRED, "RESET_REQUIRED"},
    {NVML_ERROR_OPERATING_SYSTEM, "OPERATING_SYSTEM"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "LIB_RM_VERSION_MISMATCH"},
    {NVML_ERROR_IN_USE, "IN_USE"},
    {NVML_ERROR_MEMORY, "MEMORY"},
    {NVML_ERROR_NO_DATA, "NO_DATA"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "VGPU_ECC_NOT_SUPPORTED"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "FREQ_NOT_SUPPORTED"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "ARGUMENT_VERSION_MISMATCH"},
    {NVML_ERROR_DEPRECATED, "DEPRECATED"},
    {NVML_ERROR_NOT_READY, "NOT_READY"},
    {NVML_ERROR_GPU_NOT_FOUND, "GPU_NOT_FOUND"},
    {NVML_ERROR_INVALID_STATE, "INVALID_STATE"},
    {NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "RESET_TYPE_NOT_SUPPORTED"},
    {NVML_ERROR_UNKNOWN, "UNKNOWN"},
};

int gs_scn_error_code(const char *name)
{
    if (!name)
        return -1;
    if (strncasecmp(name, "NVML_ERROR_", 11) == 0)
        name += 11;
    else if (strncasecmp(name, "NVML_", 5) == 0)
        name += 5;
    if (isdigit((unsigned char)name[0])) {
        char *end;
        long v = strtol(name, &end, 10);
        for (size_t i = 0; !*end && i < sizeof(scn_errors) / sizeof(scn_errors[0]); i++)
            if (scn_errors[i].code == v)
                return (int)v;
        return -1;
    }
    for (size_t i = 0; i < sizeof(scn_errors) / sizeof(scn_errors[0]); i++)
        if (strcasecmp(scn_errors[i].name, name) == 0)
            return scn_errors[i].code;
    return -1;
}

const char *gs_scn_error_name(int code)
{
    for (size_t i = 0; i < sizeof(scn_errors) / sizeof(scn_errors[0]); i++)
        if (scn_errors[i].code == code)
            return scn_errors[i].name;
    return "UNKNOWN";
}

static const char *const scn_features[GS_SCN_F__COUNT] = {
    [GS_SCN_F_FAN] = "fan",           [GS_SCN_F_ECC] = "ecc",
    [GS_SCN_F_ENCODER] = "encoder",   [GS_SCN_F_DECODER] = "decoder",
    [GS_SCN_F_POWER] = "power",       [GS_SCN_F_POWER_LIMIT] = "power_limit",
    [GS_SCN_F_ENERGY] = "energy",     [GS_SCN_F_TEMP] = "temp",
    [GS_SCN_F_TEMP_THRESHOLDS] = "temp_thresholds", [GS_SCN_F_MEM_TEMP] = "mem_temp",
    [GS_SCN_F_CLOCKS] = "clocks",     [GS_SCN_F_MAX_CLOCKS] = "max_clocks",
    [GS_SCN_F_APP_CLOCKS] = "app_clocks", [GS_SCN_F_PSTATE] = "pstate",
    [GS_SCN_F_THROTTLE] = "throttle", [GS_SCN_F_PCIE] = "pcie",
    [GS_SCN_F_PCIE_THROUGHPUT] = "pcie_throughput", [GS_SCN_F_REPLAY] = "replay",
    [GS_SCN_F_SERIAL] = "serial",     [GS_SCN_F_BOARD_ID] = "board_id",
    [GS_SCN_F_PART_NUMBER] = "part_number", [GS_SCN_F_VBIOS] = "vbios",
    [GS_SCN_F_BAR1] = "bar1",         [GS_SCN_F_MEMORY] = "memory",
    [GS_SCN_F_UTIL] = "util",         [GS_SCN_F_PROCS] = "procs",
    [GS_SCN_F_PROC_UTIL] = "proc_util", [GS_SCN_F_SAMPLES] = "samples",
    [GS_SCN_F_RETIRED_PAGES] = "retired_pages", [GS_SCN_F_REMAPPED_ROWS] = "remapped_rows",
    [GS_SCN_F_MIG] = "mig",           [GS_SCN_F_PERSISTENCE] = "persistence",
    [GS_SCN_F_COMPUTE_MODE] = "compute_mode", [GS_SCN_F_DISPLAY] = "display",
    [GS_SCN_F_FIELD_VALUES] = "field_values", [GS_SCN_F_EVENTS] = "events",
    [GS_SCN_F_CC] = "cc",             [GS_SCN_F_BRAND] = "brand",
    [GS_SCN_F_ARCH] = "arch",         [GS_SCN_F_MINOR] = "minor",
    [GS_SCN_F_POWER_MODE] = "power_mode",
    /* -- simulator fidelity (9b) -- */
    [GS_SCN_F_PROC_UTIL_INFO] = "proc_util_info",
    [GS_SCN_F_VIOLATION] = "violation", [GS_SCN_F_NVLINK] = "nvlink", [GS_SCN_F_VIOL_HW] = "violation_hw",
    [GS_SCN_F_POWER_AVERAGE] = "power_average", [GS_SCN_F_JPEG] = "jpeg",
    [GS_SCN_F_OFA] = "ofa",           [GS_SCN_F_TLIMIT] = "tlimit",
    [GS_SCN_F_SRAM_ECC] = "sram_ecc", [GS_SCN_F_CONF_COMPUTE] = "conf_compute",
    [GS_SCN_F_EDPP] = "edpp",         [GS_SCN_F_INFOROM] = "inforom",
    [GS_SCN_F_GSP] = "gsp",           [GS_SCN_F_ADDRESSING] = "addressing",
    [GS_SCN_F_RECOVERY] = "recovery", [GS_SCN_F_ACCOUNTING] = "accounting",
    [GS_SCN_F_PLATFORM] = "platform", [GS_SCN_F_C2C] = "c2c",
    [GS_SCN_F_GPM] = "gpm",
};

int gs_scn_feature_code(const char *name)
{
    for (int i = 0; i < GS_SCN_F__COUNT; i++)
        if (scn_features[i] && strcmp(scn_features[i], name) == 0)
            return i;
    return -1;
}

const char *gs_scn_feature_name(int feature)
{
    return feature >= 0 && feature < GS_SCN_F__COUNT ? scn_features[feature] : NULL;
}

#define SCN_SYM_NAME(name, prof) #name,
static const char *const scn_syms[SIM_SYM__COUNT] = {SIM_SYMBOLS(SCN_SYM_NAME)};
#undef SCN_SYM_NAME

int gs_scn_sym_code(const char *name)
{
    for (int i = 0; i < SIM_SYM__COUNT; i++)
        if (strcmp(scn_syms[i], name) == 0)
            return i;
    return -1;
}

const char *gs_scn_sym_name(int sym)
{
    return sym >= 0 && sym < SIM_SYM__COUNT ? scn_syms[sym] : NULL;
}

/* ---- fault lines ------------------------------------------------------------ */

static int scn_fault_ulong(const char *v, unsigned long max, unsigned long *out)
{
    char *end;
    if (!isdigit((unsigned char)*v))
        return -1;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || x > max)
        return -1;
    *out = x;
    return 0;
}

static int scn_fault_word(struct gs_scn_fault *f, const char *w, char *err, size_t errlen)
{
    const char *eq = strchr(w, '=');
    const char *v = eq ? eq + 1 : "";
    size_t klen = eq ? (size_t)(eq - w) : strlen(w);
    unsigned long x = 0;
#define KEY(k) (klen == strlen(k) && strncmp(w, k, klen) == 0)
    if (!eq && (strcmp(w, "once") == 0 || strcmp(w, "persist") == 0 || strcmp(w, "always") == 0)) {
        f->persist = strcmp(w, "once") != 0;
        if (strcmp(w, "always") == 0)
            f->call = 1;
        return 0;
    }
    if (KEY("gpu") && scn_fault_ulong(v, GS_SCN_MAX_GPUS - 1, &x) == 0)
        f->gpu = (int)x;
    else if (KEY("call") && scn_fault_ulong(v, 1000000000ul, &x) == 0 && x > 0)
        f->call = x;
    else if (KEY("delay") && scn_fault_ulong(v, 600000ul, &x) == 0)
        f->delay_ms = (unsigned)x;
    else if (KEY("grow") && scn_fault_ulong(v, 1024ul, &x) == 0)
        f->grow = (unsigned)x;
    else if (KEY("error")) {
        int code = gs_scn_error_code(v);
        if (code <= 0) {
            snprintf(err, errlen, "fault: unknown NVML error '%s' (e.g. GPU_IS_LOST, NOT_SUPPORTED, UNKNOWN, 15)", v);
            return -1;
        }
        f->error = code;
    } else {
        snprintf(err, errlen, "fault: bad word '%s' (expected gpu=I call=N error=E delay=MS grow=K once|persist|always)", w);
        return -1;
    }
#undef KEY
    return 0;
}

int gs_scn_parse_fault_words(struct gs_scn *s, char **words, int nwords, char *err, size_t errlen)
{
    if (nwords < 1) {
        snprintf(err, errlen, "fault: missing the NVML function name (or '*')");
        return -1;
    }
    if (s->nfaults >= GS_SCN_MAX_FAULTS) {
        snprintf(err, errlen, "fault: too many faults (at most %d)", GS_SCN_MAX_FAULTS);
        return -1;
    }
    struct gs_scn_fault f = {.sym = -1, .gpu = -1, .call = 1};
    if (strcmp(words[0], "*") != 0) {
        f.sym = gs_scn_sym_code(words[0]);
        if (f.sym < 0) {
            snprintf(err, errlen, "fault: '%.60s' is not an NVML function the simulator implements", words[0]);
            return -1;
        }
    }
    snprintf(f.fn, sizeof(f.fn), "%s", words[0]);
    for (int i = 1; i < nwords; i++)
        if (scn_fault_word(&f, words[i], err, errlen) < 0)
            return -1;
    if (!f.error && !f.delay_ms && !f.grow) {
        snprintf(err, errlen, "fault: says nothing to do (give error=, delay= or grow=)");
        return -1;
    }
    s->faults[s->nfaults++] = f;
    return 0;
}

/* Split one fault spec into words (space separated) and parse it. */
static int scn_fault_one(struct gs_scn *s, char *spec, char *err, size_t errlen)
{
    char *words[16];
    int n = 0;
    char *p = spec;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        if (n == 16) {
            snprintf(err, errlen, "fault: too many words");
            return -1;
        }
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    if (n == 0)
        return 0;
    if (strcmp(words[0], "fault") == 0)
        return gs_scn_parse_fault_words(s, words + 1, n - 1, err, errlen);
    return gs_scn_parse_fault_words(s, words, n, err, errlen);
}

int gs_scn_parse_faults(struct gs_scn *s, const char *spec, const char *origin, char *err,
                        size_t errlen)
{
    char *copy = strdup(spec ? spec : "");
    char sub[GS_SCN_ERR_LEN];
    int rc = 0, idx = 0;
    if (!copy) {
        snprintf(err, errlen, "%s: out of memory", origin);
        return -1;
    }
    for (char *item = copy, *next; item && rc == 0; item = next) {
        next = strchr(item, ';');
        if (next)
            *next++ = '\0';
        idx++;
        rc = scn_fault_one(s, item, sub, sizeof(sub));
        if (rc < 0)
            snprintf(err, errlen, "%s: item %d: %s", origin, idx, sub);
    }
    free(copy);
    return rc;
}
