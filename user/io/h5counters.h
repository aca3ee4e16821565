/*
 * Counter totals per region in scope-profiler's layout (FORMAT.md,
 * /rank<N>/perf_events/<region>/), summed from the per-call counter columns
 * while the events stream to the file.
 */
#ifndef SB_H5COUNTERS_H
#define SB_H5COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "model/model.h"
#include "util/error.h"
#include "util/hashmap.h"

/* One (index row, thread): what a LIKWID region result holds per thread. */
struct sb_counter_thread {
	size_t pair;
	int64_t thread;			/* row within the rank's threads, -1 unknown */
	uint64_t calls;
	int64_t ns;			/* the calls' durations */
	double counts[SB_COUNTER_SLOTS];	/* their inclusive counts, unknown ones left out */
};

struct sb_counter_totals {
	unsigned n;			/* counter columns the profile has: 0 = nothing to write */
	char *names[SB_COUNTER_SLOTS];	/* metadata counter_events, else counter_<i> */
	uint64_t *sum;			/* [pair * n + i]: the pair's calls' inclusive counts */
	uint64_t *unknown;		/* [pair]: calls with an unknown count */
	size_t pair;			/* the pair the next streamed row belongs to */
	uint64_t row;			/* the next streamed row's index */
	/* Per thread, only for a LIKWID group's recording (metadata counter_group). */
	bool per_thread;
	struct sb_counter_thread *threads;
	size_t n_threads, cap_threads;
	struct sb_hashmap thread_of;	/* (pair, thread + 1) -> index in threads */
};

/* Counter columns i < n of the profile (its leading counter slots); their names. */
int sb_counter_totals_init(struct sb_counter_totals *t, const struct sb_profile *p);

/*
 * Rows [t->row, t->row + n) of the events in file order, with their counter
 * rows (model.h; may be NULL when t->n is 0); 0 or -ENOMEM.
 */
int sb_counter_totals_add(struct sb_counter_totals *t, const struct sb_profile *p,
			  const struct sb_event *rows, const int64_t *counters, size_t n);

/*
 * /rank<N>/perf_events/<region>/ for every index row: attributes calls
 * (int64) and event_names (strings), dataset values (uint64), the sums of
 * the calls' inclusive counts (unknown ones left out). A region name HDF5
 * cannot take as a group name ('/', ".") is left out. 0 or -errno with
 * "path: cause" in err.
 */
int sb_h5_write_perf_events(hid_t file, const char *path, const struct sb_profile *p,
			    const struct sb_counter_totals *t, struct sb_error *err);

/*
 * For a recording of a LIKWID group (metadata counter_group): per index row
 * /rank<N>/likwid/regions/<region, '/' as '|'>/ as scope-profiler reads it,
 * per thread the events and the group's metrics evaluated with LIKWID's
 * formulas (the group file loaded again from counter_group_arch; without it,
 * no metrics). 0 or -errno with "path: cause" in err.
 */
int sb_h5_write_likwid(hid_t file, const char *path, const struct sb_profile *p,
		       const struct sb_counter_totals *t, struct sb_error *err);

void sb_counter_totals_free(struct sb_counter_totals *t);

#endif
