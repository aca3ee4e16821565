/* Which ranks and regions a command looks at: --ranks LIST, --include REGEX, --exclude REGEX. */
#ifndef SB_FILTER_H
#define SB_FILTER_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "model/model.h"

struct sb_filter {
	uint32_t *ranks;	/* sorted, no repeats; NULL: every rank */
	size_t n_ranks;
	const char *ranks_arg;	/* the list as the user wrote it, for messages */
	regex_t include;	/* a region is kept when its name matches this (if set) */
	regex_t exclude;	/* ... and does not match this (if set) */
	bool has_include;
	bool has_exclude;
};

/*
 * Parse a rank list: ranks and ranges joined by commas, "0-3,7". Returns 0 with
 * a sorted, repeat-free malloc'd array in *ranks, or -EINVAL / -ENOMEM with err
 * saying what is wrong in the list (the caller names the option).
 */
int sb_rank_list_parse(const char *s, uint32_t **ranks, size_t *n, struct sb_error *err);

/* Set one part of f from its option's argument; -EINVAL with err naming the option. */
int sb_filter_set_ranks(struct sb_filter *f, const char *arg, struct sb_error *err);
int sb_filter_set_include(struct sb_filter *f, const char *regex, struct sb_error *err);
int sb_filter_set_exclude(struct sb_filter *f, const char *regex, struct sb_error *err);

/* Whether any part is set; a filter that is not changes nothing. */
bool sb_filter_active(const struct sb_filter *f);
bool sb_filter_rank(const struct sb_filter *f, uint32_t rank);
bool sb_filter_region(const struct sb_filter *f, const char *name);

/*
 * Keep only what f selects in p, which holds its events: index rows of other
 * ranks or of filtered-out regions go with their calls; a kept call inside a
 * filtered-out one moves up to the nearest kept call around it (its parent ids
 * are dropped, so nesting is taken from the times), as samples move to the
 * nearest kept region path. Threads and samples of other ranks go too. CUDA
 * activity goes with its rank, GPU work with the call that launched it (and,
 * with --include/--exclude, when no region launched it); rows are renumbered
 * in what stays. A p read without its events (report --gpu) is filtered the
 * same, but its rows' offsets no longer point into the file. Returns 0,
 * -EINVAL with err when the list names a rank p lacks, or -ENOMEM.
 */
int sb_filter_apply(const struct sb_filter *f, struct sb_profile *p, struct sb_error *err);

/*
 * sb_filter_apply()'s part on every kind of data (analysis/filter_kinds.c),
 * once the index rows moved (to[i]: row i's new number, -1 gone; n_to rows
 * before). 0, or -ENOMEM with err naming the kind.
 */
int sb_filter_kinds(const struct sb_filter *f, struct sb_profile *p, const int64_t *to,
		    size_t n_to, struct sb_error *err);

void sb_filter_free(struct sb_filter *f);

#endif
