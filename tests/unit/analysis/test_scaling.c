/* Unit tests of the scaling analysis: speedup, efficiency, imbalance, shares, and bad studies. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/scaling.h"
#include "fixtures.h"
#include "scaling_fixture.h"

#define MS 1000000LL
#define EPS 1e-9

static const struct sb_scaling_row *row(const struct sb_scaling *s, const char *path)
{
	size_t i;

	for (i = 0; i < s->n_rows; i++)
		if (!strcmp(s->rows[i].path, path))
			return &s->rows[i];
	fail_msg("no row %s", path);
	return NULL;
}

/* Build a study of p[0..n-1], named run0.h5 ..., which must succeed. */
static void study(struct sb_scaling *s, struct sb_profile *p, size_t n, bool weak)
{
	static const char *const names[] = { "run0.h5", "run1.h5", "run2.h5", "run3.h5" };
	struct sb_scaling_input in[4];
	struct sb_error err = { .msg = "" };
	size_t i;

	for (i = 0; i < n; i++)
		in[i] = (struct sb_scaling_input){ .path = names[i], .p = &p[i] };
	if (sb_scaling_build(s, in, n, weak, &err))
		fail_msg("%s", err.msg);
}

static void free_runs(struct sb_profile *p, size_t n)
{
	while (n-- > 0)
		sb_profile_free(&p[n]);
}

/* Work split evenly: the work region scales ideally; runs come in any order. */
static void test_strong_scaling_of_even_work(void **state)
{
	struct sb_profile p[3];
	struct sb_scaling s;
	const struct sb_scaling_row *w;

	(void)state;
	sc_even(&p[0], 4, 800 * MS, 0);
	sc_even(&p[1], 1, 800 * MS, 0);
	sc_even(&p[2], 2, 800 * MS, 0);
	study(&s, p, 3, false);
	assert_false(s.by_threads);
	assert_int_equal(s.runs[0].n, 1);
	assert_int_equal(s.runs[1].n, 2);
	assert_int_equal(s.runs[2].n, 4);
	assert_string_equal(s.runs[0].path, "run1.h5");
	w = row(&s, "solve;work");
	assert_int_equal(w->depth, 2);
	assert_int_equal(w->cells[2].max, 200 * MS);
	assert_int_equal(w->cells[2].mean, 200 * MS);
	assert_int_equal(w->cells[2].calls, 4);
	assert_true(fabs(w->cells[1].speedup - 2) < EPS);
	assert_true(fabs(w->cells[2].speedup - 4) < EPS);
	assert_true(fabs(w->cells[2].efficiency - 1) < EPS);
	assert_true(fabs(w->cells[2].imbalance - 1) < EPS);
	/* The run's time is the calls' span: solve's. */
	assert_int_equal(s.runs[2].time, 200 * MS);
	assert_true(fabs(s.runs[2].speedup - 4) < EPS);
	sb_scaling_free(&s);
	free_runs(p, 3);
}

/* The slowest rank sets the time; max/mean says how uneven the ranks were. */
static void test_imbalance_is_slowest_over_mean(void **state)
{
	static const int64_t work1[] = { 1000 * MS }, wait1[] = { 0 };
	static const int64_t work2[] = { 600 * MS, 400 * MS }, wait2[] = { 0, 200 * MS };
	const struct sb_scaling_row *w, *b, *sv;
	struct sb_profile p[2];
	struct sb_scaling s;

	(void)state;
	sc_run(&p[0], "solver", 1, work1, wait1, false);
	sc_run(&p[1], "solver", 2, work2, wait2, false);
	study(&s, p, 2, false);
	w = row(&s, "solve;work");
	assert_int_equal(w->cells[1].max, 600 * MS);
	assert_int_equal(w->cells[1].mean, 500 * MS);
	assert_true(fabs(w->cells[1].imbalance - 1.2) < EPS);
	assert_true(fabs(w->cells[1].speedup - 1000.0 / 600) < EPS);
	assert_true(fabs(w->cells[1].efficiency - 1000.0 / 1200) < EPS);
	/* Rank 1 waits in the barrier what rank 0 works longer: all of it MPI. */
	b = row(&s, "solve;mpi:barrier");
	assert_true(fabs(b->cells[1].mpi_share - 1) < EPS);
	assert_false(b->cells[0].present);
	assert_true(isnan(b->cells[1].speedup));
	/* solve: 1200 ms over both ranks, 200 of them in MPI. */
	sv = row(&s, "solve");
	assert_true(fabs(sv->cells[1].mpi_share - 200.0 / 1200) < EPS);
	assert_true(fabs(sv->cells[0].mpi_share) < EPS);
	/* Without an off-CPU column the share cannot be told. */
	assert_true(isnan(sv->cells[1].offcpu_share));
	sb_scaling_free(&s);
	free_runs(p, 2);
}

/* Weak: the same work per rank is ideal; efficiency is t0 / t, speedup scaled by n. */
static void test_weak_scaling(void **state)
{
	static const int64_t work[] = { 100 * MS, 100 * MS, 100 * MS, 100 * MS };
	static const int64_t wait1[] = { 0 }, wait4[] = { 25 * MS, 25 * MS, 25 * MS, 25 * MS };
	const struct sb_scaling_row *w, *sv;
	struct sb_profile p[2];
	struct sb_scaling s;

	(void)state;
	sc_run(&p[0], "solver", 1, work, wait1, false);
	sc_run(&p[1], "solver", 4, work, wait4, false);
	study(&s, p, 2, true);
	assert_true(s.weak);
	w = row(&s, "solve;work");
	assert_true(fabs(w->cells[1].efficiency - 1) < EPS);
	assert_true(fabs(w->cells[1].speedup - 4) < EPS);
	sv = row(&s, "solve");
	assert_true(fabs(sv->cells[1].efficiency - 100.0 / 125) < EPS);
	assert_true(fabs(sv->cells[1].speedup - 4 * 100.0 / 125) < EPS);
	assert_true(fabs(s.runs[1].efficiency - 0.8) < EPS);
	sb_scaling_free(&s);
	free_runs(p, 2);
}

/* The barrier's share grows as the work shrinks: it leads the rows where efficiency is lost. */
static void test_lost_lists_the_growing_share_first(void **state)
{
	struct sb_profile p[2];
	struct sb_scaling s;
	const struct sb_scaling_row *b;

	(void)state;
	sc_even(&p[0], 1, 400 * MS, 10 * MS);
	sc_even(&p[1], 4, 400 * MS, 50 * MS);
	study(&s, p, 2, false);
	assert_true(s.n_lost >= 1);
	b = &s.rows[s.lost[0]];
	assert_string_equal(b->path, "solve;mpi:barrier");
	/* 10 of 410 ms, then 50 of 150. */
	assert_true(fabs(b->cells[0].share - 10.0 / 410) < EPS);
	assert_true(fabs(b->cells[1].share - 50.0 / 150) < EPS);
	assert_true(fabs(b->growth - (50.0 / 150 - 10.0 / 410)) < EPS);
	/* Rows are a tree: solve, then its children by time, largest first. */
	assert_string_equal(s.rows[0].path, "solve");
	assert_string_equal(s.rows[1].path, "solve;work");
	assert_string_equal(s.rows[2].path, "solve;mpi:barrier");
	assert_int_equal(s.rows[1].parent, 0);
	sb_scaling_free(&s);
	free_runs(p, 2);
}

static void test_offcpu_share(void **state)
{
	static const int64_t work[] = { 100 * MS, 100 * MS }, wait[] = { 0, 0 };
	struct sb_profile p[2];
	struct sb_scaling s;

	(void)state;
	sc_run(&p[0], "solver", 1, work, wait, true);
	sc_run(&p[1], "solver", 2, work, wait, true);
	study(&s, p, 2, true);
	assert_true(fabs(row(&s, "solve;work")->cells[1].offcpu_share - 0.5) < EPS);
	assert_true(fabs(row(&s, "solve")->cells[1].offcpu_share - 0.5) < EPS);
	sb_scaling_free(&s);
	free_runs(p, 2);
}

/* Runs of one rank each scale by threads: OMP_NUM_THREADS names their count. */
static void test_one_rank_runs_scale_by_threads(void **state)
{
	struct sb_profile p[2];
	struct sb_scaling s;

	(void)state;
	sc_even(&p[0], 1, 100 * MS, 0);
	sc_even(&p[1], 1, 100 * MS, 0);
	assert_int_equal(sb_profile_set_int(&p[0], "omp_num_threads", 8), 0);
	assert_int_equal(sb_profile_set_int(&p[1], "omp_num_threads", 2), 0);
	study(&s, p, 2, false);
	assert_true(s.by_threads);
	assert_int_equal(s.runs[0].n, 2);
	assert_int_equal(s.runs[1].n, 8);
	assert_string_equal(sb_scaling_unit(&s, 8), "threads");
	assert_true(fabs(s.runs[1].efficiency - 0.25) < EPS);
	sb_scaling_free(&s);
	free_runs(p, 2);
}

/* sb_scaling_build fails with -EINVAL and a message holding path and cause. */
static void expect_refused(struct sb_profile *p, size_t n, const char *path, const char *cause)
{
	static const char *const names[] = { "a.h5", "b.h5", "c.h5" };
	struct sb_scaling_input in[3];
	struct sb_error err = { .msg = "" };
	struct sb_scaling s;
	size_t i;

	for (i = 0; i < n; i++)
		in[i] = (struct sb_scaling_input){ .path = names[i], .p = &p[i] };
	assert_int_equal(sb_scaling_build(&s, in, n, false, &err), -EINVAL);
	expect_has(err.msg, path);
	expect_has(err.msg, cause);
	sb_scaling_free(&s);
}

static void test_bad_studies_are_refused(void **state)
{
	static const int64_t work[] = { MS, MS }, wait[] = { 0, 0 };
	struct sb_profile p[3];

	(void)state;
	sc_even(&p[0], 1, MS, 0);
	sc_even(&p[1], 2, MS, 0);
	sc_even(&p[2], 2, MS, 0);
	expect_refused(p, 1, "a.h5", "two runs or more");
	expect_refused(p, 3, "c.h5", "2 ranks, as b.h5 has");
	sb_profile_free(&p[2]);
	sc_run(&p[2], "/usr/bin/other_app -x", 2, work, wait, false);
	expect_refused(p, 3, "c.h5", "a run of 'other_app', not of 'solver' as a.h5");
	free_runs(p, 3);
}

static void test_program_is_the_rank_0_command_base_name(void **state)
{
	struct sb_profile p;
	char prog[64];

	(void)state;
	sc_even(&p, 2, MS, 0);
	sb_scaling_program(&p, prog, sizeof(prog));
	assert_string_equal(prog, "solver");
	sb_profile_free(&p);
	sc_run(&p, NULL, 1, (const int64_t[]){ MS }, (const int64_t[]){ 0 }, false);
	sb_scaling_program(&p, prog, sizeof(prog));
	assert_string_equal(prog, "");
	sb_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strong_scaling_of_even_work),
		cmocka_unit_test(test_imbalance_is_slowest_over_mean),
		cmocka_unit_test(test_weak_scaling),
		cmocka_unit_test(test_lost_lists_the_growing_share_first),
		cmocka_unit_test(test_offcpu_share),
		cmocka_unit_test(test_one_rank_runs_scale_by_threads),
		cmocka_unit_test(test_bad_studies_are_refused),
		cmocka_unit_test(test_program_is_the_rank_0_command_base_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
