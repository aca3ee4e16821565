/* MPI test app whose call counts name its rank: run under "mpiexec -n N mpi_ranks". */

/*
 * A tracer must see: on MPI rank r, region "setup" once and region "work"
 * exactly r + 1 times, every "work" a child of "setup". Higher ranks start
 * first, so numbering processes by their first call would get the ranks
 * backwards.
 */
#include <mpi.h>
#include <time.h>

#include "scope_bpf.h"

static volatile long done;	/* keeps the work bodies from being optimized away */

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	int rank, size, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sleep_ms(30L * (size - 1 - rank));
	SCOPE_BPF_REGION("setup") {
		for (i = 0; i <= rank; i++)
			SCOPE_BPF_REGION("work") {
				done++;
			}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return done == rank + 1 ? 0 : 1;
}
