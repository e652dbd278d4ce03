/* SPDX-License-Identifier: MIT */
/*
 * csv.c - nvidia-smi's --format=csv[,noheader][,nounits]: fields separated by
 * ", ", header with canonical names and unit tags, one row per GPU or per
 * compute process, no quoting (nvidia-smi does none). Values come from fields.c.
 */
#include "format/format.h"

#include <string.h>

int gs_csv_write_header(FILE *out, const struct gs_fieldlist *fl, const struct gs_snapshot *snap)
{
    unsigned major = snap ? gs_driver_major(snap->sys.driver_version) : 0;
    char buf[160];

    for (unsigned i = 0; i < fl->n; i++) {
        gs_field_header(fl->defs[i], major, buf, sizeof(buf));
        fprintf(out, "%s%s", i ? ", " : "", buf);
    }
    fputc('\n', out);
    return ferror(out) ? -GS_E_IO : 0;
}

static void write_row(FILE *out, const struct gs_field_ctx *ctx, const struct gs_fieldlist *fl,
                      unsigned flags)
{
    char buf[8192]; /* a process name may be a path of up to 4095 bytes */

    for (unsigned i = 0; i < fl->n; i++) {
        gs_field_format(fl->defs[i], ctx, flags, buf, sizeof(buf));
        fprintf(out, "%s%s", i ? ", " : "", buf);
    }
    fputc('\n', out);
}

/* nvidia-smi lists processes with a compute context: plain compute and MPS. */
static bool is_compute(const struct gs_proc *p)
{
    return (p->type & (GS_PROC_COMPUTE | GS_PROC_MPS)) != 0;
}

int gs_csv_write_rows(FILE *out, const struct gs_snapshot *snap, const struct gs_fieldlist *fl,
                      unsigned flags)
{
    unsigned fflags = flags & GS_CSV_NOUNITS ? GS_FIELD_NOUNITS : 0;

    for (uint32_t g = 0; g < snap->ngpus; g++) {
        struct gs_field_ctx ctx = {snap, &snap->gpus[g], NULL};
        if (fl->kind == GS_QUERY_GPU) {
            write_row(out, &ctx, fl, fflags);
            continue;
        }
        for (uint32_t p = 0; p < snap->gpus[g].nprocs; p++) {
            ctx.proc = &snap->gpus[g].procs[p];
            if (is_compute(ctx.proc))
                write_row(out, &ctx, fl, fflags);
        }
    }
    return ferror(out) ? -GS_E_IO : 0;
}
