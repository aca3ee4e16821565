/* Writes the HTML report: the page of user/render/html/page.html with the profile as JSON inside. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree_mpi.h"
#include "analysis/counters.h"
#include "analysis/mpi.h"
#include "analysis/roofline.h"
#include "util/text_format.h"
#include "model/health.h"
#include "render/html.h"
#include "render/html_samples.h"
#include "render/html_views.h"
#include "html_page.h"
#include "render/report.h"
#include "util/version.h"

/* The duration histograms' bins: this many per factor of ten, the first at 1 ns. */
#define BINS_PER_DECADE 5
#define N_BINS (19 * BINS_PER_DECADE)	/* up to 10^19 ns, past INT64_MAX */

static const double quantiles[] = { 0, 0.25, 0.5, 0.75, 0.9, 0.99, 1 };
#define N_QUANTILES (sizeof(quantiles) / sizeof(quantiles[0]))

/* Everything written into the data <script> passes here, so no string can end it early. */
struct script_filter {
	FILE *out;
	bool lt;	/* a '<' held back until the next byte shows what it starts */
};

static ssize_t filter_write(void *cookie, const char *buf, size_t n)
{
	struct script_filter *s = cookie;
	const char *end = buf + n, *lt;

	while (buf < end) {
		if (s->lt) {
			s->lt = false;
			/* '<' appears only inside JSON strings, where both escapes are legal. */
			if (*buf == '/')
				fputs("<\\", s->out);
			else if (*buf == '!')
				fputs("\\u003c", s->out);
			else
				fputc('<', s->out);
		}
		lt = memchr(buf, '<', (size_t)(end - buf));
		if (!lt)
			lt = end;
		fwrite(buf, 1, (size_t)(lt - buf), s->out);
		if (lt < end)
			s->lt = true;
		buf = lt < end ? lt + 1 : end;
	}
	return ferror(s->out) ? -1 : (ssize_t)n;
}

static int filter_close(void *cookie)
{
	struct script_filter *s = cookie;

	if (s->lt)
		fputc('<', s->out);
	s->lt = false;
	return ferror(s->out) ? -1 : 0;
}

/* Text for an HTML element or attribute. */
static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static bool rank_in(const struct sb_html_opts *o, uint32_t rank)
{
	return o->rank < 0 || (int64_t)rank == o->rank;
}

static void json_int_or_null(FILE *j, int64_t v, bool known)
{
	if (known)
		fprintf(j, "%" PRId64, v);
	else
		fputs("null", j);
}

static void data_meta(FILE *j, const struct sb_profile *p)
{
	size_t i;

	fputs(",\n\"metadata\": {", j);
	for (i = 0; i < p->n_meta; i++) {
		fputs(i ? ", " : "", j);
		format_json_string(j, p->meta[i].key);
		fputs(": ", j);
		if (p->meta[i].is_int)
			fprintf(j, "%" PRId64, p->meta[i].i);
		else
			format_json_string(j, p->meta[i].s ? p->meta[i].s : "");
	}
	fputc('}', j);
}

/* Every non-zero loss counter with its label and cause, for the page's notes. */
static void data_health(FILE *j, const struct sb_profile *p)
{
	const struct sb_health_key *k;
	bool first = true;
	int64_t v;
	size_t i;

	fputs(", \"health\": [", j);
	for (i = 0; i < sb_health_n_keys; i++) {
		k = &sb_health_keys[i];
		v = sb_health_value(p, k->key);
		if (!v)
			continue;
		fprintf(j, "%s{\"key\": \"%s\", \"count\": %" PRId64 ", \"label\": ",
			first ? "" : ", ", k->key, v);
		format_json_string(j, sb_health_label(p, k));
		fputs(", \"hint\": ", j);
		format_json_string(j, sb_health_hint(p, k));
		fputc('}', j);
		first = false;
	}
	fputc(']', j);
}

static void data_header(FILE *j, const struct sb_profile *p, const struct sb_calltree *t,
			const struct sb_html_opts *o)
{
	int64_t span = sb_report_span(p, t);
	size_t i, threads = 0;

	for (i = 0; i < p->n_threads; i++)
		threads += rank_in(o, p->threads[i].rank);
	fputs("{\"generator\": \"scope-bpf " SCOPE_BPF_VERSION "\", \"title\": ", j);
	format_json_string(j, o->title ? o->title : "");
	fputs(", \"format\": ", j);
	format_json_string(j, p->format ? p->format : "");
	fprintf(j, ", \"schema\": %d, \"mode\": \"%s\", \"rank\": ", p->schema,
		t->flat ? "flat" : "tree");
	json_int_or_null(j, o->rank, o->rank >= 0);
	fputs(", \"recording_ns\": ", j);
	json_int_or_null(j, span, span > 0);
	fputs(", \"pct_base_ns\": ", j);
	json_int_or_null(j, sb_report_pct_base(p, t, sb_report_ranks_shown(p, o->rank)),
			 span > 0);
	fprintf(j, ", \"ranks\": %u, \"threads\": %zu, \"calls\": %" PRIu64
		", \"offcpu\": %s, \"events\": %s", sb_profile_rank_count(p), threads, t->calls,
		p->columns & SB_COL_OFFCPU || sb_aggregate_has(&p->agg, SB_METRIC_OFFCPU) ?
		"true" : "false", p->events ? "true" : "false");
	/* An aggregate's page says why it has no timeline and what its sums show. */
	if (p->agg.on)
		fprintf(j, ", \"aggregate\": {\"window_ns\": %" PRId64 ", \"rows\": %zu}",
			p->agg.window_ns, p->agg.n_rows);
	data_meta(j, p);
	data_health(j, p);
}

/*
 * An MPI call region's function ("mpi:recv"), its arguments, and the region
 * whose colour every region of the function takes: the legend and the
 * timeline show one colour per function, not one per peer and tag.
 */
static void data_region_mpi(FILE *j, const struct sb_mpi_fns *f, size_t i)
{
	if (f->of[i] < 0)
		return;
	fputs(", \"fn\": ", j);
	format_json_string(j, f->name[f->of[i]]);
	fputs(", \"detail\": ", j);
	format_json_string(j, f->detail[i]);
	fprintf(j, ", \"colour\": %u", f->first[f->of[i]]);
}

static void data_regions(FILE *j, const struct sb_profile *p, const struct sb_mpi_fns *f)
{
	const struct sb_region *r;
	size_t i;

	fputs(",\n\"regions\": [", j);
	for (i = 0; i < p->n_regions; i++) {
		r = &p->regions[i];
		fputs(i ? ",\n " : "\n ", j);
		fputs("{\"name\": ", j);
		format_json_string(j, r->name);
		fputs(", \"file\": ", j);
		format_json_string(j, r->source_file ? r->source_file : "");
		fprintf(j, ", \"line\": %" PRId64 ", \"tags\": ", r->source_line);
		/* A string, not raw JSON: the page parses it and survives a broken one. */
		format_json_string(j, r->tags ? r->tags : "[]");
		data_region_mpi(j, f, i);
		fputc('}', j);
	}
	fputs("]", j);
}

/*
 * Call tree rows in pre-order: [region, parent row, depth, calls, total, min,
 * max, own, offcpu], then for an MPI function's row its name and 1, for a
 * call region below it its arguments (calltree_mpi.h).
 */
static int data_nodes(FILE *j, const struct sb_calltree *t)
{
	const struct sb_ct_node *n;
	uint32_t *row, i, k = 0;

	row = malloc((size_t)t->n_nodes * sizeof(*row));
	if (!row)
		return -ENOMEM;
	fputs(",\n\"nodes\": [", j);
	for (i = sb_calltree_next(t, 0); i != SB_CT_NONE; i = sb_calltree_next(t, i)) {
		n = &t->nodes[i];
		row[i] = k;
		fprintf(j, "%s[%u, %" PRId64 ", %u, %" PRIu64 ", ", k ? ",\n " : "\n ", n->region,
			n->parent ? (int64_t)row[n->parent] : -1, n->depth, n->calls);
		json_int_or_null(j, n->total, n->total != SB_CT_UNKNOWN);
		fputs(", ", j);
		json_int_or_null(j, n->min, n->min != SB_CT_UNKNOWN);
		fputs(", ", j);
		json_int_or_null(j, n->max, n->max != SB_CT_UNKNOWN);
		fputs(", ", j);
		json_int_or_null(j, n->own, n->own != SB_CT_UNKNOWN);
		fputs(", ", j);
		json_int_or_null(j, n->offcpu, n->offcpu != SB_CT_UNKNOWN);
		/* A label other than the region's name is another string. */
		if (n->fn != SB_CT_NONE || sb_calltree_label(t, i) != sb_calltree_name(t, i)) {
			fputs(", ", j);
			format_json_string(j, sb_calltree_label(t, i));
		}
		fputs(n->fn != SB_CT_NONE ? ", 1]" : "]", j);
		k++;
	}
	fputs("]", j);
	free(row);
	return 0;
}

/* Which calls the timeline shows: all of them, or the longest max_calls. */
struct pick {
	size_t total;		/* calls after the rank filter */
	int64_t shorter;	/* calls shorter than this are left out */
	size_t ties;		/* calls exactly this long to keep, in file order */
	int64_t t0, t1;		/* first start and last end of the kept calls */
};

/* Walks the kept calls in file order. */
struct walk {
	const struct sb_profile *p;
	const struct sb_html_opts *o;
	size_t pair, ev;
	int64_t shorter;
	size_t ties;
};

static void walk_init(struct walk *w, const struct sb_profile *p, const struct sb_html_opts *o,
		      const struct pick *k)
{
	*w = (struct walk){ .p = p, .o = o, .shorter = k->shorter, .ties = k->ties };
}

static const struct sb_event *walk_next(struct walk *w, const struct sb_pair **pair)
{
	const struct sb_pair *pr;
	const struct sb_event *e;
	int64_t d;

	for (; w->pair < w->p->n_pairs; w->pair++, w->ev = 0) {
		pr = &w->p->pairs[w->pair];
		if (!rank_in(w->o, pr->rank))
			continue;
		while (w->ev < pr->count) {
			e = &w->p->events[pr->offset + w->ev++];
			d = e->end - e->start;
			if (d < w->shorter || (d == w->shorter && !w->ties))
				continue;
			if (d == w->shorter)
				w->ties--;
			*pair = pr;
			return e;
		}
	}
	return NULL;
}

static int cmp_desc(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x < y) - (x > y);
}

static int cmp_asc(const void *a, const void *b)
{
	return cmp_desc(b, a);
}

static int pick_calls(const struct sb_profile *p, const struct sb_html_opts *o, size_t cap,
		      struct pick *k)
{
	const struct sb_pair *pr;
	const struct sb_event *e;
	struct walk w;
	int64_t *d;
	size_t i, n = 0;

	*k = (struct pick){ .shorter = INT64_MIN, .t0 = INT64_MAX, .t1 = INT64_MIN };
	for (i = 0; i < p->n_pairs; i++)
		k->total += rank_in(o, p->pairs[i].rank) ? p->pairs[i].count : 0;
	if (k->total > cap) {
		d = malloc(k->total * sizeof(*d));
		if (!d)
			return -ENOMEM;
		walk_init(&w, p, o, k);
		while ((e = walk_next(&w, &pr)))
			d[n++] = e->end - e->start;
		qsort(d, n, sizeof(*d), cmp_desc);
		k->shorter = d[cap - 1];
		for (i = cap; i > 0 && d[i - 1] == k->shorter; i--)
			k->ties++;
		free(d);
	}
	walk_init(&w, p, o, k);
	while ((e = walk_next(&w, &pr))) {
		k->t0 = e->start < k->t0 ? e->start : k->t0;
		k->t1 = e->end > k->t1 ? e->end : k->t1;
	}
	return 0;
}

/*
 * The lanes of the kept calls and of what the kinds' layers show on threads
 * (samples), sorted and unique; how many, or -ENOMEM.
 */
static ssize_t collect_lanes(const struct sb_profile *p, const struct sb_html_opts *o,
			     const struct pick *k, size_t kept, const struct sb_html_layer *layers,
			     uint64_t **lanes)
{
	const struct sb_pair *pr;
	const struct sb_event *e;
	size_t n = 0, i, u = 0, room = kept + 1;
	struct walk w;
	uint64_t *l;

	for (i = 0; i < sb_html_n_kind_views; i++)
		room += sb_html_kind_views[i].lanes ? layers[i].shown : 0;
	l = malloc(room * sizeof(*l));
	if (!l)
		return -ENOMEM;
	walk_init(&w, p, o, k);
	while ((e = walk_next(&w, &pr)))
		l[n++] = sb_html_lane_key(pr->rank, e->thread);
	for (i = 0; i < sb_html_n_kind_views; i++)
		if (sb_html_kind_views[i].lanes)
			n += sb_html_kind_views[i].lanes(&layers[i], l + n);
	qsort(l, n, sizeof(*l), sb_html_cmp_key);
	for (i = 0; i < n; i++)
		if (!u || l[i] != l[u - 1])
			l[u++] = l[i];
	*lanes = l;
	return (ssize_t)u;
}

/* Thread rows by (rank, index), then in file order: a lane's row is the first of its key. */
static int cmp_thread(const void *a, const void *b)
{
	const struct sb_thread *x = *(const struct sb_thread *const *)a;
	const struct sb_thread *y = *(const struct sb_thread *const *)b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return (x > y) - (x < y);
}

static int cmp_thread_key(const void *key, const void *row)
{
	const struct sb_thread *x = key, *y = *(const struct sb_thread *const *)row;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The row of (rank, index) among the n sorted rows: a search, as a file may hold many threads. */
static const struct sb_thread *find_thread(const struct sb_thread **sorted, size_t n,
					   uint32_t rank, int64_t index)
{
	const struct sb_thread key = { .rank = rank, .index = index }, **at;

	at = bsearch(&key, sorted, n, sizeof(*sorted), cmp_thread_key);
	while (at && at > sorted && !cmp_thread_key(&key, at - 1))
		at--;
	return at ? *at : NULL;
}

static int data_lanes(FILE *j, const struct sb_profile *p, const uint64_t *lanes, size_t n)
{
	const struct sb_thread *th, **sorted;
	uint32_t rank;
	int64_t thread;
	size_t i;

	sorted = malloc((p->n_threads ? p->n_threads : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < p->n_threads; i++)
		sorted[i] = &p->threads[i];
	qsort(sorted, p->n_threads, sizeof(*sorted), cmp_thread);
	fputs(",\n \"lanes\": [", j);
	for (i = 0; i < n; i++) {
		rank = (uint32_t)(lanes[i] >> 32);
		thread = (int64_t)(uint32_t)lanes[i] - 1;
		th = thread >= 0 ? find_thread(sorted, p->n_threads, rank, thread) : NULL;
		fprintf(j, "%s{\"rank\": %u, \"thread\": %" PRId64 ", \"tid\": ", i ? ", " : "",
			rank, thread);
		json_int_or_null(j, th ? th->tid : 0, th != NULL);
		fputs(", \"name\": ", j);
		format_json_string(j, th && th->name ? th->name : "");
		fputc('}', j);
	}
	fputc(']', j);
	free(sorted);
	return 0;
}

enum column { COL_REGION, COL_LANE, COL_START, COL_DUR, COL_OFFCPU };

static const char *const column_names[] = { "region", "lane", "start", "dur", "offcpu" };

/* One column of the kept calls, as a JSON array; times from t0. */
static void data_column(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o,
			const struct pick *k, enum column c, const uint64_t *lanes, size_t n_lanes)
{
	const struct sb_pair *pr;
	const struct sb_event *e;
	struct walk w;
	uint64_t key, *at;
	bool first = true;
	int64_t v = 0;

	fprintf(j, ",\n \"%s\": [", column_names[c]);
	walk_init(&w, p, o, k);
	while ((e = walk_next(&w, &pr))) {
		switch (c) {
		case COL_REGION:
			v = pr->region;
			break;
		case COL_LANE:
			key = sb_html_lane_key(pr->rank, e->thread);
			at = bsearch(&key, lanes, n_lanes, sizeof(*lanes), sb_html_cmp_key);
			v = at ? at - lanes : 0;
			break;
		case COL_START:
			v = e->start - k->t0;
			break;
		case COL_DUR:
			v = e->end - e->start;
			break;
		case COL_OFFCPU:
			v = e->metric[SB_METRIC_OFFCPU] > 0 ? e->metric[SB_METRIC_OFFCPU] : 0;
			break;
		}
		fprintf(j, first ? "%" PRId64 : ",%" PRId64, v);
		first = false;
	}
	fputc(']', j);
}

/* The host calls' time range widened to what the kinds' layers show, which have their own. */
static void span_more(struct pick *k, const struct sb_html_layer *layers)
{
	size_t i;

	for (i = 0; i < sb_html_n_kind_views; i++) {
		if (!layers[i].shown)
			continue;
		k->t0 = layers[i].t0 < k->t0 ? layers[i].t0 : k->t0;
		k->t1 = layers[i].t1 > k->t1 ? layers[i].t1 : k->t1;
	}
}

/* Each kind's layer on the timeline (-ENOMEM), released by release_layers() also after. */
static int pick_layers(const struct sb_profile *p, const struct sb_html_opts *o, size_t cap,
		       struct sb_html_layer **layers)
{
	const struct sb_html_kind_view *v;
	size_t i;
	int r = 0;

	*layers = calloc(sb_html_n_kind_views + 1, sizeof(**layers));
	if (!*layers)
		return -ENOMEM;
	for (i = 0; i < sb_html_n_kind_views && !r; i++) {
		v = &sb_html_kind_views[i];
		if (v->pick)
			r = v->pick(&(*layers)[i], p, o->rank, cap);
	}
	return r;
}

static void release_layers(struct sb_html_layer *layers)
{
	size_t i;

	for (i = 0; layers && i < sb_html_n_kind_views; i++)
		if (sb_html_kind_views[i].release)
			sb_html_kind_views[i].release(&layers[i]);
	free(layers);
}

static int write_layers(FILE *j, const struct sb_html_layer *layers, int64_t t0,
			const uint64_t *lanes, size_t n_lanes)
{
	size_t i;
	int r = 0;

	for (i = 0; i < sb_html_n_kind_views && !r; i++)
		if (sb_html_kind_views[i].write)
			r = sb_html_kind_views[i].write(j, &layers[i], t0, lanes, n_lanes);
	return r;
}

static bool layers_shown(const struct sb_html_layer *layers)
{
	size_t i;

	for (i = 0; i < sb_html_n_kind_views; i++)
		if (layers[i].shown)
			return true;
	return false;
}

static int data_timeline(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o)
{
	size_t cap = o->max_calls ? o->max_calls : SB_HTML_MAX_CALLS, kept;
	struct sb_html_layer *layers = NULL;
	uint64_t *lanes = NULL;
	struct pick k;
	ssize_t n_lanes;
	bool any;
	int r;

	fputs(",\n\"timeline\": {", j);
	/* An aggregate keeps no call: its event rows are empty, its index counts its sums. */
	if (!p->events || p->agg.on) {
		fputs("\"total\": 0, \"shown\": 0, \"truncated\": false, \"lanes\": []}", j);
		return 0;
	}
	r = pick_calls(p, o, cap, &k);
	if (r)
		return r;
	kept = k.total < cap ? k.total : cap;
	r = pick_layers(p, o, cap, &layers);
	n_lanes = r ? r : collect_lanes(p, o, &k, kept, layers, &lanes);
	if (n_lanes < 0) {
		release_layers(layers);
		return (int)n_lanes;
	}
	span_more(&k, layers);
	any = kept || layers_shown(layers);
	fprintf(j, "\"total\": %zu, \"shown\": %zu, \"truncated\": %s, \"t0\": %" PRId64
		", \"span\": %" PRId64, k.total, kept, kept < k.total ? "true" : "false",
		any ? k.t0 : 0, any ? k.t1 - k.t0 : 0);
	r = data_lanes(j, p, lanes, (size_t)n_lanes);
	if (!r) {
		data_column(j, p, o, &k, COL_REGION, lanes, (size_t)n_lanes);
		data_column(j, p, o, &k, COL_LANE, lanes, (size_t)n_lanes);
		data_column(j, p, o, &k, COL_START, lanes, (size_t)n_lanes);
		data_column(j, p, o, &k, COL_DUR, lanes, (size_t)n_lanes);
		if (p->columns & SB_COL_OFFCPU)
			data_column(j, p, o, &k, COL_OFFCPU, lanes, (size_t)n_lanes);
		r = write_layers(j, layers, k.t0, lanes, (size_t)n_lanes);
	}
	if (!r)
		fputc('}', j);
	release_layers(layers);
	free(lanes);
	return r;
}

/* Histogram bin of a duration: floor(log10(d) * BINS_PER_DECADE), durations below 1 ns in bin 0. */
static int duration_bin(int64_t d)
{
	int b;

	if (d <= 1)
		return 0;
	b = (int)floor(log10((double)d) * BINS_PER_DECADE + 1e-9);
	return b < N_BINS ? b : N_BINS - 1;
}

/* Quantiles and a sparse histogram of the sorted durations d[0..n-1]. */
static void data_region_durations(FILE *j, uint32_t region, const char *fn, const int64_t *d,
				  size_t n, bool first)
{
	int64_t q[N_QUANTILES];
	uint64_t bins[N_BINS] = { 0 };
	size_t i;

	for (i = 0; i < N_QUANTILES; i++)
		q[i] = d[(size_t)(quantiles[i] * (double)(n - 1) + 0.5)];
	for (i = 0; i < n; i++)
		bins[duration_bin(d[i])]++;
	sb_html_durations_row(j, region, fn, n, q, bins, N_BINS, first);
}

/*
 * The index rows of each region, in file order: region r's are
 * rows[first[r] .. first[r + 1]). A counting sort, so the durations of every
 * region cost one pass over the rows, not one pass per region. An MPI
 * function's rows are all its call regions', under its first region.
 */
struct region_rows {
	uint32_t *rows;
	size_t *first;
};

/* The region whose durations region's calls are among: its MPI function's first, else itself. */
static uint32_t durations_of(const struct sb_mpi_fns *f, uint32_t region)
{
	return f->of[region] < 0 ? region : f->first[f->of[region]];
}

static int region_rows_build(struct region_rows *rr, const struct sb_profile *p,
			     const struct sb_mpi_fns *f)
{
	size_t i, *at;

	rr->rows = malloc((p->n_pairs ? p->n_pairs : 1) * sizeof(*rr->rows));
	rr->first = calloc(p->n_regions + 1, sizeof(*rr->first));
	at = calloc(p->n_regions + 1, sizeof(*at));
	if (!rr->rows || !rr->first || !at) {
		free(at);
		return -ENOMEM;
	}
	for (i = 0; i < p->n_pairs; i++)
		rr->first[durations_of(f, p->pairs[i].region) + 1]++;
	for (i = 0; i < p->n_regions; i++)
		rr->first[i + 1] += rr->first[i];
	memcpy(at, rr->first, (p->n_regions + 1) * sizeof(*at));
	for (i = 0; i < p->n_pairs; i++)
		rr->rows[at[durations_of(f, p->pairs[i].region)]++] = (uint32_t)i;
	free(at);
	return 0;
}

static void region_rows_free(struct region_rows *rr)
{
	free(rr->rows);
	free(rr->first);
}

/* Durations of region r's calls (rank filter applied) into d, sorted; returns how many. */
static size_t region_durations(const struct sb_profile *p, const struct sb_html_opts *o,
			       const struct region_rows *rr, uint32_t r, int64_t *d)
{
	const struct sb_pair *pr;
	size_t i, e, n = 0;

	for (i = rr->first[r]; i < rr->first[r + 1]; i++) {
		pr = &p->pairs[rr->rows[i]];
		if (!rank_in(o, pr->rank))
			continue;
		for (e = pr->offset; e < pr->offset + pr->count; e++)
			d[n++] = p->events[e].end - p->events[e].start;
	}
	qsort(d, n, sizeof(*d), cmp_asc);
	return n;
}

/* Per region and MPI function, over all its calls (not just those on the timeline). */
static int data_durations(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o,
			  const struct sb_mpi_fns *f)
{
	struct region_rows rr = { 0 };
	size_t *count, most = 0, i;
	bool first = true;
	int64_t *d = NULL;
	uint32_t r;
	int ret = 0;

	fprintf(j, ",\n\"bins_per_decade\": %d, \"quantiles\": [0, 25, 50, 75, 90, 99, 100]",
		BINS_PER_DECADE);
	if (p->agg.on)
		return sb_html_agg_durations(j, p, o->rank);
	fputs(",\n\"durations\": [", j);
	count = calloc(p->n_regions ? p->n_regions : 1, sizeof(*count));
	if (!count)
		return -ENOMEM;
	for (i = 0; p->events && i < p->n_pairs; i++)
		if (rank_in(o, p->pairs[i].rank))
			count[durations_of(f, p->pairs[i].region)] += p->pairs[i].count;
	for (r = 0; r < p->n_regions; r++)
		most = count[r] > most ? count[r] : most;
	/* One buffer, as big as the busiest region needs, serves them all. */
	if (most) {
		d = malloc(most * sizeof(*d));
		ret = d ? region_rows_build(&rr, p, f) : -ENOMEM;
	}
	for (r = 0; d && !ret && r < p->n_regions; r++) {
		if (!count[r])
			continue;
		data_region_durations(j, r, f->of[r] < 0 ? NULL : f->name[f->of[r]], d,
				      region_durations(p, o, &rr, r, d), first);
		first = false;
	}
	fputs("]", j);
	region_rows_free(&rr);
	free(d);
	free(count);
	return ret;
}

/* The data object; every key the page reads is written here. */
/* One n x n matrix of rows, as JSON arrays; u64 when msgs, else i64 (bytes). */
static void json_matrix(FILE *j, const char *key, const struct sb_mpi_report *m, bool msgs)
{
	uint32_t a, b;

	fprintf(j, ", \"%s\": [", key);
	for (a = 0; a < m->n_ranks; a++) {
		fputs(a ? ", [" : "[", j);
		for (b = 0; b < m->n_ranks; b++) {
			size_t i = (size_t)a * m->n_ranks + b;

			if (msgs)
				fprintf(j, "%s%" PRIu64, b ? ", " : "", m->matrix_msgs[i]);
			else
				fprintf(j, "%s%" PRId64, b ? ", " : "", m->matrix_bytes[i]);
		}
		fputc(']', j);
	}
	fputc(']', j);
}

/* Only profiles with MPI call regions get the key, and the page its heat map. */
static int data_mpi(FILE *j, const struct sb_profile *p)
{
	struct sb_mpi_report m;
	uint32_t k;

	/* The matrix needs each call's peer and bytes, which an aggregate does not keep. */
	if (!p->events || p->agg.on || !sb_mpi_profile_has_calls(p))
		return 0;
	if (sb_mpi_report_build(&m, p, NULL))
		return -ENOMEM;
	fprintf(j, ",\n\"mpi\": {\"ranks\": %u, \"calls\": %" PRIu64, m.n_ranks, m.mpi_calls);
	json_matrix(j, "bytes", &m, false);
	json_matrix(j, "messages", &m, true);
	fputs(", \"rank_time_ns\": [", j);
	for (k = 0; k < m.n_ranks; k++)
		fprintf(j, "%s%" PRId64, k ? ", " : "", m.rank_time[k]);
	fputs("]}", j);
	sb_mpi_report_free(&m);
	return 0;
}

/* A ratio's value, null when undefined. */
static void json_ratio(FILE *j, double v)
{
	if (isnan(v))
		fputs("null", j);
	else
		fprintf(j, "%.6g", v);
}

/*
 * Only profiles with counter columns get the key, and the page its Counters
 * table: a row per region, per MPI function for MPI calls (named by the
 * function's first region's fn), as the page's table of times shows them folded.
 */
static int data_counters(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o)
{
	const struct sb_counter_row *row;
	struct sb_counter_report c;
	unsigned i;
	size_t k;

	/* An aggregate's rows carry their counters' sums (record --aggregate -e). */
	if (p->agg.on ? !sb_agg_counter_slots(&p->agg) :
	    !p->events || !(p->columns & SB_COL_METRIC(SB_METRIC_COUNTER)))
		return 0;
	if (sb_counter_report_build(&c, p, o->rank, false, NULL)) {
		sb_counter_report_free(&c);
		return -ENOMEM;
	}
	fputs(",\n\"counters\": {\"events\": [", j);
	for (i = 0; i < c.n; i++) {
		fputs(i ? ", " : "", j);
		format_json_string(j, c.names[i]);
	}
	fputs("], \"ratios\": [", j);
	for (i = 0; i < c.n_ratios; i++) {
		fputs(i ? ", " : "", j);
		format_json_string(j, c.ratios[i].name);
	}
	fputs("], \"rows\": [", j);
	for (k = 0; k < c.n_rows; k++) {
		row = &c.rows[k];
		fprintf(j, "%s[%u, %" PRIu64 ", %" PRIu64 ", [", k ? ",\n " : "\n ", row->region,
			row->calls, row->unknown);
		for (i = 0; i < c.n; i++)
			fprintf(j, "%s%" PRIu64, i ? ", " : "", row->incl[i]);
		fputs("], [", j);
		for (i = 0; i < c.n; i++)
			fprintf(j, "%s%" PRIu64, i ? ", " : "", row->excl[i]);
		fputs("], [", j);
		for (i = 0; i < c.n_ratios; i++) {
			fputs(i ? ", " : "", j);
			json_ratio(j, sb_counter_ratio_value(&c, i, row));
		}
		fputs("]]", j);
	}
	fputs("]}", j);
	sb_counter_report_free(&c);
	return 0;
}

/* A ceiling the user gave, null when none. */
static void json_peak(FILE *j, double v)
{
	json_ratio(j, v > 0 ? v : NAN);
}

/* Only a LIKWID group's recording with a FLOP rate and a bandwidth gets the key (the Roofline). */
static int data_roofline(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o)
{
	const struct sb_roofline_point *pt;
	struct sb_roofline r;
	size_t k;

	if (sb_roofline_build(&r, p, o->rank)) {
		sb_roofline_free(&r);
		return -ENOMEM;
	}
	if (!r.available)
		return 0;
	fputs(",\n\"roofline\": {\"flop_metric\": ", j);
	format_json_string(j, r.flop_metric);
	fputs(", \"bandwidth_metric\": ", j);
	format_json_string(j, r.bw_metric);
	fputs(", \"peak_gflops\": ", j);
	json_peak(j, o->peak_gflops);
	fputs(", \"peak_gbs\": ", j);
	json_peak(j, o->peak_gbs);
	fputs(", \"points\": [", j);
	for (k = 0; k < r.n_points; k++) {
		pt = &r.points[k];
		fprintf(j, "%s[%u, %.6g, %.6g, %.6g]", k ? ",\n " : "\n ", pt->region, pt->gflops,
			pt->gbs, pt->intensity);
	}
	fputs("]}", j);
	sb_roofline_free(&r);
	return 0;
}

static int write_data(FILE *j, const struct sb_profile *p, const struct sb_calltree *t,
		      const struct sb_html_opts *o)
{
	const struct sb_html_kind_view *v;
	struct sb_mpi_fns f;
	int r;

	r = sb_mpi_fns_build(&f, p);
	if (r)
		return r;
	data_header(j, p, t, o);
	data_regions(j, p, &f);
	r = data_nodes(j, t);
	for (v = sb_html_kind_views; v < sb_html_kind_views + sb_html_n_kind_views && !r; v++)
		if (v->nodes)
			v->nodes(j, p, t);
	if (!r)
		r = data_timeline(j, p, o);
	if (!r)
		r = data_durations(j, p, o, &f);
	sb_mpi_fns_free(&f);
	/* Only profiles with a kind's rows get its key, and the page its section (Samples). */
	for (v = sb_html_kind_views; v < sb_html_kind_views + sb_html_n_kind_views && !r; v++)
		if (v->section)
			r = v->section(j, p, o);
	if (!r)
		r = data_mpi(j, p);
	if (!r)
		r = data_counters(j, p, o);
	if (!r)
		r = data_roofline(j, p, o);
	if (!r)
		r = sb_html_rank_matrix(j, p, o->rank);
	if (!r)
		r = sb_html_series(j, p, o->rank);
	fputs("}\n", j);
	return r;
}

static int write_script_data(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
			     const struct sb_html_opts *o)
{
	static const cookie_io_functions_t io = { .write = filter_write, .close = filter_close };
	struct script_filter s = { .out = f };
	FILE *j;
	int r;

	j = fopencookie(&s, "w", io);
	if (!j)
		return -ENOMEM;
	r = write_data(j, p, t, o);
	if (fclose(j) && !r)
		r = -EIO;
	return r;
}

int sb_report_html(FILE *f, const struct sb_profile *p, const struct sb_calltree *t,
		   const struct sb_html_opts *o, struct sb_error *err)
{
	const char *at = sb_html_page, *mark;
	int r = 0;

	/* The page holds two markers: @SB_TITLE@ in <title>, @SB_DATA@ in the data script. */
	while (!r && (mark = strstr(at, "@SB_"))) {
		fwrite(at, 1, (size_t)(mark - at), f);
		if (!strncmp(mark, "@SB_TITLE@", 10)) {
			html_text(f, o->title ? o->title : "");
			at = mark + 10;
		} else if (!strncmp(mark, "@SB_DATA@", 9)) {
			r = write_script_data(f, p, t, o);
			at = mark + 9;
		} else {
			fputs("@SB_", f);
			at = mark + 4;
		}
	}
	if (r)
		return sb_fail(err, -r, "HTML report: %s", strerror(-r));
	fputs(at, f);
	if (ferror(f))
		return sb_fail(err, EIO, "HTML report: %s", strerror(EIO));
	return 0;
}
