#!/bin/bash
# Bring a source tree to an ordered series of patches, idempotently.
#
#   apply-series.sh SRC_TREE PATCH...
#
# The series last applied is kept in SRC_TREE/.applied/.  Patches whose
# diff matches the applied one at the same position are kept (a changed
# description alone does not reapply, which would re-date files); the
# rest of the applied series is reversed, newest first, and the new tail
# applied.  Each patch is tried with --dry-run first, so a hunk that does
# not apply stops the run with the patch, hunk and file named and leaves
# the tree as the previous patch left it.
set -euo pipefail

src=$1
shift
mkdir -p "$src/.applied"

diff_body() { sed -n '/^--- /,$p' "$1"; }

apply_one() { # patchfile [-R]
	local p=$1 rev=${2:-} out
	if ! out=$(patch -d "$src" -p1 --dry-run -N $rev -i "$p" 2>&1); then
		echo "$out" | awk -v p="$(basename "$p")" '
			/^checking file / { file = $3 }
			/^patching file / { file = $3 }
			/Hunk #[0-9]+ FAILED/ { printf "apply-series: patch %s: hunk %s failed in %s\n", p, $2, file; bad = 1 }
			/^can.t find file to patch/ { printf "apply-series: patch %s: a file it changes is missing\n", p; bad = 1 }
			END { if (!bad) printf "apply-series: patch %s does not apply\n", p }' >&2
		echo "$out" | sed 's/^/    /' >&2
		exit 1
	fi
	patch -d "$src" -p1 -N $rev -s -i "$p" > /dev/null
}

want=("$@")
mapfile -t have < <(ls "$src"/.applied/*.patch 2>/dev/null | sort)
keep=0
while [ $keep -lt ${#want[@]} ] && [ $keep -lt ${#have[@]} ] &&
	[ "$(basename "${want[$keep]}")" = "$(basename "${have[$keep]}")" ] &&
	cmp -s <(diff_body "${want[$keep]}") <(diff_body "${have[$keep]}"); do
	cp "${want[$keep]}" "$src/.applied/"
	keep=$((keep + 1))
done
for ((i = ${#have[@]} - 1; i >= keep; i--)); do
	echo "  UNPATCH $(basename "${have[$i]}")"
	apply_one "${have[$i]}" -R
	rm -f "${have[$i]}"
done
for ((i = keep; i < ${#want[@]}; i++)); do
	echo "  PATCH   $(basename "${want[$i]}")"
	apply_one "${want[$i]}"
	cp "${want[$i]}" "$src/.applied/"
done
