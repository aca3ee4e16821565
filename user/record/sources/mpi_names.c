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
	[SB_MPI_BSEND] = { "MPI_Bsend", "bsend", "point-to-point" },
	[SB_MPI_RSEND] = { "MPI_Rsend", "rsend", "point-to-point" },
	[SB_MPI_RECV] = { "MPI_Recv", "recv", "point-to-point" },
	[SB_MPI_SENDRECV] = { "MPI_Sendrecv", "sendrecv", "point-to-point" },
	[SB_MPI_PROBE] = { "MPI_Probe", "probe", "point-to-point" },
	[SB_MPI_BARRIER] = { "MPI_Barrier", "barrier", "collective" },
	[SB_MPI_BCAST] = { "MPI_Bcast", "bcast", "collective" },
	[SB_MPI_REDUCE] = { "MPI_Reduce", "reduce", "collective" },
	[SB_MPI_ALLREDUCE] = { "MPI_Allreduce", "allreduce", "collective" },
	[SB_MPI_GATHER] = { "MPI_Gather", "gather", "collective" },
	[SB_MPI_GATHERV] = { "MPI_Gatherv", "gatherv", "collective" },
	[SB_MPI_SCATTER] = { "MPI_Scatter", "scatter", "collective" },
	[SB_MPI_SCATTERV] = { "MPI_Scatterv", "scatterv", "collective" },
	[SB_MPI_ALLGATHER] = { "MPI_Allgather", "allgather", "collective" },
	[SB_MPI_ALLGATHERV] = { "MPI_Allgatherv", "allgatherv", "collective" },
	[SB_MPI_ALLTOALL] = { "MPI_Alltoall", "alltoall", "collective" },
	[SB_MPI_ALLTOALLV] = { "MPI_Alltoallv", "alltoallv", "collective" },
	[SB_MPI_REDUCE_SCATTER] = { "MPI_Reduce_scatter", "reduce_scatter", "collective" },
	[SB_MPI_REDUCE_SCATTER_BLOCK] = { "MPI_Reduce_scatter_block", "reduce_scatter_block",
					  "collective" },
	[SB_MPI_SCAN] = { "MPI_Scan", "scan", "collective" },
	[SB_MPI_EXSCAN] = { "MPI_Exscan", "exscan", "collective" },
	/* Collective over COMM_WORLD: the grammar's "point-to-point" would say otherwise. */
	[SB_MPI_INIT] = { "MPI_Init", "init", "collective" },
	[SB_MPI_INIT_THREAD] = { "MPI_Init_thread", "init_thread", "collective" },
	[SB_MPI_FINALIZE] = { "MPI_Finalize", "finalize", "collective" },
	/*
	 * One-sided and file I/O: the grammar has no kind of their own. Collective
	 * where every process of the communicator (the window's, the file's) takes
	 * part, point-to-point (the grammar's "others") where one process acts alone.
	 */
	[SB_MPI_WIN_CREATE] = { "MPI_Win_create", "win_create", "collective" },
	[SB_MPI_WIN_ALLOCATE] = { "MPI_Win_allocate", "win_allocate", "collective" },
	[SB_MPI_WIN_FREE] = { "MPI_Win_free", "win_free", "collective" },
	[SB_MPI_PUT] = { "MPI_Put", "put", "point-to-point" },
	[SB_MPI_GET] = { "MPI_Get", "get", "point-to-point" },
	[SB_MPI_ACCUMULATE] = { "MPI_Accumulate", "accumulate", "point-to-point" },
	[SB_MPI_WIN_FENCE] = { "MPI_Win_fence", "win_fence", "collective" },
	[SB_MPI_WIN_LOCK] = { "MPI_Win_lock", "win_lock", "point-to-point" },
	[SB_MPI_WIN_UNLOCK] = { "MPI_Win_unlock", "win_unlock", "point-to-point" },
	[SB_MPI_WIN_LOCK_ALL] = { "MPI_Win_lock_all", "win_lock_all", "point-to-point" },
	[SB_MPI_WIN_UNLOCK_ALL] = { "MPI_Win_unlock_all", "win_unlock_all", "point-to-point" },
	[SB_MPI_WIN_FLUSH] = { "MPI_Win_flush", "win_flush", "point-to-point" },
	[SB_MPI_WIN_FLUSH_ALL] = { "MPI_Win_flush_all", "win_flush_all", "point-to-point" },
	[SB_MPI_FILE_OPEN] = { "MPI_File_open", "file_open", "collective" },
	[SB_MPI_FILE_CLOSE] = { "MPI_File_close", "file_close", "collective" },
	[SB_MPI_FILE_READ] = { "MPI_File_read", "file_read", "point-to-point" },
	[SB_MPI_FILE_WRITE] = { "MPI_File_write", "file_write", "point-to-point" },
	[SB_MPI_FILE_READ_AT] = { "MPI_File_read_at", "file_read_at", "point-to-point" },
	[SB_MPI_FILE_WRITE_AT] = { "MPI_File_write_at", "file_write_at", "point-to-point" },
	[SB_MPI_FILE_READ_ALL] = { "MPI_File_read_all", "file_read_all", "collective" },
	[SB_MPI_FILE_WRITE_ALL] = { "MPI_File_write_all", "file_write_all", "collective" },
	[SB_MPI_FILE_READ_AT_ALL] = { "MPI_File_read_at_all", "file_read_at_all", "collective" },
	[SB_MPI_FILE_WRITE_AT_ALL] = { "MPI_File_write_at_all", "file_write_at_all", "collective" },
	[SB_MPI_ISEND] = { "MPI_Isend", "isend", "point-to-point" },
	[SB_MPI_ISSEND] = { "MPI_Issend", "issend", "point-to-point" },
	[SB_MPI_IBSEND] = { "MPI_Ibsend", "ibsend", "point-to-point" },
	[SB_MPI_IRSEND] = { "MPI_Irsend", "irsend", "point-to-point" },
	[SB_MPI_IRECV] = { "MPI_Irecv", "irecv", "point-to-point" },
	[SB_MPI_IBARRIER] = { "MPI_Ibarrier", "ibarrier", "collective" },
	[SB_MPI_IBCAST] = { "MPI_Ibcast", "ibcast", "collective" },
	[SB_MPI_IREDUCE] = { "MPI_Ireduce", "ireduce", "collective" },
	[SB_MPI_IALLREDUCE] = { "MPI_Iallreduce", "iallreduce", "collective" },
	[SB_MPI_IGATHER] = { "MPI_Igather", "igather", "collective" },
	[SB_MPI_ISCATTER] = { "MPI_Iscatter", "iscatter", "collective" },
	[SB_MPI_IALLGATHER] = { "MPI_Iallgather", "iallgather", "collective" },
	[SB_MPI_IALLTOALL] = { "MPI_Ialltoall", "ialltoall", "collective" },
	[SB_MPI_WAIT] = { "MPI_Wait", "wait", "wait" },
	[SB_MPI_WAITALL] = { "MPI_Waitall", "waitall", "wait" },
	[SB_MPI_WAITANY] = { "MPI_Waitany", "waitany", "wait" },
	[SB_MPI_WAITSOME] = { "MPI_Waitsome", "waitsome", "wait" },
	/* No region: what a process learns of its communicators (mpi.bpf.h, mpi_ranks.c). */
	[SB_MPI_COMM_RANK] = { "MPI_Comm_rank", "comm_rank", "point-to-point" },
	[SB_MPI_COMM_SIZE] = { "MPI_Comm_size", "comm_size", "point-to-point" },
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
