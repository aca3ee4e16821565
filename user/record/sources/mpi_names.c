/* The operations traced and how their regions are named and tagged. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "record/sources/mpi_names.h"

struct mpi_op {
	const char *function;
	const char *name;
	const char *kind;
};

/* In enum sb_mpi_op's order. */
static const struct mpi_op ops[SB_MPI_N_OPS] = {
	[SB_MPI_SEND] = { "MPI_Send", "send", "point-to-point" },
	[SB_MPI_SSEND] = { "MPI_Ssend", "ssend", "point-to-point" },
	[SB_MPI_RECV] = { "MPI_Recv", "recv", "point-to-point" },
	[SB_MPI_SENDRECV] = { "MPI_Sendrecv", "sendrecv", "point-to-point" },
	[SB_MPI_BARRIER] = { "MPI_Barrier", "barrier", "collective" },
	[SB_MPI_BCAST] = { "MPI_Bcast", "bcast", "collective" },
	[SB_MPI_REDUCE] = { "MPI_Reduce", "reduce", "collective" },
	[SB_MPI_ALLREDUCE] = { "MPI_Allreduce", "allreduce", "collective" },
	[SB_MPI_GATHER] = { "MPI_Gather", "gather", "collective" },
	[SB_MPI_SCATTER] = { "MPI_Scatter", "scatter", "collective" },
	[SB_MPI_ALLGATHER] = { "MPI_Allgather", "allgather", "collective" },
	[SB_MPI_ALLTOALL] = { "MPI_Alltoall", "alltoall", "collective" },
	/* Collective over COMM_WORLD: the grammar's "point-to-point" would say otherwise. */
	[SB_MPI_INIT] = { "MPI_Init", "init", "collective" },
	[SB_MPI_INIT_THREAD] = { "MPI_Init_thread", "init_thread", "collective" },
	[SB_MPI_FINALIZE] = { "MPI_Finalize", "finalize", "collective" },
	[SB_MPI_ISEND] = { "MPI_Isend", "isend", "point-to-point" },
	[SB_MPI_IRECV] = { "MPI_Irecv", "irecv", "point-to-point" },
	[SB_MPI_WAIT] = { "MPI_Wait", "wait", "wait" },
	[SB_MPI_WAITALL] = { "MPI_Waitall", "waitall", "wait" },
	/* Polling: the grammar's "point-to-point" is its kind for every other operation. */
	[SB_MPI_TEST] = { "MPI_Test", "test", "point-to-point" },
	[SB_MPI_TESTALL] = { "MPI_Testall", "testall", "point-to-point" },
	[SB_MPI_TESTANY] = { "MPI_Testany", "testany", "point-to-point" },
	[SB_MPI_TESTSOME] = { "MPI_Testsome", "testsome", "point-to-point" },
	[SB_MPI_IPROBE] = { "MPI_Iprobe", "iprobe", "point-to-point" },
	[SB_MPI_WTIME] = { "MPI_Wtime", "wtime", "point-to-point" },
};

const char *sb_mpi_function(unsigned int op)
{
	return op < SB_MPI_N_OPS ? ops[op].function : NULL;
}

const char *sb_mpi_op_name(unsigned int op)
{
	return op < SB_MPI_N_OPS ? ops[op].name : NULL;
}

const char *sb_mpi_kind(unsigned int op)
{
	return op < SB_MPI_N_OPS ? ops[op].kind : NULL;
}

int sb_mpi_format(const struct sb_mpi_event *e, char *name, size_t name_size, char *tags,
		  size_t tags_size)
{
	const char *op = sb_mpi_op_name(e->op), *kind = sb_mpi_kind(e->op), *req = NULL;
	int n;

	if (!op)
		return -EINVAL;
	/* Only waits name their request, and only when its start was seen. */
	if (!strcmp(kind, "wait"))
		req = sb_mpi_op_name((unsigned int)e->request);
	n = snprintf(name, name_size,
		     "mpi:%s kind=%s bytes=%" PRId64 " peer=%d root=%d tag=%d comm=%d%s%s",
		     op, kind, (int64_t)e->bytes, e->peer, e->root, e->tag, e->comm,
		     req ? " request=" : "", req ? req : "");
	if (n < 0 || (size_t)n >= name_size)
		return -ENOSPC;
	n = snprintf(tags, tags_size,
		     "mpi,mpi.kind:%s,mpi.operation:%s,mpi.bytes:%" PRId64 ",mpi.peer:%d,"
		     "mpi.root:%d,mpi.tag:%d,mpi.communicator:%d%s%s",
		     kind, op, (int64_t)e->bytes, e->peer, e->root, e->tag, e->comm,
		     req ? ",mpi.request:" : "", req ? req : "");
	if (n < 0 || (size_t)n >= tags_size)
		return -ENOSPC;
	return 0;
}
