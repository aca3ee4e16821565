/*
 * Each region's time per rank, the rank x region heat map of `report
 * --per-rank` and of the HTML page: inclusive and own time, max over mean,
 * the slowest rank.
 */
#ifndef SB_ANALYSIS_RANK_MATRIX_H
#define SB_ANALYSIS_RANK_MATRIX_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/mpi_fns.h"
#include "model/model.h"
#include "util/error.h"

/* What a cell of the heat map shows. */
enum sb_rank_value {
	SB_RANK_TIME,		/* inclusive time */
	SB_RANK_OWN,		/* own time */
	SB_RANK_RELATIVE,	/* inclusive time over the row's mean */
};

/* One region, or one MPI function (its call regions summed), over the ranks. */
struct sb_rank_row {
	uint32_t region;	/* an MPI function's: its first region */
	int32_t fn;		/* the MPI function in sb_rank_matrix.fns; -1: a region */
	uint64_t calls;		/* over every rank */
	int64_t total;		/* ns, inclusive, summed over the ranks (saturated) */
	int64_t max;		/* ns, the slowest rank's inclusive time */
	double mean;		/* ns, over every column; a rank without calls counts 0 */
	uint32_t slowest;	/* the column with max, the lowest rank on ties */
	double ratio;		/* max / mean; 0 when the row took no time */
};

struct sb_rank_matrix {
	uint32_t n_ranks;	/* columns: the ranks with a call or a thread, ascending */
	uint32_t *ranks;	/* [n_ranks] the rank of each column */
	struct sb_mpi_fns fns;
	struct sb_rank_row *rows;	/* every region and MPI function with a call; most total first */
	size_t n_rows;
	/* [row * n_ranks + column] */
	int64_t *time;		/* inclusive ns: the calls' summed durations */
	int64_t *own;		/* less the regions called inside; -1 where some call's is unknown */
	uint64_t *calls;
	uint64_t clamped;	/* index rows whose total was negative (read as 0) or overflowed */
};

/* The matrix of p's index rows (no events needed). 0, or -ENOMEM / -EFBIG with err set. */
int sb_rank_matrix_build(struct sb_rank_matrix *m, const struct sb_profile *p,
			 struct sb_error *err);
void sb_rank_matrix_free(struct sb_rank_matrix *m);

/* A row's name: its region's, or its MPI function's ("mpi:recv"). */
const char *sb_rank_row_name(const struct sb_rank_matrix *m, const struct sb_profile *p,
			     const struct sb_rank_row *r);

/* A cell relative to its row's mean (1: average); 0 when the row took no time. */
double sb_rank_cell_relative(const struct sb_rank_matrix *m, size_t row, uint32_t column);

#endif
