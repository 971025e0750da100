#!/bin/sh
# uprobe-cli on inlined functions, in the guest, on inline_target (built
# -O2 -g): BINARY:FUNC counts every call of a function the compiler
# inlined into three callers and kept out of line too, each copy on a
# row of its own that says where it was inlined; a function only
# inlined is found and counted; --no-inline counts the out-of-line
# calls alone; a return probe on an inlined function is refused with
# the reason and places nothing.
T=/usr/libexec/utrace-tests/targets/inline_target
N=${UTP_INLINE_ROUNDS:-300}
. /usr/libexec/utrace-tests/utp_helpers.sh

# The sum of the HITS column of a count table
hits_sum() {
	awk '$1 ~ /^[0-9]+$/ { s += $1 } END { print s + 0 }'
}

ktap_print_header
ktap_set_plan 8

out=$(uprobe-cli count --all -e "$T:it_step" -- "$T" $N 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
check $st "count runs the command, which exits 0"
[ "$(echo "$out" | hits_sum)" = $((4 * N)) ]
check $? "it_step: $((4 * N)) hits in all, its inlined copies' included"
bad=0
for caller in it_a it_b it_c; do
	echo "$out" | grep -Eq "^ +$N  inline_target:it_step \\(inlined in $caller(\\+0x[0-9a-f]+)?\\)$" ||
		bad=1
done
check $bad "each caller's inlined copy: a row of $N hits that names it"
echo "$out" | grep -Eq "^ +$N  inline_target:it_step$"
check $? "the out-of-line copy: its own row of $N hits"

out=$(uprobe-cli count --no-inline -e "$T:it_step" -- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | sed 1d)" = "$(printf '%14d  inline_target:it_step' $N)" ]
check $? "--no-inline: the out-of-line copy alone, $N hits"

out=$(uprobe-cli count -j -e "$T:it_only" -- "$T" $N 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq "\"function\":\"it_only\",\"inlined_in\":\"it_b\",\"offset\":[0-9]+,\"file_offset\":[0-9]+,\"hits\":$N}"
check $? "a function only inlined (no symbol): found, $N hits, JSON says where"

out=$(uprobe-cli count -e "$T:it_step%return" -- "$T" 1 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st = 1 ] && echo "$out" | grep -q "it_step is inlined into it_[abc] at 0x[0-9a-f]*, where no call returns (--no-inline probes its own entry alone)"
check $? "a return probe on an inlined function: refused, saying why"
[ -z "$(uprobe-cli list | sed 1d)" ]
check $? "no probe left behind"
ktap_finished
