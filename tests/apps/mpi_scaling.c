/* MPI test app for scaling studies: run under "mpiexec -n N mpi_scaling [weak]". */

/*
 * Eight steps, each a "step" region holding "compute" (800 ms of work over
 * all ranks split evenly, or 100 ms on every rank with "weak"), "serial_io"
 * (5 ms on rank 0 only, the same at every count) and "exchange" (a barrier,
 * where the other ranks wait for rank 0's I/O). The work sleeps, so four
 * ranks on two CPUs keep their times.
 */
#include <mpi.h>
#include <string.h>
#include <time.h>

#include "scope_bpf.h"

#define STEPS 8
#define WORK_US 800000L		/* compute of the whole run, strong scaling */
#define IO_US 5000L

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000L, (us % 1000000L) * 1000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int rank, size, weak = argc > 1 && !strcmp(argv[1], "weak"), i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < STEPS; i++) {
		SCOPE_BPF_REGION("step") {
			SCOPE_BPF_REGION("compute") {
				sleep_us(WORK_US / STEPS / (weak ? 1 : size));
			}
			if (rank == 0)
				SCOPE_BPF_REGION("serial_io") {
					sleep_us(IO_US);
				}
			SCOPE_BPF_REGION("exchange") {
				MPI_Barrier(MPI_COMM_WORLD);
			}
		}
	}
	MPI_Finalize();
	return 0;
}
