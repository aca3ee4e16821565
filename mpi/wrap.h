/* How a wrapped MPI function is written (wrappers.c, wrappers_rma_io.c). */
#ifndef SB_PMPI_WRAP_H
#define SB_PMPI_WRAP_H

#include "abi.h"
#include "pmpi.h"

#define EXPORT __attribute__((visibility("default")))
#define PMPI_REQUESTS_MAX SB_MPI_WAITALL_MAX
#define PMPI_COUNTS_MAX SB_MPI_COUNTS_MAX

/*
 * int MPI_NAME(PARAMS): a region of op whose values READ sets in e; POST
 * runs after the call (ret: its result), region closed.
 */
/*
 * PMPI_X is a weak reference: in a process of the command without MPI (the
 * launcher, a shell), run with LD_BIND_NOW, it binds to nothing instead of
 * stopping the process; no such process calls it.
 */
#define PMPI_WEAK_STR(x) #x
#define PMPI_WEAK(NAME) _Pragma(PMPI_WEAK_STR(weak PMPI_##NAME))

#define WRAP(NAME, OP, PARAMS, ARGS, READ, POST)			\
	PMPI_WEAK(NAME)							\
	EXPORT int MPI_##NAME PARAMS					\
	{								\
		struct sb_mpi_event e = pmpi_event(OP);			\
		int ret;						\
									\
		if (!pmpi_on())						\
			return PMPI_##NAME ARGS;			\
		READ;							\
		pmpi_begin(&e);						\
		ret = PMPI_##NAME ARGS;					\
		pmpi_end();						\
		POST;							\
		return ret;						\
	}

/* The polling calls: regions only under record --mpi=all. */
#define WRAP_POLL(NAME, OP, PARAMS, ARGS, READ)				\
	PMPI_WEAK(NAME)							\
	EXPORT int MPI_##NAME PARAMS					\
	{								\
		struct sb_mpi_event e = pmpi_event(OP);			\
		int ret;						\
									\
		if (!pmpi_all() || !pmpi_on())				\
			return PMPI_##NAME ARGS;			\
		READ;							\
		pmpi_begin(&e);						\
		ret = PMPI_##NAME ARGS;					\
		pmpi_end();						\
		return ret;						\
	}

#define NOTHING do { } while (0)

/* count elements of type, -1 where unknown. */
static inline int64_t bytes(int count, MPI_Datatype type)
{
	return pmpi_times(count, pmpi_type_size(type));
}

#endif
