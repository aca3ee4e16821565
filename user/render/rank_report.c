/* `report --per-rank` as text, JSON and CSV. */
#include <errno.h>
#include <inttypes.h>

#include "render/rank_report.h"
#include "util/text_format.h"

/* What the text fits in without --wide: a terminal's default width. */
#define TEXT_COLUMNS 80
/* max/mean and slowest before the rank columns, each rank's column, the name's least room. */
#define LEFT 18
#define CELL 10
#define NAME_MIN 20

/* Cell (row, column) as o->rank_value says: "-" without a call, "?" for an unknown own time. */
static void text_cell(char *buf, size_t size, const struct sb_rank_matrix *m, size_t row,
		      uint32_t column, enum sb_rank_value value)
{
	size_t k = row * m->n_ranks + column;

	if (!m->calls[k])
		snprintf(buf, size, "-");
	else if (value == SB_RANK_RELATIVE)
		snprintf(buf, size, "%.2fx", sb_rank_cell_relative(m, row, column));
	else if (value == SB_RANK_OWN && m->own[k] < 0)
		snprintf(buf, size, "?");
	else
		format_ns(buf, size, value == SB_RANK_OWN ? m->own[k] : m->time[k]);
}

/* One block of rank columns from..to-1, every region a row. */
static void text_block(FILE *f, const struct sb_profile *p, const struct sb_rank_matrix *m,
		       uint32_t from, uint32_t to, const struct report_opts *o)
{
	char t[FORMAT_NS_MAX];
	uint32_t c;
	size_t i;

	fprintf(f, "%9s %8s", "max/mean", "slowest");
	for (c = from; c < to; c++) {
		snprintf(t, sizeof(t), "rank %u", m->ranks[c]);
		fprintf(f, " %9s", t);
	}
	fputs("  region\n", f);
	for (i = 0; i < m->n_rows; i++) {
		const struct sb_rank_row *r = &m->rows[i];

		fprintf(f, "%9.3f %8u", r->ratio, r->slowest);
		for (c = from; c < to; c++) {
			text_cell(t, sizeof(t), m, i, c, o->rank_value);
			fprintf(f, " %9s", t);
		}
		fputs("  ", f);
		format_cut(f, sb_rank_row_name(m, p, r),
			   o->wide ? SIZE_MAX : TEXT_COLUMNS - LEFT - 2 - (to - from) * CELL);
		fputc('\n', f);
	}
}

static void render_text(FILE *f, const struct sb_profile *p, const struct sb_rank_matrix *m,
			const struct report_opts *o)
{
	uint32_t per = o->wide ? m->n_ranks : (TEXT_COLUMNS - LEFT - 2 - NAME_MIN) / CELL, from;

	sb_report_file_line(f, p, o);
	fprintf(f, "ranks     %u, %zu %s (MPI calls per function)\n", m->n_ranks, m->n_rows,
		format_plural(m->n_rows, "region", "regions"));
	if (m->clamped)
		fprintf(f, "          %" PRIu64 " index %s with a negative or overflowing total "
			"(read as 0, or held at the largest time)\n", m->clamped,
			format_plural(m->clamped, "row", "rows"));
	fputs(o->rank_value == SB_RANK_RELATIVE ?
	      "\ninclusive time per rank over the region's mean over the ranks (-: no call),\n" :
	      o->rank_value == SB_RANK_OWN ?
	      "\nown time per rank, less the regions called inside (-: no call, ?: unknown),\n" :
	      "\ninclusive time per rank (-: no call),\n", f);
	fputs("max over the mean of every rank shown (inclusive), the slowest rank; the most\n"
	      "total time first\n", f);
	if (!m->n_rows) {
		fputs("no calls\n", f);
		return;
	}
	for (from = 0; from < m->n_ranks; from += per) {
		if (from)
			fputc('\n', f);
		text_block(f, p, m, from, m->n_ranks - from < per ? m->n_ranks : from + per, o);
	}
}

void sb_rank_json_cells(FILE *f, const char *key, const int64_t *v, uint32_t n, bool own)
{
	uint32_t c;

	fprintf(f, ", \"%s\": [", key);
	for (c = 0; c < n; c++) {
		fputs(c ? ", " : "", f);
		if (own && v[c] < 0)
			fputs("null", f);
		else
			fprintf(f, "%" PRId64, v[c]);
	}
	fputc(']', f);
}

static void render_json(FILE *f, const struct sb_profile *p, const struct sb_rank_matrix *m,
			const struct report_opts *o)
{
	uint32_t c;
	size_t i;

	fputs("{\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(", \"ranks\": [", f);
	for (c = 0; c < m->n_ranks; c++)
		fprintf(f, "%s%u", c ? ", " : "", m->ranks[c]);
	fprintf(f, "], \"clamped_rows\": %" PRIu64 ",\n \"regions\": [", m->clamped);
	for (i = 0; i < m->n_rows; i++) {
		const struct sb_rank_row *r = &m->rows[i];

		fprintf(f, "%s{\"region\": ", i ? ",\n  " : "\n  ");
		format_json_string(f, sb_rank_row_name(m, p, r));
		fprintf(f, ", \"mpi_function\": %s, \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64
			", \"max_ns\": %" PRId64 ", \"mean_ns\": %.1f, \"imbalance\": %.6f"
			", \"slowest_rank\": %u", r->fn >= 0 ? "true" : "false", r->calls, r->total,
			r->max, r->mean, r->ratio, r->slowest);
		sb_rank_json_cells(f, "time_ns", &m->time[i * m->n_ranks], m->n_ranks, false);
		sb_rank_json_cells(f, "own_ns", &m->own[i * m->n_ranks], m->n_ranks, true);
		fputs(", \"calls_per_rank\": [", f);
		for (c = 0; c < m->n_ranks; c++)
			fprintf(f, "%s%" PRIu64, c ? ", " : "", m->calls[i * m->n_ranks + c]);
		fputs("]}", f);
	}
	fputs("]}\n", f);
}

static void render_csv(FILE *f, const struct sb_profile *p, const struct sb_rank_matrix *m)
{
	uint32_t c;
	size_t i, k;

	fputs("region,rank,calls,time_ns,own_ns,relative\n", f);
	for (i = 0; i < m->n_rows; i++)
		for (c = 0; c < m->n_ranks; c++) {
			k = i * m->n_ranks + c;
			format_csv_field(f, sb_rank_row_name(m, p, &m->rows[i]));
			fprintf(f, ",%u,%" PRIu64 ",%" PRId64 ",", m->ranks[c], m->calls[k],
				m->time[k]);
			if (m->own[k] >= 0)
				fprintf(f, "%" PRId64, m->own[k]);
			fprintf(f, ",%.6f\n", sb_rank_cell_relative(m, i, c));
		}
}

int sb_rank_report_render(FILE *f, const struct sb_profile *p, const struct sb_rank_matrix *m,
			  const struct report_opts *o)
{
	if (o->format == SB_REPORT_JSON)
		render_json(f, p, m, o);
	else if (o->format == SB_REPORT_CSV)
		render_csv(f, p, m);
	else
		render_text(f, p, m, o);
	return ferror(f) ? -EIO : 0;
}
