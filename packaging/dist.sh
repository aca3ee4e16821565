#!/bin/sh
# Writes the release tarball OUT (scope-bpf-VERSION.tar.gz, one top folder
# scope-bpf-VERSION/): in a git checkout its tracked and unignored files as
# they are in the work tree, elsewhere (an unpacked tarball) every file but
# the build folder.
#
# Usage: packaging/dist.sh VERSION BUILD_DIR OUT
set -eu

version=$1
build=${2%/}
out=$3
list=$(mktemp)
trap 'rm -f "$list"' EXIT

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git ls-files --deleted > "$list.gone"
	git ls-files --cached --others --exclude-standard | sort -u | grep -vxF -f "$list.gone" > "$list" || true
	rm -f "$list.gone"
else
	find . -path "./$build" -prune -o -path ./.git -prune -o \( -type f -o -type l \) -print |
		sed 's|^\./||' | sort > "$list"
fi
mkdir -p "$(dirname "$out")"
tar --create --gzip --file "$out" --no-recursion --owner=0 --group=0 --numeric-owner \
	--sort=name --transform "s|^|scope-bpf-$version/|S" --files-from "$list"
echo "  DIST     $out ($(wc -l < "$list") files)"
