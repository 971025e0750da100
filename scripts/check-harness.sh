#!/bin/bash
# Self-test of the test harness: each way a guest run can go wrong must
# make scripts/check.sh fail, with a message saying which.  Prints TAP and
# a summary line; exits non-zero if the harness missed anything.
#
#   check-harness.sh [FLAVOUR]
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-normal}
logs=$top/build/logs-$flavour
mod='/lib/modules/$(uname -r)/extra/harness_fault.ko'
t=/usr/libexec/utrace-tests
n=0 pass=0 fail=0

# expect [-f FLAVOUR] [-E LIST] NAME TIMEOUT EXPECTED_MESSAGE GUEST_CMD
expect() {
	local f=$flavour e=() name timeout want cmd out rc
	while [ $# -gt 4 ]; do
		case $1 in
		-f) f=$2 ;;
		-E) e=(-E "$2") ;;
		esac
		shift 2
	done
	name=$1 timeout=$2 want=$3 cmd=$4
	n=$((n + 1))
	out=$("$top/scripts/check.sh" -f "$f" -n "harness-$name" \
		-t "$timeout" "${e[@]}" "$cmd" 2>&1)
	rc=$?
	mkdir -p "$top/build/logs-$f"
	echo "$out" > "$top/build/logs-$f/harness-$name.verdict"
	if [ $rc != 0 ] && grep -qF -- "$want" <<< "$out"; then
		echo "ok $n - $name: run failed with \"$want\""
		pass=$((pass + 1))
	else
		echo "not ok $n - $name: exit $rc, wanted a failure saying \"$want\""
		sed 's/^/#   /' <<< "$out" | tail -15
		fail=$((fail + 1))
	fi
}

# prog NAME LINE...: a guest command writing the shell test program
# /tmp/c/NAME, one LINE per line (no single quotes in them)
prog() {
	local name=$1 l c="mkdir -p /tmp/c && printf '%s\\n' '#!/bin/sh'"
	shift
	for l; do c+=" '$l'"; done
	echo "$c > /tmp/c/$name && chmod +x /tmp/c/$name"
}
kmsg() { # a line as the kernel would print it on the console
	echo "echo '<3>$1' > /dev/kmsg"
}
run="$t/run-tests /tmp/c"

list=$logs/harness-missing.expected
mkdir -p "$logs"
printf '%s\n' /tmp/c/here /tmp/c/gone > "$list"

echo "TAP version 13"
echo "1..18"
expect failing-test 300 "1 passed, 1 failed" "$t/run-tests $t/harness"
expect crashing-test 300 "/tmp/c/segv: planned 3 tests but 1 reported" \
	"$(prog segv 'echo 1..3' 'echo ok 1' 'kill -SEGV $$') && $run"
expect -E "$list" missing-program 300 "/tmp/c/gone: never ran (missing from the image?)" \
	"$(prog here 'echo 1..1' 'echo ok 1') && $run"
expect all-skip 300 "/tmp/c/s: skipped all its tests (2)" \
	"$(prog s 'echo 1..2' 'echo ok 1 a \# SKIP x' 'echo ok 2 b \# SKIP x' 'exit 4') && $run"
expect no-plan 300 "/tmp/c/p: printed no plan line (2 results" \
	"$(prog p 'echo ok 1' 'echo ok 2') && $run"
expect duplicate-numbers 300 "/tmp/c/d: results are not numbered 1..3 in order" \
	"$(prog d 'echo 1..3' 'echo ok 1' 'echo ok 1' 'echo ok 1') && $run"
expect timeout-ignoring-sigterm 300 "/tmp/c/h: timed out (killed by the runner after 1 results)" \
	"$(prog h 'echo 1..2' 'echo ok 1' 'trap "" TERM' 'while :; do sleep 1; done') && UTRACE_TEST_TIMEOUT=5 $run"
expect warning 300 "WARNING: CPU" "insmod $mod mode=warn && $t/run-tests"
expect oops 300 "Oops" "insmod $mod mode=oops; $t/run-tests"
expect panic 300 "Kernel panic - not syncing: harness_fault" "insmod $mod mode=panic; $t/run-tests"
expect hang 20 "guest timed out after 20 s" "sleep 100000"
expect hung-task 300 "INFO: task insmod:" \
	"echo 2 > /proc/sys/kernel/hung_task_timeout_secs && insmod $mod mode=hang"
expect oom 300 "invoked oom-killer" "tail /dev/zero; true"
expect bug-line 300 "BUG: sleeping function called from invalid context at harness" \
	"$(kmsg 'BUG: sleeping function called from invalid context at harness')"
expect kasan-line 300 "BUG: KASAN: slab-use-after-free in harness" \
	"$(kmsg 'BUG: KASAN: slab-use-after-free in harness')"
expect kmemleak-line 300 "kmemleak: 1 new suspected memory leaks" \
	"$(kmsg 'kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)')"
# the real thing on the debug kernel: KASAN and kmemleak are on, and the
# end-of-run leak scan reports what a module lost
expect -f debug kasan 600 "BUG: KASAN: slab-use-after-free in harness_fault_init" \
	"insmod $mod mode=uaf"
expect -f debug kmemleak 600 "unreferenced object" "insmod $mod mode=leak"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
