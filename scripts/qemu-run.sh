#!/bin/bash
# Boot the test kernel in QEMU and run one command in the guest.
#
#   qemu-run.sh [-f FLAVOUR] [-t TIMEOUT] [-n NAME] [-s] [CMD]
#
#   -f  kernel flavour (normal, debug)          default: normal
#   -t  seconds before the guest is killed      default: 600
#   -n  name of the logs in build/logs-FLAVOUR  default: run
#   -s  interactive shell on the console instead of CMD
#
# The guest's output port is streamed to stdout and kept in NAME.out, the
# kernel console in NAME.console.  Exit status: 0 when the guest powered
# off by itself, 124 when it had to be killed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=normal timeout=600 name=run shell=0
while getopts "f:t:n:s" o; do
	case $o in
	f) flavour=$OPTARG ;;
	t) timeout=$OPTARG ;;
	n) name=$OPTARG ;;
	s) shell=1 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cmd=${*:-}

kernel=$top/build/obj-$flavour/arch/x86/boot/bzImage
initrd=$top/build/image-$flavour.cpio
logs=$top/build/logs-$flavour
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "qemu-run: $f missing (make image)" >&2; exit 2; }
done
mkdir -p "$logs"
console=$logs/$name.console out=$logs/$name.out
: > "$console"
: > "$out"

mem=1024
[ "$flavour" = debug ] && mem=2048
# The soft-lockup watchdog's threshold (2 x watchdog_thresh) is set for
# hardware; under TCG, without KVM, the guest runs many times slower, and
# a long but finite loop of mainline's, such as the debug kernel freeing a
# 16384-entry hist map with its KASAN and debug-object checks, can pass
# 20 s.  A lockup still panics the guest, after two minutes.  The TSC is
# the guest's clocksource throughout (tsc=reliable): TCG's TSC follows the
# host's clock, but the clocksource watchdog, seeing the guest's timers
# late, marked it unstable and moved timekeeping to the emulated HPET.
append="console=ttyS0 acpi=ht loglevel=7 panic=-1 oops=panic softlockup_panic=1 watchdog_thresh=60 tsc=reliable nokaslr no_timer_check"
qemu=(qemu-system-x86_64 -machine pc -cpu max -smp 2 -m $mem
	-accel tcg,thread=multi -no-reboot -nodefaults -display none
	-kernel "$kernel" -initrd "$initrd")

if [ $shell = 1 ]; then
	exec "${qemu[@]}" -serial mon:stdio -serial "file:$out" \
		-append "$append utmode=shell"
fi

append="$append utcmd=$(printf '%s' "$cmd" | base64 -w0)"
[ ${#append} -lt 2000 ] || { echo "qemu-run: command too long for the kernel command line" >&2; exit 2; }

"${qemu[@]}" -serial "file:$console" -serial "file:$out" -append "$append" \
	< /dev/null > "$logs/$name.qemu" 2>&1 &
qpid=$!
tail -n +1 -f --pid=$qpid "$out" &
tpid=$!

status=0
for ((i = 0; i < timeout * 10; i++)); do
	kill -0 $qpid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $qpid 2>/dev/null; then
	kill $qpid; sleep 1; kill -9 $qpid 2>/dev/null || true
	status=124
fi
wait $qpid 2>/dev/null || true
wait $tpid 2>/dev/null || true
if [ -s "$logs/$name.qemu" ]; then
	cat "$logs/$name.qemu" >&2
fi
exit $status
