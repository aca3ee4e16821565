/* Unit tests of `scope-bpf diff` on MPI calls: one row per MPI function, or per region. */
#include "fixtures.h"

#include "analysis/diff.h"
#include "cmd/commands.h"
#include "cmd/diff.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define TREE (SB_COL_THREAD | SB_COL_CALL_ID | SB_COL_PARENT_ID)

#define RECV(args) "mpi:recv kind=point-to-point " args " root=-1 comm=1140850688"
#define RECV1 RECV("bytes=800 peer=1 tag=7")
#define RECV2 RECV("bytes=800 peer=2 tag=7")
#define RECV3 RECV("bytes=1600 peer=3 tag=9")

/* A: solve { recv from 1 (twice), from 2 }: 3 receives, 50 ns. */
static const struct fx_call calls_a[] = {
	{ "solve", 0, 1000, 1, -1, 0 },
	{ RECV1, 10, 20, 2, 1, 0 },
	{ RECV1, 30, 40, 3, 1, 0 },
	{ RECV2, 100, 130, 4, 1, 0 },
};

/* B: the same solve, its receives from another peer, in other sizes: 3 receives, 60 ns. */
static const struct fx_call calls_b[] = {
	{ "solve", 0, 1000, 1, -1, 0 },
	{ RECV3, 10, 30, 2, 1, 0 },
	{ RECV3, 40, 60, 3, 1, 0 },
	{ RECV3, 70, 90, 4, 1, 0 },
};

static void build_a(struct sb_profile *p)
{
	fx_call_tree(p, calls_a, sizeof(calls_a) / sizeof(calls_a[0]), TREE);
}

static void build_b(struct sb_profile *p)
{
	fx_call_tree(p, calls_b, sizeof(calls_b) / sizeof(calls_b[0]), TREE);
}

/* The two runs compared; the rows point into them. */
struct runs {
	struct sb_profile a, b;
	struct sb_diff d;
};

static void compare(struct runs *x, bool mpi_detail)
{
	struct sb_diff_opts o = { .metric = SB_DIFF_TOTAL, .max_regression = SB_DIFF_NO_GATE,
				  .ranks_a = 1, .ranks_b = 1, .mpi_detail = mpi_detail };
	struct sb_error err = { .msg = "" };

	build_a(&x->a);
	build_b(&x->b);
	assert_int_equal(sb_diff_build_opts(&x->d, &x->a, &x->b, &o, &err), 0);
}

static void runs_free(struct runs *x)
{
	sb_diff_free(&x->d);
	sb_profile_free(&x->a);
	sb_profile_free(&x->b);
}

/*
 * Receives from other peers, in other sizes, are one mpi:recv in both runs:
 * compared, where region by region they were only in A and only in B.
 */
static void test_mpi_calls_compare_per_function(void **state)
{
	const struct sb_diff_row *r;
	struct runs x;

	(void)state;
	compare(&x, false);
	assert_int_equal(x.d.n_rows, 2);
	assert_int_equal(x.d.n_only_a, 0);
	assert_int_equal(x.d.n_only_b, 0);
	r = &x.d.rows[0];
	assert_string_equal(r->name, "mpi:recv");
	assert_true(r->mpi_function);
	assert_int_equal(r->a.calls, 3);
	assert_int_equal(r->a.total, 50);
	/* p95 over every call of the function: 10, 10, 30. */
	assert_int_equal(r->a.p95, 30);
	assert_int_equal(r->b.total, 60);
	assert_int_equal(r->b.p95, 20);
	assert_int_equal(r->delta, 10);
	assert_string_equal(x.d.rows[1].name, "solve");
	assert_false(x.d.rows[1].mpi_function);
	runs_free(&x);
}

/* --mpi-detail: each call region by its whole name, as the files hold them. */
static void test_mpi_detail_compares_each_region(void **state)
{
	struct runs x;

	(void)state;
	compare(&x, true);
	assert_int_equal(x.d.n_rows, 1);
	assert_string_equal(x.d.rows[0].name, "solve");
	assert_int_equal(x.d.n_only_a, 2);
	/* By the metric, largest first: the 30 ns receive, then the two of 10 ns. */
	assert_string_equal(x.d.only_a[0].name, RECV2);
	assert_false(x.d.only_a[0].mpi_function);
	assert_int_equal(x.d.n_only_b, 1);
	assert_string_equal(x.d.only_b[0].name, RECV3);
	runs_free(&x);
}

/* diff with a 10% gate on a.h5 and b.h5, and opt (may be NULL); its output. */
static char *run(const char *opt, int status)
{
	char *argv[] = { "diff", "--max-regression", "10", "-o", tmp_path("d.txt"),
			 tmp_path("a.h5"), tmp_path("b.h5"), (char *)opt };

	assert_int_equal(cmd_diff(ARGC(argv) - !opt, argv), status);
	return slurp(tmp_path("d.txt"));
}

/* The command: mpi:recv got 20% slower, a regression; per region, nothing is in both. */
static void test_command_gates_mpi_functions(void **state)
{
	char *out;

	(void)state;
	fx_write_built(tmp_path("a.h5"), build_a);
	fx_write_built(tmp_path("b.h5"), build_b);
	out = run(NULL, 1);
	expect_has(out, "mpi    A's 2 call regions as 1 function, B's 1 as 1 "
			"(--mpi-detail: each)\n");
	expect_has(out, "      3        3    50 ns    60 ns  +10 ns  +20.0%  mpi:recv\n");
	expect_has(out, "\nonly in A: none\n");
	expect_has(out, "\nregressions over 10% in total: 1\n"
			"  mpi:recv  +20.0% (50 ns -> 60 ns)\n");
	free(out);
	out = run("--mpi-detail", 0);
	assert_null(strstr(out, "mpi    "));
	assert_null(strstr(out, "mpi:recv\n"));
	expect_has(out, "\nonly in A: 2 regions\n");
	expect_has(out, "\nregressions over 10% in total: none\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpi_calls_compare_per_function),
		cmocka_unit_test(test_mpi_detail_compares_each_region),
		cmocka_unit_test(test_command_gates_mpi_functions),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
