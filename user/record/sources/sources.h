/* Every data source the recorder knows, and the table it runs them from. */
#ifndef SB_SOURCES_H
#define SB_SOURCES_H

#include <stddef.h>

#include "record/source.h"

extern const struct sb_source_ops sb_fast_source;
extern const struct sb_source_ops sb_regions_source;
extern const struct sb_source_ops sb_sampler_source;
extern const struct sb_source_ops sb_offcpu_source;
extern const struct sb_source_ops sb_stacks_source;
extern const struct sb_source_ops sb_mpi_ranks_source;
extern const struct sb_source_ops sb_mpi_calls_source;
extern const struct sb_source_ops sb_omp_source;
extern const struct sb_source_ops sb_counters_source;
extern const struct sb_source_ops sb_cuda_source;
extern const struct sb_source_ops sb_cuda_host_source;

extern const struct sb_source_ops *const sb_source_table[];
extern const size_t sb_source_table_len;

#endif
