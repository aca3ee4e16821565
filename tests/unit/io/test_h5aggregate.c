/*
 * Unit tests of aggregate files (record --aggregate, FORMAT.md "Aggregates"):
 * the round trip, the index as scope-profiler's aggregate layout has it, the
 * call tree built from the rows, and files that break the rules.
 */
#include "fixtures.h"

#include "analysis/call_series.h"
#include "analysis/calltree.h"
#include "analysis/calltree_mpi.h"
#include "analysis/counters.h"
#include "analysis/merge.h"
#include "io/h5aggregate.h"
#include "io/h5guard.h"

/* outer [0, 100] holding inner [10, 20] and [30, 40] */
static const struct fx_call calls[] = {
	{ "outer", 0, 100, 0, -1, 0 },
	{ "inner", 10, 20, 1, 0, 0 },
	{ "inner", 30, 40, 2, 0, 0 },
};

/* The calls above summed into one row per path. */
static void build(struct sb_profile *p)
{
	struct sb_aggregate *a = &p->agg;

	fx_call_tree(p, calls, 3, 0);
	p->n_events = 0;
	p->pairs[1].offset = 0;
	a->on = true;
	a->window_ns = 1000;
	a->origin_ns = 0;
	a->paths = calloc(2, sizeof(*a->paths));
	a->rows = calloc(2, sizeof(*a->rows));
	a->value_ids = calloc(1, sizeof(*a->value_ids));
	a->values = calloc(2, sizeof(*a->values));
	assert_true(a->paths && a->rows && a->value_ids && a->values);
	a->paths[0] = (struct sb_region_path){ -1, strdup("outer") };
	a->paths[1] = (struct sb_region_path){ 0, strdup("inner") };
	a->n_paths = 2;
	a->rows[0] = (struct sb_agg_row){ .path = 0, .count = 1, .total = 100, .own = 80,
					  .min = 100, .max = 100, .hist[6] = 1 };
	a->rows[1] = (struct sb_agg_row){ .path = 1, .count = 2, .total = 20, .own = 20,
					  .min = 10, .max = 10, .hist[3] = 2 };
	a->n_rows = 2;
	a->value_ids[0] = SB_METRIC_OFFCPU;
	a->values[0] = 5;
	a->values[1] = 7;
	a->n_values = 1;
}

static void expect_rows(const struct sb_profile *p)
{
	const struct sb_aggregate *a = &p->agg;

	assert_true(a->on);
	assert_int_equal(p->n_events, 0);
	assert_int_equal(a->window_ns, 1000);
	assert_int_equal(a->n_rows, 2);
	assert_string_equal(a->paths[a->rows[1].path].name, "inner");
	assert_int_equal(a->paths[1].parent, 0);
	assert_int_equal(a->rows[0].own, 80);
	assert_int_equal(a->rows[1].count, 2);
	assert_int_equal(a->rows[1].hist[3], 2);
	assert_int_equal(sb_agg_value(a, 1, SB_METRIC_OFFCPU), 7);
	assert_int_equal(p->pairs[1].count, 2);
	assert_int_equal(p->pairs[1].stats.total, 20);
}

static void test_round_trip_full_lean_and_guarded(void **state)
{
	const char *path = tmp_path("agg.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	fx_write_built(path, build);
	assert_int_equal(sb_h5_read(path, &p, &err), 0);
	expect_rows(&p);
	sb_profile_free(&p);
	assert_int_equal(sb_h5_read_opts(path, &p, SB_H5_READ_LEAN, &err), 0);
	expect_rows(&p);
	sb_profile_free(&p);
	/* Through the guarded reader's child and its pipe, as report reads it. */
	assert_int_equal(sb_h5_read_guarded(path, &p, 0, &err), 0);
	expect_rows(&p);
	sb_profile_free(&p);
}

/* What scope-profiler's aggregate reader looks at: the layout, no events, the call counts. */
static void test_index_is_scope_profilers_aggregate_layout(void **state)
{
	const char *path = tmp_path("layout.h5");
	uint64_t counts[2] = { 9, 9 };
	int64_t calls[2] = { 0, 0 };
	char *layout = NULL;
	hid_t f, d, a, t;
	hsize_t n;

	(void)state;
	fx_write_built(path, build);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	a = H5Aopen(f, "storage_layout", H5P_DEFAULT);
	t = sb_h5_str_type();
	assert_true(H5Aread(a, t, &layout) >= 0);
	assert_string_equal(layout, "aggregate");
	H5free_memory(layout);
	H5Tclose(t);
	H5Aclose(a);
	d = H5Dopen2(f, "/events/start_times", H5P_DEFAULT);
	t = H5Dget_space(d);
	assert_int_equal(H5Sget_simple_extent_dims(t, &n, NULL), 1);
	assert_int_equal(n, 0);
	H5Sclose(t);
	H5Dclose(d);
	d = H5Dopen2(f, "/rank_region_index/event_counts", H5P_DEFAULT);
	assert_true(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, counts) >= 0);
	H5Dclose(d);
	d = H5Dopen2(f, "/rank_region_index/aggregate_counts", H5P_DEFAULT);
	assert_true(H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, calls) >= 0);
	H5Dclose(d);
	H5Fclose(f);
	assert_int_equal(counts[0] + counts[1], 0);
	assert_int_equal(calls[0], 1);
	assert_int_equal(calls[1], 2);
}

/* The tree of an aggregate is the trace's: counts, totals, own, off-CPU by path. */
static void test_call_tree_from_rows(void **state)
{
	const char *path = tmp_path("tree.h5");
	struct sb_ct_opts o = { .rank = -1 };
	struct sb_error err = { .msg = "" };
	const struct sb_ct_node *outer, *inner;
	struct sb_calltree t;
	struct sb_profile p;

	(void)state;
	fx_write_built(path, build);
	assert_int_equal(sb_h5_read(path, &p, &err), 0);
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), 0);
	assert_int_equal(t.calls, 3);
	outer = &t.nodes[sb_calltree_next(&t, 0)];
	inner = &t.nodes[sb_calltree_next(&t, sb_calltree_next(&t, 0))];
	assert_string_equal(p.regions[outer->region].name, "outer");
	assert_string_equal(p.regions[inner->region].name, "inner");
	assert_int_equal(inner->depth, 2);
	assert_int_equal(outer->total, 100);
	assert_int_equal(outer->own, 80);
	assert_int_equal(outer->offcpu, 5);
	assert_int_equal(inner->calls, 2);
	assert_int_equal(inner->min, 10);
	sb_calltree_free(&t);
	o.flat = true;
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), 0);
	assert_int_equal(t.calls, 3);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* MPI calls grouped per function keep the rows' off-CPU time (no off-CPU column in the profile). */
static void test_mpi_rows_keep_offcpu(void **state)
{
	static const char mpi[] = "mpi:barrier kind=collective bytes=0 peer=-1 root=-1 tag=-1 "
				  "comm=0";
	struct sb_ct_opts o = { .rank = -1 };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	struct sb_profile p;
	uint32_t i;

	(void)state;
	build(&p);
	free(p.regions[1].name);
	free(p.agg.paths[1].name);
	p.regions[1].name = strdup(mpi);
	p.agg.paths[1].name = strdup(mpi);
	assert_int_equal(sb_calltree_build(&t, &p, &o, &err), 0);
	assert_int_equal(sb_calltree_group_mpi(&t, false, SB_CT_SORT_TOTAL), 0);
	i = sb_calltree_next(&t, sb_calltree_next(&t, 0));
	assert_string_equal(sb_calltree_name(&t, i), "mpi:barrier");
	assert_int_equal(t.nodes[i].offcpu, 7);
	sb_calltree_free(&t);
	sb_profile_free(&p);
}

/* report --counters of an aggregate: each row's sums, inclusive and own, by region. */
static void test_counters_from_rows(void **state)
{
	static const int64_t values[2][3] = { { 5, 900, 400 }, { 7, 500, 500 } };
	struct sb_error err = { .msg = "" };
	struct sb_counter_report r;
	struct sb_aggregate *a;
	struct sb_profile p;

	(void)state;
	build(&p);
	a = &p.agg;
	a->n_values = 3;
	a->value_ids = realloc(a->value_ids, 3 * sizeof(*a->value_ids));
	a->values = realloc(a->values, sizeof(values));
	assert_true(a->value_ids && a->values);
	a->value_ids[1] = SB_METRIC_COUNTER;
	a->value_ids[2] = SB_METRIC_COUNTER_EXCL;
	memcpy(a->values, values, sizeof(values));
	assert_int_equal(sb_profile_set_str(&p, "counter_events", "instructions"), 0);
	assert_int_equal(sb_counter_report_build(&r, &p, -1, false, &err), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.names[0], "instructions");
	assert_int_equal(r.n_rows, 2);
	assert_string_equal(r.rows[0].name, "inner");	/* the most own counts first */
	assert_int_equal(r.rows[0].calls, 2);
	assert_int_equal(r.rows[0].incl[0], 500);
	assert_int_equal(r.rows[1].incl[0], 900);
	assert_int_equal(r.rows[1].excl[0], 400);
	sb_counter_report_free(&r);
	sb_profile_free(&p);
}

/* Counts the histogram does not add up to, and a missing group, are refused by name. */
static void test_broken_files_are_refused(void **state)
{
	const uint64_t counts[2] = { 5, 2 };
	const char *path = tmp_path("broken.h5");
	hid_t f;

	(void)state;
	fx_write_built(path, build);
	h5_replace(path, "/scope_bpf/aggregate/count", H5T_STD_U64LE, H5T_NATIVE_UINT64, counts,
		   2);
	expect_read_error(path, "histogram");
	fx_write_built(path, build);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	assert_true(H5Ldelete(f, "/scope_bpf/aggregate", H5P_DEFAULT) >= 0);
	H5Fclose(f);
	expect_read_error(path, "without /scope_bpf/aggregate");
}

/*
 * report --durations of an aggregate: its windows as the series' (inner's in
 * window 2, outer's in 0), a window's mean for its median, quantiles the
 * buckets' bounds within min and max.
 */
static void test_series_from_windows(void **state)
{
	struct sb_series_opts o = { .rank = -1, .metric = SB_SERIES_DURATION, .windows = 40 };
	struct sb_error err = { .msg = "" };
	const struct sb_series *inner;
	struct sb_series_set set;
	struct sb_profile p;

	(void)state;
	build(&p);
	p.agg.rows[1].window = 2;
	p.agg.rows[1].max = 12;
	assert_int_equal(sb_series_build(&set, &p, &o, &err), 0);
	assert_int_equal(set.n, 2);
	assert_int_equal(set.width, 1000);
	assert_string_equal(sb_series_name(&set, &p, &set.s[1]), "inner");
	inner = &set.s[1];
	assert_int_equal(inner->calls, 2);
	assert_int_equal(inner->n_windows, 1);
	assert_int_equal(inner->windows[0].start, 2000);
	assert_int_equal(inner->windows[0].median, 10);
	assert_int_equal(inner->q[0], 10);
	assert_int_equal(inner->q[2], 12);	/* bucket [8, 16), within max */
	assert_int_equal(set.s[0].windows[0].start, 0);
	assert_int_equal(set.s[0].q[3], 100);
	sb_series_free(&set);
	sb_profile_free(&p);
}

/* The same recording as rank 1, from the same clock. */
static void build_rank1(struct sb_profile *p)
{
	size_t i;

	build(p);
	for (i = 0; i < p->n_pairs; i++)
		p->pairs[i].rank = 1;
	p->threads[0].rank = 1;
	for (i = 0; i < p->agg.n_rows; i++)
		p->agg.rows[i].rank = 1;
}

/* Two ranks' aggregates merge into one: rows kept, paths appended, the calls counted. */
static void test_merge_keeps_every_rank_s_rows(void **state)
{
	const char *in[2] = { tmp_path("r0.h5"), tmp_path("r1.h5") };
	const char *out = tmp_path("merged.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	size_t i;

	(void)state;
	fx_write_built(in[0], build);
	fx_write_built(in[1], build_rank1);
	if (sb_merge(in, 2, out, NULL, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(sb_h5_read(out, &p, &err), 0);
	assert_true(p.agg.on);
	assert_int_equal(p.agg.n_rows, 4);
	assert_int_equal(p.agg.n_paths, 4);
	for (i = 0; i < 4; i++)
		assert_string_equal(p.agg.paths[p.agg.rows[i].path].name, i % 2 ? "inner" : "outer");
	assert_int_equal(p.agg.rows[3].rank, 1);
	assert_int_equal(p.agg.paths[3].parent, 2);
	assert_int_equal(sb_agg_value(&p.agg, 3, SB_METRIC_OFFCPU), 7);
	sb_profile_free(&p);
}

/* An aggregate and a trace are not merged: their calls are not alike. */
static void test_merge_refuses_an_aggregate_with_a_trace(void **state)
{
	const char *in[2] = { tmp_path("a0.h5"), tmp_path("t1.h5") };
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	fx_write_built(in[0], build);
	fx_call_tree(&p, calls, 3, 0);
	p.pairs[0].rank = p.pairs[1].rank = p.threads[0].rank = 1;
	if (fx_write_h5(in[1], &p, &err))
		fail_msg("%s", err.msg);
	sb_profile_free(&p);
	assert_int_equal(sb_merge(in, 2, tmp_path("no.h5"), NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "sums and calls cannot be merged"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_full_lean_and_guarded),
		cmocka_unit_test(test_index_is_scope_profilers_aggregate_layout),
		cmocka_unit_test(test_call_tree_from_rows),
		cmocka_unit_test(test_mpi_rows_keep_offcpu),
		cmocka_unit_test(test_counters_from_rows),
		cmocka_unit_test(test_broken_files_are_refused),
		cmocka_unit_test(test_series_from_windows),
		cmocka_unit_test(test_merge_keeps_every_rank_s_rows),
		cmocka_unit_test(test_merge_refuses_an_aggregate_with_a_trace),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
