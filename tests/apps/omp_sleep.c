/* Test app: marker regions around OpenMP parallel regions whose threads block. */

/*
 * "omp_sleep" prints "ready" once its markers are reachable, then runs
 * region "step" in a loop until SIGTERM, each holding region "nap", which
 * holds a `#pragma omp parallel` of 2 threads whose bodies sleep 2 ms; on
 * SIGTERM it finishes the current step and exits 0. Off-CPU time is
 * inclusive: a tracer must give "step" and "nap" at least the off-CPU time
 * of the omp:parallel calls under them, however the markers are recorded and
 * whenever it attached.
 */
#include <signal.h>
#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

#define THREADS 2

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	signal(SIGTERM, on_term);
	printf("ready\n");
	fflush(stdout);
	while (!stop)
		SCOPE_BPF_REGION("step") {
			SCOPE_BPF_REGION("nap") {
#pragma omp parallel num_threads(THREADS)
				sleep_ns(2000000);
			}
		}
	return 0;
}
