/* Unit tests of the HTML report's rank heat map and calls over the run, as the page gets them. */
#include "fixtures.h"
#include "json_check.h"
#include "render/html_views.h"

/*
 * Rank 0: 300 "tick" calls of 10 ns, one every 100 ns; rank 1: one "solve"
 * of 1000 ns. Every call counts 5 instructions.
 */
static void two_ranks(struct sb_profile *p)
{
	size_t i;

	sb_profile_init(p);
	for (i = 0; i < 300; i++)
		fx_call_on(p, "tick", 0, (int64_t)i * 100, (int64_t)i * 100 + 10);
	fx_call_on(p, "solve", 1, 0, 1000);
	p->columns |= SB_COL_METRIC(SB_METRIC_COUNTER) | SB_COL_METRIC(SB_METRIC_COUNTER_EXCL);
	assert_int_equal(sb_profile_alloc_counters(p), 0);
	for (i = 0; i < p->n_events; i++)
		sb_event_set_metric(p, i, SB_METRIC_COUNTER, 5);
	assert_int_equal(sb_profile_set_str(p, "counter_events", "instructions"), 0);
}

/* The members written by both functions, parsed as one object. */
static void members(const struct sb_profile *p, int64_t rank, struct jv *v)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	fputs("{\"x\": 0", f);
	assert_int_equal(sb_html_rank_matrix(f, p, rank), 0);
	assert_int_equal(sb_html_series(f, p, rank), 0);
	fputs("}", f);
	assert_int_equal(fclose(f), 0);
	json_parse(out, v);
	free(out);
}

static void test_heat_map_rows_and_cells(void **state)
{
	const struct jv *m, *row;
	struct sb_profile p;
	struct jv v;

	(void)state;
	two_ranks(&p);
	members(&p, -1, &v);
	m = jneed(&v, "rank_matrix", J_OBJ);
	assert_int_equal(jneed(m, "ranks", J_ARR)->n, 2);
	assert_int_equal(jint(m, "total_rows"), 2);
	/* tick: 3000 ns on rank 0; solve: 1000 on rank 1. */
	row = &jneed(m, "rows", J_ARR)->items[0];
	assert_int_equal(jint(row, "total"), 3000);
	assert_int_equal(jint(row, "slowest"), 0);
	assert_int_equal((int64_t)jneed(row, "time", J_ARR)->items[1].num, 0);
	assert_int_equal((int64_t)jneed(row, "n", J_ARR)->items[0].num, 300);
	assert_int_equal(jneed(row, "own", J_ARR)->items[0].t, J_NULL);
	jv_free(&v);
	sb_profile_free(&p);
}

/* Past SB_HTML_SERIES_POINTS calls, windows; a counter is a value of its own. */
static void test_series_per_call_and_per_window(void **state)
{
	const struct jv *s, *tick, *solve;
	struct sb_profile p;
	struct jv v;

	(void)state;
	two_ranks(&p);
	members(&p, -1, &v);
	s = jneed(&v, "series", J_ARR);
	assert_int_equal(s->n, 2);
	assert_string_equal(jstr(&s->items[0], "name"), "duration");
	assert_string_equal(jstr(&s->items[1], "name"), "instructions");
	assert_string_equal(jstr(&s->items[1], "unit"), "count");
	/* Starts 0 .. 29900 in 100 windows of 300 ns: three calls each. */
	assert_int_equal(jint(&s->items[0], "width"), 29900 / SB_HTML_SERIES_WINDOWS + 1);
	tick = &jneed(&s->items[0], "regions", J_ARR)->items[0];
	assert_int_equal(jint(tick, "calls"), 300);
	assert_int_equal(jneed(tick, "per_call", J_BOOL)->b, false);
	assert_int_equal(jneed(tick, "start", J_ARR)->n, SB_HTML_SERIES_WINDOWS);
	assert_int_equal((int64_t)jneed(tick, "n", J_ARR)->items[0].num, 3);
	assert_int_equal((int64_t)jneed(tick, "med", J_ARR)->items[0].num, 10);
	solve = &jneed(&s->items[0], "regions", J_ARR)->items[1];
	assert_int_equal(jneed(solve, "per_call", J_BOOL)->b, true);
	/* Counted: tick's 300 calls of 5 make the larger total. */
	assert_int_equal(jint(&jneed(&s->items[1], "regions", J_ARR)->items[0], "total"), 1500);
	jv_free(&v);
	sb_profile_free(&p);
}

/* A page of one rank: no heat map, and only that rank's calls over the run. */
static void test_one_rank_page(void **state)
{
	struct sb_profile p;
	const struct jv *r;
	struct jv v;

	(void)state;
	two_ranks(&p);
	members(&p, 1, &v);
	assert_null(jget(&v, "rank_matrix"));
	r = jneed(&jneed(&v, "series", J_ARR)->items[0], "regions", J_ARR);
	assert_int_equal(r->n, 1);
	assert_int_equal(jint(&r->items[0], "total"), 1000);
	jv_free(&v);
	sb_profile_free(&p);
}

/*
 * An aggregate of outer { inner } in windows of 1000 ns: outer's one call
 * (100 ns) in window 0, inner's calls in windows 0 (2 of 10 ns) and 3 (1 of
 * 40 ns), as record --aggregate=1us would sum them.
 */
static void aggregate(struct sb_profile *p, int64_t window_ns)
{
	static const struct fx_call calls[] = {
		{ "outer", 0, 100, 0, -1, 0 }, { "inner", 10, 20, 1, 0, 0 },
	};
	struct sb_aggregate *a = &p->agg;

	fx_call_tree(p, calls, 2, 0);
	a->on = true;
	a->window_ns = window_ns;
	a->paths = calloc(2, sizeof(*a->paths));
	a->rows = calloc(3, sizeof(*a->rows));
	assert_true(a->paths && a->rows);
	a->paths[0] = (struct sb_region_path){ -1, strdup("outer") };
	a->paths[1] = (struct sb_region_path){ 0, strdup("inner") };
	a->n_paths = 2;
	a->rows[0] = (struct sb_agg_row){ .path = 0, .count = 1, .total = 100, .own = 60,
					  .min = 100, .max = 100, .hist[6] = 1 };
	a->rows[1] = (struct sb_agg_row){ .path = 1, .count = 2, .total = 20, .own = 20,
					  .min = 10, .max = 10, .hist[3] = 2 };
	a->rows[2] = (struct sb_agg_row){ .path = 1, .window = 3, .count = 1, .total = 40,
					  .own = 40, .min = 40, .max = 40, .hist[5] = 1 };
	a->n_rows = 3;
}

/* The durations of an aggregate: log2 buckets as bins, quantiles within min and max. */
static void test_aggregate_durations_and_windows(void **state)
{
	const struct jv *d, *row, *hist, *series;
	struct sb_profile p;
	char *out = NULL;
	size_t len = 0;
	struct jv v;
	FILE *f;

	(void)state;
	aggregate(&p, 1000);
	f = open_memstream(&out, &len);
	assert_non_null(f);
	fputs("{\"x\": 0", f);
	assert_int_equal(sb_html_agg_durations(f, &p, -1), 0);
	fputs("}", f);
	assert_int_equal(fclose(f), 0);
	json_parse(out, &v);
	free(out);
	assert_int_equal(jneed(&v, "hist_log2", J_BOOL)->b, true);
	d = jneed(&v, "durations", J_ARR);
	assert_int_equal(d->n, 2);
	/* The largest total first: outer's 100 ns, then inner's 3 calls of 60 ns. */
	assert_int_equal(jint(&d->items[0], "region"), 0);
	row = &d->items[1];
	assert_int_equal(jint(row, "region"), 1);
	assert_int_equal(jint(row, "n"), 3);
	assert_int_equal((int64_t)jneed(row, "q", J_ARR)->items[0].num, 10);
	assert_int_equal((int64_t)jneed(row, "q", J_ARR)->items[6].num, 40);
	hist = jneed(row, "hist", J_ARR);
	assert_int_equal(hist->n, 2);
	assert_int_equal((int64_t)hist->items[0].items[0].num, 3);
	assert_int_equal((int64_t)hist->items[0].items[1].num, 2);
	assert_int_equal((int64_t)hist->items[1].items[0].num, 5);
	jv_free(&v);
	/* The series: inner's two recorded windows, each window's mean as its middle value. */
	members(&p, -1, &v);
	series = &jneed(&v, "series", J_ARR)->items[0];
	assert_int_equal(jint(series, "width"), 1000);
	row = &jneed(series, "regions", J_ARR)->items[1];
	assert_int_equal(jint(row, "calls"), 3);
	assert_int_equal(jneed(row, "start", J_ARR)->n, 2);
	assert_int_equal((int64_t)jneed(row, "start", J_ARR)->items[1].num, 3000);
	assert_int_equal((int64_t)jneed(row, "med", J_ARR)->items[0].num, 10);
	jv_free(&v);
	sb_profile_free(&p);
	/* Without windows there is no series to show. */
	aggregate(&p, 0);
	members(&p, -1, &v);
	assert_null(jget(&v, "series"));
	jv_free(&v);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heat_map_rows_and_cells),
		cmocka_unit_test(test_series_per_call_and_per_window),
		cmocka_unit_test(test_one_rank_page),
		cmocka_unit_test(test_aggregate_durations_and_windows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
