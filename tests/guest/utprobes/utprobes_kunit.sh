#!/bin/sh
# KUnit tests of utprobes' x86 instruction handling
# (tests/modules/utprobes_kunit): loading the module runs the suite.  Each
# of its test cases becomes one TAP test, numbered as KUnit numbers them,
# and the suite's own verdict one more; the plan is the number of cases
# the suite declares, not the number of results found, so a case that
# never reports is a failure.  The rest of KUnit's report is diagnostics.
suite=utprobes_insn
ko=/lib/modules/$(uname -r)/extra/utprobes_kunit.ko
results=/sys/kernel/debug/kunit/$suite/results

echo "TAP version 13"
if ! insmod "$ko"; then
	echo "1..1"
	echo "not ok 1 - $suite: cannot load $ko"
	exit 1
fi
cases=$(sed -n 's/^    1\.\.\([0-9][0-9]*\)$/\1/p' "$results" 2>/dev/null)
if [ -z "$cases" ] || [ "$cases" = 0 ]; then
	echo "1..1"
	echo "not ok 1 - $suite: no results in $results, or no cases declared"
	rmmod utprobes_kunit
	exit 1
fi
echo "1..$((cases + 1))"
awk -v n=$((cases + 1)) -v suite="$suite" '
	/^    (not )?ok [0-9]+ / { sub(/^    /, ""); print; next }
	/^(not )?ok [0-9]+ / {
		st = $1 == "not" ? "not ok" : "ok"
		print st " " n " - suite " suite
		next
	}
	{ print "# " $0 }' "$results"
status=0
grep -q '^\(    \)\?not ok ' "$results" && status=1
rmmod utprobes_kunit
exit $status
