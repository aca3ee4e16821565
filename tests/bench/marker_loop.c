/* Benchmark loop: N tiny marked regions, timed inside the process so a tracer's start-up is not counted. */

/*
 * Usage: marker_loop N [REPS]
 *
 * Runs the loop REPS times (default 1) and prints, on one line of key=value
 * pairs, the fastest run in wall-clock time and in this thread's CPU time
 * (the uprobe work runs in the thread, but time other programs take from it
 * does not count), and the process's peak RSS:
 *	loop_ns=NS cpu_ns=NS n=N reps=REPS maxrss_kib=KIB
 * Built twice by tests/bench/bench.mk: with markers and with
 * -DSCOPE_BPF_DISABLE, so the difference is what the markers cost.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "scope_bpf.h"

/* Volatile: the region body is real work the compiler cannot drop or merge. */
static volatile unsigned long sink;

static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* noinline: both builds time the same function shape, not whatever main became. */
static __attribute__((noinline)) void loop(long n)
{
	long i;

	for (i = 0; i < n; i++)
		SCOPE_BPF_REGION("bench") {
			sink++;
		}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int reps = argc > 2 ? atoi(argv[2]) : 1, r;
	long long best = -1, best_cpu = -1, t, cpu;
	struct rusage ru;

	if (n < 0 || reps < 1) {
		fprintf(stderr, "usage: marker_loop N [REPS]\n");
		return 2;
	}
	for (r = 0; r < reps; r++) {
		cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t = now_ns(CLOCK_MONOTONIC);
		loop(n);
		t = now_ns(CLOCK_MONOTONIC) - t;
		cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		if (best < 0 || t < best)
			best = t;
		if (best_cpu < 0 || cpu < best_cpu)
			best_cpu = cpu;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("loop_ns=%lld cpu_ns=%lld n=%ld reps=%d maxrss_kib=%ld\n", best, best_cpu, n, reps,
	       ru.ru_maxrss);
	return sink == (unsigned long)n * reps ? 0 : 1;
}
