#!/bin/sh
# The kernel's own ptrace selftests and the x86 single-step, sigreturn,
# ptrace_syscall and syscall selftests (those that build for 64-bit),
# built from the extracted tree.  Each program's results (its exit
# status and every verdict line it prints, "ok", "not ok", "[OK]",
# "[FAIL]", "[SKIP]") must equal kselftests.expected, recorded on the
# kernel without utrace (make check FLAVOUR=noutrace checks that it
# still holds there).  With utprobes, kselftests_probed.sh runs them
# again with file probes on libc functions that every one of them calls,
# several of them with the trap flag set or under ptrace (a program of
# its own, for the runner's time limit on the debug kernel).
#
#   kselftests.sh           run, compare, print TAP
#   kselftests.sh probed    the same, with the probes
#   kselftests.sh record    print one run's results, for the file
#
# KSELFTESTS_SKIP names programs not to run here (and not to compare):
# the debug kernel leaves out those whose time is their own size or
# their own timeouts, which the other kernels run.
D=/usr/libexec/utrace-tests
K=$D/kselftests
EXPECTED=$D/kselftests.expected
TR=/sys/kernel/tracing
OUT=/tmp/kselftests.out
# __libc_start_main: every program, and last, so that no uprobe-cli run
# but the programs' is counted; the others, most of them
FUNCS="write sigaction syscall __libc_start_main"
. /usr/libexec/utrace-tests/utp_helpers.sh

# results: each program's exit status and verdict lines; how long each
# took goes to $OUT.times, for took()
results() {
	for t in "$K"/*; do
		case " ${KSELFTESTS_SKIP:-} " in
		*" ${t##*/} "*) continue ;;
		esac
		start=$(cut -d' ' -f1 /proc/uptime)
		# a shell of its own, which waits for it (not exec): its
		# "Segmentation fault" is not the program's output
		out=$(sh -c '"$0" 2>&1 < /dev/null; exit $?' "$t" 2> /dev/null)
		echo "== ${t##*/} exit=$?"
		echo "$out" | grep -E '^(ok|not ok) |^\[(OK|FAIL|SKIP)\]'
		echo "${t##*/} $start $(cut -d' ' -f1 /proc/uptime)" >> $OUT.times
	done
}

# took: the seconds each program of the last results took, as comments
# (on the debug kernel under TCG, the suite's longest programs)
took() {
	awk '{ printf "# %s took %.1f s\n", $1, $3 - $2 }' $OUT.times
	rm -f $OUT.times
}

if [ "$1" = record ]; then
	results
	rm -f $OUT.times
	exit
fi

# the expected results of the programs that run here
expected() {
	awk -v skip=" ${KSELFTESTS_SKIP:-} " '
		/^== / { keep = index(skip, " " $2 " ") == 0 }
		keep' "$EXPECTED"
}

# the same as expected, or the difference shown
same() {
	expected > $OUT.expected
	if cmp -s $OUT.expected $OUT; then
		rm -f $OUT.expected
		return 0
	fi
	diff $OUT.expected $OUT | sed 's/^/# /'
	rm -f $OUT.expected
	return 1
}

programs=$(expected | grep -c '^== ')
ktap_print_header
if [ "$1" != probed ]; then
	ktap_set_plan 1
	results > $OUT
	same
	check $? "$programs programs, no probe: the results of the kernel without utrace"
	took
	rm -f $OUT
	ktap_finished
fi
ktap_set_plan 3

# whatever ends the run, the probes go
cleanup() {
	echo 0 > $TR/events/kst/start/enable 2> /dev/null
	echo "-:kst/start" >> $TR/uprobe_events 2> /dev/null
	uprobe-cli del --all > /dev/null 2>&1
	rm -f $OUT $OUT.times
}
trap cleanup EXIT
trap 'exit 1' TERM INT

# mainline uprobes counts the programs started too, at the second
# instruction of __libc_start_main (the first offset that is one),
# enabled once the uprobe-cli runs are over
off=1
while [ $off -lt 16 ] &&
	! uprobe-cli resolve libc:__libc_start_main+$off > /dev/null 2>&1; do
	off=$((off + 1))
done
set -- $(uprobe-cli resolve libc:__libc_start_main+$off)
echo "p:kst/start $1:$2" >> $TR/uprobe_events
# int3s (--trap): a probe entered by a jump shows its stub to a program
# that single-steps itself, as single_step_syscall does (see utprobes.rst)
st=0
for f in $FUNCS; do
	uprobe-cli add --trap libc:$f --name kst_$f || st=1
done
check $st "file probes on libc: $FUNCS"
echo 1 > $TR/events/kst/start/enable
results > $OUT
same
check $? "with the probes: the same results"
took
for f in $FUNCS; do
	echo "# kst_$f: $(hits kst_$f) hits"
done
main=$(awk '$2 == "start" { print $3 }' $TR/uprobe_profile)
echo "# mainline: $main programs started"
[ -n "$main" ] && [ "$main" -ge "$programs" ] &&
	[ "$(hits kst___libc_start_main)" = "$main" ]
check $? "the programs started: as many hits as mainline uprobes counts"
ktap_finished
