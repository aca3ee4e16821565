/* marker_loop's loop with its region a function, for uftrace's function tracing (bench (p)). */

/*
 * Usage: uftrace_loop N [REPS]
 *
 * The same loop and output as marker_loop.c (loop_ns=NS cpu_ns=NS n=N
 * reps=REPS maxrss_kib=KIB), each region a call of region(): built with
 * -pg -mfentry -mnop-mcount, so untraced each call starts with a nop that
 * `uftrace record -P region` patches. A function is what a function tracer
 * times: this is the fairest loop uftrace can be given beside the markers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((no_instrument_function)) static long long now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Global and noinline: the one function traced, called once a region. */
__attribute__((noinline)) void region(void)
{
	sink++;
}

__attribute__((noinline, no_instrument_function)) static void loop(long n)
{
	long i;

	for (i = 0; i < n; i++)
		region();
}

__attribute__((no_instrument_function)) int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int reps = argc > 2 ? atoi(argv[2]) : 1, r;
	long long best = -1, best_cpu = -1, t, cpu;
	struct rusage ru;

	if (n < 0 || reps < 1) {
		fprintf(stderr, "usage: uftrace_loop N [REPS]\n");
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
