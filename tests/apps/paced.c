/*
 * Test app with known counts over a known time: "paced SECONDS" runs one call
 * of region "outer" for SECONDS seconds; inside it, every 10 ms, 100 calls of
 * region "tick". Prints "ticks N" at the end: N calls of "tick", each a child
 * of "outer". record --rotate's test cuts it into files while "outer" is open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_bpf.h"

static volatile long ticks;	/* keeps the tick bodies from being optimized away */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0, end = now_s() + seconds;
	struct timespec pause = { 0, 10000000 };
	int i;

	SCOPE_BPF_REGION("outer") {
		while (now_s() < end) {
			for (i = 0; i < 100; i++)
				SCOPE_BPF_REGION("tick") {
					ticks++;
				}
			nanosleep(&pause, NULL);
		}
	}
	printf("ticks %ld\n", ticks);
	return 0;
}
