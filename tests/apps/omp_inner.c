/* Test app: marker regions inside OpenMP parallel bodies, an OpenMP barrier inside those. */

/*
 * "omp_inner [ITERATIONS]" (40): each iteration runs region "outer" holding
 * a `#pragma omp parallel` of 2 threads whose body, on every thread, is
 * region "inner": 200 us of work, an explicit barrier, 100 us more. A tracer
 * must nest every "inner" under its thread's omp:implicit_task and every
 * omp:barrier under "inner", whichever way the markers are recorded.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "busy.h"
#include "scope_bpf.h"

#define THREADS 2

int main(int argc, char **argv)
{
	int iterations = argc > 1 ? atoi(argv[1]) : 40, k, seen = 0;

	for (k = 0; k < iterations; k++)
		SCOPE_BPF_REGION("outer") {
#pragma omp parallel num_threads(THREADS) reduction(+ : seen)
			SCOPE_BPF_REGION("inner") {
				busy_ns(200000);
#pragma omp barrier
				busy_ns(100000);
				seen++;
			}
		}
	/* A smaller team would make the counts wrong: say so. */
	if (seen != iterations * THREADS) {
		fprintf(stderr, "omp_inner: %d bodies ran, %d wanted\n", seen, iterations * THREADS);
		return 1;
	}
	return 0;
}
