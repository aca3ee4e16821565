/* Call tree of a profile: find each call's parent, then fold calls with one path into one node. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree_agg.h"
#include "analysis/calltree_impl.h"
#include "analysis/mpi_fns.h"

/* node_of[] marks: not yet placed, and being placed (seeing it again means a cycle). */
#define UNSET SB_CT_NONE
#define BUSY (UINT32_MAX - 1)
/* Event and node indices are uint32_t to keep 10 M calls at a few tens of bytes each. */
#define MAX_EVENTS ((size_t)UINT32_MAX - 2)

/* Scratch of one build; every array but the nodes is freed when it ends. */
struct build {
	const struct sb_profile *p;
	struct sb_calltree *t;
	struct sb_ct_grow *g;
	int64_t rank;
	uint32_t *pair_of;	/* per event: its index row; SB_CT_NONE when filtered out */
	uint32_t *parent;	/* per event: the enclosing call's event; SB_CT_NONE: top level */
	uint32_t *node_of;	/* per event: its node, UNSET or BUSY while placing */
	struct sb_hashmap threads;	/* (rank, thread id) -> dense thread number */
	uint32_t *stack;
	size_t stack_cap;
};

/*
 * Calls by (rank, call id): event indices in open addressing at most half
 * full, 8 to 16 bytes a call; ids are sparse and unordered, so no array.
 */
struct id_table {
	uint32_t *slot;
	size_t mask;
};

/* Sort key that puts each thread's calls in nesting order: by start, outer call first. */
struct time_key {
	int64_t start;
	int64_t end;
	uint32_t thread;	/* dense number of the (rank, thread) */
	uint32_t idx;
};

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static int cmp_u32(uint32_t a, uint32_t b)
{
	return (a > b) - (a < b);
}

static int oom(struct sb_error *err)
{
	return sb_fail(err, ENOMEM, "call tree: out of memory");
}

int sb_ct_check_pairs(const struct sb_profile *p, bool need_events, struct sb_error *err)
{
	const struct sb_pair *pr;
	size_t i;

	if (need_events && !p->events && p->n_events)
		return sb_fail(err, EINVAL, "events: not held in memory, only --flat works");
	if (need_events && p->n_events > MAX_EVENTS)
		return sb_fail(err, E2BIG, "events: %zu are more than a call tree can hold",
			       p->n_events);
	if (p->n_pairs >= SB_CT_NONE)
		return sb_fail(err, E2BIG, "rank_region_index: %zu rows are too many", p->n_pairs);
	for (i = 0; i < p->n_pairs; i++) {
		pr = &p->pairs[i];
		if (pr->region >= p->n_regions)
			return sb_fail(err, EINVAL, "rank_region_index row %zu: region %u of %zu",
				       i, pr->region, p->n_regions);
		if (pr->offset > p->n_events || pr->count > p->n_events - pr->offset)
			return sb_fail(err, EINVAL,
				       "rank_region_index row %zu: events %llu+%llu of %zu",
				       i, (unsigned long long)pr->offset,
				       (unsigned long long)pr->count, p->n_events);
	}
	return 0;
}

static bool rank_wanted(const struct build *b, const struct sb_pair *pr)
{
	return b->rank < 0 || (int64_t)pr->rank == b->rank;
}

uint32_t sb_ct_add_node(struct sb_ct_grow *g, uint32_t parent, uint32_t region)
{
	struct sb_calltree *t = g->t;
	struct sb_ct_node *n;
	uint32_t cap;

	if (t->n_nodes == g->cap) {
		cap = g->cap ? g->cap * 2 : 64;
		if (cap <= g->cap || cap >= BUSY)
			return SB_CT_NONE;
		n = realloc(t->nodes, (size_t)cap * sizeof(*n));
		if (!n)
			return SB_CT_NONE;
		t->nodes = n;
		g->cap = cap;
	}
	n = &t->nodes[t->n_nodes];
	*n = (struct sb_ct_node){
		.region = region,
		.fn = SB_CT_NONE,
		.parent = parent,
		.first_child = SB_CT_NONE,
		.next_sibling = SB_CT_NONE,
		.depth = parent == SB_CT_NONE ? 0 : t->nodes[parent].depth + 1,
		.min = INT64_MAX,
		.max = INT64_MIN,
		.offcpu = g->offcpu ? 0 : SB_CT_UNKNOWN,
		.gpu = g->gpu ? 0 : SB_CT_UNKNOWN,
		.first_start = INT64_MAX,
	};
	if (n->depth > t->max_depth)
		t->max_depth = n->depth;
	return t->n_nodes++;
}

uint32_t sb_ct_child(struct sb_ct_grow *g, uint32_t parent, uint32_t region)
{
	uint64_t *v = sb_hashmap_get(&g->children, parent, region);
	uint32_t c;

	if (v)
		return (uint32_t)*v;
	c = sb_ct_add_node(g, parent, region);
	if (c != SB_CT_NONE && sb_hashmap_put(&g->children, parent, region, c))
		return SB_CT_NONE;
	return c;
}

static size_t map_pairs(struct build *b)
{
	const struct sb_profile *p = b->p;
	size_t i, n = 0;
	uint64_t e;

	memset(b->pair_of, 0xff, p->n_events * sizeof(*b->pair_of));
	for (i = 0; i < p->n_pairs; i++) {
		if (!rank_wanted(b, &p->pairs[i]))
			continue;
		for (e = p->pairs[i].offset; e < p->pairs[i].offset + p->pairs[i].count; e++) {
			/* Overlapping index rows are corrupt; count such a call once. */
			n += b->pair_of[e] == SB_CT_NONE;
			b->pair_of[e] = (uint32_t)i;
		}
	}
	return n;
}

static uint32_t event_rank(const struct build *b, uint32_t e)
{
	return b->p->pairs[b->pair_of[e]].rank;
}

static size_t id_slot(const struct id_table *t, uint32_t rank, int64_t id)
{
	/* splitmix64's finalizer: sequential or strided ids still spread. */
	uint64_t h = (uint64_t)id ^ (uint64_t)rank << 40;

	h = (h ^ h >> 30) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ h >> 27) * 0x94d049bb133111ebULL;
	return (size_t)(h ^ h >> 31) & t->mask;
}

/* The slot holding the call (rank, id), or the empty slot where it would go. */
static size_t id_probe(const struct build *b, const struct id_table *t, uint32_t rank, int64_t id)
{
	size_t i;
	uint32_t e;

	for (i = id_slot(t, rank, id); t->slot[i] != SB_CT_NONE; i = (i + 1) & t->mask) {
		e = t->slot[i];
		if (b->p->events[e].call_id == id && event_rank(b, e) == rank)
			break;
	}
	return i;
}

static int id_table_fill(struct build *b, struct id_table *t, size_t n)
{
	size_t cap = 16, i, at;

	while (cap < 2 * n)
		cap *= 2;
	t->slot = malloc(cap * sizeof(*t->slot));
	if (!t->slot)
		return -ENOMEM;
	memset(t->slot, 0xff, cap * sizeof(*t->slot));
	t->mask = cap - 1;
	for (i = 0; i < b->p->n_events; i++) {
		if (b->pair_of[i] == SB_CT_NONE)
			continue;
		/* Ids repeat only in corrupt files; the first call keeps the id. */
		at = id_probe(b, t, event_rank(b, (uint32_t)i), b->p->events[i].call_id);
		if (t->slot[at] == SB_CT_NONE)
			t->slot[at] = (uint32_t)i;
	}
	return 0;
}

/* Parents from the call_ids/parent_ids columns. */
static int parents_by_id(struct build *b, size_t n)
{
	const struct sb_profile *p = b->p;
	struct id_table t;
	int64_t pid;
	size_t i;

	if (id_table_fill(b, &t, n))
		return -ENOMEM;
	for (i = 0; i < p->n_events; i++) {
		if (b->pair_of[i] == SB_CT_NONE)
			continue;
		pid = p->events[i].parent_id;
		b->parent[i] = SB_CT_NONE;
		/* A parent_id that names no call of this rank counts as top level. */
		if (pid >= 0)
			b->parent[i] = t.slot[id_probe(b, &t, event_rank(b, (uint32_t)i), pid)];
	}
	free(t.slot);
	return 0;
}

static int cmp_time_key(const void *pa, const void *pb)
{
	const struct time_key *a = pa, *b = pb;

	if (a->thread != b->thread)
		return cmp_u32(a->thread, b->thread);
	if (a->start != b->start)
		return cmp_i64(a->start, b->start);
	if (a->end != b->end)
		return cmp_i64(b->end, a->end);
	return cmp_u32(a->idx, b->idx);
}

static int stack_reserve(struct build *b, size_t n)
{
	uint32_t *s;
	size_t cap;

	if (n <= b->stack_cap)
		return 0;
	cap = b->stack_cap ? b->stack_cap * 2 : 64;
	if (cap < n)
		cap = n;
	s = realloc(b->stack, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	b->stack = s;
	b->stack_cap = cap;
	return 0;
}

/* A dense number for the (rank, thread) of event e, so sort keys stay 24 bytes. */
static int thread_number(struct build *b, uint32_t e, uint32_t *out)
{
	int64_t thread = b->p->columns & SB_COL_THREAD ? b->p->events[e].thread : 0;
	uint32_t rank = event_rank(b, e);
	uint64_t *v = sb_hashmap_get(&b->threads, rank, (uint64_t)thread);

	if (v) {
		*out = (uint32_t)*v;
		return 0;
	}
	*out = (uint32_t)b->threads.len;
	return sb_hashmap_put(&b->threads, rank, (uint64_t)thread, *out);
}

/*
 * Parents from time alone: calls on one thread nest properly (FORMAT.md), so
 * in (start, outer first) order the parent is the innermost open call that
 * still contains this one. Without thread ids a rank counts as one thread.
 */
static int parents_by_time(struct build *b, size_t n)
{
	const struct sb_profile *p = b->p;
	struct time_key *k;
	size_t i, j = 0, sp = 0;
	int r;

	k = malloc((n ? n : 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	for (i = 0; i < p->n_events; i++) {
		if (b->pair_of[i] == SB_CT_NONE)
			continue;
		k[j] = (struct time_key){
			.start = p->events[i].start,
			.end = p->events[i].end,
			.idx = (uint32_t)i,
		};
		r = thread_number(b, (uint32_t)i, &k[j++].thread);
		if (r) {
			free(k);
			return r;
		}
	}
	qsort(k, n, sizeof(*k), cmp_time_key);
	for (i = 0; i < n; i++) {
		if (i && k[i].thread != k[i - 1].thread)
			sp = 0;
		while (sp && k[b->stack[sp - 1]].end < k[i].end)
			sp--;
		b->parent[k[i].idx] = sp ? k[b->stack[sp - 1]].idx : SB_CT_NONE;
		if (stack_reserve(b, sp + 1)) {
			free(k);
			return -ENOMEM;
		}
		b->stack[sp++] = (uint32_t)i;
	}
	free(k);
	return 0;
}

static uint32_t region_of(const struct build *b, uint32_t e)
{
	return b->p->pairs[b->pair_of[e]].region;
}

/*
 * Place event e and every unplaced ancestor: climb to a placed one (or the
 * top), then descend, each call becoming a child node of its parent's node.
 * Corrupt parent ids may form a cycle; the call that closes it becomes top level.
 */
static int place(struct build *b, uint32_t e)
{
	uint32_t base = 0, par;
	size_t sp = 0;

	for (;;) {
		if (stack_reserve(b, sp + 1))
			return -ENOMEM;
		b->stack[sp++] = e;
		b->node_of[e] = BUSY;
		par = b->parent[e];
		if (par == SB_CT_NONE || b->node_of[par] == BUSY)
			break;
		if (b->node_of[par] != UNSET) {
			base = b->node_of[par];
			break;
		}
		e = par;
	}
	while (sp) {
		e = b->stack[--sp];
		base = sb_ct_child(b->g, base, region_of(b, e));
		if (base == SB_CT_NONE)
			return -ENOMEM;
		b->node_of[e] = base;
	}
	return 0;
}

void sb_ct_add_call(struct sb_calltree *t, struct sb_ct_node *n, const struct sb_event *ev)
{
	int64_t d = ev->end - ev->start;

	n->calls++;
	n->total += d;
	n->sum += d;
	if (d < n->min)
		n->min = d;
	if (d > n->max)
		n->max = d;
	if (ev->start < n->first_start)
		n->first_start = ev->start;
	if (n->offcpu != SB_CT_UNKNOWN && ev->metric[SB_METRIC_OFFCPU] > 0)
		n->offcpu += ev->metric[SB_METRIC_OFFCPU];
	if (n->gpu != SB_CT_UNKNOWN && ev->metric[SB_METRIC_GPU] > 0)
		n->gpu += ev->metric[SB_METRIC_GPU];
	t->calls++;
	if (ev->start < t->min_start)
		t->min_start = ev->start;
	if (ev->end > t->max_end)
		t->max_end = ev->end;
}

void sb_ct_finish_own(struct sb_calltree *t)
{
	struct sb_ct_node *n;
	size_t i;

	for (i = 1; i < t->n_nodes; i++)
		t->nodes[i].own = t->nodes[i].total;
	for (i = 1; i < t->n_nodes; i++) {
		n = &t->nodes[t->nodes[i].parent];
		n->own -= t->nodes[i].total;
		if (t->nodes[i].parent == 0)
			n->total += t->nodes[i].total;
	}
	t->nodes[0].own = 0;
}

/* Sum the calls into their nodes, then own = total - the children's totals. */
static void aggregate(struct build *b)
{
	struct sb_calltree *t = b->t;
	size_t i;

	for (i = 0; i < b->p->n_events; i++)
		if (b->pair_of[i] != SB_CT_NONE)
			sb_ct_add_call(t, &t->nodes[b->node_of[i]], &b->p->events[i]);
	sb_ct_finish_own(t);
}

static int build_tree(struct build *b)
{
	const struct sb_profile *p = b->p;
	unsigned ids = SB_COL_CALL_ID | SB_COL_PARENT_ID;
	size_t n, i;
	int r;

	b->pair_of = malloc((p->n_events ? p->n_events : 1) * sizeof(uint32_t));
	b->parent = malloc((p->n_events ? p->n_events : 1) * sizeof(uint32_t));
	if (!b->pair_of || !b->parent)
		return -ENOMEM;
	n = map_pairs(b);
	r = (p->columns & ids) == ids ? parents_by_id(b, n) : parents_by_time(b, n);
	if (r)
		return r;
	b->node_of = malloc((p->n_events ? p->n_events : 1) * sizeof(uint32_t));
	if (!b->node_of)
		return -ENOMEM;
	memset(b->node_of, 0xff, p->n_events * sizeof(uint32_t));
	for (i = 0; i < p->n_events; i++) {
		if (b->pair_of[i] == SB_CT_NONE || b->node_of[i] != UNSET)
			continue;
		r = place(b, (uint32_t)i);
		if (r)
			return r;
	}
	aggregate(b);
	return 0;
}

static void build_free(struct build *b)
{
	free(b->pair_of);
	free(b->parent);
	free(b->node_of);
	sb_hashmap_free(&b->threads);
	free(b->stack);
}

static int64_t pair_offcpu(const struct sb_profile *p, const struct sb_pair *pr)
{
	int64_t sum = 0;
	uint64_t e;

	for (e = pr->offset; e < pr->offset + pr->count; e++)
		if (p->events[e].metric[SB_METRIC_OFFCPU] > 0)
			sum += p->events[e].metric[SB_METRIC_OFFCPU];
	return sum;
}

static void add_pair(struct sb_calltree *t, struct sb_ct_node *n, const struct sb_profile *p,
		     const struct sb_pair *pr, const int64_t *offcpu)
{
	const struct sb_stats *s = &pr->stats;

	n->calls += pr->count;
	n->total += s->total;
	n->sum += s->total;
	if (s->minimum < n->min)
		n->min = s->minimum;
	if (s->maximum > n->max)
		n->max = s->maximum;
	if (s->start_minimum < n->first_start)
		n->first_start = s->start_minimum;
	if (n->own != SB_CT_UNKNOWN)
		n->own = pr->exclusive_total >= 0 ? n->own + pr->exclusive_total : SB_CT_UNKNOWN;
	if (n->offcpu != SB_CT_UNKNOWN && offcpu)
		n->offcpu += offcpu[pr - p->pairs];
	else if (n->offcpu != SB_CT_UNKNOWN)
		n->offcpu = p->events ? n->offcpu + pair_offcpu(p, pr) : SB_CT_UNKNOWN;
	/* The summaries hold it: no events needed. */
	if (n->gpu != SB_CT_UNKNOWN && s->gpu_count && s->gpu_total > 0)
		n->gpu += s->gpu_total;
	t->calls += pr->count;
	if (s->start_minimum < t->min_start)
		t->min_start = s->start_minimum;
	if (s->end_maximum > t->max_end)
		t->max_end = s->end_maximum;
}

/*
 * Exclusive times the file did not store, from the tree: every call sits in
 * exactly one tree node, so a region's own time is the sum over its nodes.
 */
static void own_from_tree(struct sb_calltree *flat, const uint32_t *node_of_region,
			  const struct sb_calltree *tree)
{
	uint32_t i;

	for (i = 1; i < flat->n_nodes; i++)
		flat->nodes[i].own = 0;
	for (i = 1; i < tree->n_nodes; i++)
		if (node_of_region[tree->nodes[i].region] != SB_CT_NONE)
			flat->nodes[node_of_region[tree->nodes[i].region]].own +=
				tree->nodes[i].own;
}

/*
 * A call nested in a call of its own region (recursion) is already inside
 * the outer call's time: summing every call's duration counted it again, up
 * to thousands of percent of the recording. A region's inclusive total is
 * the sum over its tree nodes that have no ancestor of the same region.
 */
static int outer_totals(struct sb_calltree *flat, const uint32_t *node_of_region,
			const struct sb_calltree *tree)
{
	const struct sb_ct_node *n;
	uint32_t *open, *path, i, d = 0;

	open = calloc(flat->p->n_regions ? flat->p->n_regions : 1, sizeof(*open));
	path = malloc(((size_t)tree->max_depth + 1) * sizeof(*path));
	if (!open || !path) {
		free(open);
		free(path);
		return -ENOMEM;
	}
	for (i = 1; i < flat->n_nodes; i++)
		flat->nodes[i].total = 0;
	/* Pre-order: path[1..d] is the current node's ancestry, open[] counts its regions. */
	for (i = sb_calltree_next(tree, 0); i != SB_CT_NONE; i = sb_calltree_next(tree, i)) {
		n = &tree->nodes[i];
		for (; d >= n->depth; d--)
			open[tree->nodes[path[d]].region]--;
		path[++d] = i;
		if (!open[n->region]++ && node_of_region[n->region] != SB_CT_NONE)
			flat->nodes[node_of_region[n->region]].total += n->total;
	}
	free(open);
	free(path);
	return 0;
}

/* What only the tree knows: exclusive times the file lacks, inclusive totals without recursion. */
static int fix_from_tree(struct sb_calltree *flat, const uint32_t *node_of_region,
			 const struct sb_calltree *tree, bool own_missing)
{
	if (own_missing)
		own_from_tree(flat, node_of_region, tree);
	return outer_totals(flat, node_of_region, tree);
}

static int fix_from_events(struct sb_calltree *flat, const uint32_t *node_of_region,
			   const struct sb_ct_opts *o, bool own_missing, struct sb_error *err)
{
	struct sb_ct_opts to = { .flat = false, .rank = o->rank, .sort = o->sort };
	struct sb_calltree tree;
	int r;

	r = sb_calltree_build(&tree, flat->p, &to, err);
	if (r)
		return r;
	r = fix_from_tree(flat, node_of_region, &tree, own_missing);
	sb_calltree_free(&tree);
	return r;
}

/* One node per region, from the index rows' summaries: works without events in memory. */
int sb_ct_build_flat(struct sb_ct_grow *g, const struct sb_profile *p, const struct sb_ct_opts *o,
		     const int64_t *pair_offcpu, const struct sb_calltree *tree,
		     struct sb_error *err)
{
	const struct sb_pair *pr;
	uint32_t *node_of_region;
	bool own_missing = false;
	size_t i;
	int r = 0;

	node_of_region = malloc((p->n_regions ? p->n_regions : 1) * sizeof(*node_of_region));
	if (!node_of_region)
		return -ENOMEM;
	memset(node_of_region, 0xff, p->n_regions * sizeof(*node_of_region));
	for (i = 0; i < p->n_pairs; i++) {
		pr = &p->pairs[i];
		if ((o->rank >= 0 && (int64_t)pr->rank != o->rank) || !pr->count)
			continue;
		if (node_of_region[pr->region] == SB_CT_NONE) {
			node_of_region[pr->region] = sb_ct_add_node(g, 0, pr->region);
			if (node_of_region[pr->region] == SB_CT_NONE) {
				r = -ENOMEM;
				goto out;
			}
		}
		add_pair(g->t, &g->t->nodes[node_of_region[pr->region]], p, pr, pair_offcpu);
		own_missing |= pr->exclusive_total < 0;
	}
	if (tree)
		r = fix_from_tree(g->t, node_of_region, tree, own_missing);
	else if (p->events)
		r = fix_from_events(g->t, node_of_region, o, own_missing, err);
out:
	free(node_of_region);
	return r;
}

int sb_ct_grow_init(struct sb_ct_grow *g, struct sb_calltree *t, const struct sb_profile *p,
		    bool flat)
{
	*g = (struct sb_ct_grow){ .t = t, .offcpu = (p->columns & SB_COL_OFFCPU) ||
				  sb_aggregate_has(&p->agg, SB_METRIC_OFFCPU),
				  .gpu = p->columns & SB_COL_GPU };
	sb_hashmap_init(&g->children);
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->flat = flat;
	t->min_start = INT64_MAX;
	t->max_end = INT64_MIN;
	return sb_ct_add_node(g, SB_CT_NONE, SB_CT_NONE) == SB_CT_NONE ? -ENOMEM : 0;
}

int sb_ct_grow_end(struct sb_ct_grow *g, int r, enum sb_ct_sort key)
{
	sb_hashmap_free(&g->children);
	if (!r)
		r = sb_calltree_sort(g->t, key);
	if (r)
		sb_calltree_free(g->t);
	return r;
}

int sb_calltree_build(struct sb_calltree *t, const struct sb_profile *p,
		      const struct sb_ct_opts *o, struct sb_error *err)
{
	struct sb_ct_grow g;
	struct build b = { .p = p, .t = t, .g = &g, .rank = o->rank };
	int r;

	if (p->agg.on)
		return sb_calltree_build_aggregate(t, p, o, err);
	sb_hashmap_init(&b.threads);
	r = sb_ct_grow_init(&g, t, p, o->flat);
	if (!r)
		r = sb_ct_check_pairs(p, !o->flat, err);
	else
		oom(err);
	if (!r)
		r = o->flat ? sb_ct_build_flat(&g, p, o, NULL, NULL, err) : build_tree(&b);
	build_free(&b);
	r = sb_ct_grow_end(&g, r, o->sort);
	if (r == -ENOMEM)
		oom(err);
	return r;
}

void sb_calltree_free(struct sb_calltree *t)
{
	free(t->nodes);
	t->nodes = NULL;
	t->n_nodes = 0;
	if (t->mpi)
		sb_mpi_fns_free(t->mpi);
	free(t->mpi);
	t->mpi = NULL;
}

struct sort_ctx {
	const struct sb_calltree *t;
	enum sb_ct_sort key;
};

static int cmp_key(const struct sb_ct_node *a, const struct sb_ct_node *b, enum sb_ct_sort key)
{
	switch (key) {
	case SB_CT_SORT_TOTAL:
		return cmp_i64(b->total, a->total);
	case SB_CT_SORT_CALLS:
		return (a->calls < b->calls) - (a->calls > b->calls);
	case SB_CT_SORT_AVG:
		return cmp_i64(sb_ct_avg(b), sb_ct_avg(a));
	case SB_CT_SORT_START:
		return cmp_i64(a->first_start, b->first_start);
	/* SB_CT_UNKNOWN is INT64_MIN: nodes that cannot tell go last. */
	case SB_CT_SORT_OWN:
		return cmp_i64(b->own, a->own);
	case SB_CT_SORT_OFFCPU:
		return cmp_i64(b->offcpu, a->offcpu);
	case SB_CT_SORT_NAME:
		break;
	}
	return 0;
}

static int cmp_nodes(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct sb_ct_node *a = &c->t->nodes[ia], *b = &c->t->nodes[ib];
	int r;

	if (a->parent != b->parent)
		return cmp_u32(a->parent, b->parent);
	r = cmp_key(a, b, c->key);
	if (!r)
		r = strcmp(sb_calltree_name(c->t, ia), sb_calltree_name(c->t, ib));
	return r ? r : cmp_u32(ia, ib);
}

int sb_calltree_sort(struct sb_calltree *t, enum sb_ct_sort key)
{
	struct sort_ctx c = { .t = t, .key = key };
	struct sb_ct_node *n;
	uint32_t *order, i;

	if (t->n_nodes < 2)
		return 0;
	order = malloc((size_t)(t->n_nodes - 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 1; i < t->n_nodes; i++)
		order[i - 1] = i;
	qsort_r(order, t->n_nodes - 1, sizeof(*order), cmp_nodes, &c);
	for (i = 0; i < t->n_nodes; i++)
		t->nodes[i].first_child = t->nodes[i].next_sibling = SB_CT_NONE;
	/* Push onto each parent's list back to front, so the lists come out in order. */
	for (i = t->n_nodes - 1; i > 0; i--) {
		n = &t->nodes[order[i - 1]];
		n->next_sibling = t->nodes[n->parent].first_child;
		t->nodes[n->parent].first_child = order[i - 1];
	}
	free(order);
	return 0;
}

uint32_t sb_calltree_next(const struct sb_calltree *t, uint32_t i)
{
	if (t->nodes[i].first_child != SB_CT_NONE)
		return t->nodes[i].first_child;
	for (; i != 0 && i != SB_CT_NONE; i = t->nodes[i].parent)
		if (t->nodes[i].next_sibling != SB_CT_NONE)
			return t->nodes[i].next_sibling;
	return SB_CT_NONE;
}

const char *sb_calltree_name(const struct sb_calltree *t, uint32_t i)
{
	uint32_t r = t->nodes[i].region;

	if (t->nodes[i].fn != SB_CT_NONE)
		return t->mpi->name[t->nodes[i].fn];
	return r == SB_CT_NONE ? "" : t->p->regions[r].name;
}

int64_t sb_ct_avg(const struct sb_ct_node *n)
{
	return n->calls ? n->sum / (int64_t)n->calls : 0;
}

int sb_ct_sort_parse(const char *s, enum sb_ct_sort *key)
{
	static const char *const names[] = {
		[SB_CT_SORT_TOTAL] = "total",
		[SB_CT_SORT_CALLS] = "calls",
		[SB_CT_SORT_AVG] = "avg",
		[SB_CT_SORT_NAME] = "name",
		[SB_CT_SORT_START] = "start",
		[SB_CT_SORT_OWN] = "own",
		[SB_CT_SORT_OFFCPU] = "offcpu",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*key = (enum sb_ct_sort)i;
			return 0;
		}
	}
	return -EINVAL;
}
