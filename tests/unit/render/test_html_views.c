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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heat_map_rows_and_cells),
		cmocka_unit_test(test_series_per_call_and_per_window),
		cmocka_unit_test(test_one_rank_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
