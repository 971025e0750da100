#!/bin/bash
# Build one flavour of the test kernel: extract the Debian source once,
# overlay the project's kernel files, apply patches/, merge config/
# fragments and run kbuild with ccache.  Skips kbuild entirely when none
# of its inputs changed since the last successful build.
#
#   scripts/kernel.sh FLAVOUR        (normal, debug or noutrace)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-normal}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
build=$top/build
src=$build/linux
obj=$build/obj-$flavour
overlay_dirs="kernel arch include Documentation"

die() { echo "kernel.sh: $*" >&2; exit 1; }

case $flavour in
normal) fragments="config/base.config" ;;
debug)  fragments="config/base.config config/debug.config" ;;
noutrace) fragments="config/base.config config/noutrace.config" ;;
*) die "unknown flavour '$flavour' (normal, debug or noutrace)" ;;
esac

mkdir -p "$build"

# One build of a flavour at a time (two makes run at once, say a check
# and an image): kbuild's objects of one O= are not shared.  Held to the
# end; modules.sh takes it too.
exec 8>"$build/.obj-$flavour.lock"
flock 8

# 1. Pristine source, once.
if [ ! -f "$src/.extracted" ]; then
	[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
	echo "  EXTRACT $tarball"
	rm -rf "$src" "$build/linux.tmp"
	mkdir -p "$build/linux.tmp"
	tar -xf "$tarball" -C "$build/linux.tmp" --strip-components=1
	(cd "$build/linux.tmp" && find . -type f | sed 's|^\./||' | sort) \
		> "$build/linux.tmp/.pristine-files"
	mkdir -p "$build/linux.tmp/.applied"
	touch "$build/linux.tmp/.extracted"
	mv "$build/linux.tmp" "$src"
fi

# Serialise the two flavours: they share the source tree.
exec 9>"$build/.source.lock"
flock 9

# 2. Overlay our own files.  rsync --checksum rewrites (and so re-dates)
# only files whose content changed, which keeps rebuilds incremental.
# Our files must be new files: changes to existing ones go in patches/.
cd "$top"
new_manifest=$(for d in $overlay_dirs; do
	if [ -d "$d" ]; then find "$d" -type f ! -name '*.o' ! -name '.*'; fi
done | sort)
shadow=$(comm -12 <(printf '%s\n' "$new_manifest") "$src/.pristine-files" || true)
[ -z "$shadow" ] || die "these files exist in the kernel tree; change them with a patch in patches/ instead: $shadow"
old_manifest=$(cat "$src/.overlay-files" 2>/dev/null || true)
for f in $(comm -23 <(printf '%s\n' "$old_manifest") <(printf '%s\n' "$new_manifest")); do
	echo "  UNLAY   $f"
	rm -f "$src/$f"
done
if [ -n "$new_manifest" ]; then
	printf '%s\n' "$new_manifest" |
		rsync -rc --files-from=- --itemize-changes "$top/" "$src/" |
		awk '$1 ~ /^>f/ { print "  OVERLAY " $2 }'
fi
printf '%s\n' "$new_manifest" > "$src/.overlay-files"

# 3. Patches, as a series (see apply-series.sh).
"$top/scripts/apply-series.sh" "$src" $(ls "$top"/patches/*.patch 2>/dev/null | sort)

# kbuild with O= only reads the source tree: let the other flavour go on.
flock -u 9

# 4. Skip everything below when nothing that feeds it changed (a patch's
# description is not an input).
diff_body() { sed -n '/^--- /,$p' "$1"; }
inputs=$( {
	cat $fragments
	cd "$src"
	cat .overlay-files
	while read -r f; do
		if [ -n "$f" ]; then cat "$f"; fi
	done < .overlay-files
	for p in .applied/*.patch; do
		if [ -f "$p" ]; then diff_body "$p"; fi
	done
} | sha256sum | cut -d' ' -f1)
if [ -f "$obj/arch/x86/boot/bzImage" ] &&
   [ "$(cat "$obj/.inputs" 2>/dev/null)" = "$inputs" ]; then
	echo "  KERNEL  $flavour up to date"
	exit 0
fi

kmake() { # objdir args...
	local o=$1
	shift
	CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=1 \
	make -C "$src" O="$o" ARCH=x86_64 CC="ccache gcc" \
		KBUILD_BUILD_TIMESTAMP="2026-01-01" KBUILD_BUILD_USER=utrace \
		KBUILD_BUILD_HOST=qemu "$@"
}

# 5. Config: tinyconfig + fragments, replaced only when it differs so
# that kbuild's per-option dependencies keep the rebuild small.
mkdir -p "$obj"
cfg=$build/config-$flavour
mkdir -p "$cfg"
kmake "$cfg" -s tinyconfig >/dev/null
(cd "$src" && scripts/kconfig/merge_config.sh -m -O "$cfg" "$cfg/.config" \
	$(for f in $fragments; do echo "$top/$f"; done)) > "$cfg/merge.log" 2>&1 ||
	{ cat "$cfg/merge.log"; die "merge_config failed"; }
kmake "$cfg" -s olddefconfig >/dev/null
# the last fragment that sets an option decides, as in merge_config.sh
missing=$(cat $fragments | sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)$/\1 \2/p' |
	awk '{ v[$1] = $2; if (!($1 in seen)) { seen[$1] = 1; o[n++] = $1 } }
	     END { for (i = 0; i < n; i++) print o[i], v[o[i]] }' |
	while read -r opt val; do
		if [ "$val" = n ]; then
			grep -q "^$opt=" "$cfg/.config" && echo "$opt=n (is $(grep "^$opt=" "$cfg/.config"))"
		else
			grep -qx "$opt=$val" "$cfg/.config" || echo "$opt=$val"
		fi
	done || true)
[ -z "$missing" ] || die "config fragments ask for options the kernel did not take (check their dependencies): $missing"
if ! cmp -s "$cfg/.config" "$obj/.config"; then
	echo "  CONFIG  $flavour"
	cp "$cfg/.config" "$obj/.config"
fi

# 6. Build.
echo "  KBUILD  $flavour (log: build/kbuild-$flavour.log)"
if ! kmake "$obj" -j"$(($(nproc) + 1))" bzImage modules > "$build/kbuild-$flavour.log" 2>&1; then
	grep -E 'error|Error' "$build/kbuild-$flavour.log" | head -40 >&2
	die "kernel build failed, see build/kbuild-$flavour.log"
fi
echo "$inputs" > "$obj/.inputs"
echo "  KERNEL  $flavour built: build/obj-$flavour/arch/x86/boot/bzImage"
