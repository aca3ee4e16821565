#!/bin/bash
# The real CUDA check, on a machine with an NVIDIA GPU and the CUDA toolkit (docs/CUDA.md).
#
# Usage: tools/gpu-check.sh [BUILD_DIR]	(default build; run as root for step 3)
#
# 1. Builds tests/gpu/gpu_check.cu with nvcc (kernels of known relative length
#    on two streams, copies of known sizes, a memset, inside known regions) and
#    libscope_bpf_cupti.so.
# 2. Runs the program with the library loaded and SCOPE_BPF_CUPTI_DUMP set: the
#    records the library hands over, checked against the program's shape
#    (tests/gpu/gpu_check.py dump). This needs no BPF, so it also runs where no
#    tracer can attach (the GPU machine lent to this project runs gVisor).
# 3. Where BPF works and scope-bpf is built: `record --cuda`, then the file's
#    regions, GPU times per region and each piece of work's times inside its
#    launching region (gpu_check.py trace, on the Chrome trace export).
# 4. The --cuda overhead on a launch-bound loop: N empty kernels, untraced,
#    with the library loaded, and (where BPF works) recorded.
# Prints every check and figure; exits 1 when a check fails.
set -u

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd) && cd "$root" || exit 1
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
launches=${GPU_CHECK_LAUNCHES:-20000}
work=$(mktemp -d /tmp/gpu-check.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
status=0

say()
{
	echo "gpu-check: $*"
}

[ -x "$nvcc" ] || { say "nvcc not found (set NVCC)"; exit 1; }
command -v nvidia-smi >/dev/null && nvidia-smi -L
say "building"
"$nvcc" -O2 -Iinclude -o "$work/gpu_check" tests/gpu/gpu_check.cu || exit 1
make -s BUILD="$build" "$build/libscope_bpf_cupti.so" || exit 1
lib=$(realpath "$build/libscope_bpf_cupti.so")

say "step 2: the CUPTI library's own records (no tracer)"
CUDA_INJECTION64_PATH=$lib SCOPE_BPF_CUPTI_DUMP=$work/dump "$work/gpu_check" || exit 1
python3 tests/gpu/gpu_check.py dump "$work/dump" || status=1

sb=$build/scope-bpf
bpf_works=0
if [ -x "$sb" ] && [ "$(id -u)" = 0 ]; then
	say "step 3: record --cuda"
	if "$sb" record -q --cuda -o "$work/p.h5" -- "$work/gpu_check"; then
		bpf_works=1
		"$sb" report "$work/p.h5"
		"$sb" report --gpu "$work/p.h5"
		"$sb" inspect "$work/p.h5" | grep -E 'cuda_|lost'
		"$sb" export chrome-trace "$work/p.h5" -o "$work/p.json" &&
			python3 tests/gpu/gpu_check.py trace "$work/p.json" || status=1
	else
		say "step 3 skipped: scope-bpf cannot record here (no BPF?)"
	fi
else
	say "step 3 skipped: needs root and $sb"
fi

say "step 4: a launch-bound loop of $launches empty kernels, best of 3"
best()
{
	local b= t i

	for i in 1 2 3; do
		t=$("$@" | sed -n 's/.*launch_ns=\([0-9]*\).*/\1/p')
		[ -n "$t" ] || return 1
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}
plain=$(best "$work/gpu_check" launches "$launches") || exit 1
loaded=$(best env CUDA_INJECTION64_PATH="$lib" "$work/gpu_check" launches "$launches") || exit 1
say "untraced $((plain / launches)) ns/launch; library loaded, nobody tracing:" \
	"$((loaded / launches)) ns/launch ($(awk "BEGIN { printf \"%.2f\", $loaded / $plain }") x)"
if ((bpf_works)); then
	traced=$(best "$sb" record -q --cuda -o "$work/l.h5" -- "$work/gpu_check" launches \
		"$launches") || exit 1
	say "recorded with --cuda: $((traced / launches)) ns/launch" \
		"($(awk "BEGIN { printf \"%.2f\", $traced / $plain }") x untraced)"
	"$sb" inspect "$work/l.h5" | grep -E 'cuda_activities|cuda_records_(lost|dropped)'
fi
exit $status
