# 4202-incidents.py - the planted-incident matrix: each case plants faults in the simulator (or the
# kernel log / sysfs / /proc it reads), runs `gpuscope doctor --format json`, and compares the findings
# with the planted (code, GPU, PID). Prints the table (fault, GPU/PID, found, extra findings) and
# recall/precision over all cases. Run by 4202-doctor-incident-matrix.test; its output goes into
# the closing note of issue 12. Argument: the markdown file to write.
import json, os, subprocess, sys

GS, BUILD, ROOT, TMP = os.environ["GPUSCOPE"], os.environ["BUILD"], os.environ["ROOT"], os.getcwd()
LIB = {p: f"{BUILD}/sim/{p}/libnvidia-ml.so.1" for p in ("current", "r535")}
KMSG = f"{ROOT}/tests/fixtures/kmsg/public-reports.txt"

def inline(name, text):
    path = os.path.join(TMP, name + ".scn")
    open(path, "w").write(text)
    return path

def kmsg_lines(name, first, last):
    path = os.path.join(TMP, name)
    lines = open(KMSG).read().splitlines()[first - 1:last]
    open(path, "w").write("\n".join(lines) + "\n")
    return path

def holder_proc():
    root = os.path.join(TMP, "proc")
    os.makedirs(f"{root}/4242/fd", exist_ok=True)
    open(f"{root}/4242/comm", "w").write("python\n")
    if not os.path.islink(f"{root}/4242/fd/3"):
        os.symlink("/dev/nvidia2", f"{root}/4242/fd/3")
    os.makedirs(os.path.join(TMP, "emptysys/sys/bus/pci/devices"), exist_ok=True)
    return {"GPUSCOPE_PROC_ROOT": root, "GPUSCOPE_SYS_ROOT": os.path.join(TMP, "emptysys")}

# (fault, scenario, args, extra env, profile, planted [(code, gpu, pid)]; pid "*": any)
CASES = [
    ("GPU fell off the bus (Xid 79 event, then GPU_IS_LOST)", "xid79", ["--window", "10s", "--no-kernel-log"], {},
     "current", [("xid.79", 2, None)]),
    ("fell off the bus, no Xid: three-line kernel message", "fallen", ["--window", "10s"], {}, "current",
     [("xid.79", 2, None)]),
    ("RmInitAdapter failed (public report) + GPU missing from NVML", None, [], {}, "current",
     [("driver.init_failed", None, None)]),
    ("Xid 119 GSP timeout, nvidia-smi the caller (public report)", None, [], {}, "current", [("xid.119", 1, None)]),
    ("overheating: SW then HW thermal slowdown", "thermal", ["--window", "60s", "--no-kernel-log"],
     {"GPUSCOPE_SIM_CLOCK": "fixed:20"}, "current", [("thermal.hw_slowdown", 0, None)]),
    ("the same, one snapshot (doctor --quick)", "thermal", ["--quick", "--no-kernel-log"],
     {"GPUSCOPE_SIM_CLOCK": "fixed:40"}, "current", [("thermal.hw_slowdown", 0, None)]),
    ("300 ms HW slowdowns every 10 s (violation counter)", "hwblip", ["--window", "60s", "--no-kernel-log"], {},
     "current", [("thermal.hw_slowdown", 0, None)]),
    ("memory leak, 20 MiB/s", "leak", ["--window", "120s", "--no-kernel-log"], {}, "current",
     [("proc.memory_leak", 0, "*")]),
    ("input-pipeline stall, 20 s period", "sawtooth", ["--window", "90s", "--no-kernel-log"], {}, "current",
     [("proc.input_stall", g, "*") for g in range(4)]),
    ("input-pipeline stall, 2 s period, default window", "sawtooth2s", ["--no-kernel-log"], {}, "current",
     [("proc.input_stall", 0, "*"), ("proc.input_stall", 1, "*")]),
    ("corrected-ECC storm", "ecc", ["--window", "60s", "--no-kernel-log"], {}, "current",
     [("ecc.sbe_storm", 1, None), ("ecc.uncorrectable", 2, None), ("ecc.remap_pending", 2, None),
      ("ecc.retire_rate", 2, None)]),
    ("row remap pending / remapper failed", "remap", ["--window", "10s", "--no-kernel-log"], {}, "current",
     [("ecc.remap_pending", 0, None), ("ecc.remap_failed", 1, None)]),
    ("NVLink down / replays growing", "nvlink", ["--window", "30s", "--no-kernel-log"], {}, "current",
     [("nvlink.down", 3, None), ("nvlink.errors", 5, None)]),
    ("PCIe AER errors + a GPU on the bus NVML lacks", "aer", ["--window", "60s", "--no-kernel-log"],
     {"GPUSCOPE_SIM_SYSFS": "@sys", "GPUSCOPE_SYS_ROOT": "@sys"}, "current",
     [("pcie.aer_uncorrectable", 1, None), ("pcie.aer_correctable", 1, None), ("gpu.missing_from_nvml", None, None)]),
    ("fan stuck at 0 while hot", "@fan", ["--window", "120s", "--no-kernel-log"], {}, "current",
     [("thermal.fan_stuck", 0, None)]),
    ("HW power brake", "@brake", ["--window", "30s", "--no-kernel-log"], {}, "r535",
     [("power.hw_power_brake", 1, None)]),
    ("one rank of a 4-GPU job lagging", "@lag", ["--window", "30s", "--no-kernel-log"], {}, "current",
     [("job.gpu_lagging", 2, "*")]),
    ("busy GPU, no process listed, a holder of /dev/nvidia2", "@holder", ["--window", "20s", "--no-kernel-log"],
     "holder", "current", [("gpu.busy_no_process", 2, None), ("proc.hidden_holder", 2, 4242)]),
    ("ECC turned off for the next reboot", "@eccpend", ["--quick", "--no-kernel-log"], {}, "current",
     [("config.ecc_pending", 0, None)]),
    ("PCIe x8 link on an x16 card, replays", "@pcie", ["--window", "70s", "--no-kernel-log"], {}, "current",
     [("pcie.width_degraded", 0, None), ("pcie.replay_rate", 1, None)]),
    ("memory held by an idle process (zombie)", "@zombie", ["--window", "320s", "--no-kernel-log"], {}, "current",
     [("proc.idle_memory", 0, "*")]),
    ("power limit lowered by an administrator", "@plimit", ["--quick", "--no-kernel-log"], {}, "current",
     [("power.limit_reduced", 0, None)]),
    ("a GPU missing (expected 4)", "@three", ["--quick", "--no-kernel-log", "--expect-gpus", "4"], {}, "current",
     [("gpu.count_low", None, None)]),
]

INLINE = {
    "@fan": 'gpu count=2 name="Test GPU" fans=1 temp_slowdown=87 util=90 temp=81 fan=55\ngpu 0 fan=0\n',
    "@brake": 'gpu count=2 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=90\nat 5 gpu=1 throttle on hw_power_brake|hw_slowdown\n',
    "@lag": 'gpu count=4 name="NVIDIA H100 80GB HBM3" unsupported=fan util=clamp(noise(94,2),0,100)\n'
            'gpu 2 util=clamp(noise(55,3),0,100)\n'
            'proc 0-3 type=compute name="python train.py" pid=spawn group=job mem=60GiB sm=90\n',
    "@holder": 'gpu count=3 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=clamp(noise(90,3),0,100)\n'
               'gpu 2 util=100 memory_used=12GiB\nproc 0-1 type=compute name=train mem=30GiB sm=90\n',
    "@eccpend": 'gpu count=2 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=90\ngpu 0 ecc=on ecc_pending=off\n',
    "@pcie": 'gpu count=2 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=90 pcie_max_gen=4\n'
             'gpu 0 pcie_width=8\ngpu 1 pcie_replay=mul(t,2)\nproc 0-1 type=compute name=train mem=30GiB sm=90\n',
    "@zombie": 'gpu count=2 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=90\ngpu 0 util=0\n'
               'proc 0 type=compute name="python old_job.py" mem=20GiB sm=0\nproc 1 type=compute name=train mem=30GiB sm=90\n',
    "@plimit": 'gpu count=2 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=90 power_default=400W\n'
               'gpu 0 power_limit=250W\n',
    "@three": 'gpu count=3 name="NVIDIA A100-SXM4-40GB" unsupported=fan util=90\n',
}

def run_case(fault, scn, args, env_extra, profile, planted):
    env = dict(os.environ, GPUSCOPE_NVML_LIB=LIB[profile], GPUSCOPE_SIM_CLOCK="fixed:0")
    env.pop("GPUSCOPE_SYS_ROOT", None)
    if env_extra == "holder":
        env_extra = holder_proc()
    for k, v in env_extra.items():
        env[k] = os.path.join(TMP, "sys") if v == "@sys" else v
    if scn is None: # kernel-log cases: three GPUs at the reports' addresses
        scn = inline("bus", 'gpu count=3 name="NVIDIA H100 80GB HBM3"\ngpu 0 bus=0x44\ngpu 1 bus=0x61\ngpu 2 bus=0xb3\n')
        args = ["--quick", "--kernel-log", kmsg_lines("k-" + fault[:3], *((9, 11) if "RmInit" in fault else (17, 18)))]
    elif scn.startswith("@"):
        scn = inline(scn[1:], INLINE[scn])
    if scn == "fallen":
        args = args + ["--kernel-log", kmsg_lines("k-fallen", 2, 5)]
    env["GPUSCOPE_SIM_SCENARIO"] = scn
    p = subprocess.run([GS, "doctor", "--format", "json", "--no-history"] + args, env=env, capture_output=True,
                       text=True, timeout=120)
    got = [(f["code"], f["gpu"], f["pid"]) for f in json.loads(p.stdout)["findings"]]
    def match(want, f):
        return want[0] == f[0] and want[1] == f[1] and (want[2] == "*" and f[2] or want[2] == f[2])
    found = [w for w in planted if any(match(w, f) for f in got)]
    extra = [f for f in got if not any(match(w, f) for w in planted)]
    return found, extra, len(got)

def who(items):
    out = []
    for code, gpu, pid in items:
        s = code + (f" GPU {gpu}" if gpu is not None else "") + (f" PID {pid}" if pid not in (None, "*") else
                                                                  " (its PID)" if pid == "*" else "")
        out.append(s)
    return ", ".join(out) or "-"

rows, planted_n, found_n, findings_n, extra_n = [], 0, 0, 0, 0
for case in CASES:
    found, extra, n = run_case(*case)
    planted_n += len(case[5])
    found_n += len(found)
    findings_n += n
    extra_n += len(extra)
    missed = [w for w in case[5] if w not in found]
    rows.append(f"| {case[0]} | {who(case[5])} | {'yes' if not missed else 'MISSED ' + who(missed)} | "
                f"{who(extra)} |")
table = ["| fault | GPU/PID (planted findings) | found | extra findings |", "|---|---|---|---|"] + rows
summary = (f"{len(CASES)} incidents, {planted_n} planted findings: recall {100.0 * found_n / planted_n:.0f}% "
           f"({found_n}/{planted_n}), precision {100.0 * (findings_n - extra_n) / max(findings_n, 1):.0f}% "
           f"({findings_n - extra_n}/{findings_n} findings)")
open(sys.argv[1], "w").write("\n".join(table + ["", summary]) + "\n")
bad = [r for r in rows if "MISSED" in r or not r.endswith("| - |")]
if bad:
    print("\n".join(bad))
print(summary)
