/*
 * The table of data sources, in the order the recorder runs their hooks.
 * Order matters where sources depend on each other: the stack table comes
 * after the sources that read stacks through it, and the metadata keys
 * land in the file in this order.
 */
#include "record/sources/sources.h"

const struct sb_source_ops *const sb_source_table[] = {
	/* First: it finds a -p process's fast-path memory before the probes go on. */
	&sb_fast_source,
	&sb_regions_source,
	&sb_mpi_calls_source,
	&sb_omp_source,
	&sb_cuda_source,
	&sb_cuda_host_source,
	&sb_sampler_source,
	&sb_offcpu_source,
	&sb_counters_source,
	&sb_stacks_source,
	&sb_mpi_ranks_source,
};

const size_t sb_source_table_len = sizeof(sb_source_table) / sizeof(sb_source_table[0]);
