/* Test app with exactly known call counts: "count [N]" (default 1000). */

/*
 * A tracer must see: region "outer" called once; region "tick" called
 * exactly N times, every call a child of "outer".
 */
#include <stdlib.h>

#include "scope_bpf.h"

static volatile long ticks;	/* keeps the tick bodies from being optimized away */

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long i;

	SCOPE_BPF_REGION("outer") {
		for (i = 0; i < n; i++)
			SCOPE_BPF_REGION("tick") {
				ticks++;
			}
	}
	return ticks == n ? 0 : 1;
}
