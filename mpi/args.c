/*
 * Reading a wrapped call's arguments as bpf/mpi.bpf.h's mpi_read does: what
 * the C wrappers (wrappers.c) and Open MPI's Fortran ones
 * (wrappers_fortran.c, from handles made C) share.
 */
#include "wrap.h"

void pmpi_p2p(struct sb_mpi_event *e, int count, MPI_Datatype type, int peer, int tag,
	      MPI_Comm comm)
{
	e->bytes = bytes(count, type);
	e->peer = peer;
	e->tag = tag;
	e->comm = pmpi_comm(comm);
}

int64_t pmpi_side(bool recv_side, int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype)
{
	return recv_side ? bytes(rcount, rtype) : bytes(scount, stype);
}

/* The sum of counts[0..n); -1 beyond PMPI_COUNTS_MAX entries or for a negative count. */
static int64_t sum_counts(const int counts[], int32_t n)
{
	int64_t sum = 0;
	int32_t i;

	if (n <= 0 || n > PMPI_COUNTS_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		if (counts[i] < 0)
			return -1;
		sum += counts[i];
	}
	return sum;
}

int64_t pmpi_counts_bytes(int32_t comm, const int counts[], MPI_Datatype type, bool all)
{
	int32_t rank, size;

	if (!pmpi_comm_info(comm, &rank, &size))
		return -1;
	if (all)
		return pmpi_times(sum_counts(counts, size), pmpi_type_size(type));
	if (rank < 0)
		return -1;
	return bytes(counts[rank], type);
}

int64_t pmpi_block_bytes(int32_t comm, int rcount, MPI_Datatype type)
{
	int32_t rank, size;

	if (!pmpi_comm_info(comm, &rank, &size) || size <= 0 || rcount < 0)
		return -1;
	return pmpi_times((int64_t)rcount * size, pmpi_type_size(type));
}

void pmpi_wait_requests(struct sb_mpi_event *e, int n, const struct pmpi_requests *reqs,
			bool take)
{
	struct sb_mpi_event r;
	bool first = true;
	const char *at;
	int i;

	for (i = 0; i < n && i < PMPI_REQUESTS_MAX; i++) {
		at = (const char *)reqs->first + (size_t)i * reqs->stride;
		if (!pmpi_request_find(at, reqs->handle_at(at), take, &r))
			continue;
		sb_mpi_add_request(e, &r, first, take);
		first = false;
	}
	if (n > PMPI_REQUESTS_MAX)
		e->bytes = -1;
}

void pmpi_completed_some(const struct pmpi_requests *reqs, int n, const int indices[], int base)
{
	int i;

	for (i = 0; i < n && i < PMPI_REQUESTS_MAX; i++) {
		if (indices[i] >= base)
			pmpi_request_forget((const char *)reqs->first +
					    (size_t)(indices[i] - base) * reqs->stride);
	}
}
