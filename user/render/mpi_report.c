/* `report --mpi` as text, JSON and CSV. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "render/mpi_report.h"
#include "render/report_views.h"
#include "util/text_format.h"

#define CELL 48
/* What the text fits in without --wide: a terminal's default width. */
#define TEXT_COLUMNS 80
/* Columns before the region name in the operations and imbalance tables. */
#define OPS_LEFT 60
#define IMB_LEFT 46
#define VAR_LEFT 46
/* Columns of the matrix: the sender's, and each receiver's. */
#define MATRIX_LEFT 9
#define MATRIX_CELL 19

/* A name in the room left of an 80-column line, or whole with --wide. */
static void text_name(FILE *f, const char *name, size_t left, bool wide)
{
	format_cut(f, name, wide ? SIZE_MAX : TEXT_COLUMNS - left);
	fputc('\n', f);
}

static const char *region_name(const struct sb_profile *p, uint32_t region)
{
	return region == SB_MPI_TOP ? "(outside every region)" : p->regions[region].name;
}

static void text_ops(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r,
		     bool wide)
{
	char t[CELL], pct[CELL];
	size_t i;

	fputs("per operation and enclosing region (%region: of the region's inclusive time)\n", f);
	fprintf(f, "%-12s %8s %14s %12s %8s  %s\n", "operation", "calls", "bytes", "time",
		"%region", "region");
	for (i = 0; i < r->n_ops; i++) {
		const struct sb_mpi_op_row *o = &r->ops[i];

		format_ns(t, sizeof(t), o->time);
		if (o->region_total > 0)
			format_pct(pct, sizeof(pct), o->time, o->region_total);
		else
			strcpy(pct, "-");
		format_left(f, o->op, 12);
		fprintf(f, " %8" PRIu64 " %14" PRId64 " %12s %8s  ", o->calls, o->bytes, t, pct);
		text_name(f, region_name(p, o->region), OPS_LEFT, wide);
	}
}

static void text_ranks(FILE *f, const struct sb_mpi_report *r)
{
	char t[CELL];
	uint32_t k;

	fputs("\nMPI time per rank\nrank          time\n", f);
	for (k = 0; k < r->n_ranks; k++) {
		format_ns(t, sizeof(t), r->rank_time[k]);
		fprintf(f, "%4u  %12s\n", k, t);
	}
}

/* An imbalance row's name: its region's, or its MPI function's ("mpi:recv"). */
static const char *imb_name(const struct sb_profile *p, const struct sb_mpi_report *r,
			    const struct sb_mpi_imbalance *m)
{
	return m->fn >= 0 ? r->fns.name[m->fn] : p->regions[m->region].name;
}

static void text_imbalance(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r,
			   bool wide)
{
	char mx[CELL], mean[CELL];
	size_t i;

	fputs("\nload imbalance: per-rank totals of each region and MPI function, max over mean\n"
	      "of every rank\n", f);
	fprintf(f, "%9s %12s %12s %8s  %s\n", "max/mean", "max", "mean", "slowest", "region");
	for (i = 0; i < r->n_imb; i++) {
		const struct sb_mpi_imbalance *m = &r->imb[i];

		format_ns(mx, sizeof(mx), m->max);
		format_ns(mean, sizeof(mean), (int64_t)(m->mean + 0.5));
		fprintf(f, "%9.3f %12s %12s %8u  ", m->ratio, mx, mean, m->slowest);
		text_name(f, imb_name(p, r, m), IMB_LEFT, wide);
	}
}

/* "2", "0-3", or "5 ranks" where they are not one run. */
static void rank_cell(char *buf, const struct sb_mpi_variant *v)
{
	if (v->n_ranks == 1)
		snprintf(buf, CELL, "%u", v->lowest);
	else if (v->highest - v->lowest + 1 == v->n_ranks)
		snprintf(buf, CELL, "%u-%u", v->lowest, v->highest);
	else
		snprintf(buf, CELL, "%u ranks", v->n_ranks);
}

/* The details of the function rows: each call region's arguments, calls and ranks. */
static void text_variants(FILE *f, const struct sb_mpi_report *r, bool wide)
{
	char t[CELL], ranks[CELL];
	size_t i;

	fputs("\ncalls by arguments: each MPI call region of each function, most time first\n", f);
	fprintf(f, "%-12s %8s %12s %9s  %s\n", "operation", "calls", "time", "ranks", "arguments");
	for (i = 0; i < r->n_variants; i++) {
		const struct sb_mpi_variant *v = &r->variants[i];

		format_ns(t, sizeof(t), v->time);
		rank_cell(ranks, v);
		/* Without "mpi:", as the operations table writes them. */
		format_left(f, r->fns.name[v->fn] + 4, 12);
		fprintf(f, " %8" PRIu64 " %12s %9s  ", v->calls, t, ranks);
		text_name(f, r->fns.detail[v->region], VAR_LEFT, wide);
	}
}

/* The matrix's receivers from..to-1, every sender a row. */
static void text_matrix_block(FILE *f, const struct sb_mpi_report *r, uint32_t from, uint32_t to)
{
	char cell[CELL];
	uint32_t a, b;

	fprintf(f, "%9s", "from\\to");
	for (b = from; b < to; b++)
		fprintf(f, " %18u", b);
	fputc('\n', f);
	for (a = 0; a < r->n_ranks; a++) {
		fprintf(f, "%9u", a);
		for (b = from; b < to; b++) {
			size_t i = (size_t)a * r->n_ranks + b;

			if (r->matrix_msgs[i])
				snprintf(cell, sizeof(cell), "%" PRId64 " (%" PRIu64 ")",
					 r->matrix_bytes[i], r->matrix_msgs[i]);
			else
				strcpy(cell, "-");
			fprintf(f, " %18s", cell);
		}
		fputc('\n', f);
	}
}

/* Without --wide, as many receivers a block as fit 80 columns, blocks one under another. */
static void text_matrix(FILE *f, const struct sb_mpi_report *r, bool wide)
{
	uint32_t per = wide ? r->n_ranks : (TEXT_COLUMNS - MATRIX_LEFT) / MATRIX_CELL;
	uint32_t from;

	fputs("\ncommunication matrix: bytes (messages) of point-to-point sends,\n"
	      "row = sender, column = receiver\n", f);
	for (from = 0; from < r->n_ranks; from += per) {
		if (from)
			fputc('\n', f);
		text_matrix_block(f, r, from, r->n_ranks - from < per ? r->n_ranks : from + per);
	}
}

static void render_text(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r,
			const struct report_opts *o)
{
	sb_report_file_line(f, p, o);
	fprintf(f, "MPI       %" PRIu64 " %s on %u %s%s\n\n", r->mpi_calls,
		format_plural(r->mpi_calls, "call", "calls"), r->n_ranks,
		format_plural(r->n_ranks, "rank", "ranks"),
		r->parents ? "" : "\n          (no parent ids in the file: enclosing regions unknown)");
	if (!r->mpi_calls) {
		fputs("no MPI call regions\n", f);
		return;
	}
	text_ops(f, p, r, o->wide);
	text_ranks(f, r);
	text_imbalance(f, p, r, o->wide);
	text_variants(f, r, o->wide);
	text_matrix(f, r, o->wide);
}

static void json_ops(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r)
{
	size_t i;

	fputs(",\n \"operations\": [", f);
	for (i = 0; i < r->n_ops; i++) {
		const struct sb_mpi_op_row *o = &r->ops[i];

		fprintf(f, "%s{\"operation\": ", i ? ",\n  " : "\n  ");
		format_json_string(f, o->op);
		fputs(", \"region\": ", f);
		if (o->region == SB_MPI_TOP)
			fputs("null", f);
		else
			format_json_string(f, p->regions[o->region].name);
		fprintf(f, ", \"calls\": %" PRIu64 ", \"bytes\": %" PRId64 ", \"time_ns\": %" PRId64
			", \"region_total_ns\": %" PRId64 "}", o->calls, o->bytes, o->time,
			o->region_total);
	}
	fputs("]", f);
}

static void json_variants(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r)
{
	size_t i;

	fputs(",\n \"calls_by_arguments\": [", f);
	for (i = 0; i < r->n_variants; i++) {
		const struct sb_mpi_variant *v = &r->variants[i];

		fprintf(f, "%s{\"function\": ", i ? ",\n  " : "\n  ");
		format_json_string(f, r->fns.name[v->fn]);
		fputs(", \"region\": ", f);
		format_json_string(f, p->regions[v->region].name);
		fputs(", \"arguments\": ", f);
		format_json_string(f, r->fns.detail[v->region]);
		fprintf(f, ", \"calls\": %" PRIu64 ", \"time_ns\": %" PRId64 ", \"ranks\": %u"
			", \"lowest_rank\": %u, \"highest_rank\": %u}", v->calls, v->time,
			v->n_ranks, v->lowest, v->highest);
	}
	fputs("]", f);
}

static void json_rest(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r)
{
	uint32_t a, b;
	size_t i;

	fputs(",\n \"rank_time_ns\": [", f);
	for (a = 0; a < r->n_ranks; a++)
		fprintf(f, "%s%" PRId64, a ? ", " : "", r->rank_time[a]);
	fputs("],\n \"imbalance\": [", f);
	for (i = 0; i < r->n_imb; i++) {
		const struct sb_mpi_imbalance *m = &r->imb[i];

		fprintf(f, "%s{\"region\": ", i ? ",\n  " : "\n  ");
		format_json_string(f, imb_name(p, r, m));
		fprintf(f, ", \"mpi_function\": %s", m->fn >= 0 ? "true" : "false");
		fprintf(f, ", \"max_ns\": %" PRId64 ", \"mean_ns\": %.1f, \"ratio\": %.6f"
			", \"slowest_rank\": %u}", m->max, m->mean, m->ratio, m->slowest);
	}
	fputs("],\n \"matrix_bytes\": [", f);
	for (a = 0; a < r->n_ranks; a++)
		for (b = 0; b < r->n_ranks; b++)
			fprintf(f, "%s%" PRId64 "%s", b ? ", " : a ? ", [" : "[",
				r->matrix_bytes[(size_t)a * r->n_ranks + b],
				b + 1 == r->n_ranks ? "]" : "");
	fputs("],\n \"matrix_messages\": [", f);
	for (a = 0; a < r->n_ranks; a++)
		for (b = 0; b < r->n_ranks; b++)
			fprintf(f, "%s%" PRIu64 "%s", b ? ", " : a ? ", [" : "[",
				r->matrix_msgs[(size_t)a * r->n_ranks + b],
				b + 1 == r->n_ranks ? "]" : "");
	fputs("]", f);
}

static void render_json(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r,
			const struct report_opts *o)
{
	fputs("{\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fprintf(f, ", \"ranks\": %u, \"mpi_calls\": %" PRIu64 ", \"enclosing_regions_known\": %s",
		r->n_ranks, r->mpi_calls, r->parents ? "true" : "false");
	json_ops(f, p, r);
	json_rest(f, p, r);
	json_variants(f, p, r);
	fputs("}\n", f);
}

static void render_csv(FILE *f, const struct sb_mpi_report *r)
{
	uint32_t a, b;

	fputs("from_rank,to_rank,bytes,messages\n", f);
	for (a = 0; a < r->n_ranks; a++)
		for (b = 0; b < r->n_ranks; b++)
			fprintf(f, "%u,%u,%" PRId64 ",%" PRIu64 "\n", a, b,
				r->matrix_bytes[(size_t)a * r->n_ranks + b],
				r->matrix_msgs[(size_t)a * r->n_ranks + b]);
}

int sb_mpi_report_render(FILE *f, const struct sb_profile *p, const struct sb_mpi_report *r,
			 const struct report_opts *o)
{
	if (o->format == SB_REPORT_JSON)
		render_json(f, p, r, o);
	else if (o->format == SB_REPORT_CSV)
		render_csv(f, r);
	else
		render_text(f, p, r, o);
	return ferror(f) ? -EIO : 0;
}

/* ---- the view: --mpi ---- */

static int mpi_require(const struct sb_profile *p, const struct report_opts *o,
		       struct sb_error *err)
{
	(void)o;
	if (sb_mpi_profile_has_calls(p))
		return 0;
	return sb_fail(err, EINVAL, "the profile has no MPI calls: record an MPI job, without "
		       "--no-mpi");
}

static int mpi_build(void **state, const struct sb_profile *p, const struct report_opts *o,
		     struct sb_error *err)
{
	struct sb_mpi_report *m = malloc(sizeof(*m));
	int r;

	(void)o;
	if (!m)
		return sb_fail(err, ENOMEM, "MPI summary: out of memory");
	r = sb_mpi_report_build(m, p, err);
	if (r) {
		free(m);
		return r;
	}
	*state = m;
	return 0;
}

static int mpi_render(FILE *f, const struct sb_profile *p, const void *state,
		      const struct report_opts *o)
{
	return sb_mpi_report_render(f, p, state, o);
}

static void mpi_release(void *state)
{
	if (!state)
		return;
	sb_mpi_report_free(state);
	free(state);
}

/* --mpi-detail is the command's own (the tree's and --counters' rows); its help goes here. */
const struct sb_report_view sb_mpi_report_view = {
	.option = "mpi",
	.help = "      --mpi-detail    the tree has a row per MPI function (mpi:recv), its\n"
		"                      calls summed; this adds a row below it per call\n"
		"                      region, by peer, bytes and tag (docs/MPI_REPORT.md)\n"
		"      --mpi           the MPI calls instead: per operation and region, per\n"
		"                      rank, each region's and MPI function's imbalance\n"
		"                      across ranks, the calls by arguments, and the\n"
		"                      communication matrix (CSV: the matrix alone)\n",
	.html_note = " (the page has the matrix)",
	.per_call = true,
	.ranks_list = true,
	.require = mpi_require,
	.build = mpi_build,
	.render = mpi_render,
	.release = mpi_release,
};
