#!/bin/sh
# "make bench" in miniature, so that it keeps working: every measurement
# of the benchmark runs once with few calls and threads, every handler of
# every engine counts exactly the calls made (the driver fails
# otherwise), and the JSON it prints parses as JSON, holds every figure
# make bench reports and nothing else, each a number.  No timing is
# judged here.
L=/usr/libexec/utrace-tests
T=$(mktemp -d)
. /usr/libexec/utrace-tests/utp_helpers.sh
ktap_print_header
ktap_set_plan 4
# 200 calls, 1 run, 20 probes placed among 8 threads, 1,000 probes in
# the process against one, the functions of libc named str* placed and
# removed, sqlite3 counted on the functions of its library and libc
# with "str" in their name, each pause taken once; UTP_BENCH_SMOKE gives
# other arguments
set -f
out=$($L/bench-run ${UTP_BENCH_SMOKE:-200 1 20 8 1000 str* *str* 1} 2>&1)
st=$?
set +f
echo "$out" | sed 's/^/# /'
check $st "every run made, every hit counted by each engine"
rows=$(echo "$out" | grep -cE '^(push|nop|lea|mov|sub|endbr|nop5|riprel|return) +[0-9]')
[ "$rows" = 9 ]
check $? "a table row for each of the 9 probes ($rows)"

# the JSON, between its two markers; jsoncheck prints "PATH VALUE" for
# each value and fails on a syntax error or a value that is not a number
# (the kernel's release is the one string).  A ratio is null where its
# base is not above 0 (make bench refuses that): with this run's few
# calls, a per-hit cost of one engine can come out at or below 0 by
# noise alone, so a ratio's null is taken as 0 here, and said; any other
# null fails.
echo "$out" | sed -n '/^# bench-json$/,/^# bench-json$/p' | sed '1d;$d' > $T/raw
nulls=$(grep -o '"[a-z_]*vs_[a-z_]*": null' $T/raw | tr '\n' ' ')
[ -z "$nulls" ] || echo "# ratios without a base above 0 in this small run: $nulls"
sed 's/\("[a-z_]*vs_[a-z_]*"\): null/\1: 0/g' $T/raw > $T/json
$L/bench/jsoncheck -s kernel $T/json > $T/values 2> $T/err
st=$?
sed 's/^/# /' $T/err
check $st "the JSON parses and every figure in it is a number"

# the figures make bench reports, by path
{
	echo calls; echo runs; echo threads; echo kernel; echo cpus
	for c in push nop lea mov sub endbr nop5 riprel; do
		for f in base_ns ours_ns mainline_ns ptrace_ns vs_mainline vs_ptrace \
			 jump_base_ns jump_ns jump_vs_mainline sys_ns \
			 sys_vs_ours sys_vs_mainline; do
			echo classes.$c.$f
		done
	done
	for f in base_ns ours_ns mainline_ns vs_mainline; do echo return.$f; done
	echo syscall_ns
	for e in unprobed ours mainline; do
		echo two_threads_scaling.$e
		echo two_threads_ns.$e.one_thread
		echo two_threads_ns.$e.two_threads
	done
	echo two_threads_calls.unprobed; echo two_threads_calls.probed
	for k in 2 8; do
		for f in unprobed jump jump_vs_unprobed; do
			echo jump_scaling.threads_$k.$f
		done
	done
	for f in probes ours_ns ours_vs_one mainline_ns mainline_vs_one; do
		echo many_probes.$f
	done
	for f in probes ours_ms mainline_ms vs_mainline; do
		echo register_in_64_threads.$f
		echo register_in_64_spinning.$f
		echo unregister_in_64_spinning.$f
	done
	for f in ours_ms mainline_ms vs_mainline; do
		echo pause_while_placing.$f
		echo pause_while_removing.$f
	done
	for w in in out; do
		for f in ${w}_ms mainline_${w}_ms ${w}_vs_mainline; do
			echo pause_while_jumping.$f
		done
	done
	echo whole_library.probes; echo whole_library.processes
	for w in place remove; do
		for f in ${w}_ms mainline_${w}_ms ${w}_vs_mainline; do
			echo whole_library.$f
		done
	done
	for f in rows probes hits unprobed_ms jump_ms jump_vs_unprobed trap_ms \
		 trap_vs_unprobed mainline_ms mainline_vs_unprobed \
		 jump_vs_mainline; do
		echo whole_program.$f
	done
	for f in stack_bytes count_ns record_ns record_vs_count stack_ns \
		 stack_vs_count; do
		echo stacks.$f
	done
	for c in cache no_cache; do
		for f in cli_ns cli_hits_per_s unwound_per_s lost; do
			echo stacks.$c.$f
		done
	done
} | sort > $T/want
cut -d' ' -f1 $T/values | sort > $T/have
diff $T/want $T/have > $T/diff
st=$?
sed 's/^/# /' $T/diff
check $st "the JSON holds every figure, and only those ($(wc -l < $T/have) values)"
rm -rf $T
ktap_finished
