/* scope-bpf diff: compare two profiles region by region, as a table or JSON, with a CI gate. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mpi_fns.h"
#include "cmd/cli.h"
#include "cmd/commands.h"
#include "cmd/diff.h"
#include "util/text_format.h"

/* Long-only options get values past any character. */
enum { OPT_MAX_REGRESSION = 256, OPT_WIDE, OPT_MPI_DETAIL };

static const struct option long_opts[] = {
	{ "metric", required_argument, NULL, 'm' },
	{ "max-regression", required_argument, NULL, OPT_MAX_REGRESSION },
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "wide", no_argument, NULL, OPT_WIDE },
	{ "mpi-detail", no_argument, NULL, OPT_MPI_DETAIL },
	SB_FILTER_OPTIONS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("usage: scope-bpf diff [OPTIONS] A B\n"
	      "\n"
	      "Compare profile B with the baseline A, region by region (matched by name,\n"
	      "summed over all ranks), MPI calls by MPI function (mpi:recv).\n"
	      "\n"
	      "  -m, --metric M           order and judge by total (default), avg, p95, calls,\n"
	      "                           or the counts of an event both recorded (record -e)\n"
	      "      --max-regression PCT exit 1 when a region in both got slower than A by\n"
	      "                           more than PCT percent in the metric\n"
	      "  -f, --format FMT         text (default) or json\n"
	      "  -o, --output FILE        write to FILE instead of standard output\n"
	      "      --wide               every column (avg and p95 too) and whole region\n"
	      "                           names, however wide; without it the table fits\n"
	      "                           80 columns\n"
	      "      --mpi-detail         each MPI call region (its peer, bytes, tag, ...)\n"
	      "                           on its own row, not its MPI function's\n"
	      "      --ranks LIST         only these ranks of both: numbers and ranges, 0-3,7\n"
	      "      --include REGEX      only regions whose name matches REGEX (POSIX\n"
	      "                           extended)\n"
	      "      --exclude REGEX      no region whose name matches REGEX\n"
	      "  -h, --help               show this help\n"
	      "\n"
	      "Rows are sorted by the absolute change of the metric, largest first. p95 is\n"
	      "the nearest-rank 95th percentile of the call durations. A region that took\n"
	      "0 in A has no percentage (\"new\"). Exit status: 0, 1 on a regression over\n"
	      "PCT, 2 on a usage error or an unreadable file.\n",
	      f);
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct diff_opts *o = opts;
	int r;

	r = sb_filter_option(c, optarg, &o->filter, err);
	if (r <= 0)
		return r;
	switch (c) {
	case 'm':
		/* Anything else names an event; the profiles say whether they counted it. */
		o->event = NULL;
		if (sb_diff_metric_parse(optarg, &o->metric)) {
			if (!*optarg || strchr(optarg, ','))
				return sb_fail(err, EINVAL, "--metric: '%s' is not one of %s", optarg,
					       "total, avg, p95, calls, or one event");
			o->metric = SB_DIFF_COUNTER;
			o->event = optarg;
		}
		return 0;
	case OPT_MAX_REGRESSION:
		if (sb_diff_pct_parse(optarg, &o->max_regression))
			return sb_fail(err, EINVAL,
				       "--max-regression: '%s' is not a percentage (0 or more)",
				       optarg);
		o->max_regression_arg = optarg;
		return 0;
	case 'f':
		return sb_format_option(optarg, false, &o->format, err);
	case 'o':
		o->output = optarg;
		return 0;
	case OPT_WIDE:
		o->wide = true;
		return 0;
	case OPT_MPI_DETAIL:
		o->mpi_detail = true;
		return 0;
	case 'h':
		o->help = true;
		return SB_OPT_STOP;
	}
	return sb_fail(err, EINVAL, "unexpected option %d", c);
}

int diff_parse_args(int argc, char **argv, struct diff_opts *o, struct sb_error *err)
{
	int r;

	*o = (struct diff_opts){ .metric = SB_DIFF_TOTAL, .max_regression = SB_DIFF_NO_GATE,
				 .format = SB_REPORT_TEXT };
	r = sb_parse_options(argc, argv, ":m:f:o:h", long_opts, parse_option, o, err);
	if (r || o->help)
		return r;
	if (argc - optind < 2)
		return sb_fail(err, EINVAL, "missing %s, the %s profile",
			       optind < argc ? "B" : "A and B",
			       optind < argc ? "new" : "baseline and the new");
	if (argc - optind > 2)
		return sb_fail(err, EINVAL, "'%s': only two files, A and B, can be compared",
			       argv[optind + 2]);
	o->path_a = argv[optind];
	o->path_b = argv[optind + 1];
	return 0;
}

/* ---- text ---- */

#define CELL_MAX (FORMAT_NS_MAX + 2)

enum col { C_CALLS_A, C_CALLS_B, C_TOTAL_A, C_TOTAL_B, C_AVG_A, C_AVG_B, C_P95_A, C_P95_B,
	   C_DELTA, C_PCT, N_COLS };

static const char *const col_titles[N_COLS] = {
	"calls A", "calls B", "total A", "total B", "avg A", "avg B", "p95 A", "p95 B",
	"delta", "delta%",
};

/* What the text fits in without --wide: a terminal's default width. */
#define TEXT_COLUMNS 80
/* A shortened name keeps at least this much, however many columns there are. */
#define NAME_MIN 16

/* Which columns a table shows and how long a region name may be. */
struct layout {
	const bool *show;	/* per column */
	size_t name_max;	/* SIZE_MAX: whole names */
};

/*
 * Without --wide: calls, the metric's own times (total for calls and events),
 * and the change; avg and p95 only when they are the metric.
 */
static void narrow_columns(bool *show, enum sb_diff_metric m)
{
	enum col times = m == SB_DIFF_AVG ? C_AVG_A : m == SB_DIFF_P95 ? C_P95_A : C_TOTAL_A;
	size_t c;

	for (c = 0; c < N_COLS; c++)
		show[c] = c == C_CALLS_A || c == C_CALLS_B || c == times || c == times + 1 ||
			  c == C_DELTA || c == C_PCT;
}

/* The room left for names on a line whose shown columns have these widths. */
static size_t name_room(const size_t *width, const bool *show, size_t n, bool wide)
{
	size_t c, used = 0;

	if (wide)
		return SIZE_MAX;
	for (c = 0; c < n; c++)
		if (show[c])
			used += width[c] + 2;
	return used + NAME_MIN < TEXT_COLUMNS ? TEXT_COLUMNS - used : NAME_MIN;
}

/* The "only in" tables show one side: calls, total, avg, p95. */
enum { N_SIDE_COLS = 4 };

static const char *const side_titles[N_SIDE_COLS] = { "calls", "total", "avg", "p95" };

static void time_cell(char *buf, int64_t ns)
{
	if (ns == SB_DIFF_UNKNOWN)
		snprintf(buf, CELL_MAX, "-");
	else
		format_ns(buf, CELL_MAX, ns);
}

/* A value of the metric: a count, or a time with its unit. */
static void metric_cell(char *buf, size_t n, int64_t v, enum sb_diff_metric m)
{
	if (v == SB_DIFF_UNKNOWN)
		snprintf(buf, n, "-");
	else if (m == SB_DIFF_CALLS || m == SB_DIFF_COUNTER)
		snprintf(buf, n, "%" PRId64, v);
	else
		format_ns(buf, n, v);
}

/* A signed change: "+1.20 ms", "-3", "0 ns"; "-" when unknown. */
static void delta_cell(char *buf, int64_t d, enum sb_diff_metric m)
{
	if (d == SB_DIFF_UNKNOWN) {
		snprintf(buf, CELL_MAX, "-");
		return;
	}
	if (d > 0) {
		buf[0] = '+';
		metric_cell(buf + 1, CELL_MAX - 1, d, m);
	} else {
		metric_cell(buf, CELL_MAX, d, m);
	}
}

static void pct_cell(char *buf, const struct sb_diff_row *r)
{
	/* No sign on what rounds to zero: "+0.0%" and "-0.0%" read as changes. */
	if (r->has_pct && r->pct > -0.05 && r->pct < 0.05)
		snprintf(buf, CELL_MAX, "0.0%%");
	else if (r->has_pct)
		snprintf(buf, CELL_MAX, "%+.1f%%", r->pct);
	else
		snprintf(buf, CELL_MAX, "%s", r->delta == SB_DIFF_UNKNOWN ? "-" : "new");
}

static void side_cells(char cells[][CELL_MAX], const struct sb_diff_side *s, size_t step)
{
	snprintf(cells[0], CELL_MAX, "%" PRIu64, s->calls);
	time_cell(cells[step], s->total);
	time_cell(cells[2 * step], s->avg);
	time_cell(cells[3 * step], s->p95);
}

static void row_cells(char cells[N_COLS][CELL_MAX], const struct sb_diff_row *r,
		      enum sb_diff_metric m)
{
	/* A and B side by side: A's values in the even columns, B's in the odd ones. */
	side_cells(cells + C_CALLS_A, &r->a, 2);
	side_cells(cells + C_CALLS_B, &r->b, 2);
	delta_cell(cells[C_DELTA], r->delta, m);
	pct_cell(cells[C_PCT], r);
}

/* Widest cell per column, titles included, so every column lines up. */
static void widen(size_t *width, char cells[][CELL_MAX], size_t n)
{
	size_t c, w;

	for (c = 0; c < n; c++) {
		w = format_width(cells[c]);
		if (w > width[c])
			width[c] = w;
	}
}

static void print_cells(FILE *f, const size_t *width, char cells[][CELL_MAX], size_t n,
			const struct layout *l, const char *name)
{
	size_t c;

	for (c = 0; c < n; c++) {
		if (!l->show[c])
			continue;
		format_right(f, cells[c], width[c]);
		fputs("  ", f);
	}
	format_cut(f, name, l->name_max);
	fputc('\n', f);
}

static void text_rows(FILE *f, const struct sb_diff *d, bool wide)
{
	static const bool all[N_COLS] = { [0 ... N_COLS - 1] = true };
	char cells[N_COLS][CELL_MAX];
	size_t width[N_COLS], c, i;
	bool narrow[N_COLS];
	struct layout l;

	for (c = 0; c < N_COLS; c++)
		width[c] = strlen(col_titles[c]);
	for (i = 0; i < d->n_rows; i++) {
		row_cells(cells, &d->rows[i], d->metric);
		widen(width, cells, N_COLS);
	}
	narrow_columns(narrow, d->metric);
	l.show = wide ? all : narrow;
	l.name_max = name_room(width, l.show, N_COLS, wide);
	for (c = 0; c < N_COLS; c++)
		snprintf(cells[c], CELL_MAX, "%s", col_titles[c]);
	print_cells(f, width, cells, N_COLS, &l, "region");
	for (i = 0; i < d->n_rows; i++) {
		row_cells(cells, &d->rows[i], d->metric);
		print_cells(f, width, cells, N_COLS, &l, d->rows[i].name);
	}
}

static const struct sb_diff_side *only_side(const struct sb_diff_row *r, bool in_a)
{
	return in_a ? &r->a : &r->b;
}

static void text_only(FILE *f, const char *which, const struct sb_diff_row *rows, size_t n,
		      bool in_a, bool wide)
{
	static const bool all[N_SIDE_COLS] = { true, true, true, true };
	struct layout l = { .show = all };
	char cells[N_SIDE_COLS][CELL_MAX];
	size_t width[N_SIDE_COLS], c, i;

	fprintf(f, "\nonly in %s: ", which);
	if (!n) {
		fputs("none\n", f);
		return;
	}
	fprintf(f, "%zu %s\n", n, format_plural(n, "region", "regions"));
	for (c = 0; c < N_SIDE_COLS; c++)
		width[c] = strlen(side_titles[c]);
	for (i = 0; i < n; i++) {
		side_cells(cells, only_side(&rows[i], in_a), 1);
		widen(width, cells, N_SIDE_COLS);
	}
	l.name_max = name_room(width, all, N_SIDE_COLS, wide);
	for (c = 0; c < N_SIDE_COLS; c++)
		snprintf(cells[c], CELL_MAX, "%s", side_titles[c]);
	print_cells(f, width, cells, N_SIDE_COLS, &l, "region");
	for (i = 0; i < n; i++) {
		side_cells(cells, only_side(&rows[i], in_a), 1);
		print_cells(f, width, cells, N_SIDE_COLS, &l, rows[i].name);
	}
}

/* The gate as a plain decimal: millionths of a percent without trailing zeros. */
static void limit_str(char *buf, size_t n, int64_t millionths)
{
	size_t len;

	len = (size_t)snprintf(buf, n, "%" PRId64 ".%06" PRId64, millionths / SB_DIFF_PCT_SCALE,
			       millionths % SB_DIFF_PCT_SCALE);
	while (len > 0 && buf[len - 1] == '0')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '.')
		buf[--len] = '\0';
}

static void text_regressions(FILE *f, const struct sb_diff *d, bool wide)
{
	char limit[48], pct[CELL_MAX], va[CELL_MAX], vb[CELL_MAX];
	const struct sb_diff_row *r;
	size_t i;

	limit_str(limit, sizeof(limit), d->max_regression);
	fprintf(f, "\nregressions over %s%% in ", limit);
	format_text(f, sb_diff_label(d));
	fputs(": ", f);
	if (!d->n_regressions) {
		fputs("none\n", f);
		return;
	}
	fprintf(f, "%zu\n", d->n_regressions);
	for (i = 0; i < d->n_rows; i++) {
		r = &d->rows[i];
		if (!r->regression)
			continue;
		pct_cell(pct, r);
		metric_cell(va, sizeof(va), sb_diff_value(&r->a, d->metric), d->metric);
		metric_cell(vb, sizeof(vb), sb_diff_value(&r->b, d->metric), d->metric);
		fputs("  ", f);
		/* The numbers after the name take at most about 40 columns. */
		format_cut(f, r->name, wide ? SIZE_MAX : TEXT_COLUMNS - 42);
		fprintf(f, "  %s (%s -> %s)\n", pct, va, vb);
	}
}

static void text_file(FILE *f, const char *label, const char *path, const struct sb_profile *p)
{
	fprintf(f, "%s  ", label);
	format_text(f, path ? path : "-");
	fputs(" (", f);
	format_text(f, p->format ? p->format : "unknown format");
	fputs(")\n", f);
}

/* How many MPI call regions became how many function rows, when any did. */
static void text_mpi(FILE *f, const struct sb_diff *d)
{
	if (!d->fns_a || (!d->fns_a->n_calls && !d->fns_b->n_calls))
		return;
	fprintf(f, "mpi    A's %zu call %s as %u %s, B's %zu as %u (--mpi-detail: each)\n",
		d->fns_a->n_calls, format_plural(d->fns_a->n_calls, "region", "regions"),
		d->fns_a->n, format_plural(d->fns_a->n, "function", "functions"),
		d->fns_b->n_calls, d->fns_b->n);
}

static void render_text(FILE *f, const struct sb_diff *d, const struct sb_profile *pa,
			const struct sb_profile *pb, const struct diff_opts *o)
{
	text_file(f, "A", o->path_a, pa);
	text_file(f, "B", o->path_b, pb);
	if (d->per_rank)
		fprintf(f, "ranks  A has %u, B has %u: calls and total are per-rank averages\n",
			d->ranks_a, d->ranks_b);
	text_mpi(f, d);
	fputs("metric ", f);
	format_text(f, sb_diff_label(d));
	fputs(": regions in both, largest change first\n\n", f);
	if (d->n_rows)
		text_rows(f, d, o->wide);
	else
		fputs("no region is in both profiles\n", f);
	text_only(f, "A", d->only_a, d->n_only_a, true, o->wide);
	text_only(f, "B", d->only_b, d->n_only_b, false, o->wide);
	if (d->max_regression != SB_DIFF_NO_GATE)
		text_regressions(f, d, o->wide);
}

/* ---- JSON ---- */

static void json_i64(FILE *f, const char *key, int64_t v)
{
	if (v == SB_DIFF_UNKNOWN)
		fprintf(f, "\"%s\": null", key);
	else
		fprintf(f, "\"%s\": %" PRId64, key, v);
}

static void json_side(FILE *f, const struct sb_diff_side *s)
{
	fprintf(f, "{\"calls\": %" PRIu64 ", ", s->calls);
	json_i64(f, "total_ns", s->total);
	fputs(", ", f);
	json_i64(f, "avg_ns", s->avg);
	fputs(", ", f);
	json_i64(f, "p95_ns", s->p95);
	/* --metric EVENT: the event's counts; absent for the time metrics. */
	if (s->counter != SB_DIFF_UNKNOWN) {
		fputs(", ", f);
		json_i64(f, "counts", s->counter);
	}
	fputc('}', f);
}

static void json_pct(FILE *f, const struct sb_diff_row *r)
{
	if (r->has_pct)
		fprintf(f, "\"delta_percent\": %.3f", r->pct);
	else
		fputs("\"delta_percent\": null", f);
}

static void json_row(FILE *f, const struct sb_diff_row *r)
{
	fputs("{\"region\": ", f);
	format_json_string(f, r->name);
	fputs(", \"a\": ", f);
	json_side(f, &r->a);
	fputs(", \"b\": ", f);
	json_side(f, &r->b);
	fputs(", ", f);
	json_i64(f, "delta", r->delta);
	fputs(", ", f);
	json_pct(f, r);
	fprintf(f, ", \"new\": %s, \"regression\": %s, \"mpi_function\": %s}",
		!r->has_pct && r->delta != SB_DIFF_UNKNOWN ? "true" : "false",
		r->regression ? "true" : "false", r->mpi_function ? "true" : "false");
}

static void json_only(FILE *f, const char *key, const struct sb_diff_row *rows, size_t n,
		      bool in_a)
{
	size_t i;

	fprintf(f, ",\n \"%s\": [", key);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		fputs("{\"region\": ", f);
		format_json_string(f, rows[i].name);
		fputs(", \"profile\": ", f);
		json_side(f, only_side(&rows[i], in_a));
		fprintf(f, ", \"mpi_function\": %s}", rows[i].mpi_function ? "true" : "false");
	}
	fputs(n ? "\n ]" : "]", f);
}

static void json_file(FILE *f, const char *key, const char *path, const struct sb_profile *p)
{
	fprintf(f, "\"%s\": {\"file\": ", key);
	format_json_string(f, path ? path : "");
	fputs(", \"format\": ", f);
	format_json_string(f, p->format ? p->format : "");
	fprintf(f, ", \"schema\": %d}", p->schema);
}

static void json_regressions(FILE *f, const struct sb_diff *d)
{
	const struct sb_diff_row *r;
	bool first = true;
	size_t i;

	fputs(",\n \"regressions\": [", f);
	for (i = 0; i < d->n_rows; i++) {
		r = &d->rows[i];
		if (!r->regression)
			continue;
		fputs(first ? "\n  " : ",\n  ", f);
		first = false;
		fputs("{\"region\": ", f);
		format_json_string(f, r->name);
		fputs(", ", f);
		json_i64(f, "delta", r->delta);
		fputs(", ", f);
		json_pct(f, r);
		fputc('}', f);
	}
	fputs(first ? "]}\n" : "\n ]}\n", f);
}

static void render_json(FILE *f, const struct sb_diff *d, const struct sb_profile *pa,
			const struct sb_profile *pb, const struct diff_opts *o)
{
	char limit[48];
	size_t i;

	fputs("{", f);
	json_file(f, "a", o->path_a, pa);
	fputs(",\n ", f);
	json_file(f, "b", o->path_b, pb);
	fprintf(f, ",\n \"ranks_a\": %u, \"ranks_b\": %u, \"per_rank\": %s, \"mpi_detail\": %s",
		d->ranks_a, d->ranks_b, d->per_rank ? "true" : "false",
		d->fns_a ? "false" : "true");
	fprintf(f, ",\n \"metric\": \"%s\", \"delta_unit\": \"%s\", \"max_regression_percent\": ",
		sb_diff_label(d), d->metric == SB_DIFF_CALLS ? "calls" :
		d->metric == SB_DIFF_COUNTER ? "count" : "ns");
	if (d->max_regression == SB_DIFF_NO_GATE) {
		fputs("null", f);
	} else {
		limit_str(limit, sizeof(limit), d->max_regression);
		fputs(limit, f);
	}
	fputs(",\n \"rows\": [", f);
	for (i = 0; i < d->n_rows; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_row(f, &d->rows[i]);
	}
	fputs(d->n_rows ? "\n ]" : "]", f);
	json_only(f, "only_in_a", d->only_a, d->n_only_a, true);
	json_only(f, "only_in_b", d->only_b, d->n_only_b, false);
	json_regressions(f, d);
}

int sb_diff_render(FILE *f, const struct sb_diff *d, const struct sb_profile *pa,
		   const struct sb_profile *pb, const struct diff_opts *o)
{
	if (o->format == SB_REPORT_JSON)
		render_json(f, d, pa, pb, o);
	else
		render_text(f, d, pa, pb, o);
	return ferror(f) ? -EIO : 0;
}

/* ---- the command ---- */

/* Write the comparison to o->output or stdout; 0, or the exit status of a failure. */
static int write_diff(const struct diff_opts *o, const struct sb_diff *d,
		      const struct sb_profile *pa, const struct sb_profile *pb)
{
	struct sb_error err = { .msg = "" };
	struct sb_output out;

	if (sb_output_open(&out, o->output, &err)) {
		fprintf(stderr, "scope-bpf diff: %s\n", err.msg);
		return 1;
	}
	return sb_output_close(&out, sb_diff_render(out.f, d, pa, pb, o), "diff");
}

/* One line for the CI log, wherever the report itself went. */
static void say_regressions(const struct sb_diff *d)
{
	char limit[48];
	size_t i, shown = 0;

	limit_str(limit, sizeof(limit), d->max_regression);
	fprintf(stderr, "scope-bpf diff: %zu %s slower by more than %s%% in ",
		d->n_regressions, format_plural(d->n_regressions, "region", "regions"), limit);
	format_text(stderr, sb_diff_label(d));
	fputc(':', stderr);
	for (i = 0; i < d->n_rows; i++) {
		if (!d->rows[i].regression)
			continue;
		fputs(shown++ ? ", " : " ", stderr);
		format_text(stderr, d->rows[i].name);
	}
	fputc('\n', stderr);
}

static int diff_profiles(const struct diff_opts *o, const struct sb_profile *pa,
			 const struct sb_profile *pb)
{
	struct sb_diff_opts dopts = {
		.metric = o->metric, .event = o->event, .max_regression = o->max_regression,
		.ranks_a = sb_report_ranks_shown(pa, -1), .ranks_b = sb_report_ranks_shown(pb, -1),
		.mpi_detail = o->mpi_detail,
	};
	struct sb_error err = { .msg = "" };
	struct sb_diff d;
	int r;

	r = sb_diff_build_opts(&d, pa, pb, &dopts, &err);
	if (r) {
		sb_diff_free(&d);
		fprintf(stderr, "scope-bpf diff: %s\n", err.msg[0] ? err.msg : strerror(-r));
		return r == -EINVAL ? SB_EXIT_USAGE : 1;
	}
	/* On stderr too: a JSON consumer or a CI log must not miss it. */
	if (d.per_rank)
		fprintf(stderr, "scope-bpf diff: warning: A has %u %s, B has %u: comparing "
			"per-rank averages of calls and total\n", d.ranks_a,
			format_plural(d.ranks_a, "rank", "ranks"), d.ranks_b);
	r = write_diff(o, &d, pa, pb);
	if (!r && d.n_regressions) {
		say_regressions(&d);
		r = 1;
	}
	sb_diff_free(&d);
	return r;
}

int cmd_diff(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct sb_profile pa, pb;
	struct diff_opts o;
	int r = SB_EXIT_USAGE;

	r = diff_parse_args(argc, argv, &o, &err);
	if (r || o.help) {
		sb_filter_free(&o.filter);
		if (r)
			return sb_usage_error("diff", err.msg);
		usage(stdout);
		return 0;
	}
	r = SB_EXIT_USAGE;
	/* B is freed below even when A fails and B is never read. */
	sb_profile_init(&pb);
	if (sb_load_profile("diff", o.path_a, &pa) >= 0 &&
	    sb_load_profile("diff", o.path_b, &pb) >= 0) {
		r = sb_filter_profile("diff", o.path_a, &o.filter, &pa);
		if (!r)
			r = sb_filter_profile("diff", o.path_b, &o.filter, &pb);
		if (!r)
			r = diff_profiles(&o, &pa, &pb);
	}
	sb_profile_free(&pa);
	sb_profile_free(&pb);
	sb_filter_free(&o.filter);
	return r;
}
