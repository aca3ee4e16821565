/* Benchmark loop: N marked regions of WORK steps each, paced so the recorder keeps up (bench (o)). */

/*
 * Usage: paced_loop N WORK (output: loop_main.h, one run). marker_loop's
 * regions are empty: one thread writes them faster than the recorder nests
 * them, and the backlog waits in the recorder's queue, so its memory grows
 * with the calls. WORK steps of a volatile counter in each region slow the
 * calls to a rate the recorder follows; what it holds then is what it needs
 * whatever the number of calls.
 */
#include "loop_main.h"
#include "scope_bpf.h"

static volatile unsigned long sink, steps;
static long work;

static __attribute__((noinline)) void loop(long n)
{
	long i, w;

	for (i = 0; i < n; i++)
		SCOPE_BPF_REGION("bench") {
			for (w = 0; w < work; w++)
				steps++;
			sink++;
		}
}

int main(int argc, char **argv)
{
	char *args[] = { argv[0], argc > 1 ? argv[1] : NULL, NULL };

	if (argc != 3 || atol(argv[2]) < 0) {
		fprintf(stderr, "usage: %s N WORK\n", argv[0]);
		return 2;
	}
	work = atol(argv[2]);
	return time_loop(2, args, loop, &sink);
}
