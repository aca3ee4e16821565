/* Test app: a region recursing far deeper than the kernel side keeps frames for. */

/*
 * "deep_recursion [DEPTH [exit]]": a tracer must see region "start" called
 * once, then region "deep" entered
 * DEPTH (default 10000) times, nested DEPTH deep (each call inside the previous
 * one), on one thread. Only the outermost SB_MAX_DEPTH calls fit the tracer's
 * frame stack: the rest must be counted, exactly, as depth overflow. With
 * "exit" the process exits at the deepest call, every call still open: the
 * stacked ones are open calls dropped, the others depth overflow, none both.
 */
#include <stdlib.h>
#include <string.h>

#include "scope_bpf.h"

#define DEPTH 10000

static int exit_at_bottom;

static int __attribute__((noinline)) descend(int n)
{
	int r = 0;

	SCOPE_BPF_REGION("deep") {
		if (n <= 1 && exit_at_bottom)
			exit(0);
		r = n > 1 ? descend(n - 1) + 1 : 1;
	}
	return r;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : DEPTH;

	exit_at_bottom = argc > 2 && !strcmp(argv[2], "exit");
	SCOPE_BPF_REGION("start") {
	}

	return descend(depth) == depth ? 0 : 1;
}
