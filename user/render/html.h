/* The report as one self-contained HTML page: table, timeline, flame graph, durations. */
#ifndef SB_HTML_H
#define SB_HTML_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/calltree.h"
#include "util/error.h"
#include "model/model.h"

struct sb_filter;

/* Timeline calls embedded by default: more make the page slow to open and draw. */
#define SB_HTML_MAX_CALLS 200000
/* Rows of the Samples table (region path, innermost function), the heaviest first. */
#define SB_HTML_MAX_SAMPLE_ROWS 500

struct sb_html_opts {
	const char *title;	/* the page's title, usually the profile's path */
	int64_t rank;		/* only this rank's calls on the timeline; -1 for all */
	const struct sb_filter *filter;	/* what --ranks etc. left in the profile; NULL: none */
	size_t max_calls;	/* keep the longest calls past this many; 0 = SB_HTML_MAX_CALLS */
	double peak_gflops;	/* the roofline's ceilings as the user gave them; 0 = none */
	double peak_gbs;
};

/*
 * Write the page for t (built from p) to f: the page's CSS and script are
 * inline and the profile is one JSON object in it, so the file opens offline.
 * Returns 0, or a negative errno with err set.
 */
int sb_report_html(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		   const struct sb_html_opts *o, struct sb_error *err);

/* A kind's layer on the timeline, as its view picked it. */
struct sb_html_layer {
	size_t shown;		/* pieces shown; 0: nothing, t0 and t1 unset */
	int64_t t0, t1;		/* the first and last time shown */
	void *state;		/* the view's own; NULL before its pick */
};

/*
 * A kind of data's view on the page: members of its data object, written
 * only when the profile holds something of the kind. NULL: no such part.
 */
struct sb_html_kind_view {
	const struct sb_kind *kind;
	/* Its value per call tree row (data "nodes", same order), right after them. */
	void (*nodes)(FILE *j, const struct sb_profile *p, const struct sb_calltree *t);
	/*
	 * Its layer on the timeline: pick what it shows of rank (-1: every rank;
	 * cap: how many calls the timeline keeps, a rule it may follow) into l,
	 * 0 or -ENOMEM; lanes: the thread lanes (html_samples.h's
	 * sb_html_lane_key) of what it shows, l->shown at most, into out, how
	 * many; write: its member of the timeline, times after t0, on the
	 * timeline's lanes, 0 or -ENOMEM; release: what pick held, also after
	 * it failed.
	 */
	int (*pick)(struct sb_html_layer *l, const struct sb_profile *p, int64_t rank, size_t cap);
	size_t (*lanes)(const struct sb_html_layer *l, uint64_t *out);
	int (*write)(FILE *j, const struct sb_html_layer *l, int64_t t0, const uint64_t *lanes,
		     size_t n_lanes);
	void (*release)(struct sb_html_layer *l);
	/* Its own section, after the durations. 0 or -ENOMEM. */
	int (*section)(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o);
};

/* Every kind's view, in the page's order (render/html_kinds.c). */
extern const struct sb_html_kind_view sb_html_kind_views[];
extern const size_t sb_html_n_kind_views;

#endif
