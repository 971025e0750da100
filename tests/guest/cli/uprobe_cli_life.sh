#!/bin/sh
# uprobe-cli's probes and their lifetime, and containers: probes of count
# and trace die with the command, however it dies (SIGKILL), leaving no
# probe and no engine, and an event kept on by the dead command's trace
# instance goes at the next command's start; those of add outlive it.
# In containers: count counts a command run in new pid and mount
# namespaces; a file probe on a path in a container's root counts its
# processes; add -p finds a path in the root of the process it probes.
T=/usr/libexec/utrace-tests/targets/probe_target
TS=/usr/libexec/utrace-tests/targets/probe_target_static
R=/tmp/cli-ctr.$$
. /usr/libexec/utrace-tests/utp_helpers.sh

# child_of PID: the pid of PID's child (the first one found)
child_of() {
	for s in /proc/[0-9]*/stat; do
		read -r c _ _ pp _ < "$s" 2>/dev/null || continue
		[ "$pp" = "$1" ] && { echo "$c"; return 0; }
	done
	return 1
}

# engine_gone PID: 0 once every thread of PID shows "Utrace: 0" (60 s
# at most: a slow kernel took seconds)
engine_gone() {
	for i in $(seq 600); do
		grep -q "^Utrace:[[:space:]]*[1-9]" /proc/"$1"/task/*/status ||
			return 0
		sleep 0.1
	done
	return 1
}

# killed CMD...: run "uprobe-cli CMD... -- sh -c '$T wait 10'" in the
# background until its target waits for its line (the probes are in),
# then SIGKILL uprobe-cli.  $tpid is the target's pid; let_go lets the
# target run and prints how it ended.
killed() {
	mkfifo /tmp/life-in.$$ /tmp/life-out.$$
	uprobe-cli "$@" -- \
		sh -c "exec > /tmp/life-out.$$; $T wait 10; echo status \$?" \
		< /tmp/life-in.$$ > /dev/null 2>&1 &
	cli=$!
	exec 4> /tmp/life-in.$$ 5< /tmp/life-out.$$
	rm -f /tmp/life-in.$$ /tmp/life-out.$$
	read -r self <&5 && read -r libc <&5
	sh=$(child_of $cli) && tpid=$(child_of "$sh")
	listed=$(uprobe-cli list | sed 1d)
	echo "$listed" | sed 's/^/# listed: /'
	kill -KILL $cli
	wait $cli
	echo "# uprobe-cli $1 killed (status $?), target $tpid"
}
let_go() {
	echo go >&4
	exec 4>&-
	read -r ended <&5
	exec 5<&-
	echo "$ended"
}

ktap_print_header
ktap_set_plan 17

killed count -e "$T:work"
[ -n "$tpid" ] && echo "$listed" | grep -q "count[0-9a-f]*_[0-9]*_0_work "
check $? "count's probe is in while it runs"
[ -z "$(uprobe-cli list | sed 1d)" ] && [ -z "$(cat /sys/kernel/tracing/utprobe_events)" ]
check $? "count killed with SIGKILL: no probe left"
engine_gone "$tpid"
check $? "count killed with SIGKILL: no engine left on its target"
[ "$(let_go)" = "status 0" ]
check $? "its target runs on and ends well (no int3 left)"

uprobe-cli add -n life_add "$T:work"
st=$?
"$T" run 7
[ $st = 0 ] && [ "$(hits life_add)" = 7 ]
check $? "add's probe outlives the command: 7 hits"
uprobe-cli del life_add

killed trace "$T:work"
ev=$(echo "$listed" | sed -n 's/^ *\(trace[0-9a-f]*_[0-9]*_0_work\) .*/\1/p')
echo "# event utprobes/$ev"
[ -n "$ev" ] && [ -z "$(cat /sys/kernel/tracing/utprobe_events)" ] &&
	engine_gone "$tpid"
check $? "trace killed with SIGKILL: no probe, no engine left"
[ -d /sys/kernel/tracing/events/utprobes/"$ev" ]
check $? "its event stays, on in the dead command's instance"
[ "$(let_go)" = "status 0" ]
check $? "its target runs on and ends well"
out=$(uprobe-cli trace "$T:work" -- "$T" run 3 2>&1)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c 'work')" = 3 ] &&
	[ ! -d /sys/kernel/tracing/events/utprobes/"$ev" ] &&
	[ -z "$(ls /sys/kernel/tracing/instances)" ]
check $? "the next trace removes the dead one's instance, and the event goes"

# containers
out=$(uprobe-cli count -e "$T:work" -- unshare -p -f -m "$T" run 40 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq '^ +40  probe_target:work$'
check $? "count: 40 hits in new pid and mount namespaces"

# Two counts at once, each pid 2 of a pid namespace of its own (the
# shell is 1): their probes' names do not collide.
for i in 1 2; do
	unshare -p -f sh -c "uprobe-cli count -e $T:work -- sh -c 'sleep 2; $T run 1$i'; :" \
		> /tmp/life-ns$i.$$ 2>&1 &
done
wait
cat /tmp/life-ns1.$$ /tmp/life-ns2.$$ | sed 's/^/# /'
grep -Eq '^ +11  probe_target:work$' /tmp/life-ns1.$$ &&
	grep -Eq '^ +12  probe_target:work$' /tmp/life-ns2.$$
check $? "two counts, each pid 2 in its own pid namespace, count 11 and 12"
rm -f /tmp/life-ns1.$$ /tmp/life-ns2.$$

mkdir -p $R/bin $R/proc
cp "$TS" $R/bin/ctr_target
ln -s /bin/ctr_target $R/bin/ctr_link
uprobe-cli add -n ctr_file $R/bin/ctr_target:work &&
	unshare -p -f -m chroot $R /bin/ctr_target run 30
st=$?
echo "# status $st, hits $(hits ctr_file)"
[ $st = 0 ] && [ "$(hits ctr_file)" = 30 ]
check $? "a file probe in a container's root: 30 hits of its process"
uprobe-cli del ctr_file

mkfifo /tmp/life-in.$$ /tmp/life-out.$$
unshare -p -f -m sh -c "mount -t proc proc $R/proc && exec chroot $R /bin/ctr_target wait 20" \
	< /tmp/life-in.$$ > /tmp/life-out.$$ &
ctr=$!
exec 4> /tmp/life-in.$$ 5< /tmp/life-out.$$
rm -f /tmp/life-in.$$ /tmp/life-out.$$
read -r self <&5
echo "# in the container: $self"
cpid=
for c in /proc/[0-9]*; do
	[ "$(cat $c/comm 2>/dev/null)" = ctr_target ] && cpid=${c#/proc/}
done
out=$(uprobe-cli resolve -p "$cpid" /bin/ctr_target:work 2>&1)
echo "# $out"
echo "$out" | grep -q "^/proc/$cpid/root/bin/ctr_target "
check $? "resolve -p finds /bin/ctr_target in the container's root"
# a link to an absolute path, which means the container's /bin, not ours
out=$(uprobe-cli resolve -p "$cpid" /bin/ctr_link:work 2>&1)
echo "# $out"
echo "$out" | grep -q "^/proc/$cpid/root/bin/ctr_target "
check $? "and follows a link there in the container's root, not ours"
uprobe-cli add -p "$cpid" -n ctr_pid /bin/ctr_target:work
check $? "add -p places a probe on the container's process"
out=$(uprobe-cli add -p "$cpid" /bin/nothing:work 2>&1)
[ $? != 0 ] && echo "$out" | grep -q "/proc/$cpid/root/bin/nothing"
check $? "a path missing in the container's root is named"
echo "# $out"
echo go >&4
exec 4>&- 5<&-
wait $ctr
st=$?
echo "# status $st, hits $(hits ctr_pid)"
sed 's/^/# /' /sys/kernel/tracing/utprobe_events
[ $st = 0 ] && [ "$(hits ctr_pid)" = 20 ]
check $? "its probe: 20 hits"
uprobe-cli del ctr_pid
rm -rf $R
ktap_finished
