/* MPI test app for the operations beyond mpi_calls.c: run "mpiexec -n 4 mpi_ops FILE". */

/*
 * Every call on MPI_COMM_WORLD unless said otherwise; r is the rank, next
 * (r+1)%4, prev (r+3)%4. Each group in its user region:
 *
 * "p2p": MPI_Bsend of 4 ints (16 bytes) to next, tag 21, received by
 *   MPI_Recv; MPI_Irecv from prev and MPI_Barrier, then MPI_Rsend of 2
 *   doubles (16 bytes) to next, tag 22, and MPI_Wait; MPI_Issend of 3 ints
 *   (12 bytes) to next, tag 23, MPI_Recv and MPI_Wait; MPI_Send of 1 int to
 *   next, tag 24, MPI_Probe from prev, tag 24, then MPI_Recv.
 * "any": MPI_Irecv of 8 ints (32 bytes) from prev and from next, tag 31,
 *   MPI_Isend of 8 ints to next and to prev, MPI_Waitany twice on the
 *   receives, MPI_Waitsome on each send alone (incount 1).
 * "icoll": MPI_Ibarrier, MPI_Ibcast of 16 ints from root 0, MPI_Iallreduce
 *   of 1 double, MPI_Ireduce of 2 ints to root 3, each with its MPI_Wait.
 * "vcoll": MPI_Gatherv of r+1 ints to root 0; MPI_Scatterv from root 1,
 *   r+1 ints to rank r; MPI_Allgatherv of r+1 ints, then again in place;
 *   MPI_Alltoallv sending j+1 ints to rank j (10 ints, 40 bytes);
 *   MPI_Reduce_scatter of counts {1,2,3,4} doubles (80 bytes in);
 *   MPI_Reduce_scatter_block of 2 ints per rank (32 bytes in); MPI_Scan and
 *   MPI_Exscan of 1 int; MPI_Alltoallv of 1 int per peer on a communicator
 *   of two ranks whose size the app never asks (bytes unknown).
 * "rma": MPI_Win_create of 16 ints (64 bytes); MPI_Win_fence, MPI_Put of 2
 *   ints to next, MPI_Get of 2 ints from prev, MPI_Win_fence; MPI_Win_lock
 *   of rank 0, MPI_Accumulate of 1 int to rank 0, MPI_Win_unlock of 0;
 *   MPI_Win_lock_all, MPI_Put of 1 int to next, MPI_Win_flush of next,
 *   MPI_Win_flush_all, MPI_Win_unlock_all; MPI_Win_free; MPI_Win_allocate of
 *   32 bytes and MPI_Win_free.
 * "io": MPI_File_open of FILE, MPI_File_write_at and MPI_File_read_at of 16
 *   ints (64 bytes) at 64 r, their _all forms, MPI_File_write and
 *   MPI_File_read of 4 doubles (32 bytes), MPI_File_write_all and
 *   MPI_File_read_all of 2 doubles (16 bytes), MPI_File_close.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "scope_bpf.h"

#define RANKS 4

static int rank, next, prev;

static void p2p(void)
{
	static char attached[1024];
	int four[4] = { 0 }, got4[4], three[3] = { 0 }, got3[3], one = 1, got1, size;
	double two[2] = { 0 }, got2[2];
	MPI_Request req;
	void *buf;

	MPI_Buffer_attach(attached, sizeof(attached));
	SCOPE_BPF_REGION("p2p") {
		MPI_Bsend(four, 4, MPI_INT, next, 21, MPI_COMM_WORLD);
		MPI_Recv(got4, 4, MPI_INT, prev, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Irecv(got2, 2, MPI_DOUBLE, prev, 22, MPI_COMM_WORLD, &req);
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Rsend(two, 2, MPI_DOUBLE, next, 22, MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Issend(three, 3, MPI_INT, next, 23, MPI_COMM_WORLD, &req);
		MPI_Recv(got3, 3, MPI_INT, prev, 23, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Send(&one, 1, MPI_INT, next, 24, MPI_COMM_WORLD);
		MPI_Probe(prev, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(&got1, 1, MPI_INT, prev, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Buffer_detach(&buf, &size);
}

static void any(void)
{
	int out[8] = { 0 }, in[2][8], i, index, outcount, indices[1];
	MPI_Status status[1];
	MPI_Request recvs[2], sends[2];

	SCOPE_BPF_REGION("any") {
		MPI_Irecv(in[0], 8, MPI_INT, prev, 31, MPI_COMM_WORLD, &recvs[0]);
		MPI_Irecv(in[1], 8, MPI_INT, next, 31, MPI_COMM_WORLD, &recvs[1]);
		MPI_Isend(out, 8, MPI_INT, next, 31, MPI_COMM_WORLD, &sends[0]);
		MPI_Isend(out, 8, MPI_INT, prev, 31, MPI_COMM_WORLD, &sends[1]);
		for (i = 0; i < 2; i++)
			MPI_Waitany(2, recvs, &index, MPI_STATUS_IGNORE);
		for (i = 0; i < 2; i++)
			MPI_Waitsome(1, &sends[i], &outcount, indices, status);
	}
}

static void icoll(void)
{
	int sixteen[16] = { 0 }, two[2] = { 0 }, sum[2];
	double x = 1, y;
	MPI_Request req;

	SCOPE_BPF_REGION("icoll") {
		MPI_Ibarrier(MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Ibcast(sixteen, 16, MPI_INT, 0, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Ireduce(two, sum, 2, MPI_INT, MPI_SUM, 3, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
}

static void vcoll(void)
{
	int counts[RANKS], displs[RANKS], rcounts[RANKS], rdispls[RANKS], i;
	int mine[RANKS] = { 0 }, all[16] = { 0 }, out[16] = { 0 }, in[16], x = rank, y;
	int block[2 * RANKS] = { 0 }, got[2], pair[2] = { 0 }, pair_in[2];
	double d[10] = { 0 }, dgot[RANKS];
	MPI_Comm half;

	for (i = 0; i < RANKS; i++) {
		counts[i] = i + 1;
		displs[i] = i * (i + 1) / 2;
		rcounts[i] = rank + 1;
		rdispls[i] = i * (rank + 1);
	}
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	SCOPE_BPF_REGION("vcoll") {
		MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
		MPI_Scatterv(all, counts, displs, MPI_INT, mine, rank + 1, MPI_INT, 1, MPI_COMM_WORLD);
		MPI_Allgatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
		MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT,
			       MPI_COMM_WORLD);
		MPI_Alltoallv(out, counts, displs, MPI_INT, in, rcounts, rdispls, MPI_INT,
			      MPI_COMM_WORLD);
		MPI_Reduce_scatter(d, dgot, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Reduce_scatter_block(block, got, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Alltoallv(pair, (int[]){ 1, 1 }, (int[]){ 0, 1 }, MPI_INT, pair_in,
			      (int[]){ 1, 1 }, (int[]){ 0, 1 }, MPI_INT, half);
	}
	MPI_Comm_free(&half);
}

static void rma(void)
{
	int window[16] = { 0 }, two[2] = { 1, 2 }, got[2], one = 1;
	void *base;
	MPI_Win win;

	SCOPE_BPF_REGION("rma") {
		MPI_Win_create(window, sizeof(window), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
			       &win);
		MPI_Win_fence(0, win);
		MPI_Put(two, 2, MPI_INT, next, 0, 2, MPI_INT, win);
		MPI_Get(got, 2, MPI_INT, prev, 4, 2, MPI_INT, win);
		MPI_Win_fence(0, win);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		MPI_Accumulate(&one, 1, MPI_INT, 0, 8, 1, MPI_INT, MPI_SUM, win);
		MPI_Win_unlock(0, win);
		MPI_Win_lock_all(0, win);
		MPI_Put(&one, 1, MPI_INT, next, 9 + rank, 1, MPI_INT, win);
		MPI_Win_flush(next, win);
		MPI_Win_flush_all(win);
		MPI_Win_unlock_all(win);
		MPI_Win_free(&win);
		MPI_Win_allocate(32, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
		MPI_Win_free(&win);
	}
}

static void io(const char *path)
{
	int sixteen[16] = { 0 };
	double four[4] = { 0 }, two[2] = { 0 };
	MPI_Offset at = 64 * rank;
	MPI_File fh;

	SCOPE_BPF_REGION("io") {
		if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
				  MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
			fprintf(stderr, "mpi_ops: cannot open %s\n", path);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		MPI_File_write_at(fh, at, sixteen, 16, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_read_at(fh, at, sixteen, 16, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_write_at_all(fh, at, sixteen, 16, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_read_at_all(fh, at, sixteen, 16, MPI_INT, MPI_STATUS_IGNORE);
		MPI_File_write(fh, four, 4, MPI_DOUBLE, MPI_STATUS_IGNORE);
		MPI_File_read(fh, four, 4, MPI_DOUBLE, MPI_STATUS_IGNORE);
		MPI_File_write_all(fh, two, 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
		MPI_File_read_all(fh, two, 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
		MPI_File_close(&fh);
	}
}

int main(int argc, char **argv)
{
	int size;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != RANKS || argc != 2) {
		fprintf(stderr, "usage: mpiexec -n %d mpi_ops FILE\n", RANKS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	next = (rank + 1) % RANKS;
	prev = (rank + RANKS - 1) % RANKS;
	p2p();
	any();
	icoll();
	vcoll();
	rma();
	io(argv[1]);
	MPI_Finalize();
	return 0;
}
