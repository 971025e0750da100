#!/bin/sh
# uprobe-cli top, on its screen: run in a tmux pane, read back with
# capture-pane.  The known hottest function of a program is on the first
# row, entered by a jump, and when the program ends its total equals the
# calls the program made, and so does that of a function of its libc,
# which top probes too; q quits a view of a running process and its
# probes go; -j prints one JSON object per interval.
#
# UTP_TOP_SPECS gives top specs instead of its default (every function
# of the program and its libraries), for the debug kernel, which takes
# minutes to place thousands of probes: the program's functions only.
TT=/usr/libexec/utrace-tests/targets/top_target
W=/tmp/cli-top.$$
SPECS=${UTP_TOP_SPECS:-}
. /usr/libexec/utrace-tests/utp_helpers.sh

mkdir -p $W
export TERM=screen LC_ALL=C.UTF-8
# start_top NAME ARGS...: top in a detached 120x30 pane, kept after it
# ends (the shell says how it ended, then sleeps)
start_top() {
	name=$1
	shift
	tmux -S $W/sock new-session -d -s "$name" -x 120 -y 30 \
		"uprobe-cli top $*; echo exit=\$?; sleep 600"
}
screen_of() {
	tmux -S $W/sock capture-pane -p -t "$1"
}
# wait_screen NAME PATTERN: until the pane shows PATTERN (300 s at most:
# top places thousands of probes first, and removes them at the end)
wait_screen() {
	for i in $(seq 3000); do
		screen_of "$1" | grep -Eq "$2" && return 0
		sleep 0.1
	done
	return 1
}

ktap_print_header
ktap_set_plan 5

# a command under top: hot() on the first row while it runs, in jump mode
# (it runs until told to stop: a slow kernel may take seconds to put the
# jump in).  40 rounds at least: libc's usleep, called once a round, then
# outnumbers the dynamic linker's start-up calls, and has a row of the
# final view (8 rounds once left it below the screen's last row)
start_top run -i 0.5 $SPECS -- $TT 40 $W/calls $W/stop
wait_screen run "^ +[0-9]+ +[0-9]+ +jump +top_target:hot$"
st=$?
screen_of run | sed 's/^/# /'
first=$(screen_of run | sed -n 3p)
echo "$first" | grep -Eq " jump +top_target:hot$"
check $((st + $?)) "while it runs, hot() is the first row, in jump mode"
touch $W/stop
# once it ends: the final view, by totals, and the program's own counts
wait_screen run "^exit=0$"
st=$?
screen_of run | sed 's/^/# /'
sed 's/^/# the program: /' $W/calls
read -r _ hot _ warm _ cold _ rounds < $W/calls
screen_of run | sed -n 3p | grep -Eq "^ +[0-9]+ +$hot +[a-z:-]+ +top_target:hot$" &&
	screen_of run | grep -Eq "^ +[0-9]+ +$warm +[a-z:-]+ +top_target:warm$" &&
	screen_of run | grep -Eq "^ +[0-9]+ +$cold +[a-z:-]+ +top_target:cold$" &&
	{ [ -n "$SPECS" ] ||
	  screen_of run | grep -Eq "^ +[0-9]+ +$rounds +[a-z:-]+ +libc.so.6:usleep$"; }
check $((st + $?)) "at the end: hot $hot, warm $warm, cold $cold calls, libc's usleep $rounds, as counted"

# a running process, q: top ends and its probes go
$TT wait &
pid=$!
start_top pid -i 0.3 -p $pid $SPECS
wait_screen pid "top_target:hot$"
st=$?
tmux -S $W/sock send-keys -t pid q
wait_screen pid "^exit=0$"
check $((st + $?)) "-p PID: q quits, exit 0"
grep -q "^top" /sys/kernel/tracing/utprobe_profile
[ $? = 1 ] && kill -0 $pid
check $? "its probes are gone, the process runs on"
kill $pid
wait $pid 2> /dev/null

# -j: one object per interval, the hottest first once the program calls
# (on a slow machine the first intervals may come before its first call;
# it may end before the fifth)
out=$(uprobe-cli top -j -n 5 -i 0.3 $SPECS -- $TT 10 $W/calls2 2>&1)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c '^{"time":')" -ge 2 ] &&
	echo "$out" | grep -q '"functions":\[{"function":"top_target:hot",'
check $? "-j: an object per interval, hot() first"

tmux -S $W/sock kill-server 2> /dev/null
rm -rf $W
ktap_finished
