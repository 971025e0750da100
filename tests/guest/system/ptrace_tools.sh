#!/bin/sh
# Real debugging tools from Debian's packages on probed processes: strace
# run under "uprobe-cli count", strace -p attached to a probed process,
# a probe added to a process strace already traces, and gdb -p breaking,
# stepping and finishing in a probed function, with probes added while
# gdb holds the process stopped.  strace's log has the program's system
# calls, gdb sees the registers an unprobed program would have, the
# program's output and exit status are unchanged, and the hit counts are
# exact (and equal to mainline uprobes' on the same command).
T=/usr/libexec/utrace-tests/targets/probe_target
G=/usr/libexec/utrace-tests/targets/gdb_target
TR=/sys/kernel/tracing
LOG=/tmp/ptrace_tools.strace
. /usr/libexec/utrace-tests/utp_helpers.sh

# wait until process $1 is asleep (blocked reading its fifo) with $2
# mapped (libc by default), at most 30 s
asleep() {
	i=0
	while [ $i -lt 300 ]; do
		[ "$(cut -d' ' -f3 /proc/"$1"/stat 2>/dev/null)" = S ] &&
			grep -q "${2:-libc}" /proc/"$1"/maps 2>/dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait until strace, its messages in file $2, says it attached to process
# $1 (60 s at most).  Its tracer pid is set before it has interrupted the
# process, which could make system calls meanwhile that strace misses.
attached() {
	i=0
	while [ $i -lt 600 ]; do
		grep -q "Process $1 attached" "$2" 2> /dev/null && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait until process $1 has a tracer, at most 30 s
traced() {
	i=0
	while [ $i -lt 300 ]; do
		[ "$(awk '/^TracerPid:/ { print $2 }' /proc/"$1"/status)" != 0 ] &&
			return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

ktap_print_header
ktap_set_plan 20

# 1. strace under uprobe-cli count: the probes reach strace's tracees
out=$(uprobe-cli count -e "$T:work" -e libc:getppid -- \
	strace -f -o $LOG "$T" run 300 fork 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
check $st "count -- strace -f PROG: exit status 0"
echo "$out" | grep -Eq '^ +600  probe_target:work$' &&
	echo "$out" | grep -Eq '^ +600  libc\.so\.6:getppid$'
check $? "600 hits of work and of getppid, as without strace"
# two processes: a call may be logged "getppid( <unfinished ...>"
echo "# strace's log: $(grep -c 'getppid(' $LOG) getppid, $(grep -c '+++ exited with 0 +++' $LOG) exits with 0"
[ "$(grep -c 'getppid(' $LOG)" = 600 ] &&
	[ "$(grep -c '+++ exited with 0 +++' $LOG)" = 2 ]
check $? "strace's log: 600 getppid calls, both processes exit 0"

# 2. libc read and write under strace (sh is static: only strace and
# the program call them), counted in the same run by utprobes at each
# function's first instruction and by mainline uprobes at its second
# (the first offset that is an instruction's start; every call runs
# it), whose hits are taken from the trace for those two programs:
# strace's own reads vary from run to run
for fn in read write; do
	off=1
	while [ $off -lt 16 ] &&
		! uprobe-cli resolve libc:$fn+$off > /dev/null 2>&1; do
		off=$((off + 1))
	done
	set -- $(uprobe-cli resolve libc:$fn+$off)
	echo "# mainline: libc:$fn+$off at $1:$2"
	echo "p:ptt/$fn $1:$2" >> $TR/uprobe_events
done
echo > $TR/trace
echo 1 > $TR/events/ptt/enable
CMD="strace -f -o $LOG $T print 40 > /tmp/ptrace_tools.out"
out=$(uprobe-cli count -e libc:read -e libc:write -- sh -c "$CMD" 2>&1)
st=$?
echo 0 > $TR/events/ptt/enable
echo "$out" | sed 's/^/# /'
[ $st = 0 ] && [ "$(wc -l < /tmp/ptrace_tools.out)" = 40 ] &&
	[ "$(sed -n 40p /tmp/ptrace_tools.out)" = "$("$T" print 40 | sed -n 40p)" ]
check $? "count -- strace PROG print: exit 0, the program's output unchanged"
ours_r=$(echo "$out" | awk '$2 == "libc.so.6:read" { print $1 }')
ours_w=$(echo "$out" | awk '$2 == "libc.so.6:write" { print $1 }')
# The CLI's child reads a pipe until the probes are in, then executes
# the command: that call, made before our probe existed and with the
# CLI's libc address, is the CLI's, not the command's.
main_count() {
	cli=$(awk -v e="$1:" '$1 ~ /^uprobe-cli-/ && $(NF - 1) == e { print $NF; exit }' $TR/trace)
	awk -v e="$1:" -v cli="${cli:-none}" \
		'$1 ~ /^(strace|probe_target)-[0-9]+$/ && $(NF - 1) == e && $NF != cli { n++ }
		 END { print n + 0 }' $TR/trace
}
main_r=$(main_count read)
main_w=$(main_count write)
echo "-:ptt/read" >> $TR/uprobe_events
echo "-:ptt/write" >> $TR/uprobe_events
echo "# read: utprobes $ours_r, mainline $main_r; write: utprobes $ours_w, mainline $main_w"
[ -n "$ours_r" ] && [ "$ours_r" -gt 0 ] && [ "$ours_r" = "$main_r" ] &&
	[ -n "$ours_w" ] && [ "$ours_w" -gt 0 ] && [ "$ours_w" = "$main_w" ]
check $? "libc read and write: the counts equal mainline uprobes'"

# 3. strace -p on a process with a pid probe and a file probe
mkfifo /tmp/ptt-fifo.$$
"$T" wait 300 < /tmp/ptt-fifo.$$ > /dev/null &
pid=$!
exec 4> /tmp/ptt-fifo.$$
asleep $pid
uprobe-cli add -p $pid libc:getppid --name ptt_pid &&
	uprobe-cli add "$T:work" --name ptt_file
check $? "a pid probe and a file probe on the process"
strace -p $pid -o $LOG 2> $LOG.err &
spid=$!
attached $pid $LOG.err
check $? "strace -p attaches to the probed process"
echo go >&4
exec 4>&-
wait $pid
st=$?
wait $spid
[ $st = 0 ] && [ "$(hits ptt_pid)" = 300 ] && [ "$(hits ptt_file)" = 300 ] &&
	[ "$(grep -c 'getppid(' $LOG)" = 300 ]
check $? "under strace -p: exit 0, 300 hits each, 300 getppid in the log"
uprobe-cli del --all

# 4. a probe added to a process strace already traces
"$T" wait 200 < /tmp/ptt-fifo.$$ > /dev/null &
pid=$!
exec 4> /tmp/ptt-fifo.$$
asleep $pid
strace -p $pid -o $LOG 2> $LOG.err &
spid=$!
attached $pid $LOG.err
uprobe-cli add -p $pid libc:getppid --name ptt_late
check $? "add -p on a process under strace"
echo go >&4
exec 4>&-
wait $pid
st=$?
wait $spid
[ $st = 0 ] && [ "$(hits ptt_late)" = 200 ] &&
	[ "$(grep -c 'getppid(' $LOG)" = 200 ]
check $? "exit 0, 200 hits, 200 getppid in strace's log"
uprobe-cli del --all
[ -z "$(uprobe-cli list | sed 1d)" ]
check $? "no probe left"

# 5. the process tracer follows a tree that strace traces too
sh -c "read x < /tmp/ptt-fifo.$$; strace -f -o $LOG $T run 3 fork > /dev/null" &
pid=$!
asleep $pid /
echo $pid > $TR/process_follow_pid
echo process > $TR/current_tracer
echo go > /tmp/ptt-fifo.$$
wait $pid
st=$?
grep -v '^#' $TR/trace > /tmp/ptrace_tools.trace
echo nop > $TR/current_tracer
echo 0 > $TR/process_follow_pid
sed -n '1,5p;$p' /tmp/ptrace_tools.trace | sed 's/^/# /'
[ $st = 0 ] &&
	[ "$(grep -c 'exec comm=strace ' /tmp/ptrace_tools.trace)" = 1 ] &&
	[ "$(grep -c 'exec comm=probe_target ' /tmp/ptrace_tools.trace)" = 1 ]
check $? "process tracer: the exec of strace and of the traced program"
# getppid is system call 110; strace makes none
[ "$(grep -c 'syscall_enter nr=110 ' /tmp/ptrace_tools.trace)" = 6 ] &&
	[ "$(grep -c 'getppid(' $LOG)" = 6 ] &&
	[ "$(grep -c 'probe_target-.* exit code=0x0 status=0' /tmp/ptrace_tools.trace)" = 2 ]
check $? "both see the 6 getppid calls; both processes exit 0"

# 6. gdb -p on a process with a pid probe (probed's first instruction,
# "push %rbp") and a file probe (libc's getppid).  gdb reads the text
# without our int3s: "break probed" goes after the prologue, as without
# the probe.  Stepping into the call lands on our int3, and "stepi" must
# run exactly the push.  While gdb holds the process stopped, a pid
# probe on the next instruction and a file probe on getuid are added.
# Then "break *probed" puts gdb's breakpoint on our int3: gdb stops
# there at each call, and steps over it (out of line, with the bytes it
# read), the call counted once.  The counts are read at each stop
# through gdb's shell.
N=50
"$G" $N < /tmp/ptt-fifo.$$ > /tmp/ptrace_tools.out &
pid=$!
exec 4> /tmp/ptt-fifo.$$
asleep $pid
uprobe-cli add -p $pid "$G:probed" --name gdbt_entry &&
	uprobe-cli add libc:getppid --name gdbt_getppid
check $? "a pid probe and a file probe on gdb's target"
cat > /tmp/gdbt.sh <<EOS
#!/bin/sh
# gdbt.sh late: add the probes; gdbt.sh WHERE: the four hit counts
h() {
	awk -v p="\$1" '\$1 == p { n = \$NF } END { print n == "" ? "-" : n }' \\
		$TR/utprobe_profile
}
case \$1 in
late)	uprobe-cli add -p $pid "$G:probed+1" --name gdbt_late &&
		uprobe-cli add libc:getuid --name gdbt_getuid &&
		echo late added ;;
*)	echo "hits \$1 \$(h gdbt_entry) \$(h gdbt_getppid) \$(h gdbt_late) \$(h gdbt_getuid)" ;;
esac
EOS
chmod +x /tmp/gdbt.sh
cat > /tmp/gdbt.gdb <<'EOS'
set pagination off
set confirm off
break probed
continue
printf "stop x=%ld after the prologue %d\n", x, $pc == (long)probed + 8
shell /tmp/gdbt.sh stop
shell /tmp/gdbt.sh late
finish
set $ret = $pc
printf "call %d\n", *(unsigned char *)($ret - 5) == 0xe8
delete
tbreak *($ret - 5)
continue
printf "at_call %d\n", $pc == $ret - 5
stepi
printf "at_entry %d\n", $pc == (long)probed
shell /tmp/gdbt.sh entry
set $sp0 = $sp
set $rbp0 = $rbp
set $rdi0 = $rdi
stepi
printf "push %d %d %d %d\n", $pc == (long)probed + 1, $sp == $sp0 - 8, *(long *)$sp == $rbp0, $rdi == $rdi0
shell /tmp/gdbt.sh push
stepi
printf "mov %d %d %d\n", $pc == (long)probed + 4, $rbp == $sp, $sp == $sp0 - 8
shell /tmp/gdbt.sh mov
break *probed
continue
printf "bp %d %ld\n", $pc == (long)probed, $rdi
shell /tmp/gdbt.sh bp
continue
printf "bp2 %d %ld\n", $pc == (long)probed, $rdi
shell /tmp/gdbt.sh bp2
delete
detach
EOS
gdb -nx -batch -p $pid -x /tmp/gdbt.gdb > /tmp/gdbt.out 2>&1 &
gpid=$!
traced $pid
echo go >&4
exec 4>&-
wait $gpid
gst=$?
wait $pid
st=$?
sed 's/^/# gdb: /' /tmp/gdbt.out
out() {
	grep "^$1" /tmp/gdbt.out
}
[ $gst = 0 ] && [ "$(out stop)" = "stop x=0 after the prologue 1" ] &&
	grep -q '^Value returned is \$[0-9]* = 1$' /tmp/gdbt.out &&
	[ "$(out call)" = "call 1" ] && [ "$(out at_call)" = "at_call 1" ] &&
	[ "$(out at_entry)" = "at_entry 1" ]
check $? "gdb -p: break in the probed function, finish, back to its call"
[ "$(out push)" = "push 1 1 1 1" ] && [ "$(out mov)" = "mov 1 1 1" ]
check $? "stepi over each probed instruction: the next one, registers right"
# at the stops: entry and getppid, then entry+1 from call 1 and getuid
# from call 0 (added while gdb held it in probed())
[ "$(out 'hits stop')" = "hits stop 1 0 - -" ] &&
	[ "$(out late)" = "late added" ] &&
	[ "$(out 'hits entry')" = "hits entry 1 1 0 1" ] &&
	[ "$(out 'hits push')" = "hits push 2 1 0 1" ] &&
	[ "$(out 'hits mov')" = "hits mov 2 1 1 1" ]
check $? "the hit counts at each of gdb's stops, probes added under gdb"
# "break *probed": gdb's breakpoint on our int3, gdb's step over it
[ "$(out 'bp ')" = "bp 1 2" ] && [ "$(out 'hits bp ')" = "hits bp 3 2 1 2" ] &&
	[ "$(out 'bp2 ')" = "bp2 1 3" ] &&
	[ "$(out 'hits bp2')" = "hits bp2 4 3 2 3" ]
check $? "gdb's own breakpoint on the probed instruction: it stops, one hit"
[ $st = 0 ] && [ "$(cat /tmp/ptrace_tools.out)" = "$(printf 'ready\n%d\n' $((3 * N * (N - 1) / 2 + N)))" ]
check $? "after gdb's detach: exit 0, the program's output unchanged"
echo "# hits after gdb: $(hits gdbt_entry) $(hits gdbt_getppid) $(hits gdbt_late) $(hits gdbt_getuid)"
[ "$(hits gdbt_entry)" = $N ] && [ "$(hits gdbt_getppid)" = $N ] &&
	[ "$(hits gdbt_late)" = $((N - 1)) ] && [ "$(hits gdbt_getuid)" = $N ]
check $? "$N, $N, $((N - 1)) and $N hits: each call counted once"
uprobe-cli del --all
rm -f /tmp/ptt-fifo.$$ $LOG $LOG.err /tmp/ptrace_tools.out /tmp/ptrace_tools.trace \
	/tmp/gdbt.sh /tmp/gdbt.gdb /tmp/gdbt.out
ktap_finished
