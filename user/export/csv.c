/* CSV export: one header, a summary row per (rank, region), then one row per call. */
#include <errno.h>
#include <stdlib.h>

#include "export/export.h"
#include "util/text_format.h"

/*
 * Both kinds of row share one header so every row has the same fields (RFC
 * 4180) and a spreadsheet or pandas loads the file as one table; a field
 * that does not apply to a row's kind, or that the profile did not record,
 * is empty.
 */
static const char header_ids[] =
	"kind,rank,thread,tid,region,start_ns,end_ns,duration_ns,call_id,parent_id,";
/* After every metric column (model/columns.h), in export order. */
static const char header_summary[] =
	"calls,total_ns,min_ns,max_ns,mean_ns,exclusive_ns,source_file,source_line\n";

struct csv {
	struct sb_out o;
	const struct sb_profile *p;
	struct sb_xthreads threads;
	char **names;		/* per region: the name as a CSV field */
};

/* ,value when the field is known, a bare comma when not. */
static void put_opt(struct sb_out *o, bool known, int64_t v)
{
	sb_out_char(o, ',');
	if (known)
		sb_out_i64(o, v);
}

static char *csv_field(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	format_csv_field(f, s);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void put_header(struct sb_out *o, const struct sb_profile *p)
{
	unsigned k, id;

	sb_out_str(o, header_ids);
	for (k = 0; k < SB_N_METRICS; k++) {
		id = sb_column_export_id(k);
		if (!sb_export_lists_metric(p, id))
			continue;
		sb_out_str(o, sb_column(id)->short_name);
		sb_out_char(o, ',');
	}
	sb_out_str(o, header_summary);
}

/* A metric column's total over a pair's calls: what calls lack adds nothing. */
static int64_t metric_total(const struct sb_profile *p, const struct sb_pair *q, unsigned id)
{
	int64_t sum = 0, v;
	uint64_t i;

	for (i = 0; i < q->count; i++) {
		v = sb_event_metric(p, &p->events[q->offset + i], id);
		if (v > 0)
			sum += v;
	}
	return sum;
}

static void put_region(struct csv *c, const struct sb_pair *q)
{
	const struct sb_region *r = &c->p->regions[q->region];
	unsigned cols = c->p->columns, k, id;
	struct sb_out *o = &c->o;

	sb_out_str(o, "region,");
	sb_out_i64(o, q->rank);
	sb_out_str(o, ",,,");
	sb_out_str(o, c->names[q->region]);
	/* start_ns .. parent_id describe single calls. */
	sb_out_str(o, ",,,,,");
	for (k = 0; k < SB_N_METRICS; k++) {
		id = sb_column_export_id(k);
		if (!sb_export_lists_metric(c->p, id))
			continue;
		put_opt(o, cols & SB_COL_METRIC(id),
			cols & SB_COL_METRIC(id) ? metric_total(c->p, q, id) : 0);
	}
	put_opt(o, true, (int64_t)q->count);
	put_opt(o, true, q->stats.total);
	put_opt(o, q->count, q->stats.minimum);
	put_opt(o, q->count, q->stats.maximum);
	/* Rounded to the nearest ns, like every other column: integers only. */
	put_opt(o, q->count, q->count ? (q->stats.total + (int64_t)(q->count / 2)) /
					(int64_t)q->count : 0);
	put_opt(o, q->exclusive_total >= 0, q->exclusive_total);
	sb_out_char(o, ',');
	sb_out_flush(o);
	format_csv_field(o->f, r->source_file);
	put_opt(o, r->source_line >= 0, r->source_line);
	sb_out_str(o, "\n");
}

static void put_call(struct csv *c, const struct sb_pair *q, const struct sb_event *e,
		     const struct sb_xthread *x)
{
	unsigned cols = c->p->columns, k, id;
	struct sb_out *o = &c->o;

	sb_out_str(o, "call,");
	sb_out_i64(o, q->rank);
	put_opt(o, cols & SB_COL_THREAD, e->thread);
	put_opt(o, x && x->tid > 0, x ? x->tid : 0);
	sb_out_char(o, ',');
	sb_out_str(o, c->names[q->region]);
	put_opt(o, true, e->start);
	put_opt(o, true, e->end);
	put_opt(o, true, e->end - e->start);
	put_opt(o, cols & SB_COL_CALL_ID, e->call_id);
	put_opt(o, cols & SB_COL_PARENT_ID, e->parent_id);
	for (k = 0; k < SB_N_METRICS; k++) {
		id = sb_column_export_id(k);
		if (!sb_export_lists_metric(c->p, id))
			continue;
		put_opt(o, sb_export_shows_metric(c->p, id, e), sb_event_metric(c->p, e, id));
	}
	/* calls .. source_line summarize regions. */
	sb_out_str(o, ",,,,,,,,\n");
}

static void put_calls(struct csv *c, const struct sb_pair *q)
{
	const struct sb_xthread *x = NULL;
	const struct sb_event *e;
	uint64_t i;

	for (i = 0; i < q->count; i++) {
		e = &c->p->events[q->offset + i];
		if (!x || x->rank != q->rank || x->thread != sb_event_thread(c->p, e))
			x = sb_xthreads_find(&c->threads, q->rank, sb_event_thread(c->p, e));
		put_call(c, q, e, x);
	}
}

static int csv_init(struct csv *c)
{
	size_t i;

	if (sb_xthreads_build(&c->threads, c->p))
		return -ENOMEM;
	c->names = calloc(c->p->n_regions ? c->p->n_regions : 1, sizeof(*c->names));
	if (!c->names)
		return -ENOMEM;
	for (i = 0; i < c->p->n_regions; i++) {
		c->names[i] = csv_field(c->p->regions[i].name);
		if (!c->names[i])
			return -ENOMEM;
	}
	return 0;
}

int sb_export_csv(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct csv c = { .p = p };
	size_t i;
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	r = csv_init(&c);
	if (!r) {
		sb_out_init(&c.o, f);
		put_header(&c.o, c.p);
		for (i = 0; i < p->n_pairs; i++)
			put_region(&c, &p->pairs[i]);
		for (i = 0; i < p->n_pairs; i++)
			put_calls(&c, &p->pairs[i]);
		sb_out_flush(&c.o);
	}
	for (i = 0; c.names && i < p->n_regions; i++)
		free(c.names[i]);
	free(c.names);
	sb_xthreads_free(&c.threads);
	return r ? sb_fail(err, r, "csv: out of memory") : 0;
}
