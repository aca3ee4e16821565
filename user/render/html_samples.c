/*
 * The HTML report's samples: the timeline's ticks, one per timed sample on its
 * thread's lane, and the Samples section's hottest functions per region path.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/samples_report.h"
#include "render/html_samples.h"
#include "util/text_format.h"

/* Whether the timeline shows t, the *seen-th sample of the rank filter so far. */
static bool shown(const struct sb_html_ticks *k, const struct sb_timed_sample *t, size_t *seen)
{
	if (k->rank >= 0 && (int64_t)t->rank != k->rank)
		return false;
	return (*seen)++ % k->step == 0;
}

static void pick(struct sb_html_ticks *k, const struct sb_profile *p, int64_t rank, size_t cap)
{
	const struct sb_samples *s = &p->samples;
	size_t i, seen = 0;

	*k = (struct sb_html_ticks){ .p = p, .rank = rank, .step = 1, .t0 = INT64_MAX,
				     .t1 = INT64_MIN };
	for (i = 0; i < s->n_timeline; i++)
		k->total += rank < 0 || (int64_t)s->timeline[i].rank == rank;
	if (cap && k->total > cap)
		k->step = (k->total + cap - 1) / cap;
	for (i = 0; i < s->n_timeline; i++) {
		if (!shown(k, &s->timeline[i], &seen))
			continue;
		k->shown++;
		k->t0 = s->timeline[i].time < k->t0 ? s->timeline[i].time : k->t0;
		k->t1 = s->timeline[i].time > k->t1 ? s->timeline[i].time : k->t1;
	}
}

int sb_html_ticks_pick(struct sb_html_layer *l, const struct sb_profile *p, int64_t rank,
		       size_t cap)
{
	struct sb_html_ticks *k = malloc(sizeof(*k));

	/* Ticks are small and drawn apart: their own cap, not the calls'. */
	(void)cap;
	l->state = k;
	if (!k)
		return -ENOMEM;
	pick(k, p, rank, SB_HTML_MAX_TICKS);
	l->shown = k->shown;
	l->t0 = k->t0;
	l->t1 = k->t1;
	return 0;
}

void sb_html_ticks_release(struct sb_html_layer *l)
{
	free(l->state);
	l->state = NULL;
}

size_t sb_html_ticks_lanes(const struct sb_html_layer *l, uint64_t *out)
{
	const struct sb_html_ticks *k = l->state;
	const struct sb_samples *s = &k->p->samples;
	size_t i, seen = 0, n = 0;

	for (i = 0; i < s->n_timeline; i++)
		if (shown(k, &s->timeline[i], &seen))
			out[n++] = sb_html_lane_key(s->timeline[i].rank, s->timeline[i].thread);
	return n;
}

/* The first frame of stack id that is no marker helper's; -1 when there is none. */
static int64_t first_fn(const struct sb_samples *s, const struct sb_fnames *fn, int64_t id)
{
	const struct sb_stack *st;
	uint32_t d, f;

	for (d = 0; id >= 0 && d < s->stacks[id].depth; d++) {
		st = &s->stacks[id];
		f = fn->of_frame[s->stack_frames[st->first + d]];
		if (!fn->helper[f])
			return f;
	}
	return -1;
}

/* What ran when t was taken: its innermost frame, the kernel's first, as report --samples. */
static int64_t leaf_fn(const struct sb_samples *s, const struct sb_fnames *fn,
		       const struct sb_timed_sample *t)
{
	int64_t f = first_fn(s, fn, t->kstack);

	if (f < 0)
		f = first_fn(s, fn, t->ustack);
	return f < 0 ? (int64_t)fn->n_real : f;
}

void sb_html_region_path(FILE *j, const struct sb_samples *s, int64_t path)
{
	size_t n = sb_region_path_names(s, path, NULL, 0), i;
	const char **names;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	names = n ? malloc(n * sizeof(*names)) : NULL;
	m = names ? open_memstream(&buf, &len) : NULL;
	if (!m) {
		format_json_string(j, n ? "?" : "(outside regions)");
		free(names);
		return;
	}
	sb_region_path_names(s, path, names, n);
	for (i = 0; i < n; i++)
		fprintf(m, "%s%s", i ? " \u203a " : "", names[i] ? names[i] : "?");
	fclose(m);
	format_json_string(j, buf ? buf : "?");
	free(buf);
	free(names);
}

/* Indexes of the functions and paths the shown samples use, in order of first use. */
struct used {
	int64_t *fn, *path;	/* by function id, by path id; -1: unused */
	size_t n_fn, n_path;
};

static int64_t use(int64_t *ix, size_t *n, int64_t id)
{
	if (ix[id] < 0)
		ix[id] = (int64_t)(*n)++;
	return ix[id];
}

static void put_names(FILE *j, const struct sb_html_ticks *k, const struct sb_fnames *fn,
		      struct used *u)
{
	const struct sb_samples *s = &k->p->samples;
	size_t i, seen = 0, n = 0;
	int64_t f;

	fputs(", \"names\": [", j);
	for (i = 0; i < s->n_timeline; i++) {
		if (!shown(k, &s->timeline[i], &seen))
			continue;
		f = leaf_fn(s, fn, &s->timeline[i]);
		if (u->fn[f] >= 0)
			continue;
		use(u->fn, &u->n_fn, f);
		fputs(n++ ? ", " : "", j);
		format_json_string(j, fn->names[f]);
	}
	fputs("], \"paths\": [", j);
	for (i = n = 0, seen = 0; i < s->n_timeline; i++) {
		if (!shown(k, &s->timeline[i], &seen) || s->timeline[i].path < 0 ||
		    u->path[s->timeline[i].path] >= 0)
			continue;
		use(u->path, &u->n_path, s->timeline[i].path);
		fputs(n++ ? ", " : "", j);
		sb_html_region_path(j, s, s->timeline[i].path);
	}
	fputc(']', j);
}

enum column { COL_LANE, COL_T, COL_CPU, COL_FN, COL_PATH };

static const char *const column_names[] = { "lane", "t", "cpu", "fn", "path" };

static void put_column(FILE *j, const struct sb_html_ticks *k, enum column c, int64_t t0,
		       const uint64_t *lanes, size_t n_lanes, const struct sb_fnames *fn,
		       const struct used *u)
{
	const struct sb_samples *s = &k->p->samples;
	const struct sb_timed_sample *t;
	size_t i, seen = 0, n = 0;
	uint64_t key, *at;
	int64_t v = 0;

	fprintf(j, ", \"%s\": [", column_names[c]);
	for (i = 0; i < s->n_timeline; i++) {
		t = &s->timeline[i];
		if (!shown(k, t, &seen))
			continue;
		switch (c) {
		case COL_LANE:
			key = sb_html_lane_key(t->rank, t->thread);
			at = bsearch(&key, lanes, n_lanes, sizeof(*lanes), sb_html_cmp_key);
			v = at ? at - lanes : 0;
			break;
		case COL_T:
			v = t->time - t0;
			break;
		case COL_CPU:
			v = t->cpu;
			break;
		case COL_FN:
			v = u->fn[leaf_fn(s, fn, t)];
			break;
		case COL_PATH:
			v = t->path < 0 ? -1 : u->path[t->path];
			break;
		}
		fprintf(j, n++ ? ",%" PRId64 : "%" PRId64, v);
	}
	fputc(']', j);
}

int sb_html_ticks_write(FILE *j, const struct sb_html_layer *l, int64_t t0,
			const uint64_t *lanes, size_t n_lanes)
{
	const struct sb_html_ticks *k = l->state;
	const struct sb_samples *s = &k->p->samples;
	struct used u = { 0 };
	struct sb_fnames fn;
	enum column c;
	size_t i;

	if (!k->shown)
		return 0;
	if (sb_fnames_build(&fn, s))
		return -ENOMEM;
	u.fn = malloc((fn.n_real + 1) * sizeof(*u.fn));
	u.path = malloc((s->n_paths ? s->n_paths : 1) * sizeof(*u.path));
	if (!u.fn || !u.path) {
		free(u.fn);
		free(u.path);
		sb_fnames_free(&fn);
		return -ENOMEM;
	}
	for (i = 0; i <= fn.n_real; i++)
		u.fn[i] = -1;
	for (i = 0; i < s->n_paths; i++)
		u.path[i] = -1;
	fprintf(j, ",\n \"samples\": {\"total\": %zu, \"shown\": %zu, \"step\": %zu", k->total,
		k->shown, k->step);
	put_names(j, k, &fn, &u);
	for (c = COL_LANE; c <= COL_PATH; c++)
		put_column(j, k, c, t0, lanes, n_lanes, &fn, &u);
	fputc('}', j);
	free(u.fn);
	free(u.path);
	sb_fnames_free(&fn);
	return 0;
}

/* Sample rows for the page: the innermost function per region path, the hottest first. */
struct hot {
	int64_t path;
	const char *fn;
	uint64_t cpu;		/* CPU samples */
	uint64_t off_ns;	/* time blocked */
};

/*
 * Name of the innermost frame of stack id as the stack outputs show it
 * (demangled, a marker helper's frame folded into its caller); NULL when
 * there is none.
 */
static const char *leaf_name(const struct sb_samples *s, const struct sb_fnames *fn, int64_t id)
{
	const struct sb_stack *st;
	uint32_t frame, d;

	if (id < 0 || (uint64_t)id >= s->n_stacks)
		return NULL;
	st = &s->stacks[id];
	for (d = 0; d < st->depth && st->first + d < s->n_stack_frames; d++) {
		frame = s->stack_frames[st->first + d];
		if (frame >= s->n_frames)
			return NULL;
		if (!fn->helper[fn->of_frame[frame]])
			return fn->names[fn->of_frame[frame]];
	}
	return NULL;
}

static int cmp_hot_key(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	return strcmp(x->fn, y->fn);
}

static int cmp_hot_weight(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? 1 : -1;
	if (x->off_ns != y->off_ns)
		return x->off_ns < y->off_ns ? 1 : -1;
	return cmp_hot_key(a, b);
}

int sb_html_samples_section(FILE *j, const struct sb_profile *p, const struct sb_html_opts *o)
{
	const struct sb_samples *s = &p->samples;
	const struct sb_sample *x;
	struct sb_fnames fn;
	struct hot *h;
	size_t i, n = 0, u = 0;
	uint64_t cpu = 0, off = 0;

	if (!s->n_samples)
		return 0;
	if (sb_fnames_build(&fn, s))
		return -ENOMEM;
	h = malloc(s->n_samples * sizeof(*h));
	if (!h) {
		sb_fnames_free(&fn);
		return -ENOMEM;
	}
	for (i = 0; i < s->n_samples; i++) {
		x = &s->samples[i];
		if (o->rank >= 0 && (int64_t)x->rank != o->rank)
			continue;
		h[n] = (struct hot){ .path = x->path < 0 ? -1 : x->path };
		h[n].fn = leaf_name(s, &fn, x->ustack);
		if (!h[n].fn)
			h[n].fn = leaf_name(s, &fn, x->kstack);
		if (!h[n].fn)
			h[n].fn = "[no stack]";
		if (x->kind == SB_SAMPLE_OFFCPU)
			h[n].off_ns = x->ns;
		else
			h[n].cpu = x->count;
		cpu += h[n].cpu;
		off += h[n].off_ns;
		n++;
	}
	qsort(h, n, sizeof(*h), cmp_hot_key);
	for (i = 0; i < n; i++) {
		if (u && !cmp_hot_key(&h[u - 1], &h[i])) {
			h[u - 1].cpu += h[i].cpu;
			h[u - 1].off_ns += h[i].off_ns;
		} else {
			h[u++] = h[i];
		}
	}
	qsort(h, u, sizeof(*h), cmp_hot_weight);
	fprintf(j, ",\n\"samples\": {\"cpu_samples\": %" PRIu64 ", \"offcpu_ns\": %" PRIu64
		", \"total_rows\": %zu, \"columns\": [{\"title\": \"Region path\", \"type\": \"text\"}, "
		"{\"title\": \"Function (innermost frame)\", \"type\": \"text\"}, "
		"{\"title\": \"CPU samples\", \"type\": \"count\"}, "
		"{\"title\": \"Off-CPU\", \"type\": \"ns\"}],\n \"rows\": [", cpu, off, u);
	for (i = 0; i < u && i < SB_HTML_MAX_SAMPLE_ROWS; i++) {
		fputs(i ? ",\n  [" : "\n  [", j);
		sb_html_region_path(j, s, h[i].path);
		fputs(", ", j);
		format_json_string(j, h[i].fn);
		fprintf(j, ", %" PRIu64 ", %" PRIu64 "]", h[i].cpu, h[i].off_ns);
	}
	fputs("]}", j);
	free(h);
	sb_fnames_free(&fn);
	return 0;
}
