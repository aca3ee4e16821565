/* Benchmark loop for sampling overhead: a fixed amount of computation in one marked region per run. */

/*
 * Usage: compute_loop N [REPS]
 *
 * Runs N steps of integer arithmetic REPS times (default 1), each run inside
 * region "compute", and prints the fastest run in wall-clock and thread CPU
 * time as key=value pairs, like marker_loop, and the wall time of all runs:
 *	loop_ns=NS cpu_ns=NS n=N reps=REPS total_ns=NS
 * The work is fixed, so a slower run under a sampler is the sampler's cost.
 * The total counts what the fastest run leaves out: a recorder's cost at the
 * program's first marker, and any it has only now and then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_bpf.h"

static volatile unsigned long long sink;

static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static __attribute__((noinline)) void compute(long n)
{
	unsigned long long x = sink;
	long i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	sink = x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	int reps = argc > 2 ? atoi(argv[2]) : 1, r;
	long long best = -1, best_cpu = -1, t, cpu, total;

	if (n < 0 || reps < 1) {
		fprintf(stderr, "usage: compute_loop N [REPS]\n");
		return 2;
	}
	total = now_ns(CLOCK_MONOTONIC);
	for (r = 0; r < reps; r++) {
		cpu = now_ns(CLOCK_THREAD_CPUTIME_ID);
		t = now_ns(CLOCK_MONOTONIC);
		SCOPE_BPF_REGION("compute") {
			compute(n);
		}
		t = now_ns(CLOCK_MONOTONIC) - t;
		cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		if (best < 0 || t < best)
			best = t;
		if (best_cpu < 0 || cpu < best_cpu)
			best_cpu = cpu;
	}
	total = now_ns(CLOCK_MONOTONIC) - total;
	printf("loop_ns=%lld cpu_ns=%lld n=%ld reps=%d total_ns=%lld\n", best, best_cpu, n, reps,
	       total);
	return 0;
}
