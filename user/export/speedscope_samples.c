/* Sampled stacks as speedscope "sampled" profiles, the region path as their outermost frames. */
#include <errno.h>
#include <stdlib.h>

#include "analysis/samples_report.h"
#include "export/speedscope_kinds.h"
#include "export/speedscope_samples.h"

/* Region paths nest through their parents; deeper than this is a loop in a broken file. */
#define MAX_PATH_DEPTH 4096

/*
 * Shared frames after the regions' (which keep their indices, so a region is
 * one frame in both kinds of profile): the region paths whose name is in no
 * region, then one per function name (demangled, marker helpers folded).
 */
struct sb_ss_samples {
	const struct sb_profile *p;
	struct sb_fnames fn;
	uint32_t *path_frame;	/* region path id -> frame */
	uint32_t fn_base;	/* function id k is frame fn_base + k */
	const char **files;	/* function id -> source file; NULL when unknown */
	size_t *rows;		/* rows with weight, by rank, thread, kind */
	size_t n_rows;
};

static uint64_t row_weight(const struct sb_sample *r)
{
	return r->kind == SB_SAMPLE_OFFCPU ? r->ns : r->count;
}

static const struct sb_samples *samples_of(const struct sb_ss_samples *x)
{
	return &x->p->samples;
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct sb_sample *v = ctx, *r = &v[*(const size_t *)a], *q = &v[*(const size_t *)b];

	if (r->rank != q->rank)
		return r->rank < q->rank ? -1 : 1;
	if (r->thread != q->thread)
		return r->thread < q->thread ? -1 : 1;
	if (r->kind != q->kind)
		return r->kind < q->kind ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int map_paths(struct sb_ss_samples *x, uint32_t next)
{
	const struct sb_samples *s = samples_of(x);
	ssize_t reg;
	size_t i;

	x->path_frame = calloc(s->n_paths ? s->n_paths : 1, sizeof(*x->path_frame));
	if (!x->path_frame)
		return -ENOMEM;
	for (i = 0; i < s->n_paths; i++) {
		reg = sb_profile_find_region(x->p, s->paths[i].name);
		x->path_frame[i] = reg >= 0 ? (uint32_t)reg : next++;
	}
	x->fn_base = next;
	return 0;
}

/* Each function's source file: that of its first frame that names one. */
static int map_files(struct sb_ss_samples *x)
{
	const struct sb_samples *s = samples_of(x);
	uint32_t k;
	size_t i;

	x->files = calloc(x->fn.n_real + 1, sizeof(*x->files));
	if (!x->files)
		return -ENOMEM;
	for (i = 0; i < s->n_frames; i++) {
		k = x->fn.of_frame[i];
		if (!x->files[k] && s->frames[i].file && s->frames[i].file[0])
			x->files[k] = s->frames[i].file;
	}
	return 0;
}

/* Nothing to show (n_rows 0) when the profile has no sample that weighs anything. */
static int samples_init(void **state, const struct sb_profile *p, uint32_t *next_frame)
{
	const struct sb_samples *s = &p->samples;
	struct sb_ss_samples *x = calloc(1, sizeof(*x));
	size_t i;
	int r;

	*state = x;
	if (!x)
		return -ENOMEM;
	x->p = p;
	x->rows = malloc((s->n_samples ? s->n_samples : 1) * sizeof(*x->rows));
	if (!x->rows)
		return -ENOMEM;
	for (i = 0; i < s->n_samples; i++)
		if (row_weight(&s->samples[i]) &&
		    (s->samples[i].kind == SB_SAMPLE_CPU || s->samples[i].kind == SB_SAMPLE_OFFCPU))
			x->rows[x->n_rows++] = i;
	if (!x->n_rows)
		return 0;
	qsort_r(x->rows, x->n_rows, sizeof(*x->rows), cmp_rows, s->samples);
	r = sb_fnames_build(&x->fn, s);
	if (r)
		return r;
	r = map_paths(x, *next_frame);
	if (!r)
		r = map_files(x);
	/* The functions' frames, and the one for samples without a stack. */
	*next_frame = x->fn_base + x->fn.n_real + 1;
	return r;
}

static void samples_release(void *state)
{
	struct sb_ss_samples *x = state;

	if (!x)
		return;
	if (x->n_rows)
		sb_fnames_free(&x->fn);
	free(x->path_frame);
	free(x->files);
	free(x->rows);
	free(x);
}

/* The suffix of folded stacks, so both files name a kernel frame alike. */
static int put_kernel_name(struct sb_out *o, const char *name)
{
	char *k;

	if (asprintf(&k, "%s_[k]", name) < 0)
		return -ENOMEM;
	sb_out_json(o, k);
	free(k);
	return 0;
}

static int samples_frames(const void *state, struct sb_out *o)
{
	const struct sb_ss_samples *x = state;
	const struct sb_samples *s = samples_of(x);
	size_t i;

	for (i = 0; x->n_rows && i < s->n_paths; i++) {
		if (x->path_frame[i] < x->p->n_regions)
			continue;
		sb_out_str(o, ",\n{\"name\":");
		sb_out_json(o, s->paths[i].name);
		sb_out_char(o, '}');
	}
	for (i = 0; x->n_rows && i <= x->fn.n_real; i++) {
		sb_out_str(o, ",\n{\"name\":");
		if (i < x->fn.n_real && x->fn.kernel[i]) {
			if (put_kernel_name(o, x->fn.names[i]))
				return -ENOMEM;
		} else {
			sb_out_json(o, x->fn.names[i]);
		}
		if (x->files[i]) {
			sb_out_str(o, ",\"file\":");
			sb_out_json(o, x->files[i]);
		}
		sb_out_char(o, '}');
	}
	return 0;
}

char *sb_ss_thread_name(const struct sb_xthread *x, uint32_t rank, int64_t thread)
{
	char id[48], *name;
	int r;

	if (x && x->tid > 0)
		snprintf(id, sizeof(id), "tid %lld", (long long)x->tid);
	else
		snprintf(id, sizeof(id), "thread %lld", (long long)thread);
	if (x && x->name[0])
		r = asprintf(&name, "rank %u: %s (%s)", rank, x->name, id);
	else
		r = asprintf(&name, "rank %u: %s", rank, id);
	return r < 0 ? NULL : name;
}

/* The region path, outermost first; "," before each frame but the first of the stack. */
static void put_path(const struct sb_ss_samples *x, struct sb_out *o, int64_t path,
		     unsigned depth, bool *sep)
{
	const struct sb_samples *s = samples_of(x);

	if (path < 0 || (size_t)path >= s->n_paths || depth >= MAX_PATH_DEPTH)
		return;
	put_path(x, o, s->paths[path].parent, depth + 1, sep);
	if (*sep)
		sb_out_char(o, ',');
	*sep = true;
	sb_out_i64(o, x->path_frame[path]);
}

/* A stack is stored leaf first: written backwards, outermost first, helpers left out. */
static void put_stack(const struct sb_ss_samples *x, struct sb_out *o, int64_t id, bool *sep)
{
	const struct sb_samples *s = samples_of(x);
	const struct sb_stack *k;
	uint32_t d, f;

	if (id < 0 || (size_t)id >= s->n_stacks)
		return;
	k = &s->stacks[id];
	for (d = k->depth; d > 0; d--) {
		f = x->fn.of_frame[s->stack_frames[k->first + d - 1]];
		if (x->fn.helper[f])
			continue;
		if (*sep)
			sb_out_char(o, ',');
		*sep = true;
		sb_out_i64(o, x->fn_base + f);
	}
}

static void put_sample(const struct sb_ss_samples *x, struct sb_out *o, const struct sb_sample *r)
{
	const struct sb_samples *s = samples_of(x);
	bool sep = false, stack;

	sb_out_char(o, '[');
	put_path(x, o, r->path, 0, &sep);
	stack = (r->ustack >= 0 && (size_t)r->ustack < s->n_stacks && s->stacks[r->ustack].depth) ||
		(r->kstack >= 0 && (size_t)r->kstack < s->n_stacks && s->stacks[r->kstack].depth);
	if (!stack) {
		if (sep)
			sb_out_char(o, ',');
		sb_out_i64(o, x->fn_base + x->fn.n_real);
	}
	put_stack(x, o, r->ustack, &sep);
	put_stack(x, o, r->kstack, &sep);
	sb_out_char(o, ']');
}

static bool same_group(const struct sb_sample *a, const struct sb_sample *b)
{
	return a->rank == b->rank && a->thread == b->thread && a->kind == b->kind;
}

/* Rows [from, to) of x->rows, one (rank, thread, kind), as one profile. */
static int put_group(const struct sb_ss_samples *x, struct sb_out *o, const struct sb_xthreads *t,
		     size_t from, size_t to, bool *first)
{
	const struct sb_sample *v = samples_of(x)->samples, *r = &v[x->rows[from]];
	bool cpu = r->kind == SB_SAMPLE_CPU;
	uint64_t total = 0;
	char *name;
	size_t i;

	name = sb_ss_thread_name(sb_xthreads_find(t, r->rank, r->thread), r->rank, r->thread);
	if (!name)
		return -ENOMEM;
	for (i = from; i < to; i++)
		total += row_weight(&v[x->rows[i]]);
	sb_out_str(o, *first ? "{\"type\":\"sampled\",\"name\":" :
			       ",\n{\"type\":\"sampled\",\"name\":");
	*first = false;
	sb_out_json(o, name);
	free(name);
	sb_out_str(o, cpu ? ",\"unit\":\"none\"" : ",\"unit\":\"nanoseconds\"");
	sb_out_str(o, ",\"startValue\":0,\"endValue\":");
	sb_out_i64(o, (int64_t)total);
	sb_out_str(o, ",\"samples\":[");
	for (i = from; i < to; i++) {
		sb_out_str(o, i > from ? ",\n" : "\n");
		put_sample(x, o, &v[x->rows[i]]);
	}
	sb_out_str(o, "],\"weights\":[");
	for (i = from; i < to; i++) {
		if (i > from)
			sb_out_char(o, ',');
		sb_out_i64(o, (int64_t)row_weight(&v[x->rows[i]]));
	}
	sb_out_str(o, "]}");
	return 0;
}

static int samples_profiles(const void *state, struct sb_out *o, const struct sb_xthreads *t,
			    bool *first)
{
	const struct sb_ss_samples *x = state;
	const struct sb_sample *v = samples_of(x)->samples;
	size_t from = 0, to;
	int r;

	while (from < x->n_rows) {
		for (to = from + 1; to < x->n_rows &&
				    same_group(&v[x->rows[from]], &v[x->rows[to]]); to++)
			;
		r = put_group(x, o, t, from, to, first);
		if (r)
			return r;
		from = to;
	}
	return 0;
}

const struct sb_ss_kind_view sb_ss_samples_view = {
	.kind = &sb_samples_kind,
	.init = samples_init,
	.frames = samples_frames,
	.profiles = samples_profiles,
	.release = samples_release,
};
