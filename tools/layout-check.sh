#!/bin/sh
# layout-check.sh: every product source file is named in docs/LAYOUT.md, as `NAME` or
# `PATH/NAME`; a header may be named by its .c beside it. Exit 1 listing the files it does
# not name.
cd "$(dirname "$0")/.." || exit 2
named() {
	grep -qE "[\`/]$(printf '%s' "$1" | sed 's/[.]/[.]/g')\`" docs/LAYOUT.md
}
missing=$(git ls-files include user bpf cupti markers ompt annot nvtx kokkos itt mpi slurm 2>/dev/null | grep -E '\.(c|h)$' |
	while read -r f; do
		b=$(basename "$f")
		named "$b" && continue
		case $b in
		*.h) [ -f "$(dirname "$f")/${b%.h}.c" ] && named "${b%.h}.c" && continue ;;
		esac
		echo "  $f"
	done)
[ -z "$missing" ] && exit 0
echo "docs/LAYOUT.md does not name these files (add each where it belongs):"
echo "$missing"
exit 1
