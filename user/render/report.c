/* Renders a call tree as an aligned text table, as JSON, or as CSV. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree_mpi.h"
#include "analysis/mpi_fns.h"
#include "util/text_format.h"
#include "model/health.h"
#include "render/report.h"

/* Text table columns before the region name, all right-aligned. */
enum col { C_CALLS, C_TOTAL, C_AVG, C_MIN, C_MAX, C_PCT, C_OWN, C_OFFCPU, C_GPU, C_GPU_SHARE,
	   N_COLS };

static const char *const col_titles[N_COLS] = {
	"calls", "total", "avg", "min", "max", "%rec", "own", "off-CPU", "GPU time", "GPU share",
};

#define CELL_MAX FORMAT_NS_MAX

int sb_report_format_parse(const char *s, enum sb_report_format *fmt)
{
	if (!strcmp(s, "text"))
		*fmt = SB_REPORT_TEXT;
	else if (!strcmp(s, "json"))
		*fmt = SB_REPORT_JSON;
	else if (!strcmp(s, "csv"))
		*fmt = SB_REPORT_CSV;
	else
		return -EINVAL;
	return 0;
}

int64_t sb_report_span(const struct sb_profile *p, const struct sb_calltree *t)
{
	const struct sb_meta *s = sb_profile_meta(p, "start_time_ns");
	const struct sb_meta *e = sb_profile_meta(p, "finalize_time_ns");

	if (s && e && s->is_int && e->is_int && e->i > s->i)
		return e->i - s->i;
	if (t->calls && t->max_end > t->min_start)
		return t->max_end - t->min_start;
	return 0;
}

/*
 * Every rank runs the whole recording, so the calls of 4 ranks against one
 * wall-clock span read up to 400%: the share is of rank-seconds instead.
 */
int64_t sb_report_pct_base(const struct sb_profile *p, const struct sb_calltree *t,
			   uint32_t ranks)
{
	int64_t span = sb_report_span(p, t);

	if (ranks > 1 && span > INT64_MAX / ranks)
		return INT64_MAX;
	return span * (ranks ? ranks : 1);
}

uint32_t sb_report_ranks_shown(const struct sb_profile *p, int64_t rank)
{
	return rank >= 0 ? 1 : sb_profile_ranks_recorded(p);
}

/* GPU time over the calls' inclusive time; above 1 when kernels outlive their launch. */
static double gpu_share(const struct sb_ct_node *n)
{
	return (double)n->gpu / (double)n->total;
}

static uint32_t ranks_shown(const struct sb_profile *p, const struct report_opts *o)
{
	return sb_report_ranks_shown(p, o->rank);
}

/* The ranks of --ranks, one by one. */
static void json_rank_list(FILE *f, const struct sb_filter *flt)
{
	size_t i;

	fputs(", \"rank_list\": [", f);
	for (i = 0; i < flt->n_ranks; i++)
		fprintf(f, "%s%u", i ? ", " : "", flt->ranks[i]);
	fputc(']', f);
}

static const struct sb_meta *meta_int(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && m->is_int ? m : NULL;
}

static size_t thread_count(const struct sb_profile *p, int64_t rank)
{
	size_t i, n = 0;

	if (rank < 0)
		return p->n_threads;
	for (i = 0; i < p->n_threads; i++)
		n += (int64_t)p->threads[i].rank == rank;
	return n;
}

static void time_cell(char *buf, int64_t ns)
{
	if (ns == SB_CT_UNKNOWN)
		snprintf(buf, CELL_MAX, "-");
	else
		format_ns(buf, CELL_MAX, ns);
}

static void fill_cells(char cells[N_COLS][CELL_MAX], const struct sb_ct_node *n, int64_t base)
{
	snprintf(cells[C_CALLS], CELL_MAX, "%" PRIu64, n->calls);
	time_cell(cells[C_TOTAL], n->total);
	time_cell(cells[C_AVG], sb_ct_avg(n));
	time_cell(cells[C_MIN], n->min);
	time_cell(cells[C_MAX], n->max);
	format_pct(cells[C_PCT], CELL_MAX, n->total, base);
	time_cell(cells[C_OWN], n->own);
	time_cell(cells[C_OFFCPU], n->offcpu);
	time_cell(cells[C_GPU], n->gpu);
	if (n->gpu == SB_CT_UNKNOWN)
		snprintf(cells[C_GPU_SHARE], CELL_MAX, "-");
	else
		format_pct(cells[C_GPU_SHARE], CELL_MAX, n->gpu, n->total);
}

void sb_report_file_line(FILE *f, const struct sb_profile *p, const struct report_opts *o)
{
	fputs("file      ", f);
	format_text(f, o->path ? o->path : "-");
	fputs(" (", f);
	format_text(f, p->format ? p->format : "unknown format");
	fputs(")\n", f);
}

/* A text value of the metadata, or NULL. */
static const char *meta_text(const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && !m->is_int && m->s && *m->s ? m->s : NULL;
}

/* Which Slurm job and step: record puts the traced process's SLURM_* in the metadata. */
static void job_line(FILE *f, const struct sb_profile *p)
{
	const char *job = meta_text(p, "SLURM_JOB_ID"), *step = meta_text(p, "SLURM_STEP_ID");
	const char *nodes = meta_text(p, "SLURM_STEP_NODELIST");

	if (!job)
		return;
	fputs("job       slurm ", f);
	format_text(f, job);
	if (step) {
		fputs(" step ", f);
		format_text(f, step);
	}
	if (nodes) {
		fputs(" on ", f);
		format_text(f, nodes);
	}
	fputc('\n', f);
}

static void text_header(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
			const struct report_opts *o, int64_t span)
{
	const struct sb_meta *lost = meta_int(p, "lost_events");
	const struct sb_meta *open = meta_int(p, "open_calls_dropped");
	size_t threads = thread_count(p, o->rank);
	uint32_t ranks = sb_profile_rank_count(p), recorded = sb_profile_ranks_recorded(p);
	char buf[CELL_MAX];

	sb_report_file_line(f, p, o);
	job_line(f, p);
	fputs("recording ", f);
	if (span > 0) {
		format_ns(buf, sizeof(buf), span);
		fprintf(f, "%s, ", buf);
	}
	if (o->rank >= 0)
		fprintf(f, "rank %" PRId64 " of %u, ", o->rank, ranks);
	else if (o->filter.ranks)
		fprintf(f, "ranks %s of %u, ", o->filter.ranks_arg, ranks);
	else if (recorded && recorded < ranks)
		fprintf(f, "%u of %u ranks, ", recorded, ranks);
	else
		fprintf(f, "%u %s, ", ranks, format_plural(ranks, "rank", "ranks"));
	/* Files without a thread table (scope-profiler's) would read "0 threads": leave it out. */
	if (threads)
		fprintf(f, "%zu %s, ", threads, format_plural(threads, "thread", "threads"));
	fprintf(f, "%" PRIu64 " %s", t->calls, format_plural(t->calls, "call", "calls"));
	if (lost)
		fprintf(f, ", lost_events %" PRId64, lost->i);
	if (open)
		fprintf(f, ", open_calls_dropped %" PRId64, open->i);
	fputc('\n', f);
	if (span > 0 && ranks_shown(p, o) > 1) {
		format_ns(buf, sizeof(buf), sb_report_pct_base(p, t, ranks_shown(p, o)));
		fprintf(f, "%%rec      of %s rank-seconds (the recording times %u ranks)\n", buf,
			ranks_shown(p, o));
	}
	if (t->mpi && !o->mpi_detail)
		fprintf(f, "mpi       %zu call %s shown as %u %s (--mpi-detail: each one)\n",
			t->mpi->n_calls,
			format_plural(t->mpi->n_calls, "region", "regions"), t->mpi->n,
			format_plural(t->mpi->n, "function", "functions"));
	sb_health_print(f, p, "");
	fputc('\n', f);
}

#define MAX_DRAWN_DEPTH 32
/* What the text fits in without --wide: a terminal's default width. */
#define TEXT_COLUMNS 80
/* A shortened name keeps at least this many columns, however deep its node. */
#define NAME_MIN 16
/* Room for indent and name below which avg and %rec make way: a depth marker and a name. */
#define ROOM_MIN 30
/* "┄ [depth N] ": the marker of a node deeper than the indent is drawn, N up to 10 digits. */
#define DEPTH_MARK_MAX 21

/* How the table is laid out: which columns, how deep the indent grows, how long names are. */
struct layout {
	bool show[N_COLS];
	uint32_t narrow_from;	/* from this depth a level of the indent takes 2 columns, not 3 */
	uint32_t tight_from;	/* from this depth (never before narrow_from) it takes 1 */
	uint32_t max_drawn;	/* from this depth the indent stops growing */
	size_t room;		/* columns for indent and name; SIZE_MAX: no limit */
};

/* Fitting 80 columns: from max_drawn the depth alone stands for the whole indent. */
static bool compact(const struct layout *l)
{
	return l->room != SIZE_MAX;
}

/* How many of the levels [from, to) lie in [2, depth): the ancestors' below the top level. */
static size_t levels(uint32_t from, uint32_t to, uint32_t depth)
{
	uint32_t lo = from > 2 ? from : 2, hi = to < depth ? to : depth;

	return hi > lo ? hi - lo : 0;
}

/*
 * Columns the drawn indent of a node at depth takes: a line for each level of
 * its ancestors below the top level (3, 2 or 1 columns as the layout says),
 * then its own branch ("├─ ", or "├ " once narrow).
 */
static size_t drawn_width(uint32_t depth, const struct layout *l)
{
	if (depth < 2)
		return 0;
	return 3 * levels(0, l->narrow_from, depth) +
	       2 * levels(l->narrow_from, l->tight_from, depth) +
	       levels(l->tight_from, UINT32_MAX, depth) + (depth < l->narrow_from ? 3 : 2);
}

/* Columns the indent of a node at depth takes. */
static size_t indent_width(uint32_t depth, const struct layout *l)
{
	char mark[DEPTH_MARK_MAX + 1];
	size_t w;

	if (depth < l->max_drawn)
		return drawn_width(depth, l);
	/* "┄" takes one column in three bytes: count it as the space it is printed as. */
	w = (size_t)snprintf(mark, sizeof(mark), "  [depth %u] ", depth);
	return compact(l) ? w : w + drawn_width(l->max_drawn, l);
}

/*
 * Tree drawing: one "│  " or "   " per ancestor below the top level, then this
 * node's branch. Where 80 columns are too few for that, the deepest levels
 * take 2 columns ("│ ", then "├ "), then 1 ("│"): a deep tree keeps its lines
 * and its names. From max_drawn the indent stops growing and the depth is
 * written instead: a 20 000-deep recursion must not print gigabytes.
 */
static void text_prefix(FILE *f, const struct sb_calltree *t, uint32_t i, unsigned char *more,
			const struct layout *l)
{
	/* By columns a level takes, less one. */
	static const char *const line[] = { "│", "│ ", "│  " };
	static const char *const blank[] = { " ", "  ", "   " };
	const struct sb_ct_node *n = &t->nodes[i];
	uint32_t d;
	int w;

	more[n->depth] = n->next_sibling != SB_CT_NONE;
	if (n->depth < 2)
		return;
	if (n->depth >= l->max_drawn && compact(l)) {
		fprintf(f, "┄ [depth %u] ", n->depth);
		return;
	}
	for (d = 2; d < n->depth && d < l->max_drawn; d++) {
		w = d < l->narrow_from ? 2 : d < l->tight_from ? 1 : 0;
		fputs(more[d] ? line[w] : blank[w], f);
	}
	if (n->depth >= l->max_drawn)
		fprintf(f, "┄ [depth %u] ", n->depth);
	if (n->depth < l->narrow_from)
		fputs(more[n->depth] ? "├─ " : "└─ ", f);
	else
		fputs(more[n->depth] ? "├ " : "└ ", f);
}

/* One step narrower: the deepest 3-column level takes 2, else the deepest 2-column one 1. */
static bool narrower(struct layout *l)
{
	if (l->narrow_from > 2)
		l->narrow_from--;
	else if (l->tight_from > 2)
		l->tight_from--;
	else
		return false;
	return true;
}

/* Widest cell of each column, titles included, so every column lines up. */
static void column_widths(const struct sb_calltree *t, int64_t base, int n_cols, size_t *width)
{
	char cells[N_COLS][CELL_MAX];
	size_t w;
	uint32_t i;
	int c;

	for (c = 0; c < n_cols; c++)
		width[c] = strlen(col_titles[c]);
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		fill_cells(cells, &t->nodes[i], base);
		for (c = 0; c < n_cols; c++) {
			w = format_width(cells[c]);
			if (w > width[c])
				width[c] = w;
		}
	}
}

static size_t shown_width(const struct layout *l, const size_t *width, int n_cols)
{
	size_t used = 0;
	int c;

	for (c = 0; c < n_cols; c++)
		if (l->show[c])
			used += width[c] + 2;
	return used;
}

/* The widest indent and name of the tree as l draws it. */
static size_t widest_name(const struct sb_calltree *t, const struct layout *l)
{
	size_t w, max = 0;
	uint32_t i;

	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		w = indent_width(t->nodes[i].depth, l) +
		    format_width(sb_calltree_label(t, i));
		if (w > max)
			max = w;
	}
	return max;
}

/*
 * --wide, or a table that fits: everything. Else leave out min and max (then GPU
 * share), and if it still does not fit, draw deep levels narrower, stop the
 * indent early and cut names; when that leaves less than ROOM_MIN, avg and
 * %rec go too.
 */
static void plan_layout(struct layout *l, const struct sb_calltree *t, const size_t *width,
			int n_cols, bool wide)
{
	static const enum col optional[] = { C_MIN, C_MAX, C_GPU_SHARE };
	static const enum col last_resort[] = { C_AVG, C_PCT };
	size_t need, used, room;
	size_t k;
	int c;

	for (c = 0; c < N_COLS; c++)
		l->show[c] = true;
	l->narrow_from = l->tight_from = MAX_DRAWN_DEPTH;
	l->max_drawn = MAX_DRAWN_DEPTH;
	l->room = SIZE_MAX;
	if (wide)
		return;
	need = widest_name(t, l);
	for (k = 0; k < sizeof(optional) / sizeof(optional[0]); k++) {
		if (shown_width(l, width, n_cols) + need <= TEXT_COLUMNS)
			return;
		l->show[optional[k]] = false;
	}
	for (k = 0; k < sizeof(last_resort) / sizeof(last_resort[0]); k++) {
		used = shown_width(l, width, n_cols);
		if (used + need <= TEXT_COLUMNS)
			return;
		if (used + ROOM_MIN <= TEXT_COLUMNS)
			break;
		l->show[last_resort[k]] = false;
	}
	used = shown_width(l, width, n_cols);
	if (used + need <= TEXT_COLUMNS)
		return;
	room = used + NAME_MIN < TEXT_COLUMNS ? TEXT_COLUMNS - used : NAME_MIN;
	l->room = room;
	/* The deepest levels narrower, step by step, until every name fits whole; */
	while (widest_name(t, l) > room && narrower(l))
		;
	/* else only as narrow as leaves the deepest node's name NAME_MIN columns; */
	if (widest_name(t, l) > room) {
		l->narrow_from = l->tight_from = MAX_DRAWN_DEPTH;
		while (drawn_width(t->max_depth, l) + NAME_MIN > room && narrower(l))
			;
	}
	/* deeper than one column a level allows, the depth stands for the indent. */
	while (l->max_drawn > 2 && drawn_width(l->max_drawn - 1, l) + NAME_MIN > room)
		l->max_drawn--;
}

static void text_name(FILE *f, const struct sb_calltree *t, uint32_t i, const struct layout *l)
{
	size_t indent = indent_width(t->nodes[i].depth, l);

	if (l->room == SIZE_MAX)
		format_text(f, sb_calltree_label(t, i));
	else
		format_cut(f, sb_calltree_label(t, i),
			   indent + NAME_MIN < l->room ? l->room - indent : NAME_MIN);
	fputc('\n', f);
}

static int render_text(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		       const struct report_opts *o)
{
	char cells[N_COLS][CELL_MAX];
	size_t width[N_COLS];
	int64_t span = sb_report_span(p, t), base = sb_report_pct_base(p, t, ranks_shown(p, o));
	int n_cols = sb_profile_has_gpu_times(p) ? N_COLS : C_GPU;
	struct layout l;
	unsigned char *more;
	uint32_t i;
	int c;

	text_header(f, p, t, o, span);
	if (sb_calltree_next(t, 0) == SB_CT_NONE) {
		fputs("no completed calls\n", f);
		return 0;
	}
	more = calloc((size_t)t->max_depth + 1, 1);
	if (!more)
		return -ENOMEM;
	column_widths(t, base, n_cols, width);
	plan_layout(&l, t, width, n_cols, o->wide);
	for (c = 0; c < n_cols; c++) {
		if (!l.show[c])
			continue;
		format_right(f, col_titles[c], width[c]);
		fputs("  ", f);
	}
	fputs("region\n", f);
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		fill_cells(cells, &t->nodes[i], base);
		for (c = 0; c < n_cols; c++) {
			if (!l.show[c])
				continue;
			format_right(f, cells[c], width[c]);
			fputs("  ", f);
		}
		text_prefix(f, t, i, more, &l);
		text_name(f, t, i, &l);
	}
	free(more);
	return 0;
}

/* Node i's path from the top level, as node indices into path[0..depth-1]. */
static void node_path(const struct sb_calltree *t, uint32_t i, uint32_t *path)
{
	uint32_t d = t->nodes[i].depth;

	for (; d > 0; i = t->nodes[i].parent)
		path[--d] = i;
}

static void json_time(FILE *f, const char *key, int64_t ns)
{
	if (ns == SB_CT_UNKNOWN)
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %" PRId64, key, ns);
}

/* The loss counters beyond the two every header has, when the file has them; then the names of calls open at start. */
static void json_health(FILE *f, const struct sb_profile *p)
{
	const struct sb_meta *m;
	size_t i;

	for (i = 0; i < sb_health_n_keys; i++) {
		m = meta_int(p, sb_health_keys[i].key);
		if (m && strcmp(m->key, "lost_events") && strcmp(m->key, "open_calls_dropped"))
			fprintf(f, ", \"%s\": %" PRId64, m->key, m->i);
	}
	m = sb_profile_meta(p, "regions_open_at_start");
	if (m && !m->is_int && m->s) {
		fputs(", \"regions_open_at_start\": ", f);
		format_json_string(f, m->s);
	}
}

static void json_header(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
			const struct report_opts *o, int64_t span)
{
	const struct sb_meta *lost = meta_int(p, "lost_events");
	const struct sb_meta *open = meta_int(p, "open_calls_dropped");

	fputs("{\"header\": {\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(", \"format\": ", f);
	format_json_string(f, p->format ? p->format : "");
	fprintf(f, ", \"schema\": %d, \"mode\": \"%s\"", p->schema, t->flat ? "flat" : "tree");
	if (o->rank >= 0)
		fprintf(f, ", \"rank\": %" PRId64, o->rank);
	else
		fputs(", \"rank\": null", f);
	if (o->filter.ranks)
		json_rank_list(f, &o->filter);
	if (span > 0)
		fprintf(f, ", \"recording_ns\": %" PRId64, span);
	else
		fputs(", \"recording_ns\": null", f);
	/* percent is of rank-seconds; with one rank they are the recording itself. */
	if (span > 0 && ranks_shown(p, o) > 1)
		fprintf(f, ", \"percent_of\": \"rank_seconds\", \"rank_seconds_ns\": %" PRId64,
			sb_report_pct_base(p, t, ranks_shown(p, o)));
	fprintf(f, ", \"ranks\": %u, \"ranks_recorded\": %u, \"threads\": %zu, \"calls\": %" PRIu64,
		sb_profile_rank_count(p), sb_profile_ranks_recorded(p), thread_count(p, o->rank),
		t->calls);
	if (lost)
		fprintf(f, ", \"lost_events\": %" PRId64, lost->i);
	if (open)
		fprintf(f, ", \"open_calls_dropped\": %" PRId64, open->i);
	json_health(f, p);
	fputs("},\n", f);
}

static void json_row(FILE *f, const struct sb_calltree *t, uint32_t i, const uint32_t *path,
		     int64_t base, bool gpu)
{
	const struct sb_ct_node *n = &t->nodes[i];
	uint32_t d;

	fputs("{\"path\": [", f);
	for (d = 0; d < n->depth; d++) {
		if (d)
			fputs(", ", f);
		format_json_string(f, sb_calltree_name(t, path[d]));
	}
	fprintf(f, "], \"depth\": %u, \"calls\": %" PRIu64, n->depth, n->calls);
	json_time(f, "total_ns", n->total);
	json_time(f, "avg_ns", sb_ct_avg(n));
	json_time(f, "min_ns", n->min);
	json_time(f, "max_ns", n->max);
	if (base > 0)
		fprintf(f, ", \"percent\": %.1f", 100.0 * (double)n->total / (double)base);
	else
		fputs(", \"percent\": null", f);
	json_time(f, "own_ns", n->own);
	json_time(f, "offcpu_ns", n->offcpu);
	json_time(f, "first_start_ns", n->first_start);
	if (gpu) {
		json_time(f, "gpu_ns", n->gpu);
		if (n->gpu != SB_CT_UNKNOWN && n->total > 0)
			fprintf(f, ", \"gpu_share\": %.4f", gpu_share(n));
		else
			fputs(", \"gpu_share\": null", f);
	}
	fputc('}', f);
}

static int render_json(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		       const struct report_opts *o)
{
	int64_t span = sb_report_span(p, t), base = sb_report_pct_base(p, t, ranks_shown(p, o));
	bool first = true, gpu = sb_profile_has_gpu_times(p);
	uint32_t *path, i;

	path = malloc(((size_t)t->max_depth + 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	json_header(f, p, t, o, span);
	fputs(" \"rows\": [", f);
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		fputs(first ? "\n  " : ",\n  ", f);
		first = false;
		node_path(t, i, path);
		json_row(f, t, i, path, base, gpu);
	}
	fputs(first ? "]}\n" : "\n ]}\n", f);
	free(path);
	return 0;
}

static void csv_time(FILE *f, int64_t ns)
{
	if (ns != SB_CT_UNKNOWN)
		fprintf(f, "%" PRId64, ns);
	fputc(',', f);
}

/* The path joined by ";" as one field; quoted as a whole when a name needs it. */
static int csv_path(FILE *f, const struct sb_calltree *t, uint32_t depth, const uint32_t *path)
{
	size_t len = 1, at = 0, l;
	uint32_t d;
	char *s;

	for (d = 0; d < depth; d++)
		len += strlen(sb_calltree_name(t, path[d])) + 1;
	s = malloc(len);
	if (!s)
		return -ENOMEM;
	for (d = 0; d < depth; d++) {
		if (d)
			s[at++] = ';';
		l = strlen(sb_calltree_name(t, path[d]));
		memcpy(s + at, sb_calltree_name(t, path[d]), l);
		at += l;
	}
	s[at] = '\0';
	format_csv_field(f, s);
	free(s);
	return 0;
}

static int csv_row(FILE *f, const struct sb_calltree *t, uint32_t i, const uint32_t *path,
		   int64_t base, bool gpu)
{
	const struct sb_ct_node *n = &t->nodes[i];

	if (csv_path(f, t, n->depth, path))
		return -ENOMEM;
	fprintf(f, ",%u,%" PRIu64 ",", n->depth, n->calls);
	csv_time(f, n->total);
	csv_time(f, sb_ct_avg(n));
	csv_time(f, n->min);
	csv_time(f, n->max);
	if (base > 0)
		fprintf(f, "%.1f", 100.0 * (double)n->total / (double)base);
	fputc(',', f);
	csv_time(f, n->own);
	csv_time(f, n->offcpu);
	fprintf(f, "%" PRId64, n->first_start);
	if (gpu) {
		fputc(',', f);
		csv_time(f, n->gpu);
		if (n->gpu != SB_CT_UNKNOWN && n->total > 0)
			fprintf(f, "%.4f", gpu_share(n));
	}
	fputc('\n', f);
	return 0;
}

static int render_csv(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		      const struct report_opts *o)
{
	int64_t base = sb_report_pct_base(p, t, ranks_shown(p, o));
	bool gpu = sb_profile_has_gpu_times(p);
	uint32_t *path, i;
	int r = 0;

	path = malloc(((size_t)t->max_depth + 1) * sizeof(*path));
	if (!path)
		return -ENOMEM;
	/* The GPU fields go last: readers of the fixed fields keep their positions. */
	fputs("path,depth,calls,total_ns,avg_ns,min_ns,max_ns,percent,own_ns,offcpu_ns,"
	      "first_start_ns", f);
	fputs(gpu ? ",gpu_ns,gpu_share\n" : "\n", f);
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE && !r; i = sb_calltree_next(t, i)) {
		node_path(t, i, path);
		r = csv_row(f, t, i, path, base, gpu);
	}
	free(path);
	return r;
}

int sb_report_render(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		     const struct report_opts *o)
{
	int r;

	switch (o->format) {
	case SB_REPORT_JSON:
		r = render_json(f, p, t, o);
		break;
	case SB_REPORT_CSV:
		r = render_csv(f, p, t, o);
		break;
	default:
		r = render_text(f, p, t, o);
		break;
	}
	if (!r && ferror(f))
		r = -EIO;
	return r;
}
