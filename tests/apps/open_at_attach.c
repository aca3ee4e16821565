/* Test app: a region that is already open when a tracer attaches. */

/*
 * "open_at_attach SECONDS": enters region "outer", prints "inside" and sleeps
 * SECONDS (default 2) inside it, then calls region "inner" 4 times and leaves
 * "outer". A tracer attached during the sleep must record the 4 "inner" calls
 * and report "outer" as a call that was open when it attached.
 */
#include <stdio.h>
#include <stdlib.h>

#include "busy.h"
#include "scope_bpf.h"

#define INNER_CALLS 4

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2;
	int i;

	SCOPE_BPF_REGION("outer") {
		printf("inside\n");
		fflush(stdout);
		sleep_ns((uint64_t)(seconds * 1e9));
		for (i = 0; i < INNER_CALLS; i++)
			SCOPE_BPF_REGION("inner") {
				busy_ns(1000000);
			}
	}
	return 0;
}
