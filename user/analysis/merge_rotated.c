/*
 * merge: the files of one rotated recording (record --rotate) are one input.
 * Each file holds the calls that ended in its interval, with the whole
 * recording's ranks, thread rows and call ids; joined, every (rank, region)
 * row holds its calls of all files, sorted by start, as one recording would.
 * Their calls are held in memory while joined (docs/FORMAT.md, "Rotation").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "io/h5guard.h"
#include "io/h5read.h"
#include "util/hashmap.h"

/* A metadata integer, or def when the key is absent or a string. */
static int64_t meta_int(const struct sb_profile *p, const char *key, int64_t def)
{
	const struct sb_meta *m = sb_profile_meta(p, key);

	return m && m->is_int ? m->i : def;
}

static bool rotated(const struct sb_profile *p)
{
	return meta_int(p, "rotate_index", -1) >= 0;
}

/* One recording: its start on both clocks, which no other recording shares to the ns. */
static bool same_recording(const struct sb_profile *a, const struct sb_profile *b)
{
	return meta_int(a, "start_time_ns", -1) == meta_int(b, "start_time_ns", -2) &&
	       meta_int(a, "clock_realtime_minus_monotonic_start_ns", -1) ==
	       meta_int(b, "clock_realtime_minus_monotonic_start_ns", -2);
}

/* The files being joined, by rotate_index, read with their calls. */
struct piece {
	const char *path;
	int64_t index;
	struct sb_profile p;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

/* The calls of one row of the joined profile, by start then end; counters follow their call. */
struct row_sort {
	const struct sb_event *ev;
};

static int cmp_call(const void *a, const void *b, void *arg)
{
	const struct row_sort *s = arg;
	const struct sb_event *x = &s->ev[*(const size_t *)a], *y = &s->ev[*(const size_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Sort rows [off, off + n) of j, and their counter rows, by start. */
static int sort_row(struct sb_profile *j, size_t stride, uint64_t off, uint64_t n)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order)), i;
	struct sb_event *ev = malloc((n ? n : 1) * sizeof(*ev));
	int64_t *ctr = stride ? malloc(n * stride * sizeof(*ctr) + 1) : NULL;
	struct row_sort s = { .ev = j->events + off };

	if (!order || !ev || (stride && !ctr)) {
		free(order);
		free(ev);
		free(ctr);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_call, &s);
	for (i = 0; i < n; i++) {
		ev[i] = j->events[off + order[i]];
		if (ctr)
			memcpy(ctr + i * stride, j->counters + (off + order[i]) * stride,
			       stride * sizeof(*ctr));
	}
	memcpy(j->events + off, ev, n * sizeof(*ev));
	if (ctr)
		memcpy(j->counters + off * stride, ctr, n * stride * sizeof(*ctr));
	free(order);
	free(ev);
	free(ctr);
	return 0;
}

/* j's row of (rank, region name): added empty when new. -ENOMEM. */
static ssize_t row_of(struct sb_profile *j, struct sb_hashmap *rows, uint32_t rank,
		      const struct sb_region *r)
{
	ssize_t region = sb_profile_find_region(j, r->name);
	struct sb_pair *pairs;
	uint64_t *at;

	if (region < 0) {
		region = sb_profile_add_region(j, r->name, r->source_file, r->source_line, r->tags);
		if (region < 0)
			return region;
	}
	at = sb_hashmap_get(rows, rank, (uint64_t)region);
	if (at)
		return (ssize_t)*at;
	pairs = realloc(j->pairs, (j->n_pairs + 1) * sizeof(*pairs));
	if (!pairs)
		return -ENOMEM;
	j->pairs = pairs;
	pairs[j->n_pairs] = (struct sb_pair){ .region = (uint32_t)region, .rank = rank };
	if (sb_hashmap_put(rows, rank, (uint64_t)region, j->n_pairs))
		return -ENOMEM;
	return (ssize_t)j->n_pairs++;
}

/* Every file's rows in j, each file's calls counted into its row; pair_of[f][k] its row. */
static int join_rows(struct sb_profile *j, struct piece *f, size_t n, size_t **pair_of)
{
	struct sb_hashmap rows;
	const struct sb_pair *q;
	ssize_t row = 0;
	size_t i, k;

	sb_hashmap_init(&rows);
	for (i = 0; i < n && row >= 0; i++) {
		pair_of[i] = malloc((f[i].p.n_pairs + 1) * sizeof(**pair_of));
		if (!pair_of[i])
			row = -ENOMEM;
		for (k = 0; k < f[i].p.n_pairs && row >= 0; k++) {
			q = &f[i].p.pairs[k];
			row = row_of(j, &rows, q->rank, &f[i].p.regions[q->region]);
			if (row < 0)
				break;
			pair_of[i][k] = (size_t)row;
			j->pairs[row].count += q->count;
			/* Unknown in one file: unknown for the whole row. */
			j->pairs[row].exclusive_total =
				q->exclusive_total < 0 || j->pairs[row].exclusive_total < 0 ? -1 :
				j->pairs[row].exclusive_total + q->exclusive_total;
		}
	}
	sb_hashmap_free(&rows);
	return row < 0 ? (int)row : 0;
}

/* Calls in nesting order per thread: by rank, thread, start, the longer of two with one start first. */
struct nest_sort {
	const struct sb_event *ev;
	const uint32_t *rank;
};

static int cmp_nest(const void *a, const void *b, void *arg)
{
	const struct nest_sort *s = arg;
	size_t i = *(const size_t *)a, k = *(const size_t *)b;
	const struct sb_event *x = &s->ev[i], *y = &s->ev[k];

	if (s->rank[i] != s->rank[k])
		return s->rank[i] < s->rank[k] ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/*
 * A call whose parent ended in a later file is at the top of its own file
 * (docs/FORMAT.md, "Rotation"): its parent is again the innermost call of
 * another file that encloses it on its thread. Calls top level in the file of
 * their enclosing call stay so (their parent was lost, as in one recording).
 */
static int restore_parents(struct sb_profile *j, const uint32_t *file)
{
	size_t n = j->n_events, *order = malloc((n + 1) * sizeof(*order)), depth = 0, i, k;
	size_t *stack = malloc((n + 1) * sizeof(*stack));
	uint32_t *rank = malloc((n + 1) * sizeof(*rank));
	struct nest_sort s = { .ev = j->events, .rank = rank };
	struct sb_event *e;

	if (!order || !stack || !rank) {
		free(order);
		free(stack);
		free(rank);
		return -ENOMEM;
	}
	for (k = 0; k < j->n_pairs; k++)
		for (i = 0; i < j->pairs[k].count; i++)
			rank[j->pairs[k].offset + i] = j->pairs[k].rank;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_nest, &s);
	for (i = 0; i < n; i++) {
		e = &j->events[order[i]];
		while (depth && (rank[stack[depth - 1]] != rank[order[i]] ||
				 j->events[stack[depth - 1]].thread != e->thread ||
				 j->events[stack[depth - 1]].end < e->end))
			depth--;
		if (e->thread >= 0 && e->parent_id < 0 && depth &&
		    file[stack[depth - 1]] != file[order[i]])
			e->parent_id = j->events[stack[depth - 1]].call_id;
		stack[depth++] = order[i];
	}
	free(order);
	free(stack);
	free(rank);
	return 0;
}

/* The calls of every file into their rows, then each row sorted and its statistics made. */
static int join_calls(struct sb_profile *j, struct piece *f, size_t n, size_t **pair_of,
		      size_t stride)
{
	uint64_t *fill = calloc(j->n_pairs + 1, sizeof(*fill)), off = 0, dst;
	const struct sb_pair *q;
	uint32_t *file = NULL;
	size_t i, k, e;
	int ret = 0;

	if (!fill)
		return -ENOMEM;
	for (k = 0; k < j->n_pairs; k++) {
		j->pairs[k].offset = off;
		off += j->pairs[k].count;
	}
	j->n_events = off;
	j->events = malloc((off ? off : 1) * sizeof(*j->events));
	j->counters = stride ? malloc((off ? off : 1) * stride * sizeof(*j->counters)) : NULL;
	file = malloc((off ? off : 1) * sizeof(*file));
	if (!j->events || (stride && !j->counters) || !file) {
		free(fill);
		free(file);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < f[i].p.n_pairs; k++) {
			q = &f[i].p.pairs[k];
			dst = j->pairs[pair_of[i][k]].offset + fill[pair_of[i][k]];
			memcpy(j->events + dst, f[i].p.events + q->offset, q->count * sizeof(*j->events));
			for (e = 0; e < q->count; e++)
				file[dst + e] = (uint32_t)i;
			for (e = 0; stride && e < q->count * stride; e++)
				j->counters[dst * stride + e] = f[i].p.counters ?
					f[i].p.counters[q->offset * stride + e] : -1;
			fill[pair_of[i][k]] += q->count;
		}
	}
	ret = restore_parents(j, file);
	free(file);
	for (k = 0; k < j->n_pairs && !ret; k++) {
		ret = sort_row(j, stride, j->pairs[k].offset, j->pairs[k].count);
		sb_stats_init(&j->pairs[k].stats);
		for (e = 0; e < j->pairs[k].count && !ret; e++)
			sb_stats_add(&j->pairs[k].stats, j->events[j->pairs[k].offset + e].start,
				     j->events[j->pairs[k].offset + e].end,
				     j->events[j->pairs[k].offset + e].metric[SB_METRIC_GPU]);
	}
	free(fill);
	return ret;
}

/* Threads, processes and metadata of the last file, which has every one seen before it. */
static int join_tables(struct sb_profile *j, const struct piece *f, size_t n)
{
	static const char *const own[] = { "calls_over_max_size", "calls_open_at_start" };
	const struct sb_profile *last = &f[n - 1].p;
	const struct sb_meta *m;
	size_t i, k;
	int ret = 0;

	j->schema = last->schema;
	j->columns = last->columns;
	j->format = strdup(last->format ? last->format : "");
	if (!j->format)
		return -ENOMEM;
	for (i = 0; i < last->n_threads && !ret; i++)
		ret = sb_profile_add_thread(j, &last->threads[i]) < 0 ? -ENOMEM : 0;
	for (i = 0; i < last->n_processes && !ret; i++)
		ret = sb_profile_add_process(j, &last->processes[i]) < 0 ? -ENOMEM : 0;
	for (i = 0; i < last->n_meta && !ret; i++) {
		m = &last->meta[i];
		if (!strncmp(m->key, "rotate_", 7))
			continue;
		ret = m->is_int ? sb_profile_set_int(j, m->key, m->i) :
		      sb_profile_set_str(j, m->key, m->s);
	}
	ret |= sb_profile_set_int(j, "rotate_files_joined", (int64_t)n);
	ret |= sb_profile_set_int(j, "rotate_first_index", f[0].index);
	ret |= sb_profile_set_int(j, "rotate_last_index", f[n - 1].index);
	/* The loss counters are the recording's so far in each file, but these are the file's own. */
	for (k = 0; k < sizeof(own) / sizeof(own[0]); k++) {
		ret |= sb_profile_set_int(j, own[k], 0);
		for (i = 0; i < n; i++)
			ret |= sb_profile_set_int(j, own[k], meta_int(j, own[k], 0) +
						  meta_int(&f[i].p, own[k], 0));
	}
	return ret ? -ENOMEM : 0;
}

/* The files f[0..n) (sorted) into j. 0, -ENOMEM, or -EINVAL with err naming a file. */
static int join(struct sb_profile *j, struct piece *f, size_t n, struct sb_error *err)
{
	size_t **pair_of = calloc(n, sizeof(*pair_of)), i;
	size_t stride = sb_counter_stride(sb_profile_counter_slots(&f[n - 1].p));
	int ret = 0;

	if (!pair_of)
		return -ENOMEM;
	for (i = 1; i < n && !ret; i++)
		if (f[i].index == f[i - 1].index)
			ret = sb_fail(err, EINVAL, "%s: file %lld of its rotated recording, as %s is",
				      f[i].path, (long long)f[i].index, f[i - 1].path);
		else if (f[i].p.columns != f[0].p.columns)
			ret = sb_fail(err, EINVAL, "%s: other event columns than %s, a file of the "
				      "same rotated recording", f[i].path, f[0].path);
	if (!ret)
		ret = join_rows(j, f, n, pair_of);
	if (!ret)
		ret = join_calls(j, f, n, pair_of, stride);
	if (!ret)
		ret = join_tables(j, f, n);
	for (i = 0; i < n; i++)
		free(pair_of[i]);
	free(pair_of);
	return ret;
}

/* Read the files in[idx[0..n)] with their calls, sorted by rotate_index, and join them. */
static int read_and_join(struct sb_profile *j, const struct sb_merge_input *in, const size_t *idx,
			 size_t n, struct sb_error *err)
{
	struct piece *f = calloc(n, sizeof(*f));
	size_t i;
	int ret = 0;

	if (!f)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		sb_profile_init(&f[i].p);
	for (i = 0; i < n && !ret; i++) {
		f[i].path = in[idx[i]].path;
		f[i].index = meta_int(&in[idx[i]].p, "rotate_index", -1);
		ret = sb_h5_read_guarded(f[i].path, &f[i].p, 0, err);
	}
	if (!ret) {
		qsort(f, n, sizeof(*f), cmp_piece);
		ret = join(j, f, n, err);
	}
	for (i = 0; i < n; i++)
		sb_profile_free(&f[i].p);
	free(f);
	return ret;
}

/* Input i becomes the join of the n inputs idx[] (i first), the others leave the list. */
static int join_group(struct sb_merge_input *in, size_t *n_in, const size_t *idx, size_t n,
		      struct sb_error *err)
{
	struct sb_profile j;
	size_t k, w, g;
	int ret;

	sb_profile_init(&j);
	ret = read_and_join(&j, in, idx, n, err);
	if (ret) {
		sb_profile_free(&j);
		return ret;
	}
	sb_profile_free(&in[idx[0]].p);
	in[idx[0]].p = j;
	for (g = 1; g < n; g++)
		sb_profile_free(&in[idx[g]].p);
	/* Keep the inputs not in the group, in their order. */
	for (k = 0, w = 0; k < *n_in; k++) {
		for (g = 1; g < n && idx[g] != k; g++)
			;
		if (g < n)
			continue;
		in[w++] = in[k];
	}
	*n_in = w;
	return 0;
}

int sb_merge_join_rotated(struct sb_merge_input *in, size_t *n, struct sb_error *err)
{
	size_t i, k, m, *idx = malloc((*n + 1) * sizeof(*idx));
	int ret = 0;

	if (!idx)
		return -ENOMEM;
	for (i = 0; i < *n && !ret; i++) {
		if (!rotated(&in[i].p))
			continue;
		for (m = 0, k = i; k < *n; k++)
			if (rotated(&in[k].p) && same_recording(&in[i].p, &in[k].p))
				idx[m++] = k;
		if (m > 1)
			ret = join_group(in, n, idx, m, err);
	}
	free(idx);
	return ret;
}
