/* `report --counters` as text, JSON and CSV. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/counters_report.h"
#include "render/report_views.h"
#include "util/text_format.h"

/* Columns of an event's or ratio's name as shown (escaped), at least 12. */
static int width_of(const char *name)
{
	int n = (int)format_width(name);

	return n > 12 ? n : 12;
}

static void text_ratio(FILE *f, const struct sb_counter_report *r, unsigned k,
		       const struct sb_counter_row *row)
{
	double v = sb_counter_ratio_value(r, k, row);
	int w = width_of(r->ratios[k].name);

	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, r->ratios[k].percent ? 1 : 2, v);
}

/* What the text fits in without --wide: a terminal's default width. */
#define TEXT_COLUMNS 80
/* calls and unknown, before the events. */
#define LEFT 17
/* Room a region name keeps when events are split over tables; at least NAME_MIN. */
#define NAME_ROOM 24
#define NAME_MIN 16

/* The counts of event i and its own counts, or ratio k - n: one item of a table. */
static int item_width(const struct sb_counter_report *r, unsigned item)
{
	char own[SB_EVENT_NAME_LEN + 8];

	if (item >= r->n)
		return 1 + width_of(r->ratios[item - r->n].name);
	snprintf(own, sizeof(own), "own %s", r->names[item]);
	return 2 + width_of(r->names[item]) + width_of(own);
}

static void text_head(FILE *f, const struct sb_counter_report *r, unsigned from, unsigned to)
{
	char own[SB_EVENT_NAME_LEN + 8];
	unsigned i;

	fprintf(f, "%8s %8s", "calls", "unknown");
	for (i = from; i < to && i < r->n; i++) {
		snprintf(own, sizeof(own), "own %s", r->names[i]);
		fputc(' ', f);
		format_right(f, r->names[i], (size_t)width_of(r->names[i]));
		fputc(' ', f);
		format_right(f, own, (size_t)width_of(own));
	}
	for (i = from > r->n ? from : r->n; i < to; i++) {
		fputc(' ', f);
		format_right(f, r->ratios[i - r->n].name, (size_t)width_of(r->ratios[i - r->n].name));
	}
	fputs("  region\n", f);
}

static void text_row(FILE *f, const struct sb_counter_report *r,
		     const struct sb_counter_row *row, unsigned from, unsigned to)
{
	char own[SB_EVENT_NAME_LEN + 8];
	unsigned i;

	fprintf(f, "%8" PRIu64 " %8" PRIu64, row->calls, row->unknown);
	for (i = from; i < to && i < r->n; i++) {
		snprintf(own, sizeof(own), "own %s", r->names[i]);
		fprintf(f, " %*" PRIu64 " %*" PRIu64, width_of(r->names[i]), row->incl[i],
			width_of(own), row->excl[i]);
	}
	for (i = from > r->n ? from : r->n; i < to; i++)
		text_ratio(f, r, i - r->n, row);
	fputs("  ", f);
}

/* Items from..to-1 (events, then ratios) as one table, names cut to fit unless wide. */
static void text_table(FILE *f, const struct sb_counter_report *r, unsigned from, unsigned to,
		       bool wide)
{
	size_t used = LEFT + 2, j;
	unsigned i;

	for (i = from; i < to; i++)
		used += (size_t)item_width(r, i);
	text_head(f, r, from, to);
	for (j = 0; j < r->n_rows; j++) {
		text_row(f, r, &r->rows[j], from, to);
		format_cut(f, r->rows[j].name,
			   wide ? SIZE_MAX :
			   used + NAME_MIN < TEXT_COLUMNS ? TEXT_COLUMNS - used : NAME_MIN);
		fputc('\n', f);
	}
}

/*
 * One table with --wide; else the events and ratios split over as many tables
 * as it takes for each to fit 80 columns, calls and region repeated in each.
 */
static void render_text(FILE *f, const struct sb_counter_report *r, bool wide)
{
	unsigned n_items = r->n + r->n_ratios, from, to;
	int room = TEXT_COLUMNS - LEFT - 2 - NAME_ROOM, used;

	fputs("counters per region: the calls' counts (children included) and own counts (less\n"
	      "the regions called inside); unknown: calls begun before their thread had\n"
	      "counters\n", f);
	for (from = 0; from < n_items; from = to) {
		used = item_width(r, from);
		for (to = from + 1; to < n_items && (wide || used + item_width(r, to) <= room); to++)
			used += item_width(r, to);
		if (from)
			fputc('\n', f);
		text_table(f, r, from, to, wide);
	}
}

static void json_number(FILE *f, double v)
{
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void render_json(FILE *f, const struct sb_counter_report *r, const struct report_opts *o)
{
	const struct sb_counter_row *row;
	unsigned i, k;
	size_t j;

	fputs("{\"file\":", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(",\"events\":[", f);
	for (i = 0; i < r->n; i++) {
		fputs(i ? "," : "", f);
		format_json_string(f, r->names[i]);
	}
	fputs("],\"regions\":[", f);
	for (j = 0; j < r->n_rows; j++) {
		row = &r->rows[j];
		fputs(j ? ",\n{\"region\":" : "\n{\"region\":", f);
		format_json_string(f, row->name);
		fprintf(f, ",\"calls\":%" PRIu64 ",\"unknown_calls\":%" PRIu64 ",\"counters\":{",
			row->calls, row->unknown);
		for (i = 0; i < r->n; i++) {
			fputs(i ? "," : "", f);
			format_json_string(f, r->names[i]);
			fprintf(f, ":{\"total\":%" PRIu64 ",\"own\":%" PRIu64 "}", row->incl[i],
				row->excl[i]);
		}
		fputs("},\"ratios\":{", f);
		for (k = 0; k < r->n_ratios; k++) {
			fputs(k ? "," : "", f);
			format_json_string(f, r->ratios[k].name);
			fputc(':', f);
			json_number(f, sb_counter_ratio_value(r, k, row));
		}
		fputs("}}", f);
	}
	fputs("\n]}\n", f);
}

static void render_csv(FILE *f, const struct sb_counter_report *r)
{
	const struct sb_counter_row *row;
	char own[SB_EVENT_NAME_LEN + 8];
	unsigned i, k;
	size_t j;
	double v;

	fputs("region,calls,unknown_calls", f);
	for (i = 0; i < r->n; i++) {
		fputc(',', f);
		format_csv_field(f, r->names[i]);
		snprintf(own, sizeof(own), "own %s", r->names[i]);
		fputc(',', f);
		format_csv_field(f, own);
	}
	for (k = 0; k < r->n_ratios; k++) {
		fputc(',', f);
		format_csv_field(f, r->ratios[k].name);
	}
	fputc('\n', f);
	for (j = 0; j < r->n_rows; j++) {
		row = &r->rows[j];
		format_csv_field(f, row->name);
		fprintf(f, ",%" PRIu64 ",%" PRIu64, row->calls, row->unknown);
		for (i = 0; i < r->n; i++)
			fprintf(f, ",%" PRIu64 ",%" PRIu64, row->incl[i], row->excl[i]);
		for (k = 0; k < r->n_ratios; k++) {
			v = sb_counter_ratio_value(r, k, row);
			if (isnan(v))
				fputc(',', f);
			else
				fprintf(f, ",%.6g", v);
		}
		fputc('\n', f);
	}
}

int sb_counter_report_render(FILE *f, const struct sb_counter_report *r,
			     const struct report_opts *o)
{
	if (o->format == SB_REPORT_JSON)
		render_json(f, r, o);
	else if (o->format == SB_REPORT_CSV)
		render_csv(f, r);
	else
		render_text(f, r, o->wide);
	return ferror(f) ? -EIO : 0;
}

/* ---- the view: --counters ---- */

static int counters_require(const struct sb_profile *p, const struct report_opts *o,
			    struct sb_error *err)
{
	(void)o;
	if (sb_profile_counter_slots(p) || sb_aggregate_has(&p->agg, SB_METRIC_COUNTER))
		return 0;
	return sb_fail(err, EINVAL, "the profile has no counters: record with -e or -g");
}

static int counters_build(void **state, const struct sb_profile *p, const struct report_opts *o,
			  struct sb_error *err)
{
	struct sb_counter_report *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return -ENOMEM;
	r = sb_counter_report_build(c, p, o->rank, o->mpi_detail, err);
	if (r) {
		sb_counter_report_free(c);
		free(c);
		return r;
	}
	*state = c;
	return 0;
}

static int counters_render(FILE *f, const struct sb_profile *p, const void *state,
			   const struct report_opts *o)
{
	(void)p;
	return sb_counter_report_render(f, state, o);
}

static void counters_release(void *state)
{
	if (!state)
		return;
	sb_counter_report_free(state);
	free(state);
}

const struct sb_report_view sb_counters_report_view = {
	.option = "counters",
	.help = "      --counters      the counters recorded with record -e instead: per region\n"
		"                      (MPI calls per function, --mpi-detail: per call region)\n"
		"                      the calls' totals and own counts, IPC and miss ratios\n"
		"                      when their events were counted (docs/COUNTERS.md)\n",
	.html_note = "",
	.require = counters_require,
	.build = counters_build,
	.render = counters_render,
	.release = counters_release,
};
