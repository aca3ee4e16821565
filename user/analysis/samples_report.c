/* Sums sampled stacks into self and total shares per region path and function. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frame_names.h"
#include "analysis/samples_report.h"
#include "util/demangle.h"
#include "util/hashmap.h"

#define NO_STACK "[no stack]"

/* ---- function names ---- */

bool sb_frame_is_kernel(const struct sb_frame_sym *f)
{
	return f->module && !strcmp(f->module, "[kernel]");
}

static char *frame_name(const struct sb_frame_sym *f)
{
	const char *m = f->module, *base;
	char *s;

	if (f->function && *f->function)
		return sb_frame_display_name(f->function);
	if (!m || !*m)
		return strdup("[unknown]");
	if (*m == '[')
		return strdup(m);
	base = strrchr(m, '/');
	base = base && base[1] ? base + 1 : m;
	return asprintf(&s, "[%s]", base) < 0 ? NULL : s;
}

struct named {
	char *name;
	bool kernel;
	bool helper;
	uint32_t frame;
};

/* Judged on the demangled name too, so --no-demangle folds the C++ helpers alike. */
static bool is_helper(const struct sb_frame_sym *f)
{
	char *d;
	bool yes;

	if (!f->function || sb_frame_is_kernel(f))
		return false;
	if (sb_frame_is_marker_helper(f->function))
		return true;
	d = sb_demangle(f->function);
	yes = d && sb_frame_is_marker_helper(d);
	free(d);
	return yes;
}

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	return x->frame < y->frame ? -1 : x->frame > y->frame;
}

/* Ids follow the sorted names, so comparing ids compares names: no context needed to sort by name. */
static int assign_ids(struct sb_fnames *fn, struct named *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (fn->n_real && !strcmp(v[i].name, fn->names[fn->n_real - 1]) &&
		    v[i].kernel == fn->kernel[fn->n_real - 1]) {
			free(v[i].name);
		} else {
			fn->names[fn->n_real] = v[i].name;
			fn->helper[fn->n_real] = v[i].helper;
			fn->kernel[fn->n_real++] = v[i].kernel;
		}
		v[i].name = NULL;
		fn->of_frame[v[i].frame] = (uint32_t)(fn->n_real - 1);
	}
	fn->names[fn->n_real] = strdup(NO_STACK);
	return fn->names[fn->n_real] ? 0 : -ENOMEM;
}

int sb_fnames_build(struct sb_fnames *fn, const struct sb_samples *s)
{
	size_t i, n = s->n_frames;
	struct named *v;
	int ret = 0;

	memset(fn, 0, sizeof(*fn));
	v = calloc(n ? n : 1, sizeof(*v));
	fn->names = calloc(n + 1, sizeof(*fn->names));
	fn->kernel = calloc(n + 1, sizeof(*fn->kernel));
	fn->helper = calloc(n + 1, sizeof(*fn->helper));
	fn->of_frame = calloc(n ? n : 1, sizeof(*fn->of_frame));
	if (!v || !fn->names || !fn->kernel || !fn->helper || !fn->of_frame)
		ret = -ENOMEM;
	for (i = 0; i < n && !ret; i++) {
		v[i] = (struct named){ frame_name(&s->frames[i]), sb_frame_is_kernel(&s->frames[i]),
				       is_helper(&s->frames[i]), (uint32_t)i };
		if (!v[i].name)
			ret = -ENOMEM;
	}
	if (!ret) {
		qsort(v, n, sizeof(*v), cmp_named);
		ret = assign_ids(fn, v, n);
	}
	for (i = 0; v && i < n; i++)
		free(v[i].name);
	free(v);
	if (ret)
		sb_fnames_free(fn);
	return ret;
}

void sb_fnames_free(struct sb_fnames *fn)
{
	size_t i;

	for (i = 0; fn->names && i <= fn->n_real; i++)
		free(fn->names[i]);
	free(fn->names);
	free(fn->kernel);
	free(fn->helper);
	free(fn->of_frame);
	memset(fn, 0, sizeof(*fn));
}

size_t sb_region_path_names(const struct sb_samples *s, int64_t path, const char **out, size_t n)
{
	size_t depth = 0, d;
	int64_t q;

	/* Parents always come before their children (checked on read), so this ends. */
	for (q = path; q >= 0; q = s->paths[q].parent)
		depth++;
	d = depth;
	for (q = path; q >= 0; q = s->paths[q].parent)
		if (--d < n && out)
			out[d] = s->paths[q].name;
	return depth;
}

/* ---- sums ---- */

struct entry {
	int64_t path;
	struct sb_fn_stat s;
};

struct acc {
	struct sb_hashmap map;		/* (path + 1, fn) -> entry index */
	struct entry *e;
	size_t n, cap;
	uint64_t *stamp;		/* fn -> last row that counted it in total, + 1 */
};

static struct sb_fn_stat *acc_get(struct acc *a, int64_t path, uint32_t fn)
{
	uint64_t *at = sb_hashmap_get(&a->map, (uint64_t)(path + 1), fn);
	struct entry *e;

	if (at)
		return &a->e[*at].s;
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		e = realloc(a->e, a->cap * sizeof(*e));
		if (!e)
			return NULL;
		a->e = e;
	}
	if (sb_hashmap_put(&a->map, (uint64_t)(path + 1), fn, a->n))
		return NULL;
	a->e[a->n] = (struct entry){ path, { fn, 0, 0 } };
	return &a->e[a->n++].s;
}

static uint64_t row_weight(const struct sb_sample *x)
{
	return x->kind == SB_SAMPLE_OFFCPU ? x->ns : x->count;
}

static const struct sb_stack *stack_of(const struct sb_samples *s, int64_t id)
{
	return id >= 0 && s->stacks[id].depth ? &s->stacks[id] : NULL;
}

/* Innermost frame's function: see sb_sample_stats_build for which stack counts. */
static uint32_t self_fn(const struct sb_samples *s, const struct sb_fnames *fn,
			const struct sb_sample *x)
{
	const struct sb_stack *u = stack_of(s, x->ustack), *k = stack_of(s, x->kstack);
	const struct sb_stack *leaf = k && (x->kind == SB_SAMPLE_CPU || !u) ? k : u;
	uint32_t d, f;

	for (d = 0; leaf && d < leaf->depth; d++) {
		f = fn->of_frame[s->stack_frames[leaf->first + d]];
		/* A marker helper's time is its caller's. */
		if (!fn->helper[f])
			return f;
	}
	return (uint32_t)fn->n_real;
}

static int add_total(struct acc *a, const struct sb_samples *s, const struct sb_fnames *fn,
		     const struct sb_sample *x, uint64_t w, uint64_t stamp, int64_t id)
{
	const struct sb_stack *k = stack_of(s, id);
	struct sb_fn_stat *st;
	uint32_t d, f;

	for (d = 0; k && d < k->depth; d++) {
		f = fn->of_frame[s->stack_frames[k->first + d]];
		/* Recursion puts a function on a stack many times; it is one stack. */
		if (a->stamp[f] == stamp || fn->helper[f])
			continue;
		a->stamp[f] = stamp;
		st = acc_get(a, x->path, f);
		if (!st)
			return -ENOMEM;
		st->total += w;
	}
	return 0;
}

static int add_row(struct acc *a, const struct sb_samples *s, const struct sb_fnames *fn,
		   size_t i)
{
	const struct sb_sample *x = &s->samples[i];
	uint64_t w = row_weight(x);
	struct sb_fn_stat *st;
	uint32_t self = self_fn(s, fn, x);
	int ret;

	st = acc_get(a, x->path, self);
	if (!st)
		return -ENOMEM;
	st->self += w;
	if (self == fn->n_real) {
		st->total += w;
		return 0;
	}
	ret = add_total(a, s, fn, x, w, i + 1, x->kstack);
	return ret ? ret : add_total(a, s, fn, x, w, i + 1, x->ustack);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	if (x->s.self != y->s.self)
		return x->s.self > y->s.self ? -1 : 1;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	return x->s.fn < y->s.fn ? -1 : x->s.fn > y->s.fn;
}

static int cmp_path(const void *a, const void *b)
{
	const struct sb_path_stat *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->path < y->path ? -1 : x->path > y->path;
}

/* Entries sorted by path become one slice of st->all per path. */
static int group_paths(struct sb_sample_stats *st, struct acc *a)
{
	struct sb_path_stat *ps = NULL;
	size_t i;

	if (a->n)
		qsort(a->e, a->n, sizeof(*a->e), cmp_entry);
	st->all = malloc((a->n ? a->n : 1) * sizeof(*st->all));
	st->paths = calloc(a->n ? a->n : 1, sizeof(*st->paths));
	if (!st->all || !st->paths)
		return -ENOMEM;
	for (i = 0; i < a->n; i++) {
		st->all[i] = a->e[i].s;
		if (!i || a->e[i].path != a->e[i - 1].path) {
			ps = &st->paths[st->n_paths++];
			*ps = (struct sb_path_stat){ a->e[i].path, 0, &st->all[i], 0 };
		}
		ps->n_fns++;
		ps->weight += a->e[i].s.self;
	}
	qsort(st->paths, st->n_paths, sizeof(*st->paths), cmp_path);
	return 0;
}

int sb_sample_stats_build(struct sb_sample_stats *st, const struct sb_profile *p,
			  enum sb_sample_kind kind, int64_t rank)
{
	const struct sb_samples *s = &p->samples;
	struct acc a = { .e = NULL };
	size_t i;
	int ret;

	memset(st, 0, sizeof(*st));
	st->kind = kind;
	sb_hashmap_init(&a.map);
	ret = sb_fnames_build(&st->names, s);
	if (!ret) {
		a.stamp = calloc(st->names.n_real + 1, sizeof(*a.stamp));
		ret = a.stamp ? 0 : -ENOMEM;
	}
	for (i = 0; i < s->n_samples && !ret; i++) {
		if (s->samples[i].kind != (uint32_t)kind || !row_weight(&s->samples[i]) ||
		    (rank >= 0 && s->samples[i].rank != rank))
			continue;
		st->weight += row_weight(&s->samples[i]);
		ret = add_row(&a, s, &st->names, i);
	}
	if (!ret)
		ret = group_paths(st, &a);
	sb_hashmap_free(&a.map);
	free(a.e);
	free(a.stamp);
	if (ret)
		sb_sample_stats_free(st);
	return ret;
}

void sb_sample_stats_free(struct sb_sample_stats *st)
{
	sb_fnames_free(&st->names);
	free(st->paths);
	free(st->all);
	memset(st, 0, sizeof(*st));
}

/* ---- stack trees ---- */

struct builder {
	struct sb_stack_tree *t;
	struct sb_hashmap map;		/* (parent, kind << 48 | ref) -> node */
	size_t cap;
	int64_t *chain;			/* a region path, outermost first */
};

static uint32_t tree_child(struct builder *b, uint32_t parent, enum sb_tree_kind kind, int64_t ref)
{
	struct sb_stack_tree *t = b->t;
	uint64_t key = (uint64_t)kind << 48 | (uint64_t)ref, *at;
	struct sb_tree_node *n;

	at = sb_hashmap_get(&b->map, parent, key);
	if (at)
		return (uint32_t)*at;
	if (t->n_nodes >= SB_TREE_NONE)
		return SB_TREE_NONE;
	if (t->n_nodes == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 256;
		n = realloc(t->nodes, b->cap * sizeof(*n));
		if (!n)
			return SB_TREE_NONE;
		t->nodes = n;
	}
	if (sb_hashmap_put(&b->map, parent, key, t->n_nodes))
		return SB_TREE_NONE;
	n = &t->nodes[t->n_nodes];
	*n = (struct sb_tree_node){ parent, SB_TREE_NONE, t->nodes[parent].first_child,
				    t->nodes[parent].depth + 1, kind, ref, 0 };
	t->nodes[parent].first_child = (uint32_t)t->n_nodes;
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	return (uint32_t)t->n_nodes++;
}

/* Step from *at into its child (kind, ref), adding w on the way; false when out of memory. */
static bool step(struct builder *b, uint32_t *at, enum sb_tree_kind kind, int64_t ref, uint64_t w)
{
	uint32_t c = tree_child(b, *at, kind, ref);

	if (c == SB_TREE_NONE)
		return false;
	b->t->nodes[c].weight += w;
	*at = c;
	return true;
}

/* A stack is stored leaf first: walk it backwards to go from the outside in. */
static bool step_stack(struct builder *b, uint32_t *at, int64_t id, bool kernel, uint64_t w)
{
	const struct sb_samples *s = b->t->s;
	const struct sb_stack *k = stack_of(s, id);
	enum sb_tree_kind kind;
	uint32_t d, frame;

	for (d = k ? k->depth : 0; d > 0; d--) {
		frame = s->stack_frames[k->first + d - 1];
		if (b->t->names.helper[b->t->names.of_frame[frame]])
			continue;
		kind = kernel ? SB_TN_KERNEL : s->frames[frame].inlined ? SB_TN_INLINED : SB_TN_USER;
		if (!step(b, at, kind, b->t->names.of_frame[frame], w))
			return false;
	}
	return true;
}

static bool add_stack_row(struct builder *b, const struct sb_sample *x, bool by_rank)
{
	const struct sb_samples *s = b->t->s;
	uint64_t w = row_weight(x);
	size_t depth, i;
	uint32_t at = 0;
	int64_t q;

	b->t->nodes[0].weight += w;
	if (by_rank && !step(b, &at, SB_TN_RANK, x->rank, w))
		return false;
	depth = 0;
	for (q = x->path; q >= 0; q = s->paths[q].parent)
		depth++;
	i = depth;
	for (q = x->path; q >= 0; q = s->paths[q].parent)
		b->chain[--i] = q;
	for (i = 0; i < depth; i++)
		if (!step(b, &at, SB_TN_REGION, b->chain[i], w))
			return false;
	if (!stack_of(s, x->ustack) && !stack_of(s, x->kstack))
		return step(b, &at, SB_TN_NONE, 0, w);
	return step_stack(b, &at, x->ustack, false, w) && step_stack(b, &at, x->kstack, true, w);
}

const char *sb_stack_tree_label(const struct sb_stack_tree *t, uint32_t i, char *buf, size_t len)
{
	const struct sb_tree_node *n = &t->nodes[i];

	switch (n->kind) {
	case SB_TN_ROOT:
		return "all";
	case SB_TN_RANK:
		snprintf(buf, len, "[rank %" PRId64 "]", n->ref);
		return buf;
	case SB_TN_REGION:
		return t->s->paths[n->ref].name;
	case SB_TN_NONE:
		return NO_STACK;
	default:
		return t->names.names[n->ref];
	}
}

struct sib {
	const char *label;	/* NULL for ranks: those sort by number */
	enum sb_tree_kind kind;
	int64_t ref;
	uint32_t node;
};

static int cmp_sib(const void *a, const void *b)
{
	const struct sib *x = a, *y = b;
	int c;

	if (x->kind != y->kind && (x->kind == SB_TN_RANK || y->kind == SB_TN_RANK))
		return x->kind < y->kind ? -1 : 1;
	if (x->kind == SB_TN_RANK)
		return x->ref < y->ref ? -1 : x->ref > y->ref;
	c = strcmp(x->label, y->label);
	if (c)
		return c;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static void relink(struct sb_stack_tree *t, uint32_t parent, const struct sib *v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		t->nodes[v[k].node].next_sibling = k + 1 < n ? v[k + 1].node : SB_TREE_NONE;
	t->nodes[parent].first_child = n ? v[0].node : SB_TREE_NONE;
}

/* Children by name, like every flame graph: the same stacks always draw the same picture. */
static int sort_children(struct sb_stack_tree *t)
{
	struct sib *v = NULL, *nv;
	size_t cap = 0, n, i;
	uint32_t c;
	char buf[32];

	for (i = 0; i < t->n_nodes; i++) {
		n = 0;
		for (c = t->nodes[i].first_child; c != SB_TREE_NONE; c = t->nodes[c].next_sibling) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n].kind = t->nodes[c].kind;
			v[n].ref = t->nodes[c].ref;
			v[n].node = c;
			v[n].label = v[n].kind == SB_TN_RANK ? NULL :
				     sb_stack_tree_label(t, c, buf, sizeof(buf));
			n++;
		}
		if (n > 1)
			qsort(v, n, sizeof(*v), cmp_sib);
		relink(t, (uint32_t)i, v, n);
	}
	free(v);
	return 0;
}

static int max_path_depth(const struct sb_samples *s, size_t *out)
{
	size_t *d, i, m = 0;

	d = calloc(s->n_paths ? s->n_paths : 1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	/* Parents come first, so one pass in id order sees every parent's depth. */
	for (i = 0; i < s->n_paths; i++) {
		d[i] = s->paths[i].parent >= 0 ? d[s->paths[i].parent] + 1 : 1;
		if (d[i] > m)
			m = d[i];
	}
	free(d);
	*out = m;
	return 0;
}

int sb_stack_tree_build(struct sb_stack_tree *t, const struct sb_profile *p,
			enum sb_sample_kind kind, bool by_rank)
{
	const struct sb_samples *s = &p->samples;
	struct builder b = { .t = t };
	size_t i, depth = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	t->s = s;
	sb_hashmap_init(&b.map);
	ret = sb_fnames_build(&t->names, s);
	if (!ret)
		ret = max_path_depth(s, &depth);
	if (!ret) {
		b.cap = 256;
		t->nodes = malloc(b.cap * sizeof(*t->nodes));
		b.chain = malloc((depth ? depth : 1) * sizeof(*b.chain));
		ret = t->nodes && b.chain ? 0 : -ENOMEM;
	}
	if (!ret) {
		t->nodes[0] = (struct sb_tree_node){ SB_TREE_NONE, SB_TREE_NONE, SB_TREE_NONE, 0,
						     SB_TN_ROOT, 0, 0 };
		t->n_nodes = 1;
	}
	for (i = 0; i < s->n_samples && !ret; i++) {
		if (s->samples[i].kind != (uint32_t)kind || !row_weight(&s->samples[i]))
			continue;
		if (!add_stack_row(&b, &s->samples[i], by_rank))
			ret = -ENOMEM;
	}
	if (!ret)
		ret = sort_children(t);
	sb_hashmap_free(&b.map);
	free(b.chain);
	if (ret)
		sb_stack_tree_free(t);
	return ret;
}

void sb_stack_tree_free(struct sb_stack_tree *t)
{
	sb_fnames_free(&t->names);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}

/* ---- which kinds there are ---- */

bool sb_samples_have(const struct sb_profile *p, enum sb_sample_kind kind)
{
	const struct sb_sample *x;
	size_t i;

	for (i = 0; i < p->samples.n_samples; i++) {
		x = &p->samples.samples[i];
		if (x->kind == (uint32_t)kind && (kind == SB_SAMPLE_OFFCPU ? x->ns : x->count))
			return true;
	}
	return false;
}

int sb_samples_require(const struct sb_profile *p, unsigned kinds, struct sb_error *err)
{
	bool cpu = kinds & 1u << SB_SAMPLE_CPU, off = kinds & 1u << SB_SAMPLE_OFFCPU;

	if ((cpu && sb_samples_have(p, SB_SAMPLE_CPU)) ||
	    (off && sb_samples_have(p, SB_SAMPLE_OFFCPU)))
		return 0;
	if (cpu && off)
		return sb_fail(err, EINVAL, "the profile has no CPU or off-CPU samples: "
			       "record with --sample or --offcpu-stacks");
	if (cpu)
		return sb_fail(err, EINVAL, "the profile has no CPU samples: record with --sample%s",
			       sb_samples_have(p, SB_SAMPLE_OFFCPU) ?
			       " (it has off-CPU ones: add --offcpu)" : "");
	return sb_fail(err, EINVAL, "the profile has no off-CPU samples: record with "
		       "--offcpu-stacks");
}

/* ---- truncated stacks ---- */

static bool is_root(const char *fn)
{
	static const char *const roots[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
		"clone", "clone3", "__clone", "__clone3", "main",
	};
	size_t i;

	if (!fn)
		return false;
	/* Versioned and renamed entry points: __libc_start_main_impl, __libc_start_main@GLIBC_2.34. */
	if (!strncmp(fn, "__libc_start_main", 17))
		return true;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(fn, roots[i]))
			return true;
	return false;
}

static bool too_deep(const struct sb_samples *s, const struct sb_stack *k)
{
	uint32_t d, real = 0;

	/* The kernel's limit counts return addresses; inlined frames are ours. */
	for (d = 0; d < k->depth; d++)
		real += !s->frames[s->stack_frames[k->first + d]].inlined;
	return real >= SB_STACK_LIMIT;
}

/* The stack's outermost frame id; the stack must have one. */
static uint32_t outer_frame(const struct sb_samples *s, const struct sb_stack *k)
{
	return s->stack_frames[k->first + k->depth - 1];
}

static bool looks_cut(const struct sb_samples *s, const struct sb_stack *k)
{
	if (!k->depth)
		return true;
	return too_deep(s, k) || !is_root(s->frames[outer_frame(s, k)].function);
}

bool sb_samples_truncated(const struct sb_profile *p, enum sb_sample_kind kind,
			  uint64_t *stacks, uint64_t *truncated)
{
	const struct sb_samples *s = &p->samples;
	const struct sb_sample *x;
	size_t i;

	*stacks = *truncated = 0;
	for (i = 0; i < s->n_samples; i++) {
		x = &s->samples[i];
		if (x->kind != (uint32_t)kind || x->ustack < 0)
			continue;
		*stacks += x->count;
		if (looks_cut(s, &s->stacks[x->ustack]))
			*truncated += x->count;
	}
	return *stacks && (double)*truncated * 100 > (double)*stacks * SB_TRUNCATED_PCT;
}

/* One module's weight of truncated stack ends. */
struct module_weight {
	const char *module;
	uint64_t weight;
};

/* The module most ends lie in, from per-frame weights; its weight in *weight. */
static int top_module(const struct sb_samples *s, const uint64_t *at, const char **module,
		      uint64_t *weight)
{
	struct module_weight *m;
	size_t n = 0, i, j;

	m = calloc(s->n_frames + 1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	/* Few modules end truncated stacks: a linear search per frame is enough. */
	for (i = 0; i < s->n_frames; i++) {
		if (!at[i])
			continue;
		for (j = 0; j < n && strcmp(m[j].module, s->frames[i].module); j++)
			;
		if (j == n)
			m[n++].module = s->frames[i].module;
		m[j].weight += at[i];
	}
	*module = NULL;
	*weight = 0;
	for (j = 0; j < n; j++) {
		if (m[j].weight > *weight) {
			*module = m[j].module;
			*weight = m[j].weight;
		}
	}
	free(m);
	return 0;
}

int sb_samples_cut_where(const struct sb_profile *p, enum sb_sample_kind kind,
			 struct sb_cut_where *w)
{
	const struct sb_samples *s = &p->samples;
	const struct sb_stack *k;
	const struct sb_sample *x;
	uint64_t *at, best = 0;
	size_t i;
	int r;

	*w = (struct sb_cut_where){ .function = "" };
	at = calloc(s->n_frames + 1, sizeof(*at));
	if (!at)
		return -ENOMEM;
	for (i = 0; i < s->n_samples; i++) {
		x = &s->samples[i];
		if (x->kind != (uint32_t)kind || x->ustack < 0)
			continue;
		k = &s->stacks[x->ustack];
		if (!looks_cut(s, k))
			continue;
		w->truncated += x->count;
		if (k->depth && too_deep(s, k))
			w->too_deep += x->count;
		else if (k->depth)
			at[outer_frame(s, k)] += x->count;
	}
	r = top_module(s, at, &w->module, &w->in_module);
	for (i = 0; !r && w->module && i < s->n_frames; i++) {
		if (at[i] > best && !strcmp(s->frames[i].module, w->module)) {
			best = at[i];
			w->function = s->frames[i].function;
		}
	}
	free(at);
	return r;
}
