/*
 * Unit tests of the HTML report's Counters table: its data only when counters
 * were recorded, MPI call regions per function.
 */
#include "fixtures.h"

#include "render/html.h"

static const struct fx_call calls[] = {
	{ "main", 0, 100, 1, -1, 0 },
	{ "solve", 10, 60, 2, 1, 0 },
};

#define RECV(peer) "mpi:recv kind=point-to-point bytes=800 peer=" peer " root=-1 tag=7 " \
		   "comm=1140850688"

/* main holding two receives, MPI call regions of one function. */
static const struct fx_call mpi_calls[] = {
	{ "main", 0, 100, 1, -1, 0 },
	{ RECV("1"), 10, 30, 2, 1, 0 },
	{ RECV("2"), 40, 60, 3, 1, 0 },
};

/*
 * main holding the calls after it, with instructions and cycles counted when
 * events is not NULL: main's own are what its callees' 300 and 600 each leave.
 */
static void make_calls(struct sb_profile *p, const struct fx_call *c, size_t n, const char *events)
{
	int64_t callees = 300 * (int64_t)(n - 1);
	size_t i;

	fx_call_tree(p, c, n, SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID);
	if (!events)
		return;
	p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER + 1) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL) |
		      SB_COL_METRIC(SB_METRIC_COUNTER_EXCL + 1);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < p->n_events; i++) {
		sb_event_set_metric(p, i, SB_METRIC_COUNTER, i ? 300 : 1000);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER + 1, i ? 600 : 2000);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL, i ? 300 : 1000 - callees);
		sb_event_set_metric(p, i, SB_METRIC_COUNTER_EXCL + 1, i ? 600 : 2000 - 2 * callees);
	}
	assert_int_equal(sb_profile_set_str(p, "counter_events", events), 0);
}

/* main holding solve. */
static void make_profile(struct sb_profile *p, const char *events)
{
	make_calls(p, calls, 2, events);
}

static char *render(const struct sb_profile *p)
{
	static const struct sb_html_opts o = { .title = "prof.h5", .rank = -1 };
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	assert_int_equal(sb_report_html(f, p, &t, &o, &err), 0);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
	return out;
}

static void test_counters_table_data(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, "instructions,cycles");
	page = render(&p);
	/* Rows by own count of the first event: main (700) before solve (300); IPC 0.5. */
	expect_has(page, "\"counters\": {\"events\": [\"instructions\", \"cycles\"], "
		   "\"ratios\": [\"IPC\"], \"rows\": [\n [0, 1, 0, [1000, 2000], [700, 1400], [0.5]],"
		   "\n [1, 1, 0, [300, 600], [300, 600], [0.5]]]}");
	expect_has(page, "id=\"counters-table\"");
	free(page);
	sb_profile_free(&p);
}

static void test_no_counters_no_data(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	make_profile(&p, NULL);
	page = render(&p);
	assert_null(strstr(page, "\"counters\": {"));
	free(page);
	sb_profile_free(&p);
}

/* One row per MPI function, its regions' counts summed; the page names it by the regions' fn. */
static void test_mpi_call_regions_one_row_per_function(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	make_calls(&p, mpi_calls, 3, "instructions,cycles");
	page = render(&p);
	/* mpi:recv (own 600) before main (400), as region 1, its first. */
	expect_has(page, "\"rows\": [\n [1, 2, 0, [600, 1200], [600, 1200], [0.5]],"
		   "\n [0, 1, 0, [1000, 2000], [400, 800], [0.5]]]}");
	expect_has(page, "\"fn\": \"mpi:recv\"");
	free(page);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters_table_data),
		cmocka_unit_test(test_no_counters_no_data),
		cmocka_unit_test(test_mpi_call_regions_one_row_per_function),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
