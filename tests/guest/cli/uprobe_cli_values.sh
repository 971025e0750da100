#!/bin/sh
# uprobe-cli trace, hist and count --by in the guest, on values_target
# (built -O2 -g), and on bash and libc from Debian's packages (libc's
# variables from libc6-dbg's debug file): each record holds exactly the
# values of its call (a parameter, a char * as a string, $retval, a
# parameter the function has moved to its stack, a local at a line, a
# raw fetch argument), a histogram's buckets, the counts by value and
# the hits dropped past the kernel's room are exact, and the values
# equal those mainline uprobe_events records with the same fetch
# arguments on the twin function in the same run.
T=/usr/libexec/utrace-tests/targets/values_target
N=20
. /usr/libexec/utrace-tests/utp_helpers.sh

# What "$@" prints for round i of N (i from 0), one line per round
rounds() {
	i=0
	while [ $i -lt $N ]; do
		eval "echo \"$1\""
		i=$((i + 1))
	done
}

name_of() {
	case $(($1 % 3)) in
	0) echo alpha ;;
	1) echo beta ;;
	*) echo gamma ;;
	esac
}

ktap_print_header
ktap_set_plan 15

out=$(uprobe-cli trace "$T:vt_label" id name -- "$T" $N 2>&1)
st=$?
echo "$out" | head -4 | sed 's/^/# /'
check $st "trace runs the command, which exits 0"
want=$(rounds 'id=$i name=\"$(name_of $i)\"')
same "vt_label's values" "$want" "$(echo "$out" | values)"
check $? "trace: a parameter and a char pointer as a string, exactly those of each call"

out=$(uprobe-cli trace "$T:vt_square%return" '$retval' -- "$T" $N 2>&1)
want=$(rounds 'retval=$(((i - 5) * (i - 5) - 3))')
same "vt_square's \$retval" "$want" "$(echo "$out" | values)"
check $? "trace: \$retval of %return, negative values included"

out=$(uprobe-cli trace "$T:values_target.c:50" other local keep -- "$T" $N 2>&1)
want=$(rounds 'other=$((7 * i)) local=$((21 * i)) keep=$i')
same "values at line 50" "$want" "$(echo "$out" | values)"
check $? "trace: a parameter moved to the stack and a local, at a line"

out=$(uprobe-cli trace libc:malloc bytes -- "$T" $N 2>&1)
echo "$out" | head -3 | sed 's/^/# /'
want=$(rounds 'bytes=$((1000 + 8 * (i % 5)))')
same "malloc's sizes" "$want" "$(echo "$out" | values | grep -E '^bytes=10[0-9][0-9]$')"
check $? "trace libc:malloc bytes: the sizes the program asked for"
# and no other malloc() of its tree below 1000 bytes hides among them
[ "$(echo "$out" | values | grep -c '^bytes=')" -ge $N ]
check $? "trace libc:malloc: a record for each call"

out=$(uprobe-cli trace -j "$T:vt_label" id name -- "$T" 3 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq '^\{"time":[0-9]+\.[0-9]+,"pid":[0-9]+,"tid":[0-9]+,"function":"vt_label","values":\{"id":2,"name":"gamma"\}\}$'
check $? "trace -j: one JSON object per record, numbers as numbers"

# Debian's bash, without debug info: a raw fetch argument, on the
# command line bash forks for (its builtins and its last command fork
# nothing)
out=$(uprobe-cli trace bash:make_child 'cmd=+0(%di):string' -- \
	bash -c '/bin/true one; /bin/true two; echo three' 2>&1)
echo "$out" | sed 's/^/# /'
same "bash's make_child" 'cmd="/bin/true one"
cmd="/bin/true two"' "$(echo "$out" | values)"
check $? "trace bash:make_child: the command line of each fork, as a string"

# vt_label's ids 0..19 in the kernel's log2 buckets, (2^(k-1), 2^k]
out=$(uprobe-cli hist "$T:vt_label" id -- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
want="[0, 1] 2
[2, 2] 1
[3, 4] 2
[5, 8] 4
[9, 16] 8
[17, 32] 3"
same "the histogram" "$want" "$(echo "$out" | sed -n -E 's/^(\[[0-9]+, [0-9]+\]) +([0-9]+) .*/\1 \2/p')"
check $? "hist: each bucket's exact count"

out=$(uprobe-cli hist -j "$T:vt_label" id -- "$T" $N 2>&1)
echo "$out" | grep -q '"count":20,"dropped":0,"buckets":\[{"lo":0,"hi":1,"count":2},'
check $? "hist -j: the buckets as JSON"

# the default room, 16384 values, unless the debug run asks for less:
# making and freeing it takes its kernel a minute
out=$(uprobe-cli count -e "$T:vt_label" --by name \
	${UTP_BY_SIZE:+--size $UTP_BY_SIZE} -- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
want="7 alpha
7 beta
6 gamma"
same "the counts by name" "$want" "$(echo "$out" | sed -n -E 's/^ +([0-9]+)  (.*)/\1 \2/p')"
check $? "count --by: the hits of each value, the most frequent first"

# the smallest table the kernel makes
out=$(uprobe-cli count -j -e "$T:vt_label" --by id --top 2 --size 128 -- "$T" 4 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '"top":\[{"value":0,"hits":1},{"value":1,"hits":1}\]'
check $? "count --by --top -j: the first values, numbers as numbers"

# 200 ids, each hit once, in room for 128: the other 72 hits dropped
out=$(uprobe-cli count -j -e "$T:vt_label" --by id --top 1 --size 128 -- "$T" 200 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '"dropped":72,'
check $? "count --by --size: the hits of values beyond the room, exactly"

# mainline on the twin, with the fetch arguments trace writes for vt_label
tr=/sys/kernel/tracing
off=$(uprobe-cli resolve "$T:vt_twin" | awk '{ print $2 }')
echo "p:uprobes/vt_twin_ml $(readlink -f "$T"):$off id=%di:s64 name=+0(%si):string" >> $tr/uprobe_events
echo 1 > $tr/events/uprobes/vt_twin_ml/enable
echo > $tr/trace
out=$(uprobe-cli trace "$T:vt_label" id name -- "$T" $N 2>&1)
echo 0 > $tr/events/uprobes/vt_twin_ml/enable
theirs=$(sed -n -E 's/.* vt_twin_ml: \([^)]*\) //p' $tr/trace)
echo "-:uprobes/vt_twin_ml" >> $tr/uprobe_events
same "ours against mainline's" "$theirs" "$(echo "$out" | values)"
check $? "trace's values equal mainline uprobe_events' in the same run"

[ -z "$(uprobe-cli list | sed 1d)" ] && [ -z "$(ls $tr/instances)" ]
check $? "no probe and no trace instance left behind"
ktap_finished
