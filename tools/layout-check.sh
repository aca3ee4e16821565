#!/bin/sh
# layout-check.sh: every product source file is named in docs/LAYOUT.md, by its file name
# or its stem (a .c and its .h are one entry). Exit 1 listing the files it does not name.
cd "$(dirname "$0")/.." || exit 2
missing=$(git ls-files include user bpf cupti markers ompt 2>/dev/null | grep -E '\.(c|h)$' |
	while read -r f; do
		b=$(basename "$f")
		stem=${b%.h}
		stem=${stem%.c}
		stem=${stem%.bpf}
		grep -qF "$b" docs/LAYOUT.md || grep -qE "\`$stem(\.[a-z.]+)?\`" docs/LAYOUT.md ||
			echo "  $f"
	done)
[ -z "$missing" ] && exit 0
echo "docs/LAYOUT.md does not name these files (add each where it belongs):"
echo "$missing"
exit 1
