#!/bin/bash
# Host test of scripts/apply-series.sh on a small tree: applies, is
# idempotent, reapplies a changed tail, and names the patch, hunk and
# file of a hunk that fails.  Prints TAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
apply=$top/scripts/apply-series.sh
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
n=0 fail=0

ok() { # description, then a command whose success is the test
	local d=$1
	shift
	n=$((n + 1))
	if "$@" > "$t/out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		sed 's/^/#   /' "$t/out"
		fail=1
	fi
}

mkdir -p "$t/tree/kernel" "$t/p"
printf 'one\ntwo\nthree\n' > "$t/tree/kernel/a.c"
cp -r "$t/tree" "$t/orig"
mkp() { # name, new content of kernel/a.c
	mkdir -p "$t/new/kernel"
	printf '%b' "$2" > "$t/new/kernel/a.c"
	{ printf 'Subject: %s\n---\n' "$1"
	  (cd "$t" && diff -u --label a/kernel/a.c --label b/kernel/a.c orig/kernel/a.c new/kernel/a.c); } > "$t/p/$1"
}
mkp 0001-two.patch 'one\nTWO\nthree\n'

echo "TAP version 13"
echo "1..5"
ok "applies a series" "$apply" "$t/tree" "$t/p/0001-two.patch"
ok "the tree holds the change" grep -qx TWO "$t/tree/kernel/a.c"
ok "applying again changes nothing" \
	bash -c "\"$apply\" \"$t/tree\" \"$t/p/0001-two.patch\" | grep -q . && exit 1 || exit 0"
mkp 0001-two.patch 'one\n2\nthree\n'
ok "a changed patch is reversed and reapplied" \
	bash -c "\"$apply\" \"$t/tree\" \"$t/p/0001-two.patch\" && grep -qx 2 \"$t/tree/kernel/a.c\""
# a patch whose context is not in the tree
{ printf 'Subject: bad\n---\n--- a/kernel/a.c\n+++ b/kernel/a.c\n@@ -1,3 +1,3 @@\n one\n-missing\n+x\n three\n'; } > "$t/p/0002-bad.patch"
ok "a failing hunk is named with its patch and file" \
	bash -c "! \"$apply\" \"$t/tree\" \"$t/p/0001-two.patch\" \"$t/p/0002-bad.patch\" 2> \"$t/err\" &&
		grep -q 'patch 0002-bad.patch: hunk #1 failed in kernel/a.c' \"$t/err\" &&
		grep -qx 2 \"$t/tree/kernel/a.c\""
exit $fail
