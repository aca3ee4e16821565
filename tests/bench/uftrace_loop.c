/* marker_loop's loop with its region a function, for uftrace's function tracing (bench (p)). */

/*
 * Usage: uftrace_loop N [REPS] (output: loop_main.h). Each region is a call
 * of region(): built with -pg -mfentry -mnop-mcount, so untraced each call
 * starts with a nop that `uftrace record -P region` patches. A function is
 * what a function tracer times: the fairest loop uftrace can be given beside
 * the markers.
 */
#include "loop_main.h"

static volatile unsigned long sink;

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
	return time_loop(argc, argv, loop, &sink);
}
