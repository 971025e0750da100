#!/bin/sh
# uprobe-cli with Debian's debuginfod server on loopback, serving the
# debug file of values_target_stripped (built -O2 -g, its DWARF taken
# out; its symbols kept): trace shows a C parameter by name, the debug
# file fetched by build id through libdebuginfod; a second run, with the
# server stopped, reads it from the cache; with no server, one line says
# where the debug information was looked for, and counting by symbol
# still works.  On a terminal (a tmux pane) libdebuginfod's progress is
# shown on stderr; into a pipe, never.
S=/usr/libexec/utrace-tests/targets/values_target_stripped
N=6
PORT=8372
. /usr/libexec/utrace-tests/utp_helpers.sh

URL=http://127.0.0.1:$PORT
dir=/tmp/dbgd.$$
mkdir -p "$dir/served" "$dir/cache"
cp "$S.dwarf" "$dir/served/"

# vt_label's id and name in each of N rounds
want() {
	i=0
	while [ $i -lt $N ]; do
		case $((i % 3)) in
		0) n=alpha ;;
		1) n=beta ;;
		*) n=gamma ;;
		esac
		echo "id=$i name=\"$n\""
		i=$((i + 1))
	done
}

ktap_print_header
ktap_set_plan 8

debuginfod -p $PORT -d :memory: -F "$dir/served" > "$dir/log" 2>&1 &
srv=$!
# ready once it serves the file, asked as libdw will ask; a cache of
# each try's own, since the client remembers a miss for ten minutes
ready=1
for i in $(seq 150); do
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$dir/probe$i \
		debuginfod-find debuginfo "$S" > /dev/null 2>&1 && ready=0 && break
	sleep 0.2
done
[ $ready = 0 ] || sed 's/^/# server: /' "$dir/log" | tail -5
check $ready "debuginfod serves the debug file of $S"

export DEBUGINFOD_CACHE_PATH=$dir/cache
out=$(DEBUGINFOD_URLS=$URL uprobe-cli trace "$S:vt_label" id name -- "$S" $N 2>&1)
echo "$out" | head -3 | sed 's/^/# /'
[ "$(echo "$out" | values)" = "$(want)" ]
check $? "trace: the values of each call, by name, with DWARF from the server"

echo "$out" | grep -q Downloading
[ $? = 1 ]
check $? "stderr not a terminal: no download progress on it"

# stderr a tmux pane's terminal, stdout a file; a cache of its own, so
# that the file is downloaded again
export TERM=screen
tmux -S $dir/sock new-session -d -s dl -x 150 -y 20 \
	"DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$dir/cache2 \
	 uprobe-cli trace '$S:vt_label' id name -- '$S' $N > $dir/tty.out; \
	 echo exit=\$?; sleep 600"
for i in $(seq 300); do
	tmux -S $dir/sock capture-pane -p -t dl > $dir/screen
	grep -q '^exit=' $dir/screen && break
	sleep 0.1
done
tmux -S $dir/sock kill-server 2> /dev/null
sed '/^$/d; s/^/# pane: /' $dir/screen
grep -q '^exit=0$' $dir/screen && grep -q "Downloading" $dir/screen &&
	[ "$(values < $dir/tty.out)" = "$(want)" ]
check $? "stderr a terminal: libdebuginfod's download progress shown"

kill $srv
wait $srv 2> /dev/null
out=$(DEBUGINFOD_URLS=$URL uprobe-cli trace "$S:vt_label" id name -- "$S" $N 2>&1)
[ "$(echo "$out" | values)" = "$(want)" ]
check $? "again, the server stopped: from the cache"

out=$(DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$dir/none \
	uprobe-cli trace "$S:vt_label" id -- "$S" 1 2>&1)
st=$?
echo "$out" | sed 's/^/# /'
[ $st = 1 ] && [ "$(echo "$out" | wc -l)" = 1 ] &&
	echo "$out" | grep -q "no DWARF debug info for .*nor by debuginfod at $URL"
check $? "no server: one line, naming where it was looked for"
out=$(DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$dir/none \
	uprobe-cli count -e "$S:vt_label" -- "$S" $N 2>&1)
echo "$out" | sed 's/^/# /'
echo "$out" | grep -Eq "^ +$N  values_target_stripped:vt_label$"
check $? "no server: counting by symbol still works ($N calls)"
[ -z "$(uprobe-cli list | sed 1d)" ]
check $? "no probe left behind"
rm -rf "$dir"
ktap_finished
