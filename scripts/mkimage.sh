#!/bin/bash
# Build the guest initramfs for one kernel flavour.
#
#   mkimage.sh FLAVOUR
#
# Layout: Debian's merged /usr (bin, sbin, lib, lib64 are symlinks into
# usr/), busybox-static for the shell and tools, the test suite under
# /usr/libexec/utrace-tests, our modules under /lib/modules/RELEASE/extra.
# Dynamically linked programs bring their shared libraries, each copied
# once at its real path so that one library is one inode in the guest.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:-normal}
build=$top/build
obj=$build/obj-$flavour
root=$build/image-$flavour.root
image=$build/image-$flavour.cpio
libexec=usr/libexec/utrace-tests

release=$(cat "$obj/include/config/kernel.release")
rm -rf "$root"
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,proc,sys,dev,tmp,run,root,etc}
# merged /usr: /lib and friends are links, made before anything goes there
for d in bin sbin lib lib64; do
	ln -s usr/$d "$root/$d"
done
mkdir -p "$root/$libexec"/{t,noutrace,harness,kselftests} "$root/lib/modules/$release/extra"

cp /bin/busybox "$root/usr/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/usr/bin/$a"
done

# install_path HOSTPATH: copy a file into the image at the same path,
# recreating the symlinks along the way as they are on the host.
install_path() {
	local p=$1 dir base
	dir=$(readlink -f "$(dirname "$p")")
	base=$(basename "$p")
	p=$dir/$base
	[ -e "$root$p" ] || [ -L "$root$p" ] && return 0
	mkdir -p "$root$dir"
	if [ -L "$p" ]; then
		local target
		target=$(readlink "$p")
		ln -s "$target" "$root$p"
		case $target in
		/*) install_path "$target" ;;
		*) install_path "$dir/$target" ;;
		esac
	else
		cp "$p" "$root$p"
	fi
}

# install_prog HOSTFILE DEST: a program and, if dynamic, its libraries.
install_prog() {
	install -D -m 0755 "$1" "$root/$2"
	if file -L "$1" | grep -q 'dynamically linked'; then
		for lib in $(ldd "$1" | awk '/=>/ { print $3 } /^\t\// { print $1 }'); do
			install_path "$lib"
		done
	fi
}

install -m 0755 "$top/scripts/guest/init" "$root/init"
install -m 0755 "$top/scripts/guest/run-tests" "$root/$libexec/run-tests"
install -m 0755 "$top/scripts/guest/demo" "$root/$libexec/demo"
install -m 0755 "$top/scripts/guest/bench" "$root/$libexec/bench-run"
for t in "$build"/tests/{t,noutrace,harness,bench,targets,kselftests}/*; do
	[ -f "$t" ] || continue
	install_prog "$t" "$libexec/$(basename "$(dirname "$t")")/$(basename "$t")"
done
# the kernel's KTAP helpers, which the shell tests print their results
# with, through the helpers they share
install -m 0644 "$build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	"$root/$libexec/ktap_helpers.sh"
install -m 0644 "$top/tests/guest/lib/utp_helpers.sh" "$root/$libexec/utp_helpers.sh"
# what the kernel's selftests give on the kernel without utrace
install -m 0644 "$top/tests/guest/system/kselftests.expected" "$root/$libexec/"
# the command-line tool, with its libraries (elfutils)
[ -f "$build/host/cli/uprobe-cli" ] && install_prog "$build/host/cli/uprobe-cli" usr/bin/uprobe-cli
# a real program from Debian's packages for the demo and the CLI tests,
# in place of busybox's applet of the same name
rm -f "$root/usr/bin/bash"
install_prog /usr/bin/bash usr/bin/bash
# libc's and the dynamic loader's separate debug files (Debian's
# libc6-dbg), found by their build ids as on the host: uprobe-cli reads
# libc's variables through them, and names the loader's frames
for lib in /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2; do
	lib=$(readlink -f "$lib")
	lib_id=$(readelf -n "$lib" | awk '/Build ID:/ { print $3 }')
	lib_debug=/usr/lib/debug/.build-id/${lib_id:0:2}/${lib_id:2}.debug
	if [ -f "$lib_debug" ]; then
		install -D -m 0644 "$lib_debug" "$root$lib_debug"
	else
		echo "mkimage.sh: no $lib_debug (libc6-dbg): $lib has no variables" >&2
	fi
done
# Debian's Python, whose interpreter has SDT markers guarded by
# semaphores, with the little of its library it needs without site
# (python3.11 -S)
install_prog /usr/bin/python3.11 usr/bin/python3.11
for f in os.py encodings/__init__.py encodings/aliases.py encodings/utf_8.py; do
	install_path /usr/lib/python3.11/$f
done
mkdir -p "$root/usr/lib/python3.11/lib-dynload"
# coreutils' ls, a real program (busybox's is static), whose calls of
# libc's malloc are counted by their stacks
install_prog /usr/bin/ls usr/lib/coreutils/ls
# sqlite3, a real program whose library's functions are counted
install_prog /usr/bin/sqlite3 usr/bin/sqlite3
# xz, a real multi-threaded program (-T4): busybox's xz only decompresses
rm -f "$root/usr/bin/xz"
install_prog /usr/bin/xz usr/bin/xz
# tmux, to run uprobe-cli top on a screen and read it back, with the
# terminal description of its panes
install_prog /usr/bin/tmux usr/bin/tmux
install_path /lib/terminfo/s/screen
# and the UTF-8 locale it insists on (C.UTF-8, libc's own)
mkdir -p "$root/usr/lib/locale"
cp -r /usr/lib/locale/C.utf8 "$root/usr/lib/locale/"
# strace, for the tests of utprobes with ptrace
rm -f "$root/usr/bin/strace"
install_prog /usr/bin/strace usr/bin/strace
# and gdb (gdb-minimal, unpacked by deps.sh), with the libthread_db it
# loads for threaded programs
install_prog "$build/pkgs/gdb-minimal/usr/bin/gdb" usr/bin/gdb
# Debian's debuginfod server and its client, for uprobe-cli's debug
# files fetched by build id (libdw loads the client library itself)
install_prog /usr/bin/debuginfod usr/bin/debuginfod
install_prog /usr/bin/debuginfod-find usr/bin/debuginfod-find
install_path /usr/lib/x86_64-linux-gnu/libthread_db.so.1
# and the character set conversions it makes (names, to UTF-32)
for f in gconv-modules gconv-modules.cache UTF-32.so UTF-16.so; do
	install_path /usr/lib/x86_64-linux-gnu/gconv/$f
done
for m in "$build"/modules-"$flavour"/*.ko; do
	[ -f "$m" ] && cp "$m" "$root/lib/modules/$release/extra/"
done
# In-tree modules, if the config builds any.
make -s -C "$build/linux" O="$obj" INSTALL_MOD_PATH="$root" \
	INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install >/dev/null 2>&1 || true

echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/false" >> "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
# which kernel the image is for: tests that differ by flavour read it
echo "$flavour" > "$root/etc/utrace-flavour"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) > "$image.tmp"
mv "$image.tmp" "$image"
echo "  IMAGE   $flavour: build/image-$flavour.cpio ($(du -h "$image" | cut -f1))"
