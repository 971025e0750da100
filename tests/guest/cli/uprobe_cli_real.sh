#!/bin/sh
# Probes entered by a jump on Debian's own programs, against mainline
# uprobes in the same boot: bash (forking a child for each command
# substitution), sqlite3 (its library's functions, under a fixed
# workload) and xz -T4 (four threads encoding blocks) count exactly what
# mainline counts on the same offsets; a bash that runs on shows its
# probe in jump mode, and so does a probe on liblzma in a running xz.
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
ktap_set_plan 5

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

# xz -T4: each block's header is encoded once, by one of four threads
seq 1 100000 > /tmp/xz.in
blocks=$(( ($(wc -c < /tmp/xz.in) + 16383) / 16384 ))
XZ="/usr/bin/xz -T4 --block-size=16384 -c /tmp/xz.in"
set -- liblzma:lzma_block_header_encode liblzma:lzma_index_append
m=$(mainline "$@" -- $XZ | tr '\n' ' ')
o=$(ours "$@" -- $XZ | tr '\n' ' ')
echo "# xz -T4, $blocks blocks: mainline $m; ours $o"
[ "${o%% *}" = "$blocks" ] && [ "$m" = "$o" ]
check $? "xz -T4: one header per block, and the same counts as mainline"

# a probe on the library, in every process: in an xz that runs, its
# stubs are mapped, and the count is one per block.  xz reads its first
# block, then waits for the rest until its stubs are seen (60 s at
# most): a slow kernel puts the jumps in after seconds.
uprobe-cli add liblzma:lzma_block_header_encode --name xzb
go=/tmp/xz.go.$$
{ head -c 16384 /tmp/xz.in
  while [ ! -e $go ]; do sleep 0.1; done
  tail -c +16385 /tmp/xz.in; } |
	/usr/bin/xz -T4 --block-size=16384 -c > /dev/null &
pid=$!
jumped=1
for i in $(seq 600); do
	grep -q utprobes-jump /proc/$pid/maps 2> /dev/null &&
		{ jumped=0; break; }
	sleep 0.1
done
touch $go
wait $pid
st=$?
hits=$(uprobe-cli list -j | sed -n 's/.*"name":"xzb",[^}]*"hits":\([0-9]*\),.*/\1/p')
echo "# xz: exit $st, stubs seen $jumped (0: yes), $hits hits"
uprobe-cli del xzb
rm -f $go
[ $st = 0 ] && [ $jumped = 0 ] && [ "$hits" = "$blocks" ]
check $? "a probe on liblzma enters a running xz -T4 by jumps: one hit per block"

# a bash that runs on: its execute_command() in jump mode
bash -c 'while :; do sleep 0.1; done' &
pid=$!
uprobe-cli add -p $pid bash:execute_command --name ec
for i in $(seq 600); do
	mode=$(uprobe-cli list | awk '$1 == "ec" { print $NF }')
	case $mode in trap:pending | trap:busy) ;; *) break ;; esac
	sleep 0.1
done
echo "# mode: $mode"
[ "$mode" = jump ]
check $? "a running bash's execute_command() is entered by a jump"
uprobe-cli del ec
kill $pid
wait $pid 2> /dev/null
ktap_finished
