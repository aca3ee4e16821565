#!/bin/bash
# make bench: what markers and tracing cost, as ratios measured in one run, printed as a table.
#
# Usage: tools/bench.sh [BUILD_DIR]	(make bench builds the programs first)
#
# Every figure compares runs made here and now, because absolute times on
# shared virtual machines are noise. Loops time themselves (clock_gettime
# around the loop, see tests/bench/marker_loop.c), so a tracer's start-up and
# the profile's writing are never counted, and the fastest of several runs
# stands for each case. docs/PERFORMANCE.md explains each figure.
#
# Sizes, from the environment:
#   BENCH_MARKER_N=200000000	loop length for the untraced marker cost (a)
#   BENCH_TRACE_N=30000		regions per traced loop, BENCH_TRACE_REPS=5 loops (b)
#   BENCH_ROUNDS=3		rounds of (a) and (b), cases interleaved
#   BENCH_CALLS="1000000 10000000"	recorded calls for rate, loss and memory (c, d)

set -u

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd) && cd "$root" || exit 1
bin=$build/bench
sb=$build/scope-bpf
marker_n=${BENCH_MARKER_N:-200000000}
trace_n=${BENCH_TRACE_N:-30000}
trace_reps=${BENCH_TRACE_REPS:-5}
rounds=${BENCH_ROUNDS:-3}
calls_list=${BENCH_CALLS:-1000000 10000000}
mem_goal_kib=$((64 * 1024))

die()
{
	echo "bench: $*" >&2
	exit 1
}

for f in "$sb" "$bin/marker_loop" "$bin/marker_loop_plain" "$bin/empty_tracer" "$bin/peakrss"; do
	[ -x "$f" ] || die "$f is missing: run make bench"
done
[ "$(id -u)" = 0 ] || die "loading BPF programs needs root (or CAP_BPF and CAP_PERFMON)"

# In the build folder, not /tmp: a 10 M-call profile and its spill take about 1 GB.
mkdir -p "$bin" && tmp=$(mktemp -d "$bin/run.XXXXXX") || die "cannot make a scratch folder"
trap 'rm -rf "$tmp"' EXIT

# The value of KEY in a line of key=value pairs (marker_loop, peakrss).
field()
{
	sed -n "s/.*\\b$1=\\([0-9][0-9]*\\).*/\\1/p" <<<"$2" | head -n1
}

# The smaller of two numbers, the second when the first is empty.
min()
{
	if [ -z "$1" ] || [ "$2" -lt "$1" ]; then echo "$2"; else echo "$1"; fi
}

calc()
{
	awk "BEGIN { printf \"%.${1}f\", $2 }"
}

# Run CMD..., keep its stdout line; on failure show what it said and stop.
runloop()
{
	local out

	if ! out=$("$@" 2>"$tmp/stderr"); then
		cat "$tmp/stderr" >&2
		die "failed: $*"
	fi
	echo "$out"
}

start=$(date +%s)
echo "scope-bpf bench: $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"

# (a) Marker cost with no tracer: the same loop built with and without markers.
echo "(a) untraced markers: $rounds rounds x 2 builds x 3 loops of $marker_n regions"
plain_ns='' mark_ns=''
for ((r = 0; r < rounds; r++)); do
	out=$(runloop "$bin/marker_loop_plain" "$marker_n" 3) || exit 1
	plain_ns=$(min "$plain_ns" "$(field loop_ns "$out")")
	out=$(runloop "$bin/marker_loop" "$marker_n" 3) || exit 1
	mark_ns=$(min "$mark_ns" "$(field loop_ns "$out")")
done
marker_cost=$(calc 3 "($mark_ns - $plain_ns) / (2 * $marker_n)")
marker_ratio=$(calc 2 "$mark_ns / $plain_ns")

# (b) Per-event cost: untraced, scope-bpf, and the empty programs (sleepable and not).
events=$((2 * trace_n))
echo "(b) traced loops: $rounds rounds x 4 cases x $trace_reps loops of $trace_n regions"
base_ns='' sb_ns='' empty_ns='' plainempty_ns='' empty_sleepable=0
for ((r = 0; r < rounds; r++)); do
	out=$(runloop "$bin/marker_loop" "$trace_n" "$trace_reps") || exit 1
	base_ns=$(min "$base_ns" "$(field loop_ns "$out")")
	out=$(runloop "$sb" record -q -o "$tmp/b.h5" -- "$bin/marker_loop" "$trace_n" "$trace_reps") ||
		exit 1
	sb_ns=$(min "$sb_ns" "$(field loop_ns "$out")")
	out=$(runloop "$bin/empty_tracer" "$bin/marker_loop" "$trace_n" "$trace_reps") || exit 1
	empty_ns=$(min "$empty_ns" "$(field loop_ns "$out")")
	grep -q 'sleepable=1' "$tmp/stderr" && empty_sleepable=1
	out=$(runloop "$bin/empty_tracer" -n "$bin/marker_loop" "$trace_n" "$trace_reps") || exit 1
	plainempty_ns=$(min "$plainempty_ns" "$(field loop_ns "$out")")
done
sb_ev=$(calc 0 "($sb_ns - $base_ns) / $events")
empty_ev=$(calc 0 "($empty_ns - $base_ns) / $events")
plainempty_ev=$(calc 0 "($plainempty_ns - $base_ns) / $events")
ratio_empty=$(calc 2 "$sb_ev / $empty_ev")
ratio_plainempty=$(calc 2 "$sb_ev / $plainempty_ev")

# (c, d) Sustained rate, losses and the collector's peak memory, per recorded size.
declare -a rows_c rows_d
for calls in $calls_list; do
	echo "(c,d) recording $calls calls"
	rm -f "$tmp/c.h5"
	out=$(runloop "$bin/peakrss" "$sb" record -q -o "$tmp/c.h5" -- "$bin/marker_loop" "$calls") ||
		exit 1
	loop_ns=$(field loop_ns "$out")
	app_kib=$(field maxrss_kib "$out")
	peak_kib=$(field maxrss_kib "$(cat "$tmp/stderr")")
	hdr=$("$sb" report -f json "$tmp/c.h5" 2>"$tmp/stderr" | head -n1)
	got=$(sed -n 's/.*"calls": \([0-9]*\).*/\1/p' <<<"$hdr")
	lost=$(sed -n 's/.*"lost_events": \([0-9]*\).*/\1/p' <<<"$hdr")
	[ -n "$got" ] && [ -n "$lost" ] || { cat "$tmp/stderr" >&2; die "cannot read $tmp/c.h5"; }
	rate=$(calc 0 "$calls / ($loop_ns / 1e9)")
	[ "$got" = "$calls" ] && count=ok || count="MISMATCH ($got in file)"
	[ "$lost" = 0 ] && lostok=met || lostok=MISSED
	rows_c+=("$(printf '%-44s %14s  %-10s %s' "(c) $calls calls: rate, calls/s" "$rate" "-" \
		"$(calc 2 "$loop_ns / 1e9") s loop")")
	rows_c+=("$(printf '%-44s %14s  %-10s %s' "(c) $calls calls: lost events" "$lost" "0" \
		"$lostok; calls in file: $count")")
	[ "$peak_kib" -lt "$mem_goal_kib" ] && memok=met || memok=MISSED
	[ "$calls" -ge 10000000 ] && goal="< 64 MiB" || { goal="-"; memok=""; }
	rows_d+=("$(printf '%-44s %14s  %-10s %s' "(d) $calls calls: collector peak RSS, MiB" \
		"$(calc 1 "$peak_kib / 1024")" "$goal" \
		"$memok${memok:+; }loop's own figure $(calc 1 "$app_kib / 1024") MiB")")
done
rm -f "$tmp/c.h5"

verdict()
{
	awk "BEGIN { exit !($1) }" && echo met || echo MISSED
}

echo
echo "Results ($(($(date +%s) - start)) s; every figure is relative to runs made in this one)"
printf '%-44s %14s  %-10s %s\n' "measure" "value" "goal" "verdict / detail"
printf '%-44s %14s  %-10s %s\n' "(a) marker, no tracer, ns/marker" "$marker_cost" "<= 1" \
	"$(verdict "$marker_cost <= 1"); loop with/without markers $marker_ratio x"
printf '%-44s %14s  %-10s %s\n' "(b) untraced loop, ns/region" "$(calc 1 "$base_ns / $trace_n")" \
	"-" "baseline for the three below"
printf '%-44s %14s  %-10s %s\n' "(b) scope-bpf, ns/event" "$sb_ev" "-" \
	"(traced - untraced) / (2 x regions)"
printf '%-44s %14s  %-10s %s\n' "(b) empty program ($( ((empty_sleepable)) && echo sleepable ||
	echo 'not sleepable: refused')), ns/event" "$empty_ev" "-" "same probes, programs return 0"
printf '%-44s %14s  %-10s %s\n' "(b) empty program (not sleepable), ns/event" "$plainempty_ev" "-" ""
printf '%-44s %14s  %-10s %s\n' "(b) scope-bpf / empty (same kind)" "$ratio_empty" "<= 1.15" \
	"$(verdict "$ratio_empty <= 1.15")"
printf '%-44s %14s  %-10s %s\n' "(b) scope-bpf / empty (not sleepable)" "$ratio_plainempty" "-" ""
for row in "${rows_c[@]}" "${rows_d[@]}"; do
	echo "$row"
done
