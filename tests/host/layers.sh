#!/bin/bash
# Host test of the files' layers in kernel/uprobes/ and tools/uprobe-cli/,
# read from the built objects (nm): a file that uses another's functions
# or data is not used by it, directly or through others; and no C file
# of either directory is 900 lines or longer.  Prints TAP.
#
# The kernel's objects are the first flavour's that is built, the tool's
# the host build's; each object is that of a C file of the directory.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
n=0 fail=0

ok() { # description, then a command whose success is the test
	local d=$1
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		printf '%s\n' "$out" | sed 's/^/#   /'
		fail=1
	fi
}

# the objects of the C files of directory $1, found in $2
objects() {
	local c o
	for c in "$1"/*.c; do
		o=$2/$(basename "$c" .c).o
		[ -f "$o" ] && echo "$o"
	done
}

# circles OBJ...: 0 if no file uses another that uses it back, through
# any number of others; else the circles, one a line
circles() {
	python3 - "$@" <<'EOF'
import subprocess, sys

defs, refs = {}, {}
for o in sys.argv[1:]:
    name = o.rsplit('/', 1)[-1][:-2]
    nm = subprocess.run(['nm', o], capture_output=True, text=True,
                        check=True).stdout
    defs[name], refs[name] = set(), set()
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TDBRVWCG':
            defs[name].add(f[2])
        elif len(f) == 2 and f[0] == 'U':
            refs[name].add(f[1])
owner = {s: f for f, d in defs.items() for s in d}
uses = {f: sorted({owner[s] for s in r if s in owner and owner[s] != f})
        for f, r in refs.items()}

# Tarjan's strongly connected components, iteratively
index, low, stack, on, found, n = {}, {}, [], set(), [], 0
for root in uses:
    if root in index:
        continue
    work = [(root, 0)]
    while work:
        v, i = work.pop()
        if i == 0:
            index[v] = low[v] = n
            n += 1
            stack.append(v)
            on.add(v)
        if i < len(uses[v]):
            work.append((v, i + 1))
            w = uses[v][i]
            if w not in index:
                work.append((w, 0))
            elif w in on:
                low[v] = min(low[v], index[w])
            continue
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(comp)
        for u, _ in work[-1:]:
            low[u] = min(low[u], low[v])
for comp in found:
    print('a circle:', ' '.join(sorted(comp)))
    for f in sorted(comp):
        print('  ', f, 'uses', ' '.join(w for w in uses[f] if w in comp))
sys.exit(1 if found else 0)
EOF
}

# short DIR: 0 if every C file of DIR is under 900 lines
short() {
	local c l bad=0
	for c in "$1"/*.c; do
		l=$(wc -l < "$c")
		if [ "$l" -ge 900 ]; then
			echo "${c#"$top"/}: $l lines"
			bad=1
		fi
	done
	return $bad
}

kobj=
for f in normal debug noutrace; do
	if [ -f "$top/build/obj-$f/kernel/uprobes/core.o" ]; then
		kobj=$top/build/obj-$f/kernel/uprobes
		break
	fi
done
cobj=$top/build/host/cli

# the check itself must see a circle: two objects that use each other
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
printf 'void b(void);\nvoid a(void) { b(); }\n' > "$t/a.c"
printf 'void a(void);\nvoid b(void) { a(); }\n' > "$t/b.c"
printf 'void a(void);\nvoid c(void) { a(); }\n' > "$t/c.c"
(cd "$t" && cc -c a.c b.c c.c)
no() { ! "$@"; }
ok "the check finds a circle of two files" no circles "$t/a.o" "$t/b.o"
ok "the check finds none where one file only uses another" \
	circles "$t/a.o" "$t/c.o"

if [ -n "$kobj" ]; then
	mapfile -t ko < <(objects "$top/kernel/uprobes" "$kobj")
	ok "kernel/uprobes: no circle among its ${#ko[@]} files" circles "${ko[@]}"
else
	n=$((n + 1))
	echo "ok $n - kernel/uprobes: no circle among its files # SKIP no kernel built"
fi
mapfile -t co < <(objects "$top/tools/uprobe-cli" "$cobj")
ok "tools/uprobe-cli: no circle among its ${#co[@]} files" circles "${co[@]}"
# uprobe-cli.c, linked without an object of its own, picks and runs a
# command: no file may use what it defines (it uses them all)
main_used() {
	local defs used=
	defs=$(nm -l --defined-only "$cobj/uprobe-cli" |
		awk '$2 ~ /^[A-Z]$/ && $4 ~ /\/uprobe-cli\.c:/ { print $3 }')
	[ -n "$defs" ] || { echo "no symbol of uprobe-cli.c found"; return 1; }
	for d in $defs; do
		if nm "${co[@]}" | awk '$1 == "U" { print $2 }' | grep -qx "$d"; then
			used="$used $d"
		fi
	done
	[ -z "$used" ] || { echo "uprobe-cli.c's, used by the others:$used"; false; }
}
ok "tools/uprobe-cli: no file uses the main file's functions" main_used
ok "kernel/uprobes: every file under 900 lines" short "$top/kernel/uprobes"
ok "tools/uprobe-cli: every file under 900 lines" short "$top/tools/uprobe-cli"
echo "1..$n"
exit $fail
