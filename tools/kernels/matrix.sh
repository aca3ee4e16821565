#!/bin/bash
# matrix.sh [ALIAS...] [-- TEST...]: the kernel matrix. Boots each of Debian's kernels in
# turn (run.sh: QEMU, TCG) and runs the BPF integration tests (tests.sh) in it, then prints
# one row per kernel: alias | kernel release | boot s | passed | failed | skipped | time | result.
# Aliases default to $KERNELS, else all of "5.10 6.1 6.12 6.18 7"; tests to $KTESTS, else
# tests.sh's default set. Each kernel's logs stay in build/kernels/matrix/ALIAS/ (one
# NAME.log per test, console.txt, tests.tsv); the table also goes to build/kernels/matrix/table.txt.
# Exit status 0 when every test passed on every kernel, 1 otherwise.
set -u
. "$(dirname "$0")/common.sh"
here=$(cd "$(dirname "$0")" && pwd)

aliases=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do aliases="$aliases $1"; shift; done
[ "${1:-}" = "--" ] && shift
[ -n "$aliases" ] || aliases=${KERNELS:-$KALL}
[ $# -gt 0 ] || set -- ${KTESTS:-}
[ -x "$KBUILD/scope-bpf" ] || kdie "no $KBUILD/scope-bpf: build first (make check-kernels does)"

# Everything first: a download failing should not cost a half-done matrix.
"$here/fetch.sh" $aliases || exit 2

mdir=$KDIR/matrix
mkdir -p "$mdir"
table=$mdir/table.txt
fmt='%-6s | %-22s | %6s | %6s | %6s | %7s | %7s | %s\n'
{
	echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) tests: ${*:-default}  ($(git -C "$KROOT" describe --always --dirty 2>/dev/null))"
	printf "$fmt" kernel release boot_s passed failed skipped time_s result
} > "$table"
# Why each failed test failed, in a few lines: a log that CI keeps shows it without the files.
why() {
	local res=$1 name log
	shift
	for name in "$@"; do
		log=$res/$(echo "$name" | tr ':/' '__').log
		echo "  $name:"
		sed 's/^/    /' "${log%.log}.key" 2>/dev/null
		# The failing assertion, after what the run it checked said (harness.h echoes it).
		grep -E -B8 -A1 '^\[  ERROR   \] --- |^TIMEOUT' "$log" 2>/dev/null | head -n 40 |
			sed 's/^/    /'
	done
}

# One kernel: boot, run the tests, write its table row to $mdir/ALIAS.row.
one() {
	local a=$1 res=$mdir/$1 rc release boot total p=0 f=0 s=0 failed="" result
	local name trc tp tf ts during
	kmsg "$a: running ${*:2} ($(sed -n 's/^package=//p' "$KDIR/$a/kernel.info"))"
	# The guest runs tests.sh in this folder with this environment (run.sh copies both);
	# the per-kernel timeout leaves room for every test's own.
	KRES=$res KBUILD=$KBUILD "$here/run.sh" -q -t "${KTIMEOUT:-3600}" "$a" \
		"$here/tests.sh" "${@:2}" > /dev/null 2>"$mdir/$a.run.log"
	rc=$?
	release=$(sed -n 's/^release=//p' "$KDIR/$a/kernel.info")
	boot=$(sed -n 's/^boot_s=//p' "$res/summary" 2>/dev/null)
	total=$(sed -n 's/^total_s=//p' "$res/summary" 2>/dev/null)
	if [ -f "$res/tests.tsv" ]; then
		while IFS=$'\t' read -r name trc _ tp tf ts; do
			p=$((p + tp)); f=$((f + tf)); s=$((s + ts))
			[ "$trc" = 0 ] || failed="$failed $name"
		done < "$res/tests.tsv"
	fi
	# The test a timeout or a guest's death cut short: the last one tests.sh started.
	during=$(sed -n 's/^== \([^ ]*\) (.*/\1/p' "$res/output" 2>/dev/null | tail -n 1)
	case $rc in
	0) result="ok" ;;
	124) result="TIMEOUT (the guest ran past ${KTIMEOUT:-3600}s, during $during)${failed:+; failed:$failed}" ;;
	125) result="DID NOT BOOT: see $mdir/$a.run.log" ;;
	126) result="GUEST KERNEL DIED during $during: see $res/console.txt${failed:+; failed:$failed}" ;;
	*) result="FAILED:$failed" ;;
	esac
	printf "$fmt" "$a" "$release" "${boot:-?}" "$p" "$f" "$s" "$(printf '%.0f' "${total:-0}")" "$result" > "$mdir/$a.row"
	sed 's/^/  /' "$mdir/$a.run.log" >&2
	[ -z "$failed" ] || why "$res" $failed >&2
	cat "$mdir/$a.row"
	[ $rc -eq 0 ]
}

# KJOBS kernels at a time (default 1: timings stay comparable). One TCG guest keeps one host
# core busy, so KJOBS=2 halves the matrix's time on a two-core machine.
status=0
running=0
for a in $aliases; do
	rm -f "$mdir/$a.row"
	one "$a" "$@" &
	running=$((running + 1))
	if [ $running -ge "${KJOBS:-1}" ]; then
		wait -n || status=1
		running=$((running - 1))
	fi
done
while [ $running -gt 0 ]; do
	wait -n || status=1
	running=$((running - 1))
done
for a in $aliases; do cat "$mdir/$a.row" >> "$table" 2>/dev/null; done
echo
cat "$table"
echo "(logs: $mdir/ALIAS/TEST.log)"
exit $status
