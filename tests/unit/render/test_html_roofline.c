/* Unit tests of the HTML report's roofline: its points from a LIKWID group's metrics, or none. */
#include <sys/stat.h>

#include "fixtures.h"

#include "render/html.h"

/*
 * Group files in a perfgroups directory of the test's own (SCOPE_BPF_LIKWID_GROUPS):
 * ROOF has a FLOP rate, an L2 and a memory bandwidth (the memory one listed
 * last, to show it is preferred); NOFLOP has a bandwidth only.
 */
static const char roof[] =
	"SHORT synthetic roofline group\n\n"
	"EVENTSET\n"
	"PMC0 FP_ARITH_INST_RETIRED_SCALAR_DOUBLE\n"
	"PMC1 L1D_REPLACEMENT\n\n"
	"METRICS\n"
	"Runtime (RDTSC) [s] time\n"
	"DP [MFLOP/s] 1.0E-06*PMC0*2.0/time\n"
	"L2D load bandwidth [MBytes/s] 1.0E-06*PMC1*64.0/time\n"
	"Memory bandwidth [MBytes/s] 1.0E-06*PMC1*32.0/time\n";
static const char noflop[] =
	"SHORT synthetic group without FLOPs\n\n"
	"EVENTSET\n"
	"PMC0 FP_ARITH_INST_RETIRED_SCALAR_DOUBLE\n"
	"PMC1 L1D_REPLACEMENT\n\n"
	"METRICS\n"
	"Memory bandwidth [MBytes/s] 1.0E-06*PMC1*32.0/time\n";

static void write_group(const char *name, const char *text)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.txt", tmp_path("groups/skylake"), name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int groups_setup(void **state)
{
	if (tmp_setup(state) || mkdir(tmp_path("groups"), 0755) ||
	    mkdir(tmp_path("groups/skylake"), 0755))
		return -1;
	write_group("ROOF", roof);
	write_group("NOFLOP", noflop);
	return setenv("SCOPE_BPF_LIKWID_GROUPS", tmp_path("groups"), 1);
}

/*
 * solve on two threads (1 s, 2e9 FLOP, 3.2e9 B; 2 s, 8e9 FLOP, 16e9 B),
 * kernel on one (0.5 s, 2e9 FLOP, 0.32e9 B), mark in no time (rates NaN).
 */
static void make_profile(struct sb_profile *p, const char *group)
{
	static const struct { uint32_t region; int64_t thread, start, ns, v[2]; } calls[] = {
		{ 0, 0, 0, 1000000000, { 1000000000, 100000000 } },
		{ 0, 1, 0, 2000000000, { 4000000000, 500000000 } },
		{ 1, 0, 3000000000, 500000000, { 1000000000, 10000000 } },
		{ 2, 0, 4000000000, 0, { 5, 5 } },
	};
	struct sb_thread second = { .rank = 0, .index = 1, .tid = 44, .end_ns = -1, .cpu_ns = -1,
				    .name = "t1" };
	struct sb_event e;
	unsigned k;
	size_t i;

	fx_call_tree(p, NULL, 0, SB_COL_THREAD);
	fx_add_threads(p, &second, 1);
	assert_int_equal(sb_profile_add_region(p, "solve", "", -1, "[]"), 0);
	assert_int_equal(sb_profile_add_region(p, "kernel", "", -1, "[]"), 1);
	assert_int_equal(sb_profile_add_region(p, "mark", "", -1, "[]"), 2);
	for (k = 0; k < 2; k++)
		p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER + k) |
			      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + k);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		sb_event_blank(&e);
		e.start = calls[i].start;
		e.end = e.start + calls[i].ns;
		e.thread = calls[i].thread;
		fx_add_call(p, calls[i].region, 0, &e);
	}
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		for (k = 0; k < 2; k++) {
			sb_event_set_metric(p, i, SB_METRIC_COUNTER + k, calls[i].v[k]);
			sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + k, calls[i].v[k]);
		}
	assert_int_equal(sb_profile_set_str(p, "counter_events",
					    "FP_ARITH_INST_RETIRED_SCALAR_DOUBLE,L1D_REPLACEMENT"), 0);
	if (!group)
		return;
	assert_int_equal(sb_profile_set_str(p, "counter_group", group), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group_arch", "skylake"), 0);
	assert_int_equal(sb_profile_set_str(p, "counter_group_counters", "PMC0,PMC1"), 0);
}

static char *render(const struct sb_profile *p, const struct sb_html_opts *o)
{
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_report_html(f, p, &t, o, &err), 0);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
	return out;
}

static void test_roofline_points(void **state)
{
	static const struct sb_html_opts o = { .title = "prof.h5", .rank = -1 };
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, "ROOF");
	page = render(&p, &o);
	/*
	 * solve: 2000 + 4000 MFLOP/s and 3200 + 8000 MB/s over its threads, 6000 / 11200
	 * FLOP/B; kernel: 4000 MFLOP/s, 640 MB/s, 6.25 FLOP/B; mark (no time) left out.
	 */
	expect_has(page, "\"roofline\": {\"flop_metric\": \"DP [MFLOP/s]\", "
		   "\"bandwidth_metric\": \"Memory bandwidth [MBytes/s]\", \"peak_gflops\": null, "
		   "\"peak_gbs\": null, \"points\": [\n [0, 6, 11.2, 0.535714],\n [1, 4, 0.64, 6.25]]}");
	expect_has(page, "id=\"roofline-chart\"");
	free(page);
	sb_profile_free(&p);
}

static void test_roofline_ceilings_as_given(void **state)
{
	static const struct sb_html_opts o = { .title = "prof.h5", .rank = -1,
					       .peak_gflops = 1500, .peak_gbs = 204.8 };
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, "ROOF");
	page = render(&p, &o);
	expect_has(page, "\"peak_gflops\": 1500, \"peak_gbs\": 204.8, \"points\": [\n [0, 6,");
	free(page);
	sb_profile_free(&p);
}

/* Without a group, or with one that has no FLOP rate, the page gets no roofline data. */
static void test_no_roofline_without_both_metrics(void **state)
{
	static const struct sb_html_opts o = { .title = "prof.h5", .rank = -1 };
	const char *groups[] = { NULL, "NOFLOP" };
	struct sb_profile p;
	char *page;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		make_profile(&p, groups[i]);
		page = render(&p, &o);
		assert_non_null(strstr(page, "\"counters\": {"));
		assert_null(strstr(page, "\"roofline\":"));
		free(page);
		sb_profile_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roofline_points),
		cmocka_unit_test(test_roofline_ceilings_as_given),
		cmocka_unit_test(test_no_roofline_without_both_metrics),
	};

	return cmocka_run_group_tests(tests, groups_setup, tmp_teardown);
}
