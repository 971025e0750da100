#!/bin/sh
# Probes entered by a jump on Debian's own programs, against mainline
# uprobes in the same boot: bash (forking a child for each command
# substitution) and sqlite3 (its library's functions, under a fixed
# workload) count exactly what mainline counts on the same offsets; a
# bash that runs on shows its probe in jump mode.
TR=/sys/kernel/tracing
. /usr/libexec/utrace-tests/utp_helpers.sh

# mainline SPEC... -- CMD...: run CMD with a mainline uprobe on each
# SPEC, print each one's hits, in order
mainline() {
	k=0
	while [ "$1" != -- ]; do
		off=$(uprobe-cli resolve "$1" | cut -d' ' -f1-2 | tr ' ' :)
		echo "p:real/p$k $off" >> $TR/uprobe_events
		k=$((k + 1))
		shift
	done
	shift
	echo 1 > $TR/events/real/enable
	"$@" > /dev/null
	echo 0 > $TR/events/real/enable
	for i in $(seq 0 $((k - 1))); do
		awk -v n=p$i '$2 == n { print $3 }' $TR/uprobe_profile
		echo "-:real/p$i" >> $TR/uprobe_events
	done
}

# ours SPEC... -- CMD...: the same with uprobe-cli count, jumps allowed
ours() {
	args=
	while [ "$1" != -- ]; do
		args="$args -e $1"
		shift
	done
	shift
	uprobe-cli count -j $args -- "$@" |
		sed 's/},{/}\n{/g' | sed -n 's/.*"hits":\([0-9]*\).*/\1/p'
}

ktap_print_header
ktap_set_plan 3

W='for i in $(seq 1 150); do x=$(echo $i); done'
set -- bash:execute_command bash:make_child bash:xmalloc
m=$(mainline "$@" -- bash -c "$W" | tr '\n' ' ')
o=$(ours "$@" -- bash -c "$W" | tr '\n' ' ')
echo "# bash: mainline $m; ours $o"
[ -n "$o" ] && [ "$m" = "$o" ]
check $? "bash, 150 command substitutions: the same counts as mainline"

SQL="create table t(a, b);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 500)
insert into t select x, x * x from c;
select count(*), sum(b) from t where a % 7 = 3;
select a from t where b > 1000 order by a desc limit 20;"
set -- libsqlite3:sqlite3_step libsqlite3:sqlite3_prepare_v2
m=$(mainline "$@" -- sqlite3 :memory: "$SQL" | tr '\n' ' ')
o=$(ours "$@" -- sqlite3 :memory: "$SQL" | tr '\n' ' ')
echo "# sqlite3: mainline $m; ours $o"
[ -n "$o" ] && [ "$m" = "$o" ]
check $? "sqlite3, a fixed workload: the same counts as mainline"

# a bash that runs on: its execute_command() in jump mode
bash -c 'while :; do sleep 0.1; done' &
pid=$!
uprobe-cli add -p $pid bash:execute_command --name ec
for i in $(seq 100); do
	mode=$(uprobe-cli list | awk '$1 == "ec" { print $NF }')
	[ "$mode" = trap:pending ] || break
	sleep 0.1
done
echo "# mode: $mode"
[ "$mode" = jump ]
check $? "a running bash's execute_command() is entered by a jump"
uprobe-cli del ec
kill $pid
wait $pid 2> /dev/null
ktap_finished
