#!/bin/sh
# Every function of a library counted in one command: count -e
# 'LIBC:*' places a probe on each function of a copy of libc (one per
# address, its aliases one probe; those whose instruction the kernel
# refuses left out, with a note), runs sqlite3 on it, and gives each
# function the count that mainline uprobes give on the same offsets for
# the same run.  A copy that only the workload loads keeps every other
# process's calls out of mainline's counts, which are system-wide.
#
# UTP_WHOLE_GLOB narrows the glob (the debug kernel's run: placing
# thousands of probes and their events takes it minutes).
# UTP_WHOLE_EVERY: mainline is asked for every function the workload
# called and every UTP_WHOLE_EVERY-th of the others (8 by default, 1 for
# all).  Mainline waits for a grace period as it disables each event,
# about 25 ms each here: 90 s for the whole of libc.
TR=/sys/kernel/tracing
. /usr/libexec/utrace-tests/utp_helpers.sh
GLOB=${UTP_WHOLE_GLOB:-*}
EVERY=${UTP_WHOLE_EVERY:-8}
L=/tmp/whole.$$
mkdir -p $L/lib
cp /lib/x86_64-linux-gnu/libc.so.6 $L/lib/
LIBC=$L/lib/libc.so.6

# the workload: only its libc is the copy
SQL="create table t(a, b);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 200)
insert into t select x, printf('%d-%s', x, hex(x * x)) from c;
select count(*), max(b) from t where a % 7 = 3;
select a, upper(b) from t where b like '1%' order by b desc limit 20;"
work() {
	env LD_LIBRARY_PATH=$L/lib sqlite3 :memory: "$SQL" > /dev/null
}

ktap_print_header
ktap_set_plan 6

# ours: "FILE_OFFSET HITS" of each probe, from count's JSON
t0=$(date +%s)
uprobe-cli count -j -e "$LIBC:$GLOB" -- sh -c \
	'env LD_LIBRARY_PATH=$1 sqlite3 :memory: "$2" > /dev/null' \
	sh $L/lib "$SQL" > $L/ours.json 2> $L/ours.err
st=$?
t1=$(date +%s)
sed 's/},{/}\n{/g' $L/ours.json |
	sed -n 's/.*"file_offset":\([0-9]*\),"hits":\([0-9]*\).*/\1 \2/p' \
	> $L/ours
n=$(wc -l < $L/ours)
echo "# ours: $n probes, $((t1 - t0)) s in all; $(cat $L/ours.err)"
[ $st = 0 ] && [ "$n" -gt 0 ] &&
	{ [ "$GLOB" != "*" ] || [ "$n" -gt 2000 ]; }
check $? "count -e 'libc:$GLOB': a probe on every function, in one command"
[ -z "$(cat $TR/utprobe_events)" ]
check $? "no probe left once it has ended"

# mainline: the same offsets (those called, and a sample of the others),
# defined in one write and enabled as a group, which enables every event
# it can (mainline refuses some instructions that we take, and the other
# way round); "FILE_OFFSET HITS" of those it took.  A command per event
# took minutes.
awk -v e=$EVERY '$2 > 0 || ++u % e == 0' $L/ours > $L/asked
na=$(wc -l < $L/asked)
awk -v l=$LIBC '{ printf "p:whole/f%s %s:%#x\n", $1, l, $1 }' $L/asked \
	> $L/defs
dd if=$L/defs of=$TR/uprobe_events bs=4M 2> /dev/null
# enabled while a sqlite3 maps the copy, so that those mainline cannot
# probe stay off
blocked_sqlite3 $L
st=$?
echo 1 > $TR/events/whole/enable 2> /dev/null
unblocked_sqlite3
[ $st = 0 ]
check $? "a sqlite3 mapped the copy, blocked, while mainline's events went on"
work
grep -l '^1' $TR/events/whole/f[0-9]*/enable |
	sed 's|.*/f\([0-9]*\)/enable$|\1|' > $L/on
echo 0 > $TR/events/whole/enable
awk 'FILENAME == ARGV[1] { on[$1] = 1; next }
     $2 ~ /^f[0-9]/ { sub(/^f/, "", $2); if ($2 in on) print $2, $3 }' \
	$L/on $TR/uprobe_profile > $L/mainline
echo > $TR/uprobe_events

# each offset both took: ours, mainline
awk 'FILENAME == ARGV[1] { m[$1] = $2; next }
     $1 in m { print $1, $2, m[$1] }' $L/mainline $L/ours > $L/both
nb=$(wc -l < $L/both)
bad=$(awk '$2 != $3' $L/both | wc -l)
hit=$(awk '$2 > 0' $L/both | wc -l)
calls=$(awk '{ s += $2 } END { print s + 0 }' $L/both)
echo "# compared $nb of $n functions ($na asked): $hit called, $calls calls in all, $bad differ"
awk '$2 != $3 { print "# differs: offset " $1 ": ours " $2 ", mainline " $3 }' \
	$L/both | head -20
[ "$nb" -gt 0 ] && [ $((nb * 10)) -ge $((na * 9)) ]
check $? "mainline took at least 9 in 10 of the offsets asked"
[ "$hit" -gt 0 ] && [ "$calls" -gt "$hit" ]
check $? "the workload called some of them, some many times"
[ "$bad" = 0 ]
check $? "every function's count equals mainline's on the same offset"
rm -rf $L
