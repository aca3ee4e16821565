/* The timing harness of marker_loop.c and uftrace_loop.c: one output, one way of timing. */
#ifndef SB_BENCH_LOOP_MAIN_H
#define SB_BENCH_LOOP_MAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

__attribute__((no_instrument_function)) static long long loop_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * argv: N [REPS]. Runs loop(N) REPS times (default 1) and prints, on one line
 * of key=value pairs, the fastest run in wall-clock time and in this thread's
 * CPU time (a uprobe's work runs in the thread, time other programs take from
 * it does not count), and the process's peak RSS:
 *	loop_ns=NS cpu_ns=NS n=N reps=REPS maxrss_kib=KIB
 * Exit 0 when sink counted every region, 2 on bad arguments.
 */
__attribute__((no_instrument_function)) static int time_loop(int argc, char **argv,
							     void (*loop)(long),
							     const volatile unsigned long *sink)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int reps = argc > 2 ? atoi(argv[2]) : 1, r;
	long long best = -1, best_cpu = -1, t, cpu;
	struct rusage ru;

	if (n < 0 || reps < 1) {
		fprintf(stderr, "usage: %s N [REPS]\n", argv[0]);
		return 2;
	}
	for (r = 0; r < reps; r++) {
		cpu = loop_now_ns(CLOCK_THREAD_CPUTIME_ID);
		t = loop_now_ns(CLOCK_MONOTONIC);
		loop(n);
		t = loop_now_ns(CLOCK_MONOTONIC) - t;
		cpu = loop_now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		if (best < 0 || t < best)
			best = t;
		if (best_cpu < 0 || cpu < best_cpu)
			best_cpu = cpu;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("loop_ns=%lld cpu_ns=%lld n=%ld reps=%d maxrss_kib=%ld\n", best, best_cpu, n, reps,
	       ru.ru_maxrss);
	return *sink == (unsigned long)n * reps ? 0 : 1;
}

#endif
