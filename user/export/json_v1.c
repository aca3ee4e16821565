/* scope-profiler's JSON profile (format_version 1), so its Python tools read our recordings. */
#include <errno.h>
#include <stdlib.h>

#include "export.h"
#include "format.h"
#include "version.h"

/* Which event field an optional per-call list carries. */
enum field { F_START, F_END, F_THREAD, F_CALL_ID, F_PARENT_ID, F_GPU, F_OFFCPU };

static int64_t field_of(const struct sb_event *e, enum field k)
{
	switch (k) {
	case F_START:
		return e->start;
	case F_END:
		return e->end;
	case F_THREAD:
		return e->thread;
	case F_CALL_ID:
		return e->call_id;
	case F_PARENT_ID:
		return e->parent_id;
	case F_GPU:
		return e->gpu;
	case F_OFFCPU:
		return e->offcpu;
	}
	return -1;
}

/* ,"key":[v,v,...] over the pair's calls. */
static void put_list(FILE *f, const struct sb_profile *p, const struct sb_pair *q,
		     const char *key, enum field k)
{
	uint64_t i;

	fprintf(f, ",\"%s\":[", key);
	for (i = 0; i < q->count; i++) {
		if (i)
			fputc(',', f);
		sb_put_i64(f, field_of(&p->events[q->offset + i], k));
	}
	fputc(']', f);
}

static int put_tags(FILE *f, const char *json)
{
	char **tags;
	size_t n, i;

	if (sb_tags_parse(json, &tags, &n))
		return -ENOMEM;
	fputs(",\"tags\":[", f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		format_json_string(f, tags[i]);
	}
	fputc(']', f);
	sb_tags_free(tags, n);
	return 0;
}

/*
 * One (rank, region) row. Unknown source locations are null, which
 * scope-profiler reads as "not recorded", as when its writer leaves them out.
 */
static int put_region(FILE *f, const struct sb_profile *p, const struct sb_pair *q)
{
	static const struct {
		unsigned bit;
		const char *key;
		enum field k;
	} optional[] = {
		{ SB_COL_THREAD, "thread_ids", F_THREAD },
		{ SB_COL_CALL_ID, "call_ids", F_CALL_ID },
		{ SB_COL_PARENT_ID, "parent_ids", F_PARENT_ID },
		{ SB_COL_GPU, "gpu_durations_ns", F_GPU },
		{ SB_COL_OFFCPU, "offcpu_ns", F_OFFCPU },
	};
	const struct sb_region *r = &p->regions[q->region];
	size_t i;

	fputs("{\"name\":", f);
	format_json_string(f, r->name);
	fputs(",\"rank\":", f);
	sb_put_i64(f, q->rank);
	fputs(",\"source_file\":", f);
	if (r->source_file[0])
		format_json_string(f, r->source_file);
	else
		fputs("null", f);
	fputs(",\"source_lineno\":", f);
	if (r->source_line >= 0)
		sb_put_i64(f, r->source_line);
	else
		fputs("null", f);
	if (r->source_text[0]) {
		fputs(",\"source_text\":", f);
		format_json_string(f, r->source_text);
	}
	if (put_tags(f, r->tags))
		return -ENOMEM;
	put_list(f, p, q, "start_times_ns", F_START);
	put_list(f, p, q, "end_times_ns", F_END);
	for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		if (p->columns & optional[i].bit)
			put_list(f, p, q, optional[i].key, optional[i].k);
	if (q->exclusive_total >= 0) {
		fputs(",\"exclusive_total_ns\":", f);
		sb_put_i64(f, q->exclusive_total);
	}
	fputc('}', f);
	return 0;
}

static void put_thread(FILE *f, const struct sb_thread *t)
{
	fputs("{\"index\":", f);
	sb_put_i64(f, t->index);
	fputs(",\"name\":", f);
	format_json_string(f, t->name ? t->name : "");
	fputs(",\"ident\":", f);
	sb_put_i64(f, t->tid);
	fputs(",\"native_id\":", f);
	sb_put_i64(f, t->tid);
	fputs(",\"daemon\":false,\"start_ns\":", f);
	sb_put_i64(f, t->start_ns);
	fputs(",\"end_ns\":", f);
	sb_put_i64(f, t->end_ns);
	fputs(",\"cpu_ns\":", f);
	sb_put_i64(f, t->cpu_ns);
	fputc('}', f);
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
static int put_threads(FILE *f, const struct sb_profile *p)
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
	fputs(",\n\"threads\":{", f);
	for (i = 0; i < p->n_threads; i++) {
		t = &p->threads[order[i]];
		if (!i || t->rank != p->threads[order[i - 1]].rank)
			fprintf(f, "%s\n\"%u\":[", i ? "]," : "", t->rank);
		else
			fputc(',', f);
		put_thread(f, t);
	}
	fputs("]}", f);
	free(order);
	return 0;
}

int sb_export_json_v1(FILE *f, const struct sb_profile *p, struct sb_error *err)
{
	size_t i;
	int r;

	r = sb_export_need_events(p, err);
	if (r)
		return r;
	fputs("{\"format\":\"scope-profiler-profile\",\"format_version\":1,"
	      "\"time_unit\":\"nanoseconds\",\"exporter\":\"scope-bpf@" SCOPE_BPF_VERSION
	      "\",\"num_ranks\":", f);
	sb_put_i64(f, sb_profile_rank_count(p));
	fputs(",\"event_data_available\":true,\n\"metadata\":{", f);
	sb_put_meta_members(f, p, true);
	fputs("},\n\"regions\":[", f);
	for (i = 0; i < p->n_pairs; i++) {
		fputs(i ? ",\n" : "\n", f);
		if (put_region(f, p, &p->pairs[i]))
			return sb_fail(err, ENOMEM, "json: out of memory");
	}
	fputs("\n]", f);
	if (put_threads(f, p))
		return sb_fail(err, ENOMEM, "json: out of memory");
	fputs("}\n", f);
	return 0;
}
