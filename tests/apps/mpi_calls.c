/* MPI test app for MPI call tracing: known operations, sizes, peers and tags, in user regions. */

/*
 * Run with 4 ranks. Rank r, in the user region "exchange", 3 times: MPI_Send
 * of 100 doubles (800 bytes) to (r+1)%4 and MPI_Recv of 100 doubles from
 * (r+3)%4, tag 7 (even ranks send first). In "shift": one MPI_Sendrecv of 10
 * ints (40 bytes) to (r+1)%4, tag 3. In "reduce": MPI_Allreduce of 1 double
 * twice, MPI_Reduce of 4 ints to root 2, MPI_Gather of 2 ints to root 1.
 * In "nonblocking": MPI_Irecv of 50 ints (200 bytes) from (r+3)%4 and
 * MPI_Isend of 50 ints to (r+1)%4, tag 11, each completed by an MPI_Wait; then
 * one double (8 bytes) tag 12 to and from both neighbours (2 MPI_Irecv, 2
 * MPI_Isend), the receives completed by one MPI_Waitall, the sends by another.
 * Then one MPI_Barrier, one MPI_Iprobe (any source, tag 99: nothing comes) and
 * one MPI_Wtime outside every region. All on MPI_COMM_WORLD.
 */
#include <mpi.h>
#include <stdio.h>

#include "scope_bpf.h"

#define RANKS 4

static void exchange(int rank)
{
	double out[100] = { 0 }, in[100];
	int next = (rank + 1) % RANKS, prev = (rank + RANKS - 1) % RANKS, i;

	for (i = 0; i < 3; i++)
		SCOPE_BPF_REGION("exchange") {
			if (rank % 2 == 0)
				MPI_Send(out, 100, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
			MPI_Recv(in, 100, MPI_DOUBLE, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rank % 2)
				MPI_Send(out, 100, MPI_DOUBLE, next, 7, MPI_COMM_WORLD);
		}
}

static void shift(int rank)
{
	int out[10] = { 0 }, in[10];

	SCOPE_BPF_REGION("shift") {
		MPI_Sendrecv(out, 10, MPI_INT, (rank + 1) % RANKS, 3, in, 10, MPI_INT,
			     (rank + RANKS - 1) % RANKS, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
}

static void reduce(void)
{
	int four[4] = { 1, 2, 3, 4 }, sum[4], two[2] = { 0 }, all[2 * RANKS];
	double x = 1, y;

	SCOPE_BPF_REGION("reduce") {
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Allreduce(&y, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Reduce(four, sum, 4, MPI_INT, MPI_SUM, 2, MPI_COMM_WORLD);
		MPI_Gather(two, 2, MPI_INT, all, 2, MPI_INT, 1, MPI_COMM_WORLD);
	}
}

static void nonblocking(int rank)
{
	int next = (rank + 1) % RANKS, prev = (rank + RANKS - 1) % RANKS;
	int out[50] = { 0 }, in[50];
	MPI_Request send, recv, sends[2], recvs[2];
	MPI_Status done[2];
	double x = rank, got[2];

	SCOPE_BPF_REGION("nonblocking") {
		MPI_Irecv(in, 50, MPI_INT, prev, 11, MPI_COMM_WORLD, &recv);
		MPI_Isend(out, 50, MPI_INT, next, 11, MPI_COMM_WORLD, &send);
		MPI_Wait(&send, MPI_STATUS_IGNORE);
		MPI_Wait(&recv, MPI_STATUS_IGNORE);
		MPI_Irecv(&got[0], 1, MPI_DOUBLE, prev, 12, MPI_COMM_WORLD, &recvs[0]);
		MPI_Irecv(&got[1], 1, MPI_DOUBLE, next, 12, MPI_COMM_WORLD, &recvs[1]);
		MPI_Isend(&x, 1, MPI_DOUBLE, next, 12, MPI_COMM_WORLD, &sends[0]);
		MPI_Isend(&x, 1, MPI_DOUBLE, prev, 12, MPI_COMM_WORLD, &sends[1]);
		MPI_Waitall(2, recvs, done);
		MPI_Waitall(2, sends, done);
	}
}

int main(int argc, char **argv)
{
	int rank, size, flag;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != RANKS) {
		fprintf(stderr, "mpi_calls: run with %d ranks, not %d\n", RANKS, size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	exchange(rank);
	shift(rank);
	reduce();
	nonblocking(rank);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
	if (MPI_Wtime() < 0)
		return 1;
	MPI_Finalize();
	return 0;
}
