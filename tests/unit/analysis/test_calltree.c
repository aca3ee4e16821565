/* Unit tests of the call tree: parents by id and by time, sums, own time, flat mode, sorting. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/calltree.h"

#define IDS (SB_COL_CALL_ID | SB_COL_PARENT_ID)
#define ALL (SB_COL_THREAD | IDS)
#define NO_ID -1

/* One synthetic call; the columns a profile lacks are ignored. */
struct call {
	const char *region;
	uint32_t rank;
	int64_t thread;
	int64_t start;
	int64_t end;
	int64_t id;
	int64_t parent;
	int64_t offcpu;
};

static int cmp_start(const void *a, const void *b)
{
	const struct call *x = *(const struct call *const *)a, *y = *(const struct call *const *)b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Append the calls of one (rank, region) pair, by start as FORMAT.md lays them out. */
static void add_pair(struct sb_profile *p, const struct call *calls, size_t n, uint32_t rank,
		     uint32_t region, unsigned columns)
{
	const struct call **mine = calloc(n, sizeof(*mine));
	struct sb_pair *pr = &p->pairs[p->n_pairs++];
	size_t i, m = 0;

	assert_non_null(mine);
	for (i = 0; i < n; i++)
		if (calls[i].rank == rank && !strcmp(calls[i].region, p->regions[region].name))
			mine[m++] = &calls[i];
	qsort(mine, m, sizeof(*mine), cmp_start);
	*pr = (struct sb_pair){ .region = region, .rank = rank, .offset = p->n_events,
				.count = m, .exclusive_total = -1 };
	sb_stats_init(&pr->stats);
	for (i = 0; i < m; i++) {
		p->events[p->n_events++] = (struct sb_event){
			.start = mine[i]->start,
			.end = mine[i]->end,
			.thread = columns & SB_COL_THREAD ? mine[i]->thread : -1,
			.call_id = columns & SB_COL_CALL_ID ? mine[i]->id : -1,
			.parent_id = columns & SB_COL_PARENT_ID ? mine[i]->parent : -1,
			.metric = { [SB_METRIC_GPU] = -1,
				    [SB_METRIC_OFFCPU] = columns & SB_COL_OFFCPU ? mine[i]->offcpu : -1 },
		};
		sb_stats_add(&pr->stats, mine[i]->start, mine[i]->end, -1);
	}
	pr->stats.count = m;
	free(mine);
}

static bool has_pair(const struct sb_profile *p, uint32_t rank, uint32_t region)
{
	size_t i;

	for (i = 0; i < p->n_pairs; i++)
		if (p->pairs[i].rank == rank && p->pairs[i].region == region)
			return true;
	return false;
}

/* A profile held in memory with the given calls, pairs in order of first appearance. */
static void make_profile(struct sb_profile *p, const struct call *calls, size_t n, unsigned columns)
{
	ssize_t r;
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = columns;
	p->pairs = calloc(n ? n : 1, sizeof(*p->pairs));
	p->events = calloc(n ? n : 1, sizeof(*p->events));
	assert_non_null(p->pairs);
	assert_non_null(p->events);
	for (i = 0; i < n; i++) {
		r = sb_profile_find_region(p, calls[i].region);
		if (r < 0)
			r = sb_profile_add_region(p, calls[i].region, "", -1, "[]");
		assert_true(r >= 0);
		if (!has_pair(p, calls[i].rank, (uint32_t)r))
			add_pair(p, calls, n, calls[i].rank, (uint32_t)r, columns);
	}
	assert_int_equal(p->n_events, n);
}

static void build(struct sb_calltree *t, const struct sb_profile *p, bool flat, int64_t rank,
		  enum sb_ct_sort sort)
{
	struct sb_ct_opts o = { .flat = flat, .rank = rank, .sort = sort };
	struct sb_error err = { .msg = "" };

	assert_int_equal(sb_calltree_build(t, p, &o, &err), 0);
}

/* The node at a "/"-separated path of region names, or NULL. */
static const struct sb_ct_node *at(const struct sb_calltree *t, const char *path)
{
	char buf[256], *name, *save = NULL;
	uint32_t node = 0, c;

	snprintf(buf, sizeof(buf), "%s", path);
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		for (c = t->nodes[node].first_child; c != SB_CT_NONE; c = t->nodes[c].next_sibling)
			if (!strcmp(sb_calltree_name(t, c), name))
				break;
		if (c == SB_CT_NONE)
			return NULL;
		node = c;
	}
	return &t->nodes[node];
}

static const struct sb_ct_node *must(const struct sb_calltree *t, const char *path)
{
	const struct sb_ct_node *n = at(t, path);

	if (!n)
		fail_msg("no node %s", path);
	return n;
}

static void expect_node(const struct sb_calltree *t, const char *path, uint64_t calls,
			int64_t total, int64_t own)
{
	const struct sb_ct_node *n = must(t, path);

	assert_int_equal(n->calls, calls);
	assert_int_equal(n->total, total);
	assert_int_equal(n->own, own);
}

/* Names of the children of path, in list order, joined by ",". */
static void children(const struct sb_calltree *t, const char *path, char *out, size_t len)
{
	const struct sb_ct_node *n = path[0] ? must(t, path) : &t->nodes[0];
	uint32_t c;

	out[0] = '\0';
	for (c = n->first_child; c != SB_CT_NONE; c = t->nodes[c].next_sibling) {
		if (out[0])
			strncat(out, ",", len - strlen(out) - 1);
		strncat(out, sb_calltree_name(t, c), len - strlen(out) - 1);
	}
}

static void expect_children(const struct sb_calltree *t, const char *path, const char *want)
{
	char got[256];

	children(t, path, got, sizeof(got));
	assert_string_equal(got, want);
}

/*
 * main { solve { kernel kernel } mark io }, ids sparse and out of order. mark is
 * zero-length at solve's end: only the ids can tell it is main's child.
 */
static const struct call nested[] = {
	{ "kernel", 0, 0, 35, 55, 3, 7, 0 },
	{ "main", 0, 0, 0, 100, 50, -1, 0 },
	{ "io", 0, 0, 70, 90, 12, 50, 0 },
	{ "solve", 0, 0, 10, 60, 7, 50, 0 },
	{ "kernel", 0, 0, 20, 30, 900, 7, 0 },
	{ "mark", 0, 0, 60, 60, 1 << 30, 50, 0 },
};

static void test_parent_ids_give_nesting_with_sparse_unordered_ids(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;
	const struct sb_ct_node *k;

	(void)state;
	make_profile(&p, nested, 6, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	assert_int_equal(t.n_nodes, 6);
	assert_int_equal(t.calls, 6);
	expect_node(&t, "main", 1, 100, 100 - 50 - 20 - 0);
	expect_node(&t, "main/solve", 1, 50, 50 - 30);
	expect_node(&t, "main/solve/kernel", 2, 30, 30);
	expect_node(&t, "main/io", 1, 20, 20);
	expect_node(&t, "main/mark", 1, 0, 0);
	k = must(&t, "main/solve/kernel");
	assert_int_equal(k->min, 10);
	assert_int_equal(k->max, 20);
	assert_int_equal(k->first_start, 20);
	assert_int_equal(k->depth, 3);
	assert_int_equal(sb_ct_avg(k), 15);
	assert_int_equal(k->offcpu, SB_CT_UNKNOWN);
	assert_int_equal(t.max_depth, 3);
	assert_int_equal(t.min_start, 0);
	assert_int_equal(t.max_end, 100);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_times_give_nesting_without_id_columns(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, nested, 6, SB_COL_THREAD);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	expect_node(&t, "main", 1, 100, 30);
	expect_node(&t, "main/solve", 1, 50, 20);
	expect_node(&t, "main/solve/kernel", 2, 30, 30);
	expect_node(&t, "main/io", 1, 20, 20);
	/* Contained in solve by time; only ids could say otherwise. */
	expect_node(&t, "main/solve/mark", 1, 0, 0);
	assert_null(at(&t, "main/mark"));
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_times_back_to_back_calls_are_siblings(void **state)
{
	static const struct call c[] = {
		{ "a", 0, 0, 0, 10, 0, 0, 0 },
		{ "b", 0, 0, 10, 20, 0, 0, 0 },
		{ "c", 0, 0, 20, 20, 0, 0, 0 },
		{ "a", 0, 0, 30, 40, 0, 0, 0 },
		{ "a", 0, 0, 30, 40, 0, 0, 0 },
	};
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, c, 5, 0);
	build(&t, &p, false, -1, SB_CT_SORT_NAME);
	expect_children(&t, "", "a,b");
	expect_node(&t, "b/c", 1, 0, 0);
	/* Two calls with the same interval: one must be inside the other. */
	expect_node(&t, "a", 2, 20, 10);
	expect_node(&t, "a/a", 1, 10, 10);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* fib(3) { fib(2) { fib(1) fib(0) } fib(1) } */
static const struct call fib[] = {
	{ "fib", 0, 0, 0, 100, 1, -1, 0 },
	{ "fib", 0, 0, 10, 60, 2, 1, 0 },
	{ "fib", 0, 0, 20, 30, 3, 2, 0 },
	{ "fib", 0, 0, 40, 50, 4, 2, 0 },
	{ "fib", 0, 0, 70, 90, 5, 1, 0 },
};

static void check_fib(unsigned columns)
{
	struct sb_profile p;
	struct sb_calltree t;
	const struct sb_ct_node *mid;

	make_profile(&p, fib, 5, columns);
	assert_int_equal(p.n_pairs, 1);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	assert_int_equal(t.n_nodes, 4);
	expect_node(&t, "fib", 1, 100, 30);
	expect_node(&t, "fib/fib", 2, 70, 50);
	expect_node(&t, "fib/fib/fib", 2, 20, 20);
	mid = must(&t, "fib/fib");
	assert_int_equal(mid->min, 20);
	assert_int_equal(mid->max, 50);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_recursion_gives_one_node_per_depth(void **state)
{
	(void)state;
	check_fib(ALL);
	check_fib(SB_COL_THREAD);
	check_fib(0);
}

/* rank 0: thread 0 main { work }, thread 1 work; rank 1: thread 0 main { work }, thread 1 io. */
static const struct call threads_ranks[] = {
	{ "main", 0, 0, 0, 100, 1, -1, 0 },
	{ "work", 0, 0, 10, 50, 2, 1, 0 },
	{ "work", 0, 1, 20, 80, 3, -1, 0 },
	{ "main", 1, 0, 5, 105, 1, -1, 0 },
	{ "work", 1, 0, 10, 30, 2, 1, 0 },
	{ "io", 1, 1, 40, 60, 3, -1, 0 },
};

static void check_threads_ranks(unsigned columns)
{
	struct sb_profile p;
	struct sb_calltree t;

	make_profile(&p, threads_ranks, 6, columns);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	assert_int_equal(t.calls, 6);
	expect_node(&t, "main", 2, 200, 200 - 60);
	expect_node(&t, "main/work", 2, 60, 60);
	expect_node(&t, "work", 1, 60, 60);
	/* Rank 1's thread 1 is not rank 0's: io on it is top level. */
	expect_node(&t, "io", 1, 20, 20);
	expect_children(&t, "", "main,work,io");
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_threads_and_ranks_aggregate_into_one_tree(void **state)
{
	(void)state;
	check_threads_ranks(ALL);
	check_threads_ranks(SB_COL_THREAD);
}

static void test_without_thread_ids_a_rank_is_one_thread(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, threads_ranks, 6, 0);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	/* Thread 1's work [20,80] now lies in main [0,100] and closes work [10,50]. */
	expect_node(&t, "main", 2, 200, 200 - 120 - 20);
	expect_node(&t, "main/work", 3, 120, 120);
	expect_node(&t, "main/io", 1, 20, 20);
	assert_null(at(&t, "work"));
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_parent_ids_do_not_cross_ranks(void **state)
{
	static const struct call c[] = {
		{ "main", 0, 0, 0, 100, 1, -1, 0 },
		{ "work", 1, 0, 10, 20, 2, 1, 0 },
	};
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, c, 2, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_NAME);
	expect_children(&t, "", "main,work");
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_parent_ids_never_match_another_ranks_call(void **state)
{
	enum { N = 20000 };
	struct call *c = calloc(2 * N, sizeof(*c));
	struct sb_profile p;
	struct sb_calltree t;
	int64_t i;

	(void)state;
	assert_non_null(c);
	/* Rank 1's calls all name ids that only rank 0 has: enough to meet in the id table. */
	for (i = 0; i < N; i++) {
		c[i] = (struct call){ "r0", 0, 0, i * 10, i * 10 + 5, i, -1, 0 };
		c[N + i] = (struct call){ "r1", 1, 0, i * 10, i * 10 + 5, N + i, i, 0 };
	}
	make_profile(&p, c, 2 * N, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_NAME);
	assert_int_equal(t.n_nodes, 3);
	expect_node(&t, "r1", N, 5 * N, 5 * N);
	sb_calltree_free(&t);
	sb_profile_free(&p);
	free(c);
}

static void test_rank_filter_keeps_one_rank(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, threads_ranks, 6, ALL);
	build(&t, &p, false, 1, SB_CT_SORT_TOTAL);
	assert_int_equal(t.calls, 3);
	expect_node(&t, "main", 1, 100, 80);
	expect_node(&t, "main/work", 1, 20, 20);
	expect_node(&t, "io", 1, 20, 20);
	assert_null(at(&t, "work"));
	assert_int_equal(t.min_start, 5);
	assert_int_equal(t.max_end, 105);
	sb_calltree_free(&t);

	build(&t, &p, false, 7, SB_CT_SORT_TOTAL);
	assert_int_equal(t.n_nodes, 1);
	assert_int_equal(t.calls, 0);
	assert_int_equal(sb_calltree_next(&t, 0), SB_CT_NONE);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_missing_or_cyclic_parent_ids_count_as_top_level(void **state)
{
	static const struct call c[] = {
		{ "main", 0, 0, 0, 100, 10, -1, 0 },
		{ "orphan", 0, 0, 10, 20, 11, 12345, 0 },
		{ "self", 0, 0, 30, 40, 12, 12, 0 },
		{ "ping", 0, 0, 50, 60, 13, 14, 0 },
		{ "pong", 0, 0, 50, 60, 14, 13, 0 },
		{ "neg", 0, 0, 200, 300, -1, -1, 0 },
	};
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, c, 6, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_NAME);
	assert_int_equal(t.calls, 6);
	/* parent_id -1 means top level even when some call carries id -1. */
	expect_node(&t, "neg", 1, 100, 100);
	assert_int_equal(t.nodes[0].first_child != SB_CT_NONE, 1);
	assert_int_equal(t.max_depth, 2);
	expect_node(&t, "orphan", 1, 10, 10);
	expect_node(&t, "self", 1, 10, 10);
	expect_node(&t, "main", 1, 100, 100);
	/* A two-call cycle: one of them is cut loose, the other hangs below it. */
	assert_true(at(&t, "ping/pong") || at(&t, "pong/ping"));
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_offcpu_column_is_summed_per_node(void **state)
{
	static const struct call c[] = {
		{ "main", 0, 0, 0, 100, 1, -1, 40 },
		{ "io", 0, 0, 10, 50, 2, 1, 30 },
		{ "io", 0, 0, 60, 70, 3, 1, 5 },
	};
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, c, 3, ALL | SB_COL_OFFCPU);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	assert_int_equal(must(&t, "main")->offcpu, 40);
	assert_int_equal(must(&t, "main/io")->offcpu, 35);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_flat_sums_pairs_per_region(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;
	const struct sb_ct_node *w;
	size_t i;

	(void)state;
	make_profile(&p, threads_ranks, 6, ALL | SB_COL_OFFCPU);
	for (i = 0; i < p.n_events; i++)
		p.events[i].metric[SB_METRIC_OFFCPU] = 1;
	/* Exclusive totals from the file are used as they are when all are known. */
	for (i = 0; i < p.n_pairs; i++)
		p.pairs[i].exclusive_total = 1000 + (int64_t)i;
	build(&t, &p, true, -1, SB_CT_SORT_TOTAL);
	assert_true(t.flat);
	assert_int_equal(t.n_nodes, 4);
	expect_children(&t, "", "main,work,io");
	w = must(&t, "work");
	assert_int_equal(w->calls, 3);
	assert_int_equal(w->total, 120);
	assert_int_equal(w->min, 20);
	assert_int_equal(w->max, 60);
	assert_int_equal(w->first_start, 10);
	assert_int_equal(w->depth, 1);
	assert_int_equal(w->offcpu, 3);
	assert_int_equal(w->own, 1001 + 1003);
	assert_int_equal(must(&t, "main")->own, 1000 + 1002);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_flat_computes_missing_exclusive_times_from_the_tree(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, fib, 5, ALL);
	build(&t, &p, true, -1, SB_CT_SORT_TOTAL);
	/*
	 * A recursive call is inside its caller's time: inclusive is the outer
	 * call's 100 (not the 190 of every call summed), exclusive exactly the run.
	 */
	expect_node(&t, "fib", 5, 100, 100);
	assert_int_equal(sb_ct_avg(must(&t, "fib")), 190 / 5);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_flat_without_events_uses_summaries_only(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;
	struct sb_error err = { .msg = "" };
	struct sb_ct_opts o = { .flat = false, .rank = -1 };

	(void)state;
	make_profile(&p, threads_ranks, 6, ALL | SB_COL_OFFCPU);
	free(p.events);
	p.events = NULL;
	build(&t, &p, true, 1, SB_CT_SORT_NAME);
	expect_children(&t, "", "io,main,work");
	assert_int_equal(must(&t, "main")->calls, 1);
	assert_int_equal(must(&t, "main")->own, SB_CT_UNKNOWN);
	assert_int_equal(must(&t, "main")->offcpu, SB_CT_UNKNOWN);
	assert_int_equal(t.min_start, 5);
	sb_calltree_free(&t);
	/* A tree needs the calls themselves. */
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "events"));
	sb_profile_free(&p);
}

/* Top level a (1 call, 300), b (3 calls, 240), c (2 calls, 260); below a: x (10), y (20). */
static const struct call sortable[] = {
	{ "c", 0, 0, 50, 180, 1, -1, 0 },
	{ "a", 0, 0, 100, 400, 2, -1, 0 },
	{ "b", 0, 0, 0, 80, 3, -1, 0 },
	{ "b", 0, 0, 500, 580, 4, -1, 0 },
	{ "b", 0, 0, 600, 680, 5, -1, 0 },
	{ "c", 0, 0, 700, 830, 6, -1, 0 },
	{ "y", 0, 0, 110, 130, 7, 2, 0 },
	{ "x", 0, 0, 200, 210, 8, 2, 0 },
};

static void test_every_sort_key_orders_siblings(void **state)
{
	static const struct {
		const char *key;
		const char *top;
		const char *under_a;
	} cases[] = {
		{ "total", "a,c,b", "y,x" },
		{ "calls", "b,c,a", "x,y" },	/* x and y tie on calls: by name */
		{ "avg", "a,c,b", "y,x" },
		{ "name", "a,b,c", "x,y" },
		{ "start", "b,c,a", "y,x" },
	};
	struct sb_profile p;
	struct sb_calltree t;
	enum sb_ct_sort key;
	size_t i;

	(void)state;
	make_profile(&p, sortable, 8, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(sb_ct_sort_parse(cases[i].key, &key), 0);
		assert_int_equal(sb_calltree_sort(&t, key), 0);
		expect_children(&t, "", cases[i].top);
		expect_children(&t, "a", cases[i].under_a);
	}
	sb_calltree_free(&t);
	/* The same orders straight from a build, flat too. */
	build(&t, &p, true, -1, SB_CT_SORT_AVG);
	expect_children(&t, "", "a,c,b,y,x");
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_sort_key_names_parse(void **state)
{
	enum sb_ct_sort key = SB_CT_SORT_TOTAL;

	(void)state;
	assert_int_equal(sb_ct_sort_parse("start", &key), 0);
	assert_int_equal(key, SB_CT_SORT_START);
	assert_int_equal(sb_ct_sort_parse("name", &key), 0);
	assert_int_equal(key, SB_CT_SORT_NAME);
	assert_int_equal(sb_ct_sort_parse("Total", &key), -EINVAL);
	assert_int_equal(sb_ct_sort_parse("", &key), -EINVAL);
	assert_int_equal(key, SB_CT_SORT_NAME);
}

static void test_preorder_walk_visits_parents_first(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;
	char seen[128] = "";
	uint32_t i;

	(void)state;
	make_profile(&p, nested, 6, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_START);
	for (i = sb_calltree_next(&t, 0); i != SB_CT_NONE; i = sb_calltree_next(&t, i)) {
		strcat(seen, sb_calltree_name(&t, i));
		strcat(seen, " ");
	}
	assert_string_equal(seen, "main solve kernel mark io ");
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

static void test_corrupt_index_rows_are_reported(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;
	struct sb_error err = { .msg = "" };
	struct sb_ct_opts o = { .rank = -1 };

	(void)state;
	make_profile(&p, nested, 6, ALL);
	p.pairs[1].count = 100;
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rank_region_index row 1"));
	p.pairs[1].count = 1;
	p.pairs[2].region = 99;
	o.flat = true;
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rank_region_index row 2"));
	sb_profile_free(&p);
}

static void test_empty_profile_gives_an_empty_tree(void **state)
{
	struct sb_profile p;
	struct sb_calltree t;

	(void)state;
	make_profile(&p, NULL, 0, ALL);
	build(&t, &p, false, -1, SB_CT_SORT_TOTAL);
	assert_int_equal(t.n_nodes, 1);
	assert_int_equal(sb_calltree_next(&t, 0), SB_CT_NONE);
	sb_calltree_free(&t);
	build(&t, &p, true, -1, SB_CT_SORT_TOTAL);
	assert_int_equal(t.n_nodes, 1);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* A random properly nested trace: calls below [start, end) on one thread, ids in shuffled order. */
static void gen(struct call *c, size_t *n, size_t max, int64_t start, int64_t end, int64_t parent,
		unsigned depth, unsigned *seed)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	int64_t t = start, s, e, id;

	while (*n < max && end - t > 4 && rand_r(seed) % 4) {
		s = t + rand_r(seed) % ((end - t) / 2 + 1);
		e = s + rand_r(seed) % (end - s + 1);
		id = (int64_t)rand_r(seed) * 4096 + (int64_t)*n;
		c[(*n)++] = (struct call){ names[rand_r(seed) % 4], 0, 0, s, e, id, parent, 0 };
		/* Strictly inside: with equal intervals times cannot tell the outer call. */
		if (depth < 8)
			gen(c, n, max, s + 1, e - 1, id, depth + 1, seed);
		t = e + 1;
	}
}

static void test_random_nesting_ids_and_times_agree_and_own_adds_up(void **state)
{
	enum { MAX = 3000 };
	struct call *c = calloc(MAX, sizeof(*c));
	struct sb_profile pi, pt;
	struct sb_calltree ti, tt;
	unsigned seed = 42;
	int64_t own = 0, top = 0;
	size_t n = 0;
	uint32_t i, j;

	(void)state;
	assert_non_null(c);
	while (n < MAX / 2)
		gen(c, &n, MAX, (int64_t)n * 1000000, (int64_t)n * 1000000 + 999999, -1, 1, &seed);
	make_profile(&pi, c, n, ALL);
	make_profile(&pt, c, n, SB_COL_THREAD);
	build(&ti, &pi, false, -1, SB_CT_SORT_NAME);
	build(&tt, &pt, false, -1, SB_CT_SORT_NAME);
	assert_true(ti.n_nodes > 20);
	assert_int_equal(ti.n_nodes, tt.n_nodes);
	for (i = 1; i < ti.n_nodes; i++) {
		assert_true(ti.nodes[i].own >= 0);
		own += ti.nodes[i].own;
		if (ti.nodes[i].depth == 1)
			top += ti.nodes[i].total;
	}
	assert_int_equal(own, top);
	/* Same shape both ways: walk both in name order and compare node by node. */
	for (i = sb_calltree_next(&ti, 0), j = sb_calltree_next(&tt, 0); i != SB_CT_NONE;
	     i = sb_calltree_next(&ti, i), j = sb_calltree_next(&tt, j)) {
		assert_true(j != SB_CT_NONE);
		assert_string_equal(sb_calltree_name(&ti, i), sb_calltree_name(&tt, j));
		assert_int_equal(ti.nodes[i].depth, tt.nodes[j].depth);
		assert_int_equal(ti.nodes[i].calls, tt.nodes[j].calls);
		assert_int_equal(ti.nodes[i].total, tt.nodes[j].total);
	}
	assert_int_equal(j, SB_CT_NONE);
	sb_calltree_free(&ti);
	sb_calltree_free(&tt);
	sb_profile_free(&pi);
	sb_profile_free(&pt);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parent_ids_give_nesting_with_sparse_unordered_ids),
		cmocka_unit_test(test_times_give_nesting_without_id_columns),
		cmocka_unit_test(test_times_back_to_back_calls_are_siblings),
		cmocka_unit_test(test_recursion_gives_one_node_per_depth),
		cmocka_unit_test(test_threads_and_ranks_aggregate_into_one_tree),
		cmocka_unit_test(test_without_thread_ids_a_rank_is_one_thread),
		cmocka_unit_test(test_parent_ids_do_not_cross_ranks),
		cmocka_unit_test(test_parent_ids_never_match_another_ranks_call),
		cmocka_unit_test(test_rank_filter_keeps_one_rank),
		cmocka_unit_test(test_missing_or_cyclic_parent_ids_count_as_top_level),
		cmocka_unit_test(test_offcpu_column_is_summed_per_node),
		cmocka_unit_test(test_flat_sums_pairs_per_region),
		cmocka_unit_test(test_flat_computes_missing_exclusive_times_from_the_tree),
		cmocka_unit_test(test_flat_without_events_uses_summaries_only),
		cmocka_unit_test(test_every_sort_key_orders_siblings),
		cmocka_unit_test(test_sort_key_names_parse),
		cmocka_unit_test(test_preorder_walk_visits_parents_first),
		cmocka_unit_test(test_corrupt_index_rows_are_reported),
		cmocka_unit_test(test_empty_profile_gives_an_empty_tree),
		cmocka_unit_test(test_random_nesting_ids_and_times_agree_and_own_adds_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
