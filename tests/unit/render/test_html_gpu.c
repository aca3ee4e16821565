/* Unit tests of the HTML report's GPU data: the summary's GPU times, the timeline's lanes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/html.h"
#include "cuda_fixture.h"

static char *render(const struct sb_profile *p, int64_t rank, size_t max_calls)
{
	struct sb_html_opts o = { .title = "gpu.h5", .rank = rank, .max_calls = max_calls };
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	if (sb_report_html(f, p, &t, &o, &err))
		fail_msg("HTML report: %s", err.msg);
	assert_int_equal(fclose(f), 0);
	sb_calltree_free(&t);
	return out;
}

static void test_timeline_gets_gpu_lanes_and_columns(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	cu_build(&p, true);
	page = render(&p, -1, 0);
	/* The host calls' range: from main at 100 to its end at 1000 (GPU work lies inside). */
	expect_has(page, "\"total\": 4, \"shown\": 4, \"truncated\": false, \"t0\": 100, "
			 "\"span\": 900");
	/* Four pieces of GPU work, API calls and the synchronization left to the host lanes. */
	expect_has(page, "\"gpu\": {\"total\": 4, \"shown\": 4, \"truncated\": false, \"lanes\": ["
			 "{\"rank\": 0, \"device\": 0, \"stream\": 7}, "
			 "{\"rank\": 0, \"device\": 0, \"stream\": 9}, "
			 "{\"rank\": 0, \"device\": 1, \"stream\": 7}, "
			 "{\"rank\": 1, \"device\": 0, \"stream\": 7}]");
	expect_has(page, "\"names\": [\"square(float*, int)\", \"plain_kernel\"]");
	/* Kernel, copy, memset on rank 0, kernel on rank 1; times after t0. */
	expect_has(page, "\"lane\": [0,1,2,3]");
	expect_has(page, "\"kind\": [1,2,3,1]");
	expect_has(page, "\"start\": [160,200,500,250]");
	expect_has(page, "\"dur\": [140,200,50,450]");
	expect_has(page, "\"name\": [0,-1,-1,1]");
	expect_has(page, "\"bytes\": [-1,4194304,512,-1]");
	expect_has(page, "\"copy\": [-1,1,-1,-1]");
	/* Launched in solve, solve, nowhere known, main. */
	expect_has(page, "\"region\": [1,1,-1,0]}");
	free(page);
	sb_profile_free(&p);
}

static void test_gpu_work_outside_the_calls_widens_the_span(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	cu_build(&p, true);
	p.cuda.acts[7].start = 60;
	p.cuda.acts[7].end = 1200;
	page = render(&p, -1, 0);
	expect_has(page, "\"t0\": 60, \"span\": 1140");
	/* Host calls count from the same t0. */
	expect_has(page, "\"start\": [40,");
	free(page);
	sb_profile_free(&p);
}

static void test_gpu_lanes_keep_the_longest_and_follow_the_rank(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	cu_build(&p, true);
	/* Two of each: the two longest GPU activities, the 450 and 200 ns ones. */
	page = render(&p, -1, 2);
	expect_has(page, "\"gpu\": {\"total\": 4, \"shown\": 2, \"truncated\": true, \"lanes\": ["
			 "{\"rank\": 0, \"device\": 0, \"stream\": 9}, "
			 "{\"rank\": 1, \"device\": 0, \"stream\": 7}]");
	expect_has(page, "\"kind\": [2,1]");
	expect_has(page, "\"lane\": [0,1]");
	free(page);
	/* Rank 1 alone: its kernel only. */
	page = render(&p, 1, 0);
	expect_has(page, "\"gpu\": {\"total\": 1, \"shown\": 1, \"truncated\": false, \"lanes\": ["
			 "{\"rank\": 1, \"device\": 0, \"stream\": 7}]");
	free(page);
	sb_profile_free(&p);
}

/*
 * The summary's GPU columns, as report's: the GPU time of each call tree row,
 * in the rows' order; none where no call has one (API calls, GPU lanes alone).
 */
static void test_summary_gets_each_rows_gpu_time(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	cu_build(&p, true);
	page = render(&p, -1, 0);
	assert_null(strstr(page, "\"gpu_nodes\""));
	free(page);
	/* solve's first call on rank 0 launched 140 ns of GPU work, its second none. */
	p.columns |= SB_COL_GPU;
	p.events[2].metric[SB_METRIC_GPU] = 140;
	p.events[3].metric[SB_METRIC_GPU] = 0;
	p.pairs[2].stats.gpu_count = 2;
	p.pairs[2].stats.gpu_total = 140;
	page = render(&p, -1, 0);
	/* main, solve inside it (the call with 140 ns), solve on the worker thread alone. */
	expect_has(page, "\"nodes\": [\n [0, -1, 1, 2, 1650,");
	expect_has(page, "\n [1, 0, 2, 1, 100,");
	expect_has(page, "\n [1, -1, 1, 1, 200,");
	expect_has(page, "\"gpu_nodes\": [0,140,0]");
	free(page);
	sb_profile_free(&p);
}

static void test_no_gpu_member_without_gpu_work(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	cu_build(&p, false);
	page = render(&p, -1, 0);
	assert_null(strstr(page, "\"gpu\": {"));
	free(page);
	/* API calls alone are no GPU work. */
	cu_add_activity(&p);
	p.cuda.acts[1].kind = p.cuda.acts[3].kind = p.cuda.acts[4].kind = SB_CUDA_ACT_DRIVER;
	p.cuda.acts[7].kind = SB_CUDA_ACT_DRIVER;
	page = render(&p, -1, 0);
	assert_null(strstr(page, "\"gpu\": {"));
	free(page);
	sb_profile_free(&p);
}

static void test_page_draws_gpu_items_apart_from_calls(void **state)
{
	struct sb_profile p;
	char *page;

	(void)state;
	cu_build(&p, true);
	page = render(&p, -1, 0);
	/* The script reads what the writer wrote, and has a lane label and a tooltip for it. */
	expect_has(page, "var T = D.timeline, G = T.gpu,");
	expect_has(page, "return s + 'GPU ' + info.device + ' stream ' + info.stream;");
	expect_has(page, "['launched in', G.region[g] >= 0 ?");
	free(page);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timeline_gets_gpu_lanes_and_columns),
		cmocka_unit_test(test_gpu_work_outside_the_calls_widens_the_span),
		cmocka_unit_test(test_gpu_lanes_keep_the_longest_and_follow_the_rank),
		cmocka_unit_test(test_summary_gets_each_rows_gpu_time),
		cmocka_unit_test(test_no_gpu_member_without_gpu_work),
		cmocka_unit_test(test_page_draws_gpu_items_apart_from_calls),
	};

	return cmocka_run_group_tests_name("html_gpu", tests, NULL, NULL);
}
