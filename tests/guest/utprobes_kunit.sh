#!/bin/sh
# KUnit tests of utprobes' x86 instruction handling
# (tests/modules/utprobes_kunit): loading the module runs the suite; each
# of its test cases becomes one TAP test, the rest of KUnit's report
# diagnostics.
ko=/lib/modules/$(uname -r)/extra/utprobes_kunit.ko
results=/sys/kernel/debug/kunit/utprobes_insn/results

echo "TAP version 13"
if ! insmod "$ko"; then
	echo "1..0 # SKIP cannot load $ko"
	exit 1
fi
echo "1..$(grep -c '^    \(not \)\?ok ' "$results")"
awk '/^    (not )?ok / { sub(/^    /, ""); print; next } { print "# " $0 }' \
	"$results"
status=0
grep -q '^    not ok ' "$results" && status=1
rmmod utprobes_kunit
exit $status
