/* How a wrapped MPI function is written (wrappers.c, wrappers_rma_io.c). */
#ifndef SB_PMPI_WRAP_H
#define SB_PMPI_WRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "abi.h"
#include "pmpi.h"

/*
 * An MPI entry point. flatten: the markers' writer (scope_bpf_impl_fast),
 * which GCC keeps out of line, is inlined into each wrapper, with all else
 * a wrapper calls in this library but the cold paths: two calls fewer a
 * traced call. 60 KiB more code in MPICH's library, 160 KiB in Open MPI's
 * (its Fortran bindings too).
 */
#define EXPORT __attribute__((visibility("default"), flatten))
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
		struct scope_bpf_site *site;				\
		struct sb_mpi_event e;					\
		int ret;						\
									\
		if (!pmpi_on())						\
			return PMPI_##NAME ARGS;			\
		pmpi_event(&e, OP);					\
		READ;							\
		site = pmpi_begin(&e);					\
		ret = PMPI_##NAME ARGS;					\
		pmpi_end(site);						\
		POST;							\
		return ret;						\
	}

/* The polling calls: regions only under record --mpi=all. */
#define WRAP_POLL(NAME, OP, PARAMS, ARGS, READ)				\
	PMPI_WEAK(NAME)							\
	EXPORT int MPI_##NAME PARAMS					\
	{								\
		struct scope_bpf_site *site;				\
		struct sb_mpi_event e;					\
		int ret;						\
									\
		if (!pmpi_all() || !pmpi_on())				\
			return PMPI_##NAME ARGS;			\
		pmpi_event(&e, OP);					\
		READ;							\
		site = pmpi_begin(&e);					\
		ret = PMPI_##NAME ARGS;					\
		pmpi_end(site);						\
		return ret;						\
	}

#define NOTHING do { } while (0)

/* count elements of type, -1 where unknown. */
static inline int64_t bytes(int count, MPI_Datatype type)
{
	return pmpi_times(count, pmpi_type_size(type));
}

/* A wait's requests: n handles from first, stride bytes apart, read by handle_at. */
struct pmpi_requests {
	const void *first;
	size_t stride;
	uint64_t (*handle_at)(const void *at);
};

/* Point-to-point: count x type, the peer, the tag, the communicator. */
void pmpi_p2p(struct sb_mpi_event *e, int count, MPI_Datatype type, int peer, int tag,
	      MPI_Comm comm);
/* A collective's bytes from its send side, or its receive side where the send side is unused. */
int64_t pmpi_side(bool recv_side, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype);
/*
 * A v collective's bytes from its counts: all of them summed over the
 * communicator's size, or this process's own entry; -1 where the process
 * never asked its size (or rank) there, as the uprobe path.
 */
int64_t pmpi_counts_bytes(int32_t comm, const int counts[], MPI_Datatype type, bool all);
/* MPI_Reduce_scatter_block's bytes: what this process puts in, rcount x the comm's size. */
int64_t pmpi_block_bytes(int32_t comm, int rcount, MPI_Datatype type);
/*
 * A wait's values from the calls that started its first PMPI_REQUESTS_MAX
 * requests: bytes summed where it completes them all (take), else kept only
 * where they agree; more requests: bytes unknown.
 */
void pmpi_wait_requests(struct sb_mpi_event *e, int n, const struct pmpi_requests *reqs,
			bool take);
/* MPI_Waitsome returned: the n requests it names in indices (numbered from base) completed. */
void pmpi_completed_some(const struct pmpi_requests *reqs, int n, const int indices[], int base);

#endif
