/* Benchmark: an 8-byte MPI ping-pong between 2 ranks, and marked regions, timed in one process. */

/*
 * Usage: mpiexec -n 2 mpi_pingpong N M [REPS]
 *
 * Rank 0 sends 8 bytes to rank 1, which sends them back, N times (4 MPI
 * calls per round trip, all on the critical path); then rank 0 alone runs M
 * empty marked regions (2 marker events each), and M MPI_Allreduce of one int
 * over MPI_COMM_SELF (a traced call that waits for no peer). Each loop runs
 * REPS times (default 3); rank 0 prints the fastest in wall-clock time:
 *	pp_ns=NS n=N mk_ns=NS m=M reps=REPS sc_ns=NS
 * Run untraced and under scope-bpf record, the differences are what a traced
 * MPI call and a traced region cost here and now (tools/bench.sh, (h)).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scope_bpf.h"

static volatile unsigned long sink;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pingpong(int rank, long n)
{
	double x = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&x, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&x, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
		}
	}
}

static __attribute__((noinline)) void regions(long m)
{
	long i;

	for (i = 0; i < m; i++)
		SCOPE_BPF_REGION("bench") {
			sink++;
		}
}

static __attribute__((noinline)) void self_calls(long m)
{
	int one = 1, sum;
	long i;

	for (i = 0; i < m; i++)
		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF);
}

static long long fastest(long long best, long long t)
{
	return best < 0 || t < best ? t : best;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, m = argc > 2 ? atol(argv[2]) : 10000;
	int reps = argc > 3 ? atoi(argv[3]) : 3, rank, size, r;
	long long pp = -1, mk = -1, sc = -1, t;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || n < 1 || m < 1 || reps < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mpiexec -n 2 mpi_pingpong N M [REPS]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (r = 0; r < reps; r++) {
		MPI_Barrier(MPI_COMM_WORLD);
		t = now_ns();
		pingpong(rank, n);
		pp = fastest(pp, now_ns() - t);
		if (rank == 0) {
			t = now_ns();
			regions(m);
			mk = fastest(mk, now_ns() - t);
			t = now_ns();
			self_calls(m);
			sc = fastest(sc, now_ns() - t);
		}
	}
	if (rank == 0)
		printf("pp_ns=%lld n=%ld mk_ns=%lld m=%ld reps=%d sc_ns=%lld\n", pp, n, mk, m, reps,
		       sc);
	MPI_Finalize();
	return 0;
}
