#!/bin/sh
# Return probes on files: exact call and return counts of programs that
# nest, recurse, run threads and fork inside a probed function, equal to
# the returns mainline uretprobes see on the same runs in this boot; and
# a C++ program whose exceptions skip probed frames runs unchanged, the
# skipped calls counted as unwound; recursion to depth 1000 is followed.
TR=/sys/kernel/tracing
R=/usr/libexec/utrace-tests/targets/ret_target
X=/usr/libexec/utrace-tests/targets/ret_throw
. /usr/libexec/utrace-tests/utp_helpers.sh
off() {
	uprobe-cli resolve "$1:$2" | cut -d' ' -f2
}
# field NAME KEY: a value of probe NAME's line in utprobe_returns
field() {
	awk -v n="$1" -v k="$2" '$1 == n {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == k)
				print kv[2]
		}
	}' $TR/utprobe_returns
}
calls() {
	awk -v n="$1" '$1 == n { print $NF }' $TR/utprobe_profile
}

ktap_print_header
ktap_set_plan 16
echo 4096 > $TR/buffer_size_kb
: > $TR/utprobe_events

# compare MODE N "FUNC:CALLS:RETURNS ..."
compare() {
	mode=$1 count=$2 want=$3
	for w in $want; do
		f=${w%%:*}
		echo "r:$f $R:$(off $R rp_$f)" >> $TR/utprobe_events
	done
	out=$($R "$mode" "$count")
	st=$?
	[ $st = 0 ] && [ "$out" = "$mode $count: right" ]
	check $? "$mode $count: the program's results are unchanged ($out)"
	ok=0 ours=
	for w in $want; do
		f=${w%%:*} c=${w#*:}
		c=${c%%:*} r=${w##*:}
		got="$(calls "$f")/$(field "$f" returns)/$(field "$f" pending)"
		echo "# $f: calls/returns/pending $got, want $c/$r/0"
		[ "$got" = "$c/$r/0" ] || ok=1
		ours="$ours $f:$(field "$f" returns)"
	done
	check $ok "$mode $count: calls and returns exact, none pending"
	: > $TR/utprobe_events
	# the same functions under mainline uretprobes
	for w in $want; do
		f=${w%%:*}
		echo "r:rcmp/$f $R:$(off $R rp_$f)" >> $TR/uprobe_events
	done
	: > $TR/trace
	echo 1 > $TR/events/rcmp/enable
	$R "$mode" "$count" > /dev/null
	echo 0 > $TR/events/rcmp/enable
	theirs=
	for w in $want; do
		f=${w%%:*}
		theirs="$theirs $f:$(grep -c " $f: (" $TR/trace)"
	done
	: > $TR/uprobe_events
	echo "# utprobes:$ours; mainline:$theirs"
	[ "$ours" = "$theirs" ]
	check $? "$mode $count: the returns mainline uretprobes count"
}

compare nested 300 "outer:300:300 inner:600:600 leaf:600:600"
# mainline follows 64 nested calls; utprobes up to 4096
compare recurse 60 "rec:183:183"
echo "r:rec $R:$(off $R rp_rec)" >> $TR/utprobe_events
out=$($R recurse 1000)
got="$(calls rec)/$(field rec returns)/$(field rec pending)"
echo "# recursion to depth 1000: $out; calls/returns/pending $got"
[ "$out" = "recurse 1000: right" ] && [ "$got" = "3003/3003/0" ]
check $? "recurse 1000: every call of the recursion returns, counted"
: > $TR/utprobe_events
compare threads 200 "outer:400:400 inner:800:800 leaf:800:800"
# the children return from rp_forker() too, and are followed (a file)
compare fork 20 "forker:20:40"

# C++: 50 exceptions thrown through rp_middle() and rp_thrower(), which
# are followed for their returns; the stack keeps its return addresses,
# so the unwinder finds its way.  (Mainline's uretprobes replace them,
# and the program aborts.)
for f in thrower middle; do
	echo "r:$f $X:$(off $X rp_$f)" >> $TR/utprobe_events
done
out=$($X 50 2>&1)
st=$?
echo "# $out"
[ $st = 0 ] && [ "$out" = "caught 50, then -4" ]
check $? "C++ exceptions through probed frames: caught, output unchanged"
ok=0
for f in thrower middle; do
	got="$(calls $f)/$(field $f returns)/$(field $f unwound)/$(field $f pending)"
	echo "# $f: calls/returns/unwound/pending $got"
	[ "$got" = "51/1/50/0" ] || ok=1
done
check $ok "the 50 calls skipped counted unwound, the last one returned"
: > $TR/utprobe_events
[ -z "$(cat $TR/utprobe_returns)" ]
check $? "no return probe left"
ktap_finished
