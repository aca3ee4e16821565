/* The HTML report's rank heat map and calls over the run, as members of its data object. */
#include <errno.h>
#include <inttypes.h>

#include "analysis/call_series.h"
#include "analysis/counters.h"
#include "analysis/rank_matrix.h"
#include "render/html_views.h"
#include "render/rank_report.h"
#include "util/text_format.h"

/* A row's MPI function name, which the page shows instead of its first region's. */
static void json_fn(FILE *j, const struct sb_mpi_fns *f, int32_t fn)
{
	if (fn < 0)
		return;
	fputs(", \"name\": ", j);
	format_json_string(j, f->name[fn]);
}

int sb_html_rank_matrix(FILE *j, const struct sb_profile *p, int64_t rank)
{
	struct sb_rank_matrix m;
	const struct sb_rank_row *r;
	size_t i, n;
	uint32_t c;
	int ret;

	if (rank >= 0)
		return 0;
	/* A map too large to read gets no section, as a one-rank profile does. */
	ret = sb_rank_matrix_build(&m, p, NULL);
	if (ret)
		return ret == -EFBIG ? 0 : ret;
	if (m.n_ranks < 2) {
		sb_rank_matrix_free(&m);
		return 0;
	}
	n = m.n_rows < SB_HTML_MAX_RANK_ROWS ? m.n_rows : SB_HTML_MAX_RANK_ROWS;
	fprintf(j, ",\n\"rank_matrix\": {\"total_rows\": %zu, \"ranks\": [", m.n_rows);
	for (c = 0; c < m.n_ranks; c++)
		fprintf(j, "%s%u", c ? "," : "", m.ranks[c]);
	fputs("], \"rows\": [", j);
	for (i = 0; i < n; i++) {
		r = &m.rows[i];
		fprintf(j, "%s{\"region\": %u", i ? ",\n " : "\n ", r->region);
		json_fn(j, &m.fns, r->fn);
		fprintf(j, ", \"calls\": %" PRIu64 ", \"total\": %" PRId64 ", \"max\": %" PRId64
			", \"mean\": %.1f, \"slowest\": %u, \"ratio\": %.6f", r->calls, r->total,
			r->max, r->mean, r->slowest, r->ratio);
		sb_rank_json_cells(j, "time", &m.time[i * m.n_ranks], m.n_ranks, false);
		sb_rank_json_cells(j, "own", &m.own[i * m.n_ranks], m.n_ranks, true);
		fputs(", \"n\": [", j);
		for (c = 0; c < m.n_ranks; c++)
			fprintf(j, "%s%" PRIu64, c ? "," : "", m.calls[i * m.n_ranks + c]);
		fputs("]}", j);
	}
	fputs("]}", j);
	sb_rank_matrix_free(&m);
	return 0;
}

void sb_html_durations_row(FILE *j, uint32_t region, const char *fn, size_t n, const int64_t *q,
			   const uint64_t *bins, int n_bins, bool first)
{
	bool any = false;
	int b;

	fprintf(j, "%s{\"region\": %u, ", first ? "\n " : ",\n ", region);
	if (fn) {
		fputs("\"name\": ", j);
		format_json_string(j, fn);
		fputs(", ", j);
	}
	fprintf(j, "\"n\": %zu, \"q\": [", n);
	for (b = 0; b < SB_SERIES_QUANTILES; b++)
		fprintf(j, "%s%" PRId64, b ? ", " : "", q[b]);
	fputs("], \"hist\": [", j);
	for (b = 0; b < n_bins; b++) {
		if (!bins[b])
			continue;
		fprintf(j, "%s[%d, %" PRIu64 "]", any ? ", " : "", b, bins[b]);
		any = true;
	}
	fputs("]}", j);
}

int sb_html_agg_durations(FILE *j, const struct sb_profile *p, int64_t rank)
{
	struct sb_series_opts o = { .rank = rank, .metric = SB_SERIES_DURATION, .windows = 1 };
	struct sb_series_set set;
	const struct sb_series *s;
	size_t i;

	if (sb_series_build(&set, p, &o, NULL))
		return -ENOMEM;
	fputs(",\n\"hist_log2\": true, \"durations\": [", j);
	for (i = 0; i < set.n; i++) {
		s = &set.s[i];
		sb_html_durations_row(j, s->region, s->fn < 0 ? NULL : set.fns.name[s->fn], s->calls,
				      s->q, s->hist, SB_AGG_BUCKETS, i == 0);
	}
	fputc(']', j);
	sb_series_free(&set);
	return 0;
}

/* One region's windows as columns: start (after the set's t0), calls, min, median, max. */
static void json_windows(FILE *j, const struct sb_series *s)
{
	static const char *const keys[] = { "start", "n", "min", "med", "max" };
	const struct sb_series_window *w;
	size_t k, i;
	int64_t v;

	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		fprintf(j, ", \"%s\": [", keys[k]);
		for (i = 0; i < s->n_windows; i++) {
			w = &s->windows[i];
			v = k == 0 ? (int64_t)(w->start > INT64_MAX ? INT64_MAX : w->start) :
			    k == 1 ? (int64_t)w->calls : k == 2 ? w->min : k == 3 ? w->median : w->max;
			fprintf(j, "%s%" PRId64, i ? "," : "", v);
		}
		fputc(']', j);
	}
}

/* One value's series: {"name", "unit", "t0", "span", "width", "regions": [...]}. */
static int json_metric(FILE *j, const struct sb_profile *p, int64_t rank, uint32_t metric,
		       const char *name, bool first)
{
	struct sb_series_opts o = { .rank = rank, .metric = metric,
				    .windows = SB_HTML_SERIES_WINDOWS,
				    .max_points = SB_HTML_SERIES_POINTS };
	struct sb_series_set set;
	const struct sb_series *s;
	size_t i;

	if (sb_series_build(&set, p, &o, NULL))
		return -ENOMEM;
	fputs(first ? "\n {\"name\": " : ",\n {\"name\": ", j);
	format_json_string(j, name);
	fprintf(j, ", \"unit\": \"%s\", \"t0\": %" PRId64 ", \"span\": %" PRIu64 ", \"width\": %"
		PRIu64 ", \"points\": %d, \"total_regions\": %zu, \"regions\": [",
		metric == SB_SERIES_DURATION ? "ns" : "count", set.t0, set.span, set.width,
		SB_HTML_SERIES_POINTS, set.n);
	for (i = 0; i < set.n && i < SB_HTML_MAX_SERIES; i++) {
		s = &set.s[i];
		fprintf(j, "%s{\"region\": %u", i ? ",\n  " : "\n  ", s->region);
		json_fn(j, &set.fns, s->fn);
		fprintf(j, ", \"calls\": %" PRIu64 ", \"total\": %" PRId64 ", \"per_call\": %s",
			s->calls, s->total, s->per_call ? "true" : "false");
		json_windows(j, s);
		fputc('}', j);
	}
	fputs("]}", j);
	sb_series_free(&set);
	return 0;
}

int sb_html_series(FILE *j, const struct sb_profile *p, int64_t rank)
{
	struct sb_counter_report c = { 0 };
	unsigned k;
	int r;

	if (p->agg.on) {
		if (!p->agg.window_ns)
			return 0;
		fputs(",\n\"series\": [", j);
		r = json_metric(j, p, rank, SB_SERIES_DURATION, "duration", true);
		fputs("]", j);
		return r;
	}
	if (!p->events)
		return 0;
	if ((p->columns & SB_COL_METRIC(SB_METRIC_COUNTER)) &&
	    sb_counter_report_build(&c, p, rank, false, NULL)) {
		sb_counter_report_free(&c);
		return -ENOMEM;
	}
	fputs(",\n\"series\": [", j);
	r = json_metric(j, p, rank, SB_SERIES_DURATION, "duration", true);
	for (k = 0; !r && k < c.n; k++)
		r = json_metric(j, p, rank, SB_METRIC_COUNTER + k, c.names[k], false);
	fputs("]", j);
	sb_counter_report_free(&c);
	return r;
}
