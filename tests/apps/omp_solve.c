/* Test app for OpenMP regions per thread (gcc -fopenmp, libgomp). */

/*
 * A tracer must see: region "solve" called SOLVES times on the main thread,
 * each around two parallel regions of THREADS threads: a combined `parallel
 * for` (one chunk of ~1 ms per thread, its end the join) and a `parallel`
 * whose threads work (t+1) ms, wait at an explicit barrier, and work 1 ms
 * more. So every thread runs 2 x SOLVES parallel bodies and SOLVES
 * explicit barriers; the main thread forks and joins 2 x SOLVES times, all
 * inside "solve".
 */
#include <omp.h>
#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

#define SOLVES 5
#define THREADS 4

int main(void)
{
	int s, i, seen = 0;

	for (s = 0; s < SOLVES; s++)
		SCOPE_BPF_REGION("solve") {
#pragma omp parallel for num_threads(THREADS) schedule(static, 1)
			for (i = 0; i < THREADS; i++)
				busy_ns(1000000);
#pragma omp parallel num_threads(THREADS) reduction(+ : seen)
			{
				busy_ns(1000000 * (uint64_t)(omp_get_thread_num() + 1));
#pragma omp barrier
				busy_ns(1000000);
				seen++;
			}
		}
	/* A team smaller than asked for would make the counts wrong: say so. */
	if (seen != SOLVES * THREADS) {
		fprintf(stderr, "omp_solve: %d threads ran, %d wanted\n", seen, SOLVES * THREADS);
		return 1;
	}
	return 0;
}
