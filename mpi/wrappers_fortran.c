/*
 * Open MPI's Fortran bindings, wrapped: mpif.h's and the mpi module's entry
 * points (mpi_send_, in libmpi_mpifh, under its four spellings) and the
 * mpi_f08 module's (mpi_send_f08_, in libmpi_usempif08) call PMPI_X, which
 * no C wrapper sees. Each wrapper makes the call's handles C
 * (PMPI_Type_f2c, PMPI_Comm_f2c) and reads them as its C wrapper does, so
 * the region is the same, then calls the binding's own profiling entry
 * (pmpi_send_, pmpi_send_f08_): the call happens once. A Fortran request
 * is an integer, known, as a C one, by where the program keeps it.
 * Built into Open MPI's library only: MPICH's Fortran bindings call MPI_X.
 */
#include <dlfcn.h>

#include "wrap.h"

typedef MPI_Fint fint;

#pragma weak PMPI_Type_f2c
#pragma weak PMPI_Comm_f2c

/* MPI_IN_PLACE in Fortran: the address of a common block, spelled as the compiler spells it. */
static const char *const in_place_names[] = {
	"mpi_fortran_in_place_", "mpi_fortran_in_place", "mpi_fortran_in_place__",
	"MPI_FORTRAN_IN_PLACE",
};
#define IN_PLACE_NAMES (sizeof(in_place_names) / sizeof(in_place_names[0]))
static const void *in_place[IN_PLACE_NAMES];

/* Every library is mapped before the first constructor runs: the program's own copy wins. */
__attribute__((constructor)) static void find_in_place(void)
{
	size_t i;

	for (i = 0; i < IN_PLACE_NAMES; i++)
		in_place[i] = dlsym(RTLD_DEFAULT, in_place_names[i]);
}

static bool f_in_place(const void *buf)
{
	size_t i;

	for (i = 0; i < IN_PLACE_NAMES; i++) {
		if (in_place[i] && buf == in_place[i])
			return true;
	}
	return false;
}

static MPI_Datatype type_of(const fint *type)
{
	return PMPI_Type_f2c(*type);
}

static int32_t comm_of(const fint *comm)
{
	return pmpi_comm(PMPI_Comm_f2c(*comm));
}

static void p2p(struct sb_mpi_event *e, const fint *count, const fint *type, const fint *peer,
		const fint *tag, const fint *comm)
{
	pmpi_p2p(e, *count, type_of(type), *peer, *tag, PMPI_Comm_f2c(*comm));
}

static int64_t side(bool recv_side, const fint *scount, const fint *stype, const fint *rcount,
		    const fint *rtype)
{
	return pmpi_side(recv_side, *scount, type_of(stype), *rcount, type_of(rtype));
}

static int64_t f_bytes(const fint *count, const fint *type)
{
	return bytes(*count, type_of(type));
}

static uint64_t handle_at(const void *at)
{
	return (uint32_t)*(const fint *)at;
}

static void started(const fint *req, const struct sb_mpi_event *e)
{
	if (req)
		pmpi_request_started(req, handle_at(req), e);
}

static void wait_requests(struct sb_mpi_event *e, const fint *n, const fint *reqs, bool take)
{
	const struct pmpi_requests r = { reqs, sizeof(*reqs), handle_at };

	pmpi_wait_requests(e, *n, &r, take);
}

/* Fortran numbers requests from 1; MPI_UNDEFINED is negative. */
static void completed_some(const fint *reqs, const fint *outcount, const fint indices[])
{
	const struct pmpi_requests r = { reqs, sizeof(*reqs), handle_at };

	pmpi_completed_some(&r, *outcount, indices, 1);
}

static const fint one = 1;

/*
 * void NAME(PARAMS), calling PNAME(ARGS): a region of op whose values READ
 * sets in e where ON; POST runs after the call, region closed.
 */
#define FWRAP_AT(NAME, PNAME, ON, OP, PARAMS, ARGS, READ, POST)		\
	void PNAME PARAMS __attribute__((weak));			\
	EXPORT void NAME PARAMS						\
	{								\
		struct scope_bpf_site *site;				\
		struct sb_mpi_event e;					\
									\
		if (!(ON)) {						\
			PNAME ARGS;					\
			return;						\
		}							\
		pmpi_event(&e, OP);					\
		READ;							\
		site = pmpi_begin(&e);					\
		PNAME ARGS;						\
		pmpi_end(site);						\
		POST;							\
	}

#define FALIAS(NAME, TO, PARAMS) EXPORT void NAME PARAMS __attribute__((alias(#TO)));

/*
 * mpi_x_ with its other spellings (mpi_x, mpi_x__, MPI_X: one function in
 * Open MPI, as are their pmpi_ forms), and mpi_x_f08_.
 */
#define FWRAP_ON(x, X, ON, OP, PARAMS, ARGS, READ, POST)			\
	FWRAP_AT(mpi_##x##_, pmpi_##x##_, ON, OP, PARAMS, ARGS, READ, POST)	\
	FALIAS(mpi_##x, mpi_##x##_, PARAMS)					\
	FALIAS(mpi_##x##__, mpi_##x##_, PARAMS)					\
	FALIAS(MPI_##X, mpi_##x##_, PARAMS)					\
	FWRAP_AT(mpi_##x##_f08_, pmpi_##x##_f08_, ON, OP, PARAMS, ARGS, READ, POST)
#define FWRAP(x, X, OP, PARAMS, ARGS, READ, POST) \
	FWRAP_ON(x, X, pmpi_on(), OP, PARAMS, ARGS, READ, POST)
/* The polling calls: regions only under record --mpi=all. */
#define FWRAP_POLL(x, X, OP, PARAMS, ARGS, READ) \
	FWRAP_ON(x, X, pmpi_all() && pmpi_on(), OP, PARAMS, ARGS, READ, NOTHING)

/* Point-to-point. */
#define FWRAP_SEND(x, X, OP)								\
	FWRAP(x, X, OP, (void *buf, fint *count, fint *type, fint *dest, fint *tag,	\
	      fint *comm, fint *ierr), (buf, count, type, dest, tag, comm, ierr),	\
	      p2p(&e, count, type, dest, tag, comm), NOTHING)
#define FWRAP_ISEND(x, X, OP)								\
	FWRAP(x, X, OP, (void *buf, fint *count, fint *type, fint *dest, fint *tag,	\
	      fint *comm, fint *req, fint *ierr), (buf, count, type, dest, tag, comm, req, ierr), \
	      p2p(&e, count, type, dest, tag, comm), started(req, &e))

FWRAP_SEND(send, SEND, SB_MPI_SEND)
FWRAP_SEND(ssend, SSEND, SB_MPI_SSEND)
FWRAP_SEND(bsend, BSEND, SB_MPI_BSEND)
FWRAP_SEND(rsend, RSEND, SB_MPI_RSEND)
FWRAP(recv, RECV, SB_MPI_RECV, (void *buf, fint *count, fint *type, fint *source, fint *tag,
      fint *comm, fint *status, fint *ierr), (buf, count, type, source, tag, comm, status, ierr),
      p2p(&e, count, type, source, tag, comm), NOTHING)
FWRAP(sendrecv, SENDRECV, SB_MPI_SENDRECV, (void *sbuf, fint *scount, fint *stype, fint *dest,
      fint *stag, void *rbuf, fint *rcount, fint *rtype, fint *source, fint *rtag, fint *comm,
      fint *status, fint *ierr),
      (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr),
      p2p(&e, scount, stype, dest, stag, comm), NOTHING)
FWRAP(probe, PROBE, SB_MPI_PROBE, (fint *source, fint *tag, fint *comm, fint *status,
      fint *ierr), (source, tag, comm, status, ierr),
      (e.peer = *source, e.tag = *tag, e.comm = comm_of(comm)), NOTHING)
FWRAP_ISEND(isend, ISEND, SB_MPI_ISEND)
FWRAP_ISEND(issend, ISSEND, SB_MPI_ISSEND)
FWRAP_ISEND(ibsend, IBSEND, SB_MPI_IBSEND)
FWRAP_ISEND(irsend, IRSEND, SB_MPI_IRSEND)
FWRAP_ISEND(irecv, IRECV, SB_MPI_IRECV)

/* Waits: named by the calls that started their requests. */
FWRAP(wait, WAIT, SB_MPI_WAIT, (fint *req, fint *status, fint *ierr), (req, status, ierr),
      wait_requests(&e, &one, req, true), NOTHING)
FWRAP(waitall, WAITALL, SB_MPI_WAITALL, (fint *n, fint *reqs, fint *statuses, fint *ierr),
      (n, reqs, statuses, ierr), wait_requests(&e, n, reqs, true), NOTHING)
FWRAP(waitany, WAITANY, SB_MPI_WAITANY, (fint *n, fint *reqs, fint *index, fint *status,
      fint *ierr), (n, reqs, index, status, ierr), wait_requests(&e, n, reqs, false),
      if (*index >= 1) pmpi_request_forget(&reqs[*index - 1]))
FWRAP(waitsome, WAITSOME, SB_MPI_WAITSOME, (fint *n, fint *reqs, fint *outcount,
      fint *indices, fint *statuses, fint *ierr), (n, reqs, outcount, indices, statuses, ierr),
      (wait_requests(&e, n, reqs, false), e.bytes = *n == 1 ? e.bytes : -1),
      completed_some(reqs, outcount, indices))

/* Collectives, blocking and not. */
#define FWRAP_ROOTED(x, X, OP, PARAMS, ARGS, POST)					\
	FWRAP(x, X, OP, PARAMS, ARGS, (e.bytes = f_bytes(count, type), e.root = *root,	\
	      e.comm = comm_of(comm)), POST)
#define FWRAP_REDUCTION(x, X, OP, PARAMS, ARGS, POST)					\
	FWRAP(x, X, OP, PARAMS, ARGS, (e.bytes = f_bytes(count, type),			\
	      e.comm = comm_of(comm)), POST)
/* MPI_Gather and MPI_Scatter, whose unused side (in place) is sbuf's or rbuf's. */
#define FWRAP_GATHER(x, X, OP, UNUSED, PARAMS, ARGS, POST)				\
	FWRAP(x, X, OP, PARAMS, ARGS, (e.bytes = side(UNUSED, scount, stype, rcount, rtype), \
	      e.root = *root, e.comm = comm_of(comm)), POST)
#define FWRAP_ALL_TO_ALL(x, X, OP, PARAMS, ARGS, POST)					\
	FWRAP(x, X, OP, PARAMS, ARGS,							\
	      (e.bytes = side(f_in_place(sbuf), scount, stype, rcount, rtype),		\
	       e.comm = comm_of(comm)), POST)

FWRAP(barrier, BARRIER, SB_MPI_BARRIER, (fint *comm, fint *ierr), (comm, ierr),
      (e.bytes = 0, e.comm = comm_of(comm)), NOTHING)
FWRAP(ibarrier, IBARRIER, SB_MPI_IBARRIER, (fint *comm, fint *req, fint *ierr),
      (comm, req, ierr), (e.bytes = 0, e.comm = comm_of(comm)), started(req, &e))
FWRAP_ROOTED(bcast, BCAST, SB_MPI_BCAST, (void *buf, fint *count, fint *type, fint *root,
	     fint *comm, fint *ierr), (buf, count, type, root, comm, ierr), NOTHING)
FWRAP_ROOTED(ibcast, IBCAST, SB_MPI_IBCAST, (void *buf, fint *count, fint *type, fint *root,
	     fint *comm, fint *req, fint *ierr), (buf, count, type, root, comm, req, ierr),
	     started(req, &e))
FWRAP_ROOTED(reduce, REDUCE, SB_MPI_REDUCE, (void *sbuf, void *rbuf, fint *count, fint *type,
	     fint *op, fint *root, fint *comm, fint *ierr),
	     (sbuf, rbuf, count, type, op, root, comm, ierr), NOTHING)
FWRAP_ROOTED(ireduce, IREDUCE, SB_MPI_IREDUCE, (void *sbuf, void *rbuf, fint *count,
	     fint *type, fint *op, fint *root, fint *comm, fint *req, fint *ierr),
	     (sbuf, rbuf, count, type, op, root, comm, req, ierr), started(req, &e))
#define FWRAP_ALLREDUCE(x, X, OP)							\
	FWRAP_REDUCTION(x, X, OP, (void *sbuf, void *rbuf, fint *count, fint *type, fint *op, \
			fint *comm, fint *ierr), (sbuf, rbuf, count, type, op, comm, ierr), \
			NOTHING)
FWRAP_ALLREDUCE(allreduce, ALLREDUCE, SB_MPI_ALLREDUCE)
FWRAP_ALLREDUCE(scan, SCAN, SB_MPI_SCAN)
FWRAP_ALLREDUCE(exscan, EXSCAN, SB_MPI_EXSCAN)
FWRAP_REDUCTION(iallreduce, IALLREDUCE, SB_MPI_IALLREDUCE, (void *sbuf, void *rbuf,
		fint *count, fint *type, fint *op, fint *comm, fint *req, fint *ierr),
		(sbuf, rbuf, count, type, op, comm, req, ierr), started(req, &e))

#define GATHER_PARAMS (void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,	\
		       fint *rtype, fint *root, fint *comm, fint *ierr)
#define GATHER_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr)
#define IGATHER_PARAMS (void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,	\
			fint *rtype, fint *root, fint *comm, fint *req, fint *ierr)
#define IGATHER_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr)
FWRAP_GATHER(gather, GATHER, SB_MPI_GATHER, f_in_place(sbuf), GATHER_PARAMS, GATHER_ARGS,
	     NOTHING)
FWRAP_GATHER(scatter, SCATTER, SB_MPI_SCATTER, !f_in_place(rbuf), GATHER_PARAMS, GATHER_ARGS,
	     NOTHING)
FWRAP_GATHER(igather, IGATHER, SB_MPI_IGATHER, f_in_place(sbuf), IGATHER_PARAMS,
	     IGATHER_ARGS, started(req, &e))
FWRAP_GATHER(iscatter, ISCATTER, SB_MPI_ISCATTER, !f_in_place(rbuf), IGATHER_PARAMS,
	     IGATHER_ARGS, started(req, &e))

#define ALL_PARAMS (void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,	\
		    fint *rtype, fint *comm, fint *ierr)
#define ALL_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr)
#define IALL_PARAMS (void *sbuf, fint *scount, fint *stype, void *rbuf, fint *rcount,	\
		     fint *rtype, fint *comm, fint *req, fint *ierr)
#define IALL_ARGS (sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr)
FWRAP_ALL_TO_ALL(allgather, ALLGATHER, SB_MPI_ALLGATHER, ALL_PARAMS, ALL_ARGS, NOTHING)
FWRAP_ALL_TO_ALL(alltoall, ALLTOALL, SB_MPI_ALLTOALL, ALL_PARAMS, ALL_ARGS, NOTHING)
FWRAP_ALL_TO_ALL(iallgather, IALLGATHER, SB_MPI_IALLGATHER, IALL_PARAMS, IALL_ARGS,
		 started(req, &e))
FWRAP_ALL_TO_ALL(ialltoall, IALLTOALL, SB_MPI_IALLTOALL, IALL_PARAMS, IALL_ARGS,
		 started(req, &e))

/* The v collectives: their counts arrays are C ints (MPI_Fint is int in Open MPI). */
FWRAP(gatherv, GATHERV, SB_MPI_GATHERV, (void *sbuf, fint *scount, fint *stype, void *rbuf,
      fint *rcounts, fint *displs, fint *rtype, fint *root, fint *comm, fint *ierr),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr),
      (e.root = *root, e.comm = comm_of(comm),
       e.bytes = f_in_place(sbuf) ? pmpi_counts_bytes(e.comm, rcounts, type_of(rtype), false) :
				    f_bytes(scount, stype)), NOTHING)
FWRAP(scatterv, SCATTERV, SB_MPI_SCATTERV, (void *sbuf, fint *scounts, fint *displs,
      fint *stype, void *rbuf, fint *rcount, fint *rtype, fint *root, fint *comm, fint *ierr),
      (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr),
      (e.root = *root, e.comm = comm_of(comm),
       e.bytes = f_in_place(rbuf) ? pmpi_counts_bytes(e.comm, scounts, type_of(stype), false) :
				    f_bytes(rcount, rtype)), NOTHING)
FWRAP(allgatherv, ALLGATHERV, SB_MPI_ALLGATHERV, (void *sbuf, fint *scount, fint *stype,
      void *rbuf, fint *rcounts, fint *displs, fint *rtype, fint *comm, fint *ierr),
      (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr),
      (e.comm = comm_of(comm),
       e.bytes = f_in_place(sbuf) ? pmpi_counts_bytes(e.comm, rcounts, type_of(rtype), false) :
				    f_bytes(scount, stype)), NOTHING)
FWRAP(alltoallv, ALLTOALLV, SB_MPI_ALLTOALLV, (void *sbuf, fint *scounts, fint *sdispls,
      fint *stype, void *rbuf, fint *rcounts, fint *rdispls, fint *rtype, fint *comm,
      fint *ierr), (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr),
      (e.comm = comm_of(comm),
       e.bytes = f_in_place(sbuf) ? pmpi_counts_bytes(e.comm, rcounts, type_of(rtype), true) :
				    pmpi_counts_bytes(e.comm, scounts, type_of(stype), true)),
      NOTHING)
FWRAP(reduce_scatter, REDUCE_SCATTER, SB_MPI_REDUCE_SCATTER, (void *sbuf, void *rbuf,
      fint *rcounts, fint *type, fint *op, fint *comm, fint *ierr),
      (sbuf, rbuf, rcounts, type, op, comm, ierr),
      (e.comm = comm_of(comm), e.bytes = pmpi_counts_bytes(e.comm, rcounts, type_of(type), true)),
      NOTHING)
FWRAP(reduce_scatter_block, REDUCE_SCATTER_BLOCK, SB_MPI_REDUCE_SCATTER_BLOCK, (void *sbuf,
      void *rbuf, fint *rcount, fint *type, fint *op, fint *comm, fint *ierr),
      (sbuf, rbuf, rcount, type, op, comm, ierr),
      (e.comm = comm_of(comm), e.bytes = pmpi_block_bytes(e.comm, *rcount, type_of(type))),
      NOTHING)

/* MPI_Init, MPI_Init_thread, MPI_Finalize: collective over COMM_WORLD. */
FWRAP(init, INIT, SB_MPI_INIT, (fint *ierr), (ierr), (e.bytes = 0, e.comm = PMPI_WORLD),
      NOTHING)
FWRAP(init_thread, INIT_THREAD, SB_MPI_INIT_THREAD, (fint *required, fint *provided,
      fint *ierr), (required, provided, ierr), (e.bytes = 0, e.comm = PMPI_WORLD), NOTHING)
FWRAP(finalize, FINALIZE, SB_MPI_FINALIZE, (fint *ierr), (ierr),
      (e.bytes = 0, e.comm = PMPI_WORLD), NOTHING)

/* Polling calls: the grammar's "point-to-point", nothing known but Iprobe's arguments. */
FWRAP_POLL(test, TEST, SB_MPI_TEST, (fint *req, fint *flag, fint *status, fint *ierr),
	   (req, flag, status, ierr), NOTHING)
FWRAP_POLL(testall, TESTALL, SB_MPI_TESTALL, (fint *n, fint *reqs, fint *flag, fint *st,
	   fint *ierr), (n, reqs, flag, st, ierr), NOTHING)
FWRAP_POLL(testany, TESTANY, SB_MPI_TESTANY, (fint *n, fint *reqs, fint *index, fint *flag,
	   fint *st, fint *ierr), (n, reqs, index, flag, st, ierr), NOTHING)
FWRAP_POLL(testsome, TESTSOME, SB_MPI_TESTSOME, (fint *n, fint *reqs, fint *outcount,
	   fint *indices, fint *st, fint *ierr), (n, reqs, outcount, indices, st, ierr), NOTHING)
FWRAP_POLL(iprobe, IPROBE, SB_MPI_IPROBE, (fint *source, fint *tag, fint *comm, fint *flag,
	   fint *status, fint *ierr), (source, tag, comm, flag, status, ierr),
	   (e.peer = *source, e.tag = *tag, e.comm = comm_of(comm)))
