/* Benchmark loop: N tiny marked regions, timed inside the process so a tracer's start-up is not counted. */

/*
 * Usage: marker_loop N [REPS] (output: loop_main.h). Built twice by
 * tests/bench/bench.mk: with markers and with -DSCOPE_BPF_DISABLE, so the
 * difference is what the markers cost.
 */
#include "loop_main.h"
#include "scope_bpf.h"

/* Volatile: the region body is real work the compiler cannot drop or merge. */
static volatile unsigned long sink;

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
	return time_loop(argc, argv, loop, &sink);
}
