/*
 * Unit tests of record --aggregate: the aggregator's rows (bounded by paths,
 * exact sums, windows, values) and the collector that feeds it and lays the
 * rows out as the profile's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include <cmocka.h>

#include "record/aggregate.h"
#include "record/collect.h"
#include "region.h"

static const int64_t no_values[1] = { -1 };

static int add(struct sb_aggregator *a, uint32_t thread, uint64_t path, int64_t start,
	       int64_t end, int64_t own)
{
	struct sb_agg_call c = { .thread = thread, .path = path, .start = start, .end = end,
				 .own = own, .values = no_values };

	return sb_aggregator_add(a, &c);
}

/* A million calls of three paths on one thread: three rows, whatever the call count. */
static void test_memory_is_bounded_by_paths(void **state)
{
	struct sb_aggregator a;
	uint64_t counted = 0;
	size_t i;

	(void)state;
	assert_int_equal(sb_aggregator_init(&a, 0, 0, 0), 0);
	for (i = 0; i < 1000000; i++)
		assert_int_equal(add(&a, 1, 0x100 + i % 3, (int64_t)i * 10, (int64_t)i * 10 + 7, 7),
				 0);
	assert_int_equal(a.n_entries, 3);
	assert_true(a.cap <= 64);
	for (i = 0; i < a.n_entries; i++)
		counted += a.entries[i].row.count;
	assert_int_equal(counted, 1000000);
	assert_int_equal(a.entries[0].row.total, 7 * 333334);
	sb_aggregator_free(&a);
}

/*
 * Rows found through the memo of rows found lately: 5 threads x 40 paths x
 * 3 windows, far more than it holds, in a scattered order; each row gets
 * exactly its own calls.
 */
static void test_many_rows_in_turn_each_get_their_calls(void **state)
{
	enum { THREADS = 5, PATHS = 40, WINDOWS = 3, ROWS = THREADS * PATHS * WINDOWS };
	static uint64_t want[ROWS];
	struct sb_aggregator a;
	uint64_t seen = 0;
	uint32_t r, thread, path, window;
	size_t i;

	(void)state;
	memset(want, 0, sizeof(want));
	assert_int_equal(sb_aggregator_init(&a, 0, 1000, 0), 0);
	for (i = 0; i < 200000; i++) {
		/* Runs of two calls of one row now and then, as a loop makes them. */
		r = (uint32_t)(((i - (i % 5 == 1)) * 0x9e3779b97f4a7c15ULL) >> 40) % ROWS;
		thread = r % THREADS;
		path = r / THREADS % PATHS;
		window = r / THREADS / PATHS;
		assert_int_equal(add(&a, thread, 0x5000 + path, 1 + window * 1000,
				     1 + window * 1000 + r, 0), 0);
		want[r]++;
	}
	assert_int_equal(a.n_entries, ROWS);
	for (i = 0; i < a.n_entries; i++) {
		const struct sb_agg_entry *e = &a.entries[i];

		r = e->thread + THREADS * ((uint32_t)(e->path - 0x5000) +
					   PATHS * (uint32_t)e->row.window);
		assert_true(r < ROWS);
		assert_int_equal(e->row.count, want[r]);
		assert_int_equal(e->row.total, (int64_t)(want[r] * r));
		seen += e->row.count;
	}
	assert_int_equal(seen, 200000);
	sb_aggregator_free(&a);
}

/* Durations 0, 1, 2, 3, 1000 and 1 s: sums, extremes, own and the log2 buckets exactly. */
static void test_sums_extremes_and_histogram_are_exact(void **state)
{
	static const int64_t d[] = { 0, 1, 2, 3, 1000, 1000000000 };
	const struct sb_agg_row *r;
	struct sb_aggregator a;
	size_t i;

	(void)state;
	assert_int_equal(sb_aggregator_init(&a, 0, 0, 0), 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(add(&a, 4, 0x9, 100, 100 + d[i], d[i] / 2), 0);
	assert_int_equal(a.n_entries, 1);
	r = &a.entries[0].row;
	assert_int_equal(r->count, 6);
	assert_int_equal(r->total, 1000001006);
	assert_int_equal(r->own, 0 + 0 + 1 + 1 + 500 + 500000000);
	assert_int_equal(r->min, 0);
	assert_int_equal(r->max, 1000000000);
	assert_int_equal(r->hist[0], 2);	/* 0 and 1 ns */
	assert_int_equal(r->hist[1], 2);	/* 2 and 3 ns */
	assert_int_equal(r->hist[9], 1);	/* 1000 ns: [512, 1024) */
	assert_int_equal(r->hist[29], 1);	/* 1 s: [2^29, 2^30) */
	assert_int_equal(sb_agg_bucket(1023), 9);
	assert_int_equal(sb_agg_bucket(1024), 10);
	assert_int_equal(sb_agg_bucket(INT64_MAX), 62);
	assert_int_equal(sb_agg_bucket(-5), 0);
	sb_aggregator_free(&a);
}

/* With 100 ns windows from 1000: a call belongs to the window of its start. */
static void test_windows_split_by_start(void **state)
{
	struct sb_aggregator a;
	size_t i;

	(void)state;
	assert_int_equal(sb_aggregator_init(&a, 0, 100, 1000), 0);
	assert_int_equal(add(&a, 1, 0x5, 500, 510, 10), 0);	/* before the origin: window 0 */
	assert_int_equal(add(&a, 1, 0x5, 1099, 1300, 201), 0);	/* window 0, ends in 3 */
	assert_int_equal(add(&a, 1, 0x5, 1100, 1105, 5), 0);	/* window 1 */
	assert_int_equal(add(&a, 1, 0x5, 1950, 1951, 1), 0);	/* window 9 */
	assert_int_equal(add(&a, 2, 0x5, 1950, 1952, 2), 0);	/* another thread */
	assert_int_equal(a.n_entries, 4);
	for (i = 0; i < a.n_entries; i++) {
		const struct sb_agg_entry *e = &a.entries[i];

		if (e->thread == 1 && e->row.window == 0)
			assert_int_equal(e->row.count, 2);
		else if (e->thread == 1)
			assert_true(e->row.window == 1 || e->row.window == 9);
		else
			assert_int_equal(e->row.window, 9);
	}
	sb_aggregator_free(&a);
	assert_int_equal(sb_aggregator_init(&a, SB_AGG_MAX_VALUES + 1, 0, 0), -EINVAL);
}

/* Value columns are summed; a call without a value makes the row's sum unknown (-1) for good. */
static void test_values_sum_until_one_is_missing(void **state)
{
	const int64_t v1[2] = { 5, 7 }, v2[2] = { 6, -1 }, v3[2] = { 1, 1 };
	const int64_t *vs[3] = { v1, v2, v3 };
	struct sb_agg_call c = { .thread = 1, .path = 3, .start = 0, .end = 1 };
	struct sb_aggregator a;
	int i;

	(void)state;
	assert_int_equal(sb_aggregator_init(&a, 2, 0, 0), 0);
	for (i = 0; i < 3; i++) {
		c.values = vs[i];
		assert_int_equal(sb_aggregator_add(&a, &c), 0);
	}
	assert_int_equal(a.values[0], 12);
	assert_int_equal(a.values[1], -1);
	sb_aggregator_free(&a);
}

static void site(struct sb_collector *c, uint32_t tgid, const char *name)
{
	struct sb_site_event e = { .type = SB_EV_SITE, .tgid = tgid, .site = 0x10, .line = 7 };

	snprintf(e.name, sizeof(e.name), "%s", name);
	snprintf(e.file, sizeof(e.file), "app.c");
	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

static void call(struct sb_collector *c, const char *name, uint64_t start, uint64_t end,
		 uint64_t child, uint64_t path, uint64_t parent_path, int64_t id)
{
	struct sb_call_event e = { .type = SB_EV_CALL, .tgid = 7, .tid = 7, .site = 0x10,
				   .start = start, .end = end, .call_id = id, .parent_id = -1,
				   .child_ns = child, .offcpu_ns = 2, .path_hash = path,
				   .parent_path = parent_path, .name_hash = sb_name_hash(name) };

	assert_int_equal(sb_collector_record(c, &e, sizeof(e)), 0);
}

/*
 * The collector with --aggregate: nothing is spilled, the index rows keep
 * their statistics, and each (thread, path) is one row whose path names its
 * chain of regions, own time from the kernel's child time, off-CPU summed.
 */
static void test_collector_sums_calls_into_path_rows(void **state)
{
	const struct sb_aggregate *a;
	struct sb_collector c;
	size_t i, outer = SIZE_MAX, inner = SIZE_MAX;
	int64_t id = 0;

	(void)state;
	assert_int_equal(sb_collector_init(&c, "/tmp", 1 << 20), 0);
	sb_collector_set_aggregate(&c, 0, 0);
	site(&c, 7, "outer");
	site(&c, 7, "inner");
	for (i = 0; i < 1000; i++) {
		call(&c, "inner", 1000 * i + 10, 1000 * i + 20, 0, 0xb, 0xa, id++);
		call(&c, "inner", 1000 * i + 30, 1000 * i + 40, 0, 0xb, 0xa, id++);
		call(&c, "outer", 1000 * i, 1000 * i + 100, 20, 0xa, 0, id++);
	}
	assert_int_equal(sb_spill_count(c.spill), 0);
	assert_int_equal(sb_collector_finish(&c), 0);
	a = &c.prof.agg;
	assert_true(a->on);
	assert_int_equal(a->n_rows, 2);
	assert_int_equal(c.prof.n_events, 0);
	for (i = 0; i < a->n_rows; i++) {
		if (!strcmp(a->paths[a->rows[i].path].name, "outer"))
			outer = i;
		else
			inner = i;
	}
	assert_true(outer < 2 && inner < 2);
	assert_int_equal(a->paths[a->rows[outer].path].parent, -1);
	assert_int_equal(a->paths[a->rows[inner].path].parent, a->rows[outer].path);
	assert_int_equal(a->rows[outer].count, 1000);
	assert_int_equal(a->rows[outer].total, 100000);
	assert_int_equal(a->rows[outer].own, 80000);
	assert_int_equal(a->rows[inner].count, 2000);
	assert_int_equal(a->rows[inner].own, 20000);
	assert_int_equal(a->rows[inner].hist[3], 2000);	/* 10 ns: [8, 16) */
	assert_int_equal(a->n_values, 1);
	assert_int_equal(sb_agg_value(a, inner, SB_METRIC_OFFCPU), 4000);
	for (i = 0; i < c.prof.n_pairs; i++) {
		assert_int_equal(c.prof.pairs[i].offset, 0);
		assert_true(c.prof.pairs[i].count == 1000 || c.prof.pairs[i].count == 2000);
	}
	sb_collector_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_is_bounded_by_paths),
		cmocka_unit_test(test_many_rows_in_turn_each_get_their_calls),
		cmocka_unit_test(test_sums_extremes_and_histogram_are_exact),
		cmocka_unit_test(test_windows_split_by_start),
		cmocka_unit_test(test_values_sum_until_one_is_missing),
		cmocka_unit_test(test_collector_sums_calls_into_path_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
