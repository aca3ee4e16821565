/* Unit tests of how report --html and export csv grow with the profile: twice the regions, twice the time. */
#include <time.h>

#include "fixtures.h"

#include "analysis/calltree.h"
#include "export/export.h"
#include "render/html.h"

/* Below this the clock's and the cache's noise would decide the ratio. */
#define MIN_SECONDS 0.1
#define MAX_REGIONS (1u << 17)
/* Linear work doubles; a step over every region for every region quadruples. */
#define MAX_RATIO 3.0
/* Runs of each size, alternated: the fastest of each is compared. */
#define RUNS 5

/*
 * n regions of one call each, every call on a thread of its own: what a
 * scope-profiler JSON file of many small regions reads as, with as many
 * timeline lanes as regions.
 */
static void build(struct sb_profile *p, size_t n)
{
	struct sb_thread th = { .rank = 0, .end_ns = -1, .cpu_ns = -1, .name = "t" };
	struct sb_event e;
	char name[32];
	size_t i;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	p->columns = SB_COL_THREAD;
	p->pairs = calloc(n, sizeof(*p->pairs));
	p->events = calloc(n, sizeof(*p->events));
	assert_non_null(p->pairs);
	assert_non_null(p->events);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "region_%zu", i);
		assert_int_equal(sb_profile_add_region(p, name, "", -1, "[]"), i);
		th.index = (int64_t)i;
		th.tid = 1000 + (int64_t)i;
		assert_true(sb_profile_add_thread(p, &th) >= 0);
		sb_event_blank(&e);
		e.start = 100 * (int64_t)i;
		e.end = e.start + 50;
		e.thread = (int64_t)i;
		p->pairs[i] = (struct sb_pair){ .region = (uint32_t)i, .offset = i, .count = 1,
						.exclusive_total = -1 };
		sb_stats_init(&p->pairs[i].stats);
		sb_stats_add(&p->pairs[i].stats, e.start, e.end, -1);
		p->events[i] = e;
	}
	p->n_pairs = p->n_events = n;
}

static double cpu_now(void)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), 0);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What report --html does after reading: the tree, then the page. */
static void html_page(FILE *f, const struct sb_profile *p)
{
	const struct sb_html_opts o = { .title = "scale", .rank = -1 };
	struct sb_ct_opts co = { .rank = -1, .sort = SB_CT_SORT_TOTAL };
	struct sb_error err = { .msg = "" };
	struct sb_calltree t;

	assert_int_equal(sb_calltree_build(&t, p, &co, &err), 0);
	assert_int_equal(sb_report_html(f, p, &t, &o, &err), 0);
	sb_calltree_free(&t);
}

static void csv_file(FILE *f, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };

	assert_int_equal(sb_export_csv(f, p, &err), 0);
}

/* CPU seconds of one write of p. */
static double seconds(void (*write)(FILE *, const struct sb_profile *), FILE *f,
		      const struct sb_profile *p)
{
	double t = cpu_now();

	write(f, p);
	return cpu_now() - t;
}

/* CPU seconds of one write of a profile of n regions, built for it. */
static double seconds_of(void (*write)(FILE *, const struct sb_profile *), FILE *f, size_t n)
{
	struct sb_profile p;
	double t;

	build(&p, n);
	t = seconds(write, f, &p);
	sb_profile_free(&p);
	return t;
}

/*
 * Times compared within one run, so no host is too slow or too fast for it:
 * n grows until one run takes long enough to measure, then 2n must take
 * well under the four times a quadratic step would. The two sizes' runs
 * alternate and each keeps its fastest, so that what the host does meanwhile
 * (CI's other jobs, a cold cache) weighs on both alike: measured one after
 * the other, three of each, a linear writer once read x3.0 and once x3.57.
 */
static void expect_linear(void (*write)(FILE *, const struct sb_profile *), const char *what)
{
	double one = 0, two = 0, t;
	struct sb_profile small, big;
	size_t n = 2000;
	FILE *f = fopen("/dev/null", "w");
	int k;

	assert_non_null(f);
	while (seconds_of(write, f, n) < MIN_SECONDS && n < MAX_REGIONS)
		n *= 2;
	build(&small, n);
	build(&big, 2 * n);
	for (k = 0; k < RUNS; k++) {
		t = seconds(write, f, &small);
		one = k && one < t ? one : t;
		t = seconds(write, f, &big);
		two = k && two < t ? two : t;
	}
	sb_profile_free(&small);
	sb_profile_free(&big);
	assert_int_equal(fclose(f), 0);
	print_message("%s: %zu regions %.3f s, %zu regions %.3f s (x%.2f)\n", what, n, one,
		      2 * n, two, two / one);
	if (two > MAX_RATIO * one)
		fail_msg("%s: %zu regions took %.3f s, %zu took %.3f s: x%.2f, not linear", what, n,
			 one, 2 * n, two, two / one);
}

static void test_html_page_time_is_linear_in_regions_and_threads(void **state)
{
	(void)state;
	expect_linear(html_page, "report --html");
}

static void test_csv_time_is_linear_in_regions(void **state)
{
	(void)state;
	expect_linear(csv_file, "export csv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_page_time_is_linear_in_regions_and_threads),
		cmocka_unit_test(test_csv_time_is_linear_in_regions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
