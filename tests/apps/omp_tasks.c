/* Test app for OpenMP tasks, taskwait and critical (gcc -fopenmp, libgomp). */

/*
 * A tracer must see: region "tasks" once on the main thread, around a
 * parallel region of THREADS threads, each of which enters one critical
 * section; one of them creates TASKS tasks of ~0.5 ms each and waits for
 * them (taskwait); the others wait at the barrier that ends the single
 * construct, where they run tasks too. So: TASKS task bodies, each run
 * inside a taskwait or a barrier; THREADS parallel bodies; THREADS waits
 * to enter the critical section; one taskwait. Then region "teams" around
 * a host teams construct of TEAMS teams (~0.2 ms each), which libgomp runs
 * one after another on the main thread.
 */
#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

#define THREADS 3
#define TASKS 8
#define TEAMS 2

int main(void)
{
	int done = 0, entered = 0, teams = 0, i;

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
	SCOPE_BPF_REGION("teams") {
#pragma omp teams num_teams(TEAMS)
		{
			busy_ns(200000);
			__atomic_fetch_add(&teams, 1, __ATOMIC_RELAXED);
		}
	}
	if (done != TASKS || entered != THREADS || teams != TEAMS) {
		fprintf(stderr, "omp_tasks: %d tasks, %d threads, %d teams ran\n", done, entered,
			teams);
		return 1;
	}
	return 0;
}
