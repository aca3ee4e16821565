/* `report --durations` as text, JSON and CSV. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "render/series_report.h"
#include "util/text_format.h"

#define NAME 20

/* Eight heights of a median within its region's range of medians. */
static const char *const levels[] = { "\u2581", "\u2582", "\u2583", "\u2584",
				      "\u2585", "\u2586", "\u2587", "\u2588" };

/* The median of each window as a bar of eight heights, a blank where no call started. */
static void text_line(FILE *f, const struct sb_series_set *set, const struct sb_series *s)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	char a[FORMAT_NS_MAX], b[FORMAT_NS_MAX];
	size_t i, w = 0;
	uint64_t k;

	for (i = 0; i < s->n_windows; i++) {
		lo = s->windows[i].median < lo ? s->windows[i].median : lo;
		hi = s->windows[i].median > hi ? s->windows[i].median : hi;
	}
	fputs("  ", f);
	for (k = 0; k < SB_SERIES_REPORT_WINDOWS; k++) {
		if (w < s->n_windows && s->windows[w].start / set->width == k) {
			/* In double: hi - lo may not fit an int64. */
			fputs(levels[hi > lo ? (int)(((double)s->windows[w].median - (double)lo) * 7.0 /
						     ((double)hi - (double)lo) + 0.5) : 0], f);
			w++;
		} else {
			fputc(' ', f);
		}
	}
	format_ns(a, sizeof(a), lo);
	format_ns(b, sizeof(b), hi);
	fprintf(f, "  median %s .. %s\n", a, b);
}

/* A name in NAME columns, cut in the middle when longer (whole with --wide). */
static void name_cell(FILE *f, const char *name, bool wide)
{
	if (wide || format_width(name) <= NAME)
		format_left(f, name, NAME);
	else
		format_cut(f, name, NAME);
}

static void text_row(FILE *f, const struct sb_profile *p, const struct sb_series_set *set,
		     const struct sb_series *s, bool wide)
{
	static const int shown[] = { 0, 2, 4, 5, 6 };	/* min, median, p90, p99, max */
	char t[FORMAT_NS_MAX];
	size_t i;

	name_cell(f, sb_series_name(set, p, s), wide);
	fprintf(f, "%8" PRIu64, s->calls);
	for (i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		format_ns(t, sizeof(t), s->q[shown[i]]);
		fprintf(f, " %9s", t);
	}
	fputc('\n', f);
	text_line(f, set, s);
}

static void render_text(FILE *f, const struct sb_profile *p, const struct sb_series_set *set,
			const struct report_opts *o)
{
	char w[FORMAT_NS_MAX];
	size_t i, shown;

	sb_report_file_line(f, p, o);
	format_ns(w, sizeof(w), set->width > INT64_MAX ? INT64_MAX : (int64_t)set->width);
	if (p->agg.on)
		fprintf(f, "windows   %s from the first recorded (record --aggregate's, merged to at "
			"most %d;\n          an aggregate keeps sums: each window's mean stands for "
			"its median,\n          the quantiles are bounds of log2 buckets)\n", w,
			SB_SERIES_REPORT_WINDOWS);
	else
		fprintf(f, "windows   %d of %s from the first call (MPI calls per function)\n",
			SB_SERIES_REPORT_WINDOWS, w);
	if (set->dropped)
		fprintf(f, "          %" PRIu64 " %s ending before %s start left out\n",
			set->dropped, format_plural(set->dropped, "call", "calls"),
			set->dropped == 1 ? "its" : "their");
	shown = set->n < o->top ? set->n : o->top;
	fprintf(f, "\ncall durations of the %zu %s with the most time; below each, the median\n"
		"duration of its calls started in each window (\u2581 lowest .. \u2588 highest, "
		"blank: none)\n", shown, format_plural(shown, "region", "regions"));
	fprintf(f, "%-*s%8s %9s %9s %9s %9s %9s\n", NAME, "region", "calls", "min", "median",
		"p90", "p99", "max");
	if (!set->n)
		fputs("no calls\n", f);
	for (i = 0; i < set->n && i < o->top; i++)
		text_row(f, p, set, &set->s[i], o->wide);
	if (set->n > o->top)
		fprintf(f, "(%zu more: --top N)\n", set->n - o->top);
}

static void render_json(FILE *f, const struct sb_profile *p, const struct sb_series_set *set,
			const struct report_opts *o)
{
	const struct sb_series_window *w;
	size_t i, k;

	fputs("{\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fprintf(f, ", \"t0_ns\": %" PRId64 ", \"window_ns\": %" PRIu64 ", \"windows\": %d"
		", \"dropped_calls\": %" PRIu64 ",\n \"regions\": [", set->t0, set->width,
		SB_SERIES_REPORT_WINDOWS, set->dropped);
	for (i = 0; i < set->n; i++) {
		const struct sb_series *s = &set->s[i];

		fprintf(f, "%s{\"region\": ", i ? ",\n  " : "\n  ");
		format_json_string(f, sb_series_name(set, p, s));
		fprintf(f, ", \"mpi_function\": %s, \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64
			", \"quantiles_ns\": [", s->fn >= 0 ? "true" : "false", s->calls, s->total);
		for (k = 0; k < SB_SERIES_QUANTILES; k++)
			fprintf(f, "%s%" PRId64, k ? ", " : "", s->q[k]);
		fputs("], \"windows\": [", f);
		for (k = 0; k < s->n_windows; k++) {
			w = &s->windows[k];
			fprintf(f, "%s{\"start_ns\": %" PRIu64 ", \"calls\": %" PRIu64 ", \"min_ns\": %"
				PRId64 ", \"median_ns\": %" PRId64 ", \"max_ns\": %" PRId64 "}",
				k ? ", " : "", w->start, w->calls, w->min, w->median, w->max);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}

static void render_csv(FILE *f, const struct sb_profile *p, const struct sb_series_set *set)
{
	const struct sb_series_window *w;
	size_t i, k;

	fputs("region,window_start_ns,calls,min_ns,median_ns,max_ns\n", f);
	for (i = 0; i < set->n; i++)
		for (k = 0; k < set->s[i].n_windows; k++) {
			w = &set->s[i].windows[k];
			format_csv_field(f, sb_series_name(set, p, &set->s[i]));
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n",
				w->start, w->calls, w->min, w->median, w->max);
		}
}

int sb_series_report_render(FILE *f, const struct sb_profile *p, const struct sb_series_set *set,
			    const struct report_opts *o)
{
	if (o->format == SB_REPORT_JSON)
		render_json(f, p, set, o);
	else if (o->format == SB_REPORT_CSV)
		render_csv(f, p, set);
	else
		render_text(f, p, set, o);
	return ferror(f) ? -EIO : 0;
}
