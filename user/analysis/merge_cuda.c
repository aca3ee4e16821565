/*
 * A merge's CUDA activity: every input's, on the first input's clock, pointing
 * at the merged index rows and kernel names. Ranks, thread rows and call ids
 * stay as recorded: no two inputs share a rank (merge.c checks), and thread
 * rows and call ids count within a rank.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "util/hashmap.h"

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static ssize_t find_name(const struct sb_cuda_data *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->n_names; i++)
		if (!strcmp(o->names[i], name))
			return (ssize_t)i;
	return -ENOENT;
}

/*
 * The merged id of a kernel name, added when new: one kernel run on two nodes
 * is one row of report --gpu, which groups by name id. -ENOMEM.
 */
static ssize_t unify_name(struct sb_cuda_data *o, struct sb_hashmap *ids, const char *name)
{
	uint64_t h = name_hash(name), *v = sb_hashmap_get(ids, h, strlen(name));
	ssize_t id;

	if (v && !strcmp(o->names[*v], name))
		return (ssize_t)*v;
	/* Two names with one hash: rare enough for a search. */
	id = v ? find_name(o, name) : -ENOENT;
	if (id >= 0)
		return id;
	o->names[o->n_names] = strdup(name);
	if (!o->names[o->n_names])
		return -ENOMEM;
	id = (ssize_t)o->n_names++;
	if (!v && sb_hashmap_put(ids, h, strlen(name), (uint64_t)id))
		return -ENOMEM;
	return id;
}

/* Each input's name ids in the merged table, map[i][name]. */
static int merge_names(struct sb_cuda_data *o, const struct sb_merge_input *in, size_t n,
		       int64_t **map)
{
	const struct sb_cuda_data *d;
	struct sb_hashmap ids;
	size_t i, k, total = 0;
	ssize_t id = 0;

	for (i = 0; i < n; i++)
		total += in[i].p.cuda.n_names;
	o->names = calloc(total ? total : 1, sizeof(*o->names));
	if (!o->names)
		return -ENOMEM;
	sb_hashmap_init(&ids);
	for (i = 0; i < n && id >= 0; i++) {
		d = &in[i].p.cuda;
		map[i] = calloc(d->n_names ? d->n_names : 1, sizeof(**map));
		if (!map[i])
			id = -ENOMEM;
		for (k = 0; k < d->n_names && id >= 0; k++) {
			id = unify_name(o, &ids, d->names[k] ? d->names[k] : "");
			if (id >= 0)
				map[i][k] = id;
		}
	}
	sb_hashmap_free(&ids);
	return id < 0 ? (int)id : 0;
}

/* A time of an activity moved to the first input's clock; -1 (none) stays. */
static bool shift_time(int64_t *t, int64_t shift)
{
	return *t == -1 || !__builtin_add_overflow(*t, shift, t);
}

static bool shift_act(struct sb_cuda_activity *a, int64_t shift)
{
	return !__builtin_add_overflow(a->start, shift, &a->start) &&
	       !__builtin_add_overflow(a->end, shift, &a->end) &&
	       shift_time(&a->launch_start, shift) && shift_time(&a->launch_end, shift);
}

/*
 * Input i's activities appended to o. at[first + k] is where input i's index
 * row k went in the merged table; names maps its name ids.
 */
static int append_acts(struct sb_cuda_data *o, const struct sb_merge_input *in,
		       const size_t *at, size_t first, const int64_t *names, struct sb_error *err)
{
	const struct sb_cuda_data *d = &in->p.cuda;
	struct sb_cuda_activity *a;
	size_t k;

	for (k = 0; k < d->n_acts; k++) {
		a = &o->acts[o->n_acts++];
		*a = d->acts[k];
		/* The reader checked name and pair ids against the input's tables. */
		if (a->name >= 0)
			a->name = names[a->name];
		if (a->pair >= 0)
			a->pair = (int64_t)at[first + (size_t)a->pair];
		if (!shift_act(a, in->shift))
			return sb_fail(err, ERANGE, "%s: a CUDA activity's time overflows when "
				       "moved to the first file's clock", in->path);
	}
	return 0;
}

static int cmp_i64(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

/*
 * By rank, then start, as the file wants. qsort is not stable: the fields
 * after them make the order of one rank's simultaneous activities the same
 * on every run.
 */
static int cmp_act(const void *x, const void *y)
{
	const struct sb_cuda_activity *a = x, *b = y;
	int c = cmp_i64(a->rank, b->rank);

	c = c ? c : cmp_i64(a->start, b->start);
	c = c ? c : cmp_i64(a->end, b->end);
	c = c ? c : cmp_i64(a->kind, b->kind);
	c = c ? c : cmp_i64(a->correlation, b->correlation);
	c = c ? c : cmp_i64(a->device, b->device);
	c = c ? c : cmp_i64(a->stream, b->stream);
	return c ? c : cmp_i64(a->thread, b->thread);
}

static int append_all(struct sb_cuda_data *o, const struct sb_merge_input *in, size_t n,
		      const size_t *at, int64_t **names, struct sb_error *err)
{
	size_t i, first = 0, total = 0;
	int ret = 0;

	for (i = 0; i < n; i++)
		total += in[i].p.cuda.n_acts;
	o->acts = calloc(total ? total : 1, sizeof(*o->acts));
	if (!o->acts)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = append_acts(o, &in[i], at, first, names[i], err);
		first += in[i].p.n_pairs;
	}
	/* Inputs may hold ranks 0 and 2, and 1 and 3: the ranks interleave. */
	if (!ret)
		qsort(o->acts, o->n_acts, sizeof(*o->acts), cmp_act);
	return ret;
}

int sb_merge_cuda(struct sb_profile *out, const struct sb_merge_input *in, size_t n,
		  const size_t *at, struct sb_error *err)
{
	int64_t **names = calloc(n ? n : 1, sizeof(*names));
	size_t i;
	int ret;

	if (!names)
		return -ENOMEM;
	ret = merge_names(&out->cuda, in, n, names);
	if (!ret)
		ret = append_all(&out->cuda, in, n, at, names, err);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}
