/*
 * A profile's MPI call regions grouped by MPI function: scope-profiler names
 * one region per (operation, bytes, peer, tag, ...), every view shows one row
 * per function with those regions as its details.
 */
#ifndef SB_MPI_FNS_H
#define SB_MPI_FNS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/mpi_name.h"
#include "model/model.h"

struct sb_mpi_fns {
	uint32_t n;			/* functions */
	size_t n_calls;			/* MPI call regions, of every function */
	size_t n_regions;		/* the profile's, of which these are */
	int32_t *of;			/* per region of the profile: its function; -1: none */
	uint32_t *first;		/* per function: its lowest region, whose colour it has */
	char (*name)[SB_MPI_FN_MAX];	/* per function: "mpi:recv" */
	char **detail;			/* per region: sb_mpi_call_details; NULL but for MPI calls */
};

/* The functions of p's regions, in order of their first region. 0 (n 0 without MPI calls) or -ENOMEM. */
int sb_mpi_fns_build(struct sb_mpi_fns *f, const struct sb_profile *p);
void sb_mpi_fns_free(struct sb_mpi_fns *f);

/* A region's row where MPI call regions are grouped: the region, or past every region its function. */
static inline size_t sb_mpi_fns_key(const struct sb_mpi_fns *f, uint32_t region)
{
	return f->of[region] < 0 ? region : f->n_regions + (size_t)f->of[region];
}

#endif
