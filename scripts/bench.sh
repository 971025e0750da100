#!/bin/bash
# make bench: the benchmark of scripts/guest/bench in one guest run on the
# normal kernel (with the untraced system call loop), then the same loop
# on the kernel without CONFIG_UTRACE.  Prints the table and writes it as
# JSON to build/bench.json, which must parse with every figure a number
# (the guest's jsoncheck, run here too); scripts/bench-md makes the
# tables of BENCHMARKS.md from it.
#
#   BENCH_CALLS (calls per timed run), BENCH_RUNS (runs, >= 5 for the
#   medians the table reports), BENCH_LOOP (system calls per loop run)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
calls=${BENCH_CALLS:-20000}
runs=${BENCH_RUNS:-5}
loop=${BENCH_LOOP:-1000000}
L=/usr/libexec/utrace-tests

"$top/scripts/qemu-run.sh" -f normal -t 5400 -n bench \
	"$L/bench-run $calls $runs && $L/bench/syscall_loop $loop $runs" ||
	{ echo "bench: the guest run failed (build/logs-normal/bench.out)"; exit 1; }
"$top/scripts/qemu-run.sh" -f noutrace -t 1800 -n bench \
	"$L/bench/syscall_loop $loop $runs" ||
	{ echo "bench: the guest run failed (build/logs-noutrace/bench.out)"; exit 1; }

python3 - "$top/build" "$loop" "$runs" <<'PY' || exit 1
import json, os, re, subprocess, sys, time, platform

build, loop, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = open(f"{build}/logs-normal/bench.out").read()
bare = open(f"{build}/logs-noutrace/bench.out").read()
if "guest-exit: 0" not in out or "guest-exit: 0" not in bare:
    sys.exit("bench: a guest command failed; see build/logs-*/bench.out")
table = out.split("# bench-json")[0]
try:
    doc = json.loads(out.split("# bench-json")[1])
except (IndexError, ValueError) as e:
    sys.exit(f"bench: the guest's JSON does not parse ({e}); "
             "see build/logs-normal/bench.out")
def median(text):
    m = re.search(r"^median: ([0-9.]+) ns/call", text, re.M)
    return float(m.group(1))
with_ut, without = median(out), median(bare)
doc["untraced_syscall_loop"] = {
    "utrace_ns": with_ut, "noutrace_ns": without,
    "ratio": round(with_ut / without, 3), "calls": loop, "runs": runs}
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), platform.machine())
doc["date"] = time.strftime("%Y-%m-%d")
qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                      text=True).stdout.split()
ver = qemu[3] if len(qemu) > 3 and qemu[2] == "version" else "(version unknown)"
doc["machine"] = (f"QEMU {ver} TCG (no KVM) guest with {doc['cpus']} vCPUs, "
                  f"on a {os.cpu_count()}-core {cpu} host")
print(table, end="")
print(f"untraced getppid() loop: {with_ut} ns with CONFIG_UTRACE, "
      f"{without} ns without ({doc['untraced_syscall_loop']['ratio']}x)")
with open(f"{build}/bench.json", "w") as f:
    json.dump(doc, f, indent=1, allow_nan=False)
    f.write("\n")
print(f"written: build/bench.json")
PY
"$top/build/tests/bench/jsoncheck" -s kernel -s date -s machine \
	"$top/build/bench.json" > /dev/null ||
	{ echo "bench: build/bench.json: a figure that is not a number"; exit 1; }
