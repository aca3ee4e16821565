#!/bin/sh
# Regenerate vmlinux/<arch>/vmlinux.h from the running kernel's BTF (CO-RE makes one header serve all kernels).
set -e

btf=${1:-/sys/kernel/btf/vmlinux}
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
out="$(dirname "$0")/../vmlinux/$arch/vmlinux.h"

if [ ! -r "$btf" ]; then
	echo "gen-vmlinux: $btf: not readable; this kernel has no BTF (CONFIG_DEBUG_INFO_BTF)" >&2
	exit 2
fi
mkdir -p "$(dirname "$out")"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
echo "gen-vmlinux: wrote $out from $btf"
