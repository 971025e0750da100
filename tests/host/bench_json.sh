#!/bin/bash
# Host test of the checks on the benchmark's JSON: jsoncheck (built for
# the guest, static, so it runs here too) takes a valid document and
# refuses a figure that is "-", null, a string or NaN, and broken syntax;
# scripts/bench-md fills the generated regions of a page from a valid
# document, leaves the prose alone, and refuses a document with a figure
# that is not a number, leaving the page untouched.  Prints TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
jc=$top/build/tests/bench/jsoncheck
md=$top/scripts/bench-md
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 fail=0

ok() { # description, then a command whose success is the test
	local d=$1
	shift
	n=$((n + 1))
	if "$@" > "$t/out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		sed 's/^/#   /' "$t/out"
		fail=1
	fi
}
fails() { # the command fails with status 1
	"$@"
	[ $? = 1 ]
}

# a document shaped like build/bench.json, with two classes
good='{"calls": 20000, "runs": 5, "kernel": "6.12.1", "cpus": 2,
 "classes": {"push": {"base_ns": 35.2, "ours_ns": 2249.0, "mainline_ns": 3921.0,
   "ptrace_ns": 883196.1, "vs_mainline": 0.57, "vs_ptrace": 0.0025,
   "jump_base_ns": 30.1, "jump_ns": 41.5, "jump_vs_mainline": 0.011,
   "sys_ns": 1012.5, "sys_vs_ours": 0.45, "sys_vs_mainline": 0.26},
  "lea": {"base_ns": 22, "ours_ns": 2084.5, "mainline_ns": 28624, "ptrace_ns": 781260,
   "vs_mainline": 0.073, "vs_ptrace": 0.0027}},
 "return": {"base_ns": 35.2, "ours_ns": 10547, "mainline_ns": 8444, "vs_mainline": 1.25},
 "syscall_ns": 414.4,
 "two_threads_scaling": {"unprobed": 1.9, "ours": 1.74, "mainline": 1.95},
 "two_threads_ns": {"unprobed": {"one_thread": 22, "two_threads": 11.6},
  "ours": {"one_thread": 2106, "two_threads": 1210}, "mainline": {"one_thread": 28646, "two_threads": 14690}},
 "two_threads_calls": {"unprobed": 2000000, "probed": 20000},
 "many_probes": {"ours_ns": 1917, "ours_vs_one": 0.92, "mainline_ns": 24903, "mainline_vs_one": 0.87},
 "register_in_64_threads": {"probes": 1000, "ours_ms": 2052.3, "mainline_ms": 29.1, "vs_mainline": 70.52},
 "register_in_64_spinning": {"probes": 1000, "ours_ms": 25.3, "mainline_ms": 29.1, "vs_mainline": 0.87},
 "pause_while_placing": {"ours_ms": 40.25, "mainline_ms": 41.5, "vs_mainline": 0.97},
 "unregister_in_64_spinning": {"probes": 1000, "ours_ms": 18.2, "mainline_ms": 30.4, "vs_mainline": 0.6},
 "pause_while_removing": {"ours_ms": 0.5, "mainline_ms": 1.1, "vs_mainline": 0.45},
 "pause_while_jumping": {"in_ms": 2.5, "mainline_in_ms": 0.8, "in_vs_mainline": 3.13,
  "out_ms": 2.25, "mainline_out_ms": 0.5, "out_vs_mainline": 4.5},
 "whole_library": {"probes": 2871, "processes": 4, "place_ms": 180.5,
  "mainline_place_ms": 912.0, "place_vs_mainline": 0.2, "remove_ms": 95.2,
  "mainline_remove_ms": 350.7, "remove_vs_mainline": 0.27},
 "whole_program": {"rows": 20000, "probes": 5012, "hits": 1234567,
  "unprobed_ms": 410, "jump_ms": 530, "jump_vs_unprobed": 1.29,
  "trap_ms": 2900, "trap_vs_unprobed": 7.07, "mainline_ms": 4100,
  "mainline_vs_unprobed": 10, "jump_vs_mainline": 0.13},
 "stacks": {"stack_bytes": 8192, "count_ns": 1800, "record_ns": 2400.5,
  "record_vs_count": 1.33, "stack_ns": 9000, "stack_vs_count": 5,
  "cache": {"cli_ns": 12000, "cli_hits_per_s": 80000, "unwound_per_s": 41234, "lost": 1500},
  "no_cache": {"cli_ns": 14000, "cli_hits_per_s": 70000, "unwound_per_s": 4321, "lost": 2500}},
 "untraced_syscall_loop": {"utrace_ns": 382.2, "noutrace_ns": 412.0, "ratio": 0.928,
  "calls": 1000000, "runs": 5},
 "date": "2026-12-03", "machine": "QEMU 7.2 TCG guest"}'
echo "$good" > "$t/good.json"
S="-s kernel -s date -s machine"

# bad BAD NAME: good.json with the first "KEY": VALUE of BAD's left side
# replaced by its right side ("old=>new"), as NAME.json
bad() {
	python3 -c 'import sys; old, new = sys.argv[1].split("=>")
s = open(sys.argv[2]).read(); assert old in s; print(s.replace(old, new, 1), end="")' \
		"$1" "$t/good.json" > "$t/$2.json"
}
bad '"vs_ptrace": 0.0025=>"vs_ptrace": -' dash
bad '"syscall_ns": 414.4=>"syscall_ns": null' null
bad '"ours": 1.74=>"ours": "1.74"' string
bad '"ours_ms": 2052.3=>"ours_ms": NaN' nan
bad '"cpus": 2,=>"cpus": 2,,' comma
bad '"kernel": "6.12.1"=>"kernel": 6.12' kernel

cat > "$t/page.md" <<'EOF'
# Page

Prose before.

<!-- begin generated: run (test) -->
old
<!-- end generated: run -->

<!-- begin generated: hits (test) -->
<!-- end generated: hits -->
Prose between.
<!-- begin generated: scaling (test) -->
<!-- end generated: scaling -->
<!-- begin generated: probes (test) -->
<!-- end generated: probes -->
<!-- begin generated: program (test) -->
<!-- end generated: program -->
<!-- begin generated: stacks (test) -->
<!-- end generated: stacks -->
<!-- begin generated: untraced (test) -->
<!-- end generated: untraced -->

Prose after.
EOF
cp "$t/page.md" "$t/page.orig"

echo "TAP version 13"
echo "1..18"
ok "jsoncheck takes the valid document" "$jc" $S "$t/good.json"
ok "jsoncheck prints each figure with its path" \
	bash -c "\"$jc\" $S \"$t/good.json\" | grep -qx 'two_threads_ns.ours.two_threads 1210'"
ok "jsoncheck refuses a figure that is -" fails "$jc" $S "$t/dash.json"
ok "jsoncheck refuses a figure that is null" fails "$jc" $S "$t/null.json"
ok "jsoncheck refuses a figure that is a string" fails "$jc" $S "$t/string.json"
ok "jsoncheck refuses NaN" fails "$jc" $S "$t/nan.json"
ok "jsoncheck refuses a doubled comma" fails "$jc" $S "$t/comma.json"
ok "jsoncheck refuses a number where a string is named" fails "$jc" $S "$t/kernel.json"
ok "bench-md fills the regions from the document" \
	bash -c "\"$md\" \"$t/good.json\" \"$t/page.md\" &&
		grep -qxF '| throughput of two threads against one (2.00x is perfect) | 1.90x | 1.74x | 1.95x |' \"$t/page.md\" &&
		grep -qxF '| calls per thread | 2,000,000 | 20,000 | 20,000 |' \"$t/page.md\" &&
		grep -qF '| \`push %rbp\` | emulates | 35.2 | 2,249 | 3,921 | 883,196 | **0.57** | 0.0025 |' \"$t/page.md\" &&
		! grep -qx old \"$t/page.md\""
ok "bench-md gives the pauses of a jump going in and out" \
	bash -c "grep -qF '| longest pause of the one spinning thread of 64 while one probe goes in: a jump (utprobes), an \`int3\` (mainline) | 2.5 ms | 0.8 ms | 3.13 |' \"$t/page.md\" &&
		grep -qF 'while one probe comes out: a jump (utprobes), an \`int3\` (mainline) | 2.25 ms | 0.5 ms | 4.50 |' \"$t/page.md\""
ok "bench-md gives a handler's hit by a system call beside the trap's" \
	grep -qF '| 41.5 | **0.011** | 1,012 | **0.45** |' "$t/page.md"
ok "bench-md gives placing and removing a probe on every function of libc" \
	bash -c "grep -qF '| placing a probe on each of 2,871 functions of libc, in 4 processes that map it | 180 ms | 912 ms | 0.2 |' \"$t/page.md\" &&
		grep -qF '| removing a probe on each of 2,871 functions of libc, in 4 processes that map it | 95.2 ms | 351 ms | 0.27 |' \"$t/page.md\""
ok "bench-md gives a whole program's time under each kind of probe" \
	bash -c "grep -qF '| sqlite3 on 20,000 rows; probes on 5,012 functions of libsqlite3 and libc, 1,234,567 hits a run | the workload' \"$t/page.md\" &&
		grep -qxF '| utprobes, entered by jumps where a function allows (\`uprobe-cli count\`) | 530 ms | 1.29 | 0.13 |' \"$t/page.md\" &&
		grep -qxF '| mainline \`uprobe_events\` | 4,100 ms | 10.00 | 1.00 |' \"$t/page.md\""
ok "bench-md gives a stack-recording hit against a counting one, and the unwinding rate" \
	bash -c "grep -qxF '| writes a record with 8,192 bytes of the stack and the registers (\`stack=8192\`) | 9,000 | 5.00 |' \"$t/page.md\" &&
		grep -qxF '| as it runs | 41,234 | 12,000 | 80,000 | 1,500 |' \"$t/page.md\" &&
		grep -qxF '| unwinding every stack (\`UPROBE_CLI_STACK_CACHE=0\`) | 4,321 | 14,000 | 70,000 | 2,500 |' \"$t/page.md\""
ok "bench-md names 64 threads where the document does not say" \
	grep -qF '| placing 1,000 probes in a process of 64 spinning threads |' "$t/page.md"
sed 's/"runs": 5,/"runs": 5, "threads": 8,/' "$t/good.json" > "$t/threads.json"
ok "bench-md names the threads the document reports" \
	bash -c "cp \"$t/page.md\" \"$t/page8.md\" &&
		\"$md\" \"$t/threads.json\" \"$t/page8.md\" &&
		grep -qF '| placing 1,000 probes in a process of 8 blocked threads |' \"$t/page8.md\" &&
		grep -qF '| longest pause of the one spinning thread of 8 meanwhile |' \"$t/page8.md\""
ok "bench-md leaves the prose as it was" \
	bash -c "diff <(grep -v '^|' \"$t/page.orig\" | grep -v '^old$' | grep -v '^$') \
		<(grep -v '^|' \"$t/page.md\" | grep -v '^- \\*\\*' | grep -v '^A null' | grep -v '^$')"
cp "$t/page.orig" "$t/page.md"
ok "bench-md refuses a figure that is not a number, leaving the page" \
	bash -c "! \"$md\" \"$t/null.json\" \"$t/page.md\" && cmp \"$t/page.orig\" \"$t/page.md\""
exit $fail
