#!/bin/bash
# Check (and as root, install) the Debian packages the build needs.
set -euo pipefail
pkgs="linux-source-6.12 qemu-system-x86 busybox-static libdw-dev libelf-dev
check pkg-config ccache gcc make bc bison flex libssl-dev dwarves cpio
xz-utils rsync kmod file elfutils binutils python3 util-linux
python3-docutils strace"
missing=$(for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
done)
[ -z "$missing" ] && exit 0
missing=$(echo $missing)
if [ "$(id -u)" != 0 ]; then
	echo "missing packages; install them with:" >&2
	echo "  sudo apt-get install -y $missing" >&2
	exit 1
fi
echo "  APT     $missing"
# apt's output goes to a log in build/, wherever this is run from
log=$(cd "$(dirname "$0")/.." && pwd)/build/deps.log
mkdir -p "${log%/*}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing > "$log" 2>&1 || {
	tail -20 "$log"
	echo "deps.sh: apt-get install failed; its whole output is in $log" >&2
	exit 1
}
rm -f "$log"
