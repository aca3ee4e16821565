/*
 * scope-bpf merge: the profiles of one job's nodes into one. Index rows,
 * threads, processes and other kinds of data are small and held; calls never are: they
 * stream from each input's /events to the output in the writer's chunks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "io/h5guard.h"
#include "io/h5read.h"
#include "io/h5write.h"
#include "util/hashmap.h"

/* ---- reading the inputs and checking that their ranks do not meet ---- */

static int read_inputs(struct sb_merge_input *in, const char *const *paths, size_t n,
		       struct sb_error *err)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		in[i].path = paths[i];
		/* libhdf5 reads each file in a child: a corrupt one cannot crash or hang the merge. */
		ret = sb_h5_read_guarded(paths[i], &in[i].p, SB_H5_READ_LEAN, err);
		if (ret)
			return ret == -ENOMEM ? ret : -EINVAL;
	}
	return 0;
}

/* Who holds rank r: the input's number + 1 in owner[r], 0 for nobody yet. */
static int claim(const struct sb_merge_input *in, size_t i, uint32_t *owner, uint32_t r,
		 struct sb_error *err)
{
	if (owner[r] && owner[r] != i + 1)
		return sb_fail(err, EINVAL,
			       "%s: rank %u is also in %s; each rank must come from one file "
			       "(record each rank once, or filter the ranks when recording)",
			       in[i].path, r, in[owner[r] - 1].path);
	owner[r] = (uint32_t)i + 1;
	return 0;
}

/* The ranks of every kind's rows (model/data_kinds.c), by their columns of role rank. */
static int claim_kinds(const struct sb_merge_input *in, size_t i, uint32_t *owner,
		       struct sb_error *err)
{
	const struct sb_table_col *c;
	const struct sb_table *t;
	const void *d, *rows;
	size_t k, j, r, n;
	int ret = 0;

	for (k = 0; k < sb_n_kinds && !ret; k++) {
		d = sb_kind_data(sb_kinds[k], &in[i].p);
		for (j = 0; j < sb_kinds[k]->n_tables && !ret; j++) {
			t = &sb_kinds[k]->tables[j];
			c = sb_table_role(t, SB_ROLE_RANK);
			n = c ? *sb_table_len(t, d) : 0;
			rows = sb_table_rows(t, d);
			/* The reader checked every rank against SB_MAX_RANK. */
			for (r = 0; r < n && !ret; r++)
				ret = claim(in, i, owner,
					    (uint32_t)sb_table_int(c, rows, t->stride, r), err);
		}
	}
	return ret;
}

static int claim_ranks(const struct sb_merge_input *in, size_t i, uint32_t *owner,
		       struct sb_error *err)
{
	const struct sb_profile *p = &in[i].p;
	size_t k;
	int ret = 0;

	for (k = 0; k < p->n_pairs && !ret; k++)
		ret = claim(in, i, owner, p->pairs[k].rank, err);
	for (k = 0; k < p->n_threads && !ret; k++)
		ret = claim(in, i, owner, p->threads[k].rank, err);
	if (!ret)
		ret = claim_kinds(in, i, owner, err);
	for (k = 0; k < p->n_processes && !ret; k++)
		if (p->processes[k].rank >= 0 && p->processes[k].rank < SB_MAX_RANK)
			ret = claim(in, i, owner, (uint32_t)p->processes[k].rank, err);
	return ret;
}

static int check_ranks(const struct sb_merge_input *in, size_t n, struct sb_error *err)
{
	uint32_t *owner;
	size_t i;
	int ret = 0;

	/* The readers keep every rank, sample ranks included, below SB_MAX_RANK. */
	owner = calloc(SB_MAX_RANK, sizeof(*owner));
	if (!owner)
		return sb_fail(err, ENOMEM, "%s: out of memory", in[0].path);
	for (i = 0; i < n && !ret; i++)
		ret = claim_ranks(in, i, owner, err);
	free(owner);
	return ret;
}

/* ---- the merged tables ---- */

/* The merged id of region name, added with r's location when new. -ENOMEM. */
static ssize_t unify_region(struct sb_profile *out, struct sb_hashmap *names,
			    const struct sb_region *r)
{
	uint64_t h = sb_hash_str(r->name), *v = sb_hashmap_get(names, h, strlen(r->name));
	ssize_t id;

	if (v && !strcmp(out->regions[*v].name, r->name))
		return (ssize_t)*v;
	/* Two names with one hash: rare enough for a search. */
	id = v ? sb_profile_find_region(out, r->name) : -ENOENT;
	if (id >= 0)
		return id;
	id = sb_profile_add_region(out, r->name, r->source_file, r->source_line, r->tags);
	if (id < 0)
		return id;
	free(out->regions[id].source_text);
	out->regions[id].source_text = strdup(r->source_text ? r->source_text : "");
	if (!out->regions[id].source_text)
		return -ENOMEM;
	if (!v && sb_hashmap_put(names, h, strlen(r->name), (uint64_t)id))
		return -ENOMEM;
	return id;
}

/* Each input's region ids in the merged table, map[i][region]. */
static int merge_regions(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
			 uint32_t **map)
{
	struct sb_hashmap names;
	size_t i, k;
	ssize_t id = 0;

	sb_hashmap_init(&names);
	for (i = 0; i < n && id >= 0; i++) {
		map[i] = calloc(in[i].p.n_regions ? in[i].p.n_regions : 1, sizeof(**map));
		if (!map[i])
			id = -ENOMEM;
		for (k = 0; k < in[i].p.n_regions && id >= 0; k++) {
			id = unify_region(out, &names, &in[i].p.regions[k]);
			if (id >= 0)
				map[i][k] = (uint32_t)id;
		}
	}
	sb_hashmap_free(&names);
	return id < 0 ? (int)id : 0;
}

/* A time of a thread or process row; -1 (alive at the end, unknown) stays. */
static int64_t shifted(int64_t t, int64_t shift)
{
	return t == -1 ? t : t + shift;
}

/* Appended rows into event order; two at one offset (rows without calls) keep theirs. */
static int cmp_offset(const void *a, const void *b, void *arg)
{
	const struct sb_pair *rows = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (rows[x].offset != rows[y].offset)
		return rows[x].offset < rows[y].offset ? -1 : 1;
	return (x > y) - (x < y);
}

/*
 * A reader may list rows of an in-memory input out of event order: sort them,
 * and say in at[k] where appended row k went, for the CUDA activity that
 * points at rows by number.
 */
static int order_pairs(struct sb_profile *out, size_t *at)
{
	size_t k, n = out->n_pairs, *order = malloc((n ? n : 1) * sizeof(*order));
	struct sb_pair *sorted = malloc((n ? n : 1) * sizeof(*sorted));

	if (!order || !sorted) {
		free(order);
		free(sorted);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++)
		order[k] = k;
	qsort_r(order, n, sizeof(*order), cmp_offset, out->pairs);
	for (k = 0; k < n; k++) {
		sorted[k] = out->pairs[order[k]];
		at[order[k]] = k;
	}
	free(out->pairs);
	out->pairs = sorted;
	free(order);
	return 0;
}

/*
 * Index rows input after input, as their events will follow each other; *at
 * (the caller frees it) maps input i's row k, appended at the inputs' earlier
 * row count + k, to its merged number.
 */
static int merge_pairs(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
		       uint32_t **map, size_t **at)
{
	size_t i, k, total = 0;
	uint64_t base = 0;
	struct sb_pair *q;

	for (i = 0; i < n; i++)
		total += in[i].p.n_pairs;
	out->pairs = calloc(total ? total : 1, sizeof(*out->pairs));
	*at = malloc((total ? total : 1) * sizeof(**at));
	if (!out->pairs || !*at)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		for (k = 0; k < in[i].p.n_pairs; k++) {
			q = &out->pairs[out->n_pairs++];
			*q = in[i].p.pairs[k];
			q->region = map[i][q->region];
			q->offset += base;
			if (q->count) {
				q->stats.start_minimum += in[i].shift;
				q->stats.end_maximum += in[i].shift;
				q->stats.first_start += in[i].shift;
				q->stats.last_start += in[i].shift;
			}
		}
		base += in[i].p.n_events;
	}
	out->n_events = base;
	return order_pairs(out, *at);
}

static int merge_threads(struct sb_profile *out, const struct sb_merge_input *in, size_t n)
{
	struct sb_thread t;
	struct sb_process pr;
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < in[i].p.n_threads; k++) {
			t = in[i].p.threads[k];
			t.start_ns = shifted(t.start_ns, in[i].shift);
			t.end_ns = shifted(t.end_ns, in[i].shift);
			if (sb_profile_add_thread(out, &t) < 0)
				return -ENOMEM;
		}
		for (k = 0; k < in[i].p.n_processes; k++) {
			pr = in[i].p.processes[k];
			pr.start_ns = shifted(pr.start_ns, in[i].shift);
			pr.end_ns = shifted(pr.end_ns, in[i].shift);
			if (sb_profile_add_process(out, &pr) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void note_dropped(FILE *note, unsigned dropped)
{
	struct sb_h5_event_column cols[SB_H5_MAX_EVENT_COLUMNS];
	int k, n = sb_h5_event_columns(cols);

	fputs("scope-bpf merge: note: left out the event columns that not every input has:", note);
	for (k = 0; k < n; k++)
		if (cols[k].bit & dropped)
			fprintf(note, " %s", cols[k].name);
	fputc('\n', note);
}

/*
 * Id columns and every-call metrics only when all inputs have them (a column
 * is all or nothing); a sparse metric (GPU time) when any has it, the others'
 * calls reading as "no value", which that column allows.
 */
/* The counter slots of every input that has them count the same events (metadata counter_events). */
static bool same_counters(const struct sb_merge_input *in, size_t n)
{
	const struct sb_meta *first = NULL, *m;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(in[i].p.columns & SB_COL_METRIC(SB_METRIC_COUNTER)))
			continue;
		m = sb_profile_meta(&in[i].p, "counter_events");
		if (!m || m->is_int || !m->s)
			return false;
		if (first && strcmp(first->s, m->s))
			return false;
		first = m;
	}
	return true;
}

static unsigned merge_columns(const struct sb_merge_input *in, size_t n, FILE *note)
{
	unsigned all = ~0u, any = 0, sparse = 0, cols;
	size_t i;
	unsigned id;

	for (i = 0; i < n; i++) {
		all &= in[i].p.columns;
		any |= in[i].p.columns;
	}
	for (id = 0; id < SB_N_METRICS; id++)
		if (sb_column(id)->sparse)
			sparse |= SB_COL_METRIC(id);
	cols = n ? (all | (any & sparse)) : 0;
	/* Slot i of inputs that counted different events is no one column. */
	if (!same_counters(in, n))
		for (id = SB_METRIC_COUNTER; id < SB_N_METRICS; id++)
			cols &= ~SB_COL_METRIC(id);
	if (note && (any & ~cols))
		note_dropped(note, any & ~cols);
	return cols;
}

static int build(struct sb_profile *out, struct sb_merge_input *in, size_t n, FILE *note,
		 struct sb_error *err)
{
	uint32_t **map = calloc(n, sizeof(*map));
	size_t i, *at = NULL;
	int ret;

	if (!map)
		return -ENOMEM;
	out->format = strdup("scope-bpf HDF5 (merged)");
	ret = out->format ? merge_regions(out, in, n, map) : -ENOMEM;
	if (!ret)
		ret = merge_pairs(out, in, n, map, &at);
	if (!ret)
		ret = merge_threads(out, in, n);
	if (!ret)
		ret = sb_merge_kinds(out, in, n, at, err);
	if (!ret)
		ret = sb_merge_aggregate(out, in, n, err);
	if (!ret)
		ret = sb_merge_metadata(out, in, n);
	out->columns = merge_columns(in, n, note);
	for (i = 0; i < n; i++)
		free(map[i]);
	free(map);
	free(at);
	return ret;
}

/* ---- the events: each input's, in order, on the first input's clock ---- */

struct merge_stream {
	struct sb_event_stream base;
	struct sb_merge_input *in;
	size_t n, cur;
	unsigned mask;
	struct sb_h5_guarded_source src;
	struct sb_event_stream *s;	/* the current input's pass; NULL between inputs */
	uint64_t next;			/* events of an input held in memory: the next one */
	struct sb_error err;		/* why reading an input failed, naming it */
};

/*
 * An input whose reader kept its events (schema 1, rows out of event order).
 * Its counter rows, if any, have the output's layout: inputs agree on columns.
 */
static ssize_t read_held(struct merge_stream *m, struct sb_event *rows, int64_t *counters,
			 size_t max)
{
	const struct sb_profile *p = &m->in[m->cur].p;
	size_t k = p->n_events - m->next < max ? p->n_events - m->next : max;
	size_t stride = sb_counter_stride(sb_profile_counter_slots(p)), i;

	memcpy(rows, p->events + m->next, k * sizeof(*rows));
	if (counters && p->counters)
		memcpy(counters, p->counters + m->next * stride, k * stride * sizeof(*counters));
	else
		for (i = 0; counters && i < k * stride; i++)
			counters[i] = -1;
	m->next += k;
	return (ssize_t)k;
}

static ssize_t read_input(struct merge_stream *m, struct sb_event *rows, int64_t *counters,
			  size_t max)
{
	struct sb_merge_input *in = &m->in[m->cur];
	int ret;

	if (in->p.events)
		return read_held(m, rows, counters, max);
	if (!m->s) {
		sb_h5_guarded_source_init(&m->src, in->path, &in->p);
		ret = m->src.base.open(&m->src.base, m->mask, &m->s, &m->err);
		if (ret)
			return ret;
	}
	return m->s->read(m->s, rows, counters, max);
}

static void next_input(struct merge_stream *m)
{
	if (m->s)
		m->src.base.close(&m->src.base, m->s);
	m->s = NULL;
	m->next = 0;
	m->cur++;
}

static int shift_rows(struct merge_stream *m, struct sb_event *rows, size_t k)
{
	int64_t shift = m->in[m->cur].shift;
	size_t i;

	for (i = 0; i < k && shift; i++)
		if (__builtin_add_overflow(rows[i].start, shift, &rows[i].start) ||
		    __builtin_add_overflow(rows[i].end, shift, &rows[i].end))
			return sb_fail(&m->err, ERANGE, "%s: a call's time overflows when moved "
				       "to the first file's clock", m->in[m->cur].path);
	return 0;
}

static ssize_t merge_read(struct sb_event_stream *s, struct sb_event *rows, int64_t *counters,
			  size_t max)
{
	struct merge_stream *m = (struct merge_stream *)s;
	ssize_t got = 0;
	int ret;

	while (m->cur < m->n) {
		got = read_input(m, rows, counters, max);
		if (got < 0 && !m->err.msg[0])
			sb_fail(&m->err, (int)-got, "%s: cannot read events: %s",
				m->in[m->cur].path, strerror((int)-got));
		if (got != 0)
			break;
		next_input(m);
	}
	if (got <= 0)
		return got;
	ret = shift_rows(m, rows, (size_t)got);
	return ret ? ret : got;
}

/* ---- the whole merge ---- */

/* Every input on the first one's clock; a note for bounds that could not be used. */
static int align_clocks(struct sb_merge_input *in, size_t n, FILE *note, struct sb_error *err)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		ret = sb_merge_clock_shift(&in[0], &in[i], err);
		if (!ret && in[i].contradicts && note)
			fprintf(note, "scope-bpf merge: note: %s: its MPI collectives and those of %s "
				"allow no common clock shift (%" PRId64 " > %" PRId64 " ns); kept %"
				PRId64 " ns from the realtime offsets\n", in[i].path, in[0].path,
				in[i].bounds.lo, in[i].bounds.hi, in[i].shift);
	}
	return ret;
}

static int merge_write(struct sb_merge_input *in, size_t n, const char *output, FILE *note,
		       struct sb_error *err)
{
	struct merge_stream m = { .base = { merge_read }, .in = in, .n = n };
	struct sb_error why = { .msg = "" };
	struct sb_profile out;
	int ret;

	sb_profile_init(&out);
	ret = build(&out, in, n, note, &why);
	if (ret) {
		sb_profile_free(&out);
		/* An input's activity that cannot move to the first clock names that input. */
		if (why.msg[0]) {
			*err = why;
			return ret;
		}
		return sb_fail(err, -ret, "%s: cannot merge: %s", output, strerror(-ret));
	}
	m.mask = SB_COL_TIMES | out.columns;
	ret = sb_h5_write(output, &out, &m.base, err);
	/* The writer names the output; what went wrong with an input names the input. */
	if (ret && m.err.msg[0])
		*err = m.err;
	if (m.s)
		m.src.base.close(&m.src.base, m.s);
	sb_profile_free(&out);
	return ret;
}

int sb_merge(const char *const *inputs, size_t n, const char *output, FILE *note,
	     struct sb_error *err)
{
	struct sb_merge_input *in = calloc(n ? n : 1, sizeof(*in));
	size_t i;
	int ret;

	if (!in)
		return sb_fail(err, ENOMEM, "%s: out of memory", output);
	for (i = 0; i < n; i++)
		sb_profile_init(&in[i].p);
	ret = n ? read_inputs(in, inputs, n, err)
		: sb_fail(err, EINVAL, "%s: no profiles to merge", output);
	if (!ret)
		ret = sb_merge_join_rotated(in, &n, err);
	if (!ret)
		ret = check_ranks(in, n, err);
	if (!ret)
		ret = align_clocks(in, n, note, err);
	if (!ret)
		ret = merge_write(in, n, output, note, err);
	for (i = 0; i < n; i++)
		sb_profile_free(&in[i].p);
	free(in);
	return ret;
}
