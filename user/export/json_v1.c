/* scope-profiler's JSON profile (format_version 1), so its Python tools read our recordings. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"
#include "util/version.h"

/* The int64 at offset off of an event: one of its columns. */
static int64_t field_of(const struct sb_event *e, size_t off)
{
	int64_t v;

	memcpy(&v, (const char *)e + off, sizeof(v));
	return v;
}

/* ,"key":[v,v,...] over the pair's calls: the column at offset off. */
static void put_list(struct sb_out *o, const struct sb_profile *p, const struct sb_pair *q,
		     const char *key, size_t off)
{
	uint64_t i;

	sb_out_str(o, ",\"");
	sb_out_str(o, key);
	sb_out_str(o, "\":[");
	for (i = 0; i < q->count; i++) {
		if (i)
			sb_out_char(o, ',');
		sb_out_i64(o, field_of(&p->events[q->offset + i], off));
	}
	sb_out_char(o, ']');
}

/* ,"key":[v,v,...] over the pair's calls: metric column id. */
static void put_metric_list(struct sb_out *o, const struct sb_profile *p, const struct sb_pair *q,
			    unsigned id)
{
	uint64_t i;

	sb_out_str(o, ",\"");
	sb_out_str(o, sb_column(id)->json_name);
	sb_out_str(o, "\":[");
	for (i = 0; i < q->count; i++) {
		if (i)
			sb_out_char(o, ',');
		sb_out_i64(o, sb_event_metric(p, &p->events[q->offset + i], id));
	}
	sb_out_char(o, ']');
}

static int put_tags(struct sb_out *o, const char *json)
{
	char **tags;
	size_t n, i;

	if (sb_tags_parse(json, &tags, &n))
		return -ENOMEM;
	sb_out_str(o, ",\"tags\":[");
	for (i = 0; i < n; i++) {
		if (i)
			sb_out_char(o, ',');
		sb_out_json(o, tags[i]);
	}
	sb_out_char(o, ']');
	sb_tags_free(tags, n);
	return 0;
}

/*
 * One (rank, region) row. Unknown source locations are null, which
 * scope-profiler reads as "not recorded", as when its writer leaves them out.
 */
static int put_region(struct sb_out *o, const struct sb_profile *p, const struct sb_pair *q)
{
	static const struct {
		unsigned bit;
		const char *key;
		size_t off;
	} optional[] = {
		{ SB_COL_THREAD, "thread_ids", offsetof(struct sb_event, thread) },
		{ SB_COL_CALL_ID, "call_ids", offsetof(struct sb_event, call_id) },
		{ SB_COL_PARENT_ID, "parent_ids", offsetof(struct sb_event, parent_id) },
	};
	const struct sb_region *r = &p->regions[q->region];
	unsigned id;
	size_t i;

	sb_out_str(o, "{\"name\":");
	sb_out_json(o, r->name);
	sb_out_str(o, ",\"rank\":");
	sb_out_i64(o, q->rank);
	sb_out_str(o, ",\"source_file\":");
	if (r->source_file[0])
		sb_out_json(o, r->source_file);
	else
		sb_out_str(o, "null");
	sb_out_str(o, ",\"source_lineno\":");
	if (r->source_line >= 0)
		sb_out_i64(o, r->source_line);
	else
		sb_out_str(o, "null");
	if (r->source_text[0]) {
		sb_out_str(o, ",\"source_text\":");
		sb_out_json(o, r->source_text);
	}
	if (put_tags(o, r->tags))
		return -ENOMEM;
	put_list(o, p, q, "start_times_ns", offsetof(struct sb_event, start));
	put_list(o, p, q, "end_times_ns", offsetof(struct sb_event, end));
	for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (p->columns & optional[i].bit)
			put_list(o, p, q, optional[i].key, optional[i].off);
	for (id = 0; id < SB_N_METRICS; id++)
		if (p->columns & SB_COL_METRIC(id))
			put_metric_list(o, p, q, id);
	if (q->exclusive_total >= 0) {
		sb_out_str(o, ",\"exclusive_total_ns\":");
		sb_out_i64(o, q->exclusive_total);
	}
	sb_out_char(o, '}');
	return 0;
}

static void put_thread(struct sb_out *o, const struct sb_thread *t)
{
	sb_out_str(o, "{\"index\":");
	sb_out_i64(o, t->index);
	sb_out_str(o, ",\"name\":");
	sb_out_json(o, t->name ? t->name : "");
	sb_out_str(o, ",\"ident\":");
	sb_out_i64(o, t->tid);
	sb_out_str(o, ",\"native_id\":");
	sb_out_i64(o, t->tid);
	sb_out_str(o, ",\"daemon\":false,\"start_ns\":");
	sb_out_i64(o, t->start_ns);
	sb_out_str(o, ",\"end_ns\":");
	sb_out_i64(o, t->end_ns);
	sb_out_str(o, ",\"cpu_ns\":");
	sb_out_i64(o, t->cpu_ns);
	sb_out_char(o, '}');
}

static int cmp_thread_row(const void *a, const void *b, void *arg)
{
	const struct sb_thread *t = arg;
	const struct sb_thread *x = &t[*(const size_t *)a], *y = &t[*(const size_t *)b];

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* "threads": {"RANK": [rows by index], ...}, as scope-profiler keeps its thread tables. */
static int put_threads(struct sb_out *o, const struct sb_profile *p)
{
	size_t *order, i;
	const struct sb_thread *t;

	if (!p->n_threads)
		return 0;
	order = malloc(p->n_threads * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < p->n_threads; i++)
		order[i] = i;
	qsort_r(order, p->n_threads, sizeof(*order), cmp_thread_row, (void *)p->threads);
	sb_out_str(o, ",\n\"threads\":{");
	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[order[i]];
		if (!i || t->rank != p->threads[order[i - 1]].rank) {
			sb_out_str(o, i ? "],\n\"" : "\n\"");
			sb_out_i64(o, t->rank);
			sb_out_str(o, "\":[");
		} else {
			sb_out_char(o, ',');
		}
		put_thread(o, t);
	}
	sb_out_str(o, "]}");
	free(order);
	return 0;
}

static int cmp_pair_row(const void *a, const void *b, void *arg)
{
	const struct sb_pair *q = arg;
	const struct sb_pair *x = &q[*(const size_t *)a], *y = &q[*(const size_t *)b];

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->offset > y->offset) - (x->offset < y->offset);
}

/*
 * Regions in the profile's region order (/region_table/names), each region's
 * ranks ascending: a reader numbers regions as it meets them, so the file's
 * event order would renumber them.
 */
static int put_regions(struct sb_out *o, const struct sb_profile *p)
{
	size_t *order, i;

	order = malloc((p->n_pairs ? p->n_pairs : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < p->n_pairs; i++)
		order[i] = i;
	qsort_r(order, p->n_pairs, sizeof(*order), cmp_pair_row, (void *)p->pairs);
	sb_out_str(o, ",\n\"regions\":[");
	for (i = 0; i < p->n_pairs; i++) {
		sb_out_str(o, i ? ",\n" : "\n");
		if (put_region(o, p, &p->pairs[order[i]])) {
			free(order);
			return -ENOMEM;
		}
	}
	sb_out_str(o, "\n]");
	free(order);
	return 0;
}

static int put_document(struct sb_out *o, const struct sb_profile *p)
{

	sb_out_str(o, "{\"format\":\"scope-profiler-profile\",\"format_version\":1,"
		   "\"time_unit\":\"nanoseconds\",\"exporter\":\"scope-bpf@" SCOPE_BPF_VERSION
		   "\",\"num_ranks\":");
	sb_out_i64(o, sb_profile_rank_count(p));
	sb_out_str(o, ",\"event_data_available\":true,\n\"metadata\":{");
	sb_out_meta_members(o, p, true);
	sb_out_char(o, '}');
	if (put_regions(o, p) || put_threads(o, p))
		return -ENOMEM;
	sb_out_str(o, "}\n");
	return 0;
}

int sb_export_json_v1(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	struct sb_out o;
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	sb_out_init(&o, f);
	r = put_document(&o, p);
	sb_out_flush(&o);
	return r ? sb_fail(err, r, "json: out of memory") : 0;
}
