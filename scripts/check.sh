#!/bin/bash
# Run a test command in the guest and judge the run (scripts/verdict):
# TAP results, the guest's exit and the kernel console all count.
#
#   check.sh [-f FLAVOUR] [-n NAME] [-t TIMEOUT] [-H HOST_TAP] [-E LIST] CMD
#
# HOST_TAP, if given, holds host-side results folded into the same count;
# LIST names the programs that must have run (see scripts/verdict).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=normal name=check timeout=1200 host= expect=
while getopts "f:n:t:H:E:" o; do
	case $o in
	f) flavour=$OPTARG ;;
	n) name=$OPTARG ;;
	t) timeout=$OPTARG ;;
	H) host=$OPTARG ;;
	E) expect=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))

logs=$top/build/logs-$flavour
"$top/scripts/qemu-run.sh" -f "$flavour" -t "$timeout" -n "$name" "$@"
status=$?
[ $status = 0 ] || [ $status = 124 ] || exit 2
cat ${host:+"$host"} "$logs/$name.out" > "$logs/$name.all"
args=(--tap)
[ -n "$expect" ] && args+=(--expect "$expect")
[ $status = 124 ] && args+=(--timed-out "$timeout")
echo "--- $flavour kernel: verdict"
"$top/build/host/verdict" "${args[@]}" "$logs/$name.all" "$logs/$name.console"
rc=$?
[ $rc = 0 ] || echo "logs: build/logs-$flavour/$name.out and $name.console"
exit $rc
