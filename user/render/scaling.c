/* `scope-bpf scaling` as text: the runs, time per region path and run, where efficiency is lost. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "render/scaling.h"
#include "util/text_format.h"

#define CELL_MAX (FORMAT_NS_MAX + 8)
/* What the text fits in without --wide, as report and diff. */
#define TEXT_COLUMNS 80
#define NAME_MIN 16
/* Narrow: the region table's time columns, and the rows of the "lost" table. */
#define NARROW_RUNS 4
#define NARROW_LOST 10
/* Narrow: deeper rows stop indenting here, so the names keep their room. */
#define INDENT_MAX 8

enum kind { K_TIME, K_SPEEDUP, K_EFF, K_SHARE, K_IMBAL, K_MPI, K_OFFCPU };

static const char *const kind_title[] = {
	[K_TIME] = "", [K_SPEEDUP] = "speedup", [K_EFF] = "eff", [K_SHARE] = "share",
	[K_IMBAL] = "imbal", [K_MPI] = "MPI", [K_OFFCPU] = "offcpu",
};

struct col {
	enum kind kind;
	size_t run;
};

struct table {
	const struct sb_scaling *s;
	struct col cols[64];
	size_t n_cols;
	size_t width[64];
	size_t name_max;	/* SIZE_MAX: whole names */
	bool wide;
};

static void add_col(struct table *t, enum kind kind, size_t run)
{
	if (t->n_cols < sizeof(t->cols) / sizeof(t->cols[0]))
		t->cols[t->n_cols++] = (struct col){ kind, run };
}

static void title_cell(const struct table *t, const struct col *c, char *buf)
{
	uint32_t n = t->s->runs[c->run].n;

	if (c->kind == K_TIME)
		snprintf(buf, CELL_MAX, "%u %s", n, sb_scaling_unit(t->s, n));
	else
		snprintf(buf, CELL_MAX, "%s@%u", kind_title[c->kind], n);
}

static void pct(char *buf, double v)
{
	if (isnan(v))
		snprintf(buf, CELL_MAX, "-");
	else
		snprintf(buf, CELL_MAX, "%.1f%%", 100 * v);
}

static void value_cell(const struct table *t, const struct col *c, uint32_t row, char *buf)
{
	const struct sb_scaling_cell *v = &t->s->rows[row].cells[c->run];
	double x = NAN;

	if (!v->present) {
		snprintf(buf, CELL_MAX, "-");
		return;
	}
	switch (c->kind) {
	case K_TIME:
		format_ns(buf, CELL_MAX, v->max);
		return;
	case K_SPEEDUP:
	case K_IMBAL:
		x = c->kind == K_SPEEDUP ? v->speedup : v->imbalance;
		if (isnan(x))
			snprintf(buf, CELL_MAX, "-");
		else
			snprintf(buf, CELL_MAX, "%.2f", x);
		return;
	case K_EFF:
		return pct(buf, v->efficiency);
	case K_SHARE:
		return pct(buf, v->share);
	case K_MPI:
		return pct(buf, v->mpi_share);
	case K_OFFCPU:
		return pct(buf, v->offcpu_share);
	}
}

/* The i-th row a table shows: rows[i], or row i when rows is NULL. */
static uint32_t row_at(const uint32_t *rows, size_t i)
{
	return rows ? rows[i] : (uint32_t)i;
}

/* Widest cell per column over rows[], titles included; then the room names get. */
static void measure(struct table *t, const uint32_t *rows, size_t n)
{
	char buf[CELL_MAX];
	size_t c, i, used = 0, w;

	for (c = 0; c < t->n_cols; c++) {
		title_cell(t, &t->cols[c], buf);
		t->width[c] = format_width(buf);
		for (i = 0; i < n; i++) {
			value_cell(t, &t->cols[c], row_at(rows, i), buf);
			w = format_width(buf);
			if (w > t->width[c])
				t->width[c] = w;
		}
		used += t->width[c] + 2;
	}
	t->name_max = t->wide ? SIZE_MAX :
		      used + NAME_MIN < TEXT_COLUMNS ? TEXT_COLUMNS - used : NAME_MIN;
}

static void print_name(FILE *f, const struct table *t, uint32_t row, bool indent)
{
	const struct sb_scaling_row *r = &t->s->rows[row];
	size_t d = indent ? r->depth - 1 : 0;

	if (!t->wide && d > INDENT_MAX)
		d = INDENT_MAX;
	fprintf(f, "%*s", (int)(2 * d), "");
	if (t->name_max == SIZE_MAX)
		format_text(f, indent ? r->name : r->path);
	else
		format_cut(f, indent ? r->name : r->path,
			   t->name_max > 2 * d + NAME_MIN ? t->name_max - 2 * d : NAME_MIN);
}

/* Rows row_at(rows, 0..n-1) of t under a title line; indent: tree names, else whole paths. */
static void print_table(FILE *f, struct table *t, const uint32_t *rows, size_t n, bool indent)
{
	char buf[CELL_MAX];
	size_t c, i;

	measure(t, rows, n);
	for (c = 0; c < t->n_cols; c++) {
		title_cell(t, &t->cols[c], buf);
		format_right(f, buf, t->width[c]);
		fputs("  ", f);
	}
	fputs("region\n", f);
	for (i = 0; i < n; i++) {
		for (c = 0; c < t->n_cols; c++) {
			value_cell(t, &t->cols[c], row_at(rows, i), buf);
			format_right(f, buf, t->width[c]);
			fputs("  ", f);
		}
		print_name(f, t, row_at(rows, i), indent);
		fputc('\n', f);
	}
}

static void text_runs(FILE *f, const struct sb_scaling *s)
{
	char prog[256], t[CELL_MAX];
	size_t k;

	sb_scaling_program(s->runs[0].p, prog, sizeof(prog));
	fprintf(f, "scaling  %s, %zu runs", s->weak ? "weak" : "strong", s->n_runs);
	if (prog[0]) {
		fputs(" of ", f);
		format_text(f, prog);
	}
	fprintf(f, ", against %u %s\n(the time of a run or a region is its slowest rank's)\n\n",
		s->runs[0].n, sb_scaling_unit(s, s->runs[0].n));
	fprintf(f, "%7s  %10s  %7s  %6s  file\n", s->by_threads ? "threads" : "ranks", "time",
		"speedup", "eff");
	for (k = 0; k < s->n_runs; k++) {
		format_ns(t, sizeof(t), s->runs[k].time);
		fprintf(f, "%7u  %10s  ", s->runs[k].n, t);
		if (isnan(s->runs[k].speedup))
			fprintf(f, "%7s  ", "-");
		else
			fprintf(f, "%7.2f  ", s->runs[k].speedup);
		pct(t, s->runs[k].efficiency);
		fprintf(f, "%6s  ", t);
		format_text(f, s->runs[k].path);
		fputc('\n', f);
	}
}

/* Narrow: the first run and the last ones, as many as fit; wide: every run. */
static bool run_shown(const struct sb_scaling *s, size_t k, bool wide)
{
	return wide || s->n_runs <= NARROW_RUNS || k == 0 || k >= s->n_runs - (NARROW_RUNS - 1);
}

static void text_regions(FILE *f, const struct sb_scaling *s, bool wide)
{
	struct table t = { .s = s, .wide = wide };
	size_t k, last = s->n_runs - 1;

	fprintf(f, "\nregion time per run, speedup and efficiency against %u %s%s\n", s->runs[0].n, sb_scaling_unit(s, s->runs[0].n),
		wide || s->n_runs <= NARROW_RUNS ? "" : " (--wide: every run)");
	if (!s->n_rows) {
		fputs("no region was called\n", f);
		return;
	}
	for (k = 0; k < s->n_runs; k++)
		if (run_shown(s, k, wide))
			add_col(&t, K_TIME, k);
	for (k = wide ? 1 : last; k <= last; k++) {
		add_col(&t, K_SPEEDUP, k);
		add_col(&t, K_EFF, k);
	}
	print_table(f, &t, NULL, s->n_rows, true);
}

/* Narrow: share and imbalance in the first run and the last, MPI and off-CPU in the last. */
static void lost_cols(struct table *t, bool wide)
{
	size_t k, last = t->s->n_runs - 1;
	enum kind kind;

	for (kind = K_SHARE; kind <= K_OFFCPU; kind++)
		for (k = 0; k <= last; k++)
			if (wide || k == last || (k == 0 && kind <= K_IMBAL))
				add_col(t, kind, k);
}

static void text_lost(FILE *f, const struct sb_scaling *s, bool wide)
{
	struct table t = { .s = s, .wide = wide };
	size_t n = s->n_lost, last = s->n_runs - 1;

	fprintf(f, "\nwhere efficiency is lost: regions whose share of the run grew from %u to "
		"%u %s\n", s->runs[0].n, s->runs[last].n, sb_scaling_unit(s, s->runs[last].n));
	if (!n) {
		fputs("none\n", f);
		return;
	}
	fputs("(imbal: slowest rank / mean; MPI, offcpu: share of the region's time)\n", f);
	if (!wide && n > NARROW_LOST)
		n = NARROW_LOST;
	lost_cols(&t, wide);
	print_table(f, &t, s->lost, n, false);
	if (n < s->n_lost)
		fprintf(f, "... %zu more (--wide: all)\n", s->n_lost - n);
}

void sb_scaling_text(FILE *f, const struct sb_scaling *s, bool wide)
{
	text_runs(f, s);
	text_regions(f, s, wide);
	text_lost(f, s, wide);
}

int sb_scaling_render(FILE *f, const struct sb_scaling *s, enum sb_report_format fmt, bool wide)
{
	int r = 0;

	if (fmt == SB_REPORT_JSON)
		r = sb_scaling_json(f, s);
	else if (fmt == SB_REPORT_CSV)
		sb_scaling_csv(f, s);
	else
		sb_scaling_text(f, s, wide);
	return r ? r : ferror(f) ? -EIO : 0;
}
