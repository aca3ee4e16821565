#!/bin/sh
# Run each fuzz target for a bounded time: fail on a crash in our code, only list those inside libhdf5.
# usage: run.sh BUILD_DIR SECONDS NAME...
set -u
build=$1
secs=$2
shift 2
status=0
mkdir -p "$build/artifacts"

# 0 when the first frames of the crash that replaying $2 with $1 reports are inside libhdf5.
in_hdf5() {
	"$1" "$2" >"$build/replay.log" 2>&1 && return 1
	grep -E '^ +#[0-3] ' "$build/replay.log" | grep -q 'libhdf5'
}

for name in "$@"; do
	bin=$build/fuzz_$name
	log=$build/fuzz_$name.log
	mkdir -p "$build/corpus/$name"
	rm -f "$build/artifacts/$name-"*
	# HDF5 crashes on some corrupt files by itself: keep fuzzing past them, sort them after.
	extra=
	[ "$name" = hdf5 ] && extra="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	echo "== fuzz_$name: ${secs}s, log in $log"
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" $extra \
		"$build/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$log" | tail -n 2
	found=0
	for a in "$build/artifacts/$name-"*; do
		[ -e "$a" ] || continue
		found=1
		if [ "$name" = hdf5 ] && in_hdf5 "$bin" "$a"; then
			echo "   inside libhdf5 (not ours, see tests/fuzz/hdf5_crashers.txt): $a"
		else
			echo "   CRASH in scope-bpf code: $a"
			status=1
		fi
	done
	if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then
		echo "   fuzz_$name failed (exit $rc) without an artifact: see $log"
		status=1
	fi
done
exit $status
