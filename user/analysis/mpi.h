/* MPI call regions (FORMAT.md's grammar) and what `report --mpi` sums from them. */
#ifndef SB_MPI_H
#define SB_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"
#include "model/model.h"

#define SB_MPI_OP_MAX 32

/* One region name "mpi:OP kind=K bytes=N peer=P root=R tag=T comm=C[ request=OP]". */
struct sb_mpi_call {
	char op[SB_MPI_OP_MAX];
	char kind[SB_MPI_OP_MAX];
	char request[SB_MPI_OP_MAX];	/* "" when the name has none */
	int64_t bytes, peer, root, tag, comm;	/* -1: unknown */
};

/*
 * Parse an MPI region name. The prefix "mpi:" and an operation are required, and
 * all six keys; keys the grammar does not know are skipped. Returns 0, or
 * -EINVAL when name is not an MPI call region.
 */
int sb_mpi_parse(const char *name, struct sb_mpi_call *c);

/* Whether the call sends a message to peer: a point-to-point send of any mode. */
bool sb_mpi_is_send(const struct sb_mpi_call *c);

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

/* One region's per-rank totals: max over mean, as scope-profiler's rank_imbalance. */
struct sb_mpi_imbalance {
	uint32_t region;
	int64_t max;		/* ns, the slowest rank's total */
	double mean;		/* ns, over every rank of the profile (a rank without calls: 0) */
	uint32_t slowest;	/* the rank with max (the lowest one on ties) */
	double ratio;		/* max / mean; 0 when the region took no time */
};

struct sb_mpi_report {
	uint32_t n_ranks;
	uint64_t mpi_calls;		/* every MPI call region's calls */
	struct sb_mpi_op_row *ops;	/* by operation, then region name */
	size_t n_ops;
	int64_t *rank_time;		/* [n_ranks] ns in MPI calls */
	struct sb_mpi_imbalance *imb;	/* every region with a call, by ratio, largest first */
	size_t n_imb;
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
