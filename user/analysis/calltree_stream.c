/* Call tree from events read in passes: ids first (8 bytes a call), then times into the nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calltree_agg.h"
#include "analysis/calltree_impl.h"
#include "analysis/calltree_stream.h"
#include "io/spt_read.h"

#define CHUNK 16384			/* rows per read: 900 KiB of struct sb_event */
#define MAX_CALLS ((uint64_t)UINT32_MAX - 2)	/* slots are uint32_t */
#define UNSET SB_CT_NONE

/*
 * Scratch of one build. A call's slot is its rank's first slot plus its call
 * id, so ids dense per rank need no hash table: region and parent of every
 * call fit in 8 bytes, and the parent array becomes the node array.
 */
struct sbuild {
	const struct sb_profile *p;
	const struct sb_ct_opts *o;
	struct sb_event_source *src;
	struct sb_error *err;
	struct sb_ct_grow *g;
	uint32_t n_ranks;
	uint64_t *first;	/* per rank: its first slot */
	uint64_t *count;	/* per rank: its calls (wanted ranks only) */
	uint32_t *region;	/* per slot: the call's region, UNSET before pass 1 sees it */
	uint32_t *node;		/* per slot: parent id after pass 1, node after pass 2 */
	int64_t *pair_offcpu;	/* flat only: off-CPU time per index row */
};

typedef int (*row_fn)(struct sbuild *b, size_t pair, const struct sb_event *ev);

static bool wanted(const struct sbuild *b, const struct sb_pair *pr)
{
	return b->o->rank < 0 || (int64_t)pr->rank == b->o->rank;
}

/* The index rows must tile the events in order, so a pass knows each row's pair. */
static bool pairs_tile(const struct sb_profile *p)
{
	uint64_t next = 0;
	size_t i;

	for (i = 0; i < p->n_pairs; i++) {
		if (p->pairs[i].offset != next)
			return false;
		next += p->pairs[i].count;
	}
	return next == p->n_events;
}

/* One pass: fn sees every row with its index row, in file order. */
static int walk(struct sbuild *b, unsigned mask, row_fn fn)
{
	const struct sb_profile *p = b->p;
	struct sb_event_stream *s;
	struct sb_event *rows;
	uint64_t seen = 0, left = 0;
	size_t pair = 0, i;
	ssize_t got;
	int r;

	rows = malloc(CHUNK * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	r = b->src->open(b->src, mask, &s, b->err);
	if (r) {
		free(rows);
		return r;
	}
	while (!r && (got = s->read(s, rows, NULL, CHUNK)) > 0) {
		for (i = 0; i < (size_t)got && !r; i++, seen++) {
			while (!left && pair < p->n_pairs)
				left = p->pairs[pair++].count;
			if (!left) {
				r = sb_fail(b->err, EIO, "events: more than the %zu the index lists",
					    p->n_events);
				break;
			}
			left--;
			r = fn(b, pair - 1, &rows[i]);
		}
	}
	if (!r && got < 0)
		r = (int)got;
	else if (!r && seen != p->n_events)
		r = sb_fail(b->err, EIO, "events: %llu of the %zu the index lists",
			    (unsigned long long)seen, p->n_events);
	b->src->close(b->src, s);
	free(rows);
	return r;
}

/* Calls per wanted rank, and each rank's first slot; SB_CT_FALLBACK past the limits. */
static int count_calls(struct sbuild *b)
{
	const struct sb_profile *p = b->p;
	uint64_t slots = 0;
	uint32_t k;
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank >= b->n_ranks)
			b->n_ranks = p->pairs[i].rank + 1;
	if (b->n_ranks > SB_MAX_RANK)
		return SB_CT_FALLBACK;
	b->first = calloc(b->n_ranks ? b->n_ranks : 1, sizeof(*b->first));
	b->count = calloc(b->n_ranks ? b->n_ranks : 1, sizeof(*b->count));
	if (!b->first || !b->count)
		return -ENOMEM;
	for (i = 0; i < p->n_pairs; i++)
		if (wanted(b, &p->pairs[i]))
			b->count[p->pairs[i].rank] += p->pairs[i].count;
	for (k = 0; k < b->n_ranks; k++) {
		b->first[k] = slots;
		slots += b->count[k];
	}
	if (slots > MAX_CALLS)
		return SB_CT_FALLBACK;
	b->region = malloc((slots ? slots : 1) * sizeof(*b->region));
	b->node = malloc((slots ? slots : 1) * sizeof(*b->node));
	if (!b->region || !b->node)
		return -ENOMEM;
	memset(b->region, 0xff, slots * sizeof(*b->region));
	return 0;
}

/* Pass 1: region and parent id of each call, in its slot; ids must be a permutation of 0..n-1. */
static int take_ids(struct sbuild *b, size_t pair, const struct sb_event *ev)
{
	const struct sb_pair *pr = &b->p->pairs[pair];
	uint64_t n = b->count[pr->rank], slot;

	if (!wanted(b, pr))
		return 0;
	if (ev->call_id < 0 || (uint64_t)ev->call_id >= n)
		return SB_CT_FALLBACK;
	slot = b->first[pr->rank] + (uint64_t)ev->call_id;
	/* n rows, n slots, none taken twice: every id of the rank is there. */
	if (b->region[slot] != UNSET)
		return SB_CT_FALLBACK;
	b->region[slot] = pr->region;
	/* A parent id naming no call of this rank counts as top level, as in calltree.c. */
	b->node[slot] = ev->parent_id >= 0 && (uint64_t)ev->parent_id < n ?
			(uint32_t)ev->parent_id : UNSET;
	return 0;
}

/* Pass 2: nodes in call-id order, each parent placed before its children. */
static int place_rank(struct sbuild *b, uint32_t rank)
{
	uint64_t first = b->first[rank], id;
	uint32_t par, at;

	for (id = 0; id < b->count[rank]; id++) {
		par = b->node[first + id];
		/* A call that is its own parent is top level, as calltree.c's cycle rule makes it. */
		if (par == UNSET || par == id)
			at = 0;
		else if (par < id)
			at = b->node[first + par];
		else
			return SB_CT_FALLBACK;
		at = sb_ct_child(b->g, at, b->region[first + id]);
		if (at == SB_CT_NONE)
			return -ENOMEM;
		b->node[first + id] = at;
	}
	return 0;
}

/* Pass 3: each call's times into its node. The file may have changed since pass 1: check again. */
static int take_times(struct sbuild *b, size_t pair, const struct sb_event *ev)
{
	const struct sb_pair *pr = &b->p->pairs[pair];
	struct sb_calltree *t = b->g->t;
	uint64_t slot;

	if (!wanted(b, pr))
		return 0;
	if (ev->call_id < 0 || (uint64_t)ev->call_id >= b->count[pr->rank])
		return sb_fail(b->err, EIO, "events: call ids changed while being read");
	slot = b->first[pr->rank] + (uint64_t)ev->call_id;
	sb_ct_add_call(t, &t->nodes[b->node[slot]], ev);
	return 0;
}

static int build_tree(struct sbuild *b)
{
	unsigned ids = SB_COL_CALL_ID | SB_COL_PARENT_ID;
	uint32_t k;
	int r;

	if ((b->p->columns & ids) != ids || !pairs_tile(b->p))
		return SB_CT_FALLBACK;
	r = count_calls(b);
	if (!r)
		r = walk(b, ids, take_ids);
	for (k = 0; k < b->n_ranks && !r; k++)
		r = place_rank(b, k);
	free(b->region);
	b->region = NULL;
	if (!r)
		r = walk(b, SB_COL_TIMES | SB_COL_CALL_ID |
				    (b->p->columns & (SB_COL_OFFCPU | SB_COL_GPU)), take_times);
	if (!r)
		sb_ct_finish_own(b->g->t);
	return r;
}

static int take_offcpu(struct sbuild *b, size_t pair, const struct sb_event *ev)
{
	if (ev->metric[SB_METRIC_OFFCPU] > 0)
		b->pair_offcpu[pair] += ev->metric[SB_METRIC_OFFCPU];
	return 0;
}

/*
 * The flat table: off-CPU in one pass; from a streamed tree, exclusive times
 * the file lacks and inclusive totals that count recursive calls once.
 */
static int build_flat(struct sbuild *b)
{
	struct sb_ct_opts to = { .flat = false, .rank = b->o->rank, .sort = b->o->sort };
	struct sb_calltree tree = { 0 };
	int r;

	r = sb_calltree_build_stream(&tree, b->p, &to, b->src, b->err);
	if (r)
		return r;
	if ((b->p->columns & SB_COL_OFFCPU) && !pairs_tile(b->p)) {
		r = SB_CT_FALLBACK;
	} else if (b->p->columns & SB_COL_OFFCPU) {
		b->pair_offcpu = calloc(b->p->n_pairs ? b->p->n_pairs : 1, sizeof(int64_t));
		r = b->pair_offcpu ? walk(b, SB_COL_OFFCPU, take_offcpu) : -ENOMEM;
	}
	if (!r)
		r = sb_ct_build_flat(b->g, b->p, b->o, b->pair_offcpu, &tree, b->err);
	sb_calltree_free(&tree);
	return r;
}

int sb_calltree_build_stream(struct sb_calltree *t, const struct sb_profile *p,
			     const struct sb_ct_opts *o, struct sb_event_source *src,
			     struct sb_error *err)
{
	struct sb_ct_grow g;
	struct sbuild b = { .p = p, .o = o, .src = src, .err = err, .g = &g };
	int r;

	if (p->agg.on)
		return sb_calltree_build_aggregate(t, p, o, err);
	r = sb_ct_grow_init(&g, t, p, o->flat);
	if (!r)
		r = sb_ct_check_pairs(p, false, err);
	if (!r)
		r = o->flat ? build_flat(&b) : build_tree(&b);
	free(b.first);
	free(b.count);
	free(b.region);
	free(b.node);
	free(b.pair_offcpu);
	r = sb_ct_grow_end(&g, r, o->sort);
	if (r == -ENOMEM)
		sb_fail(err, ENOMEM, "call tree: out of memory");
	return r;
}

/* An open call while calls stream in nesting order: where it ends and the node it went to. */
struct open_call {
	int64_t end;
	uint32_t node;
};

/* As calltree.c's parents_by_time: the parent is the innermost open call not ending first. */
static int nest_ordered(struct sb_ct_grow *g, const struct sb_profile *p,
			const struct sb_ct_opts *o, struct sb_ordered_calls *src,
			struct sb_error *err)
{
	struct open_call *stack = NULL, *q;
	size_t sp = 0, cap = 0, pair;
	uint32_t rank = 0, node;
	struct sb_event ev;
	int r;

	while ((r = src->next(src, &ev, &pair, err)) > 0) {
		if (pair >= p->n_pairs) {
			r = sb_fail(err, EIO, "calls: index row %zu out of range", pair);
			break;
		}
		if (o->rank >= 0 && (int64_t)p->pairs[pair].rank != o->rank)
			continue;
		if (p->pairs[pair].rank != rank)
			sp = 0;
		rank = p->pairs[pair].rank;
		while (sp && stack[sp - 1].end < ev.end)
			sp--;
		node = sb_ct_child(g, sp ? stack[sp - 1].node : 0, p->pairs[pair].region);
		if (node == SB_CT_NONE) {
			r = -ENOMEM;
			break;
		}
		sb_ct_add_call(g->t, &g->t->nodes[node], &ev);
		if (sp == cap) {
			cap = cap ? cap * 2 : 64;
			q = realloc(stack, cap * sizeof(*stack));
			if (!q) {
				r = -ENOMEM;
				break;
			}
			stack = q;
		}
		stack[sp++] = (struct open_call){ ev.end, node };
	}
	free(stack);
	if (!r)
		sb_ct_finish_own(g->t);
	return r;
}

static int tree_ordered(struct sb_calltree *t, const struct sb_profile *p,
			const struct sb_ct_opts *o, struct sb_ordered_calls *src,
			struct sb_error *err)
{
	struct sb_ct_grow g;
	int r;

	r = sb_ct_grow_init(&g, t, p, false);
	if (!r)
		r = nest_ordered(&g, p, o, src, err);
	return sb_ct_grow_end(&g, r, o->sort);
}

int sb_calltree_build_ordered(struct sb_calltree *t, const struct sb_profile *p,
			      const struct sb_ct_opts *o, struct sb_ordered_calls *src,
			      struct sb_error *err)
{
	struct sb_ct_opts to = { .flat = false, .rank = o->rank, .sort = o->sort };
	struct sb_calltree tree;
	struct sb_ct_grow g;
	int r;

	/* The flat table's own times come from the tree. */
	r = tree_ordered(o->flat ? &tree : t, p, &to, src, err);
	if (!r && o->flat) {
		r = sb_ct_grow_init(&g, t, p, true);
		if (!r)
			r = sb_ct_build_flat(&g, p, o, NULL, &tree, err);
		r = sb_ct_grow_end(&g, r, o->sort);
		sb_calltree_free(&tree);
	}
	if (r == -ENOMEM)
		sb_fail(err, ENOMEM, "call tree: out of memory");
	return r;
}

int sb_spt_read_tree(const char *path, struct sb_profile *p, const struct sb_ct_opts *o,
		     struct sb_calltree *t, struct sb_error *err)
{
	struct sb_spt_calls *c;
	int ret;

	ret = sb_spt_calls_open(path, p, &c, err);
	if (ret)
		return ret;
	ret = sb_calltree_build_ordered(t, p, o, sb_spt_calls_source(c), err);
	sb_spt_calls_close(c);
	if (ret)
		sb_profile_free(p);
	return ret;
}
