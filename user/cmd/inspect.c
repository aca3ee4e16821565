/* scope-bpf inspect: what a profile holds (metadata, ranks, threads, regions), as text or JSON. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "util/text_format.h"
#include "cmd/inspect.h"

static const struct option long_opts[] = {
	{ "format", required_argument, NULL, 'f' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Optional id columns by their names in the file (FORMAT.md). */
static const struct {
	unsigned bit;
	const char *name;
} id_columns[] = {
	{ SB_COL_THREAD, "thread_ids" },
	{ SB_COL_CALL_ID, "call_ids" },
	{ SB_COL_PARENT_ID, "parent_ids" },
};

#define N_ID_COLUMNS (sizeof(id_columns) / sizeof(id_columns[0]))

/* Optional event column i in file order: the id columns, then the metric columns; false past them. */
static bool column_at(size_t i, unsigned *bit, const char **name)
{
	if (i < N_ID_COLUMNS) {
		*bit = id_columns[i].bit;
		*name = id_columns[i].name;
		return true;
	}
	i -= N_ID_COLUMNS;
	if (i >= SB_N_METRICS)
		return false;
	*bit = SB_COL_METRIC(i);
	*name = sb_column((unsigned)i)->name;
	return true;
}

static void usage(FILE *f)
{
	fputs("usage: scope-bpf inspect [OPTIONS] FILE\n"
	      "\n"
	      "Show what a profile holds: format, metadata, ranks, processes, threads,\n"
	      "regions, event columns and data-loss counters.\n"
	      "\n"
	      "  -f, --format FMT    text (default) or json\n"
	      "  -o, --output FILE   write to FILE instead of standard output\n"
	      "  -h, --help          show this help\n"
	      "\n"
	      "Text shows thread and process times from the recording's start\n"
	      "(start_time_ns, else the earliest start seen); JSON keeps raw clock values.\n",
	      f);
}

static int parse_option(int c, void *opts, struct sb_error *err)
{
	struct inspect_opts *o = opts;

	if (c == 'h') {
		o->help = true;
		return SB_OPT_STOP;
	}
	if (c == 'o') {
		o->output = optarg;
		return 0;
	}
	return sb_format_option(optarg, false, &o->format, err);
}

int inspect_parse_args(int argc, char **argv, struct inspect_opts *o, struct sb_error *err)
{
	int r;

	*o = (struct inspect_opts){ .format = SB_REPORT_TEXT };
	r = sb_parse_options(argc, argv, ":f:o:h", long_opts, parse_option, o, err);
	if (r || o->help)
		return r;
	if (optind >= argc)
		return sb_fail(err, EINVAL, "missing FILE, the profile to inspect");
	if (optind + 1 < argc)
		return sb_fail(err, EINVAL, "'%s': only one FILE can be inspected",
			       argv[optind + 1]);
	o->path = argv[optind];
	return 0;
}

/* ---- what the text and JSON views share: per-rank and per-region sums ---- */

struct rank_info {
	uint64_t calls;
	size_t threads;
	size_t first_process;	/* index into p->processes; SIZE_MAX when none */
	size_t processes;
};

struct region_info {
	uint64_t calls;
	int64_t total;
	size_t first;		/* this region's pairs: order[first .. first + n) by rank */
	size_t n;
};

struct facts {
	uint32_t n_ranks;
	struct rank_info *ranks;
	struct region_info *regions;
	size_t *order;		/* pair indices by (region, rank) */
	uint64_t calls;
	int64_t base;		/* what text times are shown from */
	const struct sb_meta **meta;	/* sorted by key */
};

static void facts_free(struct facts *x)
{
	free(x->ranks);
	free(x->regions);
	free(x->order);
	free(x->meta);
}

static int cmp_meta(const void *pa, const void *pb)
{
	const struct sb_meta *const *a = pa, *const *b = pb;

	return strcmp((*a)->key, (*b)->key);
}

static int cmp_pair_order(const void *pa, const void *pb, void *arg)
{
	const struct sb_profile *p = arg;
	const struct sb_pair *a = &p->pairs[*(const size_t *)pa];
	const struct sb_pair *b = &p->pairs[*(const size_t *)pb];

	if (a->region != b->region)
		return a->region < b->region ? -1 : 1;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

static int64_t add_sat(int64_t x, int64_t y)
{
	int64_t r;

	if (!__builtin_add_overflow(x, y, &r))
		return r;
	return y > 0 ? INT64_MAX : INT64_MIN;
}

/* The recording's start: start_time_ns, else the earliest thread or process start. */
static int64_t time_base(const struct sb_profile *p)
{
	const struct sb_meta *m = sb_profile_meta(p, "start_time_ns");
	int64_t base = INT64_MAX;
	size_t i;

	if (m && m->is_int)
		return m->i;
	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].start_ns >= 0 && p->threads[i].start_ns < base)
			base = p->threads[i].start_ns;
	for (i = 0; i < p->n_processes; i++)
		if (p->processes[i].start_ns >= 0 && p->processes[i].start_ns < base)
			base = p->processes[i].start_ns;
	return base == INT64_MAX ? 0 : base;
}

static void rank_facts(const struct sb_profile *p, struct facts *x)
{
	size_t i;

	for (i = 0; i < x->n_ranks; i++)
		x->ranks[i].first_process = SIZE_MAX;
	for (i = 0; i < p->n_pairs; i++) {
		if (p->pairs[i].rank < x->n_ranks)
			x->ranks[p->pairs[i].rank].calls += p->pairs[i].count;
		x->calls += p->pairs[i].count;
	}
	for (i = 0; i < p->n_threads; i++)
		if (p->threads[i].rank < x->n_ranks)
			x->ranks[p->threads[i].rank].threads++;
	for (i = 0; i < p->n_processes; i++) {
		struct rank_info *r;

		if (p->processes[i].rank < 0 || p->processes[i].rank >= x->n_ranks)
			continue;
		r = &x->ranks[p->processes[i].rank];
		if (!r->processes++)
			r->first_process = i;
	}
}

/* Per-region sums, and each region's pairs as one run of order[] sorted by rank. */
static void region_facts(const struct sb_profile *p, struct facts *x)
{
	struct region_info *ri;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		x->order[i] = i;
	qsort_r(x->order, p->n_pairs, sizeof(*x->order), cmp_pair_order, (void *)p);
	for (i = 0; i < p->n_pairs; i++) {
		const struct sb_pair *pr = &p->pairs[x->order[i]];

		if (pr->region >= p->n_regions)
			continue;
		ri = &x->regions[pr->region];
		if (!ri->n)
			ri->first = i;
		ri->n++;
		ri->calls += pr->count;
		ri->total = add_sat(ri->total, pr->stats.total);
	}
}

static int facts_build(const struct sb_profile *p, struct facts *x)
{
	size_t i;

	*x = (struct facts){ .n_ranks = sb_profile_rank_count(p) };
	x->ranks = calloc((size_t)x->n_ranks + 1, sizeof(*x->ranks));
	x->regions = calloc(p->n_regions + 1, sizeof(*x->regions));
	x->order = calloc(p->n_pairs + 1, sizeof(*x->order));
	x->meta = calloc(p->n_meta + 1, sizeof(*x->meta));
	if (!x->ranks || !x->regions || !x->order || !x->meta) {
		facts_free(x);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_meta; i++)
		x->meta[i] = &p->meta[i];
	qsort(x->meta, p->n_meta, sizeof(*x->meta), cmp_meta);
	rank_facts(p, x);
	region_facts(p, x);
	x->base = time_base(p);
	return 0;
}

/* ---- text: tables whose columns line up, built in memory first ---- */

struct grid {
	const char *align;	/* one 'l' or 'r' per column */
	size_t cols;
	size_t n;		/* cells so far */
	size_t cap;
	char **cells;
	int err;
};

static void grid_init(struct grid *g, const char *align)
{
	*g = (struct grid){ .align = align, .cols = strlen(align) };
}

static void grid_free(struct grid *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->cells[i]);
	free(g->cells);
}

static void grid_cell(struct grid *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void grid_cell(struct grid *g, const char *fmt, ...)
{
	char **q, *s;
	va_list ap;
	int r;

	if (g->err)
		return;
	if (g->n == g->cap) {
		q = realloc(g->cells, (g->cap ? g->cap * 2 : 64) * sizeof(*q));
		if (!q) {
			g->err = -ENOMEM;
			return;
		}
		g->cells = q;
		g->cap = g->cap ? g->cap * 2 : 64;
	}
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		g->err = -ENOMEM;
		return;
	}
	g->cells[g->n++] = s;
}

/* A duration or clock value in human units, or what stands in when it is unknown. */
static void grid_ns(struct grid *g, int64_t ns, const char *unknown)
{
	char buf[FORMAT_NS_MAX + 1];

	if (ns < 0) {
		grid_cell(g, "%s", unknown);
		return;
	}
	format_ns(buf, sizeof(buf), ns);
	grid_cell(g, "%s", buf);
}

/* A clock value as an offset from the recording's start. */
static void grid_at(struct grid *g, int64_t ns, int64_t base, const char *unknown)
{
	char buf[FORMAT_NS_MAX + 1];

	if (ns < 0) {
		grid_cell(g, "%s", unknown);
		return;
	}
	format_ns(buf, sizeof(buf), ns - base);
	grid_cell(g, "%s%s", ns >= base ? "+" : "", buf);
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

/* Two spaces of indent and two between columns; the last column is never padded. */
static int grid_print(FILE *f, struct grid *g)
{
	size_t *width, c, i, w;

	if (g->err)
		return g->err;
	width = calloc(g->cols, sizeof(*width));
	if (!width)
		return -ENOMEM;
	for (i = 0; i < g->n; i++) {
		w = format_width(g->cells[i]);
		if (w > width[i % g->cols])
			width[i % g->cols] = w;
	}
	for (i = 0; i < g->n; i++) {
		c = i % g->cols;
		fputs("  ", f);
		if (g->align[c] == 'r') {
			format_right(f, g->cells[i], width[c]);
		} else {
			format_text(f, g->cells[i]);
			if (c + 1 < g->cols)
				pad(f, width[c] - format_width(g->cells[i]));
		}
		if (c + 1 == g->cols)
			fputc('\n', f);
	}
	free(width);
	return 0;
}

static void text_counter(FILE *f, const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	fprintf(f, "%-19s", key);
	if (!m)
		fputs("not recorded", f);
	else if (m->is_int)
		fprintf(f, "%" PRId64, m->i);
	else
		format_text(f, m->s ? m->s : "");
	fputc('\n', f);
}

static void text_header(FILE *f, const struct sb_profile *p, const struct inspect_opts *o,
			const struct facts *x)
{
	bool any = false;
	const char *name;
	unsigned bit;
	size_t i;

	fputs("file               ", f);
	format_text(f, o->path ? o->path : "-");
	fputs("\nformat             ", f);
	format_text(f, p->format ? p->format : "unknown");
	fputc('\n', f);
	fprintf(f, "schema             %d\n", p->schema);
	if (p->agg.on)
		fprintf(f, "calls              %" PRIu64 ", summed (record --aggregate): %zu rows of "
			"%zu region paths, window %" PRId64 " ns (0: the whole recording)\n", x->calls,
			p->agg.n_rows, p->agg.n_paths, p->agg.window_ns);
	else
		fprintf(f, "events             %" PRIu64 "\n", x->calls);
	fputs("optional columns  ", f);
	for (i = 0; column_at(i, &bit, &name); i++) {
		if (!(p->columns & bit))
			continue;
		fprintf(f, "%s%s", any ? ", " : " ", name);
		any = true;
	}
	fputs(any ? "\n" : " none\n", f);
	text_counter(f, p, "lost_events");
	text_counter(f, p, "open_calls_dropped");
}

static int text_meta(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	struct grid g;
	size_t i;
	int r;

	fprintf(f, "\nmetadata: %zu %s\n", p->n_meta,
		format_plural(p->n_meta, "attribute", "attributes"));
	if (!p->n_meta)
		return 0;
	grid_init(&g, "ll");
	for (i = 0; i < p->n_meta; i++) {
		grid_cell(&g, "%s", x->meta[i]->key);
		if (x->meta[i]->is_int)
			grid_cell(&g, "%" PRId64, x->meta[i]->i);
		else
			grid_cell(&g, "%s", x->meta[i]->s ? x->meta[i]->s : "");
	}
	r = grid_print(f, &g);
	grid_free(&g);
	return r;
}

static void rank_processes(struct grid *g, const struct sb_profile *p, const struct rank_info *ri)
{
	const struct sb_process *first;

	if (!ri->processes) {
		grid_cell(g, "-");
		grid_cell(g, "-");
		return;
	}
	first = &p->processes[ri->first_process];
	if (ri->processes == 1)
		grid_cell(g, "%" PRId64, first->pid);
	else
		grid_cell(g, "%" PRId64 " (+%zu)", first->pid, ri->processes - 1);
	grid_cell(g, "%s", first->command ? first->command : "");
}

static int text_ranks(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	struct grid g;
	uint32_t i;
	int r;

	fprintf(f, "\nranks: %u\n", x->n_ranks);
	if (!x->n_ranks)
		return 0;
	grid_init(&g, "rrrll");
	grid_cell(&g, "rank");
	grid_cell(&g, "threads");
	grid_cell(&g, "calls");
	grid_cell(&g, "pid");
	grid_cell(&g, "command");
	for (i = 0; i < x->n_ranks; i++) {
		grid_cell(&g, "%u", i);
		grid_cell(&g, "%zu", x->ranks[i].threads);
		grid_cell(&g, "%" PRIu64, x->ranks[i].calls);
		rank_processes(&g, p, &x->ranks[i]);
	}
	r = grid_print(f, &g);
	grid_free(&g);
	return r;
}

static int text_processes(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	const struct sb_process *q;
	struct grid g;
	size_t i;
	int r;

	if (!p->n_processes)
		return 0;
	fprintf(f, "\nprocesses: %zu\n", p->n_processes);
	grid_init(&g, "rrrrrrl");
	grid_cell(&g, "pid");
	grid_cell(&g, "ppid");
	grid_cell(&g, "rank");
	grid_cell(&g, "start");
	grid_cell(&g, "end");
	grid_cell(&g, "exit");
	grid_cell(&g, "command");
	for (i = 0; i < p->n_processes; i++) {
		q = &p->processes[i];
		grid_cell(&g, "%" PRId64, q->pid);
		grid_cell(&g, "%" PRId64, q->ppid);
		if (q->rank < 0)
			grid_cell(&g, "-");
		else
			grid_cell(&g, "%" PRId64, q->rank);
		grid_at(&g, q->start_ns, x->base, "-");
		grid_at(&g, q->end_ns, x->base, "alive");
		if (q->exit_code < 0)
			grid_cell(&g, "-");
		else
			grid_cell(&g, "%" PRId64, q->exit_code);
		grid_cell(&g, "%s", q->command ? q->command : "");
	}
	r = grid_print(f, &g);
	grid_free(&g);
	return r;
}

static int text_threads(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	const struct sb_thread *t;
	struct grid g;
	size_t i;
	int r;

	fprintf(f, "\nthreads: %zu\n", p->n_threads);
	if (!p->n_threads)
		return 0;
	grid_init(&g, "rrrrrrl");
	grid_cell(&g, "rank");
	grid_cell(&g, "index");
	grid_cell(&g, "tid");
	grid_cell(&g, "start");
	grid_cell(&g, "end");
	grid_cell(&g, "cpu");
	grid_cell(&g, "name");
	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[i];
		grid_cell(&g, "%u", t->rank);
		grid_cell(&g, "%" PRId64, t->index);
		grid_cell(&g, "%" PRId64, t->tid);
		grid_at(&g, t->start_ns, x->base, "-");
		grid_at(&g, t->end_ns, x->base, "alive");
		grid_ns(&g, t->cpu_ns, "-");
		grid_cell(&g, "%s", t->name ? t->name : "");
	}
	r = grid_print(f, &g);
	grid_free(&g);
	return r;
}

static void region_source(struct grid *g, const struct sb_region *rg)
{
	const char *file = rg->source_file && *rg->source_file ? rg->source_file : NULL;

	if (!file && rg->source_line < 0)
		grid_cell(g, "-");
	else if (rg->source_line < 0)
		grid_cell(g, "%s", file);
	else
		grid_cell(g, "%s:%" PRId64, file ? file : "?", rg->source_line);
}

/* One row per region over all ranks; below it, with several ranks, one row per rank. */
static void region_rows(struct grid *g, const struct sb_profile *p, const struct facts *x,
			size_t i)
{
	const struct sb_region *rg = &p->regions[i];
	const struct region_info *ri = &x->regions[i];
	const struct sb_pair *pr;
	size_t k;

	grid_cell(g, "%s", rg->name);
	region_source(g, rg);
	grid_cell(g, "%s", rg->tags && strcmp(rg->tags, "[]") ? rg->tags : "-");
	grid_cell(g, "%" PRIu64, ri->calls);
	grid_ns(g, ri->total, "-");
	if (x->n_ranks < 2)
		return;
	for (k = ri->first; k < ri->first + ri->n; k++) {
		pr = &p->pairs[x->order[k]];
		grid_cell(g, "  rank %u", pr->rank);
		grid_cell(g, "%s", "");
		grid_cell(g, "%s", "");
		grid_cell(g, "%" PRIu64, pr->count);
		grid_ns(g, pr->stats.total, "-");
	}
}

static int text_regions(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	struct grid g;
	size_t i;
	int r;

	fprintf(f, "\nregions: %zu\n", p->n_regions);
	if (!p->n_regions)
		return 0;
	grid_init(&g, "lllrr");
	grid_cell(&g, "region");
	grid_cell(&g, "source");
	grid_cell(&g, "tags");
	grid_cell(&g, "calls");
	grid_cell(&g, "total");
	for (i = 0; i < p->n_regions; i++)
		region_rows(&g, p, x, i);
	r = grid_print(f, &g);
	grid_free(&g);
	return r;
}

static int render_text(FILE *f, const struct sb_profile *p, const struct inspect_opts *o,
		       const struct facts *x)
{
	int r;

	text_header(f, p, o, x);
	r = text_meta(f, p, x);
	if (!r)
		r = text_ranks(f, p, x);
	if (!r)
		r = text_processes(f, p, x);
	if (!r)
		r = text_threads(f, p, x);
	if (!r)
		r = text_regions(f, p, x);
	return r;
}

/* ---- JSON: raw ns values, null for what is unknown ---- */

static void json_opt(FILE *f, const char *key, int64_t v)
{
	if (v < 0)
		fprintf(f, ", \"%s\": null", key);
	else
		fprintf(f, ", \"%s\": %" PRId64, key, v);
}

static void json_counter(FILE *f, const struct sb_profile *p, const char *key)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	fprintf(f, ",\n \"%s\": ", key);
	if (!m)
		fputs("null", f);
	else if (m->is_int)
		fprintf(f, "%" PRId64, m->i);
	else
		format_json_string(f, m->s ? m->s : "");
}

static void json_header(FILE *f, const struct sb_profile *p, const struct inspect_opts *o,
			const struct facts *x)
{
	bool any = false;
	const char *name;
	unsigned bit;
	size_t i;

	fputs("{\"file\": ", f);
	format_json_string(f, o->path ? o->path : "");
	fputs(", \"format\": ", f);
	format_json_string(f, p->format ? p->format : "");
	fprintf(f, ", \"schema\": %d,\n \"events\": %" PRIu64, p->schema, x->calls);
	if (p->agg.on)
		fprintf(f, ", \"aggregate\": {\"rows\": %zu, \"paths\": %zu, \"window_ns\": %"
			PRId64 "}", p->agg.n_rows, p->agg.n_paths, p->agg.window_ns);
	fputs(", \"columns\": [", f);
	for (i = 0; column_at(i, &bit, &name); i++) {
		if (!(p->columns & bit))
			continue;
		fprintf(f, "%s\"%s\"", any ? ", " : "", name);
		any = true;
	}
	fputc(']', f);
	json_counter(f, p, "lost_events");
	json_counter(f, p, "open_calls_dropped");
}

static void json_meta(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	size_t i;

	fputs(",\n \"metadata\": {", f);
	for (i = 0; i < p->n_meta; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		format_json_string(f, x->meta[i]->key);
		fputs(": ", f);
		if (x->meta[i]->is_int)
			fprintf(f, "%" PRId64, x->meta[i]->i);
		else
			format_json_string(f, x->meta[i]->s ? x->meta[i]->s : "");
	}
	fputs(p->n_meta ? "\n }" : "}", f);
}

static void json_ranks(FILE *f, const struct sb_profile *p, const struct facts *x)
{
	const struct sb_process *q;
	bool first;
	uint32_t i;
	size_t k;

	fputs(",\n \"ranks\": [", f);
	for (i = 0; i < x->n_ranks; i++) {
		fprintf(f, "%s{\"rank\": %u, \"threads\": %zu, \"calls\": %" PRIu64
			", \"pids\": [", i ? ",\n  " : "\n  ", i, x->ranks[i].threads,
			x->ranks[i].calls);
		first = true;
		for (k = 0; k < p->n_processes; k++) {
			q = &p->processes[k];
			if (q->rank != (int64_t)i)
				continue;
			fprintf(f, "%s%" PRId64, first ? "" : ", ", q->pid);
			first = false;
		}
		fputs("], \"command\": ", f);
		if (x->ranks[i].processes)
			format_json_string(f, p->processes[x->ranks[i].first_process].command);
		else
			fputs("null", f);
		fputc('}', f);
	}
	fputs(x->n_ranks ? "\n ]" : "]", f);
}

static void json_processes(FILE *f, const struct sb_profile *p)
{
	const struct sb_process *q;
	size_t i;

	fputs(",\n \"processes\": [", f);
	for (i = 0; i < p->n_processes; i++) {
		q = &p->processes[i];
		fprintf(f, "%s{\"pid\": %" PRId64 ", \"ppid\": %" PRId64, i ? ",\n  " : "\n  ",
			q->pid, q->ppid);
		json_opt(f, "rank", q->rank);
		json_opt(f, "start_ns", q->start_ns);
		json_opt(f, "end_ns", q->end_ns);
		json_opt(f, "exit_code", q->exit_code);
		fputs(", \"command\": ", f);
		format_json_string(f, q->command ? q->command : "");
		fputc('}', f);
	}
	fputs(p->n_processes ? "\n ]" : "]", f);
}

static void json_threads(FILE *f, const struct sb_profile *p)
{
	const struct sb_thread *t;
	size_t i;

	fputs(",\n \"threads\": [", f);
	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[i];
		fprintf(f, "%s{\"rank\": %u, \"index\": %" PRId64 ", \"tid\": %" PRId64,
			i ? ",\n  " : "\n  ", t->rank, t->index, t->tid);
		fputs(", \"name\": ", f);
		format_json_string(f, t->name ? t->name : "");
		json_opt(f, "start_ns", t->start_ns);
		json_opt(f, "end_ns", t->end_ns);
		json_opt(f, "cpu_ns", t->cpu_ns);
		fputc('}', f);
	}
	fputs(p->n_threads ? "\n ]" : "]", f);
}

static void json_region(FILE *f, const struct sb_profile *p, const struct facts *x, size_t i)
{
	const struct sb_region *rg = &p->regions[i];
	const struct region_info *ri = &x->regions[i];
	const struct sb_pair *pr;
	size_t k;

	fprintf(f, "{\"id\": %zu, \"name\": ", i);
	format_json_string(f, rg->name);
	fputs(", \"source_file\": ", f);
	if (rg->source_file && *rg->source_file)
		format_json_string(f, rg->source_file);
	else
		fputs("null", f);
	json_opt(f, "source_line", rg->source_line);
	/* The list as stored: the file's tags column is JSON text, not checked here. */
	fputs(", \"tags\": ", f);
	format_json_string(f, rg->tags ? rg->tags : "[]");
	fprintf(f, ", \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"ranks\": [",
		ri->calls, ri->total);
	for (k = ri->first; k < ri->first + ri->n; k++) {
		pr = &p->pairs[x->order[k]];
		fprintf(f, "%s{\"rank\": %u, \"calls\": %" PRIu64 ", \"total_ns\": %" PRId64 "}",
			k > ri->first ? ", " : "", pr->rank, pr->count, pr->stats.total);
	}
	fputs("]}", f);
}

static void render_json(FILE *f, const struct sb_profile *p, const struct inspect_opts *o,
			const struct facts *x)
{
	size_t i;

	json_header(f, p, o, x);
	json_meta(f, p, x);
	json_ranks(f, p, x);
	json_processes(f, p);
	json_threads(f, p);
	fputs(",\n \"regions\": [", f);
	for (i = 0; i < p->n_regions; i++) {
		fputs(i ? ",\n  " : "\n  ", f);
		json_region(f, p, x, i);
	}
	fputs(p->n_regions ? "\n ]}\n" : "]}\n", f);
}

int sb_inspect_render(FILE *f, const struct sb_profile *p, const struct inspect_opts *o)
{
	struct facts x;
	int r = 0;

	if (facts_build(p, &x))
		return -ENOMEM;
	if (o->format == SB_REPORT_JSON)
		render_json(f, p, o, &x);
	else
		r = render_text(f, p, o, &x);
	facts_free(&x);
	if (!r && ferror(f))
		r = -EIO;
	return r;
}

/* Write the description to o->output or stdout; 0, or the exit status of a failure. */
static int write_inspect(const struct inspect_opts *o, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };
	struct sb_output out;

	if (sb_output_open(&out, o->output, &err)) {
		fprintf(stderr, "scope-bpf inspect: %s\n", err.msg);
		return 1;
	}
	return sb_output_close(&out, sb_inspect_render(out.f, p, o), "inspect");
}

int cmd_inspect(int argc, char **argv)
{
	struct sb_error err = { .msg = "" };
	struct inspect_opts o;
	struct sb_profile p;
	int r;

	if (inspect_parse_args(argc, argv, &o, &err))
		return sb_usage_error("inspect", err.msg);
	if (o.help) {
		usage(stdout);
		return 0;
	}
	if (sb_load_profile("inspect", o.path, &p) < 0)
		return SB_EXIT_USAGE;
	r = write_inspect(&o, &p);
	sb_profile_free(&p);
	return r;
}
