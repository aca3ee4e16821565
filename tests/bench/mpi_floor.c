/*
 * Benchmark: the least a region around an MPI call can cost from a preloaded
 * library. MPI_Allreduce alone is wrapped, by two marker events on one
 * runtime-named site made once, no name, no arguments read, the markers'
 * writer inlined (flatten) as in the PMPI library's wrappers: set against
 * the library's call (tools/bench.sh, (h)), it shows what the library's
 * bookkeeping adds to the two events.
 */
#include <mpi.h>

#include "scope_bpf.h"

struct scope_bpf_site *scope_bpf_impl_named_site_tagged(const char *name, size_t len,
							const char *tags);

static struct scope_bpf_site *site;

__attribute__((visibility("default"), flatten))
int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	int ret;

	if (!(scope_bpf_impl_sem(&scope_bpf_region_begin_semaphore) |
	      scope_bpf_impl_sem(&scope_bpf_fast_semaphore)))
		return PMPI_Allreduce(in, out, count, type, op, comm);
	if (!site)
		site = scope_bpf_impl_named_site_tagged("allreduce", SCOPE_BPF_NAME_MAX, NULL);
	if (site)
		scope_bpf_impl_begin(site);
	ret = PMPI_Allreduce(in, out, count, type, op, comm);
	if (site)
		scope_bpf_impl_end(site);
	return ret;
}
