/* Test app: a region recursing far deeper than the kernel side keeps frames for. */

/*
 * A tracer must see region "deep" entered 10000 times, nested 10000 deep (each
 * call inside the previous one), on one thread. Only the outermost SB_MAX_DEPTH
 * calls fit the tracer's frame stack: the rest must be counted, exactly, as
 * depth overflow.
 */
#include <stdlib.h>

#include "scope_bpf.h"

#define DEPTH 10000

static int __attribute__((noinline)) descend(int n)
{
	int r = 0;

	SCOPE_BPF_REGION("deep") {
		r = n > 1 ? descend(n - 1) + 1 : 1;
	}
	return r;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : DEPTH;

	return descend(depth) == depth ? 0 : 1;
}
