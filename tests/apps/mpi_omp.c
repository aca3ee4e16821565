/* Test app for hybrid MPI + OpenMP jobs (mpicc -fopenmp: MPICH and libgomp). */

/*
 * A tracer must see, on every rank: region "step" called STEPS times on the
 * main thread, each around a `parallel for` of THREADS threads (~1 ms of
 * work per thread) and one MPI_Allreduce of one double after it. So every
 * rank has THREADS threads that each run STEPS parallel bodies, and its main
 * thread forks STEPS times and calls MPI_Allreduce STEPS times, all in "step".
 */
#include <mpi.h>
#include <stdio.h>

#include "busy.h"
#include "scope_bpf.h"

#define STEPS 3
#define THREADS 2

int main(int argc, char **argv)
{
	double local = 0, sum = 0;
	int provided, s, i;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	for (s = 0; s < STEPS; s++)
		SCOPE_BPF_REGION("step") {
#pragma omp parallel for num_threads(THREADS) schedule(static, 1) reduction(+ : local)
			for (i = 0; i < THREADS; i++) {
				busy_ns(1000000);
				local += 1;
			}
			MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		}
	MPI_Finalize();
	if (local != STEPS * THREADS) {
		fprintf(stderr, "mpi_omp: %g bodies ran, %d wanted\n", local, STEPS * THREADS);
		return 1;
	}
	return 0;
}
