/* Unit tests of the streaming summary statistics against a direct computation. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "model/stats.h"

struct call {
	int64_t start;
	int64_t end;
};

static void check_against_direct(const struct call *c, size_t n, const struct sb_stats *s)
{
	double mean = 0, m2 = 0;
	size_t i;

	for (i = 0; i < n; i++)
		mean += (double)(c[i].end - c[i].start);
	mean /= (double)n;
	for (i = 0; i < n; i++)
		m2 += pow((double)(c[i].end - c[i].start) - mean, 2);
	assert_int_equal(s->count, n);
	assert_true(fabs(s->mean - mean) < 1e-6 * (1 + mean));
	assert_true(fabs(s->m2 - m2) < 1e-6 * (1 + m2));
}

static void test_known_calls(void **state)
{
	/* scope-profiler's reference: [10,15], [20,33], [40,55], added out of order. */
	struct call c[] = { { 20, 33 }, { 40, 55 }, { 10, 15 } };
	struct sb_stats s;
	size_t i;

	(void)state;
	sb_stats_init(&s);
	for (i = 0; i < 3; i++)
		sb_stats_add(&s, c[i].start, c[i].end, -1);
	assert_int_equal(s.total, 33);
	assert_int_equal(s.minimum, 5);
	assert_int_equal(s.maximum, 15);
	assert_int_equal(s.first, 5);
	assert_int_equal(s.last, 15);
	assert_int_equal(s.start_minimum, 10);
	assert_int_equal(s.end_maximum, 55);
	assert_int_equal(s.gpu_count, 0);
	assert_int_equal(s.gpu_total, 0);
	check_against_direct(c, 3, &s);
}

static void test_gpu_time_counts_only_calls_with_gpu_work(void **state)
{
	struct sb_stats s;

	(void)state;
	sb_stats_init(&s);
	sb_stats_add(&s, 0, 10, 4);
	sb_stats_add(&s, 20, 30, -1);
	sb_stats_add(&s, 40, 50, 0);
	assert_int_equal(s.gpu_count, 2);
	assert_int_equal(s.gpu_total, 4);
}

static void test_single_call_has_no_spread(void **state)
{
	struct sb_stats s;

	(void)state;
	sb_stats_init(&s);
	sb_stats_add(&s, 100, 350, -1);
	assert_true(s.m2 == 0.0);
	assert_int_equal(s.first, 250);
	assert_int_equal(s.last, 250);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_calls),
		cmocka_unit_test(test_gpu_time_counts_only_calls_with_gpu_work),
		cmocka_unit_test(test_single_call_has_no_spread),
	};

	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
