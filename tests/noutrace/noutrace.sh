#!/bin/sh
# On the kernel built without CONFIG_UTRACE (make check FLAVOUR=noutrace):
# nothing of utrace is left, and its users say so plainly.  Prints TAP.
n=0 failed=0
check() { # description, then a command whose success is the test
	d=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		failed=1
	fi
}
tracefs=/sys/kernel/tracing
t=/usr/libexec/utrace-tests

echo "TAP version 13"
echo "1..6"
check "no Utrace line in /proc/PID/status" \
	sh -c "! grep -q '^Utrace' /proc/self/status"
check "no utprobe files in tracefs" \
	sh -c "! ls $tracefs | grep -q utprobe"
check "no process tracer" \
	sh -c "! grep -qw process $tracefs/available_tracers"
check "mainline uprobe_events is there" test -w $tracefs/uprobe_events
err=$(uprobe-cli add "$t/targets/probe_target:main" 2>&1)
st=$?
check "uprobe-cli add fails" test $st = 1
# one line: the probe, where it resolved, and why the kernel refused it
one_line() {
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || return 1
	case $err in
	"uprobe-cli: main (main+0, $t/targets/probe_target:0x"*"): this kernel has no utprobes (no utprobe_events in tracefs)")
		return 0 ;;
	esac
	echo "# $err"
	return 1
}
check "with one line saying why" one_line
exit $failed
