/* The report command's options and its three renderings of a call tree: text, JSON, CSV. */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/calltree.h"
#include "analysis/filter.h"
#include "analysis/rank_matrix.h"
#include "util/error.h"
#include "model/model.h"

struct sb_report_view;

enum sb_report_format {
	SB_REPORT_TEXT,
	SB_REPORT_JSON,
	SB_REPORT_CSV,
};

struct report_opts {
	enum sb_ct_sort sort;
	bool flat;
	enum sb_report_format format;
	int64_t rank;		/* -1: all ranks */
	const char *output;	/* NULL: stdout */
	const char *html;	/* --html FILE: write the HTML page there instead; NULL: none */
	const char *path;	/* the profile */
	/* Bit i: sb_report_views[i] was asked for (render/report_views.h). */
	uint32_t views;
	const struct sb_report_view *view;	/* the view shown; NULL: the call tree */
	enum sb_sample_kind sample_kind;	/* --samples=KIND or --offcpu */
	unsigned top;		/* --top N: functions per region path */
	struct sb_filter filter;	/* --ranks, --include, --exclude */
	bool mpi_detail;	/* --mpi-detail: each MPI call region below its function's row */
	double peak_gflops;	/* --peak-gflops X: the HTML roofline's compute ceiling; 0 none */
	double peak_gbs;	/* --peak-gbs Y: its bandwidth ceiling; 0 none */
	bool wide;		/* --wide: every column and whole names; else 80 columns */
	bool per_rank;		/* --per-rank: each region's time per rank, max over mean */
	enum sb_rank_value rank_value;	/* --per-rank=KIND: what its text cells show */
	bool durations;		/* --durations: call durations' quantiles and course over the run */
	bool help;
};

/*
 * Parse `report [OPTIONS] FILE` (argv[0] is the command name) without side
 * effects beyond getopt's state. Returns 0, or -EINVAL with err naming the
 * option or argument at fault. With --help, o->help is set and FILE is optional.
 */
int report_parse_args(int argc, char **argv, struct report_opts *o, struct sb_error *err);

/* "text", "json", "csv"; -EINVAL for anything else. */
int sb_report_format_parse(const char *s, enum sb_report_format *fmt);

/*
 * What "% of the recording" divides by: finalize_time_ns - start_time_ns from
 * the metadata when both are there, else the calls' first start to last end;
 * 0 when unknown.
 */
int64_t sb_report_span(const struct sb_profile *p, const struct sb_calltree *t);

/*
 * What %rec divides by: the span times the ranks shown (see below),
 * rank-seconds, so no region of a multi-rank run reads over 100% for its
 * ranks. Threads of one rank in a region at once still add up.
 */
int64_t sb_report_pct_base(const struct sb_profile *p, const struct sb_calltree *t,
			   uint32_t ranks);

/*
 * Ranks a report covers: the one of rank >= 0, else those p has anything of
 * (sb_profile_ranks_recorded; a --ranks filter has dropped the others).
 */
uint32_t sb_report_ranks_shown(const struct sb_profile *p, int64_t rank);

/* "file      PATH (FORMAT)", the first line of every text report, escaped (format_text). */
void sb_report_file_line(FILE *f, const struct sb_profile *p, const struct report_opts *o);

/* Write t (built from p with o's rank and mode) to f as o->format; -EIO on a write error. */
int sb_report_render(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		     const struct report_opts *o);

#endif
