#!/bin/sh
# tests.sh [TEST...]: run scope-bpf's BPF integration tests one after the other and write
# one line per test to $KRES/tests.tsv (name, exit status, seconds, cmocka's passed, failed
# and skipped counts) and each test's output to $KRES/NAME.log. Meant to run inside a guest
# booted by run.sh (KRES=/results, the share the host reads back), but runs anywhere.
#
# Names (the test_ prefix is optional):
#   record         tests/integration/test_record (markers through the fast path)
#   record:kernel  the same with SCOPE_BPF_TEST_MODE=kernel (markers trap into the kernel)
#   smoke          scope-bpf record -v of a small demo_heat run, then scope-bpf report
#   smoke:kernel   the same with --mode=kernel
#   all            every built test, both modes of test_record, both smokes (about 45
#                  minutes a kernel under TCG)
#   any other X    build/tests/integration/test_X
# Default: $KTESTS, else the set below. Environment: KROOT (repository, default the current
# folder), KBUILD (default KROOT/build), KTEST_TIMEOUT (seconds per test, default 900).
KROOT=${KROOT:-$(pwd)}
KBUILD=${KBUILD:-$KROOT/build}
KRES=${KRES:-/results}
T=${KTEST_TIMEOUT:-900}
[ $# -gt 0 ] || set -- ${KTESTS:-smoke kernels record record:kernel cli kernel_state fast mpi_calls omp}
# "all": every integration test that is built, test_record in both modes, and the smokes.
if [ "$*" = all ]; then
	set -- smoke smoke:kernel $(ls "$KBUILD/tests/integration" | sed -n 's/^test_//p') record:kernel
fi
export SCOPE_BPF="$KBUILD/scope-bpf" APPS="$KBUILD/apps"
: > "$KRES/tests.tsv"
all=0
for name in "$@"; do
	name=${name#test_}
	log="$KRES/$(echo "$name" | tr ':/' '__').log"
	echo "== $name ($(uname -r))"
	t0=$(date +%s.%N)
	case $name in
	smoke|smoke:kernel)
		# The half-minute check by hand: does anything record at all on this kernel? -v keeps
		# what libbpf and the verifier said in the log. smoke:kernel: markers trap instead.
		mode=auto; [ "$name" = smoke:kernel ] && mode=kernel
		timeout -k 5 "$T" sh -c '"$SCOPE_BPF" record -v --mode="$1" -o /tmp/smoke.h5 -- "$APPS/demo_heat" 256 100 &&
			"$SCOPE_BPF" report /tmp/smoke.h5' sh "$mode" > "$log" 2>&1
		rc=$? ;;
	*:kernel)
		SCOPE_BPF_TEST_MODE=kernel timeout -k 5 "$T" "$KBUILD/tests/integration/test_${name%:kernel}" > "$log" 2>&1
		rc=$? ;;
	*)
		timeout -k 5 "$T" "$KBUILD/tests/integration/test_$name" > "$log" 2>&1
		rc=$? ;;
	esac
	secs=$(echo "$(date +%s.%N) $t0" | awk '{ printf "%.1f", $1 - $2 }')
	# cmocka's summary: "[  PASSED  ] N test(s).", "[  FAILED  ] N test(s)...", "[  SKIPPED ] N ..."
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	if [ "${name%:kernel}" = smoke ]; then	# not cmocka: one check, passed when both commands were
		if [ $rc -eq 0 ]; then p=1; f=0; else p=0; f=1; fi
	fi
	# A test that died (crash, timeout) before cmocka's summary counts as one failure.
	[ -z "$p$f$s" ] && [ $rc -ne 0 ] && f=1
	[ $rc -eq 124 ] && echo "TIMEOUT after ${T}s" >> "$log"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$secs" "${p:-0}" "${f:-0}" "${s:-0}" >> "$KRES/tests.tsv"
	# What the loader and the verifier said, in a few lines: the failing program, the line
	# before "processed N insns" (the verifier's reason), map errors, scope-bpf's own words.
	awk '/^processed [0-9]+ insns/ { if (prev != "") print "verifier: " prev }
		/BPF program load failed|^libbpf: Error in|^libbpf: failed to load|^libbpf: .*(not supported|unknown func|not found)|^scope-bpf( record)?:/ { print }
		{ prev = $0 }' "$log" | grep -v '^scope-bpf record: process [0-9]*: fast-path' |
		awk '!seen[$0]++' | head -n 20 > "${log%.log}.key"
	sed 's/^/   | /' "${log%.log}.key"
	grep -E '^\[  (PASSED|FAILED|SKIPPED|  OK  |  ERROR   ) \]|^\[  (FAILED|SKIPPED) \] test_' "$log" | tail -n 12
	echo "-- $name: exit $rc, ${secs} s"
	[ $rc -eq 0 ] || all=1
done
exit $all
