/* Unit tests of `report --per-rank` and `report --durations` as text, JSON and CSV. */
#include "fixtures.h"
#include "json_check.h"
#include "render/rank_report.h"
#include "render/series_report.h"

/* Six ranks: "work" takes 100 ns x (rank + 1), with 40 ns of its own; "io" 50 ns on rank 0. */
static void six_ranks(struct sb_profile *p)
{
	uint32_t r;

	sb_profile_init(p);
	p->format = strdup("synthetic");
	for (r = 0; r < 6; r++)
		fx_call_on(p, "work", r, 0, 100 * (r + 1))->exclusive_total = 40;
	fx_call_on(p, "io", 0, 700, 750)->exclusive_total = -1;
}

static char *per_rank(const struct sb_profile *p, enum sb_report_format fmt,
		      enum sb_rank_value value, bool wide)
{
	struct report_opts o = { .format = fmt, .rank_value = value, .wide = wide, .path = "p.h5",
				 .rank = -1 };
	struct sb_rank_matrix m;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(sb_rank_matrix_build(&m, p, NULL), 0);
	assert_int_equal(sb_rank_report_render(f, p, &m, &o), 0);
	assert_int_equal(fclose(f), 0);
	sb_rank_matrix_free(&m);
	return out;
}

/* 80 columns: four ranks a block, blocks one under another; --wide: one block. */
static void test_per_rank_text_blocks_and_kinds(void **state)
{
	struct sb_profile p;
	char *out;

	(void)state;
	six_ranks(&p);
	out = per_rank(&p, SB_REPORT_TEXT, SB_RANK_TIME, false);
	expect_has(out, "ranks     6, 2 regions");
	expect_has(out, "    rank 0    rank 1    rank 2    rank 3  region\n"
		   "    1.714        5    100 ns    200 ns    300 ns    400 ns  work\n"
		   "    6.000        0     50 ns         -         -         -  io\n");
	expect_has(out, "    rank 4    rank 5  region\n");
	expect_has(out, "    500 ns    600 ns  work\n");
	expect_has(out, "\n\n max/mean");
	free(out);
	out = per_rank(&p, SB_REPORT_TEXT, SB_RANK_TIME, true);
	expect_has(out, "    rank 4    rank 5  region\n");
	assert_null(strstr(out, "\n\n max/mean"));
	free(out);
	out = per_rank(&p, SB_REPORT_TEXT, SB_RANK_OWN, false);
	expect_has(out, "     40 ns     40 ns     40 ns     40 ns  work\n");
	expect_has(out, "         ?         -         -         -  io\n");
	free(out);
	/* work's mean is 350 ns: rank 0 is 0.29 of it, rank 5 1.71. */
	out = per_rank(&p, SB_REPORT_TEXT, SB_RANK_RELATIVE, false);
	expect_has(out, "     0.29x     0.57x     0.86x     1.14x  work\n");
	expect_has(out, "     1.43x     1.71x  work\n");
	free(out);
	sb_profile_free(&p);
}

static void test_per_rank_json_and_csv(void **state)
{
	const struct jv *io;
	struct sb_profile p;
	struct jv v;
	char *out;

	(void)state;
	six_ranks(&p);
	out = per_rank(&p, SB_REPORT_JSON, SB_RANK_TIME, false);
	json_parse(out, &v);
	io = &jneed(&v, "regions", J_ARR)->items[1];
	assert_string_equal(jstr(io, "region"), "io");
	assert_int_equal(jint(io, "slowest_rank"), 0);
	assert_int_equal(jneed(io, "own_ns", J_ARR)->items[0].t, J_NULL);
	assert_int_equal((int64_t)jneed(io, "time_ns", J_ARR)->items[0].num, 50);
	jv_free(&v);
	free(out);
	out = per_rank(&p, SB_REPORT_CSV, SB_RANK_TIME, false);
	assert_int_equal(strncmp(out, "region,rank,calls,time_ns,own_ns,relative\n"
				 "work,0,1,100,40,0.285714\n", 66), 0);
	expect_has(out, "\nio,0,1,50,,6.000000\nio,1,0,0,0,0.000000\n");
	free(out);
	sb_profile_free(&p);
}

static char *durations(const struct sb_profile *p, enum sb_report_format fmt, unsigned top)
{
	struct sb_series_opts so = { .rank = -1, .metric = SB_SERIES_DURATION,
				     .windows = SB_SERIES_REPORT_WINDOWS };
	struct report_opts o = { .format = fmt, .top = top, .path = "p.h5", .rank = -1 };
	struct sb_series_set s;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(sb_series_build(&s, p, &so, NULL), 0);
	assert_int_equal(sb_series_report_render(f, p, &s, &o), 0);
	assert_int_equal(fclose(f), 0);
	sb_series_free(&s);
	return out;
}

/*
 * "step" starts every 10 ns from 0 to 390, one call a window: 10 ns long, 80
 * in the middle one; "tail" once at 390.
 */
static void test_durations_line_and_csv(void **state)
{
	struct sb_profile p;
	char *out;
	int i;

	(void)state;
	sb_profile_init(&p);
	for (i = 0; i < 40; i++)
		fx_call_on(&p, "step", 0, i * 10, i * 10 + (i == 20 ? 80 : 10));
	fx_call_on(&p, "tail", 0, 390, 391);
	out = durations(&p, SB_REPORT_TEXT, 1);
	expect_has(out, "windows   40 of 10 ns from the first call");
	expect_has(out, "step                      40     10 ns     10 ns     10 ns     80 ns     80 ns\n"
		   "  \u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581"
		   "\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2588\u2581\u2581\u2581\u2581\u2581"
		   "\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581\u2581"
		   "\u2581  median 10 ns .. 80 ns\n");
	expect_has(out, "(1 more: --top N)\n");
	free(out);
	out = durations(&p, SB_REPORT_CSV, 1);
	expect_has(out, "region,window_start_ns,calls,min_ns,median_ns,max_ns\nstep,0,1,10,10,10\n");
	expect_has(out, "\nstep,200,1,80,80,80\n");
	expect_has(out, "\ntail,390,1,1,1,1\n");
	free(out);
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_rank_text_blocks_and_kinds),
		cmocka_unit_test(test_per_rank_json_and_csv),
		cmocka_unit_test(test_durations_line_and_csv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
