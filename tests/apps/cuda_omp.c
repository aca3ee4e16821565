/* Test app: made-up CUDA launches in marker regions and OpenMP bodies nested in each other. */

/*
 * No GPU is needed: like cuda_synth it plays the CUPTI library (cuda_fake.h).
 * Each of ITERATIONS (3) iterations runs region "outer", which holds a
 * `#pragma omp parallel` of 2 threads and then launches _Z5scalePfi of
 * 10 us itself. On each thread the parallel body launches _Z5scalePfi of
 * (thread + 1) * 100 us, outside every marker region, then runs region
 * "inner", which launches _Z4axpyPKfPfi of 50 us. A tracer must give each
 * launch to the innermost call open on its thread at its time, whichever
 * way that call was recorded: the 10 us kernels to "outer" (a marker call
 * holding OpenMP calls), the 100 and 200 us ones to omp:implicit_task (a
 * kernel-path call), the 50 us ones to "inner" (a marker call inside it).
 */
#include <omp.h>
#include <stdio.h>

#include "cuda_fake.h"

#define ITERATIONS 3
#define THREADS 2

enum { SCALE = 1, AXPY = 2 };

int main(void)
{
	int k, seen = 0;

	if (!cuda_traced()) {
		fprintf(stderr, "cuda_omp: the CUDA probes are not traced\n");
		return 3;
	}
	SB_CUDA_PROBE(name, SCALE, "_Z5scalePfi");
	SB_CUDA_PROBE(name, AXPY, "_Z4axpyPKfPfi");
	for (k = 0; k < ITERATIONS; k++)
		SCOPE_BPF_REGION("outer") {
#pragma omp parallel num_threads(THREADS) reduction(+ : seen)
			{
				launch(SCALE, (__u64)(omp_get_thread_num() + 1) * 100 * US);
				busy_ns(100 * US);
				SCOPE_BPF_REGION("inner") {
					launch(AXPY, 50 * US);
					busy_ns(100 * US);
				}
				seen++;
			}
			launch(SCALE, 10 * US);
		}
	SB_CUDA_PROBE(batch, recs, n_recs);
	/* A smaller team would make the counts wrong: say so. */
	if (seen != ITERATIONS * THREADS) {
		fprintf(stderr, "cuda_omp: %d bodies ran, %d wanted\n", seen, ITERATIONS * THREADS);
		return 1;
	}
	return 0;
}
