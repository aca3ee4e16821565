/*
 * `report --counters`: the counter columns summed per region (MPI call
 * regions per MPI function), and the figures derived from them.
 */
#ifndef SB_ANALYSIS_COUNTERS_H
#define SB_ANALYSIS_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/model.h"
#include "util/error.h"

struct sb_mpi_fns;

#define SB_EVENT_NAME_LEN 96	/* longest event name shown (counters/events.h's SB_EVENT_NAME_MAX) */

/* One region (or MPI function) over the ranks reported. */
struct sb_counter_row {
	uint32_t region;			/* an MPI function's: its first region */
	const char *name;			/* the region's, or "mpi:recv": into p or fns */
	uint64_t calls;
	uint64_t unknown;			/* calls whose counts are unknown (first event) */
	uint64_t incl[SB_COUNTER_SLOTS];	/* sums of the calls' inclusive counts */
	uint64_t excl[SB_COUNTER_SLOTS];	/* sums of their own (exclusive) counts */
};

/* A figure derived from two events, when the recording counted both: num / den. */
struct sb_counter_ratio {
	const char *name;	/* "IPC", "cache miss ratio", ... */
	int num, den;		/* event slots */
	bool percent;
};

#define SB_COUNTER_MAX_RATIOS 4

struct sb_counter_report {
	unsigned n;				/* events counted */
	char *names[SB_COUNTER_SLOTS];		/* metadata counter_events */
	struct sb_counter_row *rows;		/* by own total of the first event, largest first */
	size_t n_rows;
	struct sb_counter_ratio ratios[SB_COUNTER_MAX_RATIOS];
	unsigned n_ratios;
	struct sb_mpi_fns *fns;			/* the MPI functions rows fold into; NULL: mpi_detail */
};

/*
 * The rows of p's regions (rank >= 0: of that rank only), an MPI function's
 * call regions summed into one row unless mpi_detail. -EINVAL with the cause
 * in err when p has no counter columns.
 */
int sb_counter_report_build(struct sb_counter_report *r, const struct sb_profile *p, int64_t rank,
			    bool mpi_detail, struct sb_error *err);

/* Ratio k of a row, inclusive counts; NAN when its denominator is 0. */
double sb_counter_ratio_value(const struct sb_counter_report *r, unsigned k,
			      const struct sb_counter_row *row);

void sb_counter_report_free(struct sb_counter_report *r);

#endif
