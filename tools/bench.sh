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
#   BENCH_ROUNDS=3		rounds of (a), (e) and (f), cases interleaved
#   BENCH_B_ROUNDS=7		rounds of (b): paired runs, the median ratio decides
#   BENCH_RUNS="1000000:1 10000000:2"	recorded CALLS:PROCS for rate, loss, memory (c, d)
#   BENCH_COMPUTE_N=300000000	steps of work per sampled run, BENCH_COMPUTE_REPS=10 (e)
#   BENCH_REPORT_CALLS=10000000	calls in the generated profile that report and export read (f)
#   BENCH_DETACH_ROUNDS=3		recordings of many_sites for the detach timing (g)
#   BENCH_MPI_ROUNDS=5		rounds of (h), BENCH_MPI_N=10000 round trips, BENCH_MPI_M=20000 regions
#   (i) counters reuses BENCH_TRACE_N, BENCH_TRACE_REPS and BENCH_B_ROUNDS
#   BENCH_CUDA_BATCHES=10000	batches of 64 records per loop of (j), BENCH_CUDA_ROUNDS=3
#   (k) program times reuse BENCH_TRACE_N (needs bpftool; kernel.bpf_stats_enabled is restored)
#   BENCH_FAST_N=2000000		regions per loop of (l), BENCH_FAST_ROUNDS=3, BENCH_FLOOD_S=2 seconds
#   BENCH_SWITCH_N=300000		yields per thread in (k)'s context switches, BENCH_SWITCH_ROUNDS=5
#   BENCH_FINE="10000 4000"	fine_grained's ITERATIONS LENGTH for the mini-app ratio of (l)
#   BENCH_ATTACH_ROUNDS=5		record -p starts timed in (m)
#   BENCH_AGG_N=10000000		regions of one thread recorded with --aggregate and in full (n)
#   BENCH_BIG_N=100000000		the same once each at this size (o); 0 leaves (o) out

set -u

build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd) && cd "$root" || exit 1
bin=$build/bench
sb=$build/scope-bpf
marker_n=${BENCH_MARKER_N:-200000000}
trace_n=${BENCH_TRACE_N:-30000}
trace_reps=${BENCH_TRACE_REPS:-5}
rounds=${BENCH_ROUNDS:-3}
b_rounds=${BENCH_B_ROUNDS:-7}
runs=${BENCH_RUNS:-1000000:1 10000000:2}
mem_goal_kib=$((64 * 1024))
compute_n=${BENCH_COMPUTE_N:-300000000}
compute_reps=${BENCH_COMPUTE_REPS:-10}
report_calls=${BENCH_REPORT_CALLS:-10000000}
report_goal_s=2
report_goal_kib=$((512 * 1024))
detach_rounds=${BENCH_DETACH_ROUNDS:-3}
mpi_rounds=${BENCH_MPI_ROUNDS:-5}
mpi_n=${BENCH_MPI_N:-10000}
mpi_m=${BENCH_MPI_M:-20000}
cuda_batches=${BENCH_CUDA_BATCHES:-10000}
cuda_rounds=${BENCH_CUDA_ROUNDS:-3}
fast_n=${BENCH_FAST_N:-2000000}
fast_rounds=${BENCH_FAST_ROUNDS:-3}
switch_n=${BENCH_SWITCH_N:-300000}
switch_rounds=${BENCH_SWITCH_ROUNDS:-5}
flood_s=${BENCH_FLOOD_S:-2}
fine=${BENCH_FINE:-10000 4000}
attach_rounds=${BENCH_ATTACH_ROUNDS:-5}
agg_n=${BENCH_AGG_N:-10000000}
big_n=${BENCH_BIG_N:-100000000}

die()
{
	echo "bench: $*" >&2
	exit 1
}

for f in "$sb" "$bin/marker_loop" "$bin/marker_loop_plain" "$bin/empty_tracer" "$bin/peakrss" \
	"$bin/compute_loop" "$bin/gen_profile" "$bin/many_sites" "$bin/cuda_handoff" \
	"$bin/fine_grained" "$bin/fast_flood" "$bin/agg_replay"; do
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

verdict()
{
	awk "BEGIN { exit !($1) }" && echo met || echo MISSED
}

# One line of the results table.
row()
{
	printf '%-46s %12s  %-9s %s\n' "$@"
}

# The calls in profile FILE, from its report's JSON header.
calls_in()
{
	"$sb" report -f json "$1" 2>/dev/null | head -n1 | sed -n 's/.*"calls": \([0-9]*\).*/\1/p'
}

# A cost per call means nothing from a recording that lost calls: stop (ROW: which row).
all_calls_in()
{
	local got

	got=$(calls_in "$1")
	[ "$got" = "$2" ] || die "$3: the recording kept ${got:-no} of $2 calls: no cost per call from it"
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

# Other work on the machine slows traced loops most: say how busy it was.
loadavg()
{
	cut -d' ' -f1-3 /proc/loadavg
}

start=$(date +%s)
echo "scope-bpf bench: $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ), load $(loadavg)"

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
# Each case keeps its fastest loop in wall-clock time and in the loop thread's
# CPU time: the uprobe work is charged to that thread, while time that other
# programs on a busy machine take from it is not, so the CPU figure is the
# steadier one; scope-bpf's collector, which runs beside the loop, shows in
# neither.
events=$((2 * trace_n))
# The architecture's yardstick: a bpftrace one-liner that times each region in a
# map and a histogram, the least a tracer must do per call (when installed).
bpftrace=$(command -v bpftrace)
loop_abs=$(cd "$(dirname "$bin/marker_loop")" && pwd)/marker_loop
bpftrace_loop()
{
	"$bpftrace" -e "usdt:$loop_abs:scope_bpf:region_begin { @s[tid] = nsecs; }
		usdt:$loop_abs:scope_bpf:region_end /@s[tid]/ {
			@t = hist(nsecs - @s[tid]); delete(@s[tid]); }" \
		-c "$loop_abs $trace_n $trace_reps" 2>/dev/null | grep '^loop_ns='
}
echo "(b) traced loops: $b_rounds rounds x 4 or 5 cases x $trace_reps loops of $trace_n regions"
declare -A wall cpu sample_rss round_cpu
empty_sleepable=0
# Record case NAME's fastest figures from a loop's output line.
keep()
{
	wall[$1]=$(min "${wall[$1]:-}" "$(field loop_ns "$2")")
	cpu[$1]=$(min "${cpu[$1]:-}" "$(field cpu_ns "$2")")
}
# The verdict uses paired runs: scope-bpf and the empty programs back to back
# (in alternating order), their ratio per round, the median of the rounds. The
# fastest-of-all figures below drift with the machine's state from one minute
# to the next; a ratio of neighbours mostly does not.
declare -a pair_ratio
for ((r = 0; r < b_rounds; r++)); do
	out=$(runloop "$bin/marker_loop" "$trace_n" "$trace_reps") || exit 1
	keep base "$out"
	for c in $( ((r % 2)) && echo "empty sb" || echo "sb empty"); do
		if [ "$c" = sb ]; then
			out=$(runloop "$sb" record -q --mode=kernel -o "$tmp/b.h5" -- "$bin/marker_loop" \
				"$trace_n" "$trace_reps") || exit 1
			all_calls_in "$tmp/b.h5" $((trace_n * trace_reps)) "(b)"
		else
			out=$(runloop "$bin/empty_tracer" "$bin/marker_loop" "$trace_n" \
				"$trace_reps") || exit 1
			grep -q 'sleepable=1' "$tmp/stderr" && empty_sleepable=1
		fi
		keep $c "$out"
		round_cpu[$c]=$(field cpu_ns "$out")
	done
	pair_ratio+=("$(calc 4 "${round_cpu[sb]} / ${round_cpu[empty]}")")
	out=$(runloop "$bin/empty_tracer" -n "$bin/marker_loop" "$trace_n" "$trace_reps") || exit 1
	keep plainempty "$out"
	if [ -n "$bpftrace" ]; then
		out=$(bpftrace_loop) || exit 1
		keep bpftrace "$out"
	fi
done
# ns per event of case NAME over the untraced loop, by wall or cpu time.
per_event()
{
	local -n t=$1

	calc 0 "(${t[$2]} - ${t[base]}) / $events"
}
declare -A ev
for clock in wall cpu; do
	for c in sb empty plainempty ${bpftrace:+bpftrace}; do
		ev[$clock,$c]=$(per_event $clock $c)
	done
done

# (c, d) Sustained rate, losses and the collector's peak memory, per recorded size.
# A size may be split over concurrent loop processes (CALLS:PROCS), so the
# largest run uses both CPUs of a small machine; the collector follows them
# through the shell's forks and its memory is the same for one rank or two.
split_loop='l=$1 n=$2 p=$3; while [ "$p" -gt 1 ]; do "$l" "$n" & p=$((p - 1)); done; "$l" "$n"; wait'
declare -a rows_c rows_d
for run in $runs; do
	calls=${run%%:*} procs=${run#*:}
	[ "$procs" = "$run" ] && procs=1
	calls=$((calls / procs * procs))
	echo "(c,d) recording $calls calls in $procs process(es)"
	rm -f "$tmp/c.h5"
	out=$(runloop "$bin/peakrss" "$sb" record -q --mode=kernel -o "$tmp/c.h5" -- \
		sh -c "$split_loop" sh "$bin/marker_loop" $((calls / procs)) "$procs") || exit 1
	# The processes ran side by side: the slowest one's loop is the run's time.
	loop_ns=$(sed -n 's/.*loop_ns=\([0-9]*\).*/\1/p' <<<"$out" | sort -n | tail -n1)
	peak_kib=$(field maxrss_kib "$(cat "$tmp/stderr")")
	hdr=$("$sb" report -f json "$tmp/c.h5" 2>"$tmp/stderr" | head -n1)
	got=$(sed -n 's/.*"calls": \([0-9]*\).*/\1/p' <<<"$hdr")
	lost=$(sed -n 's/.*"lost_events": \([0-9]*\).*/\1/p' <<<"$hdr")
	[ -n "$loop_ns" ] && [ -n "$peak_kib" ] && [ -n "$got" ] && [ -n "$lost" ] ||
		{ cat "$tmp/stderr" >&2; die "cannot read the $calls-call run's results"; }
	file_bytes=$(stat -c %s "$tmp/c.h5")
	rm -f "$tmp/c.h5"
	rate=$(calc 0 "$calls / ($loop_ns / 1e9)")
	[ "$got" = "$calls" ] && count="all $got calls in the file" || count="MISMATCH: $got in the file"
	rows_c+=("$(row "(c) $calls calls x$procs: calls/s" "$rate" "-" \
		"$(calc 1 "$loop_ns / 1e9") s of loop")")
	rows_c+=("$(row "(c) $calls calls x$procs: lost events" "$lost" "0" \
		"$( [ "$lost" = 0 ] && [ "$got" = "$calls" ] && echo met || echo MISSED); $count")")
	if [ "$calls" -ge 10000000 ]; then
		goal="< 64"
		memok=$( [ "$peak_kib" -lt "$mem_goal_kib" ] && echo met || echo MISSED)
	else
		goal="-" memok=""
	fi
	rows_d+=("$(row "(d) $calls calls x$procs: collector peak RSS, MiB" \
		"$(calc 1 "$peak_kib / 1024")" "$goal" "$memok")")
	# Issue 29: a full trace of a loop as compact as a tracer's own format.
	rows_d+=("$(row "(d) $calls calls x$procs: file, bytes/call" \
		"$(calc 2 "$file_bytes / $calls")" "<= 4" \
		"$(verdict "$file_bytes <= 4 * $calls"); $(calc 1 "$file_bytes / 1048576") MiB")")
done

# (e) Sampling overhead: fixed work unprofiled, then recorded with --sample at
# 99 and 999 Hz; the loop thread's CPU time is the steady figure, since the
# sampling interrupt and its BPF program are charged to it. The fastest of many
# short runs stands for each case: single runs vary by several percent here.
# Memory is measured on a further run with off-CPU stacks on as well.
perf=$(command -v perf)
# scope-bpf samples cycles where the machine has a PMU, else cpu-clock: give perf the same.
sample_event=cpu-clock
[ -n "$perf" ] && "$perf" stat -e cycles -x, true 2>&1 >/dev/null | grep -q '^[0-9]' &&
	sample_event=cycles
echo "(e) sampling: $rounds rounds x up to 6 cases x $compute_reps runs of $compute_n steps"
declare -A swall scpu
skeep()
{
	swall[$1]=$(min "${swall[$1]:-}" "$(field loop_ns "$2")")
	scpu[$1]=$(min "${scpu[$1]:-}" "$(field cpu_ns "$2")")
}
for ((r = 0; r < rounds; r++)); do
	out=$(runloop "$bin/compute_loop" "$compute_n" "$compute_reps") || exit 1
	skeep none "$out"
	# A recording that samples nothing: what the recorder costs by being there.
	out=$(runloop "$sb" record -q -o "$tmp/e.h5" -- "$bin/compute_loop" "$compute_n" \
		"$compute_reps") || exit 1
	skeep quiet "$out"
	for hz in 99 999; do
		out=$(runloop "$sb" record -q --sample=$hz -o "$tmp/e.h5" -- \
			"$bin/compute_loop" "$compute_n" "$compute_reps") || exit 1
		skeep "$hz" "$out"
		# The floor: perf itself sampling the same event at the same rate.
		if [ -n "$perf" ]; then
			out=$(runloop "$perf" record -q -F $hz -e "$sample_event" -o "$tmp/perf.data" \
				-- "$bin/compute_loop" "$compute_n" "$compute_reps") || exit 1
			skeep "perf$hz" "$out"
		fi
	done
done
rm -f "$tmp/perf.data"
for hz in 99 999; do
	runloop "$bin/peakrss" "$sb" record -q --sample=$hz --offcpu-stacks -o "$tmp/e.h5" -- \
		"$bin/compute_loop" "$compute_n" 1 >/dev/null || exit 1
	sample_rss[$hz]=$(field maxrss_kib "$(cat "$tmp/stderr")")
done
rm -f "$tmp/e.h5"
slowdown()
{
	local -n t=$1

	calc 2 "100 * (${t[$2]} - ${t[none]}) / ${t[none]}"
}

# (f) Reading a large profile: report (tree and flat) and two exports, each the
# fastest of $rounds runs, with its peak RSS. The profile is generated, not
# recorded (tests/bench/gen_profile.c), so its size and shape never vary.
echo "(f) report and export: $rounds rounds of a generated $report_calls-call profile"
runloop "$bin/gen_profile" "$tmp/f.h5" "$report_calls" >/dev/null || exit 1
f_bytes=$(stat -c %s "$tmp/f.h5")
declare -A fsec frss
# Run case NAME, CMD...: keep its fastest wall time and largest peak RSS.
fkeep()
{
	local name=$1 t0 t1 kib

	shift
	t0=$(date +%s%N)
	runloop "$bin/peakrss" "$@" >/dev/null || exit 1
	t1=$(date +%s%N)
	kib=$(field maxrss_kib "$(cat "$tmp/stderr")")
	fsec[$name]=$(min "${fsec[$name]:-}" $(((t1 - t0) / 1000000)))
	[ "${frss[$name]:-0}" -ge "$kib" ] || frss[$name]=$kib
}
for ((r = 0; r < rounds; r++)); do
	fkeep tree "$sb" report "$tmp/f.h5"
	fkeep flat "$sb" report --flat "$tmp/f.h5"
	# export renames its output into place: a scratch file, never a device.
	fkeep chrome "$sb" export chrome-trace "$tmp/f.h5" -o "$tmp/f.json"
	rm -f "$tmp/f.json"
	fkeep perfetto "$sb" export perfetto "$tmp/f.h5" -o "$tmp/f.pftrace"
	pf_bytes=$(stat -c %s "$tmp/f.pftrace")
	rm -f "$tmp/f.pftrace"
	# merge streams every call through: one input costs what each of many does.
	fkeep merge "$sb" merge -q "$tmp/f.h5" -o "$tmp/m.h5"
	rm -f "$tmp/m.h5"
	# Disk speed: the same bytes read and written, and synced as merge's output is.
	fkeep copy dd if="$tmp/f.h5" of="$tmp/c.h5" bs=4M conv=fsync status=none
	rm -f "$tmp/c.h5"
done
rm -f "$tmp/f.h5"

# (g) Detach: recording ends at one instant (the kernel side's flag); record
# returns, and the guardian closes the probes after it (docs/DESIGN.md).
echo "(g) detach: $detach_rounds recordings of a program with 80 probes"
# Files the guardian holds: stdio, the stops map and its socket once the probes are closed.
guardian_files()
{
	local g

	g=$(pgrep -x scope-bpf-guard | head -n1)
	[ -n "$g" ] && ls "/proc/$g/fd" 2>/dev/null | wc -l || echo 0
}
ret_ms='' gone_ms=''
for ((r = 0; r < detach_rounds; r++)); do
	out=$(runloop "$sb" record -q -o "$tmp/g.h5" -- "$bin/many_sites") || exit 1
	t_ret=$(date +%s%N)
	while [ "$(guardian_files)" -gt 5 ]; do sleep 0.01; done
	t_gone=$(date +%s%N)
	exit_ns=$(field exit_ns "$out")
	ret_ms=$(min "$ret_ms" $(((t_ret - exit_ns) / 1000000)))
	gone_ms=$(min "$gone_ms" $(((t_gone - exit_ns) / 1000000)))
done
rm -f "$tmp/g.h5"

# (h) A traced MPI call: an 8-byte ping-pong between 2 ranks (4 MPI calls per
# round trip), untraced, recorded with --no-mpi (the recorder there, MPI calls
# not probed) and recorded; in the same processes, rank 0 times empty marked
# regions, so an MPI call's cost is set against two marker events of the same
# run. Both MPI paths (docs/MPI.md): the uprobes with markers through the
# kernel (--mode=kernel --mpi=uprobes, against --mode=kernel --no-mpi), and
# the PMPI library with markers on the fast path (--mpi=pmpi, against --no-mpi,
# both in the default mode); for the PMPI path, rank 0 also times MPI_Allreduce
# of one int over MPI_COMM_SELF, a traced call that waits for no peer, whose
# cost the two busy-polling ranks of the ping-pong do not blur, and the same
# call wrapped by nothing but two marker events (tests/bench/mpi_floor.c,
# preloaded under --no-mpi, the markers' writer inlined as in the library):
# what any region around the call from a preloaded library costs. The goal,
# a traced call at most 2 marker events, is judged against both: the
# program's own events in an empty loop, and these two around the call.
# Fastest of all rounds per case, cases interleaved.
# MPICH's launcher, as mpi_pingpong was built with MPICH's mpicc (apps.mk):
# plain mpiexec may be Open MPI's once both are installed.
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
declare -A pp mk sc
if [ -n "$mpiexec" ] && [ -x "$bin/mpi_pingpong" ]; then
	echo "(h) MPI ping-pong: $mpi_rounds rounds x 6 cases, $mpi_n round trips, $mpi_m regions"
	for ((r = 0; r < mpi_rounds; r++)); do
		for c in none nompi sb fnompi pmpi floor; do
			case $c in
			none) cmd=() ;;
			nompi) cmd=("$sb" record -q --mode=kernel --no-mpi -o "$tmp/h.h5" --) ;;
			sb) cmd=("$sb" record -q --mode=kernel --mpi=uprobes -o "$tmp/h.h5" --) ;;
			fnompi) cmd=("$sb" record -q --no-mpi -o "$tmp/h.h5" --) ;;
			pmpi) cmd=("$sb" record -q --mpi=pmpi -o "$tmp/h.h5" --) ;;
			floor) cmd=("$sb" record -q --no-mpi -o "$tmp/h.h5" -- env \
				"LD_PRELOAD=$(realpath "$bin/mpi_floor.so")") ;;
			esac
			out=$(runloop "${cmd[@]}" "$mpiexec" -n 2 "$bin/mpi_pingpong" "$mpi_n" \
				"$mpi_m" 3) || exit 1
			pp[$c]=$(min "${pp[$c]:-}" "$(field pp_ns "$out")")
			mk[$c]=$(min "${mk[$c]:-}" "$(field mk_ns "$out")")
			sc[$c]=$(min "${sc[$c]:-}" "$(field sc_ns "$out")")
		done
	done
	rm -f "$tmp/h.h5"
	mpi_call_ns=$(calc 0 "(${pp[sb]} - ${pp[nompi]}) / (4 * $mpi_n)")
	region_ns=$(calc 0 "(${mk[sb]} - ${mk[none]}) / $mpi_m")
	pmpi_pp_call_ns=$(calc 0 "(${pp[pmpi]} - ${pp[fnompi]}) / (4 * $mpi_n)")
	pmpi_call_ns=$(calc 1 "(${sc[pmpi]} - ${sc[fnompi]}) / $mpi_m")
	floor_ns=$(calc 1 "(${sc[floor]} - ${sc[fnompi]}) / $mpi_m")
	fast_region_ns=$(calc 1 "(${mk[pmpi]} - ${mk[none]}) / $mpi_m")
fi
# (i) Counters (record -e): a traced region's cost with 1 and 4 software
# counters read at every boundary, against the same recording without. The
# three cases run back to back in rotating order each round; per event is the
# loop thread's CPU time over the untraced loop of (b), and the median of the
# rounds' ratios decides.
ctr_one=task-clock
ctr_four=task-clock,page-faults,context-switches,cpu-migrations
echo "(i) counters: $b_rounds rounds x 3 cases x $trace_reps loops of $trace_n regions"
declare -A hcpu hbest
declare -a h_ratio1 h_ratio4
for ((r = 0; r < b_rounds; r++)); do
	case $((r % 3)) in
	0) order="c0 c1 c4" ;;
	1) order="c1 c4 c0" ;;
	*) order="c4 c0 c1" ;;
	esac
	for c in $order; do
		case $c in
		c0) ev_opt=() ;;
		c1) ev_opt=(-e "$ctr_one") ;;
		*) ev_opt=(-e "$ctr_four") ;;
		esac
		out=$(runloop "$sb" record -q --mode=kernel "${ev_opt[@]}" -o "$tmp/h.h5" -- "$bin/marker_loop" \
			"$trace_n" "$trace_reps") || exit 1
		hcpu[$c]=$(field cpu_ns "$out")
		hbest[$c]=$(min "${hbest[$c]:-}" "${hcpu[$c]}")
	done
	h_ratio1+=("$(calc 4 "(${hcpu[c1]} - ${cpu[base]}) / (${hcpu[c0]} - ${cpu[base]})")")
	h_ratio4+=("$(calc 4 "(${hcpu[c4]} - ${cpu[base]}) / (${hcpu[c0]} - ${cpu[base]})")")
done
rm -f "$tmp/h.h5"
median_of()
{
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
h_median1=$(median_of "${h_ratio1[@]}")
h_median4=$(median_of "${h_ratio4[@]}")
# (k) The kernel side's own time per event, from kernel.bpf_stats_enabled: the
# marker programs while a loop of (b) is recorded (the median of 3 recordings;
# the empty programs under the same loop), and the scheduler hook while two
# untraced threads switch on CPU 0 (scope-bpf records a command that only
# sleeps; an empty sched_switch program for the floor). A run of a program as
# the kernel counts it: from its entry to its return.
prog_ns()
{
	bpftool prog show 2>/dev/null | awk -v want="$1" '{
		name = ""; t = 0; c = 0
		for (i = 1; i < NF; i++) {
			if ($i == "name") name = $(i + 1)
			if ($i == "run_time_ns") t = $(i + 1)
			if ($i == "run_cnt") c = $(i + 1)
		}
		if (name == want && c > 0) { printf "%.0f", t / c; exit }
	}'
}
# NAME's time per run after it has run a second: the recorder loads its programs for a few
# seconds first (empty when it never appeared in 20 s).
await_prog_ns()
{
	local i

	for ((i = 0; i < 100; i++)); do
		if [ -n "$(prog_ns "$1")" ]; then
			sleep 1
			prog_ns "$1"
			return
		fi
		sleep 0.2
	done
}
# scope-bpf recording a command that only sleeps, on CPU 1 so that its own threads leave
# CPU 0 to the ping-pong (what is measured is its hook, not its threads), once the hook is in.
start_idle_recorder()
{
	local i

	taskset -c 1 "$sb" record -q -o "$tmp/k.h5" -- sleep 600 2>/dev/null &
	rec=$!
	for ((i = 0; i < 100; i++)); do
		bpftool prog show name on_switch >/dev/null 2>&1 && break
		sleep 0.2
	done
	sleep 1
}
stop_idle_recorder()
{
	kill -INT "$rec"
	wait "$rec" || true
}
declare -A kns
if command -v bpftool >/dev/null && command -v taskset >/dev/null; then
	echo "(k) program time per run (kernel.bpf_stats_enabled)"
	stats_was=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	kb=() ke=()
	for ((r = 0; r < 3; r++)); do
		"$sb" record -q --mode=kernel -o "$tmp/k.h5" -- "$bin/marker_loop" "$trace_n" 60 \
			>/dev/null &
		kb+=("$(await_prog_ns begin_site_reg)") ke+=("$(prog_ns end_site_reg)")
		wait
	done
	kns[begin]=$(median_of "${kb[@]}") kns[end]=$(median_of "${ke[@]}")
	"$bin/empty_tracer" -n "$bin/marker_loop" "$trace_n" 60 >/dev/null &
	kns[empty]=$(await_prog_ns empty_begin)
	wait
	"$bin/empty_tracer" -s "$bin/switch_pingpong" "$switch_n" 3 >/dev/null &
	kns[switch_empty]=$(await_prog_ns empty_switch)
	wait
	start_idle_recorder
	"$bin/switch_pingpong" "$switch_n" 3 >/dev/null &
	sleep 1
	kns[switch]=$(prog_ns on_switch)
	wait $!
	stop_idle_recorder
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	# The scheduler hook as every task feels it (statistics off again): a context switch
	# between two untraced threads on one CPU with nothing attached, with an empty
	# sched_switch program, and while scope-bpf records a command that only sleeps; the
	# fastest of each case over rounds that alternate.
	echo "(k) context switches: $switch_rounds rounds x 3 cases of 2 x $switch_n yields"
	for ((r = 0; r < switch_rounds; r++)); do
		out=$(runloop "$bin/switch_pingpong" "$switch_n" 3) || exit 1
		kns[sw_base]=$(min "${kns[sw_base]:-}" "$(field switch_ns "$out")")
		out=$(runloop "$bin/empty_tracer" -s "$bin/switch_pingpong" "$switch_n" 3) || exit 1
		kns[sw_empty]=$(min "${kns[sw_empty]:-}" "$(field switch_ns "$out")")
		start_idle_recorder
		out=$(runloop "$bin/switch_pingpong" "$switch_n" 3) || exit 1
		kns[sw_sb]=$(min "${kns[sw_sb]:-}" "$(field switch_ns "$out")")
		stop_idle_recorder
	done
	rm -f "$tmp/k.h5"
fi

# (j) The CUDA hand-off: full batches of CUPTI records through the library's
# probe, the kernel side and the ring buffer into the recorder, as fast as one
# thread can fire them (faster than CUPTI delivers), untraced and recorded with
# --cuda; per record is the firing thread's CPU time, the rate is wall time,
# and every record must arrive (cuda_activities, cuda_records_lost).
echo "(j) CUDA hand-off: $cuda_rounds rounds x 2 cases, 3 loops of $cuda_batches batches of 64"
declare -A cj
cuda_lost=0 cuda_kept=0
for ((r = 0; r < cuda_rounds; r++)); do
	out=$(runloop "$bin/cuda_handoff" "$cuda_batches" 3) || exit 1
	cj[cpu0]=$(min "${cj[cpu0]:-}" "$(field cpu_ns "$out")")
	out=$(runloop "$sb" record -q --cuda -o "$tmp/j.h5" -- "$bin/cuda_handoff" "$cuda_batches" 3) ||
		exit 1
	cj[cpu]=$(min "${cj[cpu]:-}" "$(field cpu_ns "$out")")
	cj[wall]=$(min "${cj[wall]:-}" "$(field loop_ns "$out")")
	meta=$("$sb" inspect "$tmp/j.h5")
	cuda_lost=$((cuda_lost + $(echo "$meta" | awk '$1 == "cuda_records_lost" { print $2 }')))
	cuda_kept=$((cuda_kept + $(echo "$meta" | awk '$1 == "cuda_activities" { print $2 }')))
done
rm -f "$tmp/j.h5"
cuda_records=$((cuda_batches * 64))

# (l) The fast path (docs/DESIGN.md): the loop of (b) with BENCH_FAST_N regions on one
# thread, untraced and recorded in the default mode (markers write to shared memory while
# the recorder's drainer empties it), against the kernel path's and the empty programs'
# per-region cost from (b); the flood app on 1 and 2 threads for the sustained rate and what
# was dropped; the recorder's own CPU time per million calls; a fine-grained solver loop
# untraced, recorded (fast) and recorded --mode=kernel.
echo "(l) fast path: $fast_rounds recordings of $fast_n regions; flood ${flood_s} s on 1 and 2 threads"
meta_of()
{
	awk -v k="$2" '$1 == k { print $2 }' <<<"$1"
}
declare -A lf
fast_dropped=0
for ((r = 0; r < fast_rounds; r++)); do
	out=$(runloop "$bin/marker_loop" "$fast_n" 3) || exit 1
	lf[base]=$(min "${lf[base]:-}" "$(field cpu_ns "$out")")
	# One loop a recording: a second loop in the same recording would find the queue still
	# full of the first one's records.
	out=$(runloop "$bin/peakrss" "$sb" record -q -o "$tmp/l.h5" -- "$bin/marker_loop" "$fast_n" 1) ||
		exit 1
	lf[fast]=$(min "${lf[fast]:-}" "$(field cpu_ns "$out")")
	kib=$(field maxrss_kib "$(cat "$tmp/stderr")")
	((kib > ${lf[rss]:-0})) && lf[rss]=$kib
	meta=$("$sb" inspect "$tmp/l.h5")
	fast_dropped=$((fast_dropped + $(meta_of "$meta" fast_records_dropped)))
	lf[rec_cpu]=$(min "${lf[rec_cpu]:-}" "$(meta_of "$meta" recorder_cpu_ns)")
done
for t in 1 2; do
	out=$(runloop "$bin/fast_flood" "$t" "$flood_s") || exit 1
	lf[flood0_$t]=$(sed -n 's/^calls //p' <<<"$out")
	t0=$(date +%s%N)
	out=$(runloop "$bin/peakrss" "$sb" record -q -o "$tmp/l.h5" -- "$bin/fast_flood" "$t" "$flood_s") ||
		exit 1
	lf[flood_wall_$t]=$(calc 1 "($(date +%s%N) - $t0) / 1e9")
	lf[flood_rss_$t]=$(field maxrss_kib "$(cat "$tmp/stderr")")
	lf[flood_$t]=$(sed -n 's/^calls //p' <<<"$out")
	meta=$("$sb" inspect "$tmp/l.h5")
	lf[flood_drop_$t]=$(meta_of "$meta" fast_records_dropped)
	lf[flood_rec_$t]=$(meta_of "$meta" fast_records)
done
# The recorder's CPU time for a loop of one region: loading, attaching, writing.
"$sb" record -q -o "$tmp/l.h5" -- "$bin/marker_loop" 1 1 >/dev/null 2>&1 || die "cannot record"
lf[rec_cpu0]=$(meta_of "$("$sb" inspect "$tmp/l.h5")" recorder_cpu_ns)
read -r fine_iters fine_len <<<"$fine"
for ((r = 0; r < fast_rounds; r++)); do
	for c in base fast kernel; do
		case $c in
		base) cmd=() ;;
		fast) cmd=("$sb" record -q -o "$tmp/l.h5" --) ;;
		kernel) cmd=("$sb" record -q --mode=kernel -o "$tmp/l.h5" --) ;;
		esac
		out=$(runloop "${cmd[@]}" "$bin/fine_grained" "$fine_iters" "$fine_len") || exit 1
		lf[fine_$c]=$(min "${lf[fine_$c]:-}" "$(field loop_ns "$out")")
		fine_calls=$(field calls "$out")
	done
done
rm -f "$tmp/l.h5"
fast_ns=$(calc 1 "(${lf[fast]} - ${lf[base]}) / $fast_n")
# A thread's ns per region from the flood: its calls in flood_s seconds, less the untraced cost.
flood_ns()
{
	calc 1 "$flood_s * 1e9 * $1 / ${lf[flood_$1]} - $flood_s * 1e9 * $1 / ${lf[flood0_$1]}"
}

echo
echo "Results ($(($(date +%s) - start)) s, load at the end $(loadavg); figures are relative to this run)"
row "measure" "value" "goal" "verdict / detail"
row "(a) marker, no tracer, ns/marker" "$marker_cost" "<= 1" \
	"$(verdict "$marker_cost <= 1"); loop with/without markers: $marker_ratio x"
row "(b) untraced loop, ns/region, wall | cpu" \
	"$(calc 1 "${wall[base]} / $trace_n") | $(calc 1 "${cpu[base]} / $trace_n")" "-" \
	"the baseline of the per-event costs below"
row "(b) scope-bpf, ns/event, wall | cpu" "${ev[wall,sb]} | ${ev[cpu,sb]}" "-" \
	"(traced - untraced) / (2 x regions)"
if ((empty_sleepable)); then
	row "(b) empty, sleepable, ns/event, wall | cpu" "${ev[wall,empty]} | ${ev[cpu,empty]}" "-" \
		"programs that return 0"
else
	row "(b) empty, sleepable, ns/event" "-" "-" "the kernel refused sleepable uprobes"
fi
row "(b) empty, not sleepable, ns/event, wall | cpu" \
	"${ev[wall,plainempty]} | ${ev[cpu,plainempty]}" "-" "programs that return 0"
median=$(printf '%s\n' "${pair_ratio[@]}" | sort -g | awk '{ v[NR] = $1 } END {
	print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
spread=$(printf '%s\n' "${pair_ratio[@]}" | sort -g | sed -n '1p;$p' | paste -sd- -)
row "(b) scope-bpf / empty sleepable, paired, cpu" "$(calc 2 "$median")" "<= 1.30" \
	"$(verdict "$median <= 1.30"); median of $b_rounds rounds (range $spread)"
for clock in wall cpu; do
	ratio=$(calc 2 "${ev[$clock,sb]} / ${ev[$clock,empty]}")
	if ((empty_sleepable)); then
		row "(b) scope-bpf / empty, both sleepable, $clock" "$ratio" "-" \
			"fastest of all runs each"
	fi
	ratio=$(calc 2 "${ev[$clock,sb]} / ${ev[$clock,plainempty]}")
	row "(b) scope-bpf / empty, not sleepable, $clock" "$ratio" "-" ""
done
if [ -n "$bpftrace" ]; then
	row "(b) bpftrace one-liner, ns/event, wall | cpu" "${ev[wall,bpftrace]} | ${ev[cpu,bpftrace]}" "-" \
		"per-region timing into a histogram"
	row "(b) scope-bpf / bpftrace, cpu" "$(calc 2 "${ev[cpu,sb]} / ${ev[cpu,bpftrace]}")" "-" \
		"scope-bpf also keeps every call"
fi
for r in "${rows_c[@]}" "${rows_d[@]}"; do
	echo "$r"
done
row "(e) recording, no --sample, %, wall | cpu" "$(slowdown swall quiet) | $(slowdown scpu quiet)" \
	"<= 0.3" "$(verdict "$(slowdown swall quiet) <= 0.3"); the recorder's threads, idle"
for hz in 99 999; do
	goal="-" ok=""
	if [ "$hz" = 99 ]; then
		goal="<= 1"
		ok=$(verdict "$(slowdown scpu 99) <= 1")
	fi
	row "(e) slowdown at $hz Hz, %, wall | cpu" "$(slowdown swall $hz) | $(slowdown scpu $hz)" \
		"$goal" "$ok${ok:+; }cpu is the loop thread's CPU time"
	if [ -n "$perf" ]; then
		row "(e) perf record -F $hz ($sample_event), %, wall | cpu" \
			"$(slowdown swall perf$hz) | $(slowdown scpu perf$hz)" "-" \
			"the floor: the sampling interrupt itself"
	fi
	row "(e) collector peak RSS at $hz Hz, MiB" "$(calc 1 "${sample_rss[$hz]} / 1024")" "-" \
		"with --offcpu-stacks"
done
for c in tree flat chrome perfetto merge; do
	case $c in
	tree) what="report" ;;
	flat) what="report --flat" ;;
	chrome) what="export chrome-trace" ;;
	perfetto) what="export perfetto" ;;
	merge) what="merge" ;;
	esac
	s=$(calc 2 "${fsec[$c]} / 1000") mib=$(calc 0 "${frss[$c]} / 1024")
	if [ $c = merge ]; then
		row "(f) $what, s | peak MiB" "$s | $mib" "disk | 64" \
			"$(verdict "${frss[$c]} < 64 * 1024"); one $report_calls-call input streamed; dd of the file (fsync): $(calc 2 "${fsec[copy]} / 1000") s"
	elif [ $c = perfetto ]; then
		row "(f) $what, s | B/call" "$s | $(calc 1 "$pf_bytes / $report_calls")" "< 10 | 32" \
			"$(verdict "$s < 10 && $pf_bytes <= 32 * $report_calls"); peak $mib MiB"
	elif [ $c = chrome ]; then
		row "(f) $what, s | peak MiB" "$s | $mib" "-" \
			"$report_calls calls, $(calc 0 "$f_bytes / 1048576") MiB file"
	else
		row "(f) $what, s | peak MiB" "$s | $mib" "< 2 | 512" \
			"$(verdict "$s < $report_goal_s && ${frss[$c]} < $report_goal_kib")"
	fi
done
row "(g) record returns after the target, ms" "$ret_ms" "< 1000" \
	"$(verdict "$ret_ms < 1000"); 80 probes, profile written"
row "(g) all 80 probes gone after the target, ms" "$gone_ms" "-" \
	"closed by the guardian, one grace period each"
if [ -n "${mpi_call_ns:-}" ]; then
	row "(h) ping-pong round trip, us, untraced | traced" \
		"$(calc 2 "${pp[none]} / $mpi_n / 1000") | $(calc 2 "${pp[sb]} / $mpi_n / 1000")" "-" \
		"traced / untraced: $(calc 2 "${pp[sb]} / ${pp[none]}") x (8 bytes, 2 ranks)"
	row "(h) traced MPI call, ns" "$mpi_call_ns" "-" \
		"(recorded - recorded --no-mpi) / (4 calls x round trips)"
	row "(h) traced region (2 marker events), ns" "$region_ns" "-" "same processes, rank 0"
	row "(h) MPI call / 2 marker events" "$(calc 2 "$mpi_call_ns / $region_ns")" "<= 1" \
		"$(verdict "$mpi_call_ns <= $region_ns"); --mpi=uprobes, --mode=kernel"
	row "(h) PMPI: ping-pong round trip, us, untraced | traced" \
		"$(calc 2 "${pp[none]} / $mpi_n / 1000") | $(calc 2 "${pp[pmpi]} / $mpi_n / 1000")" \
		"<= 1.3 x" "$(verdict "${pp[pmpi]} <= 1.3 * ${pp[none]}"): traced / untraced \
$(calc 2 "${pp[pmpi]} / ${pp[none]}") x"
	row "(h) PMPI: traced MPI call, ns" "$pmpi_call_ns" "-" \
		"MPI_Allreduce on MPI_COMM_SELF, rank 0: (--mpi=pmpi - --no-mpi) / calls"
	row "(h) PMPI: traced MPI call in the ping-pong, ns" "$pmpi_pp_call_ns" "-" \
		"(--mpi=pmpi - --no-mpi) / (4 calls x round trips)"
	row "(h) PMPI: traced region (2 marker events), ns" "$fast_region_ns" "-" \
		"same processes, rank 0, fast path"
	row "(h) PMPI: MPI call / 2 marker events" "$(calc 2 "$pmpi_call_ns / $fast_region_ns")" \
		"<= 1" "$(verdict "$pmpi_call_ns <= $fast_region_ns"): the program's own, in an empty loop"
	row "(h) PMPI: 2 marker events around the call, ns" "$floor_ns" "-" \
		"tests/bench/mpi_floor.c: one site, no name, no arguments read"
	row "(h) PMPI: MPI call / 2 events around it" "$(calc 2 "$pmpi_call_ns / $floor_ns")" "<= 1" \
		"$(verdict "$pmpi_call_ns <= $floor_ns"): what the library's bookkeeping adds"
else
	row "(h) traced MPI call" "-" "-" "skipped: no mpiexec or no mpicc"
fi
for c in c0 c1 c4; do
	case $c in
	c0) what="no counters" ;;
	c1) what="1 counter ($ctr_one)" ;;
	*) what="4 software counters" ;;
	esac
	row "(i) $what, ns/event, cpu" "$(calc 0 "(${hbest[$c]} - ${cpu[base]}) / $events")" "-" \
		"fastest round"
done
row "(i) 1 counter / none, paired, cpu" "$(calc 2 "$h_median1")" "-" \
	"median of $b_rounds rounds"
row "(i) 4 counters / none, paired, cpu" "$(calc 2 "$h_median4")" "<= 1.30" \
	"$(verdict "$h_median4 <= 1.30"); median of $b_rounds rounds"
row "(j) CUDA hand-off, ns/record, cpu" \
	"$(calc 1 "(${cj[cpu]} - ${cj[cpu0]}) / $cuda_records")" "-" \
	"batches of 64 x 80 bytes, firing thread's CPU time over untraced"
row "(j) CUDA hand-off, M records/s | lost" \
	"$(calc 2 "$cuda_records / ${cj[wall]} * 1000") | $cuda_lost" "lost 0" \
	"$(verdict "$cuda_lost == 0 && $cuda_kept == $cuda_rounds * 3 * $cuda_records"); $cuda_kept of $((cuda_rounds * 3 * cuda_records)) records kept"
if [ -n "${kns[begin]:-}" ] && [ -n "${kns[end]:-}" ]; then
	per_event=$(calc 0 "(${kns[begin]} + ${kns[end]}) / 2")
	row "(k) region begin | end, ns/run" "${kns[begin]} | ${kns[end]}" "-" \
		"the programs' own time, bpf_stats, median of 3 recordings"
	row "(k) scope-bpf programs, ns/event" "$per_event" "<= 250" \
		"$(verdict "$per_event <= 250"); empty program ${kns[empty]:-?} ns/run"
	row "(k) sched_switch hook, untraced, ns/run" "${kns[switch]:--}" "< 150" \
		"$(verdict "${kns[switch]:-999} < 150"); bpf_stats; empty program ${kns[switch_empty]:-?}"
	sw_sb=$((kns[sw_sb] - kns[sw_base])) sw_empty=$((kns[sw_empty] - kns[sw_base]))
	row "(k) switch cost added, scope-bpf | empty, ns" "$sw_sb | $sw_empty" "-" \
		"wall time; ${kns[sw_base]} ns a switch without; runs move by 150 ns"
else
	row "(k) program time per run" "-" "-" "skipped: no bpftool or taskset, or no figures"
fi
fine_ratio=$(calc 3 "${lf[fine_fast]} / ${lf[fine_base]}")
row "(l) fast path, ns/region, cpu, 1 thread" "$fast_ns" "<= 30" \
	"$(verdict "$fast_ns <= 30"); recorded - untraced loop ($(calc 1 "${lf[base]} / $fast_n") ns)"
row "(l) kernel path | empty programs, ns/region" \
	"$((2 * ${ev[cpu,sb]})) | $((2 * ${ev[cpu,empty]}))" "-" \
	"from (b): fast path is $(calc 0 "2 * ${ev[cpu,sb]} / $fast_ns") x cheaper than the kernel path"
row "(l) $fast_n regions x $fast_rounds recordings, records dropped" "$fast_dropped" "0" \
	"$(verdict "$fast_dropped == 0"); one thread, recorder draining"
row "(l) recorder peak RSS, $fast_n regions, MiB" "$(calc 1 "${lf[rss]} / 1024")" "-" \
	"with 64 to 256 MiB of its queue made ready for such a burst"
row "(l) flood 1 | 2 threads, ns/region per thread" "$(flood_ns 1) | $(flood_ns 2)" "-" \
	"calls in ${flood_s} s, less the untraced cost"
# Losses only when writers outnumber the CPUs, and then counted exactly.
for t in 1 2; do
	written=$((2 * ${lf[flood_$t]}))
	kept=${lf[flood_rec_$t]} dropped=${lf[flood_drop_$t]}
	if ((t <= $(nproc))); then
		goal="0" ok="$kept + $dropped == $written && $dropped == 0"
	else
		goal="counted" ok="$kept + $dropped == $written"
	fi
	row "(l) flood $t thread(s): M calls/s | dropped %" \
		"$(calc 1 "${lf[flood_$t]} / $flood_s / 1e6") | $(calc 2 "100 * $dropped / $written")" \
		"$goal" "$(verdict "$ok"); $kept kept + $dropped dropped of $written records"
	row "(l) flood $t thread(s): recording s | peak RSS MiB" \
		"${lf[flood_wall_$t]} | $(calc 0 "${lf[flood_rss_$t]} / 1024")" "-" \
		"the backlog is nested after the ${flood_s} s; $(nproc) CPUs"
done
row "(l) recorder CPU per million calls, ms" \
	"$(calc 1 "(${lf[rec_cpu]} - ${lf[rec_cpu0]}) / 1e6 / ($fast_n / 1e6)")" "-" \
	"its threads (drainer, nesting, spill), less a 1-call recording's"
row "(l) fine-grained loop, fast | kernel / untraced" \
	"$fine_ratio | $(calc 2 "${lf[fine_kernel]} / ${lf[fine_base]}")" "<= 1.05" \
	"$(verdict "$fine_ratio <= 1.05"); $(calc 0 "$fine_calls / (${lf[fine_base]} / 1e9) / 1000") k calls/s untraced"

# (m) Start: from record -p's own start to its "recording" line (-v), attached to
# a running waiter (tests/apps), BENCH_ATTACH_ROUNDS times; the median decides.
# Verification dominates: only the programs the recording uses load at start.
attach_ms()
{
	local t0 line

	t0=$(date +%s%N)
	while IFS= read -r line; do
		if [[ $line == *"record: recording"* ]]; then
			echo $((($(date +%s%N) - t0) / 1000000))
			cat > /dev/null
			return
		fi
	done < <("$sb" record -v -p "$1" -d 0.2 -o "$tmp/attach.h5" 2>&1 >/dev/null)
	echo "-"
}

"$build/apps/waiter" 60 > /dev/null &
waiter=$!
sleep 0.3
attach=()
for ((i = 0; i < attach_rounds; i++)); do
	attach+=("$(attach_ms "$waiter")")
done
kill "$waiter" 2>/dev/null
wait "$waiter" 2>/dev/null
attach_med=$(printf '%s\n' "${attach[@]}" | sort -n | sed -n "$(((attach_rounds + 1) / 2))p")
row "(m) record -p: start to recording, ms" "$attach_med" "<= 300" \
	"$(verdict "$attach_med <= 300"); median of ${attach[*]}; load $(loadavg)"

# (n) record --aggregate (issue 29): one thread's marker_loop of BENCH_AGG_N regions on the
# fast path, summed per region path instead of kept, beside the same loop kept in full
# and untraced; the fastest loop (its thread's CPU time) of fast_rounds recordings each.
declare -A ag
for ((r = 0; r < fast_rounds; r++)); do
	for c in base full agg; do
		case $c in
		base) cmd=() ;;
		full) cmd=("$bin/peakrss" "$sb" record -q -o "$tmp/n.h5" --) ;;
		agg) cmd=("$bin/peakrss" "$sb" record -q --aggregate -o "$tmp/n.h5" --) ;;
		esac
		out=$(runloop "${cmd[@]}" "$bin/marker_loop" "$agg_n" 1) || exit 1
		ag[cpu_$c]=$(min "${ag[cpu_$c]:-}" "$(field cpu_ns "$out")")
		[ $c = base ] && continue
		kib=$(field maxrss_kib "$(cat "$tmp/stderr")")
		((kib > ${ag[rss_$c]:-0})) && ag[rss_$c]=$kib
		meta=$("$sb" inspect "$tmp/n.h5")
		ag[rec_$c]=$(min "${ag[rec_$c]:-}" "$(meta_of "$meta" recorder_cpu_ns)")
		# What the recorder held beside its queue's records, the largest of the rounds.
		q=$(meta_of "$meta" fast_queue_bytes)
		kib=$((kib - ${q:-0} / 1024))
		[ $c = agg ] && ((kib > ${ag[held_agg]:-0})) && ag[held_agg]=$kib
		ag[bytes_$c]=$(stat -c %s "$tmp/n.h5")
		ag[calls_$c]=$(calls_in "$tmp/n.h5")
		# The full trace's calls summed as --aggregate sums them: exit 1 (unequal) is a result.
		if [ $c = full ] && [ -z "${ag[replay]:-}" ]; then
			ag[replay]=$("$bin/agg_replay" "$tmp/n.h5")
			[ $? -lt 2 ] || die "(n): agg_replay cannot read the full trace"
		fi
		if [ $c = agg ]; then
			t0=$(date +%s%N)
			"$sb" report "$tmp/n.h5" > /dev/null || die "cannot report the aggregate"
			ag[report_ms]=$(min "${ag[report_ms]:-}" $((($(date +%s%N) - t0) / 1000000)))
		fi
	done
done
rm -f "$tmp/n.h5"
agg_ns()
{
	calc 1 "(${ag[cpu_$1]} - ${ag[cpu_base]}) / $agg_n"
}
row "(n) --aggregate, $agg_n regions: calls in the file, full | agg" \
	"${ag[calls_full]} | ${ag[calls_agg]}" "$agg_n" \
	"$(verdict "${ag[calls_agg]} == $agg_n && ${ag[calls_full]} == $agg_n")"
row "(n) --aggregate: file bytes, full | agg" "${ag[bytes_full]} | ${ag[bytes_agg]}" "< 1 MB" \
	"$(verdict "${ag[bytes_agg]} < 1000000"); the same whatever the calls"
row "(n) --aggregate: recorder peak RSS MiB, full | agg" \
	"$(calc 0 "${ag[rss_full]} / 1024") | $(calc 0 "${ag[rss_agg]} / 1024")" "-" ""
row "(n) --aggregate: ns/region (loop CPU), full | agg" "$(agg_ns full) | $(agg_ns agg)" \
	"agg <= full" "$(verdict "$(agg_ns agg) <= $(agg_ns full) * 1.05"); traced - untraced"
row "(n) --aggregate: recorder CPU ns/call, full | agg" \
	"$(calc 1 "${ag[rec_full]} / $agg_n") | $(calc 1 "${ag[rec_agg]} / $agg_n")" "-" \
	"drainer, nesting, and the spill or the sums"
row "(n) --aggregate: report of the aggregate, s" "$(calc 3 "${ag[report_ms]} / 1000")" "< 0.1" \
	"$(verdict "${ag[report_ms]} < 100")"
# Two recordings never time their calls alike: the totals are compared on one trace's calls.
rp=${ag[replay]}
row "(n) --aggregate: total ns, full trace | its calls summed" \
	"$(field total_ns "$rp") | $(field agg_total_ns "$rp")" "equal" \
	"$(verdict "$(field equal_rows "$rp") == $(field rows "$rp") && \
$(field total_ns "$rp") == $(field agg_total_ns "$rp")"); \
$(field equal_rows "$rp") of $(field rows "$rp") rows' count, total, min, max equal; agg_replay"

# (o) A long run's size (issues 26 and 29): one thread's marker_loop of BENCH_BIG_N regions,
# recorded once in full and once with --aggregate. What must not grow with the calls: the
# aggregate's file and the recorder's memory; the full trace's bytes a call; and how long
# record takes after the command ends (sorting, compressing and writing the trace). Empty
# regions come faster than the recorder nests them and its queue holds the difference, so
# the aggregate's peak RSS grows with the calls; less the queue (fast_queue_bytes) it is what
# the recorder holds whatever the calls.
if [ "$big_n" -gt 0 ]; then
	echo "(o) $big_n regions, recorded once in full and once with --aggregate"
	declare -A big
	out=$(runloop "$bin/marker_loop" "$big_n" 1) || exit 1
	big[cpu_base]=$(field cpu_ns "$out")
	for c in full agg; do
		opt=()
		[ $c = agg ] && opt=(--aggregate)
		# Exit 3 (calls lost, counted) is a result here: the first row says how many.
		"$bin/peakrss" "$sb" record -q "${opt[@]}" -o "$tmp/o.h5" -- sh -c \
			'"$1" "$2" 1; date +%s%N > "$3"' sh "$bin/marker_loop" "$big_n" "$tmp/o.end" \
			> "$tmp/o.out" 2> "$tmp/stderr"
		rc=$?
		[ $rc = 0 ] || [ $rc = 3 ] || { cat "$tmp/stderr" >&2; die "(o): record exited $rc"; }
		big[end_ms_$c]=$((($(date +%s%N) - $(cat "$tmp/o.end")) / 1000000))
		big[cpu_$c]=$(field cpu_ns "$(cat "$tmp/o.out")")
		big[rss_$c]=$(field maxrss_kib "$(cat "$tmp/stderr")")
		meta=$("$sb" inspect "$tmp/o.h5")
		big[rec_$c]=$(meta_of "$meta" recorder_cpu_ns)
		q=$(meta_of "$meta" fast_queue_bytes)
		big[held_$c]=$((big[rss_$c] - ${q:-0} / 1024))
		big[bytes_$c]=$(stat -c %s "$tmp/o.h5")
		big[calls_$c]=$(calls_in "$tmp/o.h5")
		if [ $c = agg ]; then
			t0=$(date +%s%N)
			"$sb" report "$tmp/o.h5" > /dev/null || die "cannot report the aggregate"
			big[report_ms]=$((($(date +%s%N) - t0) / 1000000))
		fi
		rm -f "$tmp/o.h5"
	done
	big_ns()
	{
		calc 1 "(${big[cpu_$1]} - ${big[cpu_base]}) / $big_n"
	}
	row "(o) $big_n regions: calls in the file, full | agg" \
		"${big[calls_full]} | ${big[calls_agg]}" "$big_n" \
		"$(verdict "${big[calls_agg]} == $big_n && ${big[calls_full]} == $big_n")"
	row "(o) file, full B/call | agg bytes" \
		"$(calc 2 "${big[bytes_full]} / $big_n") | ${big[bytes_agg]}" "4 | < 1 MB" \
		"$(verdict "${big[bytes_full]} <= 4 * $big_n && ${big[bytes_agg]} < 1000000")"
	row "(o) agg file bytes, $agg_n | $big_n calls" "${ag[bytes_agg]:-0} | ${big[bytes_agg]}" \
		"same" "$(verdict "${big[bytes_agg]} <= ${ag[bytes_agg]:-0} * 1.01"); (n)'s file beside this one"
	row "(o) recorder peak RSS MiB, full | agg" \
		"$(calc 0 "${big[rss_full]} / 1024") | $(calc 0 "${big[rss_agg]} / 1024")" "-" \
		"at (n)'s $agg_n: $(calc 0 "${ag[rss_full]:-0} / 1024") | $(calc 0 "${ag[rss_agg]:-0} / 1024")"
	row "(o) agg peak RSS, $big_n / $agg_n calls" \
		"$(calc 2 "${big[rss_agg]} / ${ag[rss_agg]:-1}")" "<= 1.10" \
		"$(verdict "${big[rss_agg]} <= 1.10 * ${ag[rss_agg]:-0}"); empty regions: the queue holds what waits to be nested"
	row "(o) agg peak RSS less the queue MiB, $agg_n | $big_n" \
		"$(calc 0 "${ag[held_agg]:-0} / 1024") | $(calc 0 "${big[held_agg]} / 1024")" "same" \
		"$(verdict "${big[held_agg]} <= 1.10 * ${ag[held_agg]:-0}"); what it holds whatever the backlog (fast_queue_bytes)"
	row "(o) ns/region (loop CPU), full | agg" "$(big_ns full) | $(big_ns agg)" "agg <= full" \
		"$(verdict "$(big_ns agg) <= $(big_ns full) * 1.05"); traced - untraced"
	# inspect of a 100 M-call trace can outlast the reader's guard on a busy host: said, not a number.
	rec_ns()
	{
		if [ -n "${big[rec_$1]}" ]; then calc 1 "${big[rec_$1]} / $big_n"; else echo "?"; fi
	}
	row "(o) recorder CPU ns/call, full | agg" "$(rec_ns full) | $(rec_ns agg)" "<= 100" \
		"$(if [ -n "${big[rec_full]}" ]; then verdict "${big[rec_full]} <= 100 * $big_n"; \
else echo "MISSED: inspect failed"; fi); drainer, nesting, spill or sums"
	row "(o) record returns after the command, s, full | agg" \
		"$(calc 1 "${big[end_ms_full]} / 1000") | $(calc 1 "${big[end_ms_agg]} / 1000")" "< 5" \
		"$(verdict "${big[end_ms_full]} < 5000"); nesting's backlog, the spill's merge, the write"
	row "(o) report of the $big_n-call aggregate, s" "$(calc 3 "${big[report_ms]} / 1000")" \
		"< 0.1" "$(verdict "${big[report_ms]} < 100"); load $(loadavg)"
fi

# (p) A peer on the same loop, in the same run (issue 26): uftrace times a function per
# region (uftrace_loop, -pg with nops it patches: `uftrace record -P region`), the fairest
# shape a function tracer can be given; its figure beside (l)'s fast path. bpftrace is (b)'s,
# perf record (e)'s. Skipped, and said, where Debian's uftrace is not installed.
uftrace=$(command -v uftrace)
if [ -n "$uftrace" ] && [ -x "$bin/uftrace_loop" ]; then
	echo "(p) uftrace: $fast_rounds rounds x $fast_n regions, untraced and traced"
	declare -A up
	for ((r = 0; r < fast_rounds; r++)); do
		# A -pg program writes gmon.out where it runs: into the scratch folder instead.
		out=$(runloop env GMON_OUT_PREFIX="$tmp/gmon" "$bin/uftrace_loop" "$fast_n" 1) || exit 1
		up[base]=$(min "${up[base]:-}" "$(field cpu_ns "$out")")
		rm -rf "$tmp/uftrace.data"
		out=$(runloop env GMON_OUT_PREFIX="$tmp/gmon" "$uftrace" record -d "$tmp/uftrace.data" \
			-P region "$bin/uftrace_loop" "$fast_n" 1) || exit 1
		up[traced]=$(min "${up[traced]:-}" "$(field cpu_ns "$out")")
	done
	rm -rf "$tmp/uftrace.data"
	uft_ns=$(calc 1 "(${up[traced]} - ${up[base]}) / $fast_n")
	row "(p) uftrace | scope-bpf fast path, ns/region, cpu" "$uft_ns | $fast_ns" "-" \
		"traced - untraced loop, fastest of $fast_rounds; $(uftrace --version | head -n1 | cut -d" " -f1-2)"
	row "(p) scope-bpf fast path / uftrace" "$(calc 2 "$fast_ns / $uft_ns")" "<= 1" \
		"$(verdict "$fast_ns <= $uft_ns")"
else
	row "(p) uftrace" "-" "-" "skipped: uftrace is not installed (apt-get install uftrace)"
fi
