/* MPI test app for datatype sizes beyond the builtin types: run with 2 ranks. */

/*
 * Rank 0 sends rank 1, tag 21, 2 elements of a derived type of 3 doubles (48
 * bytes); tag 22, 5 MPI_DOUBLE_INT pairs (MPI_Type_size 12: 60 bytes); rank 1
 * receives them with the same types. Then both call MPI_Allgather in place,
 * 2 ints each (8 bytes: the receive side, the send side being unused).
 */
#include <mpi.h>
#include <stdio.h>

#define RANKS 2

struct double_int {
	double d;
	int i;
};

int main(int argc, char **argv)
{
	struct double_int pairs[5] = { { 0, 0 } };
	double triples[6] = { 0 };
	int rank, size, all[2 * RANKS] = { 0 };
	MPI_Datatype triple;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != RANKS) {
		fprintf(stderr, "mpi_types: run with %d ranks, not %d\n", RANKS, size);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
	MPI_Type_commit(&triple);
	if (rank == 0) {
		MPI_Send(triples, 2, triple, 1, 21, MPI_COMM_WORLD);
		MPI_Send(pairs, 5, MPI_DOUBLE_INT, 1, 22, MPI_COMM_WORLD);
	} else {
		MPI_Recv(triples, 2, triple, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(pairs, 5, MPI_DOUBLE_INT, 0, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
	MPI_Type_free(&triple);
	MPI_Finalize();
	return 0;
}
