/*
 * The HTML report's timed CPU samples: which of them the timeline shows, as
 * ticks on their threads' lanes, and their data for the page.
 */
#ifndef SB_HTML_SAMPLES_H
#define SB_HTML_SAMPLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "render/html.h"

/* Samples the timeline shows by default: more make the page slow to open and draw. */
#define SB_HTML_MAX_TICKS 100000

/* A timeline lane: one thread of one rank; thread -1 when the file has no thread column. */
static inline uint64_t sb_html_lane_key(uint32_t rank, int64_t thread)
{
	return (uint64_t)rank << 32 | (uint32_t)(thread + 1);
}

/* For qsort and bsearch of lane keys. */
static inline int sb_html_cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The timed samples of one rank (or all: rank -1) the timeline shows: all
 * of them, or every step-th when there are more than cap, so that their
 * density still reads as the threads' activity.
 */
struct sb_html_ticks {
	const struct sb_profile *p;
	int64_t rank;
	size_t total;		/* timed samples after the rank filter */
	size_t shown;
	size_t step;
	int64_t t0, t1;		/* the first and last shown */
};

/*
 * The timeline's samples layer (struct sb_html_kind_view), a struct
 * sb_html_ticks of its own: pick keeps every step-th sample, at most
 * SB_HTML_MAX_TICKS (not the calls' cap), 0 or -ENOMEM; lanes: the shown
 * samples' lane keys into out, in order; write: the timeline's "samples"
 * member, times after t0, lanes as indexes of lanes (sorted keys that hold
 * every shown sample's), nothing when none is shown, 0 or -ENOMEM.
 */
int sb_html_ticks_pick(struct sb_html_layer *l, const struct sb_profile *p, int64_t rank,
		       size_t cap);
size_t sb_html_ticks_lanes(const struct sb_html_layer *l, uint64_t *out);
int sb_html_ticks_write(FILE *j, const struct sb_html_layer *l, int64_t t0,
			const uint64_t *lanes, size_t n_lanes);
void sb_html_ticks_release(struct sb_html_layer *l);

/* Region path id as the page names it, "outer › inner", a JSON string. */
void sb_html_region_path(FILE *j, const struct sb_samples *s, int64_t path);

/*
 * The "samples" member: the innermost function per region path, the hottest
 * first (at most SB_HTML_MAX_SAMPLE_ROWS), of o's rank; nothing without
 * samples. 0 or -ENOMEM.
 */
int sb_html_samples_section(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o);

#endif
