#!/bin/sh
# Run each fuzz target for a bounded time: fail on a crash in our code, only list those inside libhdf5.
# usage: run.sh BUILD_DIR SECONDS NAME...
set -u
build=$1
secs=$2
shift 2
status=0
mkdir -p "$build/artifacts"
# Where the targets write each input as a file: crashed runs leave theirs behind.
SB_FUZZ_TMPDIR=$build/tmp
export SB_FUZZ_TMPDIR

# The innermost frame of the report in $1 that is not the fuzzer, a sanitizer or libc.
first_frame() {
	grep -E '^ +#[0-9]+ ' "$1" |
		grep -vE 'sysdeps|fuzzer::|__sanitizer|__asan|__lsan|__ubsan|__interceptor|libc\.so|pthread_kill| in (malloc|calloc|realloc|free|abort|raise|mem[a-z]*|str[a-z]*) ' |
		head -n 1
}

# What replaying input $2 with target $1 alone shows: ok, hdf5 (innermost frame in libhdf5) or ours.
replay() {
	timeout 60 "$1" -timeout=5 -rss_limit_mb=2048 "$2" >"$build/replay.log" 2>&1 && {
		echo ok
		return
	}
	if first_frame "$build/replay.log" | grep -q 'libhdf5'; then
		echo hdf5
	else
		echo ours
	fi
}

for name in "$@"; do
	bin=$build/fuzz_$name
	log=$build/fuzz_$name.log
	mkdir -p "$build/corpus/$name" "$SB_FUZZ_TMPDIR"
	rm -f "$build/artifacts/$name-"*
	# HDF5 crashes on some corrupt files by itself: keep fuzzing past them, sort them after.
	extra=
	[ "$name" = hdf5 ] && extra="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
	echo "== fuzz_$name: ${secs}s, log in $log"
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" $extra \
		"$build/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	rm -rf "$SB_FUZZ_TMPDIR"
	mkdir -p "$SB_FUZZ_TMPDIR"
	grep -E 'stat::number_of_executed_units|stat::peak_rss_mb|^#[0-9]+.*(cov|DONE)' "$log" | tail -n 3
	found=0
	for a in "$build/artifacts/$name-"*; do
		[ -e "$a" ] || continue
		found=1
		what=$(replay "$bin" "$a")
		case $name/$what in
		*/ok) echo "   does not fail when replayed alone: $a" ;;
		hdf5/hdf5) echo "   inside libhdf5 (not ours, see tests/fuzz/hdf5_crashers.txt): $a" ;;
		*) echo "   FAILURE in scope-bpf code ($what): $a"; status=1 ;;
		esac
	done
	if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then
		echo "   fuzz_$name failed (exit $rc) without an artifact: see $log"
		status=1
	fi
done
rm -rf "$SB_FUZZ_TMPDIR"
exit $status
