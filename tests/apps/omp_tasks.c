/* Test app for OpenMP tasks, taskwait and critical (gcc -fopenmp, libgomp). */

/*
 * A tracer must see: region "tasks" once on the main thread, around a
 * parallel region of THREADS threads, each of which enters one critical
 * section; one of them creates TASKS tasks of ~0.5 ms each and waits for
 * them (taskwait); the others wait at the barrier that ends the single
 * construct, where they run tasks too. So: TASKS task bodies, each run
 * inside a taskwait or a barrier; THREADS parallel bodies; THREADS waits
 * to enter the critical section; one taskwait.
 */
#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

#define THREADS 3
#define TASKS 8

int main(void)
{
	int done = 0, entered = 0, i;

	SCOPE_BPF_REGION("tasks") {
#pragma omp parallel num_threads(THREADS)
		{
#pragma omp critical
			entered++;
#pragma omp single
			{
				for (i = 0; i < TASKS; i++) {
#pragma omp task shared(done)
					{
						busy_ns(500000);
#pragma omp atomic
						done++;
					}
				}
#pragma omp taskwait
			}
		}
	}
	if (done != TASKS || entered != THREADS) {
		fprintf(stderr, "omp_tasks: %d tasks, %d threads ran\n", done, entered);
		return 1;
	}
	return 0;
}
