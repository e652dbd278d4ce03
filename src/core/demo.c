/* SPDX-License-Identifier: MIT */
/* demo.c - point NVML at the bundled simulator for --demo, and DRM at the DRM simulator's tree (see demo.h). */
#include "core/demo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/paths.h"

#ifndef GS_PREFIX
#define GS_PREFIX "/usr/local"
#endif

#define DRMSIM_READY_MS 10000

static pid_t drmsim_pid = -1;

static void drmsim_stop(void)
{
    if (drmsim_pid <= 0)
        return;
    kill(drmsim_pid, SIGTERM); /* it removes its tree on the way out (--cleanup) */
    waitpid(drmsim_pid, NULL, 0);
    drmsim_pid = -1;
}

/* Start drmsim on scn in a fresh private directory; wait for its "ready". */
static int drmsim_start(const char *drmsim, const char *scn, const char *root, struct gs_err *err)
{
    int pipefd[2];
    char line[16] = "";

    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return gs_err_set(err, GS_E_INTERNAL, "--demo: pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return gs_err_set(err, GS_E_INTERNAL, "--demo: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(pipefd[1], STDOUT_FILENO);
        execl(drmsim, "drmsim", "--root", root, "--scenario", scn, "--die-with-parent", "--cleanup", (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    drmsim_pid = pid;
    atexit(drmsim_stop);
    struct pollfd p = { pipefd[0], POLLIN, 0 };
    ssize_t n = poll(&p, 1, DRMSIM_READY_MS) == 1 ? read(pipefd[0], line, sizeof(line) - 1) : -1;
    close(pipefd[0]);
    if (n <= 0 || strncmp(line, "ready", 5) != 0) {
        drmsim_stop();
        gs_err_set(err, GS_E_INTERNAL, "--demo: the DRM simulator (%s) did not start", drmsim);
        gs_err_hint(err, "run '%s --root /tmp/x --scenario %s --at 1' to see why", drmsim, scn);
        return -GS_E_INTERNAL;
    }
    return 0;
}

/* The twin's "nvml_pids A,B" line: the PIDs the NVML scenario's pid=env
 * processes take, whose /proc entries the DRM tree holds. */
static void demo_pids(const char *scn)
{
    char line[256];
    FILE *f = fopen(scn, "re");

    if (!f)
        return;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "nvml_pids ", 10)) {
            line[strcspn(line, "\r\n")] = '\0';
            setenv("GPUSCOPE_SIM_PIDS", line + 10, 1);
            break;
        }
    fclose(f);
}

/* AMD and Intel GPUs for a scenario with a DRM twin (<dir>/<name>.drm). */
static int demo_drm(const char *dir, const char *name, struct gs_err *err)
{
    char scn[PATH_MAX], drmsim[PATH_MAX], root[PATH_MAX], proc[PATH_MAX + 8];
    const char *tmp = getenv("XDG_RUNTIME_DIR");

    if (!dir || snprintf(scn, sizeof(scn), "%s/%s.drm", dir, name) >= (int)sizeof(scn) || access(scn, R_OK) != 0)
        return 0;
    if (gs_path_shipped("sim/drmsim", "lib/gpuscope/sim/drmsim", drmsim, sizeof(drmsim)) < 0) {
        gs_err_set(err, GS_E_NO_LIBRARY, "--demo=%s: the bundled DRM simulator (drmsim) was not found", name);
        gs_err_hint(err, "run 'make' in the source tree, or 'make install'");
        return -GS_E_NO_LIBRARY;
    }
    snprintf(root, sizeof(root), "%s/gpuscope-demo-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return gs_err_set(err, GS_E_IO, "--demo: cannot make a directory for the DRM tree: %s", strerror(errno));
    int rc = drmsim_start(drmsim, scn, root, err);
    if (rc < 0) {
        rmdir(root);
        return rc;
    }
    snprintf(proc, sizeof(proc), "%s/proc", root);
    setenv("GPUSCOPE_SYS_ROOT", root, 1);
    setenv("GPUSCOPE_PROC_ROOT", proc, 1);
    setenv("GPUSCOPE_BACKENDS", "nvml,drm", 1);
    /* the NVIDIA card's processes live in that /proc too: none spawned */
    setenv("GPUSCOPE_SIM_SPAWN", "0", 1);
    demo_pids(scn);
    return 0;
}

int gs_demo_setup(const char *scenario, struct gs_err *err)
{
    char lib[PATH_MAX];
    char scen[PATH_MAX];

    if (gs_path_shipped("sim/current/libnvidia-ml.so.1", "lib/gpuscope/sim/current/libnvidia-ml.so.1", lib,
                        sizeof(lib)) < 0) {
        gs_err_set(err, GS_E_NO_LIBRARY, "--demo: the bundled NVML simulator was not found");
        gs_err_hint(err, "run 'make' in the source tree, or 'make install' to put it in %s/lib/gpuscope/sim",
                    GS_PREFIX);
        return -GS_E_NO_LIBRARY;
    }
    setenv("GPUSCOPE_NVML_LIB", lib, 1);
    /* burn: the CUDA simulator, beside NVML's (it reads the same scenario) */
    if (!getenv("GPUSCOPE_CUDA_LIB") &&
        gs_path_shipped("sim/cuda/libcuda.so.1", "lib/gpuscope/sim/cuda/libcuda.so.1", lib, sizeof(lib)) == 0)
        setenv("GPUSCOPE_CUDA_LIB", lib, 1);
    if (scenario && *scenario)
        setenv("GPUSCOPE_SIM_SCENARIO", scenario, 1);
    else if (!getenv("GPUSCOPE_SIM_SCENARIO"))
        setenv("GPUSCOPE_SIM_SCENARIO", "demo", 1);
    if (!getenv("GPUSCOPE_SIM_SCENARIO_DIR") &&
        gs_path_shipped("../sim/scenarios/demo.scn", "share/gpuscope/scenarios/demo.scn", scen,
                        sizeof(scen)) == 0) {
        *strrchr(scen, '/') = '\0';
        setenv("GPUSCOPE_SIM_SCENARIO_DIR", scen, 1);
    }
    int rc = demo_drm(getenv("GPUSCOPE_SIM_SCENARIO_DIR"), getenv("GPUSCOPE_SIM_SCENARIO"), err);
    if (rc < 0)
        return rc;
    /* live processes (children of this one, named as the scenario's): user,
     * CPU %, host memory, the tree, the details and `k` all work on them */
    if (!getenv("GPUSCOPE_SIM_SPAWN"))
        setenv("GPUSCOPE_SIM_SPAWN", "1", 1);
    /* the simulated GPUs only: a real AMD or Intel GPU of this machine is not part of the demo */
    if (!getenv("GPUSCOPE_BACKENDS"))
        setenv("GPUSCOPE_BACKENDS", "nvml", 1);
    return 0;
}
