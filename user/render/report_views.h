/*
 * Each kind of data's view in `scope-bpf report` (--samples, --gpu, ...):
 * one entry a kind, from which the command takes its options, its help, the
 * views it refuses together, what each needs in the profile and how it is
 * written. A new kind's view is its own file, its declaration below and one
 * line in render/report_views.c.
 */
#ifndef SB_RENDER_REPORT_VIEWS_H
#define SB_RENDER_REPORT_VIEWS_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"
#include "model/table.h"
#include "render/report.h"
#include "util/error.h"

/* Views a report_opts can ask for: one bit each in report_opts.views. */
#define SB_REPORT_MAX_VIEWS 32

/*
 * A view; NULL where it has no such part. option: its long option, without
 * "--"; has_arg: as struct option's, and with an argument (or an optional
 * one left out: NULL) parse reads it into o, 0 or -EINVAL with err set;
 * help: its lines in report --help. html_note: what follows "--html" when
 * the two are asked together ("" for nothing). per_call: it needs each call,
 * so an aggregate file is refused; lean: an HDF5 file's calls stay on disk
 * (the view needs the index rows and the threads, never a call); ranks_list:
 * --rank is refused, its ranks come from --ranks. require: 0 when p holds
 * what the view shows, else err says what to record (exit 2, nothing
 * written). build: what it shows, into a state of its own, before the output
 * is opened, 0 or < 0 with err set (or not: strerror tells) and exit 2 for
 * -EINVAL, 1 else; render: that state as o->format; release: the state,
 * also after build failed.
 */
struct sb_report_view {
	const struct sb_kind *kind;	/* the kind it shows; NULL: not yet a table kind */
	const char *option;
	int has_arg;
	int (*parse)(const char *arg, struct report_opts *o, struct sb_error *err);
	const char *help;
	const char *html_note;
	bool per_call;
	bool lean;
	bool ranks_list;
	int (*require)(const struct sb_profile *p, const struct report_opts *o,
		       struct sb_error *err);
	int (*build)(void **state, const struct sb_profile *p, const struct report_opts *o,
		     struct sb_error *err);
	int (*render)(FILE *f, const struct sb_profile *p, const void *state,
		      const struct report_opts *o);
	void (*release)(void *state);
};

extern const struct sb_report_view sb_samples_report_view;	/* render/samples_report.c */
extern const struct sb_report_view sb_mpi_report_view;		/* render/mpi_report.c */
extern const struct sb_report_view sb_counters_report_view;	/* render/counters_report.c */
extern const struct sb_report_view sb_memory_report_view;	/* render/memory_report.c */
extern const struct sb_report_view sb_gpu_report_view;		/* render/gpu_report.c */

/*
 * Every view, in this order: --help lists them so, and of two views asked
 * together the later one is refused, naming the earlier (render/report_views.c).
 */
extern const struct sb_report_view *const sb_report_views[];
extern const size_t sb_report_n_views;

/* Whether o asks for view v. */
bool sb_report_asks(const struct report_opts *o, const struct sb_report_view *v);

/* Ask for view v in o (its option was given). */
void sb_report_ask(struct report_opts *o, const struct sb_report_view *v);

#endif
