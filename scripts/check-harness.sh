#!/bin/bash
# Self-test of the test harness: each way a guest run can go wrong must
# make scripts/check.sh fail, with a message saying which.  Prints TAP and
# a summary line; exits non-zero if the harness missed anything.
#
#   check-harness.sh [FLAVOUR [CASE...]]
#
# With CASEs (the names below, "missing-program"), runs only those.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-normal}
cases=("${@:2}")
logs=$top/build/logs-$flavour
mod='/lib/modules/$(uname -r)/extra/harness_fault.ko'
t=/usr/libexec/utrace-tests
n=0 pass=0 fail=0 ran=" "

# wanted NAME: whether case NAME runs (all do when none were named)
wanted() {
	local c

	[ ${#cases[@]} = 0 ] && return 0
	for c in "${cases[@]}"; do
		[ "$c" = "$1" ] && return 0
	done
	return 1
}

# Cases run two at a time (each is a guest of its own, most of whose
# time is its boot); their results are printed in order at the end.
res=$(mktemp -d)
trap 'rm -rf "$res"' EXIT
order=()

# not_ok NAME REASON: a case that could not be run at all
not_ok() {
	ran+="$1 " order+=("$1")
	printf '%s\n' "$2" > "$res/$1.notok"
}

# expect [-f FLAVOUR] [-E LIST] [-A ALSO] NAME TIMEOUT EXPECTED_MESSAGE GUEST_CMD
#
# The run must fail, and the verdict say EXPECTED_MESSAGE (and have the
# line ALSO).
expect() {
	local f=$flavour e=() also="" name timeout want cmd
	while [ $# -gt 4 ]; do
		case $1 in
		-f) f=$2 ;;
		-E) e=(-E "$2") ;;
		-A) also=$2 ;;
		esac
		shift 2
	done
	name=$1 timeout=$2 want=$3 cmd=$4
	wanted "$name" || return 0
	ran+="$name " order+=("$name")
	printf '%s\n' "$want" > "$res/$name.want"
	printf '%s\n' "$also" > "$res/$name.also"
	while [ "$(jobs -rp | wc -l)" -ge 2 ]; do
		wait -n
	done
	(
		"$top/scripts/check.sh" -f "$f" -n "harness-$name" \
			-t "$timeout" "${e[@]}" "$cmd" > "$res/$name.out" 2>&1
		echo $? > "$res/$name.rc"
		mkdir -p "$top/build/logs-$f"
		cp "$res/$name.out" "$top/build/logs-$f/harness-$name.verdict"
	) &
}

# report NAME: the TAP line of a finished case
report() {
	local name=$1 want also out rc

	want=$(cat "$res/$name.want") also=$(cat "$res/$name.also")
	out=$(cat "$res/$name.out") rc=$(cat "$res/$name.rc")
	n=$((n + 1))
	if [ "$rc" != 0 ] && grep -qF -- "$want" <<< "$out" &&
	   { [ -z "$also" ] || grep -qxF -- "$also" <<< "$out"; }; then
		echo "ok $n - $name: run failed with \"$want\""
		pass=$((pass + 1))
	else
		echo "not ok $n - $name: exit $rc, wanted a failure saying \"$want\"${also:+ and \"$also\"}"
		sed 's/^/#   /' <<< "$out" | tail -15
		fail=$((fail + 1))
	fi
}

# The list of programs "make check" must see run, as its own rule
# (make expected-lists) writes it: every program on it but the last
# guest one runs, as a stand-in passing one test under the program's
# name, in place of the image's suite; the verdict must name the one
# that did not, and count each stand-in's pass.
missing_program() {
	local list=$logs/check.expected names gone others cmd

	wanted missing-program || return 0
	if ! make -s --no-print-directory -C "$top" expected-lists \
		FLAVOUR="$flavour" > /dev/null; then
		not_ok missing-program "make expected-lists failed"
		return
	fi
	mapfile -t names < <(grep -v '^#' "$list" | grep .)
	gone=$(printf '%s\n' "${names[@]}" | grep '^t/' | tail -1)
	others=$(printf '%s\n' "${names[@]}" | grep -vxF -- "$gone" |
		tr '\n' ' ')
	if [ -z "$gone" ] || [ -z "$others" ]; then
		not_ok missing-program "$list names no guest program, or only one"
		return
	fi
	# the guest: the runner kept, an empty $t, the stand-ins in it
	cmd="cp $t/run-tests /tmp/run-tests && mount -t tmpfs tmpfs $t &&"
	cmd+=" cd $t && for n in $others; do mkdir -p \${n%/*} &&"
	cmd+=" printf '%s\\n' '#!/bin/sh' 'echo 1..1' 'echo ok 1' > \$n &&"
	cmd+=" chmod +x \$n || exit 1; done && /tmp/run-tests $t/*"
	expect -E "$list" -A "$((${#names[@]} - 1)) passed, 1 failed" \
		missing-program 300 "$gone: never ran (missing from the image?)" \
		"$cmd"
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

echo "TAP version 13"
if [ ${#cases[@]} = 0 ]; then
	echo "1..18"
else
	echo "1..${#cases[@]}"
fi
expect failing-test 300 "1 passed, 1 failed" "$t/run-tests $t/harness"
expect crashing-test 300 "/tmp/c/segv: planned 3 tests but 1 reported" \
	"$(prog segv 'echo 1..3' 'echo ok 1' 'kill -SEGV $$') && $run"
missing_program
expect all-skip 300 "/tmp/c/s: skipped all its tests (2)" \
	"$(prog s 'echo 1..2' 'echo ok 1 a \# SKIP x' 'echo ok 2 b \# SKIP x' 'exit 4') && $run"
expect no-plan 300 "/tmp/c/p: printed no plan line (2 results" \
	"$(prog p 'echo ok 1' 'echo ok 2') && $run"
expect duplicate-numbers 300 "/tmp/c/d: results are not numbered 1..3 in order" \
	"$(prog d 'echo 1..3' 'echo ok 1' 'echo ok 1' 'echo ok 1') && $run"
expect timeout-ignoring-sigterm 300 "/tmp/c/h: timed out (killed by the runner after 1 results)" \
	"$(prog h 'echo 1..2' 'echo ok 1' 'trap "" TERM' 'while :; do sleep 1; done') && UTRACE_TEST_TIMEOUT=5 $run"
# a program that passes: the warning on the console alone fails the run
expect warning 300 "WARNING: CPU" "insmod $mod mode=warn && $t/run-tests $t/t/utprobes_session"
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
for c in "${cases[@]}"; do
	[[ $ran == *" $c "* ]] || not_ok "$c" "no such case"
done
wait
for c in "${order[@]}"; do
	if [ -e "$res/$c.notok" ]; then
		n=$((n + 1))
		echo "not ok $n - $c: $(cat "$res/$c.notok")"
		fail=$((fail + 1))
	else
		report "$c"
	fi
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
