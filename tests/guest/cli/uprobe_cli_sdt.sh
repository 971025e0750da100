#!/bin/sh
# SDT markers (sys/sdt.h) with uprobe-cli and utprobes: markers listed
# with their semaphores and arguments; a semaphore raised in each probed
# process, one that runs already, one forked after placement and one
# started after it, and lowered at removal, so that the code it guards
# runs exactly while probed; the markers' arguments traced; markers of
# Debian's libstdc++ and Python counted as mainline uprobe_events counts
# them (PATH:OFFSET(REF)) in the same boot; bad semaphores refused.
S=/usr/libexec/utrace-tests/targets/sdt_target
X=/usr/libexec/utrace-tests/targets/ret_throw
TR=/sys/kernel/tracing
. /usr/libexec/utrace-tests/utp_helpers.sh

# held ARGS: run "$S wait ARGS" in the background until it is ready;
# let_go lets it run and prints what it printed then
held() {
	mkfifo /tmp/sdt-in.$$ /tmp/sdt-out.$$
	"$S" wait "$@" < /tmp/sdt-in.$$ > /tmp/sdt-out.$$ &
	pid=$!
	exec 4> /tmp/sdt-in.$$ 5< /tmp/sdt-out.$$
	rm -f /tmp/sdt-in.$$ /tmp/sdt-out.$$
	read -r ready <&5
}
let_go() {
	echo go >&4
	exec 4>&-
	cat <&5
	exec 5<&-
	wait $pid
}

# mainline PATH OFFSET RUN...: the hits of a mainline uprobe at PATH:
# OFFSET (with its semaphore's "(REF)" in OFFSET) while RUN... runs
mainline() {
	echo "p:sdt_main $1:$2" > $TR/uprobe_events || return 1
	echo 1 > $TR/events/uprobes/sdt_main/enable
	shift 2
	"$@" > /dev/null
	awk '$2 == "sdt_main" { print $3 }' $TR/uprobe_profile
	echo 0 > $TR/events/uprobes/sdt_main/enable
	echo > $TR/uprobe_events
}

ktap_print_header
ktap_set_plan 19

out=$(uprobe-cli funcs --sdt "$S")
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq '^sdt_target:tick +0x[0-9a-f]+ +0x[0-9a-f]+ +0x[0-9a-f]*[1-9a-f][0-9a-f]* +-8@%[a-z]+ -8@%[a-z]+$'
check $? "funcs --sdt lists the marker with its semaphore and arguments"

[ "$("$S" run 5)" = "guarded 0" ]
check $? "unprobed, the guarded code does not run"

out=$(uprobe-cli count -e "$S:sdt:sdt_target:tick" -- "$S" run 7 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '^guarded 7$' &&
	echo "$out" | grep -Eq '^ +7  sdt_target:sdt_target:tick$'
check $? "count: the guarded code runs 7 times, and the marker is hit 7 times"

out=$(uprobe-cli count -e "$S:sdt:sdt_target:plain" -- "$S" run 9 2>&1)
echo "$out" | grep -q '^guarded 0$' &&
	echo "$out" | grep -Eq '^ +9  sdt_target:sdt_target:plain$'
check $? "another marker: 9 hits, the tick's guarded code untouched"

held 6 fork
uprobe-cli add -n sdt_tick "$S:sdt:sdt_target:tick"
check $? "add places the marker's probe, on its file"
out=$(let_go)
echo "$out" | sed 's/^/# /'
[ "$out" = "child guarded 6
guarded 6" ]
check $? "a process running before, and its child forked after: 6 each"
[ "$(hits sdt_tick)" = 12 ]
check $? "12 hits"
[ "$("$S" run 4)" = "guarded 4" ] && [ "$(hits sdt_tick)" = 16 ]
check $? "a process started after the placement: 4 more"

held 3
uprobe-cli del sdt_tick
out=$(let_go)
[ "$out" = "guarded 0" ]
check $? "the removal lowers the semaphore of a process running on"

out=$(uprobe-cli trace "$S:sdt:sdt_target:tick" -- "$S" run 3 2>&1)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -Ec 'sdt_target:tick +arg0=([0-2]) arg1=[1-3]$')" = 3 ] &&
	echo "$out" | grep -q 'arg0=0 arg1=1$' &&
	echo "$out" | grep -q 'arg0=2 arg1=3$'
check $? "trace: the marker's arguments as arg0 and arg1"

out=$(uprobe-cli trace "$S:sdt:sdt_target:*" -- "$S" run 1 2>&1)
[ $? != 0 ] && [ "$out" = "uprobe-cli: sdt_target:plain and sdt_target:tick have different arguments: name the values (arg0, arg1...)" ]
check $? "trace refuses markers of different arguments without values, saying why"
echo "# $out"

out=$(uprobe-cli count -e libstdc++:sdt:libstdcxx:throw \
	-e libstdc++:sdt:libstdcxx:catch -- "$X" 5 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq '^ +5  libstdc\+\+\.so\.6[.0-9]*:libstdcxx:throw$' &&
	echo "$out" | grep -Eq '^ +5  libstdc\+\+\.so\.6[.0-9]*:libstdcxx:catch$'
check $? "libstdc++'s markers: 5 throws, 5 catches"
lib=$(uprobe-cli resolve libstdc++:sdt:libstdcxx:throw | cut -d' ' -f1,2)
m=$(mainline ${lib% *} ${lib#* } "$X" 5)
echo "# mainline: $m"
[ "$m" = 5 ]
check $? "mainline counts libstdcxx:throw 5 times too"

# a Python program collecting its garbage N times: python:gc__start
# fires for each collection, its argument the generation (2); the
# interpreter collects more on its own, the same each time with the
# same hash seed
export PYTHONHASHSEED=0
pyprog() {
	printf 'import gc\nfor _ in range(%d):\n    gc.collect()\n' "$1"
}
# pycount N: our count of gc__start while that program runs
pycount() {
	uprobe-cli count -e python3.11:sdt:python:gc__start -- \
		python3.11 -S -c "$(pyprog "$1")" |
		awk '/python:gc__start$/ { print $1 }'
}
# gen2 N: the collections of generation 2 among them, traced
gen2() {
	uprobe-cli trace python3.11:sdt:python:gc__start -- \
		python3.11 -S -c "$(pyprog "$1")" | grep -c 'arg0=2$'
}
g25=$(gen2 25)
g50=$(gen2 50)
echo "# generation 2: $g25 with 25 collections, $g50 with 50"
[ "$g25" -ge 25 ] && [ $((g50 - g25)) = 25 ]
check $? "Python's gc__start, behind its semaphore: traced with its argument, one per collection"
ours=$(pycount 25)
set -- $(uprobe-cli funcs --sdt python3.11 'python:gc__start' |
	awk 'NR == 2 { print $3, $4 }')
m=$(mainline /usr/bin/python3.11 "$1($2)" python3.11 -S -c "$(pyprog 25)")
echo "# ours $ours, mainline $m (offset $1, semaphore $2)"
[ -n "$ours" ] && [ "$ours" -ge 25 ] && [ "$ours" = "$m" ]
check $? "and our count is mainline's, with the same offset and semaphore"

before=$(cat $TR/utprobe_events)
echo "p:sdt_bad $S:0x1300(0x3051)" >> $TR/utprobe_events 2>/dev/null
st1=$?
echo "p:sdt_bad $S:0x1300(0)" >> $TR/utprobe_events 2>/dev/null
st2=$?
echo "p:sdt_bad $$:0x1000(0x3050)" >> $TR/utprobe_events 2>/dev/null
st3=$?
[ $st1 != 0 ] && [ $st2 != 0 ] && [ $st3 != 0 ] &&
	[ "$(cat $TR/utprobe_events)" = "$before" ]
check $? "a semaphore at an odd offset, at 0, or on a process is refused"

out=$(uprobe-cli add -p $$ "$S:sdt:sdt_target:tick" 2>&1)
[ $? != 0 ] && echo "$out" | grep -q "semaphore is probed on its file"
check $? "add -p refuses a marker with a semaphore, saying why"
echo "# $out"
out=$(uprobe-cli count -e "$S:sdt:sdt_target:tick%return" -- true 2>&1)
[ $? != 0 ] && echo "$out" | grep -q "not an SDT marker"
check $? "a return probe on a marker is refused, saying why"
echo "# $out"
[ -z "$(cat $TR/utprobe_events)" ]
check $? "no probe left behind"
ktap_finished
