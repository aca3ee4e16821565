/* Unit tests of the per-region counter totals, /rank<N>/perf_events/<region>/ (FORMAT.md). */
#include "fixtures.h"

#include <math.h>

#include "counters/likwid.h"
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
		fx_add_call(p, calls[i].region, calls[i].rank, &e);
	}
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		sb_event_set_metric(p, i, SB_METRIC_COUNTER, calls[i].faults);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER + 1, calls[i].switches);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL, calls[i].faults);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + 1, calls[i].switches);
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
	assert_int_equal(sb_event_metric(&p, &p.events[0], SB_METRIC_COUNTER), 10);
	assert_int_equal(sb_event_metric(&p, &p.events[2], SB_METRIC_COUNTER), -1);
	assert_int_equal(sb_event_metric(&p, &p.events[2], SB_METRIC_COUNTER + 2), -1);
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

/*
 * A recording of LIKWID's CLOCK group (zen3: FIXC1 ACTUAL_CPU_CLOCK, FIXC2
 * MAX_CPU_CLOCK, PMC0 RETIRED_INSTRUCTIONS, PMC1 CPU_CLOCKS_UNHALTED): region
 * "solve" on two threads, "a/b" on one, at a 2 GHz nominal clock.
 */
static void build_clock(struct sb_profile *p)
{
	static const struct { uint32_t region; int64_t thread, ns, v[4]; } calls[] = {
		{ 0, 0, 1000000, { 300, 200, 1000, 500 } },
		{ 0, 0, 3000000, { 300, 200, 3000, 1500 } },
		{ 0, 1, 2000000, { 100, 100, 400, 800 } },
		{ 1, 0, 1000, { 1, 1, 1, 1 } },
	};
	struct sb_thread second = { .rank = 0, .index = 1, .tid = 44, .end_ns = -1, .cpu_ns = -1,
				    .name = "t1" };
	struct sb_event e;
	unsigned k;
	size_t i;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	fx_add_threads(p, &second, 1);
	assert_int_equal(sb_profile_add_region(p, "solve", "", -1, "[]"), 0);
	assert_int_equal(sb_profile_add_region(p, "a/b", "", -1, "[]"), 1);
	for (k = 0; k < 4; k++)
		p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER + k) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + k);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		sb_event_blank(&e);
		e.start = 10000000 * (int64_t)i;
		e.end = e.start + calls[i].ns;
		e.thread = calls[i].thread;
		fx_add_call(p, calls[i].region, 0, &e);
	}
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		for (k = 0; k < 4; k++) {
			sb_event_set_metric(p, i, SB_METRIC_COUNTER + k, calls[i].v[k]);
			sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + k, calls[i].v[k]);
		}
	assert_int_equal(sb_profile_set_str(p, "counter_events", "ACTUAL_CPU_CLOCK,MAX_CPU_CLOCK,"
					    "RETIRED_INSTRUCTIONS,CPU_CLOCKS_UNHALTED"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group", "CLOCK"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group_arch", "zen3"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group_counters", "FIXC1,FIXC2,PMC0,PMC1"),
			 0);
	assert_int_equal(sb_profile_set_int(p, "cpu_clock_hz", 2000000000), 0);
}

static void read_doubles(hid_t g, const char *name, double *v, size_t n, int rank)
{
	hid_t d = H5Dopen2(g, name, H5P_DEFAULT), s = H5Dget_space(d);

	assert_true(d >= 0);
	assert_int_equal(H5Sget_simple_extent_ndims(s), rank);
	assert_int_equal(H5Sget_simple_extent_npoints(s), n);
	assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
	H5Sclose(s);
	H5Dclose(d);
}

/* The index of name in attribute key's strings, -1 when absent. */
static int name_index(hid_t g, const char *key, const char *name)
{
	hid_t a = H5Aopen(g, key, H5P_DEFAULT), t = H5Aget_type(a), s = H5Aget_space(a);
	int n = (int)H5Sget_simple_extent_npoints(s), i, at = -1;
	char *v[64];

	assert_true(n <= 64);
	assert_true(H5Aread(a, t, v) >= 0);
	for (i = 0; i < n; i++) {
		if (!strcmp(v[i], name))
			at = i;
		free(v[i]);
	}
	H5Sclose(s);
	H5Tclose(t);
	H5Aclose(a);
	return at;
}

static void test_likwid_regions(void **state)
{
	const char *path = tmp_path("likwid.h5");
	double times[2], events[8], metrics[2 * SB_LIKWID_MAX_METRICS], calls[2];
	int cpi, clock, runtime, energy, pmc1;
	hid_t f, g, a, t;
	char *s;

	(void)state;
	/* LIKWID's group files are installed with it (tools/install-deps.sh). */
	fx_write_built(path, build_clock);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(f >= 0);
	/* scope-profiler's naming: '/' in a region name becomes '|', the tag keeps it. */
	g = H5Gopen2(f, "/rank0/likwid/regions/a|b", H5P_DEFAULT);
	assert_true(g >= 0);
	a = H5Aopen(g, "tag", H5P_DEFAULT);
	t = H5Aget_type(a);
	assert_true(H5Aread(a, t, &s) >= 0);
	assert_string_equal(s, "a/b");
	free(s);
	H5Tclose(t);
	H5Aclose(a);
	H5Gclose(g);
	g = H5Gopen2(f, "/rank0/likwid/regions/solve", H5P_DEFAULT);
	assert_true(g >= 0);
	assert_int_equal(name_index(g, "counter_names", "PMC0"), 2);
	assert_int_equal(name_index(g, "event_names", "CPU_CLOCKS_UNHALTED"), 3);
	cpi = name_index(g, "metric_names", "CPI");
	clock = name_index(g, "metric_names", "Clock [MHz]");
	runtime = name_index(g, "metric_names", "Runtime (RDTSC) [s]");
	energy = name_index(g, "metric_names", "Energy [J]");
	assert_true(cpi >= 0 && clock >= 0 && runtime >= 0 && energy >= 0);
	read_doubles(g, "call_counts", calls, 2, 1);
	assert_true(calls[0] == 2 && calls[1] == 1);
	read_doubles(g, "times", times, 2, 1);
	assert_true(fabs(times[0] - 0.004) < 1e-12 && fabs(times[1] - 0.002) < 1e-12);
	read_doubles(g, "events", events, 8, 2);
	pmc1 = 3;
	/* events[e, t]: thread 0 summed over its two calls. */
	assert_true(events[pmc1 * 2 + 0] == 2000 && events[pmc1 * 2 + 1] == 800);
	{
		hid_t d = H5Dopen2(g, "metrics", H5P_DEFAULT), sp = H5Dget_space(d);
		hsize_t dims[2];

		assert_int_equal(H5Sget_simple_extent_dims(sp, dims, NULL), 2);
		assert_int_equal(dims[1], 2);
		assert_true(dims[0] <= SB_LIKWID_MAX_METRICS);
		assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
				    metrics) >= 0);
		H5Sclose(sp);
		H5Dclose(d);
	}
	/* CPI = PMC1 / PMC0: thread 0 2000 / 4000, thread 1 800 / 400. */
	assert_true(fabs(metrics[cpi * 2 + 0] - 0.5) < 1e-12);
	assert_true(fabs(metrics[cpi * 2 + 1] - 2.0) < 1e-12);
	/* Clock = 1e-6 * (FIXC1 / FIXC2) / inverseClock: 1.5 x 2000 MHz, then 1 x 2000. */
	assert_true(fabs(metrics[clock * 2 + 0] - 3000.0) < 1e-6);
	assert_true(fabs(metrics[clock * 2 + 1] - 2000.0) < 1e-6);
	assert_true(fabs(metrics[runtime * 2 + 0] - 0.004) < 1e-12);
	/* Energy reads a socket's counter, not counted per thread: no value. */
	assert_true(isnan(metrics[energy * 2 + 0]));
	H5Gclose(g);
	H5Fclose(f);
}

/* Without a group (record -e), no LIKWID results. */
static void test_no_likwid_without_group(void **state)
{
	const char *path = tmp_path("nolikwid.h5");
	hid_t f;

	(void)state;
	fx_write_built(path, build);
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	assert_true(H5Lexists(f, "/rank0/likwid", H5P_DEFAULT) <= 0);
	assert_true(H5Lexists(f, "/rank0/perf_events", H5P_DEFAULT) > 0);
	H5Fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals_per_rank_and_region),
		cmocka_unit_test(test_names_without_metadata),
		cmocka_unit_test(test_columns_read_back),
		cmocka_unit_test(test_no_counters_no_groups),
		cmocka_unit_test(test_likwid_regions),
		cmocka_unit_test(test_no_likwid_without_group),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
