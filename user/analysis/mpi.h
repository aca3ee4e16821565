/* MPI call regions (FORMAT.md's grammar) and what `report --mpi` sums from them. */
#ifndef SB_MPI_H
#define SB_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"
#include "analysis/mpi_fns.h"
#include "model/model.h"

/* One operation inside one user region (SB_MPI_TOP: outside every user region). */
#define SB_MPI_TOP UINT32_MAX
struct sb_mpi_op_row {
	char op[SB_MPI_OP_MAX];
	uint32_t region;	/* the enclosing non-MPI region, or SB_MPI_TOP */
	uint64_t calls;
	int64_t bytes;		/* summed over the calls whose bytes are known */
	int64_t time;		/* ns */
	int64_t region_total;	/* inclusive ns of the enclosing region's calls; 0 for SB_MPI_TOP */
};

/*
 * One region's per-rank totals, or one MPI function's (all its call regions
 * summed): max over mean, as scope-profiler's rank_imbalance.
 */
struct sb_mpi_imbalance {
	uint32_t region;	/* the region; an MPI function's first region */
	int32_t fn;		/* the MPI function, in sb_mpi_report.fns; -1: a region */
	int64_t max;		/* ns, the slowest rank's total */
	double mean;		/* ns, over every rank of the profile (a rank without calls: 0) */
	uint32_t slowest;	/* the rank with max (the lowest one on ties) */
	double ratio;		/* max / mean; 0 when the region took no time */
};

/* One MPI call region, a detail of its function's rows: its calls on every rank. */
struct sb_mpi_variant {
	uint32_t region;
	uint32_t fn;		/* in sb_mpi_report.fns */
	uint64_t calls;
	int64_t time;		/* ns */
	uint32_t n_ranks;	/* ranks with calls */
	uint32_t lowest, highest;	/* the lowest and highest of those ranks */
};

struct sb_mpi_report {
	uint32_t n_ranks;
	uint64_t mpi_calls;		/* every MPI call region's calls */
	struct sb_mpi_op_row *ops;	/* by operation, then region name */
	size_t n_ops;
	int64_t *rank_time;		/* [n_ranks] ns in MPI calls */
	struct sb_mpi_fns fns;		/* the MPI functions of the regions */
	/* every region with a call but MPI calls, and every MPI function; by ratio, largest first */
	struct sb_mpi_imbalance *imb;
	size_t n_imb;
	struct sb_mpi_variant *variants;	/* by function name, then time, most first */
	size_t n_variants;
	/* [from * n_ranks + to]: what point-to-point sends moved; peer = destination */
	int64_t *matrix_bytes;
	uint64_t *matrix_msgs;
	bool parents;			/* enclosing regions known (the file has parent ids) */
};

/*
 * Sum p's MPI call regions; p must hold its events. Returns 0 (n_ops 0 when p
 * has no MPI regions) or -ENOMEM with err set.
 */
int sb_mpi_report_build(struct sb_mpi_report *r, const struct sb_profile *p, struct sb_error *err);
void sb_mpi_report_free(struct sb_mpi_report *r);

/* Whether any region of p is an MPI call region. */
bool sb_mpi_profile_has_calls(const struct sb_profile *p);

#endif
