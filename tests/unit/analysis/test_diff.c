/* Unit tests of `scope-bpf diff`: exact p95, matching by name, ordering, the gate, and the CLI. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/diff.h"
#include "cmd/commands.h"
#include "cmd/diff.h"
#include "io/h5write.h"
#include "fixtures.h"
#include "json_check.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define PCT(x) ((int64_t)(x) * SB_DIFF_PCT_SCALE)

/* ---- building profiles in memory ---- */

/* Append one (rank, region) pair whose calls last dur[0..n-1] ns, one after another. */
static void add_pair(struct sb_profile *p, const char *name, uint32_t rank, const int64_t *dur,
		     size_t n)
{
	struct sb_event *ev = calloc(n + 1, sizeof(*ev));
	int64_t start = 1000000 * (int64_t)(p->n_pairs + 1);
	ssize_t r;
	size_t i;

	r = sb_profile_find_region(p, name);
	if (r < 0)
		r = sb_profile_add_region(p, name, "app.c", 7, "[]");
	assert_true(r >= 0);
	assert_non_null(ev);
	for (i = 0; i < n; i++) {
		ev[i] = (struct sb_event){
			.start = start, .end = start + dur[i], .thread = -1, .call_id = -1,
			.parent_id = -1, .metric = { -1, -1 },
		};
		start += dur[i] + 1;
	}
	fx_add_pair(p, (uint32_t)r, rank, ev, n);
	free(ev);
}
/* A pair of n calls lasting d ns each. */
static void add_same(struct sb_profile *p, const char *name, uint32_t rank, int64_t d, size_t n)
{
	int64_t *dur = malloc((n + 1) * sizeof(*dur));
	size_t i;

	assert_non_null(dur);
	for (i = 0; i < n; i++)
		dur[i] = d;
	add_pair(p, name, rank, dur, n);
	free(dur);
}

static void init(struct sb_profile *p, int64_t mpi_size)
{
	sb_profile_init(p);
	p->format = strdup("synthetic");
	assert_int_equal(sb_profile_set_int(p, "mpi_size", mpi_size), 0);
}

static const struct sb_diff_row *find(const struct sb_diff_row *rows, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	fail_msg("no row for %s", name);
	return NULL;
}

/* ---- p95 ---- */

static void test_p95_is_nearest_rank(void **state)
{
	int64_t v[100], one[] = { 42 }, ten[10], twenty[21], same[7] = { 5, 5, 5, 5, 5, 5, 5 };
	size_t i;

	(void)state;
	/* 1..100 in a scrambled order: the 95th smallest is 95. */
	for (i = 0; i < 100; i++)
		v[i] = (int64_t)((i * 37) % 100) + 1;
	assert_int_equal(sb_diff_p95(v, 100), 95);
	assert_int_equal(sb_diff_p95(one, 1), 42);
	/* ceil(0.95 * 10) = 10: with ten calls, p95 is the slowest. */
	for (i = 0; i < 10; i++)
		ten[i] = 10 - (int64_t)i;
	assert_int_equal(sb_diff_p95(ten, 10), 10);
	/* ceil(0.95 * 20) = 19, ceil(0.95 * 21) = 20. */
	for (i = 0; i < 21; i++)
		twenty[i] = (int64_t)i + 1;
	assert_int_equal(sb_diff_p95(twenty, 20), 19);
	for (i = 0; i < 21; i++)
		twenty[i] = 21 - (int64_t)i;
	assert_int_equal(sb_diff_p95(twenty, 21), 20);
	assert_int_equal(sb_diff_p95(same, 7), 5);
	assert_int_equal(sb_diff_p95(NULL, 0), 0);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void test_p95_agrees_with_sorting(void **state)
{
	int64_t *v = malloc(5000 * sizeof(*v)), *s = malloc(5000 * sizeof(*s));
	size_t n, i, round;

	(void)state;
	assert_non_null(v);
	assert_non_null(s);
	srand(7);
	for (round = 0; round < 300; round++) {
		n = 1 + (size_t)rand() % 5000;
		for (i = 0; i < n; i++)
			v[i] = s[i] = round % 3 ? rand() % 50 : rand() - RAND_MAX / 2;
		qsort(s, n, sizeof(*s), cmp_i64);
		assert_int_equal(sb_diff_p95(v, n), s[n - n / 20 - 1]);
	}
	free(v);
	free(s);
}

static void test_p95_of_mostly_equal_values_stays_linear(void **state)
{
	size_t n = 2000000, i;
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	/* 94.9% zeros, the rest ones: a two-way partition would go quadratic here. */
	for (i = 0; i < n; i++)
		v[i] = i % 1000 < 949 ? 0 : 1;
	assert_int_equal(sb_diff_p95(v, n), 1);
	for (i = 0; i < n; i++)
		v[i] = 3;
	assert_int_equal(sb_diff_p95(v, n), 3);
	free(v);
}

/* ---- comparison ---- */

static void test_regions_match_by_name_across_ids_and_ranks(void **state)
{
	struct sb_profile a, b;
	const struct sb_diff_row *r;
	int64_t d1[100], d2[] = { 1000 };
	struct sb_diff d;
	size_t i;

	(void)state;
	for (i = 0; i < 100; i++)
		d1[i] = (int64_t)i + 1;
	/* A: solve is region 0, on ranks 0 and 1; io is region 1. */
	init(&a, 2);
	add_pair(&a, "solve", 0, d1, 50);
	add_pair(&a, "io", 0, d2, 1);
	add_pair(&a, "solve", 1, d1 + 50, 50);
	/* B: io is region 0; solve is region 1, all on rank 1 (as many ranks: sums compare). */
	init(&b, 2);
	add_same(&b, "io", 0, 500, 4);
	add_pair(&b, "solve", 1, d1, 100);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, SB_DIFF_NO_GATE), 0);
	assert_int_equal(d.n_rows, 2);
	assert_int_equal(d.n_only_a, 0);
	assert_int_equal(d.n_only_b, 0);
	r = find(d.rows, d.n_rows, "solve");
	assert_int_equal(r->a.calls, 100);
	assert_int_equal(r->a.total, 5050);
	assert_int_equal(r->a.avg, 50);
	/* p95 over both ranks' calls together, not per rank. */
	assert_int_equal(r->a.p95, 95);
	assert_int_equal(r->b.p95, 95);
	assert_int_equal(r->delta, 0);
	assert_true(r->has_pct);
	r = find(d.rows, d.n_rows, "io");
	assert_int_equal(r->a.calls, 1);
	assert_int_equal(r->b.calls, 4);
	assert_int_equal(r->b.total, 2000);
	assert_int_equal(r->b.avg, 500);
	assert_int_equal(r->b.p95, 500);
	assert_int_equal(r->delta, 1000);
	assert_true(r->pct == 100.0);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

/* d as text (returned) and as JSON (in *json); the caller frees both. */
static char *render_both(const struct sb_diff *d, const struct sb_profile *a,
			 const struct sb_profile *b, char **json)
{
	struct diff_opts o = { .path_a = "a.h5", .path_b = "b.h5", .metric = d->metric,
			       .max_regression = d->max_regression };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(sb_diff_render(f, d, a, b, &o), 0);
	assert_int_equal(fclose(f), 0);
	o.format = SB_REPORT_JSON;
	f = open_memstream(json, &len);
	assert_non_null(f);
	assert_int_equal(sb_diff_render(f, d, a, b, &o), 0);
	assert_int_equal(fclose(f), 0);
	return text;
}

/* The same work per rank on 4 ranks and on 2: no change, not +100 %, and it says so. */
static void test_different_rank_counts_compare_per_rank(void **state)
{
	struct sb_profile a, b;
	const struct sb_diff_row *r;
	struct sb_diff d;
	char *text, *json;
	uint32_t k;

	(void)state;
	init(&a, 4);
	for (k = 0; k < 4; k++)
		add_same(&a, "solve", k, 100, 3);
	add_same(&a, "io", 0, 7, 1);
	init(&b, 2);
	for (k = 0; k < 2; k++)
		add_same(&b, "solve", k, 100, 3);
	add_same(&b, "io", 1, 7, 1);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, PCT(5)), 0);
	assert_int_equal(d.ranks_a, 4);
	assert_int_equal(d.ranks_b, 2);
	assert_true(d.per_rank);
	r = find(d.rows, d.n_rows, "solve");
	assert_int_equal(r->a.calls, 3);
	assert_int_equal(r->a.total, 300);
	assert_int_equal(r->b.calls, 3);
	assert_int_equal(r->b.total, 300);
	assert_int_equal(r->a.avg, 100);
	assert_int_equal(r->a.p95, 100);
	assert_int_equal(r->delta, 0);
	/* io: 7 ns over 4 ranks is 1.75 a rank (2), over 2 ranks 3.5 (4): +100 %, a regression. */
	r = find(d.rows, d.n_rows, "io");
	assert_int_equal(r->a.total, 2);
	assert_int_equal(r->b.total, 4);
	assert_int_equal(r->a.avg, 7);
	assert_int_equal(d.n_regressions, 1);
	text = render_both(&d, &a, &b, &json);
	expect_has(text, "\nranks  A has 4, B has 2: calls and total are per-rank averages\n");
	expect_has(json, "\"ranks_a\": 4, \"ranks_b\": 2, \"per_rank\": true");
	if (!json_valid(json))
		fail_msg("invalid JSON:\n%s", json);
	free(text);
	free(json);
	sb_diff_free(&d);
	/* Equal rank counts: sums, as always. */
	assert_int_equal(sb_diff_build(&d, &b, &b, SB_DIFF_TOTAL, SB_DIFF_NO_GATE), 0);
	assert_false(d.per_rank);
	assert_int_equal(find(d.rows, d.n_rows, "solve")->a.total, 600);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_regions_in_one_profile_only_are_listed_apart(void **state)
{
	struct sb_profile a, b;
	struct sb_diff d;

	(void)state;
	init(&a, 1);
	add_same(&a, "both", 0, 10, 1);
	add_same(&a, "gone_small", 0, 5, 2);
	add_same(&a, "gone_big", 0, 50, 2);
	init(&b, 1);
	add_same(&b, "new", 0, 7, 3);
	add_same(&b, "both", 0, 10, 1);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, PCT(0)), 0);
	assert_int_equal(d.n_rows, 1);
	assert_string_equal(d.rows[0].name, "both");
	/* Largest metric first. */
	assert_int_equal(d.n_only_a, 2);
	assert_string_equal(d.only_a[0].name, "gone_big");
	assert_int_equal(d.only_a[0].a.total, 100);
	assert_string_equal(d.only_a[1].name, "gone_small");
	assert_int_equal(d.n_only_b, 1);
	assert_string_equal(d.only_b[0].name, "new");
	assert_int_equal(d.only_b[0].b.calls, 3);
	/* Neither a vanished nor a new region trips the gate: it compares regions in both. */
	assert_int_equal(d.n_regressions, 0);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_rows_sorted_by_absolute_delta_of_the_metric(void **state)
{
	static const char *const by_total[] = { "slower_less", "faster", "slower_more", "same" };
	static const char *const by_calls[] = { "faster", "slower_more", "same", "slower_less" };
	struct sb_profile a, b;
	struct sb_diff d;
	size_t i;

	(void)state;
	init(&a, 1);
	init(&b, 1);
	/* total deltas: +10, -50, +30, 0; calls deltas: 0, +9, -3, 0 */
	add_same(&a, "same", 0, 10, 2);
	add_same(&b, "same", 0, 10, 2);
	add_same(&a, "slower_more", 0, 10, 3);
	add_same(&b, "slower_more", 0, 20, 1);
	add_same(&a, "faster", 0, 100, 1);
	add_same(&b, "faster", 0, 5, 10);
	add_same(&a, "slower_less", 0, 50, 1);
	add_same(&b, "slower_less", 0, 150, 1);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, SB_DIFF_NO_GATE), 0);
	assert_int_equal(d.n_rows, 4);
	/* |+100|, |-50|, |-10|, 0 */
	for (i = 0; i < 4; i++)
		assert_string_equal(d.rows[i].name, by_total[i]);
	assert_int_equal(d.rows[0].delta, 100);
	assert_int_equal(d.rows[1].delta, -50);
	assert_true(d.rows[1].pct == -50.0);
	assert_int_equal(d.rows[2].delta, -10);
	sb_diff_free(&d);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_CALLS, SB_DIFF_NO_GATE), 0);
	/* |+9|, |-2|, then the zeros by name. */
	for (i = 0; i < 4; i++)
		assert_string_equal(d.rows[i].name, by_calls[i]);
	assert_int_equal(d.rows[0].delta, 9);
	assert_int_equal(d.rows[1].delta, -2);
	sb_diff_free(&d);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_AVG, SB_DIFF_NO_GATE), 0);
	/* avg: same 0, slower_more +10 (10 -> 20), faster -95, slower_less +100 */
	assert_string_equal(d.rows[0].name, "slower_less");
	assert_string_equal(d.rows[1].name, "faster");
	assert_int_equal(d.rows[1].delta, -95);
	assert_string_equal(d.rows[2].name, "slower_more");
	assert_int_equal(d.rows[2].delta, 10);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_regression_threshold_boundary(void **state)
{
	struct sb_profile a, b;
	struct sb_diff d;
	int64_t limit;

	(void)state;
	/* Exactly the limit passes; one more ns fails. */
	assert_false(sb_diff_exceeds(200, 210, PCT(5)));
	assert_true(sb_diff_exceeds(200, 211, PCT(5)));
	assert_false(sb_diff_exceeds(200, 100, PCT(5)));
	assert_false(sb_diff_exceeds(200, 211, SB_DIFF_NO_GATE));
	/* 2.5%: 1000 -> 1025 is at the limit, 1026 over it; 0% fails any slowdown. */
	assert_int_equal(sb_diff_pct_parse("2.5", &limit), 0);
	assert_int_equal(limit, 2500000);
	assert_false(sb_diff_exceeds(1000, 1025, limit));
	assert_true(sb_diff_exceeds(1000, 1026, limit));
	assert_false(sb_diff_exceeds(1000, 1000, PCT(0)));
	assert_true(sb_diff_exceeds(1000, 1001, PCT(0)));
	/* Decimal fractions hold exactly: 0.1% of 1000 is 1. */
	assert_int_equal(sb_diff_pct_parse("0.1", &limit), 0);
	assert_false(sb_diff_exceeds(1000, 1001, limit));
	assert_true(sb_diff_exceeds(1000, 1002, limit));
	/* Huge values do not overflow the comparison. */
	assert_false(sb_diff_exceeds(INT64_MAX / 2, INT64_MAX / 2 + 1, PCT(1)));
	assert_true(sb_diff_exceeds(INT64_MAX / 4, INT64_MAX / 2, PCT(99)));
	assert_false(sb_diff_exceeds(SB_DIFF_UNKNOWN, 5, PCT(1)));

	init(&a, 1);
	init(&b, 1);
	add_same(&a, "at_limit", 0, 100, 2);	/* 200 -> 210: +5% */
	add_same(&b, "at_limit", 0, 105, 2);
	add_same(&a, "over", 0, 200, 1);		/* 200 -> 211 */
	add_same(&b, "over", 0, 211, 1);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, PCT(5)), 0);
	assert_int_equal(d.n_regressions, 1);
	assert_false(find(d.rows, d.n_rows, "at_limit")->regression);
	assert_true(find(d.rows, d.n_rows, "over")->regression);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_zero_in_a_is_new_not_infinite(void **state)
{
	struct sb_profile a, b;
	const struct sb_diff_row *r;
	struct sb_diff d;

	(void)state;
	init(&a, 1);
	init(&b, 1);
	/* "idle" is in A's region table without a call; "instant" has calls of 0 ns. */
	assert_true(sb_profile_add_region(&a, "idle", "", -1, NULL) >= 0);
	add_same(&b, "idle", 0, 40, 2);
	add_same(&a, "instant", 0, 0, 3);
	add_same(&b, "instant", 0, 0, 3);
	add_same(&a, "mark", 0, 0, 1);
	add_same(&b, "mark", 0, 3, 1);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, PCT(1000)), 0);
	assert_int_equal(d.n_rows, 3);
	assert_int_equal(d.n_only_b, 0);
	r = find(d.rows, d.n_rows, "idle");
	assert_int_equal(r->a.calls, 0);
	assert_int_equal(r->a.avg, 0);
	assert_int_equal(r->a.p95, 0);
	assert_int_equal(r->delta, 80);
	assert_false(r->has_pct);
	/* Growth from nothing is beyond any percentage. */
	assert_true(r->regression);
	r = find(d.rows, d.n_rows, "instant");
	assert_int_equal(r->delta, 0);
	assert_true(r->has_pct);
	assert_true(r->pct == 0.0);
	assert_false(r->regression);
	assert_false(find(d.rows, d.n_rows, "mark")->has_pct);
	assert_int_equal(d.n_regressions, 2);
	sb_diff_free(&d);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_CALLS, PCT(5)), 0);
	r = find(d.rows, d.n_rows, "idle");
	assert_int_equal(r->delta, 2);
	assert_false(r->has_pct);
	assert_int_equal(d.n_regressions, 1);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_p95_unknown_without_events(void **state)
{
	struct sb_profile a, b;
	struct sb_diff d;

	(void)state;
	init(&a, 1);
	init(&b, 1);
	add_same(&a, "x", 0, 10, 4);
	add_same(&a, "y", 0, 10, 4);
	add_same(&b, "x", 0, 10, 4);
	add_same(&b, "y", 0, 99, 4);
	/* Held events let B's p95 be known; A's are gone (a streamed profile). */
	free(a.events);
	a.events = NULL;
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_P95, PCT(0)), 0);
	assert_int_equal(d.rows[0].a.p95, SB_DIFF_UNKNOWN);
	assert_int_equal(d.rows[0].b.p95, 10);
	assert_int_equal(d.rows[0].delta, SB_DIFF_UNKNOWN);
	assert_false(d.rows[0].has_pct);
	assert_int_equal(d.n_regressions, 0);
	/* The other metrics still work from the index. */
	assert_int_equal(find(d.rows, d.n_rows, "y")->a.total, 40);
	sb_diff_free(&d);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_TOTAL, PCT(0)), 0);
	assert_string_equal(d.rows[0].name, "y");
	assert_int_equal(d.rows[0].delta, 356);
	assert_int_equal(d.n_regressions, 1);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_empty_profiles_compare_cleanly(void **state)
{
	struct sb_profile a, b;
	struct sb_diff d;

	(void)state;
	sb_profile_init(&a);
	sb_profile_init(&b);
	assert_int_equal(sb_diff_build(&d, &a, &b, SB_DIFF_P95, PCT(1)), 0);
	assert_int_equal(d.n_rows + d.n_only_a + d.n_only_b + d.n_regressions, 0);
	sb_diff_free(&d);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_metric_and_percentage_parse(void **state)
{
	static const char *const bad[] = { "", "-1", "5%", "1e", " 5", "inf", "nan", "0x10",
					   "1e10", "abc", ".", "1.2.3", "2e3", "1000000001" };
	enum sb_diff_metric m = SB_DIFF_TOTAL;
	int64_t v;
	size_t i;

	(void)state;
	assert_int_equal(sb_diff_metric_parse("p95", &m), 0);
	assert_int_equal(m, SB_DIFF_P95);
	assert_string_equal(sb_diff_metric_name(m), "p95");
	assert_int_equal(sb_diff_metric_parse("calls", &m), 0);
	assert_int_equal(m, SB_DIFF_CALLS);
	assert_int_equal(sb_diff_metric_parse("mean", &m), -EINVAL);
	assert_int_equal(m, SB_DIFF_CALLS);
	assert_int_equal(sb_diff_pct_parse("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sb_diff_pct_parse("12.000001", &v), 0);
	assert_int_equal(v, 12000001);
	assert_int_equal(sb_diff_pct_parse(".5", &v), 0);
	assert_int_equal(v, 500000);
	for (i = 0; i < N(bad); i++)
		if (sb_diff_pct_parse(bad[i], &v) != -EINVAL)
			fail_msg("'%s' was taken as a percentage", bad[i]);
}

/* ---- options ---- */

static int parse(int argc, char **argv, struct diff_opts *o, struct sb_error *err)
{
	memset(err->msg, 0, sizeof(err->msg));
	return diff_parse_args(argc, argv, o, err);
}

static void expect_error(int argc, char **argv, const char *needle)
{
	struct sb_error err;
	struct diff_opts o;

	assert_int_equal(parse(argc, argv, &o, &err), -EINVAL);
	if (!strstr(err.msg, needle))
		fail_msg("error '%s' does not mention '%s'", err.msg, needle);
}

static void test_options_parse(void **state)
{
	char *a[] = { "diff", "old.h5", "new.h5" };
	char *b[] = { "diff", "--metric", "p95", "--max-regression", "7.5", "-f", "json",
		      "-o", "out.json", "old.h5", "new.h5" };
	char *c[] = { "diff", "old.h5", "-m", "calls", "new.h5", "--format=text",
		      "--max-regression=0" };
	char *h[] = { "diff", "-h" };
	struct sb_error err;
	struct diff_opts o;

	(void)state;
	assert_int_equal(parse(ARGC(a), a, &o, &err), 0);
	assert_int_equal(o.metric, SB_DIFF_TOTAL);
	assert_int_equal(o.max_regression, SB_DIFF_NO_GATE);
	assert_int_equal(o.format, SB_REPORT_TEXT);
	assert_null(o.output);
	assert_string_equal(o.path_a, "old.h5");
	assert_string_equal(o.path_b, "new.h5");
	assert_int_equal(parse(ARGC(b), b, &o, &err), 0);
	assert_int_equal(o.metric, SB_DIFF_P95);
	assert_int_equal(o.max_regression, 7500000);
	assert_int_equal(o.format, SB_REPORT_JSON);
	assert_string_equal(o.output, "out.json");
	assert_int_equal(parse(ARGC(c), c, &o, &err), 0);
	assert_int_equal(o.metric, SB_DIFF_CALLS);
	assert_int_equal(o.max_regression, 0);
	assert_string_equal(o.path_a, "old.h5");
	assert_string_equal(o.path_b, "new.h5");
	assert_int_equal(parse(ARGC(h), h, &o, &err), 0);
	assert_true(o.help);
}

static void test_usage_errors_name_their_option(void **state)
{
	/* Any other single name is an event, which the files must have counted. */
	char *metric[] = { "diff", "--metric", "total,calls", "a", "b" };
	char *gate[] = { "diff", "--max-regression", "-3", "a", "b" };
	char *gate_txt[] = { "diff", "--max-regression=ten", "a", "b" };
	char *fmt[] = { "diff", "--format", "csv", "a", "b" };
	char *none[] = { "diff" };
	char *one[] = { "diff", "a" };
	char *three[] = { "diff", "a", "b", "c" };
	char *unknown[] = { "diff", "--sort", "x", "a", "b" };
	char *no_arg[] = { "diff", "a", "b", "--metric" };

	(void)state;
	expect_error(ARGC(metric), metric, "--metric: 'total,calls'");
	expect_error(ARGC(gate), gate, "--max-regression: '-3'");
	expect_error(ARGC(gate_txt), gate_txt, "--max-regression: 'ten'");
	expect_error(ARGC(fmt), fmt, "--format: 'csv'");
	expect_error(ARGC(none), none, "missing A and B");
	expect_error(ARGC(one), one, "missing B");
	expect_error(ARGC(three), three, "'c': only two files");
	expect_error(ARGC(unknown), unknown, "--sort: unknown option");
	expect_error(ARGC(no_arg), no_arg, "--metric: needs an argument");
}

/* ---- end to end, through files ---- */

static void write_profile(const char *path, const struct sb_profile *p)
{
	struct sb_error err = { .msg = "" };

	if (fx_write_h5(path, p, &err))
		fail_msg("%s", err.msg);
}

/* base.h5: solve 10 x 1 ms, io 4 x 20 us, old_step; new.h5: solve 10% slower, io +50%, new_step. */
static void write_pair_of_files(void)
{
	struct sb_profile a, b;

	init(&a, 2);
	add_same(&a, "solve", 0, 1000000, 5);
	add_same(&a, "solve", 1, 1000000, 5);
	add_same(&a, "io", 0, 20000, 4);
	add_same(&a, "old_step", 1, 300, 2);
	init(&b, 2);
	add_same(&b, "new_step", 0, 700, 1);
	add_same(&b, "io", 1, 30000, 4);
	add_same(&b, "solve", 0, 1100000, 10);
	write_profile(tmp_path("base.h5"), &a);
	write_profile(tmp_path("new.h5"), &b);
	sb_profile_free(&a);
	sb_profile_free(&b);
}

static void test_json_checker_rejects_broken_json(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\": [1, -2.5, null, \"x\\\"y\"]}\n"));
	assert_false(json_valid("{\"a\": [1, 2,]}"));
	assert_false(json_valid("{\"a\" 1}"));
	assert_false(json_valid("[1]]"));
}

static void test_command_text_table_and_exit_codes(void **state)
{
	char *plain[] = { "diff", "--wide", "-o", NULL, NULL, NULL };
	char *gate_ok[] = { "diff", "--max-regression", "50", "-o", NULL, NULL, NULL };
	char *gate_hit[] = { "diff", "--max-regression", "49.99", "-o", NULL, NULL, NULL };
	char *out;

	(void)state;
	write_pair_of_files();
	plain[3] = tmp_path("plain.txt");
	plain[4] = tmp_path("base.h5");
	plain[5] = tmp_path("new.h5");
	assert_int_equal(cmd_diff(ARGC(plain), plain), 0);
	out = slurp(tmp_path("plain.txt"));
	expect_has(out, "metric total: regions in both, largest change first\n");
	expect_has(out, "calls A  calls B  total A  total B    avg A    avg B    p95 A    p95 B"
			"     delta  delta%  region\n");
	/* solve: 10 x 1 ms -> 10 x 1.1 ms; io: 80 us -> 120 us. solve's change is bigger. */
	expect_has(out, "     10       10  10.0 ms  11.0 ms  1.00 ms  1.10 ms  1.00 ms  1.10 ms"
			"  +1.00 ms  +10.0%  solve\n");
	expect_has(out, "      4        4  80.0 us   120 us  20.0 us  30.0 us  20.0 us  30.0 us"
			"  +40.0 us  +50.0%  io\n");
	assert_true(strstr(out, "  solve\n") < strstr(out, "  io\n"));
	expect_has(out, "\nonly in A: 1 region\ncalls   total     avg     p95  region\n"
			"    2  600 ns  300 ns  300 ns  old_step\n");
	expect_has(out, "\nonly in B: 1 region\n");
	expect_has(out, "  new_step\n");
	assert_null(strstr(out, "regressions"));
	free(out);

	gate_ok[4] = tmp_path("ok.txt");
	gate_ok[5] = plain[4];
	gate_ok[6] = plain[5];
	assert_int_equal(cmd_diff(ARGC(gate_ok), gate_ok), 0);
	out = slurp(tmp_path("ok.txt"));
	expect_has(out, "\nregressions over 50% in total: none\n");
	free(out);

	gate_hit[4] = tmp_path("hit.txt");
	gate_hit[5] = plain[4];
	gate_hit[6] = plain[5];
	assert_int_equal(cmd_diff(ARGC(gate_hit), gate_hit), 1);
	out = slurp(tmp_path("hit.txt"));
	expect_has(out, "\nregressions over 49.99% in total: 1\n"
			"  io  +50.0% (80.0 us -> 120 us)\n");
	free(out);
}

static void test_command_json_is_valid(void **state)
{
	char *argv[] = { "diff", "--format", "json", "--metric", "avg", "--max-regression", "5",
			 "-o", NULL, NULL, NULL };
	char *out;

	(void)state;
	write_pair_of_files();
	argv[8] = tmp_path("d.json");
	argv[9] = tmp_path("base.h5");
	argv[10] = tmp_path("new.h5");
	assert_int_equal(cmd_diff(ARGC(argv), argv), 1);
	out = slurp(tmp_path("d.json"));
	if (!json_valid(out))
		fail_msg("invalid JSON:\n%s", out);
	expect_has(out, "\"metric\": \"avg\", \"delta_unit\": \"ns\", "
			"\"max_regression_percent\": 5,\n");
	expect_has(out, "{\"region\": \"io\", \"a\": {\"calls\": 4, \"total_ns\": 80000, "
			"\"avg_ns\": 20000, \"p95_ns\": 20000}, \"b\": {\"calls\": 4, "
			"\"total_ns\": 120000, \"avg_ns\": 30000, \"p95_ns\": 30000}, "
			"\"delta\": 10000, \"delta_percent\": 50.000, \"new\": false, "
			"\"regression\": true, \"mpi_function\": false}");
	expect_has(out, "\"only_in_a\": [\n  {\"region\": \"old_step\", \"profile\": "
			"{\"calls\": 2, \"total_ns\": 600, \"avg_ns\": 300, \"p95_ns\": 300}, "
			"\"mpi_function\": false}\n ]");
	expect_has(out, "\"only_in_b\": [\n  {\"region\": \"new_step\"");
	expect_has(out, "\"regressions\": [\n  {\"region\": \"solve\", \"delta\": 100000, "
			"\"delta_percent\": 10.000},\n  {\"region\": \"io\"");
	free(out);
}

/* Formats are told by content: a scope-profiler JSON file diffs against an HDF5 one. */
static void test_command_reads_other_formats(void **state)
{
	char *argv[] = { "diff", "--wide", "-o", NULL, NULL, NULL };
	FILE *f;
	char *out;

	(void)state;
	write_pair_of_files();
	f = fopen(tmp_path("old.json"), "w");
	assert_non_null(f);
	fputs("{\"format\": \"scope-profiler-profile\", \"format_version\": 1, "
	      "\"time_unit\": \"nanoseconds\", \"num_ranks\": 2, \"metadata\": {}, "
	      "\"regions\": [{\"name\": \"solve\", \"rank\": 0, \"source_file\": \"a.py\", "
	      "\"source_lineno\": 7, \"tags\": [], \"start_times_ns\": [0, 5000000], "
	      /* A call on rank 1 too: two ranks recorded, as in B, so totals are compared. */
	      "\"end_times_ns\": [1000000, 7000000]}, {\"name\": \"io\", \"rank\": 1, "
	      "\"source_file\": \"a.py\", \"source_lineno\": 9, \"tags\": [], "
	      "\"start_times_ns\": [0], \"end_times_ns\": [100000]}]}\n", f);
	fclose(f);
	argv[3] = tmp_path("json.txt");
	argv[4] = tmp_path("old.json");
	argv[5] = tmp_path("new.h5");
	assert_int_equal(cmd_diff(ARGC(argv), argv), 0);
	out = slurp(tmp_path("json.txt"));
	/* solve: 2 calls, 3 ms, p95 2 ms -> 10 calls of 1.1 ms. */
	expect_has(out, "      2       10  3.00 ms  11.0 ms  1.50 ms  1.10 ms  2.00 ms  1.10 ms"
			"  +8.00 ms  +266.7%  solve\n");
	expect_has(out, "\nonly in A: none\n");
	expect_has(out, "\nonly in B: 1 region\n");
	free(out);
}

/* The longest line of text, in characters (UTF-8 continuation bytes do not count). */
static size_t widest_line(const char *text)
{
	size_t w = 0, max = 0;

	for (; *text; text++) {
		if (*text == '\n') {
			w = 0;
			continue;
		}
		if (((unsigned char)*text & 0xc0) != 0x80 && ++w > max)
			max = w;
	}
	return max;
}

/* Long names: 80 columns by default, the names cut in the middle; --wide keeps everything. */
static void test_command_text_fits_80_columns_unless_wide(void **state)
{
	static const char *const long_name =
		"solver::multigrid::smooth_on_level_with_red_black_gauss_seidel";
	char *narrow[] = { "diff", "--max-regression", "1", "-o", NULL, NULL, NULL };
	char *wide[] = { "diff", "--wide", "--max-regression", "1", "-o", NULL, NULL, NULL };
	struct sb_profile a, b;
	char *out;

	(void)state;
	init(&a, 1);
	init(&b, 1);
	add_same(&a, long_name, 0, 1000000, 5);
	add_same(&b, long_name, 0, 2000000, 5);
	add_same(&a, "gone::with::a::name::much::longer::than::the::room::left::for::it", 0, 3, 1);
	write_profile(tmp_path("long_a.h5"), &a);
	write_profile(tmp_path("long_b.h5"), &b);
	sb_profile_free(&a);
	sb_profile_free(&b);
	narrow[4] = tmp_path("narrow.txt");
	narrow[5] = tmp_path("long_a.h5");
	narrow[6] = tmp_path("long_b.h5");
	assert_int_equal(cmd_diff(ARGC(narrow), narrow), 1);
	out = slurp(narrow[4]);
	if (widest_line(out) > 80)
		fail_msg("a line over 80 columns:\n%s", out);
	expect_has(out, "calls A  calls B  total A  total B     delta   delta%  region\n");
	assert_null(strstr(out, "p95 A"));
	expect_has(out, "  +5.00 ms  +100.0%  solver::mul...auss_seidel\n");
	expect_has(out, "  gone::with::a::name::much:...:the::room::left::for::it\n");
	expect_has(out, "  solver::multigrid:...lack_gauss_seidel  +100.0% (5.00 ms -> 10.0 ms)\n");
	free(out);
	wide[5] = tmp_path("wide.txt");
	wide[6] = narrow[5];
	wide[7] = narrow[6];
	assert_int_equal(cmd_diff(ARGC(wide), wide), 1);
	out = slurp(wide[5]);
	assert_true(widest_line(out) > 80);
	expect_has(out, "p95 A");
	expect_has(out, long_name);
	free(out);
}

static void test_command_usage_and_unreadable_files_exit_2(void **state)
{
	char *help[] = { "diff", "--help" };
	char *bad[] = { "diff", "--metric", "mean", "a", "b" };
	char *missing[] = { "diff", NULL, "/nonexistent/scope-bpf-b.h5" };
	char *garbage[] = { "diff", NULL, NULL };
	FILE *f;

	(void)state;
	write_pair_of_files();
	assert_int_equal(cmd_diff(ARGC(help), help), 0);
	assert_int_equal(cmd_diff(ARGC(bad), bad), 2);
	missing[1] = tmp_path("base.h5");
	assert_int_equal(cmd_diff(ARGC(missing), missing), 2);
	f = fopen(tmp_path("junk.h5"), "w");
	assert_non_null(f);
	fputs("not a profile\n", f);
	fclose(f);
	garbage[1] = tmp_path("junk.h5");
	garbage[2] = tmp_path("new.h5");
	assert_int_equal(cmd_diff(ARGC(garbage), garbage), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p95_is_nearest_rank),
		cmocka_unit_test(test_p95_agrees_with_sorting),
		cmocka_unit_test(test_p95_of_mostly_equal_values_stays_linear),
		cmocka_unit_test(test_regions_match_by_name_across_ids_and_ranks),
		cmocka_unit_test(test_different_rank_counts_compare_per_rank),
		cmocka_unit_test(test_regions_in_one_profile_only_are_listed_apart),
		cmocka_unit_test(test_rows_sorted_by_absolute_delta_of_the_metric),
		cmocka_unit_test(test_regression_threshold_boundary),
		cmocka_unit_test(test_zero_in_a_is_new_not_infinite),
		cmocka_unit_test(test_p95_unknown_without_events),
		cmocka_unit_test(test_empty_profiles_compare_cleanly),
		cmocka_unit_test(test_metric_and_percentage_parse),
		cmocka_unit_test(test_options_parse),
		cmocka_unit_test(test_usage_errors_name_their_option),
		cmocka_unit_test(test_json_checker_rejects_broken_json),
		cmocka_unit_test(test_command_text_table_and_exit_codes),
		cmocka_unit_test(test_command_json_is_valid),
		cmocka_unit_test(test_command_reads_other_formats),
		cmocka_unit_test(test_command_text_fits_80_columns_unless_wide),
		cmocka_unit_test(test_command_usage_and_unreadable_files_exit_2),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
