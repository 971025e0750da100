#!/bin/bash
# Build the out-of-tree modules (tests/modules/*, samples/*) against one
# kernel flavour.  Sources are copied under build/ so the work tree stays
# clean and each flavour keeps its own objects.
#
#   modules.sh FLAVOUR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-normal}
obj=$top/build/obj-$flavour
out=$top/build/modules-$flavour
# kernel.sh's lock: no kbuild of this flavour meanwhile
exec 8>"$top/build/.obj-$flavour.lock"
flock 8
mkdir -p "$out"
rm -f "$out"/*.ko
for d in "$top"/tests/modules/*/ "$top"/samples/*/; do
	[ -f "$d/Kbuild" ] || continue
	name=$(basename "$d")
	mkdir -p "$out/src/$name"
	rsync -rc --delete --exclude='*.o' --exclude='*.ko' --exclude='.*' \
		--exclude='*.mod*' --exclude=Module.symvers --exclude=modules.order \
		"$d" "$out/src/$name/"
	rm -f "$out/src/$name"/*.ko
	CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=1 make -s -C "$obj" M="$out/src/$name" ARCH=x86_64 CC="ccache gcc" \
		KBUILD_MODPOST_WARN= modules
	# a module whose Kbuild depends on an option the flavour lacks builds nothing
	for ko in "$out/src/$name"/*.ko; do
		if [ -f "$ko" ]; then cp "$ko" "$out/"; fi
	done
done
