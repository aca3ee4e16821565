/*
 * `report --memory`: every call of the profile placed on its call path by
 * its parent ids (call ids are unique within a rank), its memory values added
 * to the path's node.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/memory_paths.h"
#include "util/hashmap.h"

#define UNSET UINT32_MAX	/* node_of[]: not placed yet */
#define BUSY (UINT32_MAX - 1)	/* being placed: met again, the parent ids loop */

struct build {
	const struct sb_profile *p;
	struct sb_mem_paths *m;
	uint32_t cap;
	uint32_t *pair_of;		/* per event: its pair, UNSET when its rank is not wanted */
	uint32_t *node_of;		/* per event: its node */
	uint32_t *chain;		/* scratch: an event and its unplaced ancestors */
	struct sb_hashmap by_id;	/* (rank, call id) -> event + 1 */
	struct sb_hashmap child;	/* (node, region) -> child node */
};

static uint32_t add_node(struct build *b, uint32_t parent, uint32_t region)
{
	struct sb_mem_node *grown;
	uint32_t i;

	if (b->m->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		grown = realloc(b->m->nodes, b->cap * sizeof(*grown));
		if (!grown)
			return SB_MEM_NONE;
		b->m->nodes = grown;
	}
	i = b->m->n++;
	b->m->nodes[i] = (struct sb_mem_node){
		.region = region, .parent = parent, .first_child = SB_MEM_NONE,
		.next_sibling = SB_MEM_NONE,
		.depth = parent == SB_MEM_NONE ? 0 : b->m->nodes[parent].depth + 1,
	};
	return i;
}

/* The node of region below parent, made when it is new; SB_MEM_NONE when out of memory. */
static uint32_t child_of(struct build *b, uint32_t parent, uint32_t region)
{
	uint64_t *known = sb_hashmap_get(&b->child, parent, region);
	uint32_t i;

	if (known)
		return (uint32_t)*known;
	i = add_node(b, parent, region);
	if (i == SB_MEM_NONE || sb_hashmap_put(&b->child, parent, region, i))
		return SB_MEM_NONE;
	return i;
}

/* The event whose call id is e's parent id on e's rank; UNSET when none was kept. */
static uint32_t parent_event(const struct build *b, uint32_t e)
{
	const struct sb_event *ev = &b->p->events[e];
	uint64_t *found;

	if (ev->parent_id < 0)
		return UNSET;
	found = sb_hashmap_get(&b->by_id, b->p->pairs[b->pair_of[e]].rank, (uint64_t)ev->parent_id);
	return found ? (uint32_t)(*found - 1) : UNSET;
}

/* e and its ancestors not yet placed, top down onto the tree. */
static int place(struct build *b, uint32_t e)
{
	uint32_t n = 0, base = 0, par;

	for (par = e; par != UNSET; par = parent_event(b, par)) {
		if (b->node_of[par] == BUSY)
			break;
		if (b->node_of[par] != UNSET) {
			base = b->node_of[par];
			break;
		}
		b->node_of[par] = BUSY;
		b->chain[n++] = par;
	}
	while (n--) {
		par = b->chain[n];
		base = child_of(b, base, b->p->pairs[b->pair_of[par]].region);
		if (base == SB_MEM_NONE)
			return -ENOMEM;
		b->node_of[par] = base;
	}
	return 0;
}

/*
 * The values of calls calls into node: one call's counter row (model.h: slots
 * inclusive values, then slots own ones), or an aggregate row's sums laid out
 * the same way.
 */
static void add_values(struct sb_mem_node *node, const int64_t *row, unsigned slots,
		       const int *slot, uint64_t calls)
{
	bool known = true;
	unsigned k;
	int64_t v;

	node->calls += calls;
	for (k = 0; k < SB_MEMORY_SLOTS; k++) {
		if (slot[k] < 0)
			continue;
		v = row[slot[k]];
		if (v < 0) {
			known = false;
			continue;
		}
		node->incl[k] += (uint64_t)v;
		v = row[slots + (unsigned)slot[k]];
		node->excl[k] += v > 0 ? (uint64_t)v : 0;
	}
	node->unknown += known ? 0 : calls;
}

static int index_events(struct build *b, int64_t rank)
{
	const struct sb_pair *q;
	size_t k;
	uint64_t j, e;

	for (k = 0; k < b->p->n_pairs; k++) {
		q = &b->p->pairs[k];
		if (rank >= 0 && q->rank != (uint64_t)rank)
			continue;
		for (j = 0; j < q->count; j++) {
			e = q->offset + j;
			b->pair_of[e] = (uint32_t)k;
			if (b->p->events[e].call_id >= 0 &&
			    sb_hashmap_put(&b->by_id, q->rank, (uint64_t)b->p->events[e].call_id,
					   e + 1))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Order of siblings: largest peak growth, then RSS growth, then region name. */
static int by_parent_then_size(const void *x, const void *y, void *arg)
{
	const struct build *b = arg;
	const struct sb_mem_node *u = &b->m->nodes[*(const uint32_t *)x];
	const struct sb_mem_node *v = &b->m->nodes[*(const uint32_t *)y];

	if (u->parent != v->parent)
		return u->parent < v->parent ? -1 : 1;
	if (u->incl[SB_MEMORY_PEAK_GROWTH] != v->incl[SB_MEMORY_PEAK_GROWTH])
		return u->incl[SB_MEMORY_PEAK_GROWTH] < v->incl[SB_MEMORY_PEAK_GROWTH] ? 1 : -1;
	if (u->incl[SB_MEMORY_RSS_GROWTH] != v->incl[SB_MEMORY_RSS_GROWTH])
		return u->incl[SB_MEMORY_RSS_GROWTH] < v->incl[SB_MEMORY_RSS_GROWTH] ? 1 : -1;
	return strcmp(b->p->regions[u->region].name, b->p->regions[v->region].name);
}

/* Children lists in sibling order, each built back to front. */
static int link_children(struct build *b)
{
	uint32_t *order, i, n = b->m->n - 1;
	struct sb_mem_node *node;

	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i + 1;
	qsort_r(order, n, sizeof(*order), by_parent_then_size, b);
	for (i = n; i-- > 0;) {
		node = &b->m->nodes[order[i]];
		node->next_sibling = b->m->nodes[node->parent].first_child;
		b->m->nodes[node->parent].first_child = order[i];
	}
	free(order);
	return 0;
}

static int build_paths(struct build *b, int64_t rank)
{
	unsigned slots = sb_profile_counter_slots(b->p);
	size_t n = b->p->n_events, e;
	int r;

	b->pair_of = malloc((n ? n : 1) * sizeof(uint32_t));
	b->node_of = malloc((n ? n : 1) * sizeof(uint32_t));
	b->chain = malloc((n ? n : 1) * sizeof(uint32_t));
	/* The root, node 0. */
	if (!b->pair_of || !b->node_of || !b->chain || add_node(b, SB_MEM_NONE, SB_MEM_NONE) != 0)
		return -ENOMEM;
	memset(b->pair_of, 0xff, n * sizeof(uint32_t));
	memset(b->node_of, 0xff, n * sizeof(uint32_t));
	r = index_events(b, rank);
	for (e = 0; !r && e < n; e++)
		if (b->pair_of[e] != UNSET && b->node_of[e] == UNSET)
			r = place(b, (uint32_t)e);
	for (e = 0; !r && e < n; e++)
		if (b->pair_of[e] != UNSET)
			add_values(&b->m->nodes[b->node_of[e]],
				   &b->p->counters[e * sb_counter_stride(slots)], slots, b->m->slot, 1);
	return r ? r : link_children(b);
}

/*
 * The node of an aggregate's region path id, made with its enclosing paths on
 * first use (parents have smaller ids, checked on read, so the walk ends).
 */
static uint32_t path_node(struct build *b, int64_t id)
{
	const struct sb_aggregate *a = &b->p->agg;
	uint32_t n = 0, base = 0;
	ssize_t region;

	for (; id >= 0 && b->node_of[id] == UNSET; id = a->paths[id].parent)
		b->chain[n++] = (uint32_t)id;
	if (id >= 0)
		base = b->node_of[id];
	/* Every path names a region: build_aggregate() checked. */
	while (n-- && base != SB_MEM_NONE) {
		region = sb_profile_find_region(b->p, a->paths[b->chain[n]].name);
		base = child_of(b, base, (uint32_t)region);
		b->node_of[b->chain[n]] = base;
	}
	return base;
}

/* An aggregate's rows (record --aggregate --memory): each row's sums go to its path's node. */
static int build_aggregate(struct build *b, int64_t rank, struct sb_error *err)
{
	const struct sb_aggregate *a = &b->p->agg;
	int64_t row[2 * SB_COUNTER_SLOTS];
	uint32_t node;
	size_t i, n = a->n_paths;
	unsigned k;

	b->node_of = malloc((n ? n : 1) * sizeof(uint32_t));
	b->chain = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!b->node_of || !b->chain || add_node(b, SB_MEM_NONE, SB_MEM_NONE) != 0)
		return -ENOMEM;
	memset(b->node_of, 0xff, n * sizeof(uint32_t));
	for (i = 0; i < n; i++)
		if (sb_profile_find_region(b->p, a->paths[i].name) < 0)
			return sb_fail(err, EINVAL, "aggregate region path %zu: '%s' is no region "
				       "of the index", i, a->paths[i].name);
	for (i = 0; i < a->n_rows; i++) {
		if (rank >= 0 && a->rows[i].rank != (uint64_t)rank)
			continue;
		node = path_node(b, a->rows[i].path);
		if (node == SB_MEM_NONE)
			return -ENOMEM;
		for (k = 0; k < SB_COUNTER_SLOTS; k++) {
			row[k] = sb_agg_value(a, i, SB_METRIC_COUNTER + k);
			row[SB_COUNTER_SLOTS + k] = sb_agg_value(a, i, SB_METRIC_COUNTER_EXCL + k);
		}
		add_values(&b->m->nodes[node], row, SB_COUNTER_SLOTS, b->m->slot, a->rows[i].count);
	}
	return link_children(b);
}

int sb_mem_paths_build(struct sb_mem_paths *m, const struct sb_profile *p, int64_t rank,
		       struct sb_error *err)
{
	struct build b = { .p = p, .m = m };
	int r;

	memset(m, 0, sizeof(*m));
	if (!sb_memory_slots(p, m->slot) || (!p->agg.on && (!p->counters || !p->events)))
		return sb_fail(err, EINVAL, "the profile has no memory values: record with --memory");
	sb_hashmap_init(&b.by_id);
	sb_hashmap_init(&b.child);
	r = p->agg.on ? build_aggregate(&b, rank, err) : build_paths(&b, rank);
	free(b.pair_of);
	free(b.node_of);
	free(b.chain);
	sb_hashmap_free(&b.by_id);
	sb_hashmap_free(&b.child);
	return r;
}

uint32_t sb_mem_paths_next(const struct sb_mem_paths *m, uint32_t i)
{
	if (m->nodes[i].first_child != SB_MEM_NONE)
		return m->nodes[i].first_child;
	for (; i != 0; i = m->nodes[i].parent)
		if (m->nodes[i].next_sibling != SB_MEM_NONE)
			return m->nodes[i].next_sibling;
	return SB_MEM_NONE;
}

void sb_mem_paths_free(struct sb_mem_paths *m)
{
	free(m->nodes);
	memset(m, 0, sizeof(*m));
}
