#!/bin/sh
# uprobe-cli serve in the guest, scraped over loopback as Prometheus
# would: its return probe's counter and histogram equal the calls the
# workload made, counted across processes started after it; its probes
# go when it is stopped, and when it is killed.
T=/usr/libexec/utrace-tests/targets/probe_target
TR=/sys/kernel/tracing
PORT=9464
. /usr/libexec/utrace-tests/utp_helpers.sh

# scrape: /metrics, once serve answers (60 s at most)
scrape() {
	for i in $(seq 600); do
		wget -q -O - "http://127.0.0.1:$PORT/metrics" 2> /dev/null &&
			return 0
		sleep 0.1
	done
	return 1
}

# sample NAME LABEL: the value of sample NAME whose labels hold LABEL
sample() {
	grep "^$1{" | grep -F "$2" | awk '{ print $NF }'
}

ktap_print_header
ktap_set_plan 6
ip link set lo up

uprobe-cli serve --listen 127.0.0.1:$PORT -e "$T:work%return" &
serve=$!
# it listens once its probes are in
scrape > /dev/null
check $? "serve answers /metrics on loopback"
"$T" run 7
out=$(scrape)
echo "$out" | grep -v _bucket | sed 's/^/# /'
[ "$(echo "$out" | sample uprobe_hits_total 'function="work"')" = 7 ] &&
	[ "$(echo "$out" | sample uprobe_call_duration_seconds_count 'function="work"')" = 7 ] &&
	[ "$(echo "$out" | sample uprobe_call_duration_seconds_bucket 'le="+Inf"')" = 7 ]
check $? "its counter and histogram count the 7 calls"
"$T" run 5 fork
out=$(scrape)
[ "$(echo "$out" | sample uprobe_hits_total 'function="work"')" = 17 ] &&
	[ "$(echo "$out" | sample uprobe_call_duration_seconds_count 'function="work"')" = 17 ]
check $? "and 10 more, from a process and its child"
kill -TERM $serve
wait $serve
st=$?
[ $st = 0 ] && [ -z "$(cat $TR/utprobe_events)" ]
check $? "stopped, serve exits 0 and removes its probe"

uprobe-cli serve --listen 127.0.0.1:$PORT -e "$T:work" &
serve=$!
scrape > /dev/null
[ -n "$(cat $TR/utprobe_events)" ]
check $? "a second serve places its probe"
kill -KILL $serve
wait $serve
[ -z "$(cat $TR/utprobe_events)" ] && [ "$("$T" run 3; echo $?)" = 0 ]
check $? "killed with SIGKILL, it leaves no probe"
ktap_finished
