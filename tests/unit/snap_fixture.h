/* SPDX-License-Identifier: MIT */
/*
 * snap_fixture.h - a hand-built snapshot for the output tests (test_fields.c,
 * test_json.c): two GPUs, the first fully read with known values, the second
 * with every kind of "not a value" status, and processes on the first; and
 * fixture_gpu_identity for tests that build their own GPUs (test_prom*.c).
 */
#ifndef GS_TEST_SNAP_FIXTURE_H
#define GS_TEST_SNAP_FIXTURE_H

#include "core/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A zeroed GPU with only its identity: index idx, an H100's name, UUID GPU-<idx as 8 hex
 * digits>-0000-..., PCI bus id 00000000:<bus0 + idx>:00.0 (nothing marked read). */
static inline void fixture_gpu_identity(struct gs_gpu *g, uint32_t idx, unsigned bus0)
{
    memset(g, 0, sizeof(*g));
    g->st.index = idx;
    snprintf(g->st.name, sizeof(g->st.name), "NVIDIA H100 80GB HBM3");
    snprintf(g->st.uuid, sizeof(g->st.uuid), "GPU-%08x-0000-0000-0000-000000000000", idx);
    snprintf(g->st.pci_bus_id, sizeof(g->st.pci_bus_id), "00000000:%02X:00.0", bus0 + idx);
}

static inline void fixture_gpu0(struct gs_gpu *g)
{
    struct gs_static *st = &g->st;
    struct gs_sample *s = &g->s;

    st->index = 0;
    snprintf(st->name, sizeof(st->name), "NVIDIA H100 80GB HBM3");
    snprintf(st->uuid, sizeof(st->uuid), "GPU-11111111-2222-3333-4444-555555555555");
    snprintf(st->serial, sizeof(st->serial), "1650123456789");
    snprintf(st->pci_bus_id, sizeof(st->pci_bus_id), "00000000:3B:00.0");
    st->pci_bus = 0x3B;
    st->pci_device_id = 0x233010DE;
    st->pci_subsystem_id = 0x16C110DE;
    snprintf(st->vbios, sizeof(st->vbios), "96.00.89.00.01");
    st->cc_major = 9;
    st->arch = 9;
    st->power_default_limit_mw = 700000;
    st->power_min_limit_mw = 200000;
    st->power_max_limit_mw = 700000;
    st->clock_max_graphics_mhz = 1980;
    st->pcie_max_gen = 5;
    st->pcie_max_width = 16;
    st->throttle_supported = 0x1FF;
    st->temp_slowdown_c = 87;
    for (int f = 0; f < GS_S_COUNT; f++)
        gs_static_mark(st, f, GS_ST_OK);

    s->mem_total_bytes = 81559ull << 20;
    s->mem_used_bytes = (32362ull << 20) + 12345; /* partial MiB rounds down */
    s->mem_free_bytes = s->mem_total_bytes - s->mem_used_bytes;
    s->gpu_util_pct = 38;
    s->temp_gpu_c = 52;
    s->fan_count = 0;
    s->power_mw = 627400;
    s->power_limit_mw = 700000;
    s->power_enforced_limit_mw = 700000;
    s->energy_mj = 123456789;
    s->clock_graphics_mhz = 1980;
    s->pstate = 0;
    s->throttle_reasons = GS_THROTTLE_SW_POWER_CAP;
    s->pcie_gen = 5;
    s->pcie_width = 16;
    s->ecc_mode_current = 1;
    s->ecc_mode_pending = 1;
    s->retired_pending = 0;
    s->remap_pending = 1;
    s->persistence_mode = 1;
    s->compute_mode = 3;
    for (int f = 0; f < GS_F_COUNT; f++)
        gs_sample_mark(s, f, GS_ST_OK);
    gs_sample_mark(s, GS_F_PCIE_TX, GS_ST_NOT_SAMPLED);
    g->procs_status = GS_ST_OK;
    g->state = GS_GPU_OK;
}

/* Every status that is not a value, one per field family. */
static inline void fixture_gpu1(struct gs_gpu *g)
{
    g->st.index = 1;
    snprintf(g->st.name, sizeof(g->st.name), "NVIDIA H100 80GB HBM3");
    gs_static_mark(&g->st, GS_S_NAME, GS_ST_OK);
    gs_static_mark(&g->st, GS_S_SERIAL, GS_ST_NO_PERMISSION);
    gs_sample_mark(&g->s, GS_F_POWER, GS_ST_NOT_SUPPORTED);
    gs_sample_mark(&g->s, GS_F_MEM_USED, GS_ST_GPU_LOST);
    gs_sample_mark(&g->s, GS_F_GPU_UTIL, GS_ST_NOT_AVAILABLE);
    gs_sample_mark(&g->s, GS_F_TEMP_GPU, GS_ST_ERROR);
    gs_sample_mark(&g->s, GS_F_FAN_SPEED, GS_ST_OK); /* OK but no fans: N/A */
    g->procs_status = GS_ST_NOT_SUPPORTED;
    g->state = GS_GPU_LOST;
    snprintf(g->last_error, sizeof(g->last_error), "GPU has fallen off the bus");
}

/* p's command line (no argv boundaries marked), kept in g's text arena. */
static inline void fixture_cmdline(struct gs_gpu *g, struct gs_proc *p, const char *cmd)
{
    assert_int_equal(gs_proc_set_cmdline(&g->text, p, cmd, strlen(cmd), NULL, 0), 0);
}

static inline void fixture_procs(struct gs_gpu *g)
{
    struct gs_proc *p = gs_gpu_add_proc(g);
    p->pid = 4242;
    p->type = GS_PROC_COMPUTE;
    p->gpu_mem_bytes = 30000ull << 20;
    gs_proc_set(p, GS_P_GPU_MEM);
    p->host_vis = GS_HOST_VISIBLE;
    snprintf(p->user, sizeof(p->user), "alice");
    snprintf(p->comm, sizeof(p->comm), "python");
    fixture_cmdline(g, p, "/usr/bin/python train.py --bs 64");
    gs_proc_set(p, GS_P_USER);
    gs_proc_set(p, GS_P_COMM);
    p->container_id[0] = '\0';
    gs_proc_set(p, GS_P_CONTAINER);

    p = gs_gpu_add_proc(g);
    p->pid = 777;
    p->type = GS_PROC_GRAPHICS; /* not a compute app */
    p->host_vis = GS_HOST_NOT_VISIBLE;

    p = gs_gpu_add_proc(g);
    p->pid = 31337;
    p->type = GS_PROC_COMPUTE | GS_PROC_GRAPHICS;
    p->host_vis = GS_HOST_NOT_VISIBLE; /* another PID namespace: no memory, only the driver's name */
    snprintf(p->name, sizeof(p->name), "/opt/app/bin/server --port 80");
    gs_proc_set(p, GS_P_NAME);
}

/* wall clock 2026-07-03 22:11:09.763 UTC (tests run with TZ=UTC) */
static inline void fixture_snapshot(struct gs_snapshot *snap)
{
    gs_snapshot_init(snap);
    snap->wall.tv_sec = 1783116669;
    snap->wall.tv_nsec = 763456789;
    snap->duration_ns = 412000;
    snprintf(snap->sys.hostname, sizeof(snap->sys.hostname), "node1");
    snprintf(snap->sys.backend, sizeof(snap->sys.backend), "nvml");
    snprintf(snap->sys.driver_version, sizeof(snap->sys.driver_version), "550.54.15");
    snap->sys.cuda_driver_version = 12040;
    snap->sys.simulated = true;
    snprintf(snap->sys.sim_scenario, sizeof(snap->sys.sim_scenario), "demo");
    snap->ngpus = 2;
    snap->gpus = calloc(2, sizeof(*snap->gpus));
    fixture_gpu0(&snap->gpus[0]);
    fixture_gpu1(&snap->gpus[1]);
    fixture_procs(&snap->gpus[0]);
}

#endif /* GS_TEST_SNAP_FIXTURE_H */
