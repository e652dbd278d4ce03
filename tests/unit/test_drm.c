/* SPDX-License-Identifier: MIT */
/*
 * test_drm.c - the DRM backend (src/backend/drm/): the sysfs value, fdinfo
 * and gpu_metrics parsers on real kernel text, then the whole backend through
 * the sampler on trees the DRM simulator's writer lays out in-process
 * (sim/drm/), stepped on its virtual clock: planted engine-time deltas come
 * back exact within one tick, a client behind two fds (or two processes) is
 * counted once, /proc is listed once per tick, and an integrated GPU's
 * missing memory is "not supported". Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/drm/amdgpu_metrics.h"
#include "backend/drm/amdgpu_metrics_abi.h"
#include "backend/drm/clients.h"
#include "backend/drm/fdinfo.h"
#include "backend/drm/sysval.h"
#include "core/sampler.h"
#include "drm/drmsim.h"

/* ---- sysfs values -------------------------------------------------------------------- */

static void test_sysval_numbers(void **state)
{
    (void)state;
    uint64_t u;
    int64_t i;
    uint32_t h;
    assert_int_equal(gs_sysval_u64("45000\n", 6, &u), 0);
    assert_int_equal(u, 45000);
    assert_int_equal(gs_sysval_u64("  12", 4, &u), 0);
    assert_int_equal(gs_sysval_u64("-5\n", 3, &u), -1);
    assert_int_equal(gs_sysval_u64("12 ab\n", 6, &u), -1);
    assert_int_equal(gs_sysval_u64("", 0, &u), -1);
    assert_int_equal(gs_sysval_u64("99999999999999999999999\n", 24, &u), -1);
    assert_int_equal(gs_sysval_i64("-273150\n", 8, &i), 0);
    assert_int_equal(i, -273150);
    assert_int_equal(gs_sysval_hex("0x1002\n", 7, &h), 0);
    assert_int_equal(h, 0x1002);
    assert_int_equal(gs_sysval_hex("0x\n", 3, &h), -1);
}

static void test_sysval_dpm(void **state)
{
    (void)state;
    struct gs_dpm d;
    /* prometheus/procfs testdata (Vega 10): "N: XMhz " with '*' on the current level */
    const char *vega = "0: 852Mhz *\n1: 991Mhz \n2: 1084Mhz \n3: 1138Mhz \n4: 1200Mhz \n5: 1401Mhz \n"
                       "6: 1536Mhz \n7: 1630Mhz \n";
    assert_int_equal(gs_sysval_dpm(vega, strlen(vega), &d), 0);
    assert_int_equal(d.nlevels, 8);
    assert_int_equal(d.min_mhz, 852);
    assert_int_equal(d.max_mhz, 1630);
    assert_int_equal(d.cur_mhz, 852);
    const char *navi = "S: 19Mhz \n0: 500Mhz \n1: 2405Mhz *\n2: 2526Mhz \n";
    assert_int_equal(gs_sysval_dpm(navi, strlen(navi), &d), 0);
    assert_int_equal(d.nlevels, 3);
    assert_int_equal(d.min_mhz, 500);
    assert_int_equal(d.cur_mhz, 2405);
    const char *bad = "0: fastMhz *\n";
    assert_int_equal(gs_sysval_dpm(bad, strlen(bad), &d), -1);
}

static void test_sysval_link_ras(void **state)
{
    (void)state;
    uint32_t gen, pages;
    uint64_t ue = 0, ce = 0;
    assert_int_equal(gs_sysval_link_gen("16.0 GT/s PCIe\n", 15, &gen), 0);
    assert_int_equal(gen, 4);
    assert_int_equal(gs_sysval_link_gen("2.5 GT/s PCIe\n", 14, &gen), 0);
    assert_int_equal(gen, 1);
    assert_int_equal(gs_sysval_link_gen("8 GT/s\n", 7, &gen), 0);
    assert_int_equal(gen, 3);
    assert_int_equal(gs_sysval_link_gen("Unknown\n", 8, &gen), -1);
    const char *ras = "ue: 2\nce: 17\nde: 0\n";
    assert_int_equal(gs_sysval_ras_count(ras, strlen(ras), &ue, &ce), 0);
    assert_int_equal(ue, 2);
    assert_int_equal(ce, 17);
    assert_int_equal(gs_sysval_ras_count("ue: 2\n", 6, &ue, &ce), -1);
    const char *bp = "0x00000010 : 0x00001000 : R\n0x00000011 : 0x00001000 : P\n";
    assert_int_equal(gs_sysval_bad_pages(bp, strlen(bp), &pages), 0);
    assert_int_equal(pages, 2);
    assert_int_equal(gs_sysval_bad_pages("", 0, &pages), 0);
    assert_int_equal(pages, 0);
}

/* ---- fdinfo ------------------------------------------------------------------------- */

/* The example in the kernel's drivers/gpu/drm/xe/xe_drm_client.c documentation. */
static const char xe_doc[] =
    "pos:    0\nflags:  0100002\nmnt_id: 26\nino:    685\ndrm-driver:     xe\ndrm-client-id:  3\n"
    "drm-pdev:       0000:03:00.0\ndrm-total-system:       0\ndrm-shared-system:      0\n"
    "drm-active-system:      0\ndrm-resident-system:    0\ndrm-purgeable-system:   0\n"
    "drm-total-gtt:  192 KiB\ndrm-shared-gtt: 0\ndrm-active-gtt: 0\ndrm-resident-gtt:       192 KiB\n"
    "drm-total-vram0:        23992 KiB\ndrm-shared-vram0:       16 MiB\ndrm-active-vram0:       0\n"
    "drm-resident-vram0:     23992 KiB\ndrm-total-stolen:       0\ndrm-shared-stolen:      0\n"
    "drm-active-stolen:      0\ndrm-resident-stolen:    0\ndrm-cycles-rcs: 28257900\n"
    "drm-total-cycles-rcs:   7655183225\ndrm-cycles-bcs: 0\ndrm-total-cycles-bcs:   7655183225\n"
    "drm-cycles-vcs: 0\ndrm-total-cycles-vcs:   7655183225\ndrm-engine-capacity-vcs:        2\n"
    "drm-cycles-vecs:        0\ndrm-total-cycles-vecs:  7655183225\ndrm-engine-capacity-vecs:       2\n"
    "drm-cycles-ccs: 0\ndrm-total-cycles-ccs:   7655183225\ndrm-engine-capacity-ccs:        4\n";

static void test_fdinfo_xe(void **state)
{
    (void)state;
    struct gs_fdinfo f;
    assert_int_equal(gs_fdinfo_parse(xe_doc, strlen(xe_doc), &f), 0);
    assert_ptr_equal(f.keys, &gs_fdinfo_xe);
    assert_string_equal(f.pdev, "0000:03:00.0");
    assert_true(f.has_client_id);
    assert_int_equal(f.client_id, 3);
    assert_int_equal(f.have_cycles & 0x1f, 0x1f);
    assert_int_equal(f.cycles[0], 28257900);
    assert_int_equal(f.total_cycles[0], 7655183225ull);
    assert_int_equal(f.capacity[2], 2);
    assert_int_equal(f.capacity[4], 4);
    assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_DEVICE], 23992ull * 1024);
    assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_SYSTEM], 192ull * 1024);
}

/* amdgpu as amdgpu_fdinfo.c prints it: the new keys and the legacy aliases. */
static void test_fdinfo_amdgpu(void **state)
{
    (void)state;
    const char *t = "pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t17\ndrm-pdev:\t0000:03:00.0\n"
                    "pasid:\t32785\ndrm-total-vram:\t2 MiB\ndrm-resident-vram:\t2 MiB\ndrm-memory-vram:\t1024 KiB\n"
                    "drm-memory-gtt: \t512 KiB\ndrm-engine-gfx:\t1500000 ns\ndrm-engine-dec:\t100 ns\n"
                    "drm-engine-dec:\t50 ns\ndrm-engine-unknown:\t9 ns\n";
    struct gs_fdinfo f;
    assert_int_equal(gs_fdinfo_parse(t, strlen(t), &f), 0);
    assert_ptr_equal(f.keys, &gs_fdinfo_amdgpu);
    assert_int_equal(f.have_ns, (1u << 0) | (1u << 3));
    assert_int_equal(f.engine_ns[0], 1500000);
    assert_int_equal(f.engine_ns[3], 150); /* UVD and VCN both print "dec" */
    /* drm-resident wins over its legacy alias drm-memory */
    assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_DEVICE], 2ull << 20);
    assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_SYSTEM], 512ull * 1024);
}

static void test_fdinfo_not_drm(void **state)
{
    (void)state;
    struct gs_fdinfo f;
    const char *plain = "pos:\t0\nflags:\t02\nmnt_id:\t24\nino:\t12\n";
    const char *other = "drm-driver:\tnvidia-drm\ndrm-client-id:\t4\n";
    assert_int_equal(gs_fdinfo_parse(plain, strlen(plain), &f), -1);
    assert_int_equal(gs_fdinfo_parse(other, strlen(other), &f), -1);
    const char *i915 = "drm-driver:\ti915\ndrm-engine-video:\t52567609040 ns\ndrm-engine-capacity-video:\t2\n"
                       "drm-total-system0:\t232411136\ndrm-resident-system0:\t122638336\n";
    assert_int_equal(gs_fdinfo_parse(i915, strlen(i915), &f), 0);
    assert_false(f.has_client_id);
    assert_int_equal(f.engine_ns[2], 52567609040ull);
    assert_int_equal(f.capacity[2], 2);
    assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_SYSTEM], 122638336);
}

/* ---- captures from real machines, published by others ----------------------------------- */

/* Umio-Yasuno/amdgpu_top#87: `cat /proc/2217/fdinfo/99` of a process on an amdgpu card (a
 * kernel with the legacy drm-memory-* keys only), as posted (blanks for the tabs) and as the
 * kernel prints it ("key:\tvalue"). */
static void test_capture_fdinfo_amdgpu(void **state)
{
    (void)state;
    static const char posted[] = "pos:    0\nflags:  02104002\nmnt_id: 24\nino:    614\npasid:  32784\n"
                                 "drm-driver:     amdgpu\ndrm-pdev:       0000:08:00.0\ndrm-client-id:  217\n"
                                 "drm-memory-vram:        2068 KiB\ndrm-memory-gtt:         8192 KiB\n"
                                 "drm-memory-cpu:         0 KiB\ndrm-engine-gfx: 107322799 ns\n";
    static const char tabs[] = "pos:\t0\nflags:\t02104002\nmnt_id:\t24\nino:\t614\npasid:\t32784\n"
                               "drm-driver:\tamdgpu\ndrm-pdev:\t0000:08:00.0\ndrm-client-id:\t217\n"
                               "drm-memory-vram:\t2068 KiB\ndrm-memory-gtt:\t8192 KiB\n"
                               "drm-memory-cpu:\t0 KiB\ndrm-engine-gfx:\t107322799 ns\n";
    const char *texts[] = { posted, tabs };
    for (int i = 0; i < 2; i++) {
        struct gs_fdinfo f;
        assert_int_equal(gs_fdinfo_parse(texts[i], strlen(texts[i]), &f), 0);
        assert_ptr_equal(f.keys, &gs_fdinfo_amdgpu);
        assert_string_equal(f.pdev, "0000:08:00.0");
        assert_true(f.has_client_id);
        assert_int_equal(f.client_id, 217);
        assert_int_equal(f.have_ns, 1u << 0);
        assert_int_equal(f.engine_ns[0], 107322799);
        assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_DEVICE], 2068ull * 1024);
        assert_int_equal(f.mem_bytes[GS_FDINFO_MEM_SYSTEM], 8192ull * 1024);
    }
}

/* pp_dpm_mclk as posted: an RX 7900 XTX idling at its lowest level (marazmista/radeon-profile#294)
 * and a Picasso APU (sibradzic/amdgpu-clocks#21, amdgpu's trailing blank on unstarred lines). */
static void test_capture_dpm(void **state)
{
    (void)state;
    struct gs_dpm d;
    const char *xtx = "0: 96Mhz *\n1: 456Mhz\n2: 772Mhz\n3: 1249Mhz\n";
    assert_int_equal(gs_sysval_dpm(xtx, strlen(xtx), &d), 0);
    assert_int_equal(d.nlevels, 4);
    assert_int_equal(d.min_mhz, 96);
    assert_int_equal(d.max_mhz, 1249);
    assert_true(d.has_cur);
    assert_int_equal(d.cur_mhz, 96);
    const char *apu = "0: 400Mhz \n1: 933Mhz *\n2: 1067Mhz \n3: 1200Mhz \n";
    assert_int_equal(gs_sysval_dpm(apu, strlen(apu), &d), 0);
    assert_int_equal(d.nlevels, 4);
    assert_int_equal(d.min_mhz, 400);
    assert_int_equal(d.max_mhz, 1200);
    assert_int_equal(d.cur_mhz, 933);
}

/* ---- gpu_metrics ---------------------------------------------------------------------- */

static void test_metrics_v1_3(void **state)
{
    (void)state;
    struct amdm_v1_3 m;
    struct gs_amd_metrics o;
    memset(&m, 0xff, sizeof(m));
    m.h = (struct amdm_header){ sizeof(m), 1, 3 };
    m.temperature_edge = 61;
    m.temperature_hotspot = 84;
    m.average_gfx_activity = 97;
    m.average_socket_power = 301;
    m.current_gfxclk = 2405;
    m.voltage_gfx = 1010;
    m.indep_throttle_status = 1ull << 0 | 1ull << 36; /* PPT0, TEMP_HOTSPOT */
    assert_int_equal(gs_amd_metrics_decode(&m, sizeof(m), &o), 0);
    assert_int_equal(o.temp_edge_c, 61);
    assert_int_equal(o.temp_hotspot_c, 84);
    assert_false(o.valid & GS_AMDM_TEMP_MEM); /* 0xFFFF: not filled */
    assert_int_equal(o.socket_power_mw, 301000);
    assert_int_equal(o.voltage_gfx_mv, 1010);
    assert_true(o.valid & GS_AMDM_THROTTLE);
    assert_int_equal(gs_amd_throttle_reasons(o.indep_throttle), GS_THROTTLE_SW_POWER_CAP | GS_THROTTLE_SW_THERMAL);
    /* 1.1 has no voltage nor throttle: a shorter table decodes without them */
    m.h = (struct amdm_header){ (uint16_t)offsetof(struct amdm_v1_3, firmware_timestamp), 1, 1 };
    assert_int_equal(gs_amd_metrics_decode(&m, sizeof(m), &o), 0);
    assert_false(o.valid & (GS_AMDM_THROTTLE | GS_AMDM_VOLTAGE_GFX));
    /* a table claiming more bytes than were read, or an unknown version */
    m.h = (struct amdm_header){ sizeof(m), 1, 3 };
    assert_int_equal(gs_amd_metrics_decode(&m, 20, &o), -1);
    m.h = (struct amdm_header){ sizeof(m), 9, 1 };
    assert_int_equal(gs_amd_metrics_decode(&m, sizeof(m), &o), -1);
    /* versions that format * 16 + content would alias to 1.2 and 2.0 (fuzz_gpu_metrics) */
    m.h = (struct amdm_header){ sizeof(m), 0, 0x12 };
    assert_int_equal(gs_amd_metrics_decode(&m, sizeof(m), &o), -1);
    m.h = (struct amdm_header){ sizeof(m), 1, 16 };
    assert_int_equal(gs_amd_metrics_decode(&m, sizeof(m), &o), -1);
}

static void test_metrics_apu(void **state)
{
    (void)state;
    struct amdm_v2_4 m;
    struct gs_amd_metrics o;
    memset(&m, 0xff, sizeof(m));
    m.h = (struct amdm_header){ sizeof(m), 2, 4 };
    m.temperature_gfx = 5230;       /* centi-degrees */
    m.average_gfx_activity = 4500;  /* 2.4: centi-percent */
    m.average_socket_power = 15040; /* mW */
    assert_int_equal(gs_amd_metrics_decode(&m, sizeof(m), &o), 0);
    assert_int_equal(o.temp_edge_c, 52);
    assert_int_equal(o.gfx_activity_pct, 45);
    assert_int_equal(o.socket_power_mw, 15040);
}

/* ---- the backend on simulated trees ----------------------------------------------------- */

struct tree {
    char root[64], proc[80];
    struct ds_scn s;
    struct gs_sampler *smp;
    struct gs_snapshot snap;
};

static struct tree *tree_new(const char *scn)
{
    struct tree *t = calloc(1, sizeof(*t));
    char err[256];
    assert_non_null(t);
    snprintf(t->root, sizeof(t->root), "/tmp/gs-drm-XXXXXX");
    assert_non_null(mkdtemp(t->root));
    snprintf(t->proc, sizeof(t->proc), "%s/proc", t->root);
    if (ds_parse_buf(&t->s, scn, strlen(scn), "test.drm", err, sizeof(err)) < 0)
        fail_msg("%s", err);
    setenv("GPUSCOPE_SYS_ROOT", t->root, 1);
    setenv("GPUSCOPE_BACKENDS", "drm", 1);
    gs_snapshot_init(&t->snap);
    return t;
}

static void tree_open(struct tree *t, double at)
{
    struct gs_sampler_opts o = GS_SAMPLER_OPTS_INIT;
    struct gs_err err;
    assert_int_equal(ds_write(&t->s, t->root, at), 0);
    o.proc_root = t->proc;
    if (gs_sampler_open(&t->smp, &o, &err) < 0)
        fail_msg("open: %s", err.msg);
}

static const struct gs_gpu *tree_snap(struct tree *t, double at)
{
    struct gs_err err;
    assert_int_equal(ds_write(&t->s, t->root, at), 0);
    int rc = gs_sampler_snapshot(t->smp, &t->snap, &err);
    if (rc < 0 && rc != -GS_E_GPU_LOST)
        fail_msg("snapshot: %s", err.msg);
    return &t->snap.gpus[0];
}

static void tree_free(struct tree *t)
{
    char cmd[128];
    gs_snapshot_release(&t->snap);
    gs_sampler_close(t->smp);
    ds_free(&t->s);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
    assert_int_equal(system(cmd), 0);
    unsetenv("GPUSCOPE_SYS_ROOT");
    free(t);
}

static const struct gs_proc *proc_of(const struct gs_gpu *g, uint32_t pid)
{
    for (uint32_t i = 0; i < g->nprocs; i++)
        if (g->procs[i].pid == pid)
            return &g->procs[i];
    return NULL;
}

#define AMD_CARD                                                                                       \
    "card 0 driver=amdgpu pci=0000:03:00.0 vendor=0x1002 device=0x744c revision=0xc8 subsystem=0x1da2:0x471e " \
    "vram_total=24GiB vis_vram_total=256MiB gtt_total=16GiB sclk_levels=500,2526 mclk_levels=96,1249 "    \
    "busy=77 mem_busy=33 vram_used=6GiB vis_vram_used=100MiB gtt_used=1GiB sclk=2405 mclk=1249 "           \
    "temp_edge=61 temp_junction=84 temp_mem=70 edge_crit=100 edge_emerg=105 junction_crit=110 "           \
    "junction_emerg=115 power=250W power_cap=303W fan_rpm=1500 pwm=128 vddgfx=1010 pcie_gen=4 "           \
    "pcie_width=16 pcie_max_gen=4 pcie_max_width=16 metrics=1.3 throttle=1 ras=umc,gfx ras_ue=1 "         \
    "ras_ce=5 bad_pages=2 product_name=\"AMD Radeon RX 7900 XTX\"\n"

/* Every amdgpu reading lands where it belongs, in the model's units. */
static void test_amdgpu_readings(void **state)
{
    (void)state;
    struct tree *t = tree_new(AMD_CARD);
    tree_open(t, 10);
    const struct gs_gpu *g = tree_snap(t, 10);
    const struct gs_sample *s = &g->s;
    assert_string_equal(g->st.name, "AMD Radeon RX 7900 XTX");
    assert_string_equal(g->st.vendor, "AMD");
    assert_string_equal(g->st.driver, "amdgpu");
    assert_string_equal(g->st.pci_bus_id, "00000000:03:00.0");
    assert_int_equal(s->gpu_util_pct, 77);
    assert_int_equal(s->mem_util_pct, 33);
    assert_int_equal(s->mem_total_bytes, 24ull << 30);
    assert_int_equal(s->mem_used_bytes, 6ull << 30);
    assert_true(gs_sample_has(s, GS_F_MEM_GTT));
    assert_int_equal(s->gtt_used_bytes, 1ull << 30);
    assert_int_equal(s->clock_graphics_mhz, 2405);
    assert_int_equal(s->clock_sm_mhz, 2405);
    assert_int_equal(s->temp_gpu_c, 61);
    assert_int_equal(s->temp_junction_c, 84);
    assert_int_equal(g->st.temp_slowdown_c, 100);
    assert_int_equal(g->st.temp_junction_crit_c, 110);
    assert_int_equal(s->power_mw, 250000);
    assert_int_equal(s->power_limit_mw, 303000);
    assert_int_equal(s->fan_speed_pct[0], 50);
    assert_int_equal(s->fan_rpm, 1500);
    assert_int_equal(s->voltage_gfx_mv, 1010);
    assert_int_equal(s->pcie_gen, 4);
    assert_true(gs_sample_has(s, GS_F_THROTTLE));
    assert_int_equal(s->throttle_reasons, GS_THROTTLE_SW_POWER_CAP);
    assert_int_equal(s->ras_ue_count, 1);
    assert_int_equal(s->ras_ce_count, 5);
    assert_int_equal(s->ras_bad_pages, 2);
    assert_int_equal(s->status[GS_F_ENC_UTIL], GS_ST_NOT_SUPPORTED);
    tree_free(t);
}

static void put_file(const struct tree *t, const char *rel, const void *buf, size_t n)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:03:00.0/%s", t->root, rel);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, n, f), n);
    fclose(f);
}

/* The snapshot of the tree as written at `at`, with the files changed after. */
static const struct gs_gpu *snap_as_is(struct tree *t)
{
    struct gs_err err;
    assert_int_equal(gs_sampler_snapshot(t->smp, &t->snap, &err), 0);
    return &t->snap.gpus[0];
}

/* Where gpu_metrics has a reading, it is taken from there (one read), not from
 * its own file; where the table says 0xFFFF (no value), the file's is used. */
static void test_amdgpu_metrics_first(void **state)
{
    (void)state;
    struct tree *t = tree_new(AMD_CARD);
    struct amdm_v1_3 m;
    char path[256];
    tree_open(t, 10);
    tree_snap(t, 10);
    /* the files now say otherwise: the table wins */
    put_file(t, "hwmon/hwmon2/temp1_input", "99000\n", 6);
    put_file(t, "gpu_busy_percent", "12\n", 3);
    put_file(t, "hwmon/hwmon2/fan1_input", "777\n", 4);
    const struct gs_gpu *g = snap_as_is(t);
    assert_int_equal(g->s.temp_gpu_c, 61);
    assert_int_equal(g->s.gpu_util_pct, 77);
    assert_int_equal(g->s.fan_rpm, 1500);
    /* the table has no edge temperature and no activity: the files' values */
    snprintf(path, sizeof(path), "%s/sys/devices/pci0000:00/0000:03:00.0/gpu_metrics", t->root);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(&m, 1, sizeof(m), f);
    fclose(f);
    assert_true(n >= offsetof(struct amdm_v1_3, temperature_hbm));
    m.temperature_edge = 0xffff;
    m.average_gfx_activity = 0xffff;
    put_file(t, "gpu_metrics", &m, n);
    g = snap_as_is(t);
    assert_int_equal(g->s.temp_gpu_c, 99);
    assert_int_equal(g->s.gpu_util_pct, 12);
    assert_int_equal(g->s.temp_junction_c, 84); /* still the table's */
    assert_int_equal(g->s.fan_rpm, 1500);
    /* no table at all: every reading from its file */
    put_file(t, "gpu_metrics", "", 0);
    g = snap_as_is(t);
    assert_int_equal(g->s.fan_rpm, 777);
    assert_int_equal(g->s.temp_junction_c, 84);
    tree_free(t);
}

/* Planted engine time comes back exact over each tick: constant shares, and
 * a step in the middle of an interval (half at 20 %, half at 80 % = 50 %).
 * amdgpu counts ns, i915 ns with a capacity of 2 for video, xe cycles. */
static void test_util_exact(void **state)
{
    (void)state;
    struct tree *t = tree_new(
        "card 0 driver=amdgpu pci=0000:03:00.0 vendor=0x1002 device=0x744c busy=50\n"
        "card 1 driver=i915 pci=0000:00:02.0 vendor=0x8086 device=0x46a6 act_freq=900 rc6=25\n"
        "card 2 driver=xe pci=0000:04:00.0 vendor=0x8086 device=0xe20b act_freq=2000 lmem_total=12GiB\n"
        "proc 100 comm=a\nproc 200 comm=b\nproc 300 comm=c\n"
        "client 100 card=0 fd=5 id=1 gfx=step(20,80,11.5) compute=40 dev_mem=1GiB\n"
        "client 200 card=1 fd=6 id=2 render=30 video=62 sys_mem=64MiB\n"
        "client 300 card=2 fd=7 id=3 compute=25 video=50 dev_mem=512MiB\n");
    tree_open(t, 10);
    tree_snap(t, 10);
    const struct gs_gpu *g = tree_snap(t, 11);
    assert_int_equal(t->snap.ngpus, 3);
    /* amdgpu: [10, 11] all at 20 % gfx, 40 % compute */
    const struct gs_proc *p = proc_of(&t->snap.gpus[1], 100); /* sorted by PCI address: 00:02.0, 03:00.0, 04:00.0 */
    assert_non_null(p);
    assert_true(gs_proc_has(p, GS_P_ENGINE_UTIL));
    assert_int_equal(p->engine_util_pct[0], 20);
    assert_int_equal(p->engine_util_pct[1], 40);
    assert_int_equal(p->sm_util_pct, 40);
    assert_int_equal(t->snap.gpus[1].s.engine_util_pct[0], 20);
    /* i915: render 30, video 62 over its capacity of 2; the GPU's busy is the render class */
    p = proc_of(&t->snap.gpus[0], 200);
    assert_non_null(p);
    assert_int_equal(p->engine_util_pct[0], 30);
    assert_int_equal(p->engine_util_pct[2], 62);
    assert_int_equal(t->snap.gpus[0].s.gpu_util_pct, 30);
    assert_int_equal(t->snap.gpus[0].s.rc6_pct, 25);
    /* xe: cycles over total cycles */
    p = proc_of(&t->snap.gpus[2], 300);
    assert_non_null(p);
    assert_int_equal(p->engine_util_pct[4], 25);
    assert_int_equal(p->engine_util_pct[2], 50);
    assert_int_equal(t->snap.gpus[2].s.gpu_util_pct, 25);
    /* [11, 12]: the gfx step at 11.5 */
    g = tree_snap(t, 12);
    p = proc_of(&t->snap.gpus[1], 100);
    assert_int_equal(p->engine_util_pct[0], 50);
    /* [12, 14]: 80 % */
    g = tree_snap(t, 14);
    p = proc_of(&t->snap.gpus[1], 100);
    assert_int_equal(p->engine_util_pct[0], 80);
    (void)g;
    tree_free(t);
}

static void clients_line(struct tree *t, char *line, size_t cap);

/* One client behind two fds of one process, and one shared by a parent and
 * its child (fork): counted once, by the first process that shows it. */
static void test_dedup(void **state)
{
    (void)state;
    struct tree *t = tree_new(
        "card 0 driver=amdgpu pci=0000:03:00.0 vendor=0x1002 device=0x744c busy=50\n"
        "proc 100 comm=parent\nproc 101 comm=child ppid=100\nproc 102 comm=other\n"
        "client 100 card=0 fd=5 id=7 gfx=40 dev_mem=1GiB\n"
        "client 100 card=0 fd=6 id=7 dup\n"
        "client 101 card=0 fd=5 id=7 dup\n"
        "client 102 card=0 fd=9 id=8 gfx=10 dev_mem=256MiB\n");
    tree_open(t, 10);
    tree_snap(t, 10);
    const struct gs_gpu *g = tree_snap(t, 11);
    assert_int_equal(g->nprocs, 2);
    const struct gs_proc *p = proc_of(g, 100);
    assert_non_null(p);
    assert_int_equal(p->drm_clients, 1);
    assert_int_equal(p->gpu_mem_bytes, 1ull << 30);
    assert_int_equal(p->engine_util_pct[0], 40);
    assert_null(proc_of(g, 101));
    /* the GPU's busy counts the shared client once: 40 + 10 */
    assert_int_equal(g->s.engine_util_pct[0], 50);
    /* the second fd of process 100 is read at the first scan only (one open
     * file: the same text); the child's fd (another process) every scan */
    char line[512];
    g = tree_snap(t, 12);
    assert_int_equal(g->nprocs, 2);
    assert_int_equal(proc_of(g, 100)->engine_util_pct[0], 40);
    assert_int_equal(g->s.engine_util_pct[0], 50);
    clients_line(t, line, sizeof(line));
    assert_non_null(strstr(line, ": 3 scans, "));
    assert_non_null(strstr(line, ", 10 fdinfo reads")); /* 3 x 3 + 1 */
    tree_free(t);
}

static void line_to_file(void *arg, const char *text)
{
    fprintf(arg, "%s\n", text);
}

/* /proc is listed once per tick; fd directories are read when a process is
 * first seen, not again at the next tick. */
static void test_scan_cost(void **state)
{
    (void)state;
    struct tree *t = tree_new(
        "card 0 driver=amdgpu pci=0000:03:00.0 vendor=0x1002 device=0x744c busy=50\n"
        "proc 100 comm=gpu\nproc 150 comm=idle1\nproc 151 comm=idle2\nproc 152 comm=idle3\n"
        "client 100 card=0 fd=5 id=1 gfx=40\n");
    char line[512] = "";
    tree_open(t, 10);
    tree_snap(t, 10);
    tree_snap(t, 11);
    tree_snap(t, 12);
    /* the counters, through query --debug's lines */
    FILE *f = tmpfile();
    gs_sampler_describe(t->smp, line_to_file, f);
    rewind(f);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    const char *c = strstr(buf, "drm clients -> ");
    assert_non_null(c);
    snprintf(line, sizeof(line), "%.*s", (int)strcspn(c, "\n"), c);
    /* 3 snapshots, 3 scans (the first snapshot's first reading of the rates is
     * its scan: the virtual clock did not move while it waited); the 4 fd
     * directories are read once, the one client's fdinfo once per scan */
    assert_non_null(strstr(line, ": 3 scans, 4 fd directories read, 3 fdinfo reads"));
    tree_free(t);
}

/* The counters line of query --debug ("drm clients -> ..."). */
static void clients_line(struct tree *t, char *line, size_t cap)
{
    FILE *f = tmpfile();
    char buf[4096];
    assert_non_null(f);
    gs_sampler_describe(t->smp, line_to_file, f);
    rewind(f);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    const char *c = strstr(buf, "drm clients -> ");
    assert_non_null(c);
    snprintf(line, cap, "%.*s", (int)strcspn(c, "\n"), c);
}

static unsigned long long listings(struct tree *t)
{
    char line[512];
    clients_line(t, line, sizeof(line));
    const char *p = strstr(line, " /proc listings");
    assert_non_null(p);
    while (p > line && p[-1] >= '0' && p[-1] <= '9')
        p--;
    return strtoull(p, NULL, 10);
}

/* /proc is listed only when the kernel's last PID (loadavg) moved, once more at
 * the next tick, and at least every 5 s; nothing is found later for it: a new
 * process is in the first snapshot at or after its start (its engine use from
 * the next one, as for any first reading), one that exits is gone from the
 * first snapshot after its exit. */
static void test_listing_cadence(void **state)
{
    (void)state;
    struct tree *t = tree_new(
        "card 0 driver=amdgpu pci=0000:03:00.0 vendor=0x1002 device=0x744c busy=50\n"
        "proc 100 comm=early\nproc 150 comm=late start=12\nproc 160 comm=leaves exit=13\n"
        "proc 170 comm=idle\n"
        "client 100 card=0 fd=5 id=1 gfx=40\n"
        "client 150 card=0 fd=5 id=2 gfx=30 dev_mem=1GiB\n"
        "client 160 card=0 fd=5 id=3 gfx=10\n");
    tree_open(t, 10);
    tree_snap(t, 10);
    tree_snap(t, 10.25);
    unsigned long long n0 = listings(t);
    assert_int_equal(n0, 2); /* the first listing, and the one after it */
    const struct gs_gpu *g = NULL;
    for (double at = 10.5; at < 12; at += 0.25)
        g = tree_snap(t, at);
    assert_int_equal(listings(t), n0); /* no new PID: no listing */
    assert_int_equal(g->nprocs, 2);
    assert_null(proc_of(g, 150));
    g = tree_snap(t, 12); /* 150 started at 12 */
    assert_int_equal(listings(t), n0 + 1);
    const struct gs_proc *p = proc_of(g, 150);
    assert_non_null(p);
    assert_int_equal(p->gpu_mem_bytes, 1ull << 30);
    g = tree_snap(t, 12.25);
    assert_int_equal(listings(t), n0 + 2);
    p = proc_of(g, 150);
    assert_non_null(p);
    assert_true(gs_proc_has(p, GS_P_ENGINE_UTIL));
    assert_int_equal(p->engine_util_pct[0], 30);
    assert_non_null(proc_of(g, 160));
    g = tree_snap(t, 13); /* 160 exited at 13 */
    assert_null(proc_of(g, 160));
    assert_non_null(proc_of(g, 100));
    assert_non_null(proc_of(g, 150));
    assert_int_equal(listings(t), n0 + 2);
    for (double at = 13.25; at < 17.25; at += 0.25)
        tree_snap(t, at);
    assert_int_equal(listings(t), n0 + 2);
    tree_snap(t, 17.25); /* 5 s after the last listing */
    assert_int_equal(listings(t), n0 + 3);
    tree_free(t);
}

/* An integrated GPU has no memory of its own and no hwmon: not supported. */
static void test_igpu_lacks(void **state)
{
    (void)state;
    struct tree *t = tree_new("card 0 driver=i915 pci=0000:00:02.0 vendor=0x8086 device=0x46a6 act_freq=900 rp0=1400\n");
    tree_open(t, 10);
    const struct gs_gpu *g = tree_snap(t, 10);
    assert_string_equal(g->st.name, "Intel Iris Xe Graphics (Alder Lake)");
    assert_true(g->st.integrated);
    assert_int_equal(g->s.status[GS_F_MEM_TOTAL], GS_ST_NOT_SUPPORTED);
    assert_int_equal(g->s.status[GS_F_MEM_USED], GS_ST_NOT_SUPPORTED);
    assert_int_equal(g->s.status[GS_F_TEMP_GPU], GS_ST_NOT_SUPPORTED);
    assert_int_equal(g->s.status[GS_F_POWER], GS_ST_NOT_SUPPORTED);
    assert_int_equal(g->s.status[GS_F_PCIE_GEN], GS_ST_NOT_SUPPORTED);
    assert_int_equal(g->s.clock_graphics_mhz, 900);
    assert_int_equal(g->st.clock_max_graphics_mhz, 1400);
    tree_free(t);
}

/* A card whose sysfs directory goes away has left the bus; a suspended one is not read. */
static void test_lost_and_asleep(void **state)
{
    (void)state;
    struct tree *t = tree_new(
        "card 0 driver=amdgpu pci=0000:03:00.0 vendor=0x1002 device=0x744c busy=50 lost_at=20\n"
        "card 1 driver=amdgpu pci=0000:05:00.0 vendor=0x1002 device=0x73bf busy=10 suspended=step(0,1,15)\n");
    tree_open(t, 10);
    const struct gs_gpu *g = tree_snap(t, 10);
    assert_int_equal(g->state, GS_GPU_OK);
    assert_int_equal(t->snap.gpus[1].s.gpu_util_pct, 10);
    tree_snap(t, 16);
    assert_int_equal(t->snap.gpus[1].state, GS_GPU_OK);
    assert_int_equal(t->snap.gpus[1].s.status[GS_F_GPU_UTIL], GS_ST_NOT_AVAILABLE);
    assert_non_null(strstr(t->snap.gpus[1].last_error, "asleep"));
    g = tree_snap(t, 21);
    assert_int_equal(g->state, GS_GPU_LOST);
    assert_int_equal(g->s.status[GS_F_GPU_UTIL], GS_ST_GPU_LOST);
    assert_int_equal(t->snap.gpus[1].state, GS_GPU_OK);
    tree_free(t);
}

/* drmsim's parser refuses a client on a card that is not defined above, or out
 * of range (the fuzzer found card=100 accepted), with the line in its message. */
static void test_drmsim_client_card_checked(void **state)
{
    static const char *const bad[] = {
        "card 0 driver=amdgpu\nclient 100 card=100 fd=3\n",
        "card 0 driver=amdgpu\nclient 100 card=1 fd=3\n",
        "card 0 driver=amdgpu\nclient 100 card=1e30 fd=3\n",
        "card 0 driver=amdgpu\nclient 100 card=0 fd=1e30\n",
    };
    static struct ds_scn s;
    char err[256];
    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&s, 0, sizeof(s));
        err[0] = '\0';
        assert_int_equal(ds_parse_buf(&s, bad[i], strlen(bad[i]), "t.drm", err, sizeof(err)), -1);
        assert_non_null(strstr(err, "t.drm:2"));
        assert_non_null(strstr(err, "card=") ? err : strstr(err, "fd="));
        ds_free(&s);
    }
    memset(&s, 0, sizeof(s));
    const char *good = "card 0 driver=amdgpu\nclient 100 card=0 fd=3\n";
    assert_int_equal(ds_parse_buf(&s, good, strlen(good), "t.drm", err, sizeof(err)), 0);
    assert_int_equal(s.nclients, 1);
    ds_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sysval_numbers),
        cmocka_unit_test(test_sysval_dpm),
        cmocka_unit_test(test_sysval_link_ras),
        cmocka_unit_test(test_fdinfo_xe),
        cmocka_unit_test(test_fdinfo_amdgpu),
        cmocka_unit_test(test_fdinfo_not_drm),
        cmocka_unit_test(test_capture_fdinfo_amdgpu),
        cmocka_unit_test(test_capture_dpm),
        cmocka_unit_test(test_metrics_v1_3),
        cmocka_unit_test(test_metrics_apu),
        cmocka_unit_test(test_amdgpu_readings),
        cmocka_unit_test(test_amdgpu_metrics_first),
        cmocka_unit_test(test_util_exact),
        cmocka_unit_test(test_dedup),
        cmocka_unit_test(test_scan_cost),
        cmocka_unit_test(test_listing_cadence),
        cmocka_unit_test(test_igpu_lacks),
        cmocka_unit_test(test_lost_and_asleep),
        cmocka_unit_test(test_drmsim_client_card_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
