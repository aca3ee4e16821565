/* A call tree's MPI call rows, one per MPI function, with each call region as a detail. */
#ifndef SB_CALLTREE_MPI_H
#define SB_CALLTREE_MPI_H

#include <stdbool.h>

#include "analysis/calltree.h"

/*
 * Regroup t's rows of MPI call regions (scope-profiler names one region per
 * operation, bytes, peer, tag, ...): those below one node become one row per
 * MPI function, "mpi:recv", which sums their calls. With detail each region
 * stays, as a row below its function's, and holds the calls' own time (the
 * function's row, 0); without, the regions' rows and what was called inside
 * them merge into the function's. Then sort t by key.
 * Returns 0 (t as it was when it has no MPI call regions, or is grouped
 * already) or -ENOMEM (t as it was).
 */
int sb_calltree_group_mpi(struct sb_calltree *t, bool detail, enum sb_ct_sort key);

/*
 * What a text row says of node i: an MPI call region below its function's
 * row by its arguments ("peer=1 bytes=800 tag=7"), else sb_calltree_name.
 */
const char *sb_calltree_label(const struct sb_calltree *t, uint32_t i);

#endif
