#!/bin/sh
# uprobe-cli --filter in the guest, on values_target, which writes each
# round's values to its own log (VT_LOG): the records of trace, the
# buckets of hist and the counts of count --by are exactly those of the
# log's rounds that match the filter, the kernel doing the filtering
# (the event's filter, the hist trigger's "if"); a field the filter
# names that is not a VALUE is fetched too; a bad filter is refused
# with exit status 2 before any probe or trace instance is made.
T=/usr/libexec/utrace-tests/targets/values_target
N=${UTP_FILTER_ROUNDS:-60}
D=$(mktemp -d)
TR=/sys/kernel/tracing
. /usr/libexec/utrace-tests/utp_helpers.sh

ktap_print_header
ktap_set_plan 9

# a number and a string compared, a glob included
out=$(VT_LOG=$D/log uprobe-cli trace "$T:vt_label" id name \
	--filter 'id > 4 && (name ~ "g*" || name == "alpha")' -- "$T" $N 2>&1)
st=$?
echo "$out" | head -3 | sed 's/^/# /'
want=$(awk '$1 > 4 && ($2 ~ /^g/ || $2 == "alpha") {
	printf "id=%d name=\"%s\"\n", $1, $2 }' $D/log)
[ $st = 0 ] && [ "$(wc -l < $D/log)" = $N ] &&
	same "the records" "$want" "$(echo "$out" | values)"
check $? "trace --filter: the records of the rounds that match, alone"

# id is not a VALUE: fetched for the filter, and shown
out=$(uprobe-cli trace "$T:vt_label" name --filter 'id & 1 && id < 40' \
	-- "$T" $N 2>&1)
want=$(awk '$1 % 2 && $1 < 40 { printf "name=\"%s\" id=%d\n", $2, $1 }' \
	$D/log)
same "the records by a field not given" "$want" "$(echo "$out" | values)"
check $? "trace --filter: a field the filter names is fetched too"

# libc's malloc, its parameter by name from libc6-dbg
out=$(uprobe-cli trace libc:malloc --filter 'bytes >= 1008 && bytes <= 1024' \
	-- "$T" $N 2>&1)
want=$(awk '$3 >= 1008 && $3 <= 1024 { printf "bytes=%d\n", $3 }' $D/log)
same "malloc's records" "$want" "$(echo "$out" | values)"
check $? "trace --filter on libc:malloc: the sizes in range, exactly"

# count --by name of the ids that are multiples of 3 or above 50
out=$(uprobe-cli count -e "$T:vt_label" --by name --size 128 \
	--filter 'id > 50 || !(id & 3)' -- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
want=$(awk '$1 > 50 || $1 % 4 == 0 { n[$2]++ } END {
	for (k in n) print n[k], k }' $D/log | sort -k1,1nr -k2)
same "the counts" "$want" \
	"$(echo "$out" | sed -n -E 's/^ +([0-9]+)  (.*)/\1 \2/p' | sort -k1,1nr -k2)"
check $? "count --by --filter: the hits of the rounds that match, by value"

# a plain count, of two functions with the same parameters
out=$(uprobe-cli count -j -e "$T:vt_label" -e "$T:vt_twin" \
	--filter 'id >= 10 && name != "beta"' -- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
n=$(awk '$1 >= 10 && $2 != "beta"' $D/log | wc -l)
[ "$(echo "$out" | grep -o '"hits":[0-9]*' | sort | uniq -c |
	awk '{ print $1, $2 }')" = "2 \"hits\":$n" ]
check $? "count --filter: each probe's hits of the rounds that match ($n)"

# hist of id over the rounds named beta: their count, bucket by bucket
out=$(uprobe-cli hist -j "$T:vt_label" id --filter 'name != "beta"' \
	-- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
n=$(awk '$2 != "beta"' $D/log | wc -l)
echo "$out" | grep -q "\"count\":$n,\"dropped\":0,"
check $? "hist --filter: $n values counted, those of the rounds that match"

# bad filters: exit status 2, one line, and nothing made
for f in 'id >' 'name > 3' 'idd == 1' 'id ~ "1*"' 'id == "x"'; do
	out=$(uprobe-cli trace "$T:vt_label" id --filter "$f" -- "$T" 1 2>&1)
	echo "$?: $out"
done > $D/bad
sed 's/^/# /' $D/bad
[ "$(grep -c '^[12]: uprobe-cli: ' $D/bad)" = 5 ] &&
	[ "$(grep -c '^2: ' $D/bad)" = 4 ] && [ "$(wc -l < $D/bad)" = 5 ]
check $? "bad filters: one line each, status 2 (1 for a missing variable)"

[ -z "$(uprobe-cli list | sed 1d)" ] && [ -z "$(ls $TR/instances)" ] &&
	[ -z "$(cat $TR/utprobe_events)" ]
check $? "no probe, event or trace instance left, by good or bad filters"

# the kernel filtered: the instance's event holds the expression as
# its filter while the command runs (a stand-in that read every record
# would make the same output); the command waits until it is seen, 60 s
# at most
go=$D/go
uprobe-cli trace "$T:vt_label" id --filter 'id == 3' \
	-- sh -c "while [ ! -e $go ]; do sleep 0.1; done; $T 5" > $D/out 2>&1 &
i=0
while [ $i -lt 600 ]; do
	cat $TR/instances/*/events/utprobes/*/filter > $D/filter 2> /dev/null
	grep -qx 'id == 3' $D/filter && break
	sleep 0.1
	i=$((i + 1))
done
touch $go
wait
sed 's/^/# /' $D/filter $D/out
grep -qx 'id == 3' $D/filter && [ "$(values < $D/out)" = "id=3" ]
check $? "the event's filter in the kernel is the expression"
rm -rf $D
ktap_finished
