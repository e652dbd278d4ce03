/* SPDX-License-Identifier: MIT */
/*
 * test_slurmjob.c - the prolog's readings of a job's GPUs (record/jobs.h):
 * SLURM_JOB_GPUS / CUDA_VISIBLE_DEVICES lists (indexes and ranges; UUIDs and
 * junk refused with a reason) and a cgroup v1 devices.list as Slurm's
 * task/cgroup writes it (NVIDIA's character devices 195:N; 195:255 is
 * nvidiactl, not a GPU).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "record/jobs.h"

static void test_gpu_lists(void **state)
{
    unsigned idx[GS_JOB_MAX_GPUS];
    char why[160];
    (void)state;
    assert_int_equal(gs_job_parse_gpus("0,1", idx, GS_JOB_MAX_GPUS, why, sizeof(why)), 2);
    assert_int_equal(idx[1], 1);
    assert_int_equal(gs_job_parse_gpus("2-4,7", idx, GS_JOB_MAX_GPUS, why, sizeof(why)), 4);
    assert_int_equal(idx[2], 4);
    assert_int_equal(idx[3], 7);
    assert_int_equal(gs_job_parse_gpus("", idx, GS_JOB_MAX_GPUS, why, sizeof(why)), 0);
    assert_int_equal(gs_job_parse_gpus("GPU-8f3a2b1c-0000-1111-2222-333344445555", idx, GS_JOB_MAX_GPUS, why,
                                       sizeof(why)), -1);
    assert_non_null(strstr(why, "UUIDs"));
    assert_int_equal(gs_job_parse_gpus("0,x", idx, GS_JOB_MAX_GPUS, why, sizeof(why)), -1);
    assert_int_equal(gs_job_parse_gpus("3-1", idx, GS_JOB_MAX_GPUS, why, sizeof(why)), -1);
    assert_int_equal(gs_job_parse_gpus("0-1023", idx, GS_JOB_MAX_GPUS, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "more than"));
}

static void test_devices_list(void **state)
{
    static const char list[] = "c 1:3 rwm\nc 195:255 rwm\nc 195:0 rwm\nc 195:2 rw\nb 8:0 r\nc 508:1 rwm\nc 195:3";
    unsigned idx[GS_JOB_MAX_GPUS];
    (void)state;
    assert_int_equal(gs_job_parse_devices(list, sizeof(list) - 1, idx, GS_JOB_MAX_GPUS), 3);
    assert_int_equal(idx[0], 0);
    assert_int_equal(idx[1], 2);
    assert_int_equal(idx[2], 3);
    assert_int_equal(gs_job_parse_devices("a *:* rwm\n", 10, idx, GS_JOB_MAX_GPUS), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpu_lists),
        cmocka_unit_test(test_devices_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
