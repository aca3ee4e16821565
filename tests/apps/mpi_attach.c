/* MPI test app to attach to: run "mpiexec -n 4 mpi_attach DIR", stop it by creating DIR/stop. */

/*
 * Each rank writes its pid to DIR/rank.R.pid, then repeats until rank 0 sees
 * DIR/stop: in the user region "step", one MPI_Sendrecv of 8 ints (32 bytes)
 * to (r+1)%4 from (r+3)%4, tag 5, and one MPI_Allreduce of 1 int (whether to
 * stop), then sleeps 2 ms outside every region.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "scope_bpf.h"

#define RANKS 4

/* Whole or not at all: the test reads it as soon as it appears. */
static int write_pid(const char *dir, int rank)
{
	char tmp[4096], path[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/rank.%d.pid.tmp", dir, rank);
	snprintf(path, sizeof(path), "%s/rank.%d.pid", dir, rank);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", (int)getpid());
	if (fclose(f))
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 2000000L };
	int rank, size, out[8] = { 0 }, in[8], stop = 0, any = 0;
	char stop_path[4096];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != RANKS || argc != 2 || write_pid(argv[1], rank)) {
		fprintf(stderr, "usage: mpiexec -n %d mpi_attach DIR (a writable folder)\n", RANKS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	snprintf(stop_path, sizeof(stop_path), "%s/stop", argv[1]);
	while (!any) {
		SCOPE_BPF_REGION("step") {
			MPI_Sendrecv(out, 8, MPI_INT, (rank + 1) % RANKS, 5, in, 8, MPI_INT,
				     (rank + RANKS - 1) % RANKS, 5, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
			stop = rank == 0 && !access(stop_path, F_OK);
			MPI_Allreduce(&stop, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
		}
		nanosleep(&pause, NULL);
	}
	MPI_Finalize();
	return 0;
}
