/* scope-bpf report: read a profile, build its call tree, print it as text, JSON, CSV or HTML. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree.h"
#include "analysis/calltree_mpi.h"
#include "analysis/calltree_stream.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "util/text_format.h"
#include "io/h5guard.h"
#include "io/h5read.h"
#include "render/html.h"
#include "io/profile_read.h"
#include "render/rank_report.h"
#include "render/report_views.h"
#include "render/series_report.h"
#include "render/report.h"
#include "analysis/frame_names.h"

/* Long-only options get values past any character; a view's is OPT_VIEW + its place. */
enum { OPT_FLAT = 256, OPT_RANK, OPT_HTML, OPT_OFFCPU, OPT_TOP, OPT_PEAK_GFLOPS, OPT_PEAK_GBS,
       OPT_NO_DEMANGLE, OPT_WIDE, OPT_MPI_DETAIL, OPT_PER_RANK, OPT_DURATIONS, OPT_VIEW };

/* The views' options go after these (report_parse_args). */
static const struct option long_opts[] = {
	{ "sort", required_argument, NULL, 's' },
	{ "flat", no_argument, NULL, OPT_FLAT },
	{ "wide", no_argument, NULL, OPT_WIDE },
	{ "format", required_argument, NULL, 'f' },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "output", required_argument, NULL, 'o' },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "mpi-detail", no_argument, NULL, OPT_MPI_DETAIL },
	{ "per-rank", optional_argument, NULL, OPT_PER_RANK },
	{ "durations", no_argument, NULL, OPT_DURATIONS },
	{ "peak-gflops", required_argument, NULL, OPT_PEAK_GFLOPS },
	{ "peak-gbs", required_argument, NULL, OPT_PEAK_GBS },
	SB_FILTER_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	size_t i;

	fputs("usage: scope-bpf report [OPTIONS] FILE\n"
	      "\n"
	      "Summarize a profile (scope-bpf or scope-profiler) as a call tree.\n"
	      "\n"
	      "  -s, --sort KEY      order siblings by total (default), own, offcpu, calls,\n"
	      "                      avg, name or start\n"
	      "      --flat          one row per region instead of one per call path\n"
	      "      --wide          every column and whole region names, however wide;\n"
	      "                      without it the text fits 80 columns (min and max go\n"
	      "                      first, then deep levels of the tree are drawn 2 or\n"
	      "                      1 columns wide and long names cut in the middle)\n"
	      "  -f, --format FMT    text (default), json or csv\n"
	      "      --rank N        only the calls of rank N\n"
	      SB_FILTER_HELP
	      "  -o, --output FILE   write to FILE instead of standard output\n"
	      "      --html FILE     write one self-contained HTML page (table, timeline,\n"
	      "                      flame chart, durations) to FILE instead\n",
	      f);
	for (i = 0; i < sb_report_n_views; i++)
		fputs(sb_report_views[i]->help, f);
	fputs("      --per-rank[=KIND]\n"
	      "                      each region's time per rank instead, max over mean\n"
	      "                      and the slowest rank; KIND is what the text shows:\n"
	      "                      time (inclusive, default), own, or relative (over\n"
	      "                      the region's mean over ranks); JSON and CSV: all\n"
	      "      --durations     each region's call durations instead: min, median,\n"
	      "                      p90, p99, max, and the median over the run in 40\n"
	      "                      windows, for the --top N regions with the most time\n"
	      "                      (JSON, CSV: every region and window)\n"
	      "      --peak-gflops X, --peak-gbs Y\n"
	      "                      the machine's peak GFLOP/s and GB/s, drawn as ceilings\n"
	      "                      on the HTML page's roofline (docs/HTML.md)\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "total, avg, min and max are times of the calls on each call path (--flat:\n"
	      "a call inside a call of its own region adds no time to total); %rec is\n"
	      "total over rank-seconds, the recording's duration times the ranks shown\n"
	      "that have calls or threads in the profile (record -p of one rank: that\n"
	      "one; a region every rank runs throughout reads 100%; threads of one rank\n"
	      "in it at once still add up); own leaves out the time of the regions\n"
	      "called inside; off-CPU is the time the thread waited, not ran, inside the\n"
	      "calls; with GPU work recorded, GPU time is that of the work the calls\n"
	      "launched themselves and GPU share that time over total (above 100%:\n"
	      "kernels outlived the calls).\n"
	      "\n"
	      "Exit status: 0; 1 when the output cannot be written or memory runs out; 2 on\n"
	      "a usage error, an unreadable profile, or a view of data the profile has\n"
	      "none of (--samples without samples, --mpi without MPI calls, --gpu without\n"
	      "CUDA activity, --counters or --memory without them): nothing is written then.\n",
	      f);
}

static int parse_rank(const char *s, int64_t *rank)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > UINT32_MAX)
		return -EINVAL;
	*rank = v;
	return 0;
}

static int parse_top(const char *s, unsigned *top)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000)
		return -EINVAL;
	*top = (unsigned)v;
	return 0;
}

/* A ceiling: a finite number above 0. */
static int parse_peak(const char *opt, const char *s, double *v, struct sb_error *err)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*v) || *v <= 0)
		return sb_fail(err, EINVAL, "%s: '%s' is not a number above 0", opt, s);
	return 0;
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct report_opts *o = opts;
	int r;

	r = sb_filter_option(c, optarg, &o->filter, err);
	if (r <= 0)
		return r;
	switch (c) {
	case 's':
		if (sb_ct_sort_parse(optarg, &o->sort))
			return sb_fail(err, EINVAL,
				       "--sort: '%s' is not one of total, own, offcpu, calls, avg, "
				       "name, start",
				       optarg);
		return 0;
	case 'f':
		return sb_format_option(optarg, true, &o->format, err);
	case OPT_FLAT:
		o->flat = true;
		return 0;
	case OPT_WIDE:
		o->wide = true;
		return 0;
	case OPT_RANK:
		if (parse_rank(optarg, &o->rank))
			return sb_fail(err, EINVAL, "--rank: '%s' is not a rank number", optarg);
		return 0;
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_HTML:
		o->html = optarg;
		return 0;
	case OPT_NO_DEMANGLE:
		sb_frame_names_set_demangle(false);
		return 0;
	case OPT_OFFCPU:
		sb_report_ask(o, &sb_samples_report_view);
		o->sample_kind = SB_SAMPLE_OFFCPU;
		return 0;
	case OPT_MPI_DETAIL:
		o->mpi_detail = true;
		return 0;
	case OPT_PER_RANK:
		o->per_rank = true;
		if (!optarg || !strcmp(optarg, "time"))
			o->rank_value = SB_RANK_TIME;
		else if (!strcmp(optarg, "own"))
			o->rank_value = SB_RANK_OWN;
		else if (!strcmp(optarg, "relative"))
			o->rank_value = SB_RANK_RELATIVE;
		else
			return sb_fail(err, EINVAL, "--per-rank: '%s' is not one of time, own, "
				       "relative", optarg);
		return 0;
	case OPT_DURATIONS:
		o->durations = true;
		return 0;
	case OPT_PEAK_GFLOPS:
		return parse_peak("--peak-gflops", optarg, &o->peak_gflops, err);
	case OPT_PEAK_GBS:
		return parse_peak("--peak-gbs", optarg, &o->peak_gbs, err);
	case OPT_TOP:
		if (parse_top(optarg, &o->top))
			return sb_fail(err, EINVAL, "--top: '%s' is not a count from 1", optarg);
		return 0;
	case 'h':
		o->help = true;
		return SB_OPT_STOP;
	}
	if (c >= OPT_VIEW && (size_t)(c - OPT_VIEW) < sb_report_n_views) {
		const struct sb_report_view *v = sb_report_views[c - OPT_VIEW];

		sb_report_ask(o, v);
		return v->parse && optarg ? v->parse(optarg, o, err) : 0;
	}
	return sb_fail(err, EINVAL, "unexpected option %d", c);
}

/* The fixed options, then one per view, then the end. */
static const struct option *all_options(void)
{
	static struct option opts[sizeof(long_opts) / sizeof(long_opts[0]) + SB_REPORT_MAX_VIEWS];
	size_t n = sizeof(long_opts) / sizeof(long_opts[0]) - 1, i;

	memcpy(opts, long_opts, n * sizeof(opts[0]));
	for (i = 0; i < sb_report_n_views && i < SB_REPORT_MAX_VIEWS; i++)
		opts[n++] = (struct option){ sb_report_views[i]->option, sb_report_views[i]->has_arg,
					     NULL, OPT_VIEW + (int)i };
	opts[n] = (struct option){ NULL, 0, NULL, 0 };
	return opts;
}

/*
 * The view o shows, into o->view: of two asked together the later in
 * sb_report_views is refused, naming the earlier; none goes with --html.
 */
static int pick_view(struct report_opts *o, struct sb_error *err)
{
	const struct sb_report_view *v;
	size_t i;

	o->view = NULL;
	for (i = 0; i < sb_report_n_views; i++) {
		if (!(o->views & (1u << i)))
			continue;
		v = sb_report_views[i];
		if (o->html)
			return sb_fail(err, EINVAL, "--%s: not available with --html%s", v->option,
				       v->html_note);
		if (o->view)
			return sb_fail(err, EINVAL, "--%s: not available with --%s", v->option,
				       o->view->option);
		o->view = v;
	}
	return 0;
}

/* The option, less "--", of a view other than --per-rank and --durations that o asks for. */
static const char *other_view(const struct report_opts *o)
{
	return o->html ? "html (the page shows it)" : o->view ? o->view->option :
	       o->per_rank && o->durations ? "durations" : NULL;
}

int report_parse_args(int argc, char **argv, struct report_opts *o, struct sb_error *err)
{
	int r;

	*o = (struct report_opts){ .sort = SB_CT_SORT_TOTAL, .format = SB_REPORT_TEXT, .rank = -1,
				   .top = 10 };
	/* Process-wide: each parse starts from the default, --no-demangle turns it off. */
	sb_frame_names_set_demangle(true);
	r = sb_parse_options(argc, argv, ":s:f:o:h", all_options(), parse_option, o, err);
	if (r || o->help)
		return r;
	if (optind >= argc)
		return sb_fail(err, EINVAL, "missing FILE, the profile to report");
	if (optind + 1 < argc)
		return sb_fail(err, EINVAL, "'%s': only one FILE can be reported",
			       argv[optind + 1]);
	if (o->html && o->output)
		return sb_fail(err, EINVAL, "--html: the page goes to its own FILE; drop --output");
	r = pick_view(o, err);
	if (r)
		return r;
	if ((o->peak_gflops > 0 || o->peak_gbs > 0) && !o->html)
		return sb_fail(err, EINVAL, "--%s: only for the roofline of --html",
			       o->peak_gflops > 0 ? "peak-gflops" : "peak-gbs");
	if ((o->per_rank || o->durations) && other_view(o))
		return sb_fail(err, EINVAL, "--%s: not available with --%s",
			       o->per_rank ? "per-rank" : "durations", other_view(o));
	if (o->per_rank && o->rank >= 0)
		return sb_fail(err, EINVAL, "--rank: --per-rank takes its ranks from --ranks LIST");
	if (o->view && o->view->ranks_list && o->rank >= 0)
		return sb_fail(err, EINVAL, "--rank: --%s takes its ranks from --ranks LIST",
			       o->view->option);
	if (o->rank >= 0 && o->filter.ranks)
		return sb_fail(err, EINVAL, "--ranks: give either --rank or --ranks");
	o->path = argv[optind];
	return 0;
}

/* 0, or the exit status when --rank names a rank the profile lacks. */
static int check_rank(const struct report_opts *o, const struct sb_profile *p)
{
	uint32_t n = sb_profile_rank_count(p);

	if (o->rank < 0 || o->rank < (int64_t)n)
		return 0;
	fprintf(stderr, "scope-bpf report: %s: --rank %lld: the profile has %u rank%s\n",
		o->path, (long long)o->rank, n, format_plural(n, "rank", "ranks"));
	return SB_EXIT_USAGE;
}

/* Write the report to o->output or stdout; 0, or the exit status of a failure. */
static int write_report(const struct report_opts *o, const struct sb_profile *p,
			const struct sb_calltree *t)
{
	struct sb_error err = { .msg = "" };
	struct sb_output out;
	int r;

	if (sb_output_open(&out, o->output, &err)) {
		fprintf(stderr, "scope-bpf report: %s\n", err.msg);
		return 1;
	}
	r = sb_report_render(out.f, p, t, o);
	return sb_output_close(&out, r, "report");
}

/* Write the page beside o->html, then rename it over: no reader sees half a page. */
static int write_html(const struct report_opts *o, const struct sb_profile *p,
		      const struct sb_calltree *t)
{
	struct sb_html_opts ho = { .title = o->path, .rank = o->rank, .filter = &o->filter,
				   .peak_gflops = o->peak_gflops, .peak_gbs = o->peak_gbs };
	struct sb_error err = { .msg = "" };
	struct sb_output out;
	int r;

	r = sb_output_open(&out, o->html, &err);
	if (r)
		goto fail;
	r = sb_report_html(out.f, p, t, &ho, &err);
	if (r) {
		sb_output_abort(&out);
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->html, err.msg);
		return 1;
	}
	r = sb_output_commit(&out, &err);
	if (!r)
		return 0;
fail:
	/* The cause alone: the temporary file's name would only puzzle the reader. */
	fprintf(stderr, "scope-bpf report: %s: %s\n", o->html, strerror(-r));
	return 1;
}

/* Build the tree and write it; returns the exit status. */
static int report_profile(const struct report_opts *o, const struct sb_profile *p)
{
	struct sb_ct_opts co = { .flat = o->flat, .rank = o->rank, .sort = o->sort };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	int r;

	r = sb_calltree_build(&t, p, &co, &err);
	if (r < 0) {
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->path, err.msg);
		return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	/* The page folds each function's call regions below its row: it has them all. */
	if (sb_calltree_group_mpi(&t, o->html || o->mpi_detail, o->sort)) {
		fprintf(stderr, "scope-bpf report: %s: call tree: out of memory\n", o->path);
		sb_calltree_free(&t);
		return 1;
	}
	r = o->html ? write_html(o, p, &t) : write_report(o, p, &t);
	sb_calltree_free(&t);
	return r;
}

/* A read and tree build with the events left on disk, libhdf5 kept in child processes. */
struct lean {
	const struct report_opts *o;
	struct sb_profile p;
	struct sb_calltree t;
	bool read;		/* p holds a profile to free */
	struct sb_error err;	/* why the read failed */
	int read_ret;
};

static int lean_build(struct lean *l)
{
	struct sb_ct_opts co = { .flat = l->o->flat, .rank = l->o->rank, .sort = l->o->sort };
	struct sb_error err = { .msg = "" };
	struct sb_h5_guarded_source src;
	int r;

	r = sb_h5_read_guarded(l->o->path, &l->p, SB_H5_READ_LEAN, &l->err);
	l->read_ret = r;
	if (r)
		return r;
	l->read = true;
	/* Schema 1 and unordered index rows come back with their events in memory. */
	if (l->p.events || (l->o->rank >= 0 && l->o->rank >= sb_profile_rank_count(&l->p)))
		return SB_CT_FALLBACK;
	sb_h5_guarded_source_init(&src, l->o->path, &l->p);
	return sb_calltree_build_stream(&l->t, &l->p, &co, &src.base, &err);
}

/*
 * A text, JSON or CSV report of an HDF5 profile needs its events only as a
 * few passes: the tree then costs 8 bytes a call instead of about 80. The
 * exit status, or -1 when the file does not suit or fails: the caller then
 * reads it whole, and says what is wrong with it exactly as it always has.
 */
static int report_lean(const struct report_opts *o)
{
	struct sb_ct_opts co = { .flat = o->flat, .rank = o->rank, .sort = o->sort };
	enum sb_format fmt = SB_FMT_UNKNOWN;
	struct lean l = { .o = o };
	int r;

	/* A filter needs the events in memory: it moves and drops them. */
	if (o->view || o->html || o->per_rank || o->durations || sb_filter_active(&o->filter) ||
	    sb_profile_detect(o->path, &fmt, &l.err))
		return -1;
	if (fmt == SB_FMT_SPT) {
		r = sb_spt_read_tree(o->path, &l.p, &co, &l.t, &l.err);
		l.read_ret = r;
		l.read = !r;
		/* check_rank on the whole read says what is wrong with --rank. */
		if (!r && o->rank >= (int64_t)sb_profile_rank_count(&l.p)) {
			sb_calltree_free(&l.t);
			r = -1;
		}
	} else if (fmt == SB_FMT_HDF5) {
		r = lean_build(&l);
	} else {
		return -1;
	}
	/* A file the reader refused is refused: reading it again whole would only say so later. */
	if (l.read_ret && l.read_ret != -ENOMEM) {
		fprintf(stderr, "scope-bpf report: %s\n", l.err.msg);
		return SB_EXIT_USAGE;
	}
	if (r) {
		if (l.read)
			sb_profile_free(&l.p);
		return -1;
	}
	r = sb_calltree_group_mpi(&l.t, o->mpi_detail, o->sort);
	if (r)
		fprintf(stderr, "scope-bpf report: %s: call tree: out of memory\n", o->path);
	r = r ? 1 : write_report(o, &l.p, &l.t);
	sb_calltree_free(&l.t);
	sb_profile_free(&l.p);
	return r;
}

/*
 * The view o asks for of p to o->output or stdout; the exit status. What it
 * shows is built before the output is opened: a failure writes nothing.
 */
static int report_kind(const struct report_opts *o, const struct sb_profile *p)
{
	const struct sb_report_view *v = o->view;
	struct sb_error err = { .msg = "" };
	struct sb_output out;
	void *state = NULL;
	int r;

	r = v->build ? v->build(&state, p, o, &err) : 0;
	if (r) {
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->path,
			err.msg[0] ? err.msg : strerror(-r));
		return r == -EINVAL ? SB_EXIT_USAGE : 1;
	}
	if (sb_output_open(&out, o->output, &err)) {
		fprintf(stderr, "scope-bpf report: %s\n", err.msg);
		r = 1;
	} else {
		r = sb_output_close(&out, v->render(out.f, p, state, o), "report");
	}
	if (v->release)
		v->release(state);
	return r;
}

/* --per-rank or --durations of p to o->output or stdout; the exit status. */
static int report_view(const struct report_opts *o, const struct sb_profile *p)
{
	struct sb_series_opts so = { .rank = o->rank, .metric = SB_SERIES_DURATION,
				     .windows = SB_SERIES_REPORT_WINDOWS };
	struct sb_error err = { .msg = "" };
	struct sb_rank_matrix m;
	struct sb_series_set s;
	struct sb_output out;
	int r;

	r = o->per_rank ? sb_rank_matrix_build(&m, p, &err) : sb_series_build(&s, p, &so, &err);
	if (r) {
		fprintf(stderr, "scope-bpf report: %s: %s\n", o->path, err.msg);
		return r == -ENOMEM ? 1 : SB_EXIT_USAGE;
	}
	r = sb_output_open(&out, o->output, &err);
	if (r)
		fprintf(stderr, "scope-bpf report: %s\n", err.msg);
	else if (o->per_rank)
		r = sb_output_close(&out, sb_rank_report_render(out.f, p, &m, o), "report");
	else
		r = sb_output_close(&out, sb_series_report_render(out.f, p, &s, o), "report");
	if (o->per_rank)
		sb_rank_matrix_free(&m);
	else
		sb_series_free(&s);
	return r ? 1 : 0;
}

/*
 * For a view that needs no call (lean: --gpu): an HDF5 file's events are
 * checked in one pass and left on disk (the filter renumbers rows without
 * them). Other formats are read whole. As sb_load_profile(): < 0 with why
 * on stderr.
 */
static int load_lean(const char *path, struct sb_profile *p)
{
	enum sb_format fmt = SB_FMT_UNKNOWN;
	struct sb_error err = { .msg = "" };
	int r;

	if (sb_profile_detect(path, &fmt, &err) || fmt != SB_FMT_HDF5)
		return sb_load_profile("report", path, p);
	r = sb_h5_read_guarded(path, p, SB_H5_READ_LEAN, &err);
	if (r < 0) {
		fprintf(stderr, "scope-bpf report: %s\n", err.msg);
		sb_profile_free(p);
	}
	return r;
}

/*
 * A view of data the profile has none of is bad input, as an export of
 * samples from a profile without them is: one line saying what to record,
 * exit 2, nothing written. Asked of the whole file, before any filter.
 */
static int check_view(const struct report_opts *o, const struct sb_profile *p)
{
	const struct sb_report_view *v = o->view;
	struct sb_error err = { .msg = "" };
	char opt[64];

	if (v && v->per_call) {
		snprintf(opt, sizeof(opt), "--%s", v->option);
		if (sb_require_calls("report", o->path, p, opt))
			return SB_EXIT_USAGE;
	} else if (o->mpi_detail &&
		   sb_require_calls("report", o->path, p, "--mpi-detail")) {
		return SB_EXIT_USAGE;
	}
	if (!v || !v->require || !v->require(p, o, &err))
		return 0;
	fprintf(stderr, "scope-bpf report: %s: %s\n", o->path, err.msg);
	return SB_EXIT_USAGE;
}

/* Read the profile whole (a lean view: no calls), filter it and report it; the exit status. */
static int report_whole(const struct report_opts *o)
{
	struct sb_profile p;
	int r;

	r = o->view && o->view->lean ? load_lean(o->path, &p) :
				       sb_load_profile("report", o->path, &p);
	if (r < 0)
		return SB_EXIT_USAGE;
	r = check_rank(o, &p);
	if (!r)
		r = check_view(o, &p);
	if (!r)
		r = sb_filter_profile("report", o->path, &o->filter, &p);
	if (!r && o->view)
		r = report_kind(o, &p);
	else if (!r && (o->per_rank || o->durations))
		r = report_view(o, &p);
	else if (!r)
		r = report_profile(o, &p);
	sb_profile_free(&p);
	return r;
}

int cmd_report(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct report_opts o;
	int r;

	if (report_parse_args(argc, argv, &o, &err)) {
		sb_filter_free(&o.filter);
		return sb_usage_error("report", err.msg);
	}
	if (o.help) {
		sb_filter_free(&o.filter);
		usage(stdout);
		return 0;
	}
	r = report_lean(&o);
	if (r < 0)
		r = report_whole(&o);
	sb_filter_free(&o.filter);
	return r;
}
