/* Unit tests of the per-region counter totals, /rank<N>/perf_events/<region>/ (FORMAT.md). */
#include "fixtures.h"

#include "io/h5counters.h"

/* Two events counted; "solve" on ranks 0 and 1, "a/b" (no group name), unknown counts too. */
static void build(struct sb_profile *p)
{
	static const struct { uint32_t region, rank; int64_t faults, switches; } calls[] = {
		{ 0, 0, 10, 1 }, { 0, 0, 5, 2 }, { 0, 0, -1, -1 }, { 1, 0, 7, 0 }, { 0, 1, 100, 3 },
	};
	struct sb_thread rank1 = { .rank = 1, .index = 0, .tid = 43, .end_ns = -1, .cpu_ns = -1,
				   .name = "r1" };
	struct sb_event e;
	size_t i;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	fx_add_threads(p, &rank1, 1);
	assert_int_equal(sb_profile_add_region(p, "solve", "", -1, "[]"), 0);
	assert_int_equal(sb_profile_add_region(p, "a/b", "", -1, "[]"), 1);
	p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER + 1) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + 1);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		sb_event_blank(&e);
		e.start = 10 * (int64_t)i;
		e.end = e.start + 5;
		e.thread = 0;
		e.metric[SB_METRIC_COUNTER] = calls[i].faults;
		e.metric[SB_METRIC_COUNTER + 1] = calls[i].switches;
		e.metric[SB_METRIC_COUNTER_EXCL] = calls[i].faults;
		e.metric[SB_METRIC_COUNTER_EXCL + 1] = calls[i].switches;
		fx_add_call(p, calls[i].region, calls[i].rank, &e);
	}
	assert_int_equal(sb_profile_set_str(p, "counter_events", "page-faults,context-switches"),
			 0);
}

static void read_group(hid_t f, const char *name, int64_t *calls, uint64_t *values,
		       char **names)
{
	hid_t g = H5Gopen2(f, name, H5P_DEFAULT), a, t, d, s;

	assert_true(g >= 0);
	a = H5Aopen(g, "calls", H5P_DEFAULT);
	assert_true(a >= 0 && H5Aread(a, H5T_NATIVE_INT64, calls) >= 0);
	H5Aclose(a);
	a = H5Aopen(g, "event_names", H5P_DEFAULT);
	t = H5Aget_type(a);
	s = H5Aget_space(a);
	assert_int_equal(H5Sget_simple_extent_npoints(s), 2);
	assert_true(H5Aread(a, t, names) >= 0);
	H5Sclose(s);
	H5Tclose(t);
	H5Aclose(a);
	d = H5Dopen2(g, "values", H5P_DEFAULT);
	t = H5Dget_type(d);
	assert_true(H5Tequal(t, H5T_STD_U64LE) > 0);
	assert_true(H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) >= 0);
	H5Tclose(t);
	H5Dclose(d);
	H5Gclose(g);
}

static void test_totals_per_rank_and_region(void **state)
{
	const char *path = tmp_path("totals.h5");
	char *names[2];
	uint64_t values[2];
	int64_t calls;
	hid_t f;

	(void)state;
	fx_write_built(path, build);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	/* An unknown count adds nothing; the call still counts. */
	read_group(f, "/rank0/perf_events/solve", &calls, values, names);
	assert_int_equal(calls, 3);
	assert_int_equal(values[0], 15);
	assert_int_equal(values[1], 3);
	assert_string_equal(names[0], "page-faults");
	assert_string_equal(names[1], "context-switches");
	free(names[0]);
	free(names[1]);
	read_group(f, "/rank1/perf_events/solve", &calls, values, names);
	assert_int_equal(calls, 1);
	assert_int_equal(values[0], 100);
	free(names[0]);
	free(names[1]);
	/* HDF5 would read "a/b" as a group inside a group: left out. */
	assert_true(H5Lexists(f, "/rank0/perf_events/a", H5P_DEFAULT) <= 0);
	H5Fclose(f);
}

static void test_names_without_metadata(void **state)
{
	const char *path = tmp_path("nometa.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;
	char *names[2];
	uint64_t values[2];
	int64_t calls;
	hid_t f;

	(void)state;
	build(&p);
	assert_int_equal(sb_profile_set_str(&p, "counter_events", "page-faults"), 0);
	assert_int_equal(fx_write_h5(path, &p, &err), 0);
	sb_profile_free(&p);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	read_group(f, "/rank0/perf_events/solve", &calls, values, names);
	assert_string_equal(names[0], "page-faults");
	assert_string_equal(names[1], "counter_1");
	free(names[0]);
	free(names[1]);
	H5Fclose(f);
}

/* The per-call columns come back through the reader, unknowns as -1. */
static void test_columns_read_back(void **state)
{
	const char *path = tmp_path("back.h5");
	struct sb_error err = { .msg = "" };
	struct sb_profile p;

	(void)state;
	fx_write_built(path, build);
	sb_profile_init(&p);
	if (sb_h5_read(path, &p, &err))
		fail_msg("%s", err.msg);
	assert_true(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + 1));
	assert_false(p.columns & SB_COL_METRIC(SB_METRIC_COUNTER + 2));
	assert_int_equal(p.events[0].metric[SB_METRIC_COUNTER], 10);
	assert_int_equal(p.events[2].metric[SB_METRIC_COUNTER], -1);
	assert_int_equal(p.events[2].metric[SB_METRIC_COUNTER + 2], -1);
	sb_profile_free(&p);
}

static void test_no_counters_no_groups(void **state)
{
	struct sb_counter_totals t;
	struct sb_profile p;

	(void)state;
	fx_call_tree(&p, NULL, 0, SB_COL_THREAD);
	assert_int_equal(sb_counter_totals_init(&t, &p), 0);
	assert_int_equal(t.n, 0);
	sb_counter_totals_free(&t);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_per_rank_and_region),
		cmocka_unit_test(test_names_without_metadata),
		cmocka_unit_test(test_columns_read_back),
		cmocka_unit_test(test_no_counters_no_groups),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
