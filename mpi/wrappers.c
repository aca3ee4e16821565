/*
 * The MPI functions the uprobe path traces (docs/MPI.md), wrapped through
 * the profiling interface: each reads its arguments as bpf/mpi.bpf.h's
 * mpi_read does, so its region has the same name, and calls PMPI_X. Not
 * traced (or inside another wrapped call: the library's own), a call costs
 * a load of two semaphores and a branch more than PMPI_X.
 */
#include <stdbool.h>

#include "wrap.h"

/* A call that starts a request returned: remember which call its handle stands for. */
static void started(MPI_Request *request, const struct sb_mpi_event *e)
{
	if (request)
		pmpi_request_started(request, pmpi_handle(*request), e);
}

/* The handle kept at at, a C request. */
static uint64_t handle_at(const void *at)
{
	return pmpi_handle(*(const MPI_Request *)at);
}

static void wait_requests(struct sb_mpi_event *e, int n, MPI_Request *reqs, bool take)
{
	const struct pmpi_requests r = { reqs, sizeof(*reqs), handle_at };

	pmpi_wait_requests(e, n, &r, take);
}

/* MPI_Waitsome returned: the requests it names completed. */
static void completed_some(MPI_Request *reqs, const int *outcount, const int indices[])
{
	const struct pmpi_requests r = { reqs, sizeof(*reqs), handle_at };

	pmpi_completed_some(&r, *outcount, indices, 0);
}

__attribute__((constructor)) static void check_mpi(void)
{
	pmpi_check_mpi(PMPI_MINE_SYMBOL, PMPI_OTHER_SYMBOL, PMPI_MINE_FILE, PMPI_OTHER_FILE);
}

/* The sends of every mode: one signature, then the same with a request. */
#define WRAP_SEND(NAME, OP)							\
	WRAP(NAME, OP, (const void *buf, int count, MPI_Datatype type, int dest, int tag,	\
	     MPI_Comm comm), (buf, count, type, dest, tag, comm),			\
	     pmpi_p2p(&e, count, type, dest, tag, comm), NOTHING)
#define WRAP_ISEND(NAME, OP)							\
	WRAP(NAME, OP, (const void *buf, int count, MPI_Datatype type, int dest, int tag,	\
	     MPI_Comm comm, MPI_Request *req), (buf, count, type, dest, tag, comm, req),	\
	     pmpi_p2p(&e, count, type, dest, tag, comm), started(req, &e))

/* Point-to-point. */
WRAP_SEND(Send, SB_MPI_SEND)
WRAP_SEND(Ssend, SB_MPI_SSEND)
WRAP_SEND(Bsend, SB_MPI_BSEND)
WRAP_SEND(Rsend, SB_MPI_RSEND)
WRAP(Recv, SB_MPI_RECV, (void *buf, int count, MPI_Datatype type, int source, int tag,
     MPI_Comm comm, MPI_Status *status), (buf, count, type, source, tag, comm, status),
     pmpi_p2p(&e, count, type, source, tag, comm), NOTHING)
WRAP(Sendrecv, SB_MPI_SENDRECV, (const void *sbuf, int scount, MPI_Datatype stype, int dest,
     int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
     MPI_Status *status),
     (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status),
     pmpi_p2p(&e, scount, stype, dest, stag, comm), NOTHING)
WRAP(Probe, SB_MPI_PROBE, (int source, int tag, MPI_Comm comm, MPI_Status *status),
     (source, tag, comm, status),
     (e.peer = source, e.tag = tag, e.comm = pmpi_comm(comm)), NOTHING)
WRAP_ISEND(Isend, SB_MPI_ISEND)
WRAP_ISEND(Issend, SB_MPI_ISSEND)
WRAP_ISEND(Ibsend, SB_MPI_IBSEND)
WRAP_ISEND(Irsend, SB_MPI_IRSEND)
WRAP(Irecv, SB_MPI_IRECV, (void *buf, int count, MPI_Datatype type, int source, int tag,
     MPI_Comm comm, MPI_Request *req), (buf, count, type, source, tag, comm, req),
     pmpi_p2p(&e, count, type, source, tag, comm), started(req, &e))

/* Waits: named by the calls that started their requests. */
WRAP(Wait, SB_MPI_WAIT, (MPI_Request *req, MPI_Status *status), (req, status),
     wait_requests(&e, 1, req, true), NOTHING)
WRAP(Waitall, SB_MPI_WAITALL, (int n, MPI_Request reqs[], MPI_Status statuses[]),
     (n, reqs, statuses), wait_requests(&e, n, reqs, true), NOTHING)
WRAP(Waitany, SB_MPI_WAITANY, (int n, MPI_Request reqs[], int *index, MPI_Status *status),
     (n, reqs, index, status), wait_requests(&e, n, reqs, false),
     if (*index >= 0) pmpi_request_forget(&reqs[*index]))
WRAP(Waitsome, SB_MPI_WAITSOME, (int n, MPI_Request reqs[], int *outcount, int indices[],
     MPI_Status statuses[]), (n, reqs, outcount, indices, statuses),
     (wait_requests(&e, n, reqs, false), e.bytes = n == 1 ? e.bytes : -1),
     completed_some(reqs, outcount, indices))

/* Collectives. */
WRAP(Barrier, SB_MPI_BARRIER, (MPI_Comm comm), (comm),
     (e.bytes = 0, e.comm = pmpi_comm(comm)), NOTHING)
WRAP(Bcast, SB_MPI_BCAST, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm),
     (buf, count, type, root, comm),
     (e.bytes = bytes(count, type), e.root = root, e.comm = pmpi_comm(comm)), NOTHING)
WRAP(Reduce, SB_MPI_REDUCE, (const void *sbuf, void *rbuf, int count, MPI_Datatype type,
     MPI_Op op, int root, MPI_Comm comm), (sbuf, rbuf, count, type, op, root, comm),
     (e.bytes = bytes(count, type), e.root = root, e.comm = pmpi_comm(comm)), NOTHING)
/* MPI_Allreduce, MPI_Scan, MPI_Exscan: count x type over the communicator. */
#define WRAP_REDUCTION(NAME, OP)						\
	WRAP(NAME, OP, (const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,	\
	     MPI_Comm comm), (sbuf, rbuf, count, type, op, comm),			\
	     (e.bytes = bytes(count, type), e.comm = pmpi_comm(comm)), NOTHING)

WRAP_REDUCTION(Allreduce, SB_MPI_ALLREDUCE)
WRAP_REDUCTION(Scan, SB_MPI_SCAN)
WRAP_REDUCTION(Exscan, SB_MPI_EXSCAN)
WRAP(Gather, SB_MPI_GATHER, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
     int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
     (e.bytes = pmpi_side(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype), e.root = root,
      e.comm = pmpi_comm(comm)), NOTHING)
WRAP(Scatter, SB_MPI_SCATTER, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
     int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
     (e.bytes = pmpi_side(rbuf != MPI_IN_PLACE, scount, stype, rcount, rtype), e.root = root,
      e.comm = pmpi_comm(comm)), NOTHING)
/* MPI_Allgather, MPI_Alltoall: the send side, the receive side in place. */
#define WRAP_ALL_TO_ALL(NAME, OP)						\
	WRAP(NAME, OP, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,	\
	     int rcount, MPI_Datatype rtype, MPI_Comm comm),				\
	     (sbuf, scount, stype, rbuf, rcount, rtype, comm),				\
	     (e.bytes = pmpi_side(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),	\
	      e.comm = pmpi_comm(comm)), NOTHING)

WRAP_ALL_TO_ALL(Allgather, SB_MPI_ALLGATHER)
WRAP_ALL_TO_ALL(Alltoall, SB_MPI_ALLTOALL)
WRAP(Gatherv, SB_MPI_GATHERV, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
     const int rcounts[], const int displs[], MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm),
     (e.root = root, e.comm = pmpi_comm(comm),
      e.bytes = sbuf == MPI_IN_PLACE ? pmpi_counts_bytes(e.comm, rcounts, rtype, false) :
				       bytes(scount, stype)), NOTHING)
WRAP(Scatterv, SB_MPI_SCATTERV, (const void *sbuf, const int scounts[], const int displs[],
     MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm),
     (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm),
     (e.root = root, e.comm = pmpi_comm(comm),
      e.bytes = rbuf == MPI_IN_PLACE ? pmpi_counts_bytes(e.comm, scounts, stype, false) :
				       bytes(rcount, rtype)), NOTHING)
WRAP(Allgatherv, SB_MPI_ALLGATHERV, (const void *sbuf, int scount, MPI_Datatype stype,
     void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm),
     (e.comm = pmpi_comm(comm),
      e.bytes = sbuf == MPI_IN_PLACE ? pmpi_counts_bytes(e.comm, rcounts, rtype, false) :
				       bytes(scount, stype)), NOTHING)
WRAP(Alltoallv, SB_MPI_ALLTOALLV, (const void *sbuf, const int scounts[], const int sdispls[],
     MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
     MPI_Datatype rtype, MPI_Comm comm),
     (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm),
     (e.comm = pmpi_comm(comm),
      e.bytes = sbuf == MPI_IN_PLACE ? pmpi_counts_bytes(e.comm, rcounts, rtype, true) :
				       pmpi_counts_bytes(e.comm, scounts, stype, true)), NOTHING)
WRAP(Reduce_scatter, SB_MPI_REDUCE_SCATTER, (const void *sbuf, void *rbuf, const int rcounts[],
     MPI_Datatype type, MPI_Op op, MPI_Comm comm), (sbuf, rbuf, rcounts, type, op, comm),
     (e.comm = pmpi_comm(comm), e.bytes = pmpi_counts_bytes(e.comm, rcounts, type, true)), NOTHING)

WRAP(Reduce_scatter_block, SB_MPI_REDUCE_SCATTER_BLOCK, (const void *sbuf, void *rbuf,
     int rcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm),
     (sbuf, rbuf, rcount, type, op, comm),
     (e.comm = pmpi_comm(comm), e.bytes = pmpi_block_bytes(e.comm, rcount, type)), NOTHING)

/* Non-blocking collectives: as their blocking forms, then a request. */
WRAP(Ibarrier, SB_MPI_IBARRIER, (MPI_Comm comm, MPI_Request *req), (comm, req),
     (e.bytes = 0, e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Ibcast, SB_MPI_IBCAST, (void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
     MPI_Request *req), (buf, count, type, root, comm, req),
     (e.bytes = bytes(count, type), e.root = root, e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Ireduce, SB_MPI_IREDUCE, (const void *sbuf, void *rbuf, int count, MPI_Datatype type,
     MPI_Op op, int root, MPI_Comm comm, MPI_Request *req),
     (sbuf, rbuf, count, type, op, root, comm, req),
     (e.bytes = bytes(count, type), e.root = root, e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Iallreduce, SB_MPI_IALLREDUCE, (const void *sbuf, void *rbuf, int count, MPI_Datatype type,
     MPI_Op op, MPI_Comm comm, MPI_Request *req), (sbuf, rbuf, count, type, op, comm, req),
     (e.bytes = bytes(count, type), e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Igather, SB_MPI_IGATHER, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
     int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req),
     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req),
     (e.bytes = pmpi_side(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype), e.root = root,
      e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Iscatter, SB_MPI_ISCATTER, (const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
     int rcount, MPI_Datatype rtype, int root, MPI_Comm comm, MPI_Request *req),
     (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req),
     (e.bytes = pmpi_side(rbuf != MPI_IN_PLACE, scount, stype, rcount, rtype), e.root = root,
      e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Iallgather, SB_MPI_IALLGATHER, (const void *sbuf, int scount, MPI_Datatype stype,
     void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req),
     (sbuf, scount, stype, rbuf, rcount, rtype, comm, req),
     (e.bytes = pmpi_side(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
      e.comm = pmpi_comm(comm)), started(req, &e))
WRAP(Ialltoall, SB_MPI_IALLTOALL, (const void *sbuf, int scount, MPI_Datatype stype,
     void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req),
     (sbuf, scount, stype, rbuf, rcount, rtype, comm, req),
     (e.bytes = pmpi_side(sbuf == MPI_IN_PLACE, scount, stype, rcount, rtype),
      e.comm = pmpi_comm(comm)), started(req, &e))

/* MPI_Init, MPI_Init_thread, MPI_Finalize: collective over COMM_WORLD. */
WRAP(Init, SB_MPI_INIT, (int *argc, char ***argv), (argc, argv),
     (e.bytes = 0, e.comm = PMPI_WORLD), NOTHING)
WRAP(Init_thread, SB_MPI_INIT_THREAD, (int *argc, char ***argv, int required, int *provided),
     (argc, argv, required, provided), (e.bytes = 0, e.comm = PMPI_WORLD), NOTHING)
WRAP(Finalize, SB_MPI_FINALIZE, (void), (), (e.bytes = 0, e.comm = PMPI_WORLD), NOTHING)

/* What a process learns of its communicators: no region, the sizes the v collectives need. */
PMPI_WEAK(Comm_rank)
PMPI_WEAK(Comm_size)
PMPI_WEAK(Wtime)

EXPORT int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
	int ret = PMPI_Comm_rank(comm, rank);

	if (pmpi_traced() && *rank >= 0)
		pmpi_learned(pmpi_comm(comm), *rank, -1);
	return ret;
}

EXPORT int MPI_Comm_size(MPI_Comm comm, int *size)
{
	int ret = PMPI_Comm_size(comm, size);

	if (pmpi_traced() && *size >= 0)
		pmpi_learned(pmpi_comm(comm), -1, *size);
	return ret;
}

/* Polling calls: the grammar's "point-to-point", nothing known but Iprobe's arguments. */
WRAP_POLL(Test, SB_MPI_TEST, (MPI_Request *req, int *flag, MPI_Status *status),
	  (req, flag, status), NOTHING)
WRAP_POLL(Testall, SB_MPI_TESTALL, (int n, MPI_Request reqs[], int *flag, MPI_Status st[]),
	  (n, reqs, flag, st), NOTHING)
WRAP_POLL(Testany, SB_MPI_TESTANY, (int n, MPI_Request reqs[], int *index, int *flag,
	  MPI_Status *st), (n, reqs, index, flag, st), NOTHING)
WRAP_POLL(Testsome, SB_MPI_TESTSOME, (int n, MPI_Request reqs[], int *outcount, int indices[],
	  MPI_Status st[]), (n, reqs, outcount, indices, st), NOTHING)
WRAP_POLL(Iprobe, SB_MPI_IPROBE, (int source, int tag, MPI_Comm comm, int *flag,
	  MPI_Status *status), (source, tag, comm, flag, status),
	  (e.peer = source, e.tag = tag, e.comm = pmpi_comm(comm)))

EXPORT double MPI_Wtime(void)
{
	struct scope_bpf_site *site;
	struct sb_mpi_event e;
	double t;

	if (!pmpi_all() || !pmpi_on())
		return PMPI_Wtime();
	pmpi_event(&e, SB_MPI_WTIME);
	site = pmpi_begin(&e);
	t = PMPI_Wtime();
	pmpi_end(site);
	return t;
}
