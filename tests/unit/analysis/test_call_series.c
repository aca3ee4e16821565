/* Unit tests of the calls over the run: window edges, per-call points, quantiles, hostile times. */
#include "analysis/call_series.h"
#include "fixtures.h"

#define SEND(peer) "mpi:send kind=point-to-point bytes=8 peer=" #peer " root=-1 tag=1 comm=1"

static void build(struct sb_series_set *set, const struct sb_profile *p, int64_t rank,
		  unsigned windows, uint64_t max_points)
{
	struct sb_series_opts o = { .rank = rank, .metric = SB_SERIES_DURATION,
				    .windows = windows, .max_points = max_points };
	struct sb_error err = { .msg = "" };

	if (sb_series_build(set, p, &o, &err))
		fail_msg("%s", err.msg);
}

static void expect_window(const struct sb_series_window *w, uint64_t start, uint64_t calls,
			  int64_t min, int64_t median, int64_t max)
{
	assert_int_equal(w->start, start);
	assert_int_equal(w->calls, calls);
	assert_int_equal(w->min, min);
	assert_int_equal(w->median, median);
	assert_int_equal(w->max, max);
}

/* Starts 0..99 cut in 10 windows of 10 ns: 9 is the first window's, 10 the second's. */
static void test_window_edges(void **state)
{
	struct sb_series_set set;
	struct sb_series *s;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, "step", 0, 0, 5);
	fx_call_on(&p, "step", 0, 9, 10);
	fx_call_on(&p, "step", 0, 10, 40);
	fx_call_on(&p, "step", 0, 19, 21);
	fx_call_on(&p, "step", 0, 19, 27);
	fx_call_on(&p, "step", 0, 99, 199);
	build(&set, &p, -1, 10, 0);
	assert_int_equal(set.t0, 0);
	assert_int_equal(set.span, 99);
	assert_int_equal(set.width, 10);
	assert_int_equal(set.n, 1);
	s = &set.s[0];
	assert_false(s->per_call);
	assert_int_equal(s->n_windows, 3);
	expect_window(&s->windows[0], 0, 2, 1, 5, 5);
	/* Three calls: the median is the middle one. */
	expect_window(&s->windows[1], 10, 3, 2, 8, 30);
	expect_window(&s->windows[2], 90, 1, 100, 100, 100);
	assert_int_equal(s->calls, 6);
	assert_int_equal(s->total, 5 + 1 + 30 + 2 + 8 + 100);
	/* Durations 1 2 5 8 30 100: the median of six is the upper one, as the page's. */
	assert_int_equal(s->q[0], 1);
	assert_int_equal(s->q[2], 8);
	assert_int_equal(s->q[6], 100);
	sb_series_free(&set);
	sb_profile_free(&p);
}

/* Few calls: one point each, at its start after the run's first call; regions by total. */
static void test_per_call_points_and_order(void **state)
{
	struct sb_series_set set;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, "short", 0, 1000, 1010);
	fx_call_on(&p, "long", 0, 1500, 2500);
	fx_call_on(&p, "long", 0, 3000, 3500);
	build(&set, &p, -1, 10, 2);
	assert_int_equal(set.t0, 1000);
	assert_int_equal(set.n, 2);
	assert_string_equal(sb_series_name(&set, &p, &set.s[0]), "long");
	assert_true(set.s[0].per_call);
	assert_int_equal(set.s[0].n_windows, 2);
	expect_window(&set.s[0].windows[0], 500, 1, 1000, 1000, 1000);
	expect_window(&set.s[0].windows[1], 2000, 1, 500, 500, 500);
	expect_window(&set.s[1].windows[0], 0, 1, 10, 10, 10);
	sb_series_free(&set);
	sb_profile_free(&p);
}

/* --rank: only its calls, its own first start; MPI call regions as one function. */
static void test_rank_filter_and_mpi_functions(void **state)
{
	struct sb_series_set set;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, SEND(1), 0, 0, 10);
	fx_call_on(&p, SEND(0), 1, 100, 130);
	fx_call_on(&p, SEND(2), 1, 200, 210);
	build(&set, &p, 1, 4, 100);
	assert_int_equal(set.t0, 100);
	assert_int_equal(set.n, 1);
	assert_string_equal(sb_series_name(&set, &p, &set.s[0]), "mpi:send");
	assert_int_equal(set.s[0].calls, 2);
	assert_int_equal(set.s[0].total, 40);
	sb_series_free(&set);
	sb_profile_free(&p);
}

static void test_empty_and_without_events(void **state)
{
	struct sb_series_set set;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	build(&set, &p, -1, 10, 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(set.t0, 0);
	sb_series_free(&set);
	fx_call_on(&p, "a", 0, 0, 10);
	free(p.events);
	p.events = NULL;
	build(&set, &p, -1, 10, 0);
	assert_int_equal(set.n, 0);
	sb_series_free(&set);
	sb_profile_free(&p);
}

/* Ends before starts and durations past INT64_MAX are dropped; the widest span still bins. */
static void test_hostile_times(void **state)
{
	struct sb_series_set set;
	struct sb_profile p;
	struct sb_series *s;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, "a", 0, INT64_MIN, INT64_MIN + 4);
	fx_call_on(&p, "a", 0, 50, 10);
	/* As a file holds it: the index row's sums would overflow on it, so set after. */
	fx_call_on(&p, "a", 0, -10, 0);
	p.events[p.n_events - 1].end = INT64_MAX;
	fx_call_on(&p, "a", 0, INT64_MAX - 1, INT64_MAX);
	build(&set, &p, -1, 3, 0);
	assert_int_equal(set.dropped, 2);
	assert_int_equal(set.t0, INT64_MIN);
	assert_int_equal(set.span, UINT64_MAX - 1);
	s = &set.s[0];
	assert_int_equal(s->calls, 2);
	assert_int_equal(s->n_windows, 2);
	expect_window(&s->windows[0], 0, 1, 4, 4, 4);
	assert_int_equal(s->windows[1].start, 2 * set.width);
	assert_int_equal(s->windows[1].max, 1);
	sb_series_free(&set);
	sb_profile_free(&p);
}

/* A counter as the value: calls with unknown counts (-1) have none. */
static void test_counter_values(void **state)
{
	struct sb_series_opts o = { .rank = -1, .metric = SB_METRIC_COUNTER, .windows = 1 };
	struct sb_error err = { .msg = "" };
	struct sb_series_set set;
	struct sb_profile p;

	(void)state;
	sb_profile_init(&p);
	fx_call_on(&p, "a", 0, 0, 10);
	fx_call_on(&p, "a", 0, 20, 30);
	fx_call_on(&p, "a", 0, 40, 50);
	p.columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER_EXCL);
	assert_int_equal(sb_profile_alloc_counters(&p), 0);
	sb_event_set_metric(&p, 0, SB_METRIC_COUNTER, 700);
	sb_event_set_metric(&p, 2, SB_METRIC_COUNTER, 300);
	assert_int_equal(sb_series_build(&set, &p, &o, &err), 0);
	assert_int_equal(set.dropped, 1);
	assert_int_equal(set.s[0].calls, 2);
	assert_int_equal(set.s[0].total, 1000);
	expect_window(&set.s[0].windows[0], 0, 2, 300, 700, 700);
	sb_series_free(&set);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_edges),
		cmocka_unit_test(test_per_call_points_and_order),
		cmocka_unit_test(test_rank_filter_and_mpi_functions),
		cmocka_unit_test(test_empty_and_without_events),
		cmocka_unit_test(test_hostile_times),
		cmocka_unit_test(test_counter_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
