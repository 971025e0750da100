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

# expect NAME TIMEOUT EXPECTED_MESSAGE GUEST_CMD
expect() {
	local name=$1 timeout=$2 want=$3 cmd=$4 out rc
	n=$((n + 1))
	out=$("$top/scripts/check.sh" -f "$flavour" -n "harness-$name" \
		-t "$timeout" "$cmd" 2>&1)
	rc=$?
	echo "$out" > "$logs/harness-$name.verdict"
	if [ $rc != 0 ] && grep -qF -- "$want" <<< "$out"; then
		echo "ok $n - $name: run failed with \"$want\""
		pass=$((pass + 1))
	else
		echo "not ok $n - $name: exit $rc, wanted a failure saying \"$want\""
		sed 's/^/#   /' <<< "$out" | tail -15
		fail=$((fail + 1))
	fi
}

echo "TAP version 13"
echo "1..6"
expect failing-test 300 "1 passed, 1 failed" "$t/run-tests $t/harness"
expect crashing-test 300 "/tmp/c/segv: planned 3 tests but 1 reported" \
	"mkdir /tmp/c && printf '#!/bin/sh\necho 1..3\necho ok 1\nkill -SEGV \$\$\n' > /tmp/c/segv && chmod +x /tmp/c/segv && $t/run-tests /tmp/c"
expect warning 300 "WARNING: CPU" "insmod $mod mode=warn && $t/run-tests"
expect oops 300 "Oops" "insmod $mod mode=oops; $t/run-tests"
expect panic 300 "Kernel panic - not syncing: harness_fault" "insmod $mod mode=panic; $t/run-tests"
expect hang 20 "guest timed out after 20 s" "sleep 100000"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
