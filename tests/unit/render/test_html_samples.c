/* Unit tests of the HTML report's timed CPU samples: ticks on their threads' timeline lanes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/commands.h"
#include "timeline_fixture.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* The page report --html writes for the file of tl_write(), with extra options before it. */
static char *page_of(const char *name, const char *opt, const char *val)
{
	char h5[512], html[512], *argv[6] = { "report", "--html", html };
	int argc = 3;

	snprintf(h5, sizeof(h5), "%s.h5", tmp_path(name));
	snprintf(html, sizeof(html), "%s.html", tmp_path(name));
	tl_write(h5);
	if (opt) {
		argv[argc++] = (char *)opt;
		argv[argc++] = (char *)val;
	}
	argv[argc++] = h5;
	assert_int_equal(cmd_report(argc, argv), 0);
	return slurp(html);
}

/*
 * Each sample a tick on its thread's lane, at its time after the timeline's
 * start (the first call, 12 s), with its CPU, its innermost function (the
 * kernel's first) and its region path, names listed once.
 */
static void test_ticks_on_their_threads_lanes(void **state)
{
	char *page;

	(void)state;
	page = page_of("ticks", NULL, NULL);
	expect_has(page, "\"t0\": 12000000000, \"span\": 2000");
	/* Lanes: rank 0 main, rank 0 worker (samples only), rank 1. */
	expect_has(page, "\"lanes\": [{\"rank\": 0, \"thread\": 0, \"tid\": 4243, \"name\": "
			 "\"main\"}, {\"rank\": 0, \"thread\": 1, \"tid\": 4244, \"name\": "
			 "\"worker\"}, {\"rank\": 1, \"thread\": 0, \"tid\": 5252, \"name\": "
			 "\"rank1\"}]");
	expect_has(page, "\"samples\": {\"total\": 4, \"shown\": 4, \"step\": 1, "
			 "\"names\": [\"compute\", \"do_syscall_64\", \"main\"], "
			 "\"paths\": [\"solve \u203a step\", \"solve\"], "
			 "\"lane\": [0,1,0,2], \"t\": [250,500,1000,300], \"cpu\": [2,3,2,5], "
			 "\"fn\": [0,1,0,2], \"path\": [0,1,0,-1]}");
	free(page);
}

/* --rank keeps that rank's ticks only, on its lanes. */
static void test_rank_option_keeps_its_ticks(void **state)
{
	char *page;

	(void)state;
	page = page_of("rank1", "--rank", "1");
	expect_has(page, "\"samples\": {\"total\": 1, \"shown\": 1, \"step\": 1, "
			 "\"names\": [\"main\"], \"paths\": [], \"lane\": [0], \"t\": [300], "
			 "\"cpu\": [5], \"fn\": [0], \"path\": [-1]}");
	free(page);
}

/* A profile that kept only the sums has no tick to draw, and the page no such key. */
static void test_no_ticks_without_times(void **state)
{
	char h5[512], html[512], *page;
	char *argv[] = { "report", "--html", html, h5 };

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tmp_path("summed.h5"));
	snprintf(html, sizeof(html), "%s", tmp_path("summed.html"));
	fx_write_built(h5, tl_build);
	assert_int_equal(cmd_report(ARGC(argv), argv), 0);
	page = slurp(html);
	assert_null(strstr(page, "\"samples\": {\"total\""));
	expect_has(page, "\"lanes\": [{\"rank\": 0, \"thread\": 0, \"tid\": 4243, \"name\": "
			 "\"main\"}, {\"rank\": 1,");
	free(page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ticks_on_their_threads_lanes),
		cmocka_unit_test(test_rank_option_keeps_its_ticks),
		cmocka_unit_test(test_no_ticks_without_times),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
