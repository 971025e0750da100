#!/bin/sh
# uprobe-cli count --by stack, in the guest, on stack_target (built -O2
# -g PIE without frame pointers), whose calls of leaf() come through
# known chains: main a b (30), main c (20), 40 frames of rec() of 1 KiB
# (5, deeper than the 8 KiB copied), worker a b in a thread (25).  Each
# chain is counted exactly, named from main down, with the frames above
# it the same for both of main's; the deep one ends in the marker of a
# cut stack.  The same from a static build and from a copy stripped of
# every symbol (its names from its debug file, by debuglink), from a
# tree of processes, as a table, as JSON and as a flame graph.
#
# UTP_STACK_QUICK=1 (a quick run by hand) leaves out what is the tool's
# own work in user space, the same kernel paths taken: the static and
# stripped builds, the table, JSON and flame graph, gdb, and most of ls
# -R's directories.
L=/usr/libexec/utrace-tests/targets
T=$L/stack_target
QUICK=${UTP_STACK_QUICK:-0}
. /usr/libexec/utrace-tests/utp_helpers.sh

ktap_print_header
ktap_set_plan 25

# chains FOLDED: 0 if the folded stacks of "stack_target 30 20 5 25"
# are those the program made, each with its count, and nothing else
chains() {
	echo "$1" | sed 's/^/# /'
	[ "$(echo "$1" | grep -c .)" = 4 ] || return 1
	a=$(echo "$1" | grep ';main;a;b;leaf 30$') &&
	c=$(echo "$1" | grep ';main;c;leaf 20$') &&
	echo "$1" | grep -Eq '^\[stack cut\](;rec)+;leaf 5$' &&
	echo "$1" | grep -q ';worker;a;b;leaf 25$' || return 1
	# above main, the same frames, down from _start
	[ "${a%;main;a;b;leaf 30}" = "${c%;main;c;leaf 20}" ] &&
	case $a in _start\;*) ;; *) return 1 ;; esac &&
	! echo "$1" | grep -q 'unknown'
}

out=$(uprobe-cli count -e "$T:leaf" --by stack --folded -- "$T" 30 20 5 25 2> /tmp/stack.err)
st=$?
cat /tmp/stack.err | sed 's/^/# /'
check $st "count --by stack --folded runs the program, which exits 0"
chains "$out"
check $? "each chain of calls is its own stack, counted exactly"

if [ "$QUICK" = 1 ]; then
	ktap_test_skip "a static program: the same stacks (UTP_STACK_QUICK)"
	ktap_test_skip "a program stripped of its symbols: named from its debug file (UTP_STACK_QUICK)"
else
	out=$(uprobe-cli count -e "$L/stack_target_static:leaf" --by stack \
		--folded -- "$L/stack_target_static" 30 20 5 25)
	chains "$out"
	check $? "a static program: the same stacks"

	out=$(uprobe-cli count -e "$L/stack_target_stripped:leaf" --by stack \
		--folded -- "$L/stack_target_stripped" 30 20 5 25)
	chains "$out"
	check $? "a program stripped of its symbols: named from its debug file"
fi

# two processes of a tree, one of them twice as many threads' calls
out=$(uprobe-cli count -e "$T:leaf" --by stack --folded -- \
	sh -c "$T 3 2 0 2 & $T 1 1 0 0; wait")
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c .)" = 3 ] &&
	echo "$out" | grep -q ';main;a;b;leaf 4$' &&
	echo "$out" | grep -q ';main;c;leaf 3$' &&
	echo "$out" | grep -q ';worker;a;b;leaf 2$'
check $? "a tree of processes: the stacks of all of them, summed"

if [ "$QUICK" = 1 ]; then
	for t in "the table: the two most frequent stacks, innermost frame first" \
		"JSON: the hits, and the top stack with its frames" \
		"--svg writes a flame graph" \
		"the flame graph has a frame for each function, with its share"; do
		ktap_test_skip "$t (UTP_STACK_QUICK)"
	done
else
	out=$(uprobe-cli count -e "$T:leaf" --by stack --top 2 -- "$T" 30 20 5 25)
	echo "$out" | sed 's/^/# /'
	[ "$(echo "$out" | sed -n 1,6p | sed 's/  *$//')" = "leaf: 80 hits
     COUNT  STACK (innermost frame first)
        30  leaf
            b
            a
            main" ] &&
		echo "$out" | grep -Eq '^ +25  leaf$' &&
		echo "$out" | grep -q '^(2 more stacks; --folded lists them all)$'
	check $? "the table: the two most frequent stacks, innermost frame first"

	out=$(uprobe-cli -j count -e "$T:leaf" --by stack --top 1 -- "$T" 30 20 5 25)
	echo "# $out"
	echo "$out" | grep -q '^{"probe":"leaf","lost":0,"hits":80,"distinct":4,"stacks":\[{"count":30,"frames":\["leaf","b","a","main",' &&
		echo "$out" | grep -Eq ',"unwind_ms":[0-9]+\.[0-9]{3},"cached":[0-9]+}$' &&
		[ "$(echo "$out" | grep -o '"count"' | wc -l)" = 1 ]
	check $? "JSON: the hits, and the top stack with its frames"

	rm -f /tmp/flame.svg
	uprobe-cli count -e "$T:leaf" --by stack --svg /tmp/flame.svg -- "$T" 30 20 5 25
	check $? "--svg writes a flame graph"
	grep -q '<title>main (50 hits, 62.50%)</title>' /tmp/flame.svg &&
		grep -q '<title>leaf (30 hits, 37.50%)</title>' /tmp/flame.svg &&
		grep -q '<title>worker (25 hits, 31.25%)</title>' /tmp/flame.svg &&
		grep -q '<title>all (80 hits, 100.00%)</title>' /tmp/flame.svg &&
		tail -1 /tmp/flame.svg | grep -q '^</svg>$'
	check $? "the flame graph has a frame for each function, with its share"
fi

# trace --stack: each hit's line, its value, then its frames
out=$(uprobe-cli trace --stack "$T:leaf" x -- "$T" 2 1 0 0)
echo "$out" | sed 's/^/# /'
frames=$(echo "$out" | sed 1d | awk 'NF == 5 && $4 == "leaf" { n++; next }
	n == 1 { printf "%s,", $1 }')
[ "$(echo "$out" | grep -cE '^ *[0-9]+\.[0-9]+ +[0-9]+ +[0-9]+ leaf +x=')" = 3 ] &&
	echo "$out" | grep -Eq ' leaf +x=0$' &&
	echo "$out" | grep -Eq ' leaf +x=1$' &&
	case $frames in leaf,b,a,main,*_start,) true ;; *) false ;; esac
check $? "trace --stack: each hit with its value and its frames ($frames)"
out=$(uprobe-cli -j trace --stack "$T:leaf" x -- "$T" 0 1 0 0)
echo "# $out"
echo "$out" | grep -Eq '^\{"time":[0-9.]+,"pid":[0-9]+,"tid":[0-9]+,"function":"leaf","values":\{"x":0\},"stack":\["leaf","c","main",.*"_start"\]\}$'
check $? "trace --stack as JSON: the frames in \"stack\""
# a string the kernel could not read (at address 0) is shown as without
# --stack: "(fault)" in the text, null in JSON
out=$(uprobe-cli trace --stack "$T:leaf" x 'bad=+0(%di):string' -- "$T" 0 1 0 0)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq ' leaf +x=0 bad=\(fault\)$'
check $? "trace --stack: an unreadable string is (fault)"
out=$(uprobe-cli -j trace --stack "$T:leaf" x 'bad=+0(%di):string' -- "$T" 0 1 0 0)
echo "# $out"
echo "$out" | grep -q '"values":{"x":0,"bad":null},"stack":\["leaf","c","main",'
check $? "trace --stack as JSON: an unreadable string is null"

# a function inlined into its caller is a frame of its own, as gdb
# shows it, and one inlined into that one too
out=$(uprobe-cli count -e "$T:leaf" --by stack --folded -- "$T" 0 0 0 0 0 0 9)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c .)" = 1 ] &&
	echo "$out" | grep -q '^_start;.*;main;d;ind;ind2;leaf 9$'
check $? "inlined functions: frames between their caller and their callee"

# C++: a class template's static function, called from a function
# template in an unnamed namespace, inlined into a lambda in a function
# template (the lambda's code described inside its function, which does
# not hold it), and from a destructor run by an exception in flight;
# every frame named as C++ names it
X=$L/stack_cxx
out=$(uprobe-cli count -e "$X:ns::Box<long>::leaf(long)" --by stack --folded -- "$X" 6)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c .)" = 2 ] &&
	echo "$out" | grep -q ';main;int ns::run<long>(long);ns::run<long>(long)::{lambda(long)#1}::operator()(long) const;ns::(anonymous namespace)::twice<long int>;ns::Box<long>::leaf(long) 6$' &&
	echo "$out" | grep -q ';main;ns::thrower(long)[^;]*;ns::Guard::~Guard();ns::Box<long>::leaf(long) 6$'
check $? "C++: templates, a lambda, a destructor under an exception, demangled"

# a child's calls before it execs the program again, and the new
# program's: each unwound in the maps of its time (the same binary,
# mapped elsewhere)
out=$(uprobe-cli count -e "$T:leaf" --by stack --folded -- "$T" 0 0 0 0 0 7)
echo "$out" | sed 's/^/# /'
[ "$(echo "$out" | grep -c .)" = 2 ] &&
	echo "$out" | grep -q '^_start;.*;main;forked;a;b;leaf 7$' &&
	echo "$out" | grep -q '^_start;.*;main;c;leaf 7$'
check $? "calls before and after an exec: each in its own program's maps"

# Real programs.  bash's make_child() against gdb's bt at a breakpoint
# on it, in the same script: the same stacks from main down, as often
# (gdb's ?? is a frame the tool names by its binary, [bash])
printf 'echo $(true)\ntrue | true\nx=$(echo a)\n' > /tmp/mk.sh
if [ "$QUICK" = 1 ]; then
	ktap_test_skip "bash's make_child: the stacks gdb's bt shows at each call, as often (UTP_STACK_QUICK)"
else
ours=$(uprobe-cli count -e /bin/bash:make_child --by stack --folded -- \
	bash /tmp/mk.sh | sed -n 's/^.*;main;/main;/p' | sed 's/\[bash\]/??/g' |
	awk '{ n = $NF; $NF = ""; sub(/ $/, ""); print n, $0 }' | sort)
printf 'break make_child\ncommands\nbt\ncontinue\nend\nrun\n' > /tmp/gdb.cmd
theirs=$(gdb -batch -x /tmp/gdb.cmd --args bash /tmp/mk.sh 2>&1 |
	awk '/^Breakpoint 1,/ { if (s != "") print s; s = "" }
	     /^#[0-9]+ / { f = ($3 == "in") ? $4 : $2; s = s == "" ? f : f ";" s }
	     END { if (s != "") print s }' | sort | uniq -c |
	awk '{ print $1, $2 }' | sort)
echo "# ours:"; echo "$ours" | sed 's/^/#   /'
echo "# gdb's:"; echo "$theirs" | sed 's/^/#   /'
[ -n "$ours" ] && [ "$ours" = "$theirs" ]
check $? "bash's make_child: the stacks gdb's bt shows at each call, as often"
fi

# libc's malloc() under coreutils' ls -R (stripped: its own frames are
# [ls]): every hit's stack, each frame in a binary it knows, unwound
# through libc's start of main or the loader's start of the libraries'
# constructors, unless deeper than the copy; as many as the calls
LS=/usr/lib/coreutils/ls
D=/usr/lib
[ "$QUICK" = 1 ] && D=/usr/lib/python3.11
uprobe-cli count -e libc:malloc --by stack --folded -- \
	sh -c "$LS -R $D > /dev/null" > /tmp/malloc.folded
calls=$(uprobe-cli count -e libc:malloc -- sh -c "$LS -R $D > /dev/null" |
	awk '$NF ~ /malloc$/ { print $1 }')
sum=$(awk '{ s += $NF } END { print s + 0 }' /tmp/malloc.folded)
bad=$(grep -Ev '^\[stack cut\];|;__libc_start_main;|^_dl_start_user;' /tmp/malloc.folded
	grep -F '[unknown]' /tmp/malloc.folded)
echo "# malloc: $calls calls, $sum in $(wc -l < /tmp/malloc.folded) stacks; not unwound: $bad"
[ "$sum" = "$calls" ] && [ "$sum" -gt 0 ] && [ -z "$bad" ]
check $? "libc's malloc under ls -R: each call's stack, whole"

# a stack given again from those unwound before is the one an unwind
# finds: every chain above (threads, recursion cut, a fork and an exec,
# inlining), with the cache and without, the same stacks as often; and
# the cache was used, and only when on
with=$(uprobe-cli -j count -e "$T:leaf" --by stack --top 100 -- \
	"$T" 30 20 5 25 0 3 10)
without=$(UPROBE_CLI_STACK_CACHE=0 uprobe-cli -j count -e "$T:leaf" \
	--by stack --top 100 -- "$T" 30 20 5 25 0 3 10)
c1=$(echo "$with" | sed -n 's/.*,"cached":\([0-9]*\)}$/\1/p')
c0=$(echo "$without" | sed -n 's/.*,"cached":\([0-9]*\)}$/\1/p')
echo "# $c1 of 96 stacks given again from the cache; $c0 without it"
[ "${with%,\"unwind_ms\"*}" = "${without%,\"unwind_ms\"*}" ] &&
	echo "$with" | grep -q '"hits":96,' &&
	[ "${c1:-0}" -gt 0 ] && [ "$c0" = 0 ]
check $? "stacks given again as unwound before: the same as unwound afresh"

# --fp: the callers the kernel finds by the frame pointers, on the twin
# built with them: each chain exact up to main, the deep one whole (41
# frames of rec()), the caller of leaf() (at its entry) from the top of
# the stack, and every hit counted
FP=$L/stack_target_fp
out=$(uprobe-cli count -e "$FP:leaf" --by stack --fp --folded -- "$FP" 30 20 5 25)
st=$?
echo "$out" | sed 's/^/# /'
[ $st = 0 ] &&
	echo "$out" | grep -q ';main;a;b;leaf 30$' &&
	echo "$out" | grep -q ';main;c;leaf 20$' &&
	echo "$out" | grep -Eq ';main(;rec){41};leaf 5$' &&
	echo "$out" | grep -q ';worker;a;b;leaf 25$' &&
	[ "$(echo "$out" | awk '{ s += $NF } END { print s }')" = 80 ]
check $? "--fp: the callers the frame pointers lead to, counted exactly"

# hits faster than the tool can read them at first (while it loads the
# binary's CFI): every call is a stack unwound or a record counted lost,
# as the kernel counted it, and said on stderr
HB=/usr/libexec/utrace-tests/bench/hitbench
out=$(uprobe-cli -j count -e "$HB:lea" --by stack -- "$HB" run lea 8000 \
	2> /tmp/stack.err)
st=$?
set -- $(echo "$out" | sed -n 's/^{"probe":"lea","lost":\([0-9]*\),"hits":\([0-9]*\),.*/\1 \2/p')
echo "# 8000 calls: $2 stacks, $1 records lost; $(cat /tmp/stack.err)"
[ $st = 0 ] && [ $# = 2 ] && [ $(($1 + $2)) = 8000 ] &&
	if [ "$1" = 0 ]; then
		[ ! -s /tmp/stack.err ]
	else
		[ "$(cat /tmp/stack.err)" = "uprobe-cli: $1 hits' records were lost (the buffers were full): not counted" ]
	fi
check $? "a hit the tool had no room for is counted lost: stacks and losses add up"

out=$(uprobe-cli count -e "$T:leaf" --folded -- "$T" 1 0 0 0 2>&1)
[ $? = 2 ] && [ "$out" = "uprobe-cli: count: --folded, --svg, --stack-size and --fp go with --by stack" ]
check $? "--folded without --by stack is refused"
out=$(uprobe-cli count -e "$T:leaf" --by stack --folded --svg /tmp/x.svg -- "$T" 1 0 0 0 2>&1)
[ $? = 2 ] && [ "$out" = "uprobe-cli: count --by stack: --folded or --svg, not both" ]
check $? "--folded and --svg together are refused"
out=$(uprobe-cli count -e "$T:leaf" --by stack --stack-size 40000 -- "$T" 1 0 0 0 2>&1)
[ $? = 2 ] && [ "$out" = "uprobe-cli: count: --stack-size 40000 is more than the kernel copies, 32768" ]
check $? "a stack size beyond the kernel's is refused"
[ -z "$(uprobe-cli list | sed 1d)" ] && [ -z "$(ls /sys/kernel/tracing/instances)" ]
check $? "no probe and no trace instance left behind"
ktap_finished
