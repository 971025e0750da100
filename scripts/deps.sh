#!/bin/bash
# Check (and as root, install) the Debian packages the build needs.
set -euo pipefail
pkgs="linux-source-6.12 qemu-system-x86 busybox-static libdw-dev libelf-dev
check pkg-config ccache gcc make bc bison flex libssl-dev dwarves cpio
xz-utils rsync kmod file elfutils binutils python3 util-linux
python3-docutils strace libdebuginfod1 libexpat1 libgmp10 libipt2
libreadline8 libxxhash0 libc6-dbg systemtap-sdt-dev python3.11-minimal
libmicrohttpd-dev prometheus tmux sqlite3 debuginfod libtraceevent-dev
libxml2-utils chromium tesseract-ocr"
missing=$(for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"
done)
top=$(cd "$(dirname "$0")/.." && pwd)

# gdb for the guest: Debian's gdb-minimal, the build without Python
# (whose standard library the image would need), unpacked under build/
# rather than installed, since it conflicts with the host's gdb package.
# Its libraries are among the packages above.
gdb_minimal() {
	local dir=$top/build/pkgs tmp
	[ -x "$dir/gdb-minimal/usr/bin/gdb" ] && return 0
	echo "  APT     download gdb-minimal"
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root gdb-minimal) &&
		mkdir -p "$dir" && rm -rf "$dir/gdb-minimal" &&
		dpkg-deb -x "$tmp"/gdb-minimal_*.deb "$dir/gdb-minimal" || {
		rm -rf "$tmp"
		echo "deps.sh: could not download gdb-minimal" >&2
		return 1
	}
	rm -rf "$tmp"
}

[ -z "$missing" ] && { gdb_minimal; exit; }
missing=$(echo $missing)
if [ "$(id -u)" != 0 ]; then
	echo "missing packages; install them with:" >&2
	echo "  sudo apt-get install -y $missing" >&2
	exit 1
fi
echo "  APT     $missing"
# apt's output goes to a log in build/, wherever this is run from
log=$top/build/deps.log
mkdir -p "${log%/*}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing > "$log" 2>&1 || {
	tail -20 "$log"
	echo "deps.sh: apt-get install failed; its whole output is in $log" >&2
	exit 1
}
rm -f "$log"
gdb_minimal
