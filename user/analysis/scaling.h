/*
 * Scaling studies: runs of one program at different rank (or thread) counts,
 * compared region path by region path: `scope-bpf scaling`.
 */
#ifndef SB_SCALING_H
#define SB_SCALING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "model/model.h"

/* One input profile, as the caller read it. */
struct sb_scaling_input {
	const char *path;			/* for messages and the output */
	const struct sb_profile *p;		/* must outlive the study */
};

/* One run of the study, in ascending order of n. */
struct sb_scaling_run {
	const char *path;
	const struct sb_profile *p;
	uint32_t n;		/* ranks, or threads when every run has one rank */
	uint32_t ranks;		/* the ranks whose times are compared (sb_profile_rank_count) */
	int64_t time;		/* the run's time: its longest rank's first call start to last end */
	double speedup;		/* against runs[0]; weak: the scaled speedup */
	double efficiency;	/* 1 is ideal */
};

/* One region path in one run; every ratio is NAN when it cannot be told. */
struct sb_scaling_cell {
	bool present;		/* some rank of the run called it */
	uint64_t calls;		/* over all ranks */
	int64_t max;		/* the largest rank's inclusive time */
	int64_t mean;		/* inclusive time over all of the run's ranks / ranks */
	double speedup;		/* as the run's, from max; NAN unless in runs[0] and here */
	double efficiency;
	double imbalance;	/* max / mean */
	double share;		/* max / the run's time */
	double mpi_share;	/* time in MPI calls inside it / its time, over all ranks */
	double offcpu_share;	/* off-CPU time / its time, over all ranks; NAN when not recorded */
};

struct sb_scaling_row {
	char *path;		/* region names from the top level, joined by ';' */
	const char *name;	/* the last of them, inside path */
	uint32_t depth;		/* top level 1 */
	uint32_t parent;	/* row index; SB_SCALING_NONE at the top level */
	struct sb_scaling_cell *cells;	/* per run */
	double growth;		/* share in the largest run - share in runs[0]; NAN unless in both */
};

#define SB_SCALING_NONE UINT32_MAX

struct sb_scaling {
	bool weak;		/* ideal: the time stays; else it drops as 1/n */
	bool by_threads;	/* every run has one rank: n counts threads */
	struct sb_scaling_run *runs;
	size_t n_runs;
	struct sb_scaling_row *rows;	/* a tree in pre-order, siblings by time, largest first */
	size_t n_rows;
	/* Rows whose share of the run grew, most first: where efficiency is lost. */
	uint32_t *lost;
	size_t n_lost;
};

/*
 * Study in[0..n-1] (at least two runs of one program, each n told apart).
 * Returns 0, -EINVAL with err naming the file and the cause (one file, two
 * programs, two runs of one count), or -ENOMEM; free s with
 * sb_scaling_free either way.
 */
int sb_scaling_build(struct sb_scaling *s, const struct sb_scaling_input *in, size_t n,
		     bool weak, struct sb_error *err);
void sb_scaling_free(struct sb_scaling *s);

/*
 * The program a profile ran: the base name of its rank 0 process's command,
 * else of the recorded command; "" when unknown.
 */
void sb_scaling_program(const struct sb_profile *p, char *buf, size_t size);

/* What a run's n counts: "rank"/"ranks" or "thread"/"threads". */
const char *sb_scaling_unit(const struct sb_scaling *s, uint32_t n);

#endif
