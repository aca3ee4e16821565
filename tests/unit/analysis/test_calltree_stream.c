/* Tests for calltree_stream.c: the same reports as the in-memory tree, fallbacks, hostile ids. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "array_stream.h"
#include "analysis/calltree.h"
#include "analysis/calltree_stream.h"
#include "io/h5read.h"
#include "io/h5write.h"
#include "render/report.h"

#define ALL (SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID | SB_COL_OFFCPU)

/* A source over p->events: the streamed build, fed from memory. */
struct sb_array_source {
	struct sb_event_source base;
	const struct sb_profile *p;
	struct sb_array_stream stream;
};

static int array_open(struct sb_event_source *src, unsigned mask, struct sb_event_stream **s,
		      struct sb_error *err)
{
	struct sb_array_source *a = (struct sb_array_source *)src;

	(void)mask;
	(void)err;
	sb_array_stream_init(&a->stream, a->p);
	*s = &a->stream.base;
	return 0;
}

static void array_close(struct sb_event_source *src, struct sb_event_stream *s)
{
	(void)src;
	(void)s;
}

static void sb_array_source_init(struct sb_array_source *s, const struct sb_profile *p)
{
	*s = (struct sb_array_source){ .base = { array_open, array_close }, .p = p };
}

struct call {
	const char *region;
	uint32_t rank;
	int64_t thread, start, end, id, parent, offcpu;
};

static int cmp_start(const void *a, const void *b)
{
	const struct call *x = *(const struct call *const *)a, *y = *(const struct call *const *)b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Pairs in order of first appearance, each pair's calls by start, as files hold them. */
static void make(struct sb_profile *p, const struct call *c, size_t n, unsigned columns)
{
	const struct call **mine = calloc(n, sizeof(*mine));
	struct sb_pair *pr;
	bool *done = calloc(n, sizeof(*done));
	size_t i, j, m;
	ssize_t reg;

	assert_non_null(mine);
	assert_non_null(done);
	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = columns;
	p->pairs = calloc(n, sizeof(*p->pairs));
	p->events = calloc(n, sizeof(*p->events));
	for (i = 0; i < n; i++) {
		if (done[i])
			continue;
		reg = sb_profile_find_region(p, c[i].region);
		if (reg < 0)
			reg = sb_profile_add_region(p, c[i].region, "", -1, "[]");
		assert_true(reg >= 0);
		for (j = i, m = 0; j < n; j++) {
			if (!done[j] && c[j].rank == c[i].rank && !strcmp(c[j].region, c[i].region)) {
				mine[m++] = &c[j];
				done[j] = true;
			}
		}
		qsort(mine, m, sizeof(*mine), cmp_start);
		pr = &p->pairs[p->n_pairs++];
		*pr = (struct sb_pair){ .region = (uint32_t)reg, .rank = c[i].rank,
					.offset = p->n_events, .count = m, .exclusive_total = -1 };
		sb_stats_init(&pr->stats);
		for (j = 0; j < m; j++) {
			p->events[p->n_events++] = (struct sb_event){
				.start = mine[j]->start, .end = mine[j]->end,
				.thread = columns & SB_COL_THREAD ? mine[j]->thread : -1,
				.call_id = columns & SB_COL_CALL_ID ? mine[j]->id : -1,
				.parent_id = columns & SB_COL_PARENT_ID ? mine[j]->parent : -1,
				.metric = { [SB_METRIC_GPU] = -1,
					    [SB_METRIC_OFFCPU] = columns & SB_COL_OFFCPU ?
						mine[j]->offcpu : -1 },
			};
			sb_stats_add(&pr->stats, mine[j]->start, mine[j]->end, -1);
		}
	}
	free(mine);
	free(done);
}

/* The report of t as text, JSON and CSV, one malloc'd string. */
static char *render(const struct sb_profile *p, const struct sb_calltree *t, bool flat,
		    int64_t rank)
{
	struct report_opts o = { .flat = flat, .rank = rank, .path = "x" };
	enum sb_report_format f[] = { SB_REPORT_TEXT, SB_REPORT_JSON, SB_REPORT_CSV };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	for (i = 0; i < 3; i++) {
		o.format = f[i];
		assert_int_equal(sb_report_render(m, p, t, &o), 0);
	}
	fclose(m);
	return buf;
}

static int build_stream(struct sb_calltree *t, const struct sb_profile *p, bool flat,
			int64_t rank, enum sb_ct_sort sort)
{
	struct sb_ct_opts o = { .flat = flat, .rank = rank, .sort = sort };
	struct sb_error err = { .msg = "" };
	struct sb_array_source src;

	sb_array_source_init(&src, p);
	return sb_calltree_build_stream(t, p, &o, &src.base, &err);
}

/* Streamed and in memory give byte-identical reports, every rank and sort; flat from flat_lo. */
static void expect_modes(const struct sb_profile *p, int flat_lo)
{
	struct sb_error err = { .msg = "" };
	struct sb_calltree a, b;
	int64_t rank;
	char *x, *y;
	int flat, sort;

	for (flat = flat_lo; flat < 2; flat++) {
		for (rank = -1; rank < 3; rank++) {
			for (sort = SB_CT_SORT_TOTAL; sort <= SB_CT_SORT_START; sort++) {
				struct sb_ct_opts o = { .flat = flat, .rank = rank,
							.sort = (enum sb_ct_sort)sort };

				assert_int_equal(sb_calltree_build(&a, p, &o, &err), 0);
				assert_int_equal(build_stream(&b, p, flat, rank, o.sort), 0);
				x = render(p, &a, flat, rank);
				y = render(p, &b, flat, rank);
				assert_string_equal(x, y);
				assert_int_equal(a.n_nodes, b.n_nodes);
				assert_int_equal(a.max_depth, b.max_depth);
				free(x);
				free(y);
				sb_calltree_free(&a);
				sb_calltree_free(&b);
			}
		}
	}
}

static void expect_same(const struct sb_profile *p)
{
	expect_modes(p, 0);
}

/* Two ranks, two threads each, nesting 3 deep; ids dense per rank in entry order. */
static const struct call nested[] = {
	{ "step", 0, 0, 0, 100, 0, -1, 10 },
	{ "step", 0, 1, 1, 90, 1, -1, 0 },
	{ "stencil", 0, 0, 5, 50, 2, 0, 10 },
	{ "stencil", 0, 1, 6, 40, 3, 1, 0 },
	{ "inner", 0, 0, 10, 20, 4, 2, 5 },
	{ "inner", 0, 0, 25, 30, 5, 2, 5 },
	{ "halo", 0, 0, 60, 90, 6, 0, 0 },
	{ "step", 1, 0, 3, 70, 0, -1, 0 },
	{ "halo", 1, 0, 4, 30, 1, 0, 7 },
	{ "inner", 1, 0, 5, 10, 2, 1, 7 },
	{ "reduce", 1, 0, 40, 60, 3, 0, 0 },
	{ "step", 2, 0, 0, 10, 0, -1, 0 },
};

static void test_nested_ranks_and_threads_match_in_memory(void **state)
{
	struct sb_profile p;

	(void)state;
	make(&p, nested, sizeof(nested) / sizeof(nested[0]), ALL);
	expect_same(&p);
	p.pairs[0].exclusive_total = 42;	/* some rows stored, some not */
	expect_same(&p);
	sb_profile_free(&p);
}

/* fib calling fib: one path per depth. */
static const struct call recursion[] = {
	{ "fib", 0, 0, 0, 100, 0, -1, 0 },
	{ "fib", 0, 0, 1, 60, 1, 0, 0 },
	{ "fib", 0, 0, 2, 30, 2, 1, 0 },
	{ "fib", 0, 0, 3, 10, 3, 2, 0 },
	{ "fib", 0, 0, 61, 90, 4, 0, 0 },
	{ "leaf", 0, 0, 62, 70, 5, 4, 0 },
};

static void test_recursion_matches_in_memory(void **state)
{
	struct sb_profile p;

	(void)state;
	make(&p, recursion, sizeof(recursion) / sizeof(recursion[0]), ALL);
	expect_same(&p);
	sb_profile_free(&p);
}

/* Parents that name no call (missing, out of range) and a call that is its own parent. */
static const struct call missing[] = {
	{ "a", 0, 0, 0, 100, 0, -1, 0 },
	{ "b", 0, 0, 1, 50, 1, 7, 0 },
	{ "c", 0, 0, 2, 40, 2, 1, 0 },
	{ "d", 0, 0, 60, 70, 3, 3, 0 },
	{ "e", 0, 0, 71, 80, 4, INT64_MAX, 0 },
	{ "f", 0, 0, 81, 90, 5, -5, 0 },
};

static void test_missing_and_self_parents_are_top_level_as_in_memory(void **state)
{
	struct sb_profile p;

	(void)state;
	make(&p, missing, sizeof(missing) / sizeof(missing[0]), ALL);
	expect_same(&p);
	sb_profile_free(&p);
}

/* solve recursing through a kernel: each solve call inside another is already in its time. */
static void test_flat_counts_a_recursive_call_once(void **state)
{
	static const struct call rec[] = {
		{ "solve", 0, 0, 0, 100, 0, -1, 0 },
		{ "solve", 0, 0, 10, 60, 1, 0, 0 },
		{ "kernel", 0, 0, 20, 30, 2, 1, 0 },
		{ "solve", 0, 0, 22, 28, 3, 2, 0 },
		{ "solve", 0, 0, 70, 80, 4, 0, 0 },
	};
	struct sb_calltree t;
	struct sb_profile p;
	uint32_t i;

	(void)state;
	make(&p, rec, sizeof(rec) / sizeof(rec[0]), ALL);
	assert_int_equal(build_stream(&t, &p, true, -1, SB_CT_SORT_NAME), 0);
	assert_int_equal(t.n_nodes, 3);
	for (i = 1; i < t.n_nodes; i++) {
		if (!strcmp(sb_calltree_name(&t, i), "solve")) {
			assert_int_equal(t.nodes[i].calls, 4);
			/* 100, not 100 + 50 + 6 + 10 = 166 (166% of the run). */
			assert_int_equal(t.nodes[i].total, 100);
			assert_int_equal(t.nodes[i].own, 96);
		} else {
			assert_int_equal(t.nodes[i].total, 10);
		}
	}
	sb_calltree_free(&t);
	expect_same(&p);
	sb_profile_free(&p);
}

static void expect_fallback(const struct call *c, size_t n, unsigned columns)
{
	struct sb_calltree t;
	struct sb_profile p;
	size_t i;

	make(&p, c, n, columns);
	assert_int_equal(build_stream(&t, &p, false, -1, SB_CT_SORT_TOTAL), SB_CT_FALLBACK);
	assert_null(t.nodes);
	/* Exclusive times the file lacks come from the tree, so the flat table falls back too... */
	assert_int_equal(build_stream(&t, &p, true, -1, SB_CT_SORT_TOTAL), SB_CT_FALLBACK);
	/*
	 * ...and with them stored as well: only the tree tells a recursive call,
	 * which must not add its time to its region's total again.
	 */
	for (i = 0; i < p.n_pairs; i++)
		p.pairs[i].exclusive_total = (int64_t)i;
	assert_int_equal(build_stream(&t, &p, true, -1, SB_CT_SORT_TOTAL), SB_CT_FALLBACK);
	assert_null(t.nodes);
	sb_profile_free(&p);
}

static void test_without_ids_falls_back(void **state)
{
	(void)state;
	expect_fallback(nested, sizeof(nested) / sizeof(nested[0]), SB_COL_THREAD | SB_COL_OFFCPU);
	expect_fallback(nested, sizeof(nested) / sizeof(nested[0]), SB_COL_CALL_ID);
}

static void test_sparse_duplicate_and_hostile_ids_fall_back(void **state)
{
	static const struct call sparse[] = {
		{ "a", 0, 0, 0, 10, 0, -1, 0 }, { "b", 0, 0, 1, 5, 5, 0, 0 } };
	static const struct call dup[] = {
		{ "a", 0, 0, 0, 10, 0, -1, 0 }, { "b", 0, 0, 1, 5, 0, 0, 0 } };
	static const struct call negative[] = {
		{ "a", 0, 0, 0, 10, INT64_MIN, -1, 0 }, { "b", 0, 0, 1, 5, 1, 0, 0 } };
	static const struct call huge[] = {
		{ "a", 0, 0, 0, 10, INT64_MAX, -1, 0 }, { "b", 0, 0, 1, 5, 0, 0, 0 } };
	/* The parent numbered after its child: ids not in entry order. */
	static const struct call late[] = {
		{ "a", 0, 0, 0, 10, 1, -1, 0 }, { "b", 0, 0, 1, 5, 0, 1, 0 } };

	(void)state;
	expect_fallback(sparse, 2, ALL);
	expect_fallback(dup, 2, ALL);
	expect_fallback(negative, 2, ALL);
	expect_fallback(huge, 2, ALL);
	expect_fallback(late, 2, ALL);
}

/* Index rows out of event order cannot be walked in one pass. */
static void test_rows_out_of_order_fall_back(void **state)
{
	struct sb_calltree t;
	struct sb_profile p;
	struct sb_pair tmp;

	(void)state;
	make(&p, nested, sizeof(nested) / sizeof(nested[0]), ALL);
	tmp = p.pairs[0];
	p.pairs[0] = p.pairs[1];
	p.pairs[1] = tmp;
	assert_int_equal(build_stream(&t, &p, false, -1, SB_CT_SORT_TOTAL), SB_CT_FALLBACK);
	assert_int_equal(build_stream(&t, &p, true, -1, SB_CT_SORT_TOTAL), SB_CT_FALLBACK);
	sb_profile_free(&p);
}

/* A stream shorter than the index says is an error, not a tree. */
static void test_short_stream_is_an_error(void **state)
{
	struct sb_error err = { .msg = "" };
	struct sb_ct_opts o = { .rank = -1 };
	struct sb_array_source src;
	struct sb_profile p, shorter;
	struct sb_calltree t;

	(void)state;
	make(&p, nested, sizeof(nested) / sizeof(nested[0]), ALL);
	shorter = p;
	shorter.n_events--;
	sb_array_source_init(&src, &shorter);
	assert_true(sb_calltree_build_stream(&t, &p, &o, &src.base, &err) < 0);
	assert_non_null(strstr(err.msg, "events:"));
	sb_profile_free(&p);
}

/* Through a file: the lean read and the HDF5 source give what the full read gives. */
static void test_hdf5_lean_read_matches_full_read(void **state)
{
	char path[] = "/tmp/test_calltree_stream.XXXXXX";
	struct sb_error err = { .msg = "" };
	struct sb_profile p, full, lean;
	struct sb_array_stream as;
	struct sb_h5_source src;
	struct sb_calltree a, b;
	int fd, flat;
	char *x, *y;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	make(&p, nested, sizeof(nested) / sizeof(nested[0]), ALL);
	sb_array_stream_init(&as, &p);
	assert_int_equal(sb_h5_write(path, &p, &as.base, &err), 0);
	assert_int_equal(sb_h5_read(path, &full, &err), 0);
	assert_int_equal(sb_h5_read_opts(path, &lean, SB_H5_READ_LEAN, &err), 0);
	assert_null(lean.events);
	assert_int_equal(lean.n_events, full.n_events);
	assert_int_equal(lean.columns, full.columns);
	assert_memory_equal(lean.pairs, full.pairs, full.n_pairs * sizeof(*full.pairs));
	sb_h5_source_init(&src, path, &lean);
	for (flat = 0; flat < 2; flat++) {
		struct sb_ct_opts o = { .flat = flat, .rank = -1 };

		assert_int_equal(sb_calltree_build(&a, &full, &o, &err), 0);
		assert_int_equal(sb_calltree_build_stream(&b, &lean, &o, &src.base, &err), 0);
		x = render(&full, &a, flat, -1);
		y = render(&lean, &b, flat, -1);
		assert_string_equal(x, y);
		free(x);
		free(y);
		sb_calltree_free(&a);
		sb_calltree_free(&b);
	}
	sb_profile_free(&p);
	sb_profile_free(&full);
	sb_profile_free(&lean);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_ranks_and_threads_match_in_memory),
		cmocka_unit_test(test_recursion_matches_in_memory),
		cmocka_unit_test(test_missing_and_self_parents_are_top_level_as_in_memory),
		cmocka_unit_test(test_flat_counts_a_recursive_call_once),
		cmocka_unit_test(test_without_ids_falls_back),
		cmocka_unit_test(test_sparse_duplicate_and_hostile_ids_fall_back),
		cmocka_unit_test(test_rows_out_of_order_fall_back),
		cmocka_unit_test(test_short_stream_is_an_error),
		cmocka_unit_test(test_hdf5_lean_read_matches_full_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
