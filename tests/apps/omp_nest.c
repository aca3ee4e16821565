/* Test app: OpenMP parallel loops inside marker regions, many short ones. */

/*
 * "omp_nest [ITERATIONS]" (300): each iteration runs region "outer" holding
 * "mid", which calls "a" (three `#pragma omp parallel for` loops) and then
 * "b" (no OpenMP). A tracer must nest every omp:parallel under "a": 3 per
 * iteration, none under "b", "mid", "outer" or at the top level, each call
 * inside its parent's interval, whichever way the markers are recorded.
 */
#include <stdio.h>
#include <stdlib.h>

#include "scope_bpf.h"

#define N 1000

static double x[N];

static void a(void)
{
	int k, i;

	SCOPE_BPF_REGION("a") {
		for (k = 0; k < 3; k++) {
#pragma omp parallel for
			for (i = 0; i < N; i++)
				x[i] += i * 0.5;
		}
	}
}

static void b(void)
{
	int i;

	SCOPE_BPF_REGION("b") {
		for (i = 0; i < 200; i++)
			x[i % N] *= 1.0001;
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300, it;

	for (it = 0; it < n; it++)
		SCOPE_BPF_REGION("outer") {
			SCOPE_BPF_REGION("mid") {
				a();
				b();
			}
		}
	printf("%f\n", x[5]);
	return 0;
}
