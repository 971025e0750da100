#!/bin/sh
# uprobe-cli in the guest: "count" reports the exact number of calls of
# a program's own function and of a libc function, its children's calls
# included; a bad spec is refused with a message and runs nothing; a
# probe the kernel refuses leaves none of the command's probes behind;
# on bash from Debian's packages its counts equal mainline uprobes' in
# the same boot (the demo of "make run").
T=/usr/libexec/utrace-tests/targets/probe_target
. /usr/libexec/utrace-tests/utp_helpers.sh

# held N: start "$T" wait N in the background (its pid in $pid), and
# return once it has printed where work() and getppid() are: then its
# program and libc are mapped and it waits on fd 4 for a line to run.
# let_go lets it run and waits for its end (in a subshell: should it be
# gone already, the write's SIGPIPE ends that, not the test).
held() {
	mkfifo /tmp/cli-in.$$ /tmp/cli-out.$$
	"$T" wait "$1" < /tmp/cli-in.$$ > /tmp/cli-out.$$ &
	pid=$! self= libc=
	exec 4> /tmp/cli-in.$$ 5< /tmp/cli-out.$$
	read -r self <&5 && read -r libc <&5
	exec 5<&-
	rm -f /tmp/cli-in.$$ /tmp/cli-out.$$
	case "$self/$libc" in
	"self $(readlink -f "$T") "*"/libc "*) return 0 ;;
	esac
	echo "# $T wait $1 printed '$self' and '$libc', not where it is"
	return 1
}
let_go() {
	(echo go >&4) 2>/dev/null
	exec 4>&-
	wait $pid
}

ktap_print_header
ktap_set_plan 24
out=$(uprobe-cli count -e "$T:work" -e libc:getppid -- "$T" run 300 fork 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
check $st "count runs the command, which exits 0"
echo "$out" | grep -Eq '^ +600  probe_target:work$'
check $? "work: 600 hits (300 in the parent, 300 in its child)"
echo "$out" | grep -Eq '^ +600  libc\.so\.6:getppid$'
check $? "libc getppid: 600 hits"
[ -z "$(uprobe-cli list | sed 1d)" ]
check $? "no probe left behind"
# framed() is entered by a jump, work() (lea; ret) traps: exact counts
# both ways, and list says which while they are in
held 400 && uprobe-cli add -p $pid "$T:framed" --name fr &&
	uprobe-cli add -p $pid "$T:work" --name wk
check $? "add -p PID: framed and work"
for i in $(seq 600); do
	out=$(uprobe-cli list)
	echo "$out" | grep -Eq "^fr .* trap:(pending|busy)$" || break
	sleep 0.1
done
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq "^fr .* 0 jump$" &&
	echo "$out" | grep -Eq "^wk .* 0 trap:window$"
ok=$?
let_go
out=$(uprobe-cli list -j)
echo "$out" | grep -q '"name":"fr",[^}]*"hits":400,' &&
	echo "$out" | grep -q '"name":"wk",[^}]*"hits":400,'
check $(( ok + $? )) "list: fr in jump mode, wk traps (window); 400 calls each"
uprobe-cli del fr wk
out=$(uprobe-cli count -e "$T:wokr" -- "$T" run 1 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st != 0 ] && echo "$out" | grep -q "no function 'wokr' (did you mean: work"
check $? "a misspelt function is named, with a suggestion"
out=$(uprobe-cli count -j -e "$T:work" -- "$T" run 5 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq '"function":"work","offset":0,"file_offset":[0-9]+,"hits":5}'
check $? "-j prints JSON with the hits"
# add -p: a probe on one running process, listed with its hits
held 7 && uprobe-cli add -p $pid libc:getppid --name ppid
check $? "add -p PID libc:getppid"
let_go
out=$(uprobe-cli list)
echo "$out" | sed 's/^/# /'
# its process gone, it has no place, and no mode
echo "$out" | grep -Eq "^ppid +$pid:(0x[0-9a-f]+) +\1 +- +7 none$"
check $? "list: the probe on the process, 7 hits"
out=$(uprobe-cli list --format=openmetrics)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q "^uprobe_hits_total{probe=\"ppid\",target=\"$pid:0x[0-9a-f]*\",function=\"\"} 7$" &&
	[ "$(echo "$out" | tail -1)" = "# EOF" ]
check $? "list --format=openmetrics: a counter sample, then # EOF"
uprobe-cli list -j | grep -q '"name":"ppid",[^}]*"hits":7,"mode":"none"}'
check $? "list -j"
out=$(uprobe-cli stat -i 0.2 -n 1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq "^ppid .* 7 +0\.0$"
check $? "stat: hits and a rate of 0 now that the process is gone"
uprobe-cli del --all

# an instruction the kernel refuses: the probe added before it goes too
out=$(uprobe-cli add "$T:work" "$T:privileged" 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st != 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
	echo "$out" | grep -q "^uprobe-cli: privileged (privileged+0, $T:0x[0-9a-f]*): the kernel refuses to probe this instruction$"
check $? "a refused instruction: one line naming the probe and the reason"
[ -z "$(uprobe-cli list | sed 1d)" ]
check $? "the command's other probe was removed again"

# a mainline uprobe's int3 in a running process: the place is taken
off=$(uprobe-cli resolve "$T:work" | cut -d' ' -f2)
TR=/sys/kernel/tracing
echo "p:cli/work $T:$off" >> $TR/uprobe_events
echo 1 > $TR/events/cli/work/enable
held 1
ready=$?
out=$(uprobe-cli add "$T:work" 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $ready = 0 ] && [ $st != 0 ] &&
	echo "$out" | grep -q "another breakpoint is there already"
check $? "a mainline uprobe on the instruction: refused as busy"
let_go
echo 0 > $TR/events/cli/work/enable
echo "-:cli/work" >> $TR/uprobe_events
[ -z "$(uprobe-cli list | sed 1d)" ]
check $? "nothing left after the refusal"

out=$(uprobe-cli count --format=openmetrics -e "$T:work" -- "$T" run 3 2>&1)
echo "$out" | sed 's/^/# /'
[ "$out" = "# TYPE uprobe_hits counter
# HELP uprobe_hits Times a utprobe was hit.
uprobe_hits_total{binary=\"$(readlink -f "$T")\",function=\"work\",offset=\"0\"} 3
# EOF" ]
check $? "count --format=openmetrics: one sample with the 3 hits"

# return probes: calls and returns side by side, and latency
R=/usr/libexec/utrace-tests/targets/ret_target
out=$(uprobe-cli count -e "$R:rp_outer%return" -e "$R:rp_leaf" -- "$R" nested 50 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st = 0 ] && echo "$out" | grep -Eq '^ +50  +50  ret_target:rp_outer%return$' &&
	echo "$out" | grep -Eq '^ +100  +-  ret_target:rp_leaf$'
check $? "count: 50 calls and 50 returns of rp_outer, 100 calls of rp_leaf"
out=$(uprobe-cli latency "$R:rp_sleep" -- "$R" sleep 5 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st = 0 ] && echo "$out" | grep -q "^ret_target:rp_sleep  calls 5  returns 5  min "
check $? "latency: the header counts 5 calls and 5 returns"
echo "$out" | grep -Eq '^\[268ms, 537ms\) +5 \|#{40}\|$'
check $? "latency: the five 300 ms sleeps in the bucket [268ms, 537ms)"
out=$(uprobe-cli latency -j "$R:rp_sleep" -- "$R" sleep 2 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '"calls":2,"returns":2,"unwound":0,"missed":0' &&
	echo "$out" | grep -q '"buckets":\[{"lo_ns":268435456,"hi_ns":536870912,"count":2}\]'
check $? "latency -j: the counts and the one bucket"

# bash, a real program: counts equal mainline uprobes' in this boot
out=$(/usr/libexec/utrace-tests/demo 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
check $st "demo: uprobe-cli's counts on bash and libc equal mainline uprobes'"
echo "$out" | grep -Eq '^bash:make_child +11 +11 +same$'
check $? "bash forked its 11 children: make_child 11 times in both"
ktap_finished
