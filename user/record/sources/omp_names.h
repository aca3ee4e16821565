/* OpenMP regions: their names, and which libgomp functions and symbols are probed as what. */
#ifndef SB_OMP_NAMES_H
#define SB_OMP_NAMES_H

#include <stdbool.h>
#include <linux/types.h>

#include "omp.h"

/* The region's name ("omp:parallel") and tags; NULL for an op that is no region. */
const char *sb_omp_region_name(unsigned int op);
const char *sb_omp_region_tags(unsigned int op);

/* What a probe on libgomp's exported function name is (enum sb_omp_op); -1: not probed. */
int sb_omp_entry_point(const char *name);

/* Whether a symbol names a body gcc outlined for an OpenMP construct: `f._omp_fn.N`. */
bool sb_omp_body_symbol(const char *name);

#endif
