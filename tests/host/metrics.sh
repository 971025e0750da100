#!/bin/bash
# Host test of uprobe-cli's metrics for Prometheus, on a stand-in tracefs
# (one plain probe, one return probe with a histogram): stat --textfile
# writes node_exporter's textfile format atomically, and serve answers
# /metrics over HTTP on loopback, in the text format or in OpenMetrics as
# the scraper asks; both pass promtool check metrics (Debian's
# prometheus package), with the exact counters and buckets.  Prints TAP
# through the kernel's KTAP helpers.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh"
CLI=$top/build/host/cli/uprobe-cli
FIX=$top/build/host/elf/sample_pie
t=$(mktemp -d)
serve=
cleanup() {
	[ -n "$serve" ] && kill "$serve" 2> /dev/null
	rm -rf "$t"
}
trap cleanup EXIT
check() {
	ktap_test_result "$2" [ "$1" = 0 ]
}

export UPROBE_CLI_TRACEFS=$t/tracefs
mkdir "$UPROBE_CLI_TRACEFS"
cd "$UPROBE_CLI_TRACEFS" || exit 1
add=$("$CLI" resolve "$FIX:sample_add" | cut -d' ' -f2)
mul=$("$CLI" resolve "$FIX:sample_mul" | cut -d' ' -f2)
printf 'p:sample_add %s:%s\nr:sample_mul_return %s:%s\n' \
	"$FIX" "$add" "$FIX" "$mul" > utprobe_events
printf 'sample_add %s:%s 42\nsample_mul_return %s:%s 5\n' \
	"$FIX" "$add" "$FIX" "$mul" > utprobe_profile
# 5 calls: 4 returned (1 of 2-3 ns, 1 of 4-7 ns, 2 of 1-2 us), 1 unwound
echo 'sample_mul_return returns=4 unwound=1 missed=0 pending=0 min_ns=3 max_ns=1500 sum_ns=2910 hist=2:1,3:1,11:2' \
	> utprobe_returns
ln -s utprobe_events utprobe_session
cd "$t" || exit 1

# The samples every output must hold, in the text format
L='probe="sample_mul_return",function="sample_mul"'
want_samples() {
	cat <<EOF
uprobe_hits_total{probe="sample_add",target="$FIX:$add",function="sample_add"} 42
uprobe_hits_total{probe="sample_mul_return",target="$FIX:$mul",function="sample_mul"} 5
uprobe_call_duration_seconds_bucket{$L,le="2e-09"} 0
uprobe_call_duration_seconds_bucket{$L,le="4e-09"} 1
uprobe_call_duration_seconds_bucket{$L,le="8e-09"} 2
uprobe_call_duration_seconds_bucket{$L,le="1.024e-06"} 2
uprobe_call_duration_seconds_bucket{$L,le="2.048e-06"} 4
uprobe_call_duration_seconds_bucket{$L,le="1099.511627776"} 4
uprobe_call_duration_seconds_bucket{$L,le="+Inf"} 4
uprobe_call_duration_seconds_count{$L} 4
uprobe_call_duration_seconds_sum{$L} 0.000002910
EOF
}
# has_samples FILE: every wanted sample is a line of FILE
has_samples() {
	want_samples | while read -r line; do
		grep -qxF "$line" "$1" || { echo "# missing: $line"; return 1; }
	done
}

# fetch PATH [ACCEPT]: "STATUS CONTENT-TYPE" of GET PATH, then the body
fetch() {
	python3 - "http://127.0.0.1:$port$1" "${2:-}" <<'EOF'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1])
if sys.argv[2]:
    req.add_header("Accept", sys.argv[2])
try:
    r = urllib.request.urlopen(req, timeout=10)
except urllib.error.HTTPError as e:
    r = e
print(r.status, r.headers.get("Content-Type"))
sys.stdout.write(r.read().decode())
EOF
}

ktap_print_header
ktap_set_plan 13

"$CLI" stat --format=openmetrics --textfile "$t/uprobe.prom" -n 2 -i 0.1
check $? "stat --textfile writes the file"
[ -z "$(ls "$t" | grep -v '^uprobe.prom$\|^tracefs$')" ] && [ "$(stat -c %a "$t/uprobe.prom")" = 644 ]
check $? "and leaves no file of its own beside it; the file is readable by all"
promtool check metrics < "$t/uprobe.prom" 2>&1 | sed 's/^/# /'
check "${PIPESTATUS[0]}" "promtool check metrics passes the textfile"
has_samples "$t/uprobe.prom"
check $? "the textfile holds the exact counters and buckets"
out=$("$CLI" stat --textfile "$t/x.prom" -n 1 2>&1)
[ $? != 0 ] && [ "$out" = "uprobe-cli: stat --textfile writes metrics: give --format=openmetrics" ] &&
	[ ! -e "$t/x.prom" ]
check $? "stat --textfile without --format=openmetrics is refused"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$CLI" serve --listen ":$port" -e "$FIX:sample_big" 2> "$t/serve.err" &
serve=$!
# connect only once it listens: a connection to a port nobody listens
# on may come from that very port and connect to itself, keeping the
# port from serve
for i in $(seq 100); do
	grep -q '^uprobe-cli: serving ' "$t/serve.err" && break
	kill -0 $serve 2> /dev/null || break
	sleep 0.1
done
fetch /metrics > "$t/text"
head -n 1 "$t/text" | sed 's/^/# /'
sed 1d "$t/text" > "$t/text.body"
head -n 1 "$t/text" | grep -qx '200 text/plain; version=0.0.4; charset=utf-8' &&
	promtool check metrics < "$t/text.body"
check $? "serve on every address: GET /metrics in the text format, which promtool passes"
has_samples "$t/text.body"
check $? "with the exact counters and buckets"
fetch /metrics 'application/openmetrics-text; version=1.0.0' > "$t/om"
head -n 1 "$t/om" | sed 's/^/# /'
head -n 1 "$t/om" | grep -qx '200 application/openmetrics-text; version=1.0.0; charset=utf-8' &&
	[ "$(tail -n 1 "$t/om")" = "# EOF" ] &&
	grep -qx '# TYPE uprobe_hits counter' "$t/om" &&
	grep -qx '# UNIT uprobe_call_duration_seconds seconds' "$t/om" &&
	has_samples "$t/om"
check $? "in OpenMetrics when the scraper accepts it, ending in # EOF"
[ "$(fetch /other | head -n 1 | cut -d' ' -f1)" = 404 ]
check $? "another path is not found"

# 1,100 clients that each send a byte of their request a second, held
# open for 12 s, while a scraper asks every second: every scrape is
# answered in full.
(ulimit -n 4096; python3 - "$port" 1100 12 <<'EOF'
import socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
conns = []
for i in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.setblocking(False)
        conns.append(s)
    except OSError:
        pass
print("# flood: %d connections" % len(conns), flush=True)
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
end = time.monotonic() + secs
i = 0
while time.monotonic() < end:
    for s in conns:
        try:
            s.send(req[i % len(req):i % len(req) + 1])
        except OSError:
            pass
    i += 1
    time.sleep(1)
EOF
) &
flood=$!
sleep 2
ok=0
for i in 1 2 3 4 5 6 7 8; do
	fetch /metrics > "$t/flood" 2> "$t/flood.err"
	head -n 1 "$t/flood" | grep -q '^200 ' && sed 1d "$t/flood" > "$t/flood.body" &&
		has_samples "$t/flood.body" && ok=$((ok + 1))
	sleep 1
done
wait $flood
echo "# $ok of 8 scrapes answered during the flood"
[ $ok = 8 ]
check $? "a flood of 1,100 slow clients: every scrape is answered in full"
# Each scrape describes the probes with their ELF files: what it
# described once it does not open again while the files are the same.
strace -f -e trace=open,openat -o "$t/opens" -p $serve 2> /dev/null &
tracer=$!
sleep 1
for i in 1 2 3; do
	fetch /metrics > /dev/null
done
kill $tracer 2> /dev/null
wait $tracer 2> /dev/null
n=$(grep -c "sample_pie" "$t/opens")
echo "# three scrapes opened $FIX $n times"
[ "$n" = 0 ]
check $? "scrapes do not open the probes' files again to describe them"
kill -0 $serve 2> /dev/null || sed 's/^/# serve: /' "$t/serve.err"
kill -TERM $serve
wait $serve
st=$?
serve=
# with its function, for the kernel to enter it by a jump
grep -q "^p:serve[0-9a-f]*_[0-9]*_0_sample_big $FIX:0x[0-9a-f]* func=0x[0-9a-f]*+0x[0-9a-f]*$" "$UPROBE_CLI_TRACEFS/utprobe_events" &&
	grep -q "^-:serve[0-9a-f]*_[0-9]*_0_sample_big$" "$UPROBE_CLI_TRACEFS/utprobe_events"
check $(( st + $? )) "serve places its probe, and removes it at SIGTERM (exit 0)"
out=$("$CLI" serve --listen 127.0.0.1 2>&1)
[ $? != 0 ] && [ "$out" = "uprobe-cli: --listen '127.0.0.1': give HOST:PORT, :PORT or [IPv6]:PORT" ]
check $? "a --listen without a port is refused, saying how"
ktap_finished
