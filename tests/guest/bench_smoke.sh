#!/bin/sh
# "make bench" in miniature, so that it keeps working: every measurement
# of the benchmark runs once with few calls, and every handler of every
# engine counts exactly the calls made (the driver fails otherwise).  No
# timing is judged here.
failed=0
tap() {
	if [ "$1" = 0 ]; then
		echo "ok $2"
	else
		echo "not ok $2"
		failed=1
	fi
}
echo "TAP version 13"
echo "1..3"
out=$(/usr/libexec/utrace-tests/bench-run 200 1 20 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
tap $st "1 - every run made, every hit counted by each engine"
rows=$(echo "$out" | grep -cE '^(push|nop|lea|mov|sub|endbr|nop5|riprel|return) +[0-9]')
[ "$rows" = 9 ]
tap $? "2 - a table row for each of the 9 probes ($rows)"
json=$(echo "$out" | sed -n '/^# bench-json$/,/^# bench-json$/p' | sed -n 2p)
ok=0
for k in classes return syscall_ns two_threads_scaling many_probes \
	 register_in_64_threads vs_mainline vs_ptrace; do
	echo "$json" | grep -q "\"$k\"" || { echo "# no $k"; ok=1; }
done
tap $ok "3 - the JSON holds every figure"
exit $failed
